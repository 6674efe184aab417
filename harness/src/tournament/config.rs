//! Tournament files (TOML): global settings and one or more events, each a round robin or a
//! gauntlet of players in one game.
//!
//! ```toml
//! seed = 1
//! [[event]]
//! name = "hex7"
//! game = "hex"               # hex | checkers
//! size = 7                   # Hex board size
//! format = "round-robin"     # "gauntlet": the first player meets every other one;
//!                            # "ladder": a gauntlet plus each other player against the next
//! games = 4                  # games per pairing; pairs share an opening, colours swapped
//! openings = "../openings/hex-7.txt"   # relative to this file; none: the empty board
//! opening_order = "shuffled" # or "sequential"
//! time_control = "none"      # or "0.1s/move", "40/60+0.6", "10+0.1"
//! margin = "100ms"           # how far a move may overrun the clock
//! max_plies = 400            # adjudicated a draw after this many plies
//! adjudicate_decided = true  # Hex: end a game once a side can no longer connect
//! on_fault = "loss"          # or "void": setup failures and crashes are replayed
//! players = ["random", "mcts:playouts=400", { name = "ext", spec = "external:cmd=\"tmbot hex\"" }]
//! ```

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tmbot::play::TimeControl;
use tmbot::player::spec::parse_duration;

/// A whole tournament file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TournamentFile {
    /// Seed of every game (each game gets its own sub-stream).
    #[serde(default = "one")]
    pub seed: u64,
    /// Games played at once (the command line's `--concurrency` overrides it).
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// The events, played one after the other.
    #[serde(rename = "event")]
    pub events: Vec<EventConfig>,
}

fn one() -> u64 {
    1
}

/// Which game an event plays.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GameName {
    /// Hex on a `size` x `size` board, no swap.
    Hex,
    /// English checkers.
    Checkers,
}

/// Who meets whom.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every player meets every other one.
    #[default]
    RoundRobin,
    /// The first player meets every other one.
    Gauntlet,
    /// The first player meets every other one, and each other player meets the next one in
    /// the list (a graded scale: neighbours' games tie the rungs together).
    Ladder,
}

/// How openings are taken from the book.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum OpeningOrder {
    /// In the book's order, wrapping around.
    #[default]
    Sequential,
    /// Shuffled by the seed (every opening once before any repeats).
    Shuffled,
}

/// What a faulted game counts as.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnFault {
    /// A loss for the agent at fault (its engine is restarted for the next game).
    #[default]
    Loss,
    /// Games ended by a disconnect or a stall are void: kept apart and replayed; the run
    /// stops when the same game is void twice.
    Void,
}

/// A player: a spec, or a name and a spec.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum PlayerEntry {
    /// Just the spec (its name is the spec). `{here}` in a spec stands for the tournament
    /// file's folder.
    Spec(String),
    /// A named spec.
    Named {
        /// The name in tables and records.
        name: String,
        /// The player or engine spec.
        spec: String,
    },
}

impl PlayerEntry {
    /// The name in tables and records.
    pub fn name(&self) -> &str {
        match self {
            PlayerEntry::Spec(spec) => spec,
            PlayerEntry::Named { name, .. } => name,
        }
    }

    /// The spec.
    pub fn spec(&self) -> &str {
        match self {
            PlayerEntry::Spec(spec) | PlayerEntry::Named { spec, .. } => spec,
        }
    }
}

/// One event of a tournament.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EventConfig {
    /// The event's name (records, tables, file names).
    pub name: String,
    /// The game.
    pub game: GameName,
    /// Hex board size.
    #[serde(default)]
    pub size: Option<usize>,
    /// Round robin or gauntlet.
    #[serde(default)]
    pub format: Format,
    /// Games per pairing.
    pub games: u64,
    /// Opening book, relative to the tournament file.
    #[serde(default)]
    pub openings: Option<PathBuf>,
    /// Opening order.
    #[serde(default)]
    pub opening_order: OpeningOrder,
    /// Time control (`none`, `0.1s/move`, `40/60+0.6`).
    #[serde(default)]
    pub time_control: Option<String>,
    /// Clock margin (`100ms`).
    #[serde(default)]
    pub margin: Option<String>,
    /// Seconds an untimed agent may think before it counts as stalled.
    #[serde(default)]
    pub stall: Option<String>,
    /// Playouts per move for every in-process player (replacing their own).
    #[serde(default)]
    pub playouts: Option<u64>,
    /// Nodes per move for every in-process player.
    #[serde(default)]
    pub nodes: Option<u64>,
    /// Depth for every in-process player.
    #[serde(default)]
    pub depth: Option<u32>,
    /// Ply limit (adjudicated a draw).
    #[serde(default)]
    pub max_plies: Option<usize>,
    /// Adjudicate decided positions (Hex: a side that can no longer connect has lost).
    #[serde(default)]
    pub adjudicate_decided: bool,
    /// What a faulted game counts as.
    #[serde(default)]
    pub on_fault: OnFault,
    /// The players.
    pub players: Vec<PlayerEntry>,
}

/// An event's settings checked and resolved.
#[derive(Clone, Debug)]
pub struct Event {
    /// The configuration as written.
    pub config: EventConfig,
    /// The time control.
    pub time_control: TimeControl,
    /// The clock margin.
    pub margin: Duration,
    /// The stall timeout.
    pub stall: Duration,
    /// The opening book's path, resolved.
    pub openings: Option<PathBuf>,
}

impl TournamentFile {
    /// Reads and checks a tournament file.
    pub fn load(path: &Path) -> anyhow::Result<(TournamentFile, String)> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read tournament file {}", path.display()))?;
        let file = TournamentFile::parse(&text)
            .with_context(|| format!("tournament file {}", path.display()))?;
        Ok((file, text))
    }

    /// Parses a tournament file's text.
    pub fn parse(text: &str) -> anyhow::Result<TournamentFile> {
        let file: TournamentFile = toml::from_str(text)?;
        if file.events.is_empty() {
            bail!("no [[event]]: a tournament needs at least one event");
        }
        if file.concurrency == Some(0) {
            bail!("concurrency must be at least 1");
        }
        let mut names = std::collections::HashSet::new();
        for event in &file.events {
            if !names.insert(event.name.as_str()) {
                bail!("two events are named '{}'", event.name);
            }
        }
        Ok(file)
    }

    /// The events with their settings resolved; book paths are relative to `base`.
    pub fn resolve(&self, base: &Path) -> anyhow::Result<Vec<Event>> {
        self.events.iter().map(|e| e.resolve(base)).collect()
    }
}

impl EventConfig {
    fn resolve(&self, base: &Path) -> anyhow::Result<Event> {
        let context = || format!("event '{}'", self.name);
        let check = || -> anyhow::Result<Event> {
            if self.name.is_empty()
                || !self
                    .name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                bail!("event names use letters, digits, '-' and '_' only");
            }
            if self.players.len() < 2 {
                bail!("an event needs at least two players");
            }
            if self.games == 0 {
                bail!("games must be at least 1");
            }
            match (self.game, self.size) {
                (GameName::Hex, None) => bail!("a Hex event needs a size"),
                (GameName::Checkers, Some(_)) => bail!("checkers has no size"),
                _ => {}
            }
            let mut names = std::collections::HashSet::new();
            for player in &self.players {
                if !names.insert(player.name()) {
                    bail!("two players are named '{}'", player.name());
                }
            }
            let time_control = match &self.time_control {
                Some(text) => TimeControl::parse(text).map_err(anyhow::Error::msg)?,
                None => TimeControl::Unlimited,
            };
            let duration = |field: &str, text: &Option<String>, default: Duration| {
                text.as_deref().map_or(Ok(default), |t| {
                    parse_duration(t).map_err(|e| anyhow::anyhow!("{field}: {e}"))
                })
            };
            let here = base.to_string_lossy();
            let mut config = self.clone();
            for player in &mut config.players {
                let (PlayerEntry::Named { spec, .. } | PlayerEntry::Spec(spec)) = player;
                {
                    *spec = spec.replace("{here}", &here);
                }
            }
            Ok(Event {
                config,
                time_control,
                margin: duration("margin", &self.margin, Duration::from_millis(100))?,
                stall: duration("stall", &self.stall, Duration::from_secs(60))?,
                openings: self.openings.as_ref().map(|p| base.join(p)),
            })
        };
        check().with_context(context)
    }
}

impl Event {
    /// The pairings `(a, b)` of player indices, in schedule order.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.config.players.len();
        match self.config.format {
            Format::RoundRobin => (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect(),
            Format::Gauntlet => (1..n).map(|b| (0, b)).collect(),
            Format::Ladder => (1..n)
                .map(|b| (0, b))
                .chain((1..n.saturating_sub(1)).map(|r| (r, r + 1)))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
seed = 7
[[event]]
name = "hex5"
game = "hex"
size = 5
games = 2
players = ["random", { name = "mc", spec = "mcts:playouts=50" }, "flatmc:playouts=20"]
"#;

    #[test]
    fn reads_players_and_pairings() {
        let file = TournamentFile::parse(FILE).unwrap();
        assert_eq!(file.seed, 7);
        let events = file.resolve(Path::new(".")).unwrap();
        assert_eq!(events[0].config.players[1].name(), "mc");
        assert_eq!(events[0].pairings(), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(events[0].time_control, TimeControl::Unlimited);
    }

    #[test]
    fn bad_files_name_the_problem() {
        let err = |text: &str| format!("{:#}", TournamentFile::parse(text).unwrap_err());
        assert!(err("seed = 1").contains("event"));
        assert!(err(&FILE.replace("games = 2", "games = 2\ncolour = 1")).contains("colour"));
        let resolve = |text: &str| {
            let file = TournamentFile::parse(text).unwrap();
            format!("{:#}", file.resolve(Path::new(".")).unwrap_err())
        };
        assert!(resolve(&FILE.replace("size = 5\n", "")).contains("needs a size"));
        assert!(resolve(&FILE.replace("games = 2", "games = 0")).contains("games"));
        assert!(
            resolve(&FILE.replace("game = \"hex\"", "game = \"hex\"\ntime_control = \"x\""))
                .contains("time control")
        );
        assert!(
            resolve(&FILE.replace("\"flatmc:playouts=20\"", "\"random\"")).contains("two players")
        );
    }
}

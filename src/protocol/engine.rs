//! The state behind a protocol session, shared by both games: the game record, the player,
//! the seeded generator, the clocks and the engine parameters; and the command handlers that
//! do not depend on the game.

use super::clock::{seconds_text, Clock};
use crate::game::Color;
use crate::player::Player;
use crate::rng::{seeded, Rng};
use crate::search::{Limits, SearchGame};
use crate::stop::StopFlag;
use std::time::Instant;

/// What a protocol needs from a game beyond searching it.
pub trait ProtocolGame: SearchGame {
    /// The player used when none is given.
    const DEFAULT_PLAYER: &'static str;

    /// A new game with the same size and rules, at its start.
    fn restarted(&self) -> Self;

    /// How many more moves the side to move is expected to make (for time budgets).
    fn moves_left_estimate(&self) -> usize;

    /// A text diagram of the position (`showboard`).
    fn diagram(&self) -> String;
}

/// A protocol session's state.
pub struct Engine<G: ProtocolGame> {
    /// The game record.
    pub game: G,
    /// Raised by `# interrupt` to stop a running search.
    pub stop: StopFlag,
    /// Both sides' clocks.
    pub clock: Clock,
    player: Player<G>,
    seed: u64,
    rng: Rng,
    max_time: f64,
}

/// Seconds per move when nothing else limits the search (as MoHex's `max_time` default).
pub const DEFAULT_MAX_TIME: f64 = 10.0;

/// Share of a move's time kept for the work a search does after its deadline: an MCTS tree
/// of millions of nodes takes about 2.5% of the search time to free, so without this margin
/// `genmove` under `max_time 1` answered after 1.03 s.
pub const AFTER_DEADLINE_SHARE: f64 = 0.04;

/// Seconds on each clock at the start of a game (`param_game game_time`).
pub const DEFAULT_GAME_TIME: f64 = 1800.0;

impl<G: ProtocolGame> Engine<G> {
    /// A session on `game` with the player `spec` and the random `seed`.
    pub fn new(game: G, spec: &str, seed: u64) -> Result<Engine<G>, String> {
        let player = Player::from_spec(spec).map_err(|e| e.to_string())?;
        Ok(Engine {
            game,
            stop: StopFlag::default(),
            clock: Clock::new(DEFAULT_GAME_TIME),
            player,
            seed,
            rng: seeded(seed),
            max_time: DEFAULT_MAX_TIME,
        })
    }

    /// The current player's spec.
    pub fn player_spec(&self) -> &str {
        self.player.spec()
    }

    /// Starts a new game of the same kind; clocks are reset.
    pub fn new_game(&mut self) {
        self.game = self.game.restarted();
        self.player.new_game();
        self.clock.reset();
    }

    /// Searches for the side to move within its time budget (the spec's own limits still
    /// apply, both less [`AFTER_DEADLINE_SHARE`]) and returns the move without playing it;
    /// the clock is charged for the time used.
    pub fn think(&mut self) -> Option<G::Move> {
        let color = self.game.side_to_move();
        let budget = self
            .clock
            .budget(color, self.game.moves_left_estimate(), Some(self.max_time));
        let time = self
            .player
            .limits()
            .time
            .map_or(budget, |own| own.min(budget))
            .mul_f64(1.0 - AFTER_DEADLINE_SHARE);
        let limits = Limits {
            time: Some(time),
            stop: Some(self.stop.clone()),
            ..Limits::default()
        };
        let started = Instant::now();
        let choice = self.player.choose(&self.game, &limits, &mut self.rng);
        let used = started.elapsed().as_secs_f64();
        let left = self.clock.left(color) - used + self.clock.increment;
        self.clock.set_left(color, left);
        choice
    }

    /// `param_tmbot`: lists the engine parameters, or sets one (`param_tmbot NAME VALUE...`).
    pub fn param(&mut self, args: &[String]) -> Result<String, String> {
        let Some((name, value)) = args.split_first() else {
            return Ok(format!(
                "[string] player {}\n[string] seed {}\n[string] max_time {}\n[string] increment {}",
                self.player.spec(),
                self.seed,
                self.max_time,
                self.clock.increment
            ));
        };
        let value = value.join(" ");
        if value.is_empty() {
            return Err(format!("missing value for parameter {name}"));
        }
        match name.as_str() {
            "player" => self.player = Player::from_spec(&value).map_err(|e| e.to_string())?,
            "seed" => {
                self.seed = value
                    .parse()
                    .map_err(|_| format!("seed must be an integer, not '{value}'"))?;
                self.rng = seeded(self.seed);
            }
            "max_time" => self.max_time = seconds(&value)?,
            "increment" => self.clock.increment = seconds(&value)?,
            _ => return Err(format!("unknown parameter: {name}")),
        }
        Ok(String::new())
    }

    /// `time_left` in Benzene's forms (none: both clocks; `COLOR`: that clock; `COLOR
    /// SECONDS`: set it) and GTP's `COLOR SECONDS STONES`.
    pub fn time_left(&mut self, args: &[String]) -> Result<String, String> {
        match args {
            [] => Ok(self.clock.describe()),
            [color] => Ok(seconds_text(self.clock.left(parse_color(color)?))),
            [color, value] | [color, value, _] => {
                let color = parse_color(color)?;
                self.clock.set_left(color, seconds(value)?);
                Ok(String::new())
            }
            _ => Err("usage: time_left [COLOR [SECONDS [STONES]]]".to_string()),
        }
    }

    /// Takes back the last move (`undo`).
    pub fn undo(&mut self) -> Result<String, String> {
        self.game
            .undo()
            .map(|_| String::new())
            .ok_or_else(|| "cannot undo".to_string())
    }

    /// `final_score`: `B+`, `W+`, `0` for a draw, or `cannot score` while the game goes on.
    pub fn final_score(&self) -> Result<String, String> {
        match self.game.outcome() {
            Some(outcome) => Ok(match outcome.winner {
                Some(Color::Black) => "B+".to_string(),
                Some(Color::White) => "W+".to_string(),
                None => "0".to_string(),
            }),
            None => Err("cannot score".to_string()),
        }
    }

    /// Every legal move in the game's notation, space separated.
    pub fn legal_moves_text(&self) -> String {
        let mut moves = Vec::new();
        self.game.legal_moves(&mut moves);
        moves
            .iter()
            .map(|&m| self.game.move_to_text(m))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Parses a colour argument.
pub fn parse_color(text: &str) -> Result<Color, String> {
    Color::parse(text).map_err(|_| format!("invalid color: {text}"))
}

/// Parses a non-negative number of seconds.
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..1e9).contains(&s) => Ok(s),
        _ => Err(format!("'{text}' is not a number of seconds")),
    }
}

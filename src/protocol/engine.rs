//! The state behind a protocol session, shared by both games: the game record, the player,
//! the seeded generator, the clocks and the engine parameters; and the command handlers that
//! do not depend on the game.

use super::clock::{seconds_text, Clock};
use crate::game::Color;
use crate::player::Player;
use crate::rng::{seeded, Rng};
use crate::search::time_plan::move_times;
use crate::search::{Decision, Limits, SearchGame};
use crate::stop::StopFlag;
use std::time::Instant;

/// What a protocol needs from a game beyond searching it.
pub trait ProtocolGame: SearchGame {
    /// The player used when none is given.
    const DEFAULT_PLAYER: &'static str;

    /// State of this game's own commands that lives as long as the session (the Hex
    /// solver's table and settings).
    type Tools: Default;

    /// A new game with the same size and rules, at its start.
    fn restarted(&self) -> Self;

    /// How many more moves the side to move is expected to make (for time budgets).
    fn moves_left_estimate(&self) -> usize;

    /// A text diagram of the position (`showboard`).
    fn diagram(&self) -> String;

    /// Moves played since the start of the record (resignation waits for
    /// [`OPENING_MOVES`] of them).
    fn moves_played(&self) -> usize;
}

/// Moves at the start of a game during which the engine never resigns.
pub const OPENING_MOVES: usize = 2;

/// What `genmove` decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generated<M> {
    /// Play this move.
    Move(M),
    /// Resign: the best move's value was below the resignation threshold.
    Resign,
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
    resign_threshold: Option<f64>,
    /// The colours the engine generated moves for in this game (for the record's names).
    generated_for: [bool; 2],
    /// The colour that resigned in this game, if one did.
    resigned: Option<Color>,
    /// This game's own commands' state ([`ProtocolGame::Tools`]).
    pub tools: G::Tools,
    /// The game-info of the loaded record (`PB`, `Event`, ...), kept when it is saved.
    loaded_info: Vec<(String, String)>,
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
        player.check_game(&game).map_err(|e| e.to_string())?;
        Ok(Engine {
            game,
            stop: StopFlag::default(),
            clock: Clock::new(DEFAULT_GAME_TIME),
            player,
            seed,
            rng: seeded(seed),
            max_time: DEFAULT_MAX_TIME,
            resign_threshold: None,
            generated_for: [false; 2],
            resigned: None,
            tools: G::Tools::default(),
            loaded_info: Vec::new(),
        })
    }

    /// Replaces the game (a new board size, a loaded record), unless the player cannot
    /// play it (an evaluator trained for another board size): then the reason.
    pub fn set_game(&mut self, game: G) -> Result<(), String> {
        self.player.check_game(&game).map_err(|e| e.to_string())?;
        self.game = game;
        self.forget_game();
        Ok(())
    }

    /// The player's name for `color` in a game record: the player spec when the engine
    /// generated that side's moves, else `unknown`.
    fn player_name(&self, color: Color) -> String {
        if self.generated_for[color.index()] {
            self.player.spec().to_string()
        } else {
            "unknown".to_string()
        }
    }

    /// Replaces the game with a loaded record's ([`Engine::set_game`]) and keeps the
    /// record's game-info for the next save.
    pub fn load_game(&mut self, game: G, info: Vec<(String, String)>) -> Result<(), String> {
        self.set_game(game)?;
        self.loaded_info = info;
        Ok(())
    }

    /// Records that the side to move resigned (a committed `genmove` answered
    /// [`Generated::Resign`]); [`Engine::result`] reports it.
    pub fn resign(&mut self) {
        self.resigned = Some(self.game.side_to_move());
    }

    /// The result so far: the winner (`None` for a draw) and whether a side resigned; `None`
    /// while the game goes on and nobody resigned.
    pub fn result(&self) -> Option<(Option<Color>, bool)> {
        match (self.game.outcome(), self.resigned) {
            (Some(outcome), _) => Some((
                outcome.winner,
                outcome.reason == crate::game::Reason::Resignation,
            )),
            (None, Some(loser)) => Some((Some(loser.opponent()), true)),
            (None, None) => None,
        }
    }

    /// The game-info to save with the record: the loaded record's, with `set` replacing or
    /// adding entries, and the player names under `name_keys` (Black's, White's): the
    /// player spec for a side the engine generated moves for, the loaded name otherwise,
    /// `unknown` when there is none.
    pub fn record_info(
        &self,
        name_keys: [&str; 2],
        set: &[(&str, String)],
    ) -> Vec<(String, String)> {
        let mut info = self.loaded_info.clone();
        let mut put = |key: &str, value: String| {
            match info.iter_mut().find(|(name, _)| name == key) {
                Some(entry) => entry.1 = value,
                None => info.push((key.to_string(), value)),
            };
        };
        for color in Color::BOTH {
            let key = name_keys[color.index()];
            let named = self.loaded_info.iter().any(|(name, _)| name == key);
            if self.generated_for[color.index()] || !named {
                put(key, self.player_name(color));
            }
        }
        for (key, value) in set {
            put(key, value.clone());
        }
        info
    }

    /// Forgets who played and resigned and the loaded game-info, and resets the clocks (a
    /// new game starts).
    fn forget_game(&mut self) {
        self.generated_for = [false; 2];
        self.resigned = None;
        self.loaded_info.clear();
        self.clock.reset();
    }

    /// The current player's spec.
    pub fn player_spec(&self) -> &str {
        self.player.spec()
    }

    /// Starts a new game of the same kind; clocks are reset.
    pub fn new_game(&mut self) {
        self.game = self.game.restarted();
        self.player.new_game();
        self.forget_game();
    }

    /// `genmove` for the side to move: searches ([`Engine::think`]), writes the search's
    /// summary to stderr (the line HexGui's shell shows, as MoHex does), and answers the
    /// move, or [`Generated::Resign`] when the best move's value is below the resignation
    /// threshold after the opening. `command` names the command in the summary. Neither
    /// the move nor the resignation is recorded (see [`Engine::resign`]).
    pub fn generate(&mut self, command: &str) -> Result<Generated<G::Move>, String> {
        let color = self.game.side_to_move();
        let started = Instant::now();
        let decision = self.think();
        let seconds = started.elapsed().as_secs_f64();
        let best = decision.best.ok_or_else(|| "no legal move".to_string())?;
        self.generated_for[color.index()] = true;
        let resign = match (self.resign_threshold, decision.value) {
            (Some(threshold), Some(value)) => {
                value < threshold && self.game.moves_played() >= OPENING_MOVES
            }
            _ => false,
        };
        let answer = if resign {
            "resign".to_string()
        } else {
            self.game.move_to_text(best)
        };
        eprintln!(
            "{}",
            summary(
                &format!("{command} {}", color.name()),
                &answer,
                &decision,
                seconds,
                |mv| self.game.move_to_text(mv)
            )
        );
        Ok(if resign {
            Generated::Resign
        } else {
            Generated::Move(best)
        })
    }

    /// Searches for the side to move within its time budget (the spec's own limits still
    /// apply, both less [`AFTER_DEADLINE_SHARE`]) and returns the search's decision without
    /// playing its move; the clock is charged for the time used. An only legal move (a
    /// forced capture, say) is returned at once, without a search.
    pub fn think(&mut self) -> Decision<G::Move> {
        let mut legal = Vec::new();
        self.game.legal_moves(&mut legal);
        if let [only] = legal.as_slice() {
            return Decision::bare(Some(*only));
        }
        let color = self.game.side_to_move();
        let (target, most) =
            self.clock
                .plan(color, self.game.moves_left_estimate(), Some(self.max_time));
        let (time, target) = move_times(
            target,
            most,
            self.player.own_time(&self.game),
            1.0 - AFTER_DEADLINE_SHARE,
        );
        let limits = Limits {
            time: Some(time),
            target,
            stop: Some(self.stop.clone()),
            ..Limits::default()
        };
        let started = Instant::now();
        let choice = self.player.decide(&self.game, &limits, &mut self.rng);
        let used = started.elapsed().as_secs_f64();
        let left = self.clock.left(color) - used + self.clock.increment;
        self.clock.set_left(color, left);
        choice
    }

    /// `param_tmbot`: lists the engine parameters, or sets one (`param_tmbot NAME VALUE...`).
    pub fn param(&mut self, args: &[String]) -> Result<String, String> {
        let Some((name, value)) = args.split_first() else {
            return Ok(format!(
                "[string] player {}\n[string] seed {}\n[string] max_time {}\n[string] increment {}\n[string] resign_threshold {}",
                self.player.spec(),
                self.seed,
                self.max_time,
                self.clock.increment,
                self.resign_threshold
                    .map_or("off".to_string(), |v| v.to_string())
            ));
        };
        let value = value.join(" ");
        if value.is_empty() {
            return Err(format!("missing value for parameter {name}"));
        }
        match name.as_str() {
            "player" => {
                let player = Player::from_spec(&value).map_err(|e| e.to_string())?;
                player.check_game(&self.game).map_err(|e| e.to_string())?;
                self.player = player;
            }
            "seed" => {
                self.seed = value
                    .parse()
                    .map_err(|_| format!("seed must be an integer, not '{value}'"))?;
                self.rng = seeded(self.seed);
            }
            "max_time" => self.max_time = parse_seconds(&value)?,
            "increment" => self.clock.increment = parse_seconds(&value)?,
            "resign_threshold" => {
                self.resign_threshold = match value.as_str() {
                    "off" => None,
                    text => Some(
                        text.parse::<f64>()
                            .ok()
                            .filter(|v| (0.0..=1.0).contains(v))
                            .ok_or_else(|| {
                                format!(
                                "resign_threshold must be off or a value from 0 to 1, not '{text}'"
                            )
                            })?,
                    ),
                }
            }
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
                self.clock.set_left(color, parse_seconds(value)?);
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

/// One line for stderr about a search: `genmove black: e5 value 0.62 visits 1234/5000
/// playouts 5000 depth - nodes 812 time 0.41s line e5 f4 d6` (`-` where the search does not
/// measure; the expected line, written by `name`, where the search gives one).
pub fn summary<M: Copy>(
    label: &str,
    answer: &str,
    decision: &Decision<M>,
    seconds: f64,
    name: impl Fn(M) -> String,
) -> String {
    fn or_dash<T: std::fmt::Display>(value: Option<T>) -> String {
        value.map_or("-".to_string(), |v| v.to_string())
    }
    let visits = match (decision.visits, decision.playouts) {
        (Some(visits), Some(playouts)) => format!("{visits}/{playouts}"),
        (visits, _) => or_dash(visits),
    };
    let mut text = format!(
        "{label}: {answer} value {} visits {visits} playouts {} depth {} nodes {} time {seconds:.2}s",
        or_dash(decision.value.map(|v| format!("{v:.2}"))),
        or_dash(decision.playouts),
        or_dash(decision.depth),
        or_dash(decision.nodes),
    );
    if !decision.line.is_empty() {
        let line: Vec<String> = decision.line.iter().map(|&mv| name(mv)).collect();
        text.push_str(" line ");
        text.push_str(&line.join(" "));
    }
    text
}

/// Parses a colour argument.
pub fn parse_color(text: &str) -> Result<Color, String> {
    Color::parse(text).map_err(|_| format!("invalid color: {text}"))
}

/// Parses a non-negative number of seconds.
/// Reads a clock's seconds (`time_left`): a number from 0 to 10^9.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..1e9).contains(&s) => Ok(s),
        _ => Err(format!("'{text}' is not a number of seconds")),
    }
}

//! The record of a played game: start position, book moves, every move with what its search
//! reported, the result and how the game ended. [`GameRecord`] keeps moves as the game's own
//! values (cheap to build); [`TextRecord`] is its text form for journals and files.

use crate::game::{Color, Game, ParseError};
use crate::search::Decision;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// How a game ended (the fault classes of match harnesses kept apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Termination {
    /// The rules ended it (connection, no legal move) or a player resigned.
    Normal,
    /// The referee ended it: ply limit, checkers draw rules (repetition, no progress).
    Adjudication,
    /// A player's clock ran out (beyond the margin).
    Timeout,
    /// A player stopped answering in an untimed game.
    Stall,
    /// A player's process died, closed its output, or could not be started.
    Disconnect,
    /// A player answered an illegal move, garbage, or broke the protocol.
    Illegal,
    /// The run was stopped (Ctrl-C) before the game ended; no result.
    Interrupt,
}

impl Termination {
    /// The upper-case name used in records (`NORMAL`, `TIMEOUT`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Termination::Normal => "NORMAL",
            Termination::Adjudication => "ADJUDICATION",
            Termination::Timeout => "TIMEOUT",
            Termination::Stall => "STALL",
            Termination::Disconnect => "DISCONNECT",
            Termination::Illegal => "ILLEGAL",
            Termination::Interrupt => "INTERRUPT",
        }
    }

    /// True for the classes that blame an agent rather than the game (faults).
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Termination::Timeout
                | Termination::Stall
                | Termination::Disconnect
                | Termination::Illegal
        )
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The result of a game, written as PDN writes it: `1-0` when Black (the first player) won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// Black won.
    #[serde(rename = "1-0")]
    BlackWins,
    /// White won.
    #[serde(rename = "0-1")]
    WhiteWins,
    /// A draw.
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// No result (an interrupted game).
    #[serde(rename = "*")]
    Unfinished,
}

impl GameResult {
    /// A win for `color`.
    pub fn win(color: Color) -> GameResult {
        match color {
            Color::Black => GameResult::BlackWins,
            Color::White => GameResult::WhiteWins,
        }
    }

    /// The score of `color` (1, 0.5, 0), `None` when unfinished.
    pub fn score_for(self, color: Color) -> Option<f64> {
        match (self, color) {
            (GameResult::Unfinished, _) => None,
            (GameResult::Draw, _) => Some(0.5),
            (GameResult::BlackWins, Color::Black) | (GameResult::WhiteWins, Color::White) => {
                Some(1.0)
            }
            _ => Some(0.0),
        }
    }

    /// The winner, `None` for a draw or no result.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::BlackWins => Some(Color::Black),
            GameResult::WhiteWins => Some(Color::White),
            _ => None,
        }
    }

    /// The PDN text: `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::BlackWins => "1-0",
            GameResult::WhiteWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }
}

/// One move of a game with what the mover's search reported.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRecord<M> {
    /// The move.
    pub mv: M,
    /// The search's report (its `best` is the move itself).
    pub decision: Decision<M>,
    /// Wall time the mover took.
    pub time: Duration,
}

/// A finished (or interrupted) game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord<M> {
    /// The start position ([`Game::position_text`]) before the book moves.
    pub start: String,
    /// Book moves played from `start` before the agents took over.
    pub opening: Vec<M>,
    /// The agents' moves.
    pub moves: Vec<MoveRecord<M>>,
    /// The names of the Black and the White agent.
    pub players: [String; 2],
    /// The result.
    pub result: GameResult,
    /// How the game ended.
    pub termination: Termination,
    /// Why, in words (`connection`, `white: illegal move 'z9'`, ...).
    pub detail: String,
    /// The seed every random choice of the game came from.
    pub seed: u64,
}

impl<M: Copy> GameRecord<M> {
    /// Plies played, book moves included.
    pub fn plies(&self) -> usize {
        self.opening.len() + self.moves.len()
    }

    /// The record with moves written as text, replayed from `start` (which must be the
    /// position of [`GameRecord::start`]).
    pub fn to_text<G: Game<Move = M>>(&self, start: &G) -> TextRecord {
        let mut game = start.clone();
        let mut text = |mv: M| {
            let t = game.move_to_text(mv);
            game.play(mv);
            t
        };
        let opening = self.opening.iter().map(|&mv| text(mv)).collect();
        let moves = self
            .moves
            .iter()
            .map(|m| TextMove {
                mv: text(m.mv),
                value: m.decision.value,
                depth: m.decision.depth,
                nodes: m.decision.nodes,
                playouts: m.decision.playouts,
                visits: m.decision.visits,
                ms: m.time.as_secs_f64() * 1e3,
            })
            .collect();
        TextRecord {
            start: self.start.clone(),
            opening,
            moves,
            black: self.players[0].clone(),
            white: self.players[1].clone(),
            result: self.result,
            termination: self.termination,
            detail: self.detail.clone(),
            seed: self.seed,
        }
    }
}

/// A move in text with the search's report, as journals store it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextMove {
    /// The move in the game's notation.
    pub mv: String,
    /// Expected score of the mover after the move, in [0, 1].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Search depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Nodes searched or evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Simulations run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playouts: Option<u64>,
    /// Visits of the move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visits: Option<u64>,
    /// Milliseconds the mover took.
    pub ms: f64,
}

/// A game record in text, for journals and record files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextRecord {
    /// The start position text.
    pub start: String,
    /// Book moves.
    pub opening: Vec<String>,
    /// The agents' moves.
    pub moves: Vec<TextMove>,
    /// Black's name.
    pub black: String,
    /// White's name.
    pub white: String,
    /// The result.
    pub result: GameResult,
    /// How the game ended.
    pub termination: Termination,
    /// Why, in words.
    pub detail: String,
    /// The game's seed.
    pub seed: u64,
}

impl TextRecord {
    /// Replays the record: the start position, then every book and agent move (each checked
    /// for legality). Errors name the move number and text.
    pub fn replay<G: Game>(&self) -> Result<G, ParseError> {
        let mut game = G::from_position_text(&self.start)?;
        let moves = self.opening.iter().chain(self.moves.iter().map(|m| &m.mv));
        for (ply, text) in moves.enumerate() {
            game.try_play(text).map_err(|e| {
                ParseError::new("game record", text, format!("ply {}: {e}", ply + 1))
            })?;
        }
        Ok(game)
    }

    /// Every move of the game in order (book moves first).
    pub fn all_moves(&self) -> impl Iterator<Item = &str> {
        self.opening
            .iter()
            .map(String::as_str)
            .chain(self.moves.iter().map(|m| m.mv.as_str()))
    }
}

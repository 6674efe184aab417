//! Games: the shared vocabulary ([`Color`], [`Outcome`], [`Game`]), errors, and a generic
//! perft. The rules of each game live in [`hex`] and [`checkers`].
//!
//! Both games share one convention: **Black moves first**. In Hex Black joins the top and
//! bottom rows; in English checkers Black starts on squares 1..12.

pub mod checkers;
pub mod error;
pub mod hex;

pub use error::{IllegalMove, MoveError, ParseError};

use crate::rng::Rng;
use rand::Rng as _;
use std::fmt;
use std::hash::Hash;

/// A player's colour. Black moves first in both games.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// The first player.
    Black,
    /// The second player.
    White,
}

impl Color {
    /// Both colours, Black first.
    pub const BOTH: [Color; 2] = [Color::Black, Color::White];

    /// The other colour.
    #[inline]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White (for tables indexed by colour).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// Lowercase name as protocols write it: `black` / `white`.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// Parses `b`, `black`, `w`, `white` in any case.
    pub fn parse(text: &str) -> Result<Color, ParseError> {
        match text.to_ascii_lowercase().as_str() {
            "b" | "black" => Ok(Color::Black),
            "w" | "white" => Ok(Color::White),
            _ => Err(ParseError::new(
                "colour",
                text,
                "expected black, white, b or w",
            )),
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// Hex: the winner connected its two edges.
    Connection,
    /// Checkers: the loser had no legal move (no pieces left, or all blocked).
    NoLegalMove,
    /// A player resigned.
    Resignation,
    /// Checkers: the same position with the same side to move occurred three times.
    Repetition,
    /// Checkers: too many plies without a capture, a promotion or a man move.
    NoProgress,
}

/// A position's result under best play, from a solved table (endgame databases).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solved {
    /// The side to move wins; the game ends after this many plies at the latest.
    Win(u32),
    /// The side to move loses; the game ends after this many plies at the earliest.
    Loss(u32),
    /// A draw with best play.
    Draw,
}

/// The end of a game: a winner (or none for a draw) and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// The winning colour, `None` for a draw.
    pub winner: Option<Color>,
    /// Why the game ended.
    pub reason: Reason,
}

impl Outcome {
    /// A win for `winner`.
    pub fn win(winner: Color, reason: Reason) -> Outcome {
        Outcome {
            winner: Some(winner),
            reason,
        }
    }

    /// A draw.
    pub fn draw(reason: Reason) -> Outcome {
        Outcome {
            winner: None,
            reason,
        }
    }

    /// The score for `color`: 1 win, 0.5 draw, 0 loss.
    pub fn score_for(&self, color: Color) -> f64 {
        match self.winner {
            Some(w) if w == color => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }
}

/// A two-player game state: rules, history for undo, and text in/out.
///
/// Implementations keep enough history for [`Game::undo`] and for history-dependent rules
/// (checkers repetition). Searches may use copy-make (`clone` then `play`) or play/undo.
pub trait Game: Clone + Send + Sync + fmt::Debug {
    /// A move of this game (small and `Copy`).
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync;

    /// The colour to move.
    fn side_to_move(&self) -> Color;

    /// Clears `moves` and fills it with the legal moves; empty once the game is over.
    fn legal_moves(&self, moves: &mut Vec<Self::Move>);

    /// Plays `mv`, which must be one of [`Game::legal_moves`] (checked in debug builds only).
    fn play(&mut self, mv: Self::Move);

    /// Takes back the last move played, returning it; `None` at the start of the record.
    fn undo(&mut self) -> Option<Self::Move>;

    /// The result if the game is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Zobrist hash of the position (pieces and side to move; not the history).
    fn hash(&self) -> u64;

    /// The move in the game's standard notation (`e5` for Hex, `11-15` for checkers).
    fn move_to_text(&self, mv: Self::Move) -> String;

    /// Parses a move in the game's notation and checks that it is legal here.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// The position as text (a FEN for checkers, a cell string for Hex).
    fn position_text(&self) -> String;

    /// The winner of a position that is decided before the game ends (Hex: the other side
    /// can no longer connect, whatever is played); `None` when it is not, or when the game
    /// cannot tell cheaply. Referees may adjudicate on it.
    fn decided_winner(&self) -> Option<Color> {
        None
    }

    /// Reads a position written by [`Game::position_text`] as the start of a new game: the
    /// inverse of `position_text`, so openings and records load positions generically.
    fn from_position_text(text: &str) -> Result<Self, ParseError>;

    /// Plays uniformly random legal moves from here until the game ends or `max_plies` moves
    /// were played, and returns the outcome (`None` when cut off). Games override this with
    /// faster specialised playouts (Hex fills every empty cell and finds the winner once).
    fn random_playout(&self, rng: &mut Rng, max_plies: usize) -> Option<Outcome> {
        playout_with(self, rng, max_plies, |_, _| {})
    }

    /// Parses and plays a move, leaving the game unchanged on error.
    fn try_play(&mut self, text: &str) -> Result<Self::Move, MoveError> {
        let mv = self.parse_move(text)?;
        self.play(mv);
        Ok(mv)
    }
}

/// Plays uniformly random legal moves from `start` until the game ends or `max_plies` moves
/// were played, telling `on_move` each mover and move; returns the outcome (`None` when cut
/// off). The generic playout behind [`Game::random_playout`] and traced playouts.
pub fn playout_with<G: Game>(
    start: &G,
    rng: &mut Rng,
    max_plies: usize,
    on_move: impl FnMut(Color, G::Move),
) -> Option<Outcome> {
    let mut game = start.clone();
    play_random_plies(&mut game, rng, max_plies, on_move);
    game.outcome()
}

/// Plays up to `max_plies` uniformly random legal moves on `game` (fewer when it ends),
/// telling `on_move` each mover and move.
pub fn play_random_plies<G: Game>(
    game: &mut G,
    rng: &mut Rng,
    max_plies: usize,
    mut on_move: impl FnMut(Color, G::Move),
) {
    let mut moves = Vec::new();
    for _ in 0..max_plies {
        game.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.random_range(0..moves.len())];
        on_move(game.side_to_move(), mv);
        game.play(mv);
    }
}

/// Counts the leaf nodes of the legal-move tree to `depth` plies (generic, play/undo based).
///
/// Game-specific perfts (bulk counting, capture-path counting) are faster; this one is the
/// reference that any [`Game`] gets for free.
pub fn perft<G: Game>(game: &mut G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for mv in moves {
        game.play(mv);
        nodes += perft(game, depth - 1);
        game.undo();
    }
    nodes
}

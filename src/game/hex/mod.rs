//! Hex: rules, board representation, cell names, records.
//!
//! [`Hex`] is the game state (it implements [`crate::game::Game`]); [`board`] holds the
//! bitboards with the fill test and the fast random playout; [`playout`] the bridge-keeping
//! playout; [`sgf`] reads and writes
//! HexGui's SGF records; [`notation`] has the position string and the text diagram.

pub mod bitset;
pub mod board;
pub mod decided;
pub mod geometry;
pub mod inferior;
pub mod move_patterns;
pub mod notation;
pub mod playout;
pub mod ring;
pub mod sgf;
pub mod state;
pub mod union_find;
pub mod vc;

pub use board::{Board, CellSet, MAX_CELLS};
pub use state::{Hex, HexMove, SwapRule, UnreachableCounts};

/// A square `size` x `size` game after `moves` (cell names), for unit tests.
#[cfg(test)]
pub(crate) fn played(size: usize, moves: &[&str]) -> Hex {
    use crate::game::Game;
    let mut game = Hex::new(size, size).unwrap();
    for mv in moves {
        game.try_play(mv).unwrap();
    }
    game
}

//! Zobrist hashing of positions: one fixed-seed random key per (piece, square) and one for
//! White to move.

use super::board::{square_of, Piece, Position};
use super::moves::Move;
use crate::game::Color;
use crate::rng;
use rand::RngCore;
use std::sync::OnceLock;

/// The seed of the key tables (fixed so hashes are the same in every run and build).
const ZOBRIST_SEED: u64 = 0x00C4_EC4E_25EE_D001;

struct Keys {
    /// Indexed by [`Piece::index`] then square - 1.
    pieces: [[u64; 32]; 4],
    white_to_move: u64,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = rng::seeded(ZOBRIST_SEED);
        let mut pieces = [[0; 32]; 4];
        for key in pieces.iter_mut().flatten() {
            *key = rng.next_u64();
        }
        Keys {
            pieces,
            white_to_move: rng.next_u64(),
        }
    })
}

fn piece_key(piece: Piece, square: u8) -> u64 {
    keys().pieces[piece.index()][square as usize - 1]
}

/// The hash of `pos`, computed from scratch.
pub fn hash(pos: &Position) -> u64 {
    let mut h = if pos.side_to_move() == Color::White {
        keys().white_to_move
    } else {
        0
    };
    for square in 1..=32 {
        if let Some(piece) = pos.piece_at(square) {
            h ^= piece_key(piece, square);
        }
    }
    h
}

/// The change of hash when `mv` is played in `pos`: `hash(pos) ^ move_delta(pos, mv)` equals
/// `hash(&pos.after(mv))`.
pub fn move_delta(pos: &Position, mv: &Move) -> u64 {
    let after = pos.after(mv);
    let mut delta = keys().white_to_move;
    if let Some(piece) = pos.piece_at(mv.from()) {
        delta ^= piece_key(piece, mv.from());
    }
    if let Some(piece) = after.piece_at(mv.to()) {
        delta ^= piece_key(piece, mv.to());
    }
    let mut captured = mv.captured;
    while captured != 0 {
        let square = square_of(captured.trailing_zeros() as u8);
        captured &= captured - 1;
        if let Some(piece) = pos.piece_at(square) {
            delta ^= piece_key(piece, square);
        }
    }
    delta
}

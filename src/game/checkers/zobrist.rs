//! Zobrist hashing of positions: one fixed-seed random key per (piece, square) and one for
//! White to move.

use super::board::{bit_index, king_row, Piece, Position};
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
    /// The same keys indexed by [`Piece::index`] then padded bit index (moves name bits).
    by_bit: [[u64; PADDED_BITS]; 4],
    white_to_move: u64,
}

/// Padded bit indices of squares 1-32 run from 0 to 34.
const PADDED_BITS: usize = 35;

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = rng::seeded(ZOBRIST_SEED);
        let mut pieces = [[0; 32]; 4];
        for key in pieces.iter_mut().flatten() {
            *key = rng.next_u64();
        }
        let mut by_bit = [[0; PADDED_BITS]; 4];
        for (by_square, by_bit) in pieces.iter().zip(&mut by_bit) {
            for (square, &key) in (1..=32).zip(by_square) {
                by_bit[usize::from(bit_index(square))] = key;
            }
        }
        Keys {
            pieces,
            by_bit,
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
/// `hash(&pos.after(mv))`. Read from the move's bits without making the move (the search
/// asks it for every move it plays and for the next move's table entry).
pub fn move_delta(pos: &Position, mv: &Move) -> u64 {
    let keys = keys();
    let kind = |color: Color, king: bool| {
        if king {
            Piece::King(color).index()
        } else {
            Piece::Man(color).index()
        }
    };
    let us = pos.side_to_move();
    let was_king = pos.kings & (1u64 << mv.from) != 0;
    let is_king = was_king || (1u64 << mv.to) & king_row(us) != 0;
    let mut delta = keys.white_to_move
        ^ keys.by_bit[kind(us, was_king)][usize::from(mv.from)]
        ^ keys.by_bit[kind(us, is_king)][usize::from(mv.to)];
    let them = us.opponent();
    let mut captured = mv.captured;
    while captured != 0 {
        let bit = captured.trailing_zeros() as usize;
        captured &= captured - 1;
        delta ^= keys.by_bit[kind(them, pos.kings & (1u64 << bit) != 0)][bit];
    }
    delta
}

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
    /// Indexed by [`Piece::index`] then padded bit index (moves name bits; bits between
    /// rows have no square and stay 0).
    pieces: [[u64; PADDED_BITS]; 4],
    white_to_move: u64,
}

/// Padded bit indices of squares 1-32 run from 0 to 34.
const PADDED_BITS: usize = 35;

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = rng::seeded(ZOBRIST_SEED);
        // Drawn piece by piece, then square by square (1-32): the order fixes every key.
        let mut pieces = [[0; PADDED_BITS]; 4];
        for piece_keys in &mut pieces {
            for square in 1..=32 {
                piece_keys[usize::from(bit_index(square))] = rng.next_u64();
            }
        }
        Keys {
            pieces,
            white_to_move: rng.next_u64(),
        }
    })
}

fn piece_key(piece: Piece, square: u8) -> u64 {
    keys().pieces[piece.index()][usize::from(bit_index(square))]
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
        ^ keys.pieces[kind(us, was_king)][usize::from(mv.from)]
        ^ keys.pieces[kind(us, is_king)][usize::from(mv.to)];
    let them = us.opponent();
    let mut captured = mv.captured;
    while captured != 0 {
        let bit = captured.trailing_zeros() as usize;
        captured &= captured - 1;
        delta ^= keys.pieces[kind(them, pos.kings & (1u64 << bit) != 0)][bit];
    }
    delta
}

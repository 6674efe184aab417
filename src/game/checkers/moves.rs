//! The move type: origin, destination, captured pieces and the jump path.

use super::board::{gather, square_of};
use std::fmt;

/// The four diagonal steps of the padded layout, as signed shifts, indexed by the 2-bit
/// direction codes stored in a [`Move`]'s path.
pub(crate) const STEPS: [i8; 4] = [4, 5, -4, -5];

/// A checkers move: a step, or a complete capture sequence with its path.
///
/// `Display` writes the short PDN text (`11-15`, `22x15`); the alternate form `{:#}` writes
/// the full path of a capture (`24x15x6`). [`super::Position::move_text`] picks the full
/// path only when the short text would be ambiguous.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// Padded bit index of the origin.
    pub(crate) from: u8,
    /// Padded bit index of the destination.
    pub(crate) to: u8,
    /// Number of jumps (0 for a step).
    pub(crate) jumps: u8,
    /// Direction codes (2 bits each, first jump in the low bits) of the jumps.
    pub(crate) path: u32,
    /// Captured squares, padded layout.
    pub(crate) captured: u64,
}

impl Move {
    /// A one-square step between padded bit indices.
    #[inline]
    pub(crate) fn step(from: u8, to: u8) -> Move {
        Move {
            from,
            to,
            jumps: 0,
            path: 0,
            captured: 0,
        }
    }

    /// The origin square (1..32).
    pub fn from(&self) -> u8 {
        square_of(self.from)
    }

    /// The destination square (1..32).
    pub fn to(&self) -> u8 {
        square_of(self.to)
    }

    /// Whether the move captures.
    pub fn is_capture(&self) -> bool {
        self.jumps > 0
    }

    /// Number of pieces captured.
    pub fn capture_count(&self) -> u32 {
        self.jumps as u32
    }

    /// Captured squares in standard numbering (bit `n - 1` = square `n`).
    pub fn captured(&self) -> u32 {
        gather(self.captured)
    }

    /// The squares visited, origin first and destination last (two for a step).
    pub fn squares(&self) -> Vec<u8> {
        if self.jumps == 0 {
            return vec![self.from(), self.to()];
        }
        let mut at = self.from as i32;
        let mut out = vec![self.from()];
        for k in 0..self.jumps {
            let step = STEPS[((self.path >> (2 * k)) & 3) as usize] as i32;
            at += 2 * step;
            out.push(square_of(at as u8));
        }
        out
    }

    /// The full path text: `11-15` for a step, `24x15x6` for a capture.
    pub fn path_text(&self) -> String {
        let sep = if self.is_capture() { "x" } else { "-" };
        let squares: Vec<String> = self.squares().iter().map(u8::to_string).collect();
        squares.join(sep)
    }

    /// Whether `self` and `other` have the same origin, destination and captured set (and so
    /// lead to the same position).
    pub fn same_effect(&self, other: &Move) -> bool {
        self.from == other.from && self.to == other.to && self.captured == other.captured
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            f.write_str(&self.path_text())
        } else {
            let sep = if self.is_capture() { 'x' } else { '-' };
            write!(f, "{}{sep}{}", self.from(), self.to())
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:#}")
    }
}

//! The position: piece bitboards in a padded layout where every diagonal step is a constant
//! shift, and conversions to CheckerBoard's square numbering 1..32.
//!
//! Square `n` (1..32) lives at bit `i + i / 8` with `i = n - 1`: one unused "ghost" bit after
//! every two rows (bits 8, 17, 26). With it, a step toward higher numbers is a shift left by
//! 4 or 5 and a step toward lower numbers a shift right by 4 or 5; steps that would leave the
//! board land on a ghost bit or outside the 35 used bits and are masked off.

use super::moves::Move;
use crate::game::{Color, ParseError};
use thiserror::Error;

/// Most pieces a side has in English checkers (its 12 at the start).
pub const MAX_PIECES: u32 = 12;

/// The 35-bit mask of the 32 playable squares in the padded layout.
pub(crate) const PLAYABLE: u64 = spread(u32::MAX);
/// Squares 29..32, where Black's men are crowned.
pub(crate) const BLACK_KING_ROW: u64 = spread(0xF000_0000);
/// Squares 1..4, where White's men are crowned.
pub(crate) const WHITE_KING_ROW: u64 = spread(0x0000_000F);

/// Standard square bits (bit `n - 1` = square `n`) to the padded layout.
pub(crate) const fn spread(squares: u32) -> u64 {
    let s = squares as u64;
    (s & 0xFF) | ((s & 0xFF00) << 1) | ((s & 0xFF_0000) << 2) | ((s & 0xFF00_0000) << 3)
}

/// Padded-layout bits back to standard square bits.
pub(crate) const fn gather(bits: u64) -> u32 {
    ((bits & 0xFF)
        | ((bits >> 1) & 0xFF00)
        | ((bits >> 2) & 0xFF_0000)
        | ((bits >> 3) & 0xFF00_0000)) as u32
}

/// The padded bit index of square `n` (1..32).
pub(crate) const fn bit_index(square: u8) -> u8 {
    let i = square - 1;
    i + i / 8
}

/// The square number (1..32) of a padded bit index.
pub(crate) const fn square_of(bit: u8) -> u8 {
    bit - bit / 9 + 1
}

/// The king row where `color`'s men are crowned.
#[inline]
pub(crate) const fn king_row(color: Color) -> u64 {
    match color {
        Color::Black => BLACK_KING_ROW,
        Color::White => WHITE_KING_ROW,
    }
}

/// What stands on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// A man of the given colour.
    Man(Color),
    /// A king of the given colour.
    King(Color),
}

impl Piece {
    /// The colour of the piece.
    pub fn color(self) -> Color {
        match self {
            Piece::Man(c) | Piece::King(c) => c,
        }
    }

    /// Whether the piece is a king.
    pub fn is_king(self) -> bool {
        matches!(self, Piece::King(_))
    }

    /// Index 0..4 in the order black man, black king, white man, white king (seed 001's
    /// planes and the digit codes 1..4 minus one).
    pub fn index(self) -> usize {
        match self {
            Piece::Man(Color::Black) => 0,
            Piece::King(Color::Black) => 1,
            Piece::Man(Color::White) => 2,
            Piece::King(Color::White) => 3,
        }
    }

    /// The inverse of [`Piece::index`].
    pub fn from_index(index: usize) -> Option<Piece> {
        Some(match index {
            0 => Piece::Man(Color::Black),
            1 => Piece::King(Color::Black),
            2 => Piece::Man(Color::White),
            3 => Piece::King(Color::White),
            _ => return None,
        })
    }
}

/// Why a set of pieces is no English checkers position. Every position reader (FEN, digit
/// boards, piece planes, CheckerBoard's board) builds its position through
/// [`Position::from_squares`], which checks these rules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IllegalPosition {
    /// A square number outside the 32 dark squares.
    #[error("square {0} is not one of the 32 dark squares 1..32")]
    OffBoard(u8),
    /// Two pieces given for one square.
    #[error("square {0} is given twice")]
    Twice(u8),
    /// A man on the row where men of its colour are crowned: it would be a king.
    #[error(
        "a {color} man cannot stand on square {square}, on the row where {color} men are crowned"
    )]
    ManOnCrowningRow {
        /// The man's colour.
        color: Color,
        /// Its square.
        square: u8,
    },
    /// More pieces of one colour than a side starts with.
    #[error("{color} has {count} pieces; a side has at most {MAX_PIECES}")]
    TooManyPieces {
        /// The colour with too many pieces.
        color: Color,
        /// How many it has.
        count: u32,
    },
}

impl IllegalPosition {
    /// The error as a parse error of `text`, read as a `what` (`FEN`, `digit board`, ...).
    pub fn in_text(self, what: &'static str, text: &str) -> ParseError {
        ParseError::new(what, text.trim(), self.to_string())
    }
}

/// A checkers position: where the pieces stand and who moves. No history.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Pieces of each colour (indexed by [`Color::index`]), padded layout.
    pub(crate) pieces: [u64; 2],
    /// Kings of both colours, padded layout.
    pub(crate) kings: u64,
    /// The colour to move.
    pub(crate) side: Color,
}

impl Position {
    /// The initial position: Black on 1..12, White on 21..32, Black to move.
    pub fn start() -> Position {
        Position {
            pieces: [spread(0x0000_0FFF), spread(0xFFF0_0000)],
            kings: 0,
            side: Color::Black,
        }
    }

    /// An empty board with `side` to move.
    pub fn empty(side: Color) -> Position {
        Position {
            pieces: [0, 0],
            kings: 0,
            side,
        }
    }

    /// The position with `side` to move and `pieces` (square, piece) on the board, if it can
    /// arise in English checkers: squares in 1..32, none given twice, and the rules of
    /// [`Position::validate`].
    pub fn from_squares(
        side: Color,
        pieces: impl IntoIterator<Item = (u8, Piece)>,
    ) -> Result<Position, IllegalPosition> {
        let mut pos = Position::empty(side);
        for (square, piece) in pieces {
            if !(1..=32).contains(&square) {
                return Err(IllegalPosition::OffBoard(square));
            }
            if pos.piece_at(square).is_some() {
                return Err(IllegalPosition::Twice(square));
            }
            pos.set_piece(square, Some(piece));
        }
        pos.validate()?;
        Ok(pos)
    }

    /// Checks what no game reaches: a man on the row where its colour is crowned, or more
    /// than [`MAX_PIECES`] pieces of one colour. The error names the first square and rule
    /// broken.
    pub fn validate(&self) -> Result<(), IllegalPosition> {
        for color in Color::BOTH {
            let crowned_men = self.pieces[color.index()] & !self.kings & king_row(color);
            if crowned_men != 0 {
                return Err(IllegalPosition::ManOnCrowningRow {
                    color,
                    square: square_of(crowned_men.trailing_zeros() as u8),
                });
            }
            let count = self.count(color);
            if count > MAX_PIECES {
                return Err(IllegalPosition::TooManyPieces { color, count });
            }
        }
        Ok(())
    }

    /// The colour to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Sets the colour to move.
    pub fn set_side_to_move(&mut self, side: Color) {
        self.side = side;
    }

    /// The piece on square `square` (1..32); `None` when empty or out of range.
    pub fn piece_at(&self, square: u8) -> Option<Piece> {
        if !(1..=32).contains(&square) {
            return None;
        }
        let bit = 1u64 << bit_index(square);
        let king = self.kings & bit != 0;
        Color::BOTH
            .into_iter()
            .find(|c| self.pieces[c.index()] & bit != 0)
            .map(|c| if king { Piece::King(c) } else { Piece::Man(c) })
    }

    /// Puts `piece` on square `square` (1..32), or empties it with `None`.
    ///
    /// # Panics
    /// If `square` is not in 1..32 (a programming error; readers check their input first).
    pub fn set_piece(&mut self, square: u8, piece: Option<Piece>) {
        assert!((1..=32).contains(&square), "square {square} out of 1..32");
        let bit = 1u64 << bit_index(square);
        self.pieces[0] &= !bit;
        self.pieces[1] &= !bit;
        self.kings &= !bit;
        if let Some(p) = piece {
            self.pieces[p.color().index()] |= bit;
            if p.is_king() {
                self.kings |= bit;
            }
        }
    }

    /// The four piece sets in standard numbering (bit `n - 1` = square `n`), in the order of
    /// [`Piece::index`]: black men, black kings, white men, white kings.
    pub fn planes(&self) -> [u32; 4] {
        let [black, white] = self.pieces;
        [
            gather(black & !self.kings),
            gather(black & self.kings),
            gather(white & !self.kings),
            gather(white & self.kings),
        ]
    }

    /// The inverse of [`Position::planes`]: a position from the four piece sets in standard
    /// numbering (black men, black kings, white men, white kings) with `side` to move,
    /// checked as by [`Position::from_squares`].
    pub fn from_planes(planes: [u32; 4], side: Color) -> Result<Position, IllegalPosition> {
        let pieces = planes.iter().enumerate().flat_map(|(index, &plane)| {
            (1..=32u8)
                .filter(move |square| plane & (1 << (square - 1)) != 0)
                .filter_map(move |square| Some((square, Piece::from_index(index)?)))
        });
        Position::from_squares(side, pieces)
    }

    /// All occupied squares, padded layout.
    #[inline]
    pub(crate) fn occupied(&self) -> u64 {
        self.pieces[0] | self.pieces[1]
    }

    /// The empty playable squares, padded layout.
    #[inline]
    pub(crate) fn empty_squares(&self) -> u64 {
        PLAYABLE & !self.occupied()
    }

    /// Plays `mv` (a legal move of this position) in place.
    #[inline]
    pub fn apply(&mut self, mv: &Move) {
        let us = self.side.index();
        let from = 1u64 << mv.from;
        let to = 1u64 << mv.to;
        self.pieces[1 - us] &= !mv.captured;
        self.kings &= !mv.captured;
        self.pieces[us] = (self.pieces[us] & !from) | to;
        if self.kings & from != 0 {
            self.kings = (self.kings & !from) | to;
        } else if to & king_row(self.side) != 0 {
            self.kings |= to;
        }
        self.side = self.side.opponent();
    }

    /// The position after `mv` (a legal move of this position).
    #[inline]
    pub fn after(&self, mv: &Move) -> Position {
        let mut next = *self;
        next.apply(mv);
        next
    }

    /// Whether `mv` is irreversible: a capture or a man move (which includes every crowning).
    pub fn is_progress(&self, mv: &Move) -> bool {
        mv.is_capture() || self.kings & (1u64 << mv.from) == 0
    }

    /// Number of pieces of `color`.
    pub fn count(&self, color: Color) -> u32 {
        self.pieces[color.index()].count_ones()
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", super::fen::to_fen(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_round_trip() {
        let pos: Position = "W:WK12,K27,30,32:B21,K24,28,K31".parse().unwrap();
        let planes = pos.planes();
        assert_eq!(planes[0], (1 << 20) | (1 << 27));
        assert_eq!(Position::from_planes(planes, Color::White), Ok(pos));
        let overlap = Position::from_planes([1, 0, 1, 0], Color::Black).unwrap_err();
        assert_eq!(overlap, IllegalPosition::Twice(1));
    }

    #[test]
    fn positions_no_game_reaches_are_refused_with_the_square_and_rule() {
        let man = |color| Piece::Man(color);
        let refused =
            |pieces: Vec<(u8, Piece)>| Position::from_squares(Color::Black, pieces).unwrap_err();
        assert_eq!(
            refused(vec![(30, man(Color::Black))]),
            IllegalPosition::ManOnCrowningRow {
                color: Color::Black,
                square: 30
            }
        );
        assert_eq!(
            refused(vec![(4, man(Color::White))]),
            IllegalPosition::ManOnCrowningRow {
                color: Color::White,
                square: 4
            }
        );
        assert_eq!(
            refused(vec![(0, man(Color::White))]),
            IllegalPosition::OffBoard(0)
        );
        assert_eq!(
            refused(vec![(33, man(Color::White))]),
            IllegalPosition::OffBoard(33)
        );
        assert_eq!(
            refused(vec![(9, man(Color::White)), (9, Piece::King(Color::Black))]),
            IllegalPosition::Twice(9)
        );
        let thirteen = (1..=13).map(|s| (s, man(Color::Black))).collect();
        assert_eq!(
            refused(thirteen),
            IllegalPosition::TooManyPieces {
                color: Color::Black,
                count: 13
            }
        );
        // Kings may stand on any row, men on their own first row, twelve a side.
        let kings = [
            (29, Piece::King(Color::Black)),
            (1, Piece::King(Color::White)),
        ];
        assert!(Position::from_squares(Color::White, kings).is_ok());
        let start = (1..=12)
            .map(|s| (s, man(Color::Black)))
            .chain((21..=32).map(|s| (s, man(Color::White))));
        assert_eq!(
            Position::from_squares(Color::Black, start),
            Ok(Position::start())
        );
    }

    #[test]
    fn layout_round_trips_every_square() {
        for n in 1..=32u8 {
            assert_eq!(square_of(bit_index(n)), n);
            assert_eq!(gather(spread(1 << (n - 1))), 1 << (n - 1));
        }
        assert_eq!(PLAYABLE.count_ones(), 32);
        assert_eq!(PLAYABLE & ((1 << 8) | (1 << 17) | (1 << 26)), 0);
    }

    #[test]
    fn padded_steps_match_checkerboard_geometry() {
        // Coordinates from CheckerBoard's mapping: y = (n-1)/4, x = 2*(3-(n-1)%4) + (y odd).
        let coords = |n: u8| {
            let i = (n - 1) as i32;
            let y = i / 4;
            (2 * (3 - i % 4) + (y & 1), y)
        };
        let square_at = |x: i32, y: i32| (1..=32u8).find(|&n| coords(n) == (x, y));
        let step = |bits: u64, shift: i32| {
            (if shift > 0 {
                bits << shift
            } else {
                bits >> -shift
            }) & PLAYABLE
        };
        for from in 1..=32u8 {
            let (fx, fy) = coords(from);
            let mut reached = Vec::new();
            for shift in [4i32, 5, -4, -5] {
                let one = step(1u64 << bit_index(from), shift);
                if one == 0 {
                    continue;
                }
                let to = square_of(one.trailing_zeros() as u8);
                let (tx, ty) = coords(to);
                assert_eq!(
                    ((tx - fx).abs(), ty - fy),
                    (1, shift.signum()),
                    "{from} {shift}"
                );
                reached.push(to);
                // A second step with the same shift continues along the same diagonal.
                let two = step(one, shift);
                let beyond = square_at(2 * tx - fx, 2 * ty - fy);
                assert_eq!(two.count_ones(), beyond.is_some() as u32, "{from} {shift}");
                if let Some(b) = beyond {
                    assert_eq!(gather(two), 1 << (b - 1));
                }
            }
            let neighbours = (1..=32u8)
                .filter(|&n| {
                    let (x, y) = coords(n);
                    (x - fx).abs() == 1 && (y - fy).abs() == 1
                })
                .count();
            assert_eq!(reached.len(), neighbours, "square {from}");
        }
        // Spot checks from the reference: 1 -> 5, 6; 4 -> 8; 5 -> 9; 32 -> 27, 28.
        let targets = |n: u8, left: bool| {
            let b = 1u64 << bit_index(n);
            let t = if left {
                (b << 4) | (b << 5)
            } else {
                (b >> 4) | (b >> 5)
            };
            gather(t & PLAYABLE)
        };
        assert_eq!(targets(1, true), (1 << 4) | (1 << 5));
        assert_eq!(targets(4, true), 1 << 7);
        assert_eq!(targets(5, true), 1 << 8);
        assert_eq!(targets(9, true), (1 << 12) | (1 << 13));
        assert_eq!(targets(32, false), (1 << 26) | (1 << 27));
    }
}

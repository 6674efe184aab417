//! The stones on a Hex board as two bitsets, with the whole-board questions that bitsets
//! answer fast: full-board winner, the fill test, and uniform random playouts.
//!
//! Boards of up to 128 cells use [`Bits<2>`], larger ones (up to [`MAX_CELLS`]) [`Bits<6>`];
//! [`Board`] and [`CellSet`] hide the choice behind one API.

use super::bitset::{ones, Bits, Shape};
use crate::game::Color;
use crate::rng::Rng;
use rand::Rng as _;

/// The most cells a board may have (every board up to 19x19 fits).
pub const MAX_CELLS: usize = Bits::<6>::CAPACITY;

/// A set of cells of one board (cell index `y * width + x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellSet {
    /// A set on a board of at most 128 cells.
    Small(Bits<2>),
    /// A set on a larger board.
    Large(Bits<6>),
}

impl CellSet {
    fn words(&self) -> &[u64] {
        match self {
            CellSet::Small(bits) => &bits.0,
            CellSet::Large(bits) => &bits.0,
        }
    }

    /// Whether `cell` is in the set.
    pub fn contains(&self, cell: usize) -> bool {
        self.words()
            .get(cell / 64)
            .is_some_and(|w| w >> (cell % 64) & 1 == 1)
    }

    /// Adds `cell` (which must be on the board the set was made for).
    pub fn insert(&mut self, cell: usize) {
        match self {
            CellSet::Small(bits) => bits.insert(cell),
            CellSet::Large(bits) => bits.insert(cell),
        }
    }

    /// The number of cells in the set.
    pub fn len(&self) -> usize {
        self.words().iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cells in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        ones(self.words())
    }

    /// The `k`-th cell in increasing order (from 0), `None` when the set has at most `k`.
    pub fn nth(&self, mut k: usize) -> Option<usize> {
        for (index, &word) in self.words().iter().enumerate() {
            let count = word.count_ones() as usize;
            if k < count {
                let mut w = word;
                for _ in 0..k {
                    w &= w - 1;
                }
                return Some(64 * index + w.trailing_zeros() as usize);
            }
            k -= count;
        }
        None
    }
}

/// Stones of both colours on one board shape (`stones[color.index()]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stones<const N: usize> {
    shape: Shape<N>,
    stones: [Bits<N>; 2],
}

impl<const N: usize> Stones<N> {
    fn new(width: usize, height: usize) -> Self {
        Stones {
            shape: Shape::new(width, height),
            stones: [Bits::EMPTY; 2],
        }
    }

    fn empty_cells(&self) -> Bits<N> {
        self.shape.all.and_not(self.stones[0].or(self.stones[1]))
    }

    /// The fill test: whether `color` fails to connect even with every empty cell.
    fn has_lost(&self, color: Color) -> bool {
        let filled = self.stones[color.index()].or(self.empty_cells());
        !self.shape.connects(color, filled)
    }

    /// Gives every empty cell to a colour, uniformly among the ways that give `to_move`
    /// ceil(e/2) of the `e` empty cells; returns the winner and Black's final stones.
    fn fill_playout(&self, to_move: Color, rng: &mut Rng) -> (Color, Bits<N>) {
        let empties = self.empty_cells();
        let mut empty = [0u16; MAX_CELLS];
        let mut count = 0;
        for (i, &word) in empties.0.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                empty[count] = (i * 64) as u16 + w.trailing_zeros() as u16;
                count += 1;
                w &= w - 1;
            }
        }
        // Partial Fisher-Yates: the first floor(e/2) cells of a random permutation go to
        // the side not to move.
        let mut other = Bits::EMPTY;
        for i in 0..count / 2 {
            let j = rng.random_range(i as u32..count as u32) as usize;
            empty.swap(i, j);
            other.insert(empty[i] as usize);
        }
        let mover = empties.and_not(other);
        let (black_new, white_new) = match to_move {
            Color::Black => (mover, other),
            Color::White => (other, mover),
        };
        let black = self.stones[0].or(black_new);
        let winner = if self.shape.connects(Color::Black, black) {
            Color::Black
        } else {
            Color::White
        };
        debug_assert!(
            winner == Color::Black
                || self
                    .shape
                    .connects(Color::White, self.stones[1].or(white_new))
        );
        (winner, black)
    }
}

/// The stones of a board of any supported size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Board {
    /// At most 128 cells.
    Small(Stones<2>),
    /// 129 to [`MAX_CELLS`] cells (boxed: it is three times the size).
    Large(Box<Stones<6>>),
}

/// Runs `$body` with `$s` bound to the inner [`Stones`] of a [`Board`], whatever its size.
macro_rules! with_stones {
    ($board:expr, $s:ident => $body:expr) => {
        match $board {
            Board::Small($s) => $body,
            Board::Large($s) => $body,
        }
    };
}

impl Board {
    /// An empty `width` x `height` board (the caller checks the size is supported).
    pub fn new(width: usize, height: usize) -> Board {
        if width * height <= Bits::<2>::CAPACITY {
            Board::Small(Stones::new(width, height))
        } else {
            Board::Large(Box::new(Stones::new(width, height)))
        }
    }

    /// The stone on `cell`, if any.
    #[inline]
    pub fn get(&self, cell: usize) -> Option<Color> {
        with_stones!(self, s => Color::BOTH.into_iter().find(|c| s.stones[c.index()].contains(cell)))
    }

    /// Puts a stone of `color` on the empty `cell`.
    #[inline]
    pub fn put(&mut self, cell: usize, color: Color) {
        with_stones!(self, s => s.stones[color.index()].insert(cell))
    }

    /// Removes whatever stone is on `cell`.
    #[inline]
    pub fn clear(&mut self, cell: usize) {
        with_stones!(self, s => {
            s.stones[0].remove(cell);
            s.stones[1].remove(cell);
        })
    }

    /// The stones of `color`.
    pub fn stones(&self, color: Color) -> CellSet {
        match self {
            Board::Small(s) => CellSet::Small(s.stones[color.index()]),
            Board::Large(s) => CellSet::Large(s.stones[color.index()]),
        }
    }

    /// The empty cells.
    pub fn empty_cells(&self) -> CellSet {
        match self {
            Board::Small(s) => CellSet::Small(s.empty_cells()),
            Board::Large(s) => CellSet::Large(s.empty_cells()),
        }
    }

    /// Whether the stones of `color` join its two edges (a bitboard flood fill).
    pub fn connects(&self, color: Color) -> bool {
        with_stones!(self, s => s.shape.connects(color, s.stones[color.index()]))
    }

    /// The maker-breaker fill test: whether `color` has lost, i.e. does not connect even
    /// with every empty cell filled with its colour. By Nash's argument this happens exactly
    /// when the opponent's stones already connect, so it is a win test for the opponent that
    /// looks only at `color`'s stones and the empty cells.
    pub fn has_lost(&self, color: Color) -> bool {
        with_stones!(self, s => s.has_lost(color))
    }

    /// The winner of this board filled up: `black` (a set of this board) holds Black's
    /// stones and every other cell is White's.
    pub fn fill_winner(&self, black: &CellSet) -> Color {
        let joined = match (self, black) {
            (Board::Small(s), CellSet::Small(b)) => s.shape.connects(Color::Black, *b),
            (Board::Large(s), CellSet::Large(b)) => s.shape.connects(Color::Black, *b),
            _ => unreachable!("a cell set is made for its board's size"),
        };
        if joined {
            Color::Black
        } else {
            Color::White
        }
    }

    /// A uniform random playout by filling every empty cell (see
    /// [`super::Hex::fill_playout`]); returns the winner and Black's final stones.
    pub fn fill_playout(&self, to_move: Color, rng: &mut Rng) -> (Color, CellSet) {
        match self {
            Board::Small(s) => {
                let (winner, black) = s.fill_playout(to_move, rng);
                (winner, CellSet::Small(black))
            }
            Board::Large(s) => {
                let (winner, black) = s.fill_playout(to_move, rng);
                (winner, CellSet::Large(black))
            }
        }
    }
}

//! Fixed-size cell bitsets and the shift-and-mask connectivity of a Hex board.
//!
//! Cell (x, y) of a `width` x `height` board is bit `y * width + x`. A board of up to 128
//! cells (11x11 and smaller) uses two 64-bit words, larger ones six (up to 384 cells, so every
//! board up to 19x19 and 19x20). The six neighbour directions are shifts by 1, `width` and
//! `width - 1`, masked so that nothing wraps around a row end.

use crate::game::Color;

/// A set of cells held in `N` 64-bit words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bits<const N: usize>(pub [u64; N]);

impl<const N: usize> Default for Bits<N> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const N: usize> Bits<N> {
    /// The empty set.
    pub const EMPTY: Self = Bits([0; N]);
    /// How many cells fit.
    pub const CAPACITY: usize = 64 * N;

    /// Whether `cell` is in the set.
    #[inline]
    pub fn contains(&self, cell: usize) -> bool {
        self.0[cell / 64] >> (cell % 64) & 1 == 1
    }

    /// Adds `cell`.
    #[inline]
    pub fn insert(&mut self, cell: usize) {
        self.0[cell / 64] |= 1 << (cell % 64);
    }

    /// Removes `cell`.
    #[inline]
    pub fn remove(&mut self, cell: usize) {
        self.0[cell / 64] &= !(1 << (cell % 64));
    }

    /// Whether the two sets share a cell.
    #[inline]
    pub fn intersects(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    /// The cells of the set in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        ones(&self.0)
    }

    #[inline]
    fn zip_with(self, other: Self, f: impl Fn(u64, u64) -> u64) -> Self {
        let mut out = self;
        for (o, b) in out.0.iter_mut().zip(other.0) {
            *o = f(*o, b);
        }
        out
    }

    /// Union.
    #[inline]
    pub fn or(self, other: Self) -> Self {
        self.zip_with(other, |a, b| a | b)
    }

    /// Intersection.
    #[inline]
    pub fn and(self, other: Self) -> Self {
        self.zip_with(other, |a, b| a & b)
    }

    /// The cells of `self` not in `other`.
    #[inline]
    pub fn and_not(self, other: Self) -> Self {
        self.zip_with(other, |a, b| a & !b)
    }

    /// Moves every cell `k` bits up (`k` < 64); bits past the top are lost.
    #[inline]
    fn shift_up(self, k: u32) -> Self {
        let mut out = [0; N];
        for i in (0..N).rev() {
            let carry = if i > 0 {
                (self.0[i - 1] >> 1) >> (63 - k)
            } else {
                0
            };
            out[i] = (self.0[i] << k) | carry;
        }
        Bits(out)
    }

    /// Moves every cell `k` bits down (`k` < 64); bits below zero are lost.
    #[inline]
    fn shift_down(self, k: u32) -> Self {
        let mut out = [0; N];
        for (i, word) in out.iter_mut().enumerate() {
            let carry = if i + 1 < N {
                (self.0[i + 1] << 1) << (63 - k)
            } else {
                0
            };
            *word = (self.0[i] >> k) | carry;
        }
        Bits(out)
    }
}

/// The set bits of a word slice, in increasing order.
pub(crate) fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(i, &word)| {
        let mut w = word;
        std::iter::from_fn(move || {
            (w != 0).then(|| {
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                i * 64 + bit
            })
        })
    })
}

/// The masks of one board shape: every cell, the four edges, and the columns a shift must
/// not carry out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape<const N: usize> {
    width: u32,
    /// Every cell of the board.
    pub all: Bits<N>,
    /// Cells not in the last column (they may shift right).
    not_last_column: Bits<N>,
    /// Cells not in the first column (they may shift left).
    not_first_column: Bits<N>,
    /// Black's edges (top row, bottom row) and White's (first column, last column).
    edges: [[Bits<N>; 2]; 2],
}

impl<const N: usize> Shape<N> {
    /// The masks of a `width` x `height` board (`width * height` <= 64 N, `width` <= 63).
    pub fn new(width: usize, height: usize) -> Self {
        debug_assert!(width * height <= Bits::<N>::CAPACITY && (1..64).contains(&width));
        let mut shape = Shape {
            width: width as u32,
            all: Bits::EMPTY,
            not_last_column: Bits::EMPTY,
            not_first_column: Bits::EMPTY,
            edges: [[Bits::EMPTY; 2]; 2],
        };
        for y in 0..height {
            for x in 0..width {
                let cell = y * width + x;
                shape.all.insert(cell);
                if x + 1 < width {
                    shape.not_last_column.insert(cell);
                }
                if x > 0 {
                    shape.not_first_column.insert(cell);
                }
                let marks = [
                    (Color::Black, 0, y == 0),
                    (Color::Black, 1, y + 1 == height),
                    (Color::White, 0, x == 0),
                    (Color::White, 1, x + 1 == width),
                ];
                for (color, side, on_edge) in marks {
                    if on_edge {
                        shape.edges[color.index()][side].insert(cell);
                    }
                }
            }
        }
        shape
    }

    /// The cells adjacent to some cell of `set` (may include cells of `set`).
    #[inline]
    pub fn neighbours(&self, set: Bits<N>) -> Bits<N> {
        let w = self.width;
        let rightward = set.and(self.not_last_column);
        let leftward = set.and(self.not_first_column);
        rightward
            .shift_up(1)
            .or(leftward.shift_down(1))
            .or(set.shift_down(w))
            .or(set.shift_up(w))
            .or(rightward.shift_down(w - 1))
            .or(leftward.shift_up(w - 1))
            .and(self.all)
    }

    /// Whether the stones `stones` of `color` join that colour's two edges.
    #[inline]
    pub fn connects(&self, color: Color, stones: Bits<N>) -> bool {
        let [start, goal] = self.edges[color.index()];
        let mut reached = start.and(stones);
        loop {
            if reached.intersects(&goal) {
                return true;
            }
            let next = reached.or(self.neighbours(reached)).and(stones);
            if next == reached {
                return false;
            }
            reached = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_cross_words() {
        let mut b = Bits::<2>::EMPTY;
        b.insert(63);
        assert!(b.shift_up(1).contains(64));
        assert!(b.shift_up(0).contains(63));
        let mut c = Bits::<2>::EMPTY;
        c.insert(64);
        assert!(c.shift_down(1).contains(63));
        assert!(c.shift_down(63).contains(1));
    }

    #[test]
    fn neighbours_match_geometry() {
        for (w, h) in [(1, 1), (1, 5), (5, 1), (3, 4), (11, 11), (13, 9)] {
            let shape = Shape::<6>::new(w, h);
            for y in 0..h {
                for x in 0..w {
                    let mut one = Bits::EMPTY;
                    one.insert(y * w + x);
                    let got: Vec<usize> = shape.neighbours(one).iter().collect();
                    let mut want: Vec<usize> = crate::game::hex::geometry::neighbours(x, y, w, h)
                        .map(|(nx, ny)| ny * w + nx)
                        .collect();
                    want.sort_unstable();
                    assert_eq!(got, want, "{w}x{h} ({x},{y})");
                }
            }
        }
    }
}

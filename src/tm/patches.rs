//! Convolution patches (seed 001's convolutional variant): a board of `planes` bit planes of
//! `width` x `height` cells is cut into every `window` x `window` square window; each patch
//! holds its window's cells (plane-major, then row, then column) followed by thermometer
//! codes of its position: `x > k` for `k` in `0..positions_x - 1`, then `y > k`.
//!
//! Input features are plane-major, then row-major cells: feature `p * width * height +
//! y * width + x`. The grid is generic: what the planes and cells mean is the business of
//! the encoder that fills them.

use crate::tm::literals::LiteralLayout;

/// The patch geometry of a board of bit planes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchGrid {
    /// Cells per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Bit planes.
    pub planes: usize,
    /// Side of the square window.
    pub window: usize,
}

impl PatchGrid {
    /// A grid, checking that the window fits the board.
    pub fn new(width: usize, height: usize, planes: usize, window: usize) -> Result<Self, String> {
        if width == 0 || height == 0 || planes == 0 {
            return Err(format!(
                "board {width} x {height} x {planes} must have every side at least 1"
            ));
        }
        if window == 0 || window > width || window > height {
            return Err(format!(
                "window {window} must be 1..={} for a {width} x {height} board",
                width.min(height)
            ));
        }
        Ok(PatchGrid {
            width,
            height,
            planes,
            window,
        })
    }

    /// Features of one input board.
    pub fn input_features(&self) -> usize {
        self.width * self.height * self.planes
    }

    /// Window positions along a row.
    pub fn positions_x(&self) -> usize {
        self.width - self.window + 1
    }

    /// Window positions along a column.
    pub fn positions_y(&self) -> usize {
        self.height - self.window + 1
    }

    /// Patches per board (position `x + y * positions_x` is patch number).
    pub fn patches(&self) -> usize {
        self.positions_x() * self.positions_y()
    }

    /// Features of one patch: window cells plus position thermometer bits.
    pub fn patch_features(&self) -> usize {
        self.window * self.window * self.planes + self.positions_x() - 1 + self.positions_y() - 1
    }

    /// Names of the patch features: `p{plane}_{dx}_{dy}` for window cells, `x>k` and `y>k`
    /// for the position bits.
    pub fn patch_feature_names(&self) -> Vec<String> {
        let w = self.window;
        let mut names = Vec::with_capacity(self.patch_features());
        for p in 0..self.planes {
            for dy in 0..w {
                for dx in 0..w {
                    names.push(format!("p{p}_{dx}_{dy}"));
                }
            }
        }
        names.extend((0..self.positions_x() - 1).map(|k| format!("x>{k}")));
        names.extend((0..self.positions_y() - 1).map(|k| format!("y>{k}")));
        names
    }

    /// The packed patch features of one packed board: `patches()` vectors of
    /// `LiteralLayout::new(patch_features()).feature_words()` words, patch after patch.
    pub fn encode(&self, board: &[u64]) -> Vec<u64> {
        let layout = LiteralLayout::new(self.patch_features());
        let stride = layout.feature_words();
        let bit = |f: usize| (board[f / 64] >> (f % 64)) & 1 != 0;
        let cells = self.width * self.height;
        let w = self.window;
        let window_bits = w * w * self.planes;
        let mut out = vec![0u64; self.patches() * stride];
        for py in 0..self.positions_y() {
            for px in 0..self.positions_x() {
                let patch = &mut out[(py * self.positions_x() + px) * stride..][..stride];
                let mut set = |f: usize| patch[f / 64] |= 1 << (f % 64);
                for p in 0..self.planes {
                    for dy in 0..w {
                        for dx in 0..w {
                            if bit(p * cells + (py + dy) * self.width + px + dx) {
                                set((p * w + dy) * w + dx);
                            }
                        }
                    }
                }
                (0..px).for_each(|k| set(window_bits + k));
                (0..py).for_each(|k| set(window_bits + self.positions_x() - 1 + k));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_and_bad_windows() {
        let g = PatchGrid::new(4, 8, 4, 2).unwrap();
        assert_eq!(g.input_features(), 128);
        assert_eq!(g.patches(), 3 * 7);
        assert_eq!(g.patch_features(), 16 + 2 + 6);
        assert_eq!(g.patch_feature_names().len(), g.patch_features());
        assert!(PatchGrid::new(4, 8, 4, 5).is_err());
        assert!(PatchGrid::new(4, 8, 4, 0).is_err());
        assert!(PatchGrid::new(0, 8, 4, 2).is_err());
    }

    #[test]
    fn windows_and_thermometer_bits() {
        // 3 x 3 board, one plane, window 2: cell (2, 2) lies only in patch (1, 1).
        let g = PatchGrid::new(3, 3, 1, 2).unwrap();
        let board = LiteralLayout::new(9).pack_features(&[0, 0, 0, 0, 0, 0, 0, 0, 1]);
        let patches = g.encode(&board);
        assert_eq!(patches.len(), 4);
        // Patch 0 at (0, 0): nothing. Patch 1 at (1, 0): x>0. Patch 2 at (0, 1): y>0.
        assert_eq!(patches[0], 0);
        assert_eq!(patches[1], 1 << 4);
        assert_eq!(patches[2], 1 << 5);
        // Patch 3 at (1, 1): window cell (1, 1) = feature 3, plus x>0 and y>0.
        assert_eq!(patches[3], (1 << 3) | (1 << 4) | (1 << 5));
    }
}

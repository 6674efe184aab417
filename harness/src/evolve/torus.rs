//! The population's home: a W x H hexagonal torus. Cells are laid out as a parallelogram in
//! axial coordinates, so a cell's six neighbours are (x±1, y), (x, y±1), (x+1, y-1) and
//! (x-1, y+1), wrapped with the Euclidean remainder on both axes. The relation is symmetric
//! and gives six distinct neighbours whenever both sides are at least 3.

/// A W x H hexagonal torus of cells numbered `y * width + x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Torus {
    /// Cells per row.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

/// The six axial directions.
const DIRECTIONS: [(i64, i64); 6] = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)];

impl Torus {
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    /// The six neighbours of `cell`.
    pub fn neighbours(&self, cell: usize) -> [usize; 6] {
        let (w, h) = (self.width as i64, self.height as i64);
        let (x, y) = ((cell % self.width) as i64, (cell / self.width) as i64);
        DIRECTIONS.map(|(dx, dy)| {
            let nx = (x + dx).rem_euclid(w);
            let ny = (y + dy).rem_euclid(h);
            (ny * w + nx) as usize
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn six_distinct_symmetric_neighbours(width in 3usize..40, height in 3usize..40) {
            let torus = Torus { width, height };
            for cell in 0..torus.len() {
                let around = torus.neighbours(cell);
                let mut distinct = around.to_vec();
                distinct.sort_unstable();
                distinct.dedup();
                prop_assert_eq!(distinct.len(), 6);
                prop_assert!(!around.contains(&cell));
                for n in around {
                    prop_assert!(n < torus.len());
                    prop_assert!(torus.neighbours(n).contains(&cell));
                }
            }
        }
    }

    #[test]
    fn corners_wrap_around() {
        let torus = Torus {
            width: 10,
            height: 10,
        };
        let mut around = torus.neighbours(0);
        around.sort_unstable();
        // (1,0) (9,0) (0,1) (0,9) (1,9) (9,1)
        assert_eq!(around, [1, 9, 10, 19, 90, 91]);
    }
}

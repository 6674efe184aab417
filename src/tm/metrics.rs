//! Classification metrics: confusion matrix, accuracy, per-class precision, recall and F1.

/// Confusion counts: `counts[actual][predicted]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confusion {
    /// `counts[actual][predicted]`.
    pub counts: Vec<Vec<u64>>,
}

/// Precision, recall and F1 of one class (0 where undefined).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassScores {
    /// Of the samples predicted as the class, the fraction that are.
    pub precision: f64,
    /// Of the samples of the class, the fraction predicted as it.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
}

impl Confusion {
    /// An empty matrix for `classes` classes.
    pub fn new(classes: usize) -> Confusion {
        Confusion {
            counts: vec![vec![0; classes]; classes],
        }
    }

    /// The matrix of `predicted` against `actual` labels.
    pub fn of(classes: usize, actual: &[u32], predicted: &[usize]) -> Confusion {
        let mut c = Confusion::new(classes);
        for (&a, &p) in actual.iter().zip(predicted) {
            c.counts[a as usize][p] += 1;
        }
        c
    }

    /// Adds another matrix of the same size.
    pub fn add(&mut self, other: &Confusion) {
        for (row, other_row) in self.counts.iter_mut().zip(&other.counts) {
            for (a, b) in row.iter_mut().zip(other_row) {
                *a += b;
            }
        }
    }

    /// Number of samples.
    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().sum()
    }

    /// Fraction predicted correctly (0 when empty).
    pub fn accuracy(&self) -> f64 {
        let hits: u64 = (0..self.counts.len()).map(|i| self.counts[i][i]).sum();
        hits as f64 / self.total().max(1) as f64
    }

    /// Precision, recall and F1 of class `class`.
    pub fn scores(&self, class: usize) -> ClassScores {
        let hit = self.counts[class][class] as f64;
        let predicted: u64 = self.counts.iter().map(|row| row[class]).sum();
        let actual: u64 = self.counts[class].iter().sum();
        let ratio = |a: f64, b: u64| if b == 0 { 0.0 } else { a / b as f64 };
        let precision = ratio(hit, predicted);
        let recall = ratio(hit, actual);
        let f1 = if precision + recall > 0.0 {
            2.0 * precision * recall / (precision + recall)
        } else {
            0.0
        };
        ClassScores {
            precision,
            recall,
            f1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_by_hand() {
        // actual 0 0 0 1 1 ; predicted 0 0 1 1 0
        let c = Confusion::of(2, &[0, 0, 0, 1, 1], &[0, 0, 1, 1, 0]);
        assert_eq!(c.counts, [[2, 1], [1, 1]]);
        assert!((c.accuracy() - 0.6).abs() < 1e-12);
        let s = c.scores(0);
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.recall - 2.0 / 3.0).abs() < 1e-12);
        let s = c.scores(1);
        assert!((s.precision - 0.5).abs() < 1e-12 && (s.f1 - 0.5).abs() < 1e-12);
        assert_eq!(Confusion::new(3).scores(2).f1, 0.0);
    }
}

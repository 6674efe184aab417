//! Seed 001's adaptive epochs (version 2): keep training while the mean accuracy of the 10
//! most recent epochs is not below the mean of the 11 epochs before those (missing epochs
//! count as accuracy 0), up to a cap (500 in the thesis). Feed it validation accuracy, not
//! test accuracy, or the test set leaks into the model.

/// The stopping rule's state.
#[derive(Clone, Debug)]
pub struct AdaptiveEpochs {
    history: Vec<f64>,
    cap: usize,
}

impl AdaptiveEpochs {
    /// Lengths of the recent and the older window.
    const RECENT: usize = 10;
    const OLDER: usize = 11;

    /// A rule that stops at `cap` epochs at the latest.
    pub fn new(cap: usize) -> AdaptiveEpochs {
        AdaptiveEpochs {
            history: Vec::new(),
            cap,
        }
    }

    /// Records the accuracy of the epoch just trained.
    pub fn record(&mut self, accuracy: f64) {
        self.history.push(accuracy);
    }

    /// The accuracies recorded so far.
    pub fn history(&self) -> &[f64] {
        &self.history
    }

    /// Mean of the `len` epochs ending before epoch index `end`; epochs before the first
    /// count as 0.
    fn window_mean(&self, end: usize, len: usize) -> f64 {
        let sum: f64 = self.history[end.saturating_sub(len)..end].iter().sum();
        sum / len as f64
    }

    /// The mean accuracy of the recent window minus that of the older window, once the
    /// recent window is full (`None` before): training goes on while it is not negative.
    pub fn margin(&self) -> Option<f64> {
        let n = self.history.len();
        (n >= Self::RECENT).then(|| {
            self.window_mean(n, Self::RECENT) - self.window_mean(n - Self::RECENT, Self::OLDER)
        })
    }

    /// The 1-based epoch of the best accuracy so far (the first of equals) and that accuracy.
    pub fn best(&self) -> Option<(usize, f64)> {
        self.history
            .iter()
            .enumerate()
            .fold(None, |best: Option<(usize, f64)>, (i, &a)| match best {
                Some((_, b)) if b >= a => best,
                _ => Some((i + 1, a)),
            })
    }

    /// Whether to train another epoch.
    pub fn should_continue(&self) -> bool {
        self.history.len() < self.cap && self.margin().is_none_or(|m| m >= 0.0)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_best_epoch_and_the_margin() {
        let mut a = AdaptiveEpochs::new(500);
        assert_eq!(a.best(), None);
        for acc in [0.5, 0.8, 0.8, 0.6] {
            a.record(acc);
        }
        assert_eq!(a.best(), Some((2, 0.8)));
        assert_eq!(a.margin(), None);
        for _ in 0..6 {
            a.record(0.5);
        }
        // Ten epochs, none before them (counted as 0): the margin is the recent mean.
        let margin = a.margin().unwrap();
        assert!((margin - 0.57).abs() < 1e-12, "{margin}");
    }

    #[test]
    fn stops_when_recent_mean_drops() {
        let mut a = AdaptiveEpochs::new(500);
        // Rising accuracy: the recent window always beats the older one.
        for i in 0..40 {
            assert!(a.should_continue(), "epoch {i}");
            a.record(0.5 + i as f64 * 0.01);
        }
        // A collapse: after enough bad epochs the recent mean falls below the older one.
        let mut stopped_after = None;
        for i in 0..30 {
            if !a.should_continue() {
                stopped_after = Some(i);
                break;
            }
            a.record(0.1);
        }
        let stopped = stopped_after.expect("must stop");
        assert!((1..=10).contains(&stopped), "{stopped}");
    }

    #[test]
    fn respects_the_cap_and_counts_missing_epochs_as_zero() {
        let mut a = AdaptiveEpochs::new(12);
        for _ in 0..12 {
            assert!(a.should_continue());
            a.record(0.7);
        }
        assert!(!a.should_continue());
        // Flat accuracy with 21+ epochs: equal means continue (not below).
        let mut b = AdaptiveEpochs::new(500);
        for _ in 0..30 {
            b.record(0.7);
        }
        assert!(b.should_continue());
        b.record(0.69);
        assert!(!b.should_continue());
    }
}

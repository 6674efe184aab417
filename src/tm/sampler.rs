//! Cheap exact Bernoulli masks: every literal independently with probability p.
//!
//! Instead of one coin flip per literal, draw how many literals are chosen from the exact
//! binomial distribution (inverse CDF over a precomputed table), then that many distinct
//! positions uniformly (rejecting repeats). The chosen set has exactly the distribution of
//! independent flips, at about p * n random draws instead of n.

use crate::rng::Rng;
use crate::tm::literals::LiteralLayout;
use rand::RngCore;

/// Draws random literal subsets where each literal is in with probability `p`.
#[derive(Clone, Debug)]
pub struct SubsetSampler {
    n: usize,
    all: bool,
    /// `cdf[k]` = P(count <= k) scaled to 2^64 (saturating); the count is the number of
    /// entries not above a uniform 64-bit draw.
    cdf: Vec<u64>,
}

impl SubsetSampler {
    /// A sampler over `n` positions with inclusion probability `p` (0 <= p <= 1).
    pub fn new(n: usize, p: f64) -> SubsetSampler {
        let p = p.clamp(0.0, 1.0);
        if p >= 1.0 || p <= 0.0 || n == 0 {
            return SubsetSampler {
                n,
                all: p >= 1.0,
                cdf: Vec::new(),
            };
        }
        let log_ratio = (p / (1.0 - p)).ln();
        let mut log_pmf = n as f64 * (-p).ln_1p();
        let mut cumulative = 0.0f64;
        let mut cdf = Vec::new();
        const SCALE: f64 = 18_446_744_073_709_551_616.0;
        for k in 0..n {
            cumulative += log_pmf.exp();
            if cumulative >= 1.0 - 1e-17 {
                break;
            }
            cdf.push((cumulative * SCALE) as u64);
            log_pmf += ((n - k) as f64 / (k + 1) as f64).ln() + log_ratio;
        }
        SubsetSampler { n, all: false, cdf }
    }

    /// Draws the size of a subset.
    #[inline]
    pub fn count(&self, rng: &mut Rng) -> usize {
        if self.all {
            return self.n;
        }
        let r = rng.next_u64();
        self.cdf.partition_point(|&c| c <= r)
    }

    /// Sets in `mask` (literal words of `layout`, all zero on entry) the bits of a random
    /// literal subset; the literals are `0..layout.literals()`.
    #[inline]
    pub fn fill(&self, layout: &LiteralLayout, rng: &mut Rng, mask: &mut [u64]) {
        debug_assert_eq!(self.n, layout.literals());
        if self.all {
            for (w, m) in mask.iter_mut().enumerate() {
                *m = layout.valid(w);
            }
            return;
        }
        let mut remaining = self.count(rng);
        let n = self.n as u64;
        while remaining > 0 {
            let r = rng.next_u64();
            for half in [r & 0xFFFF_FFFF, r >> 32] {
                let literal = ((half * n) >> 32) as usize;
                let (w, b) = layout.slot(literal);
                let bit = 1u64 << b;
                if mask[w] & bit == 0 {
                    mask[w] |= bit;
                    remaining -= 1;
                    if remaining == 0 {
                        break;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;

    #[test]
    fn counts_follow_the_binomial_mean_and_variance() {
        let n = 4900;
        let p = 0.1;
        let sampler = SubsetSampler::new(n, p);
        let mut rng = seeded(5);
        let draws = 20_000;
        let counts: Vec<f64> = (0..draws).map(|_| sampler.count(&mut rng) as f64).collect();
        let mean = counts.iter().sum::<f64>() / draws as f64;
        let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / draws as f64;
        // Binomial: mean 490, variance 441; standard error of the mean 0.15.
        assert!((mean - 490.0).abs() < 1.0, "mean {mean}");
        assert!((var - 441.0).abs() < 30.0, "variance {var}");
    }

    #[test]
    fn each_literal_is_chosen_with_probability_p() {
        let layout = LiteralLayout::new(50);
        let sampler = SubsetSampler::new(layout.literals(), 0.25);
        let mut rng = seeded(9);
        let mut hits = vec![0u32; layout.literals()];
        let rounds = 40_000;
        for _ in 0..rounds {
            let mut mask = vec![0u64; layout.words()];
            sampler.fill(&layout, &mut rng, &mut mask);
            for (l, h) in hits.iter_mut().enumerate() {
                let (w, b) = layout.slot(l);
                *h += ((mask[w] >> b) & 1) as u32;
            }
            for (w, m) in mask.iter().enumerate() {
                assert_eq!(m & !layout.valid(w), 0);
            }
        }
        for h in hits {
            let f = h as f64 / rounds as f64;
            // Standard error sqrt(0.25 * 0.75 / 40000) = 0.0022.
            assert!((f - 0.25).abs() < 0.012, "{f}");
        }
    }

    #[test]
    fn probability_one_takes_everything() {
        let layout = LiteralLayout::new(70);
        let sampler = SubsetSampler::new(layout.literals(), 1.0);
        let mut mask = vec![0u64; layout.words()];
        sampler.fill(&layout, &mut seeded(1), &mut mask);
        let total: u32 = mask.iter().map(|m| m.count_ones()).sum();
        assert_eq!(total, 140);
    }
}

//! The GPU trainer's random numbers, computed on the host (feature `cuda`).
//!
//! `kernels/tm.cu` cannot replay the CPU's per-block streams (they are consumed clause after
//! clause), so each clause's feedback on each sample draws from counters instead: a seed
//! mixed from the epoch's key, the sample's place in the epoch and the clause's index, then
//! one stream for the clause's selection and one per literal word for its 1/s subset. This
//! module computes the same numbers, so that [`MultiClassTm::fit_epoch_device_draws`] trains
//! on the CPU exactly the model the GPU trains from the same seed; the two files must change
//! together.
//!
//! [`MultiClassTm::fit_epoch_device_draws`]: crate::tm::MultiClassTm::fit_epoch_device_draws

use crate::tm::literals::LiteralLayout;
use crate::tm::sampler::{Subset, SubsetDraws, SubsetSampler};

/// SplitMix64's increment.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// What separates the streams of a clause's literal words.
const WORD_SPREAD: u64 = 0xd1b5_4a32_d192_ed03;

/// SplitMix64's finaliser (`mix64` in the kernel).
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The probability 1/s in 65,536ths, as the kernel compares 16-bit draws against it.
pub fn p16(specificity: f64) -> u32 {
    ((65536.0 / specificity).round() as u32).min(65536)
}

/// One epoch's draws for the clauses of one class on one sample.
#[derive(Clone, Copy, Debug)]
pub struct SampleDraws {
    /// The epoch's key (a word of the machine's main stream).
    pub key: u64,
    /// The sample's place in the epoch's order.
    pub round: usize,
    /// The machine-wide index of the class's first clause (class x clauses per class).
    pub first_clause: usize,
    /// 1/s in 65,536ths.
    pub p16: u32,
    pub layout: LiteralLayout,
}

impl SampleDraws {
    /// The draws of clause `clause` of the class.
    pub fn clause(&self, clause: usize) -> ClauseDraws {
        let gid = (self.first_clause + clause) as u64;
        ClauseDraws {
            seed: mix64(self.key ^ mix64(((self.round as u64) << 32) ^ gid)),
            p16: self.p16,
            layout: self.layout,
        }
    }
}

/// The draws of one clause's feedback on one sample.
#[derive(Clone, Copy, Debug)]
pub struct ClauseDraws {
    seed: u64,
    p16: u32,
    layout: LiteralLayout,
}

impl ClauseDraws {
    /// The selection draw, uniform in `0..2 * threshold`.
    pub fn selection(&self, threshold: i32) -> i32 {
        let r = mix64(self.seed.wrapping_add(GOLDEN));
        (((r >> 32) * (2 * threshold as u64)) >> 32) as i32
    }

    /// Word `w` of the 1/s subset: 16 random words, four 16-bit draws each.
    fn subset_word(&self, w: usize) -> u64 {
        let mut state = mix64(self.seed ^ WORD_SPREAD.wrapping_mul(w as u64 + 1));
        let mut bits = 0u64;
        for q in 0..16 {
            state = state.wrapping_add(GOLDEN);
            let r = mix64(state);
            for k in 0..4 {
                let hit = (((r >> (16 * k)) & 0xffff) as u32) < self.p16;
                bits |= (hit as u64) << (q * 4 + k);
            }
        }
        bits
    }
}

impl SubsetDraws for ClauseDraws {
    fn draw_subset(&mut self, _sampler: &SubsetSampler, subset: &mut Subset) {
        for (w, word) in subset.words_mut().iter_mut().enumerate() {
            *word = self.subset_word(w) & self.layout.valid(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix64_is_splitmix64() {
        // SplitMix64 seeded with 1234567: its first outputs, as published with the
        // algorithm's reference implementation.
        let mut state = 1_234_567u64;
        let first: Vec<u64> = (0..3)
            .map(|_| {
                state = state.wrapping_add(GOLDEN);
                mix64(state)
            })
            .collect();
        assert_eq!(
            first,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423
            ]
        );
    }

    #[test]
    fn draws_have_their_probabilities() {
        let layout = LiteralLayout::new(200);
        let sample = SampleDraws {
            key: 7,
            round: 0,
            first_clause: 0,
            p16: p16(8.0),
            layout,
        };
        let (mut hits, mut slots, mut selected) = (0u64, 0u64, 0u64);
        for clause in 0..2000 {
            let draws = sample.clause(clause);
            selected += (draws.selection(50) < 25) as u64;
            for w in 0..layout.words() {
                let word = draws.subset_word(w) & layout.valid(w);
                hits += word.count_ones() as u64;
                slots += layout.valid(w).count_ones() as u64;
            }
        }
        let p = hits as f64 / slots as f64;
        assert!((p - 0.125).abs() < 0.003, "subset probability {p}");
        let q = selected as f64 / 2000.0;
        assert!((q - 0.25).abs() < 0.03, "selection probability {q}");
    }
}

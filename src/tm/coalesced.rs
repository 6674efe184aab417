//! The coalesced Tsetlin Machine: one pool of clauses shared by all classes, each clause
//! with a signed integer weight per class (the sign is its polarity for that class).
//!
//! Per sample (x, y): the class sums come from one evaluation of the pool; a negative class
//! k != y is drawn with probability proportional to (T + v_k) / 2T (focused negative
//! sampling). For class y each clause is selected with probability (T - v_y) / 2T: a clause
//! with a non-negative weight for y gets Type I feedback, a negative one Type II, and the
//! weight grows by 1 when the clause output was 1. For class k the selection probability is
//! (T + v_k) / 2T, the feedback types swap and the weight shrinks by 1 when the output was 1.
//! Weights start at +1 or -1, drawn independently for every clause and class from the main
//! stream: about half the clauses start voting for one class and against the other.
//!
//! That is the joint update ([`CoalescedUpdate::Joint`]): both classes' feedback reads the
//! one evaluation of the sample. The sequential update ([`CoalescedUpdate::Sequential`])
//! applies the two in turn, as TMU's coalesced machine does: the target class's feedback
//! first, then the negative class's on each clause as the first left it (a clause the first
//! update acted on is evaluated again, and every selected pair of the negative class acts
//! on it); the weights of the clauses that output 1 on the sample move on draws of their
//! own (one 64-bit word a clause from the block's weight stream, its low half for the
//! target, its high half for the negative class, compared with the same selection bounds);
//! and each clause starts with one sign for all classes.
//!
//! Reproducibility is as in [`crate::tm::multiclass`]: blocks of clauses with their own
//! random streams, the main stream for the order and the negative classes.
//!
//! A block draws the selections of a sample in one batch: a uniform 32-bit word for every
//! (clause, class) pair, compared with the selection probability p scaled to 2^32 and
//! rounded down (so a pair is selected with probability floor(2^32 p) / 2^32, at most 2^-32
//! under p). The pairs are chosen 32 clauses at a time as bit masks: the draws compared
//! eight at once ([`WideRng::pair_bits_below`]), the Types read from the outputs' bits and
//! from sign bits kept beside the weights, and the acting pairs listed from the masks' set
//! bits, each with its Type and its clause's output, with no branch on any single draw or
//! output.

use crate::rng::{self, Rng, WideRng};
use crate::tm::bank::{ClauseBank, FeedbackScratch, TypeI};
use crate::tm::data::Dataset;
use crate::tm::inference::{CompiledClause, InferenceModel};
use crate::tm::literals::LiteralLayout;
use crate::tm::multiclass::{included_literals, shuffled, SampleLiterals, CLAUSE_BLOCK};
use crate::tm::params::{CoalescedUpdate, Params};
use crate::tm::rounds;
use crate::tm::sampler::{SubsetSampler, SubsetSource};
use rand::{Rng as _, RngCore};

/// A block of the shared pool.
#[derive(Clone, Debug)]
struct PoolBlock {
    bank: ClauseBank,
    /// `weights[i * classes + c]`.
    weights: Vec<i32>,
    /// Feedback selection.
    selection: WideRng,
    /// The selected (clause, update) pairs of one sample: bit 2i + u of the word of
    /// 32 clauses.
    selected: Vec<u64>,
    /// The weights' signs: bit i of `negative[c * words + i / 64]` is set when clause i
    /// has a negative weight for class c (`words` 64-clause words a class).
    negative: Vec<u64>,
    /// The 1/s subsets.
    darts: SubsetSource,
    /// The clauses' outputs on the current sample, 64 clauses a word.
    output_bits: Vec<u64>,
    /// The (clause, update) pairs that get feedback for the current sample, in order.
    acting: Vec<Acting>,
    scratch: FeedbackScratch,
    /// The weights' own draws of the sequential update.
    weight_draws: Rng,
}

/// The two classes updated for one sample: (class, is the target, clamped class sum).
type Updates = [(usize, bool, i32); 2];

/// Who gets feedback for one sample.
struct Step<'a> {
    params: &'a Params,
    sampler: &'a SubsetSampler,
    literals: &'a [u64],
    classes: usize,
    updates: Updates,
}

impl PoolBlock {
    fn votes(&mut self, literals: &[u64], classes: usize, sums: &mut [i64]) {
        self.bank
            .output_bits_learning(literals, &mut self.output_bits);
        // The weights of the clauses that output 1, found bit by bit (no branch on each
        // output).
        for (j, &bits) in self.output_bits.iter().enumerate() {
            let mut fired = bits;
            while fired != 0 {
                let i = 64 * j + fired.trailing_zeros() as usize;
                fired &= fired - 1;
                for (s, &w) in sums
                    .iter_mut()
                    .zip(&self.weights[i * classes..(i + 1) * classes])
                {
                    *s += w as i64;
                }
            }
        }
    }

    fn feedback(&mut self, step: &Step) {
        match step.params.coalesced_update {
            CoalescedUpdate::Joint => self.feedback_in_order::<false>(step),
            CoalescedUpdate::Sequential => self.feedback_in_order::<true>(step),
        }
    }

    /// The feedback of one sample, with the joint or (`SEQUENTIAL`) the sequential update
    /// (compiled apart, so that neither pays for the other's tests).
    fn feedback_in_order<const SEQUENTIAL: bool>(&mut self, step: &Step) {
        let t = step.params.threshold;
        let type_i = TypeI::of(step.params, step.sampler);
        // A (clause, class) pair acts when selected and it is of Type I, or the clause output
        // 1. Only a clause that output 1 changes its weights here, so the signs read now
        // tell the Type of every pair. The pairs are chosen 32 clauses at a time as bit
        // masks: every pair has its draw (used or not), the Types come from the outputs'
        // and the signs' bits, and the acting pairs are listed from the bits in order; then
        // the updates, with the next clause's states loading while this one is updated. A
        // class whose sum is at the threshold leaves its pairs no chance (`limit` 0), one at
        // minus the threshold makes them certain (`limit` 2^32).
        let limit = step
            .updates
            .map(|(_, target, sum)| selection_limit(target, sum, t));
        let clauses = self.bank.clauses();
        self.selection
            .pair_bits_below(limit, clauses, &mut self.selected);
        let words = self.output_bits.len();
        // The Type I bits of update u: a clause's pair is of Type I where its sign for the
        // class is the update's own (non-negative for the target, negative for the other).
        let type_i_bits = |u: usize, word: usize| {
            let (class, target, _) = step.updates[u];
            let negative = self.negative[class * words + word];
            if target {
                !negative
            } else {
                negative
            }
        };
        self.acting.clear();
        for (j, &selected) in self.selected.iter().enumerate() {
            let (word, shift) = (j / 2, 32 * (j % 2));
            let output = spread_to_even_bits((self.output_bits[word] >> shift) as u32);
            let output = output | output << 1;
            let type_i = spread_to_even_bits((type_i_bits(0, word) >> shift) as u32)
                | spread_to_even_bits((type_i_bits(1, word) >> shift) as u32) << 1;
            let mut acting = selected & (type_i | output);
            if SEQUENTIAL {
                // The negative class's selected pair of a clause the target's feedback acted
                // on reads the clause anew: it acts whatever its Type.
                acting |= selected & (acting & EVEN_BITS) << 1;
            }
            while acting != 0 {
                let bit = acting.trailing_zeros();
                self.acting.push(Acting::new(
                    64 * j as u32 + bit,
                    type_i >> bit & 1 != 0,
                    output >> bit & 1 != 0,
                ));
                acting &= acting - 1;
            }
        }
        if let Some(first) = self.acting.first() {
            self.bank.prefetch(first.clause());
        }
        // The output the last feedback left its clause with, where it follows without
        // evaluating the clause again (the sequential update's second reading).
        let mut output_left = None;
        for n in 0..self.acting.len() {
            let pair = self.acting[n];
            let (i, u) = (pair.clause(), pair.update());
            if let Some(next) = self.acting.get(n + 1) {
                if next.clause() != i {
                    self.bank.prefetch(next.clause());
                }
            }
            let mut output = pair.output();
            if SEQUENTIAL && u == 1 && n > 0 && self.acting[n - 1].clause() == i {
                let evaluate = || self.bank.output_learning(i, step.literals, None);
                output = match output_left {
                    Some(left) => {
                        debug_assert_eq!(left, evaluate());
                        left
                    }
                    None => evaluate(),
                };
            }
            debug_assert_eq!(
                pair.type_i(),
                (self.weights[i * step.classes + step.updates[u].0] < 0) != step.updates[u].1
            );
            let fed = self.bank.feedback(
                i,
                pair.type_i(),
                output.then_some(step.literals),
                None,
                &type_i,
                &mut self.darts,
                &mut self.scratch,
            );
            if SEQUENTIAL {
                output_left = fed.output_after(output);
            }
            if output && !SEQUENTIAL {
                let (class, target, _) = step.updates[u];
                let w = &mut self.weights[i * step.classes + class];
                *w += if target { 1 } else { -1 };
                keep_sign(&mut self.negative[class * words + i / 64], i, *w);
            }
        }
        if SEQUENTIAL {
            self.shift_weights_on_own_draws(&limit, step);
        }
    }

    /// The sequential update's weight changes: every clause that output 1 draws one word,
    /// whose low half moves the target class's weight up when below the target's bound and
    /// whose high half moves the negative class's weight down when below its bound.
    fn shift_weights_on_own_draws(&mut self, limit: &[u64; 2], step: &Step) {
        let words = self.output_bits.len();
        for j in 0..self.output_bits.len() {
            let mut fired = self.output_bits[j];
            while fired != 0 {
                let i = 64 * j + fired.trailing_zeros() as usize;
                fired &= fired - 1;
                let draw = self.weight_draws.next_u64();
                for (u, half) in [draw & 0xFFFF_FFFF, draw >> 32].into_iter().enumerate() {
                    if half < limit[u] {
                        let (class, target, _) = step.updates[u];
                        let w = &mut self.weights[i * step.classes + class];
                        *w += if target { 1 } else { -1 };
                        keep_sign(&mut self.negative[class * words + i / 64], i, *w);
                    }
                }
            }
        }
    }
}

/// A (clause, update) pair that gets feedback for the current sample, with what the
/// feedback needs of it: bit 0 the clause's output on the sample, bit 1 whether the pair is
/// of Type I, then 2 x clause + update (0 the target class, 1 the negative one).
#[derive(Clone, Copy, Debug)]
struct Acting(u32);

impl Acting {
    /// Pair `pair` (2 x clause + update), of Type I or not, its clause's output.
    fn new(pair: u32, type_i: bool, output: bool) -> Acting {
        Acting(pair << 2 | (type_i as u32) << 1 | output as u32)
    }

    fn clause(self) -> usize {
        (self.0 >> 3) as usize
    }

    fn update(self) -> usize {
        (self.0 >> 2 & 1) as usize
    }

    fn type_i(self) -> bool {
        self.0 & 2 != 0
    }

    fn output(self) -> bool {
        self.0 & 1 != 0
    }
}

/// Sets the bit of `clause` in its word `signs` of [`PoolBlock::negative`] to the sign of
/// its weight `w`.
#[inline(always)]
fn keep_sign(signs: &mut u64, clause: usize, w: i32) {
    *signs = *signs & !(1 << (clause % 64)) | ((w < 0) as u64) << (clause % 64);
}

/// The even bits of a word: the first update's bits of its 32 (clause, update) pairs.
const EVEN_BITS: u64 = 0x5555_5555_5555_5555;

/// The signs of `weights` (`weights[i * classes + c]`, `clauses` clauses) as the bits of
/// [`PoolBlock::negative`].
fn negative_bits(weights: &[i32], clauses: usize, classes: usize) -> Vec<u64> {
    let words = clauses.div_ceil(64);
    let mut negative = vec![0u64; classes * words];
    for (i, weights) in weights.chunks_exact(classes).enumerate() {
        for (c, &w) in weights.iter().enumerate() {
            negative[c * words + i / 64] |= ((w < 0) as u64) << (i % 64);
        }
    }
    negative
}

/// Bit i of `x` moved to bit 2i.
fn spread_to_even_bits(x: u32) -> u64 {
    let mut x = x as u64;
    x = (x | x << 16) & 0x0000_FFFF_0000_FFFF;
    x = (x | x << 8) & 0x00FF_00FF_00FF_00FF;
    x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    (x | x << 1) & 0x5555_5555_5555_5555
}

/// The selection probability of a class's pairs, (T - v) / 2T for the target class and
/// (T + v) / 2T for the negative one (v its clamped sum), as the bound under which a uniform
/// 32-bit draw selects: 2^32 times the probability, rounded down.
fn selection_limit(target: bool, sum: i32, threshold: i32) -> u64 {
    let (t, sum) = (threshold as i64, sum as i64);
    let below = if target { t - sum } else { t + sum };
    ((below.clamp(0, 2 * t) as u64) << 32) / (2 * t as u64)
}

/// Focused negative sampling: a class k other than `label`, drawn with weight T + v_k (out
/// of 2T) from the clamped class sums; uniformly when every weight is 0.
fn focused_negative(sums: &[i32], label: usize, t: i64, rng: &mut Rng) -> usize {
    let k = sums.len();
    let weight = |c: usize| if c == label { 0 } else { t + sums[c] as i64 };
    let total: i64 = (0..k).map(weight).sum();
    if total == 0 {
        let other = rng.random_range(0..k - 1);
        return other + (other >= label) as usize;
    }
    let mut r = rng.random_range(0..total);
    for c in 0..k {
        if r < weight(c) {
            return c;
        }
        r -= weight(c);
    }
    unreachable!("r is below the total weight")
}

/// A coalesced Tsetlin Machine (`params.clauses` clauses in all).
#[derive(Clone, Debug)]
pub struct CoalescedTm {
    params: Params,
    layout: LiteralLayout,
    classes: usize,
    blocks: Vec<PoolBlock>,
    sampler: SubsetSampler,
    rng: Rng,
}

impl CoalescedTm {
    /// A fresh machine for `features` features and `classes` classes.
    pub fn new(params: Params, features: usize, classes: usize) -> Result<CoalescedTm, String> {
        params.validate()?;
        if classes < 2 {
            return Err(format!("need at least 2 classes, got {classes}"));
        }
        let layout = LiteralLayout::new(features);
        let mut main = rng::substream(params.seed, 0);
        let blocks = (0..params.clauses)
            .step_by(CLAUSE_BLOCK)
            .enumerate()
            .map(|(b, first)| {
                let len = CLAUSE_BLOCK.min(params.clauses - first);
                let mut sign = || if main.random::<bool>() { 1 } else { -1 };
                let weights: Vec<i32> = match params.coalesced_update {
                    CoalescedUpdate::Joint => (0..len * classes).map(|_| sign()).collect(),
                    CoalescedUpdate::Sequential => (0..len)
                        .flat_map(|_| std::iter::repeat_n(sign(), classes))
                        .collect(),
                };
                let (mut rng, darts) = rng::substream_pair(params.seed, b as u64 + 1);
                PoolBlock {
                    bank: ClauseBank::new(layout, params.state_bits, len),
                    negative: negative_bits(&weights, len, classes),
                    weights,
                    selection: WideRng::from_rng(&mut rng),
                    weight_draws: rng,
                    selected: vec![0; len.div_ceil(32)],
                    darts: SubsetSource::new(darts),
                    output_bits: vec![0; len.div_ceil(64)],
                    acting: Vec::with_capacity(2 * len),
                    scratch: FeedbackScratch::new(layout),
                }
            })
            .collect();
        Ok(CoalescedTm {
            sampler: SubsetSampler::new(layout, 1.0 / params.specificity),
            rng: main,
            params,
            layout,
            classes,
            blocks,
        })
    }

    /// The hyper-parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// Number of features.
    pub fn features(&self) -> usize {
        self.layout.features
    }

    /// The signed weight of `clause` for `class` (its sign is the clause's polarity there).
    pub fn weight(&self, clause: usize, class: usize) -> i32 {
        self.blocks[clause / CLAUSE_BLOCK].weights[(clause % CLAUSE_BLOCK) * self.classes + class]
    }

    /// The literals `clause` includes (`0..F` plain, `F..2F` negated).
    pub fn clause_literals(&self, clause: usize) -> Vec<usize> {
        let bank = &self.blocks[clause / CLAUSE_BLOCK].bank;
        included_literals(&self.layout, bank.includes(clause % CLAUSE_BLOCK))
    }

    /// The automaton state of (`clause`, `literal`).
    pub fn state(&self, clause: usize, literal: usize) -> u32 {
        self.blocks[clause / CLAUSE_BLOCK]
            .bank
            .state(clause % CLAUSE_BLOCK, literal)
    }

    /// One epoch over `data` in a shuffled order, on rayon's number of threads. The workers
    /// share the blocks sample by sample ([`rounds`]); the negative classes are drawn from
    /// the main stream in sample order, so the result is the same for any number.
    pub fn fit_epoch(&mut self, data: &Dataset) {
        assert_eq!(data.features(), self.layout.features, "feature count");
        let order = shuffled(data.len(), &mut self.rng);
        let (k, layout) = (self.classes, self.layout);
        let t = self.params.threshold as i64;
        let workers = rayon::current_num_threads().clamp(1, self.blocks.len());
        let (params, sampler, main) = (&self.params, &self.sampler, &mut self.rng);
        let label_of = |round: usize| data.labels()[order[round]] as usize;
        let shares = rounds::spans(self.blocks.len(), workers);
        let mut sums = vec![0i32; k];
        rounds::run(
            self.blocks.iter_mut().collect(),
            rounds::seats(shares),
            k,
            order.len() + 1,
            || SampleLiterals::new(layout),
            |literals, round, updates: Option<&Updates>, _, block, parts| {
                if let Some(&updates) = updates {
                    let row = data.row(order[round - 1]);
                    block.feedback(&Step {
                        params,
                        sampler,
                        literals: literals.of(round - 1, row),
                        classes: k,
                        updates,
                    });
                }
                if let Some(&i) = order.get(round) {
                    block.votes(literals.of(round, data.row(i)), k, parts);
                }
            },
            |round, totals| {
                for (sum, &total) in sums.iter_mut().zip(totals) {
                    *sum = total.clamp(-t, t) as i32;
                }
                let label = label_of(round);
                let negative = focused_negative(&sums, label, t, main);
                [
                    (label, true, sums[label]),
                    (negative, false, sums[negative]),
                ]
            },
        );
    }

    /// Clamped class sums of one sample (packed features), straight from the clause banks.
    pub fn class_sums(&self, features: &[u64]) -> Vec<i32> {
        let k = self.classes;
        let literals = self.layout.literals_of(features);
        let mut sums = vec![0i64; k];
        for block in &self.blocks {
            for i in 0..block.bank.clauses() {
                if block.bank.output_predicting(i, &literals) {
                    for (s, &w) in sums.iter_mut().zip(&block.weights[i * k..(i + 1) * k]) {
                        *s += w as i64;
                    }
                }
            }
        }
        let t = self.params.threshold as i64;
        sums.into_iter().map(|s| s.clamp(-t, t) as i32).collect()
    }

    /// The include masks as literal lists with per-class weights, for fast inference.
    pub fn compile(&self) -> InferenceModel {
        let k = self.classes;
        let mut clauses = Vec::new();
        for block in &self.blocks {
            for i in 0..block.bank.clauses() {
                let literals = included_literals(&self.layout, block.bank.includes(i));
                if !literals.is_empty() {
                    let weights = block.weights[i * k..(i + 1) * k].to_vec();
                    clauses.push(CompiledClause { literals, weights });
                }
            }
        }
        InferenceModel::new(self.layout.features, k, self.params.threshold, clauses)
    }

    /// Raw parts for saving: per block of the pool, its bank and its weights
    /// (`weights[i * classes + c]` for clause i of the block and class c).
    pub(crate) fn banks(&self) -> impl Iterator<Item = (&ClauseBank, &[i32])> {
        self.blocks.iter().map(|b| (&b.bank, b.weights.as_slice()))
    }

    /// Replaces bank states and weights (in [`CoalescedTm::banks`] order).
    pub(crate) fn restore(&mut self, parts: Vec<(ClauseBank, Vec<i32>)>) -> Result<(), String> {
        if parts.len() != self.blocks.len() {
            return Err("clause block count mismatch".into());
        }
        for (block, (bank, weights)) in self.blocks.iter_mut().zip(parts) {
            if bank.clauses() != block.bank.clauses()
                || weights.len() != bank.clauses() * self.classes
            {
                return Err("clause count mismatch".into());
            }
            block.negative = negative_bits(&weights, bank.clauses(), self.classes);
            block.bank = bank;
            block.weights = weights;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{selection_limit, spread_to_even_bits};
    use crate::rng::seeded;
    use rand::Rng as _;

    #[test]
    fn spreading_moves_bit_i_to_bit_2i() {
        let mut rng = seeded(6);
        for x in [0u32, 1, u32::MAX, 0x8000_0001]
            .into_iter()
            .chain((0..100).map(|_| rng.random()))
        {
            let expected = (0..32).fold(0u64, |bits, i| bits | (((x >> i) & 1) as u64) << (2 * i));
            assert_eq!(spread_to_even_bits(x), expected, "{x:#x}");
        }
    }

    #[test]
    fn selection_limits_scale_the_probability_to_32_bits() {
        let full = 1u64 << 32;
        // At the threshold nothing is selected, at minus the threshold everything.
        assert_eq!(selection_limit(true, 100, 100), 0);
        assert_eq!(selection_limit(false, -100, 100), 0);
        assert_eq!(selection_limit(true, -100, 100), full);
        assert_eq!(selection_limit(false, 100, 100), full);
        // A sum of 0 selects half; the two updates mirror each other.
        assert_eq!(selection_limit(true, 0, 100), full / 2);
        for sum in -100..=100 {
            let limit = selection_limit(true, sum, 100);
            assert_eq!(limit, selection_limit(false, -sum, 100));
            // Within one 2^32th below (T - v) / 2T.
            let exact = (100 - sum) as f64 / 200.0 * full as f64;
            assert!(
                limit as f64 <= exact && exact - (limit as f64) < 1.0,
                "{sum}: {limit}"
            );
        }
        // Beyond the clamp (sums are clamped, thresholds up to i32's range stay exact).
        assert_eq!(selection_limit(true, i32::MAX / 2, i32::MAX / 2), 0);
        assert_eq!(selection_limit(false, i32::MAX / 2, i32::MAX / 2), full);
    }
}

//! The multiclass Tsetlin Machine: one clause bank per class, half the clauses voting for
//! the class (even indices) and half against (odd indices).
//!
//! Reproducibility: each class's clauses are cut into blocks of [`CLAUSE_BLOCK`] clauses and
//! every block owns its random streams (`rng::substream_pair(seed, block id)`: one to select
//! clauses for feedback, a wide one for the 1/s subsets), used only for that block's clauses
//! in clause order. The sample order, negative classes and drops come from
//! the machine's main stream. Worker threads take whole classes or share out the blocks
//! sample by sample ([`rounds`]), but no block reads
//! another block's stream and class sums are integer sums, so a seed gives the same model
//! whatever the number of threads.

use crate::rng::{self, Rng};
use crate::tm::bank::{Applied, ClauseBank, FeedbackScratch, TypeI};
use crate::tm::counter_draws::{self, SampleDraws};
use crate::tm::data::Dataset;
use crate::tm::inference::{CompiledClause, InferenceModel};
use crate::tm::literals::LiteralLayout;
use crate::tm::params::Params;
use crate::tm::rounds;
use crate::tm::sampler::{SubsetSampler, SubsetSource};
use rand::Rng as _;

/// Clauses per block (the unit of parallel work and of random streams).
pub const CLAUSE_BLOCK: usize = 128;

/// A block of one class's clauses with its weights, random stream and scratch space.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub(crate) bank: ClauseBank,
    /// Index of the block's first clause within its class.
    pub(crate) first: usize,
    pub(crate) weights: Vec<u32>,
    /// Feedback selection.
    rng: Rng,
    /// The 1/s subsets.
    darts: SubsetSource,
    outputs: Vec<bool>,
    pub(crate) active: Vec<bool>,
    /// The clauses that get feedback for the current sample.
    acting: Vec<u32>,
    scratch: FeedbackScratch,
}

/// How a class is updated for one sample.
#[derive(Clone, Copy)]
struct Update {
    target: bool,
    sum: i32,
}

/// Everything a block's feedback reads besides its own state.
struct Feedback<'a> {
    params: &'a Params,
    sampler: &'a SubsetSampler,
    literals: &'a [u64],
    keep: Option<&'a [u64]>,
}

impl Feedback<'_> {
    /// One sample's learning by one class's `blocks`: they vote, then get the feedback toward
    /// (`target`) or away from the sample's class, drawing as [`Block::feedback`] says.
    fn learn(&self, blocks: &mut [Block], target: bool, device_draws: Option<&SampleDraws>) {
        let t = self.params.threshold as i64;
        let sum: i64 = blocks
            .iter_mut()
            .map(|b| b.vote_learning(self.literals, self.keep))
            .sum();
        let update = Update {
            target,
            sum: sum.clamp(-t, t) as i32,
        };
        for block in blocks.iter_mut() {
            block.feedback(update, self, device_draws);
        }
    }
}

impl Block {
    fn new(layout: LiteralLayout, params: &Params, first: usize, len: usize, id: u64) -> Block {
        let (rng, darts) = rng::substream_pair(params.seed, id);
        Block {
            bank: ClauseBank::new(layout, params.state_bits, len),
            first,
            weights: vec![1; len],
            rng,
            darts: SubsetSource::new(darts),
            outputs: vec![false; len],
            active: vec![true; len],
            acting: Vec::with_capacity(len),
            scratch: FeedbackScratch::new(layout),
        }
    }

    #[inline]
    fn polarity(&self, i: usize) -> i32 {
        MultiClassTm::polarity(self.first + i)
    }

    /// Computes the learning outputs and returns this block's part of the class sum.
    fn vote_learning(&mut self, literals: &[u64], keep: Option<&[u64]>) -> i64 {
        self.bank
            .outputs_learning(literals, keep, &mut self.outputs);
        let mut sum = 0i64;
        let first = self.first;
        for (i, ((out, &active), &weight)) in self
            .outputs
            .iter_mut()
            .zip(&self.active)
            .zip(&self.weights)
            .enumerate()
        {
            *out &= active;
            sum += *out as i64 * (MultiClassTm::polarity(first + i) * weight as i32) as i64;
        }
        sum
    }

    /// Gives the block's clauses the feedback of one sample, drawing from the block's own
    /// streams, or from the GPU trainer's counters when `device_draws` is given.
    fn feedback(&mut self, update: Update, fb: &Feedback, device_draws: Option<&SampleDraws>) {
        let t = fb.params.threshold;
        let type_i = TypeI::of(fb.params, fb.sampler);
        // A clause acts when selected and it is of Type I, or of Type II and output 1: the
        // others get no selection draw. The selection stream serves nothing else, so drawing
        // every selection first gives the same draws as clause by clause; then the states of
        // the next clause to update load while this one is updated. Both passes write every
        // clause to `acting` and count it only when it passes (no branch on the data), and
        // the generator works on a local copy (kept in registers, not stored back at every
        // draw).
        let clauses = self.bank.clauses();
        let offset = self.first;
        self.acting.resize(clauses, 0);
        let acting = &mut self.acting[..];
        let mut candidates = 0;
        for (i, (&active, &output)) in self.active.iter().zip(&self.outputs).enumerate() {
            let of_type_i = update.target == (MultiClassTm::polarity(offset + i) > 0);
            acting[candidates] = i as u32;
            candidates += (active & (of_type_i | output)) as usize;
        }
        let below = if update.target {
            t - update.sum
        } else {
            t + update.sum
        };
        // A sum at the threshold leaves no chance (a sum at minus the threshold, certainty):
        // then nothing is drawn.
        let mut rng = self.rng.clone();
        let chosen = match below {
            ..=0 => 0,
            b if b >= 2 * t => candidates,
            _ => keep_in_place(acting, candidates, |i| {
                let r = match device_draws {
                    None => rng.random_range(0..2 * t),
                    Some(draws) => draws.clause(offset + i as usize).selection(t),
                };
                r < below
            }),
        };
        self.acting.truncate(chosen);
        self.rng = rng;
        if let Some(&first) = self.acting.first() {
            self.bank.prefetch(first as usize);
        }
        for n in 0..self.acting.len() {
            let i = self.acting[n] as usize;
            if let Some(&next) = self.acting.get(n + 1) {
                self.bank.prefetch(next as usize);
            }
            let (is_type_i, matched) = (
                update.target == (self.polarity(i) > 0),
                self.outputs[i].then_some(fb.literals),
            );
            let applied = match device_draws {
                None => self.bank.feedback(
                    i,
                    is_type_i,
                    matched,
                    fb.keep,
                    &type_i,
                    &mut self.darts,
                    &mut self.scratch,
                ),
                Some(draws) => self.bank.feedback(
                    i,
                    is_type_i,
                    matched,
                    fb.keep,
                    &type_i,
                    &mut draws.clause(self.first + i),
                    &mut self.scratch,
                ),
            }
            .applied;
            if fb.params.weighted {
                adjust_weight(&mut self.weights[i], applied);
            }
        }
    }
}

/// Moves the items among the first `len` of `items` that `keep` accepts (asked once each,
/// in order) to the front, in order; returns how many. Every item is written and counted
/// only when kept: no branch on the outcome, which is random where the machines use it.
#[inline(always)]
pub(crate) fn keep_in_place<T: Copy>(
    items: &mut [T],
    len: usize,
    mut keep: impl FnMut(T) -> bool,
) -> usize {
    let mut kept = 0;
    for n in 0..len {
        let item = items[n];
        items[kept] = item;
        kept += keep(item) as usize;
    }
    kept
}

/// A trained or training multiclass Tsetlin Machine.
#[derive(Clone, Debug)]
pub struct MultiClassTm {
    params: Params,
    layout: LiteralLayout,
    classes: usize,
    /// `blocks[c]`: the clause blocks of class c.
    pub(crate) blocks: Vec<Vec<Block>>,
    sampler: SubsetSampler,
    rng: Rng,
    literal_keep: Option<Vec<u64>>,
}

impl MultiClassTm {
    /// A fresh machine for `features` features and `classes` classes.
    pub fn new(params: Params, features: usize, classes: usize) -> Result<MultiClassTm, String> {
        params.validate()?;
        if classes < 2 {
            return Err(format!("need at least 2 classes, got {classes}"));
        }
        let layout = LiteralLayout::new(features);
        let mut blocks = Vec::with_capacity(classes);
        let mut id = 1u64;
        for _ in 0..classes {
            let mut class_blocks = Vec::new();
            for first in (0..params.clauses).step_by(CLAUSE_BLOCK) {
                let len = CLAUSE_BLOCK.min(params.clauses - first);
                class_blocks.push(Block::new(layout, &params, first, len, id));
                id += 1;
            }
            blocks.push(class_blocks);
        }
        Ok(MultiClassTm {
            sampler: SubsetSampler::new(layout, 1.0 / params.specificity),
            rng: rng::substream(params.seed, 0),
            params,
            layout,
            classes,
            blocks,
            literal_keep: None,
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

    fn locate(&self, clause: usize) -> (usize, usize) {
        (clause / CLAUSE_BLOCK, clause % CLAUSE_BLOCK)
    }

    /// The automaton state of (`class`, `clause`, `literal`).
    pub fn state(&self, class: usize, clause: usize, literal: usize) -> u32 {
        let (b, i) = self.locate(clause);
        self.blocks[class][b].bank.state(i, literal)
    }

    /// Sets the automaton state of (`class`, `clause`, `literal`).
    pub fn set_state(&mut self, class: usize, clause: usize, literal: usize, state: u32) {
        let (b, i) = self.locate(clause);
        self.blocks[class][b].bank.set_state(i, literal, state);
    }

    /// The weight of (`class`, `clause`) (1 in unweighted machines).
    pub fn weight(&self, class: usize, clause: usize) -> u32 {
        let (b, i) = self.locate(clause);
        self.blocks[class][b].weights[i]
    }

    /// +1 when `clause` votes for its class, -1 when against.
    pub fn polarity(clause: usize) -> i32 {
        if clause.is_multiple_of(2) {
            1
        } else {
            -1
        }
    }

    /// The literals `clause` of `class` includes (`0..F` plain, `F..2F` negated).
    pub fn clause_literals(&self, class: usize, clause: usize) -> Vec<usize> {
        let (b, i) = self.locate(clause);
        included_literals(&self.layout, self.blocks[class][b].bank.includes(i))
    }

    /// Draws the clause and literal drops of a new epoch.
    fn draw_drops(&mut self) {
        let p = &self.params;
        if p.clause_drop > 0.0 {
            for class in &mut self.blocks {
                for block in class {
                    for a in &mut block.active {
                        *a = self.rng.random::<f64>() >= p.clause_drop;
                    }
                }
            }
        }
        if p.literal_drop > 0.0 {
            self.literal_keep = Some(self.layout.keep_mask(p.literal_drop, &mut self.rng));
        }
    }

    /// Clears the drops after an epoch so prediction uses every clause.
    pub(crate) fn clear_drops(&mut self) {
        for class in &mut self.blocks {
            for block in class {
                block.active.fill(true);
            }
        }
        self.literal_keep = None;
    }

    /// Learns one sample (packed features, label).
    pub fn learn(&mut self, features: &[u64], label: usize) {
        let negative = self.draw_negative(label);
        self.train(|_| features, &[(0, label, negative)], 1);
    }

    fn draw_negative(&mut self, label: usize) -> usize {
        let other = self.rng.random_range(0..self.classes - 1);
        if other >= label {
            other + 1
        } else {
            other
        }
    }

    /// One epoch: every sample of `data` once, in an order shuffled by the machine's seed,
    /// on rayon's number of threads.
    pub fn fit_epoch(&mut self, data: &Dataset) {
        let samples = self.begin_epoch(data);
        self.train(|i| data.row(i), &samples, rayon::current_num_threads());
        self.clear_drops();
    }

    /// Starts an epoch over `data` from the main stream: draws the drops, then the order of
    /// the samples with each one's negative class, as (row, label, negative). The epoch
    /// ends with [`Self::clear_drops`].
    pub(crate) fn begin_epoch(&mut self, data: &Dataset) -> Vec<(usize, usize, usize)> {
        assert_eq!(data.features(), self.features(), "feature count");
        self.draw_drops();
        shuffled(data.len(), &mut self.rng)
            .into_iter()
            .map(|i| {
                let label = data.labels()[i] as usize;
                (i, label, self.draw_negative(label))
            })
            .collect()
    }

    /// One epoch as the GPU trainer computes it, on one CPU thread: the same order,
    /// negative classes and drops as [`Self::fit_epoch`], but each clause's feedback draws
    /// from the GPU's counters ([`counter_draws`]) keyed by a word of the main stream, not
    /// from its block's streams. From the same seed, this gives the GPU's model bit for bit.
    pub fn fit_epoch_device_draws(&mut self, data: &Dataset) {
        let samples = self.begin_epoch(data);
        let key = self.draw_word();
        let (layout, clauses) = (self.layout, self.params.clauses);
        let p16 = counter_draws::p16(self.params.specificity);
        let (params, sampler) = (&self.params, &self.sampler);
        let keep = self.literal_keep.as_deref();
        let mut literals = vec![0u64; layout.words()];
        for (round, &(row, label, negative)) in samples.iter().enumerate() {
            layout.fill_literals(data.row(row), &mut literals);
            let context = Feedback {
                params,
                sampler,
                literals: &literals,
                keep,
            };
            for class in [label, negative] {
                let draws = SampleDraws {
                    key,
                    round,
                    first_clause: class * clauses,
                    p16,
                    layout,
                };
                context.learn(&mut self.blocks[class], class == label, Some(&draws));
            }
        }
        self.clear_drops();
    }

    /// A random word from the main stream (seeds a device's own random numbers).
    pub(crate) fn draw_word(&mut self) -> u64 {
        self.rng.random()
    }

    /// The literals kept this epoch (`None`: all of them).
    #[cfg(feature = "cuda")]
    pub(crate) fn literal_keep(&self) -> Option<&[u64]> {
        self.literal_keep.as_deref()
    }

    /// The literal layout.
    #[cfg(feature = "cuda")]
    pub(crate) fn layout(&self) -> LiteralLayout {
        self.layout
    }

    /// Learns `samples` (row, label, negative class) in order, the features of a row coming
    /// from `rows`, on up to `workers` threads; the result is the same for any number.
    ///
    /// A sample changes only its label's and its negative class's clauses, from those
    /// classes' own sums, so classes learn independently of one another. Each worker takes
    /// as many whole classes as every worker can (with two classes and two workers, one
    /// each; with one worker, all of them, class after class, so one class's clauses stay
    /// in cache for its whole pass), and trains them alone. The classes left over are
    /// shared: the workers share out their blocks sample by sample ([`rounds`]) and train
    /// their own classes in the rounds' waits.
    fn train<'d>(
        &mut self,
        rows: impl Fn(usize) -> &'d [u64] + Sync,
        samples: &[(usize, usize, usize)],
        workers: usize,
    ) {
        let (t, layout) = (self.params.threshold as i64, self.layout);
        let (params, sampler) = (&self.params, &self.sampler);
        let keep = self.literal_keep.as_deref();
        let per_class = self.blocks[0].len();
        // More workers than classes share every class: no more of them than a class has
        // blocks.
        let workers = if workers > self.blocks.len() {
            workers.min(per_class)
        } else {
            workers
        }
        .max(1);
        let owned = self.blocks.len() / workers * workers;
        let (own, shared) = self.blocks.split_at_mut(owned);
        let mut classes_of: Vec<Vec<(usize, &mut Vec<Block>)>> =
            (0..workers).map(|_| Vec::new()).collect();
        for (class, blocks) in own.iter_mut().enumerate().rev() {
            classes_of[class % workers].push((class, blocks));
        }
        let rows = &rows;
        let spans = rounds::spans(per_class, workers);
        let seats = classes_of
            .into_iter()
            .zip(&spans)
            .map(|(mut classes, span)| {
                let mut literals = vec![0u64; layout.words()];
                let mut next = 0;
                rounds::Seat {
                    share: (0..shared.len())
                        .flat_map(|c| span.iter().map(move |b| c * per_class + b))
                        .collect(),
                    // The worker's own classes, one sample of one class a call, in order.
                    aside: move || {
                        while let Some((class, blocks)) = classes.last_mut() {
                            let class = *class;
                            let Some(k) =
                                samples[next..].iter().position(|&(_, label, negative)| {
                                    class == label || class == negative
                                })
                            else {
                                classes.pop();
                                next = 0;
                                continue;
                            };
                            let (row, label, _) = samples[next + k];
                            next += k + 1;
                            layout.fill_literals(rows(row), &mut literals);
                            let context = Feedback {
                                params,
                                sampler,
                                literals: &literals,
                                keep,
                            };
                            context.learn(blocks, class == label, None);
                            return true;
                        }
                        false
                    },
                }
            })
            .collect();
        let rounds_samples: Vec<_> = samples
            .iter()
            .filter(|&&(_, label, negative)| label >= owned || negative >= owned)
            .copied()
            .collect();
        let blocks: Vec<&mut Block> = shared.iter_mut().flatten().collect();
        rounds::run(
            blocks,
            seats,
            2,
            rounds_samples.len() + 1,
            || SampleLiterals::new(layout),
            |literals, round, sums: Option<&[i32; 2]>, index, block, parts| {
                let class = owned + index / per_class;
                if let (Some(sums), Some(&(row, label, negative))) = (
                    sums,
                    round.checked_sub(1).and_then(|r| rounds_samples.get(r)),
                ) {
                    if class == label || class == negative {
                        let context = Feedback {
                            params,
                            sampler,
                            literals: literals.of(round - 1, rows(row)),
                            keep,
                        };
                        let target = class == label;
                        let sum = sums[!target as usize];
                        block.feedback(Update { target, sum }, &context, None);
                    }
                }
                if let Some(&(row, label, negative)) = rounds_samples.get(round) {
                    if class == label || class == negative {
                        let vote = block.vote_learning(literals.of(round, rows(row)), keep);
                        parts[(class != label) as usize] = vote;
                    }
                }
            },
            |_, totals| [0, 1].map(|k| totals[k].clamp(-t, t) as i32),
        );
    }

    /// Clamped class sums of one sample (packed features), straight from the clause banks.
    pub fn class_sums(&self, features: &[u64]) -> Vec<i32> {
        let literals = self.layout.literals_of(features);
        let t = self.params.threshold as i64;
        self.blocks
            .iter()
            .map(|class| {
                let mut sum = 0i64;
                for block in class {
                    for i in 0..block.bank.clauses() {
                        if block.bank.output_predicting(i, &literals) {
                            sum += (block.polarity(i) * block.weights[i] as i32) as i64;
                        }
                    }
                }
                sum.clamp(-t, t) as i32
            })
            .collect()
    }

    /// The predicted class of one sample (ties go to the lowest class).
    pub fn predict(&self, features: &[u64]) -> usize {
        argmax(&self.class_sums(features))
    }

    /// The include masks as literal lists with signed weights, for fast inference.
    pub fn compile(&self) -> InferenceModel {
        let mut clauses = Vec::new();
        for (c, class) in self.blocks.iter().enumerate() {
            for block in class {
                for i in 0..block.bank.clauses() {
                    let literals = included_literals(&self.layout, block.bank.includes(i));
                    if literals.is_empty() {
                        continue;
                    }
                    let mut weights = vec![0i32; self.classes];
                    weights[c] = block.polarity(i) * block.weights[i] as i32;
                    clauses.push(CompiledClause { literals, weights });
                }
            }
        }
        InferenceModel::new(
            self.layout.features,
            self.classes,
            self.params.threshold,
            clauses,
        )
    }

    /// Raw parts for saving: per class, per block, (states, weights).
    pub(crate) fn banks(&self) -> impl Iterator<Item = (&ClauseBank, &[u32])> {
        self.blocks
            .iter()
            .flatten()
            .map(|b| (&b.bank, b.weights.as_slice()))
    }

    /// Replaces bank states and weights (in [`MultiClassTm::banks`] order).
    pub(crate) fn restore(&mut self, parts: Vec<(ClauseBank, Vec<u32>)>) -> Result<(), String> {
        let blocks: Vec<&mut Block> = self.blocks.iter_mut().flatten().collect();
        if blocks.len() != parts.len() {
            return Err("clause block count mismatch".into());
        }
        for (block, (bank, weights)) in blocks.into_iter().zip(parts) {
            if bank.clauses() != block.bank.clauses() || weights.len() != bank.clauses() {
                return Err("clause count mismatch".into());
            }
            block.bank = bank;
            block.weights = weights;
        }
        Ok(())
    }
}

/// The weight change of a weighted clause: +1 on Type Ia, -1 on Type II, never below 1.
pub(crate) fn adjust_weight(weight: &mut u32, applied: Applied) {
    match applied {
        Applied::Ia => *weight += 1,
        Applied::II => *weight = (*weight - 1).max(1),
        Applied::Ib | Applied::Nothing => {}
    }
}

/// The literals set in an include mask.
pub(crate) fn included_literals(layout: &LiteralLayout, includes: &[u64]) -> Vec<usize> {
    let mut out = Vec::new();
    for (w, &word) in includes.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let b = bits.trailing_zeros();
            out.extend(layout.literal_at(w, b));
            bits &= bits - 1;
        }
    }
    out.sort_unstable();
    out
}

/// One worker's literals of the samples of the last two rounds, filled on first use.
pub(crate) struct SampleLiterals {
    layout: LiteralLayout,
    /// (round, literals) of even rounds, then of odd ones.
    slots: [(usize, Vec<u64>); 2],
}

impl SampleLiterals {
    pub(crate) fn new(layout: LiteralLayout) -> SampleLiterals {
        let slot = || (usize::MAX, vec![0u64; layout.words()]);
        SampleLiterals {
            layout,
            slots: [slot(), slot()],
        }
    }

    /// The literals of `round`'s sample, whose packed features are `features`.
    pub(crate) fn of(&mut self, round: usize, features: &[u64]) -> &[u64] {
        let (filled, literals) = &mut self.slots[round % 2];
        if *filled != round {
            self.layout.fill_literals(features, literals);
            *filled = round;
        }
        literals
    }
}

/// A Fisher-Yates shuffle of `0..n`.
pub(crate) fn shuffled(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    order
}

/// Index of the largest value (the lowest index on ties).
pub fn argmax(values: &[i32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

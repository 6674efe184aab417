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
//! Reproducibility is as in [`crate::tm::multiclass`]: blocks of clauses with their own
//! random streams, the main stream for the order and the negative classes.

use crate::rng::{self, Rng};
use crate::tm::bank::{ClauseBank, FeedbackScratch, TypeI};
use crate::tm::data::Dataset;
use crate::tm::inference::{CompiledClause, InferenceModel};
use crate::tm::literals::LiteralLayout;
use crate::tm::multiclass::{
    included_literals, keep_in_place, shuffled, SampleLiterals, CLAUSE_BLOCK,
};
use crate::tm::params::Params;
use crate::tm::rounds;
use crate::tm::sampler::{SubsetSampler, SubsetSource};
use rand::Rng as _;

/// A block of the shared pool.
#[derive(Clone, Debug)]
struct PoolBlock {
    bank: ClauseBank,
    /// `weights[i * classes + c]`.
    weights: Vec<i32>,
    /// Feedback selection.
    rng: Rng,
    /// The 1/s subsets.
    darts: SubsetSource,
    outputs: Vec<bool>,
    /// The (clause, update) pairs that get feedback for the current sample.
    acting: Vec<(u32, u8)>,
    scratch: FeedbackScratch,
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
            .outputs_learning(literals, None, &mut self.outputs);
        for (i, &out) in self.outputs.iter().enumerate() {
            if out {
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
        let t = step.params.threshold;
        let type_i = TypeI::of(step.params, step.sampler);
        // A (clause, class) pair acts when selected and it is of Type I, or the clause output
        // 1: the others get no selection draw. Only a clause that output 1 changes its
        // weights here, so the weights read now tell the Type of every pair that could be
        // skipped. Selections come first (their stream serves nothing else), then the
        // updates, with the next clause's states loading while this one is updated. The
        // generator works on a local copy (kept in registers), and both passes write every
        // pair to `acting` and count it only when it passes (no branch on the data).
        // A class whose sum is at the threshold leaves its pairs no chance, and one at minus
        // the threshold makes them certain: their pairs draw nothing.
        let classes = step.classes;
        self.acting
            .resize(self.bank.clauses() * step.updates.len(), (0, 0));
        let acting = &mut self.acting[..];
        let below = step
            .updates
            .map(|(_, target, sum)| if target { t - sum } else { t + sum });
        let possible = below.map(|b| b > 0);
        let mut candidates = 0;
        for (i, &output) in self.outputs.iter().enumerate() {
            for (u, &(class, target, _)) in step.updates.iter().enumerate() {
                let of_type_i = (self.weights[i * classes + class] >= 0) == target;
                acting[candidates] = (i as u32, u as u8);
                candidates += ((output | of_type_i) & possible[u]) as usize;
            }
        }
        let mut rng = self.rng.clone();
        let chosen = keep_in_place(acting, candidates, |(_, u)| {
            let below = below[u as usize];
            below >= 2 * t || rng.random_range(0..2 * t) < below
        });
        self.acting.truncate(chosen);
        self.rng = rng;
        if let Some(&(first, _)) = self.acting.first() {
            self.bank.prefetch(first as usize);
        }
        for n in 0..self.acting.len() {
            let (i, u) = self.acting[n];
            let i = i as usize;
            if let Some(&(next, _)) = self.acting.get(n + 1) {
                if next as usize != i {
                    self.bank.prefetch(next as usize);
                }
            }
            let output = self.outputs[i];
            let (class, target, _) = step.updates[u as usize];
            let w = &mut self.weights[i * step.classes + class];
            self.bank.feedback(
                i,
                (*w >= 0) == target,
                output.then_some(step.literals),
                None,
                &type_i,
                &mut self.darts,
                &mut self.scratch,
            );
            if output {
                *w += if target { 1 } else { -1 };
            }
        }
    }
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
                let weights = (0..len * classes)
                    .map(|_| if main.random::<bool>() { 1 } else { -1 })
                    .collect();
                let (rng, darts) = rng::substream_pair(params.seed, b as u64 + 1);
                PoolBlock {
                    bank: ClauseBank::new(layout, params.state_bits, len),
                    weights,
                    rng,
                    darts: SubsetSource::new(darts),
                    outputs: vec![false; len],
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
                let sums: Vec<i32> = totals.iter().map(|&s| s.clamp(-t, t) as i32).collect();
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
            block.bank = bank;
            block.weights = weights;
        }
        Ok(())
    }
}

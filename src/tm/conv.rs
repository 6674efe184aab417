//! The convolutional Tsetlin Machine (seed 001's variant): each sample is a set of patches
//! (see [`crate::tm::patches`]); a clause is true for a sample when it matches ANY of
//! its patches. Learning gives a clause the feedback of the per-class machine computed on
//! one matching patch drawn at random (Type Ib when none matches). Class sums, clause
//! polarity (even clauses for, odd against), integer weights, boost, the literal budget and
//! the clause and literal drops are those of [`crate::tm::multiclass`].
//!
//! Reproducibility: the sample order, negative classes and drops come from the main stream
//! (`rng::substream(seed, 0)`); class c's clauses draw from `rng::substream(seed, c + 1)`.
//! The two classes updated by a sample run in parallel, each on its own stream.

use crate::rng::{self, Rng};
use crate::tm::bank::{ClauseBank, FeedbackScratch, TypeI};
use crate::tm::data::Dataset;
use crate::tm::literals::LiteralLayout;
use crate::tm::multiclass::{adjust_weight, argmax, included_literals, shuffled, MultiClassTm};
use crate::tm::params::Params;
use crate::tm::patches::PatchGrid;
use crate::tm::sampler::{SubsetSampler, SubsetSource};
use rand::Rng as _;
use rayon::prelude::*;

/// The patch literals of one sample: `patches` literal vectors of `words` words.
pub struct PatchLiterals {
    words: usize,
    literals: Vec<u64>,
}

impl PatchLiterals {
    /// Number of patches.
    pub fn patches(&self) -> usize {
        self.literals.len() / self.words
    }

    /// The literal vector of patch `patch`.
    pub fn patch(&self, patch: usize) -> &[u64] {
        &self.literals[patch * self.words..(patch + 1) * self.words]
    }
}

/// One class's clauses, weights, random stream and per-sample scratch.
#[derive(Clone, Debug)]
struct ConvClass {
    bank: ClauseBank,
    weights: Vec<u32>,
    /// Feedback selection and patches.
    rng: Rng,
    /// The 1/s subsets.
    darts: SubsetSource,
    active: Vec<bool>,
    /// Per clause, a bit set of the patches it matched (`patch_words` words each).
    matches: Vec<u64>,
    patch_words: usize,
    scratch: FeedbackScratch,
}

/// What one class's feedback reads besides its own state.
struct Feedback<'a> {
    params: &'a Params,
    sampler: &'a SubsetSampler,
    sample: &'a PatchLiterals,
    keep: Option<&'a [u64]>,
}

impl ConvClass {
    fn matched(&self, clause: usize) -> &[u64] {
        &self.matches[clause * self.patch_words..(clause + 1) * self.patch_words]
    }

    /// Records the matching patches of every active clause; returns the unclamped sum.
    fn vote_learning(&mut self, sample: &PatchLiterals, keep: Option<&[u64]>) -> i64 {
        let mut sum = 0i64;
        self.matches.fill(0);
        for i in 0..self.bank.clauses() {
            if !self.active[i] {
                continue;
            }
            let mut any = false;
            for p in 0..sample.patches() {
                if self.bank.output_learning(i, sample.patch(p), keep) {
                    self.matches[i * self.patch_words + p / 64] |= 1 << (p % 64);
                    any = true;
                }
            }
            if any {
                sum += (MultiClassTm::polarity(i) * self.weights[i] as i32) as i64;
            }
        }
        sum
    }

    /// A matching patch of `clause` drawn uniformly, if it matched any.
    fn draw_match(&mut self, clause: usize) -> Option<usize> {
        let count: u32 = self.matched(clause).iter().map(|w| w.count_ones()).sum();
        if count == 0 {
            return None;
        }
        let mut r = self.rng.random_range(0..count);
        for (w, &word) in self.matched(clause).iter().enumerate() {
            let ones = word.count_ones();
            if r < ones {
                let mut bits = word;
                for _ in 0..r {
                    bits &= bits - 1;
                }
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
            r -= ones;
        }
        unreachable!("r is below the number of set bits")
    }

    fn feedback(&mut self, target: bool, sum: i32, fb: &Feedback) {
        let t = fb.params.threshold;
        let type_i = TypeI::of(fb.params, fb.sampler);
        for i in 0..self.bank.clauses() {
            if !self.active[i] {
                continue;
            }
            let r = self.rng.random_range(0..2 * t);
            let chosen = if target { r < t - sum } else { r < t + sum };
            if !chosen {
                continue;
            }
            // The clause's literals: one randomly drawn patch it matched.
            let matched = self.draw_match(i).map(|p| fb.sample.patch(p));
            let applied = self
                .bank
                .feedback(
                    i,
                    target == (MultiClassTm::polarity(i) > 0),
                    matched,
                    fb.keep,
                    &type_i,
                    &mut self.darts,
                    &mut self.scratch,
                )
                .applied;
            if fb.params.weighted {
                adjust_weight(&mut self.weights[i], applied);
            }
        }
    }
}

/// A convolutional Tsetlin Machine over the patches of a [`PatchGrid`].
#[derive(Clone, Debug)]
pub struct ConvTm {
    params: Params,
    grid: PatchGrid,
    layout: LiteralLayout,
    classes: Vec<ConvClass>,
    sampler: SubsetSampler,
    rng: Rng,
    literal_keep: Option<Vec<u64>>,
}

impl ConvTm {
    /// A fresh machine over the patches of `grid` with `classes` classes
    /// (`params.clauses` clauses per class).
    pub fn new(params: Params, grid: PatchGrid, classes: usize) -> Result<ConvTm, String> {
        params.validate()?;
        if classes < 2 {
            return Err(format!("need at least 2 classes, got {classes}"));
        }
        let layout = LiteralLayout::new(grid.patch_features());
        let patch_words = grid.patches().div_ceil(64);
        let classes = (0..classes)
            .map(|c| {
                let (rng, darts) = rng::substream_pair(params.seed, c as u64 + 1);
                ConvClass {
                    bank: ClauseBank::new(layout, params.state_bits, params.clauses),
                    weights: vec![1; params.clauses],
                    rng,
                    darts: SubsetSource::new(darts),
                    active: vec![true; params.clauses],
                    matches: vec![0; params.clauses * patch_words],
                    patch_words,
                    scratch: FeedbackScratch::new(layout),
                }
            })
            .collect();
        Ok(ConvTm {
            sampler: SubsetSampler::new(layout, 1.0 / params.specificity),
            rng: rng::substream(params.seed, 0),
            params,
            grid,
            layout,
            classes,
            literal_keep: None,
        })
    }

    /// The hyper-parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The patch geometry.
    pub fn grid(&self) -> &PatchGrid {
        &self.grid
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.classes.len()
    }

    /// Number of input (board) features.
    pub fn features(&self) -> usize {
        self.grid.input_features()
    }

    /// The literal layout of one patch.
    pub fn patch_layout(&self) -> &LiteralLayout {
        &self.layout
    }

    /// The automaton state of (`class`, `clause`, patch `literal`).
    pub fn state(&self, class: usize, clause: usize, literal: usize) -> u32 {
        self.classes[class].bank.state(clause, literal)
    }

    /// Sets the automaton state of (`class`, `clause`, patch `literal`).
    pub fn set_state(&mut self, class: usize, clause: usize, literal: usize, state: u32) {
        self.classes[class].bank.set_state(clause, literal, state);
    }

    /// The weight of (`class`, `clause`).
    pub fn weight(&self, class: usize, clause: usize) -> u32 {
        self.classes[class].weights[clause]
    }

    /// The patch literals (`0..P` plain, `P..2P` negated) `clause` of `class` includes.
    pub fn clause_literals(&self, class: usize, clause: usize) -> Vec<usize> {
        included_literals(&self.layout, self.classes[class].bank.includes(clause))
    }

    /// The patch literals of a packed board.
    pub fn patch_literals(&self, board: &[u64]) -> PatchLiterals {
        let features = self.grid.encode(board);
        let stride = self.layout.feature_words();
        let words = self.layout.words();
        let mut literals = vec![0u64; self.grid.patches() * words];
        for (patch, out) in features.chunks(stride).zip(literals.chunks_mut(words)) {
            self.layout.fill_literals(patch, out);
        }
        PatchLiterals { words, literals }
    }

    /// The patches of a packed board that `clause` of `class` matches at prediction (an
    /// empty clause matches none).
    pub fn matching_patches(&self, class: usize, clause: usize, board: &[u64]) -> Vec<usize> {
        let sample = self.patch_literals(board);
        let bank = &self.classes[class].bank;
        (0..sample.patches())
            .filter(|&p| bank.output_predicting(clause, sample.patch(p)))
            .collect()
    }

    /// Clamped class sums of a packed board.
    pub fn class_sums(&self, board: &[u64]) -> Vec<i32> {
        let sample = self.patch_literals(board);
        let t = self.params.threshold as i64;
        self.classes
            .iter()
            .map(|class| {
                let mut sum = 0i64;
                for i in 0..class.bank.clauses() {
                    let fires = (0..sample.patches())
                        .any(|p| class.bank.output_predicting(i, sample.patch(p)));
                    if fires {
                        sum += (MultiClassTm::polarity(i) * class.weights[i] as i32) as i64;
                    }
                }
                sum.clamp(-t, t) as i32
            })
            .collect()
    }

    /// The predicted class of a packed board (ties go to the lowest class).
    pub fn predict(&self, board: &[u64]) -> usize {
        argmax(&self.class_sums(board))
    }

    /// Predicted class of every sample of `data`.
    pub fn predict_all(&self, data: &Dataset) -> Vec<usize> {
        (0..data.len())
            .into_par_iter()
            .map(|i| self.predict(data.row(i)))
            .collect()
    }

    /// Learns one sample (packed board, label).
    pub fn learn(&mut self, board: &[u64], label: usize) {
        let sample = self.patch_literals(board);
        self.learn_patches(&sample, label);
    }

    /// Whether `clause` of `class` sits out the current epoch (clause drop).
    pub fn is_dropped(&self, class: usize, clause: usize) -> bool {
        !self.classes[class].active[clause]
    }

    fn learn_patches(&mut self, sample: &PatchLiterals, label: usize) {
        let other = self.rng.random_range(0..self.classes.len() - 1);
        let negative = other + (other >= label) as usize;
        let t = self.params.threshold as i64;
        let keep = self.literal_keep.as_deref();
        let (low, high) = self.classes.split_at_mut(label.max(negative));
        let (label_class, negative_class) = if label < negative {
            (&mut low[label], &mut high[0])
        } else {
            (&mut high[0], &mut low[negative])
        };
        let fb = Feedback {
            params: &self.params,
            sampler: &self.sampler,
            sample,
            keep,
        };
        let update = |class: &mut ConvClass, target: bool| {
            let sum = class.vote_learning(sample, keep).clamp(-t, t) as i32;
            class.feedback(target, sum, &fb);
        };
        rayon::join(
            || update(label_class, true),
            || update(negative_class, false),
        );
    }

    /// Draws the clause and literal drops of a new epoch (from the main stream);
    /// [`ConvTm::fit_epoch`] does this itself, [`ConvTm::learn`] uses the current drops.
    pub fn draw_drops(&mut self) {
        let p = &self.params;
        if p.clause_drop > 0.0 {
            for class in &mut self.classes {
                for a in &mut class.active {
                    *a = self.rng.random::<f64>() >= p.clause_drop;
                }
            }
        }
        if p.literal_drop > 0.0 {
            self.literal_keep = Some(self.layout.keep_mask(p.literal_drop, &mut self.rng));
        }
    }

    /// Clears the drops so that every clause and literal counts again.
    pub fn clear_drops(&mut self) {
        for class in &mut self.classes {
            class.active.fill(true);
        }
        self.literal_keep = None;
    }

    /// One epoch: every sample of `data` once, in an order shuffled by the machine's seed,
    /// under drops drawn for the epoch.
    pub fn fit_epoch(&mut self, data: &Dataset) {
        assert_eq!(data.features(), self.features(), "feature count");
        self.draw_drops();
        let order = shuffled(data.len(), &mut self.rng);
        for i in order {
            let sample = self.patch_literals(data.row(i));
            self.learn_patches(&sample, data.labels()[i] as usize);
        }
        self.clear_drops();
    }

    /// Raw parts for saving: per class, (bank, weights).
    pub(crate) fn banks(&self) -> impl Iterator<Item = (&ClauseBank, &[u32])> {
        self.classes.iter().map(|c| (&c.bank, c.weights.as_slice()))
    }

    /// Replaces bank states and weights (in [`ConvTm::banks`] order).
    pub(crate) fn restore(&mut self, parts: Vec<(ClauseBank, Vec<u32>)>) -> Result<(), String> {
        if parts.len() != self.classes.len() {
            return Err("class count mismatch".into());
        }
        for (class, (bank, weights)) in self.classes.iter_mut().zip(parts) {
            if bank.clauses() != class.bank.clauses() || weights.len() != bank.clauses() {
                return Err("clause count mismatch".into());
            }
            class.bank = bank;
            class.weights = weights;
        }
        Ok(())
    }
}

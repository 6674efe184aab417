//! A bank of clauses: bit-sliced Tsetlin automata states, clause evaluation over literal
//! words, and the three feedback types.
//!
//! States of clause j are `bits` planes of [`LiteralLayout::words`] words; plane `bits - 1`
//! (the top bit) is the include mask. A state lies in `0..2^bits`; the automaton includes its
//! literal iff the state is at least `2^(bits-1)`. Automata start at `2^(bits-1) - 1`, just
//! below the include boundary.

use crate::rng::Rng;
use crate::tm::bitslice;
use crate::tm::literals::LiteralLayout;
use crate::tm::sampler::SubsetSampler;

/// Clause states of one bank (all clauses share the literal layout and the state bits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClauseBank {
    layout: LiteralLayout,
    bits: usize,
    clauses: usize,
    states: Vec<u64>,
}

/// What a Type I feedback needs besides the clause: specificity randomness and boost.
pub struct TypeI<'a> {
    /// Draws the literals that get a 1/s event.
    pub sampler: &'a SubsetSampler,
    /// Strengthen literals that are 1 always (true) or with probability (s-1)/s (false).
    pub boost_true_positive: bool,
}

impl ClauseBank {
    /// `clauses` clauses over `layout` with `bits` state bits (1..=16), all at the initial
    /// state just below the include boundary.
    pub fn new(layout: LiteralLayout, bits: usize, clauses: usize) -> ClauseBank {
        assert!((1..=16).contains(&bits), "state bits must be 1..=16");
        let words = layout.words();
        let mut states = vec![0u64; clauses * bits * words];
        for j in 0..clauses {
            for k in 0..bits - 1 {
                for w in 0..words {
                    states[(j * bits + k) * words + w] = layout.valid(w);
                }
            }
        }
        ClauseBank {
            layout,
            bits,
            clauses,
            states,
        }
    }

    /// A bank from raw state words (as [`ClauseBank::raw_states`] returns them).
    pub fn from_raw(
        layout: LiteralLayout,
        bits: usize,
        clauses: usize,
        states: Vec<u64>,
    ) -> Option<ClauseBank> {
        ((1..=16).contains(&bits) && states.len() == clauses * bits * layout.words()).then_some(
            ClauseBank {
                layout,
                bits,
                clauses,
                states,
            },
        )
    }

    /// The raw state words (clause-major, then plane, then word).
    pub fn raw_states(&self) -> &[u64] {
        &self.states
    }

    /// The literal layout.
    pub fn layout(&self) -> &LiteralLayout {
        &self.layout
    }

    /// Number of clauses.
    pub fn clauses(&self) -> usize {
        self.clauses
    }

    /// State bits per automaton.
    pub fn bits(&self) -> usize {
        self.bits
    }

    #[inline]
    fn base(&self, clause: usize) -> usize {
        clause * self.bits * self.layout.words()
    }

    /// The include mask of `clause` (one bit per literal slot).
    #[inline]
    pub fn includes(&self, clause: usize) -> &[u64] {
        let words = self.layout.words();
        let start = self.base(clause) + (self.bits - 1) * words;
        &self.states[start..start + words]
    }

    /// Number of literals `clause` includes.
    pub fn include_count(&self, clause: usize) -> u32 {
        self.includes(clause).iter().map(|w| w.count_ones()).sum()
    }

    /// The state of the automaton of (`clause`, `literal`).
    pub fn state(&self, clause: usize, literal: usize) -> u32 {
        let (w, b) = self.layout.slot(literal);
        let start = self.base(clause) + w;
        bitslice::lane_value(&self.states[start..], self.layout.words(), self.bits, b)
    }

    /// Sets the state of (`clause`, `literal`) (clamped to the state range).
    pub fn set_state(&mut self, clause: usize, literal: usize, state: u32) {
        let (w, b) = self.layout.slot(literal);
        let start = self.base(clause) + w;
        let words = self.layout.words();
        let value = state.min((1 << self.bits) - 1);
        bitslice::set_lane(&mut self.states[start..], words, self.bits, b, value);
    }

    /// Clause output while learning: 1 when every included literal (not dropped) is 1, so an
    /// empty clause outputs 1. `keep` masks out dropped literals.
    #[inline]
    pub fn output_learning(&self, clause: usize, literals: &[u64], keep: Option<&[u64]>) -> bool {
        let inc = self.includes(clause);
        match keep {
            None => {
                // Four words per test: fewer branches, and the loads pipeline.
                let mut chunks = inc.chunks_exact(4).zip(literals.chunks_exact(4));
                let whole = chunks.all(|(i, l)| {
                    (i[0] & !l[0]) | (i[1] & !l[1]) | (i[2] & !l[2]) | (i[3] & !l[3]) == 0
                });
                let tail = inc.len() - inc.len() % 4;
                whole
                    && inc[tail..]
                        .iter()
                        .zip(&literals[tail..])
                        .all(|(&i, &l)| i & !l == 0)
            }
            Some(keep) => inc
                .iter()
                .zip(literals)
                .zip(keep)
                .all(|((&i, &l), &k)| i & k & !l == 0),
        }
    }

    /// Clause output at prediction: like learning, except that an empty clause outputs 0.
    #[inline]
    pub fn output_predicting(&self, clause: usize, literals: &[u64]) -> bool {
        let inc = self.includes(clause);
        let mut any = 0u64;
        for (&i, &l) in inc.iter().zip(literals) {
            if i & !l != 0 {
                return false;
            }
            any |= i;
        }
        any != 0
    }

    /// Adds 1 to the automata of `clause` selected by `mask` (literal words).
    #[inline]
    fn increment_masked(&mut self, clause: usize, mask: impl Fn(usize) -> u64) {
        let words = self.layout.words();
        let base = self.base(clause);
        for w in 0..words {
            let m = mask(w);
            if m != 0 {
                bitslice::increment(&mut self.states[base + w..], words, self.bits, m);
            }
        }
    }

    /// Subtracts 1 from the automata of `clause` selected by `mask` (literal words).
    #[inline]
    fn decrement_masked(&mut self, clause: usize, mask: impl Fn(usize) -> u64) {
        let words = self.layout.words();
        let base = self.base(clause);
        for w in 0..words {
            let m = mask(w);
            if m != 0 {
                bitslice::decrement(&mut self.states[base + w..], words, self.bits, m);
            }
        }
    }

    /// Writes into `out` the mask of the automata of `clause` with a state above 0 (the only
    /// ones a step toward exclude can change), one plane at a time so the loads stream.
    #[inline]
    fn above_zero(&self, clause: usize, out: &mut [u64]) {
        let words = self.layout.words();
        let base = self.base(clause);
        out.copy_from_slice(&self.states[base..base + words]);
        for k in 1..self.bits {
            let plane = &self.states[base + k * words..base + (k + 1) * words];
            for (o, &p) in out.iter_mut().zip(plane) {
                *o |= p;
            }
        }
    }

    /// Type Ia feedback (clause output 1): literals that are 1 move toward include (always
    /// with boost, else unless drawn in the 1/s subset); literals that are 0 and drawn move
    /// toward exclude. Only literals in `keep` (when given) change. The 1/s subset is drawn
    /// over the literals whose outcome it decides (see [`SubsetSampler::fill`]): the 0
    /// literals above state 0, plus, without boost, every 1 literal. `scratch` holds two
    /// literal vectors and is left zero.
    pub fn type_ia(
        &mut self,
        clause: usize,
        literals: &[u64],
        keep: Option<&[u64]>,
        feedback: &TypeI,
        rng: &mut Rng,
        scratch: &mut [u64],
    ) {
        let words = self.layout.words();
        let boost = feedback.boost_true_positive;
        let (candidates, drawn) = scratch.split_at_mut(words);
        self.above_zero(clause, candidates);
        for (w, c) in candidates.iter_mut().enumerate() {
            let decidable = if boost {
                !literals[w] & *c
            } else {
                literals[w] | *c
            };
            *c = decidable & self.layout.valid(w) & keep.map_or(u64::MAX, |k| k[w]);
        }
        feedback.sampler.fill(rng, candidates, drawn);
        let keep_word = |w: usize| keep.map_or(u64::MAX, |k| k[w]);
        {
            let drawn = &*drawn;
            self.increment_masked(clause, |w| {
                let up = if boost {
                    literals[w]
                } else {
                    literals[w] & !drawn[w]
                };
                up & keep_word(w)
            });
            self.decrement_masked(clause, |w| !literals[w] & drawn[w]);
        }
        candidates.fill(0);
        drawn.fill(0);
    }

    /// Type Ib feedback (clause output 0): each literal drawn in the 1/s subset moves toward
    /// exclude (the subset is drawn over the literals above state 0; `scratch` as for
    /// [`ClauseBank::type_ia`]).
    pub fn type_ib(
        &mut self,
        clause: usize,
        keep: Option<&[u64]>,
        sampler: &SubsetSampler,
        rng: &mut Rng,
        scratch: &mut [u64],
    ) {
        let words = self.layout.words();
        let (candidates, drawn) = scratch.split_at_mut(words);
        self.above_zero(clause, candidates);
        if let Some(keep) = keep {
            for (c, &k) in candidates.iter_mut().zip(keep) {
                *c &= k;
            }
        }
        sampler.fill(rng, candidates, drawn);
        {
            let drawn = &*drawn;
            self.decrement_masked(clause, |w| drawn[w]);
        }
        candidates.fill(0);
        drawn.fill(0);
    }

    /// Type II feedback (apply only when the clause output is 1): every literal that is 0 in
    /// the sample and currently excluded moves one step toward include.
    pub fn type_ii(&mut self, clause: usize, literals: &[u64], keep: Option<&[u64]>) {
        let words = self.layout.words();
        let base = self.base(clause);
        let top = base + (self.bits - 1) * words;
        for w in 0..words {
            let keep_word = keep.map_or(u64::MAX, |k| k[w]);
            let m = !literals[w] & !self.states[top + w] & self.layout.valid(w) & keep_word;
            if m != 0 {
                bitslice::increment(&mut self.states[base + w..], words, self.bits, m);
            }
        }
    }
}

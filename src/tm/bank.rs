//! A bank of clauses: bit-sliced Tsetlin automata states, clause evaluation over literal
//! words, and the three feedback types.
//!
//! States of clause j are `bits` planes of [`LiteralLayout::words`] words; plane `bits - 1`
//! (the top bit) is the include mask. A state lies in `0..2^bits`; the automaton includes its
//! literal iff the state is at least `2^(bits-1)`. Automata start at `2^(bits-1) - 1`, just
//! below the include boundary.
//!
//! Each clause also keeps an index of its include mask, rebuilt after a feedback that changed
//! the mask: the words that are not zero, with their masks. A clause includes few
//! literals (on 7x7 Hex, 14 to 19 of 78 words hold them), so evaluating it reads a handful of
//! words instead of the whole plane. The index is kept in lines of five words and their
//! masks, one cache line each; a clause's first four lines lie together and are loaded a
//! few clauses ahead, an evaluation tests them two at a time and reads the further lines
//! one after another until one fails.
//! Short layouts (at most four words, such as checkers' 256 literals) are evaluated from a
//! copy of the include plane read whole (following the index would cost more than it saves),
//! kept apart from the states so that one sample's evaluations stream through a few
//! contiguous kilobytes instead of one line out of every clause's states.
//!
//! Feedback draws its 1/s subset over all literals (a step toward exclude of an automaton
//! at 0 changes nothing, so the result is the same as drawing over the ones that can move)
//! and moves each clause's automata with one branch-free pass over its planes.

use crate::tm::bitslice::{self, Moves};
use crate::tm::literals::LiteralLayout;
use crate::tm::params::Params;
use crate::tm::sampler::{Subset, SubsetDraws, SubsetSampler};

/// Clause states of one bank (all clauses share the literal layout and the state bits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClauseBank {
    layout: LiteralLayout,
    bits: usize,
    clauses: usize,
    states: Vec<u64>,
    /// Long layouts: the include index, each line [`LINE`] of a clause's non-zero include
    /// words in order; an evaluation reads line after line until one fails. A clause's first
    /// [`HEAD_LINES`] lines lie together, where most evaluations stop ...
    head: Vec<IndexLine>,
    /// ... and its further lines here, [`ClauseBank::rest_stride`] a clause.
    rest: Vec<IndexLine>,
    /// Short layouts: the include planes, one after the other (empty otherwise).
    dense: Vec<u64>,
}

/// Include words in one line of the include index.
const LINE: usize = 5;

/// Layouts of at most this many words are evaluated from the include plane itself.
const DENSE_WORDS: usize = 4;

/// How many clauses ahead evaluation loops prefetch a clause's include index.
const INDEX_AHEAD: usize = 4;

/// The lines of a clause's include index kept together and loaded ahead.
const HEAD_LINES: usize = 4;

/// [`LINE`] non-zero words of a clause's include mask (unused entries have empty masks), in
/// one cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(64))]
struct IndexLine {
    masks: [u64; LINE],
    words: [u32; LINE],
    /// In a clause's first line, its number of non-zero include words (0 in the others).
    len: u32,
}

/// Asks the CPU to start loading each of `lines` (addresses inside the bank's vectors) into
/// the cache level that `HINT` names (`_MM_HINT_T0` the first, `_MM_HINT_T1` the second).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_lines<const HINT: i32>(lines: impl Iterator<Item = *const i8>) {
    use std::arch::x86_64::_mm_prefetch;
    for line in lines {
        // SAFETY: a prefetch only hints the cache; the address is inside a live vector.
        unsafe { _mm_prefetch::<HINT>(line) };
    }
}

/// The addresses of index lines, for [`prefetch_lines`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn line_addresses(lines: &[IndexLine]) -> impl Iterator<Item = *const i8> + '_ {
    lines.iter().map(|line| (line as *const IndexLine).cast())
}

/// Which feedback [`ClauseBank::feedback`] applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// Type Ia (the clause output 1).
    Ia,
    /// Type Ib.
    Ib,
    /// Type II (the clause output 1).
    II,
    /// Nothing: Type II on a clause that output 0.
    Nothing,
}

/// What [`ClauseBank::feedback`] did to a clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feedback {
    /// The feedback applied.
    pub applied: Applied,
    /// Whether an automaton crossed between include and exclude.
    pub includes_changed: bool,
}

impl Feedback {
    /// The clause's output on the sample the feedback was given for, as the feedback left
    /// it, when that follows from its output before (`before`): a Type I feedback only adds
    /// literals that are 1 and drops others, so a clause that output 1 still does; a Type II
    /// feedback adds only literals that are 0, so the clause outputs 0 once one is added;
    /// unchanged includes leave the output as it was. `None` for a Type Ib feedback that
    /// dropped literals of a clause that output 0 (it may output 1 now).
    pub fn output_after(self, before: bool) -> Option<bool> {
        match self.applied {
            _ if !self.includes_changed => Some(before),
            Applied::Ia => Some(true),
            Applied::II => Some(false),
            Applied::Ib | Applied::Nothing => before.then_some(true),
        }
    }
}

/// Working memory of the feedback of one clause at a time (reused between clauses).
#[derive(Clone, Debug)]
pub struct FeedbackScratch {
    /// The 1/s subset, then (in place) the lanes that step down.
    subset: Subset,
    /// The lanes that step up.
    up: Vec<u64>,
}

impl FeedbackScratch {
    /// Scratch space for clauses over `layout`.
    pub fn new(layout: LiteralLayout) -> FeedbackScratch {
        FeedbackScratch {
            subset: Subset::new(layout),
            up: vec![0; layout.words()],
        }
    }
}

/// What a Type I feedback needs besides the clause: specificity randomness and boost.
pub struct TypeI<'a> {
    /// Draws the literals that get a 1/s event (a subset of all literals).
    pub sampler: &'a SubsetSampler,
    /// Strengthen literals that are 1 always (true) or with probability (s-1)/s (false).
    pub boost_true_positive: bool,
    /// Type Ia only while the clause includes fewer literals than this; Type Ib otherwise.
    pub literal_budget: Option<u32>,
}

impl TypeI<'_> {
    /// The Type I settings of `params`, drawing subsets with `sampler`.
    pub fn of<'a>(params: &Params, sampler: &'a SubsetSampler) -> TypeI<'a> {
        TypeI {
            sampler,
            boost_true_positive: params.boost_true_positive,
            literal_budget: params.literal_budget,
        }
    }
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
        ClauseBank::indexed(layout, bits, clauses, states)
    }

    /// A bank over `states` with its include index built.
    fn indexed(layout: LiteralLayout, bits: usize, clauses: usize, states: Vec<u64>) -> ClauseBank {
        let words = layout.words();
        let mut bank = ClauseBank {
            layout,
            bits,
            clauses,
            states,
            head: Vec::new(),
            rest: Vec::new(),
            dense: Vec::new(),
        };
        if bank.is_dense() {
            bank.dense = vec![0; clauses * words];
        } else {
            bank.head = vec![IndexLine::default(); clauses * HEAD_LINES];
            bank.rest = vec![IndexLine::default(); clauses * bank.rest_stride()];
        }
        for clause in 0..clauses {
            bank.reindex(clause);
        }
        bank
    }

    /// Rebuilds the include index of `clause` (in a short layout, its include copy) from its
    /// top plane.
    fn reindex(&mut self, clause: usize) {
        let words = self.layout.words();
        let top = self.base(clause) + (self.bits - 1) * words;
        if self.is_dense() {
            self.dense[clause * words..(clause + 1) * words]
                .copy_from_slice(&self.states[top..top + words]);
            return;
        }
        let stride = self.rest_stride();
        let plane = &self.states[top..top + words];
        let head = &mut self.head[clause * HEAD_LINES..(clause + 1) * HEAD_LINES];
        let rest = &mut self.rest[clause * stride..(clause + 1) * stride];
        let old_used = (head[0].len as usize).div_ceil(LINE);
        // The non-zero words are found as bits first (no branch on the masks, which a
        // feedback changes at random), then written entry after entry.
        let mut len = 0;
        for (chunk, masks) in plane.chunks(64).enumerate() {
            let mut nonzero = masks
                .iter()
                .enumerate()
                .fold(0u64, |acc, (i, &mask)| acc | ((mask != 0) as u64) << i);
            while nonzero != 0 {
                let word = chunk * 64 + nonzero.trailing_zeros() as usize;
                nonzero &= nonzero - 1;
                let line = line_of_entry(head, rest, len);
                line.masks[len % LINE] = plane[word];
                line.words[len % LINE] = word as u32;
                len += 1;
            }
        }
        // Entries past the last non-zero word are emptied, up to the end of the lines the
        // old index used, so that the index depends on the include plane alone.
        let used = len.div_ceil(LINE).max(old_used).max(1);
        for n in len..used * LINE {
            let line = line_of_entry(head, rest, n);
            line.masks[n % LINE] = 0;
            line.words[n % LINE] = 0;
        }
        head[0].len = len as u32;
    }

    /// Lines of a clause's include index after its head (a long layout's): room for every
    /// word.
    #[inline]
    fn rest_stride(&self) -> usize {
        self.layout
            .words()
            .div_ceil(LINE)
            .saturating_sub(HEAD_LINES)
    }

    /// Whether the layout is short: evaluated from include copies, with no index.
    #[inline]
    fn is_dense(&self) -> bool {
        self.layout.words() <= DENSE_WORDS
    }

    /// The include copy of `clause` in a short layout.
    #[inline]
    fn dense_includes(&self, clause: usize) -> &[u64] {
        let words = self.layout.words();
        &self.dense[clause * words..(clause + 1) * words]
    }

    /// The first line of the include index of `clause` (a long layout's), which holds its
    /// count of non-zero include words.
    #[inline]
    fn first_line(&self, clause: usize) -> &IndexLine {
        &self.head[clause * HEAD_LINES]
    }

    /// The [`HEAD_LINES`] first lines of the include index of `clause` (a long layout's).
    #[inline]
    fn head_lines(&self, clause: usize) -> &[IndexLine] {
        &self.head[clause * HEAD_LINES..(clause + 1) * HEAD_LINES]
    }

    /// The lines of the include index of `clause` (a long layout's) that hold its non-zero
    /// include words: those of its head, then the others.
    #[inline]
    fn index_lines(&self, clause: usize) -> (&[IndexLine], &[IndexLine]) {
        let head = self.head_lines(clause);
        let used = (self.first_line(clause).len as usize).div_ceil(LINE);
        let rest = clause * self.rest_stride();
        (
            &head[..used.min(HEAD_LINES)],
            &self.rest[rest..rest + used.saturating_sub(HEAD_LINES)],
        )
    }

    /// A bank from raw state words (as [`ClauseBank::raw_states`] returns them).
    pub fn from_raw(
        layout: LiteralLayout,
        bits: usize,
        clauses: usize,
        states: Vec<u64>,
    ) -> Option<ClauseBank> {
        ((1..=16).contains(&bits) && states.len() == clauses * bits * layout.words())
            .then(|| ClauseBank::indexed(layout, bits, clauses, states))
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
        if self.is_dense() {
            return self
                .dense_includes(clause)
                .iter()
                .map(|m| m.count_ones())
                .sum();
        }
        let (head, rest) = self.index_lines(clause);
        head.iter()
            .chain(rest)
            .flat_map(|line| line.masks)
            .map(|m| m.count_ones())
            .sum()
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
        self.reindex(clause);
    }

    /// Clause output while learning: 1 when every included literal (not dropped) is 1, so an
    /// empty clause outputs 1. `keep` masks out dropped literals. The head of the index is
    /// tested without branches (its unused entries have empty masks), the rest word by word.
    #[inline]
    pub fn output_learning(&self, clause: usize, literals: &[u64], keep: Option<&[u64]>) -> bool {
        let words = self.layout.words();
        if self.is_dense() {
            // A short include mask is read whole: no index to follow.
            let literals = &literals[..words];
            let includes = self.dense_includes(clause);
            let violated = match keep {
                None => includes
                    .iter()
                    .zip(literals)
                    .fold(0, |acc, (&m, &l)| acc | (m & !l)),
                Some(keep) => includes
                    .iter()
                    .zip(literals)
                    .zip(&keep[..words])
                    .fold(0, |acc, ((&m, &l), &k)| acc | (m & k & !l)),
            };
            return violated == 0;
        }
        match keep {
            None => self.indexed_output(clause, literals, |_| u64::MAX),
            Some(keep) => self.indexed_output(clause, literals, |w| keep[w]),
        }
    }

    /// [`ClauseBank::output_learning`] of a long layout's clause through its include index,
    /// `keep(w)` giving the literals of word `w` that count.
    #[inline(always)]
    fn indexed_output(&self, clause: usize, literals: &[u64], keep: impl Fn(usize) -> u64) -> bool {
        let violated = |line: &IndexLine| {
            (0..LINE).fold(0, |acc, i| {
                let w = line.words[i] as usize;
                acc | (line.masks[i] & keep(w) & !literals[w])
            })
        };
        // The head is tested two lines at a time, without a branch within them (unused
        // entries and lines are empty): whether a clause fails in its first line is close
        // to random on some data, and a mispredicted branch costs more than a second line;
        // most clauses that fail do so in the first two.
        let head = self.head_lines(clause);
        if violated(&head[0]) | violated(&head[1]) != 0 {
            return false;
        }
        if head[2..].iter().fold(0, |acc, line| acc | violated(line)) != 0 {
            return false;
        }
        let (_, rest) = self.index_lines(clause);
        rest.iter().all(|line| violated(line) == 0)
    }

    /// [`ClauseBank::output_learning`] of every clause, into `outputs`.
    pub fn outputs_learning(&self, literals: &[u64], keep: Option<&[u64]>, outputs: &mut [bool]) {
        let outputs = &mut outputs[..self.clauses];
        self.each_output_learning(literals, keep, |i, out| outputs[i] = out);
    }

    /// [`ClauseBank::outputs_learning`] as bits: clause i's output is bit i % 64 of
    /// `bits[i / 64]` (`clauses.div_ceil(64)` words, overwritten).
    pub fn output_bits_learning(&self, literals: &[u64], bits: &mut [u64]) {
        let bits = &mut bits[..self.clauses.div_ceil(64)];
        #[cfg(target_arch = "x86_64")]
        if self.layout.words() == 4 && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been found to support AVX2.
            unsafe { dense_output_bits4_avx2(&self.dense, literals, bits) };
            return;
        }
        bits.fill(0);
        self.each_output_learning(literals, None, |i, out| {
            bits[i / 64] |= (out as u64) << (i % 64)
        });
    }

    /// [`ClauseBank::output_learning`] of every clause in order, given to `put(clause,
    /// output)`. Short layouts run through their include copies in one pass, each clause one
    /// AND per word against the literals it needs at 1 (the sample's 0s, not dropped); the
    /// others follow their indexes, loading a few clauses ahead.
    #[inline(always)]
    fn each_output_learning(
        &self,
        literals: &[u64],
        keep: Option<&[u64]>,
        put: impl FnMut(usize, bool),
    ) {
        match self.layout.words() {
            2 => self.dense_outputs::<2>(literals, keep, put),
            4 => self.dense_outputs::<4>(literals, keep, put),
            _ => match keep {
                None => self.indexed_outputs(literals, |_| u64::MAX, put),
                Some(keep) => self.indexed_outputs(literals, |w| keep[w], put),
            },
        }
    }

    /// [`ClauseBank::each_output_learning`] for a long layout, loading a few clauses ahead.
    #[inline(always)]
    fn indexed_outputs(
        &self,
        literals: &[u64],
        keep: impl Fn(usize) -> u64,
        mut put: impl FnMut(usize, bool),
    ) {
        for i in 0..self.clauses {
            self.prefetch_index(i + INDEX_AHEAD);
            put(i, self.indexed_output(i, literals, &keep));
        }
    }

    /// [`ClauseBank::each_output_learning`] for a short layout of `W` words.
    #[inline(always)]
    fn dense_outputs<const W: usize>(
        &self,
        literals: &[u64],
        keep: Option<&[u64]>,
        mut put: impl FnMut(usize, bool),
    ) {
        let needed: [u64; W] =
            std::array::from_fn(|w| !literals[w] & keep.map_or(u64::MAX, |k| k[w]));
        for (i, includes) in self.dense.chunks_exact(W).enumerate() {
            let violated = (0..W).fold(0, |acc, w| acc | (includes[w] & needed[w]));
            put(i, violated == 0);
        }
    }

    /// Clause output at prediction: like learning, except that an empty clause outputs 0.
    #[inline]
    pub fn output_predicting(&self, clause: usize, literals: &[u64]) -> bool {
        let includes_any = if self.is_dense() {
            self.dense_includes(clause).iter().any(|&m| m != 0)
        } else {
            self.first_line(clause).len > 0
        };
        includes_any && self.output_learning(clause, literals, None)
    }

    /// Asks the CPU to start loading the include index of `clause` (a long layout's: its
    /// [`HEAD_LINES`] first lines): evaluation loops call it a few clauses ahead.
    #[inline(always)]
    fn prefetch_index(&self, clause: usize) {
        #[cfg(target_arch = "x86_64")]
        if clause < self.clauses {
            use std::arch::x86_64::_MM_HINT_T0;
            prefetch_lines::<_MM_HINT_T0>(line_addresses(self.head_lines(clause)));
        }
    }

    /// Asks the CPU to start loading the states of `clause` that a feedback reads and writes
    /// into the second-level cache: machines call it for the next clause to update while they
    /// update this one. Deep counters' steps settle in their low planes
    /// ([`bitslice::step_clause`]), so only those and the include plane are loaded, with the
    /// head of the clause's include index, which the update rebuilds when the includes
    /// change (on 7x7 Hex about 70 times a sample in the second epoch; loading it ahead made
    /// the epochs 2-3% faster per class, 8-15% coalesced). A long layout's states (78 lines
    /// of 8-bit automata on 7x7 Hex) go to the second level, which takes them without
    /// holding up the update under way (3-7% faster than the first level). A short layout's
    /// states are left alone: a bank of them (256 bytes a clause for checkers' 8-bit
    /// automata) stays in the second-level cache, and the prefetches cost more than they
    /// save (2% on the coalesced machine, the same per class).
    #[inline(always)]
    pub fn prefetch(&self, clause: usize) {
        #[cfg(target_arch = "x86_64")]
        if !self.is_dense() {
            use std::arch::x86_64::_MM_HINT_T1;
            let words = self.layout.words();
            let base = self.base(clause);
            let low = self.bits.min(bitslice::SETTLING_ABOVE_BITS);
            // The include plane, when it is not among the low ones.
            let top = base + (self.bits - 1) * words;
            let include = if self.bits > low {
                top..top + words
            } else {
                top..top
            };
            let states = self.states[base..base + low * words]
                .chunks(8)
                .chain(self.states[include].chunks(8))
                .map(|line| line.as_ptr().cast());
            let index = line_addresses(self.head_lines(clause));
            prefetch_lines::<_MM_HINT_T1>(states.chain(index));
        }
    }

    /// Moves the automata of `clause` one step as `moves` says (saturating), then rebuilds
    /// the include index if the include mask changed. Returns whether it changed.
    #[inline(always)]
    fn step(&mut self, clause: usize, moves: Moves) -> bool {
        let words = self.layout.words();
        let base = self.base(clause);
        let planes = &mut self.states[base..base + self.bits * words];
        #[cfg(target_arch = "x86_64")]
        let includes_changed = if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been found to support AVX2.
            unsafe {
                let eight_bits = self.bits == bitslice::avx2::BITS;
                match moves {
                    Moves::Down(down) if eight_bits && words == bitslice::avx2::CHUNK_WORDS => {
                        bitslice::avx2::step_chunk8_down(planes, down)
                    }
                    _ if eight_bits => bitslice::avx2::step_clause8(planes, words, moves),
                    _ => step_avx2(planes, words, self.bits, moves),
                }
            }
        } else {
            step_portable(planes, words, self.bits, moves)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let includes_changed = step_portable(planes, words, self.bits, moves);
        if includes_changed {
            self.reindex(clause);
        }
        includes_changed
    }

    /// The feedback of a clause selected for an update. With `type_i`: Type Ia on `matched`
    /// (the literals the clause output 1 on, if it did) when its include count is within
    /// the literal budget of `feedback`, else Type Ib. Otherwise Type II on `matched`, when
    /// there is one. Returns what was applied and whether the clause's includes changed.
    #[allow(clippy::too_many_arguments)]
    // Inlined into the machines' feedback loops: as a call it cost about a tenth of a
    // coalesced epoch on checkers' rows.
    #[inline(always)]
    pub fn feedback(
        &mut self,
        clause: usize,
        type_i: bool,
        matched: Option<&[u64]>,
        keep: Option<&[u64]>,
        feedback: &TypeI,
        rng: &mut impl SubsetDraws,
        scratch: &mut FeedbackScratch,
    ) -> Feedback {
        let within_budget = |bank: &ClauseBank| {
            feedback
                .literal_budget
                .is_none_or(|b| bank.include_count(clause) < b)
        };
        let (applied, includes_changed) = match matched {
            Some(literals) if type_i && within_budget(self) => (
                Applied::Ia,
                self.type_ia(clause, literals, keep, feedback, rng, scratch),
            ),
            _ if type_i => (
                Applied::Ib,
                self.type_ib(clause, keep, feedback.sampler, rng, scratch),
            ),
            Some(literals) => (Applied::II, self.type_ii(clause, literals, keep, scratch)),
            None => (Applied::Nothing, false),
        };
        Feedback {
            applied,
            includes_changed,
        }
    }

    /// Type Ia feedback (clause output 1): literals that are 1 move toward include (always
    /// with boost, else unless drawn in the 1/s subset); literals that are 0 and drawn move
    /// toward exclude. Only literals in `keep` (when given) change. Returns whether the
    /// clause's includes changed.
    pub fn type_ia(
        &mut self,
        clause: usize,
        literals: &[u64],
        keep: Option<&[u64]>,
        feedback: &TypeI,
        rng: &mut impl SubsetDraws,
        scratch: &mut FeedbackScratch,
    ) -> bool {
        let FeedbackScratch { subset, up } = scratch;
        rng.draw_subset(feedback.sampler, subset);
        let words = self.layout.words();
        let down = &mut subset.words_mut()[..words];
        let (literals, up) = (&literals[..words], &mut up[..words]);
        if feedback.boost_true_positive {
            up.copy_from_slice(literals);
        } else {
            for ((u, &l), &d) in up.iter_mut().zip(literals).zip(down.iter()) {
                *u = l & !d;
            }
        }
        for (d, &l) in down.iter_mut().zip(literals) {
            *d &= !l;
        }
        keep_only(up, keep);
        keep_only(down, keep);
        self.step(clause, Moves::Both { up, down })
    }

    /// Type Ib feedback (clause output 0): each literal drawn in the 1/s subset moves toward
    /// exclude. Returns whether the clause's includes changed.
    #[inline(always)]
    pub fn type_ib(
        &mut self,
        clause: usize,
        keep: Option<&[u64]>,
        sampler: &SubsetSampler,
        rng: &mut impl SubsetDraws,
        scratch: &mut FeedbackScratch,
    ) -> bool {
        match keep {
            None => rng.with_subset(sampler, &mut scratch.subset, |down| {
                self.step(clause, Moves::Down(down))
            }),
            Some(_) => {
                rng.draw_subset(sampler, &mut scratch.subset);
                let down = scratch.subset.words_mut();
                keep_only(down, keep);
                self.step(clause, Moves::Down(down))
            }
        }
    }

    /// Type II feedback (apply only when the clause output is 1): every literal that is 0 in
    /// the sample and currently excluded moves one step toward include. Returns whether the
    /// clause's includes changed.
    pub fn type_ii(
        &mut self,
        clause: usize,
        literals: &[u64],
        keep: Option<&[u64]>,
        scratch: &mut FeedbackScratch,
    ) -> bool {
        let layout = self.layout;
        let up = &mut scratch.up;
        for (w, ((u, &l), &include)) in up
            .iter_mut()
            .zip(literals)
            .zip(self.includes(clause))
            .enumerate()
        {
            *u = !l & !include & layout.valid(w) & keep.map_or(u64::MAX, |k| k[w]);
        }
        self.step(clause, Moves::Up(up))
    }
}

/// The line of a clause's include index that holds its entry `n` (counting from the first
/// of its `head` lines on through the `rest`).
#[inline(always)]
fn line_of_entry<'a>(
    head: &'a mut [IndexLine],
    rest: &'a mut [IndexLine],
    n: usize,
) -> &'a mut IndexLine {
    match n / LINE {
        j if j < HEAD_LINES => &mut head[j],
        j => &mut rest[j - HEAD_LINES],
    }
}

/// Clears the bits of `words` outside `keep` (when given: the literals not dropped).
fn keep_only(words: &mut [u64], keep: Option<&[u64]>) {
    if let Some(keep) = keep {
        for (w, &k) in words.iter_mut().zip(keep) {
            *w &= k;
        }
    }
}

/// [`ClauseBank::output_bits_learning`] for a short layout of four words (one vector a
/// clause): a clause outputs 1 when its includes and the sample's 0 literals share no bit,
/// one vector test a clause.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dense_output_bits4_avx2(dense: &[u64], literals: &[u64], bits: &mut [u64]) {
    use std::arch::x86_64::*;
    assert!(literals.len() >= 4, "four words of literals");
    // SAFETY (all loads): each reads four words (one 32-byte vector) inside `literals` or a
    // four-word chunk of `dense`; the unaligned load accepts any address.
    let load = |words: &[u64]| unsafe { _mm256_loadu_si256(words[..4].as_ptr().cast()) };
    let needed = _mm256_xor_si256(load(literals), _mm256_set1_epi64x(-1));
    for (word, clauses) in bits.iter_mut().zip(dense.chunks(4 * 64)) {
        let mut out = 0u64;
        for (k, includes) in clauses.chunks_exact(4).enumerate() {
            out |= (_mm256_testz_si256(load(includes), needed) as u64) << k;
        }
        *word = out;
    }
}

/// [`bitslice::step_clause`] kept out of line, so that callers inline only their vector path.
#[inline(never)]
fn step_portable(planes: &mut [u64], words: usize, bits: usize, moves: Moves) -> bool {
    bitslice::step_clause(planes, words, bits, moves)
}

/// [`bitslice::step_clause`] compiled for AVX2 (four words per instruction).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn step_avx2(planes: &mut [u64], words: usize, bits: usize, moves: Moves) -> bool {
    bitslice::step_clause(planes, words, bits, moves)
}

//! Exactness of the Tsetlin Machine core: each feedback type on hand-built tiny banks, clause
//! evaluation against a naive reference, and whole training runs against a naive
//! counter-per-automaton reference driven by the same random streams.

// The references index by literal and clause on purpose: they mirror the definitions.
#![allow(clippy::needless_range_loop)]

use rand::{Rng as _, RngCore};
use tmbot::rng::{seeded, substream, substream_pair, Rng, WideRng};
use tmbot::tm::bank::{Applied, ClauseBank, FeedbackScratch, TypeI};
use tmbot::tm::literals::LiteralLayout;
use tmbot::tm::multiclass::CLAUSE_BLOCK;
use tmbot::tm::sampler::{Subset, SubsetSampler, SubsetSource};
use tmbot::tm::{CoalescedTm, CoalescedUpdate, Dataset, MultiClassTm, Params};

/// A 1-clause bank over 3 features with literal states `states` (x0 x1 x2 !x0 !x1 !x2).
fn wide(seed: u64) -> WideRng {
    WideRng::from_rng(&mut seeded(seed))
}

fn tiny_bank(bits: usize, states: [u32; 6]) -> ClauseBank {
    let mut bank = ClauseBank::new(LiteralLayout::new(3), bits, 1);
    for (l, &s) in states.iter().enumerate() {
        bank.set_state(0, l, s);
    }
    bank
}

fn states_of(bank: &ClauseBank) -> Vec<u32> {
    (0..6).map(|l| bank.state(0, l)).collect()
}

fn literals_of(x: [u8; 3]) -> Vec<u64> {
    let layout = LiteralLayout::new(3);
    layout.literals_of(&layout.pack_features(&x))
}

#[test]
fn initial_states_sit_just_below_the_include_boundary() {
    for bits in [8, 16] {
        let bank = ClauseBank::new(LiteralLayout::new(100), bits, 3);
        for l in 0..200 {
            assert_eq!(bank.state(2, l), (1 << (bits - 1)) - 1);
        }
        assert_eq!(bank.include_count(1), 0);
    }
}

#[test]
fn type_ii_includes_zero_literals_that_are_excluded() {
    // x = (1, 0, 0): literals x0..x2 = 1 0 0, !x0..!x2 = 0 1 1.
    let mut bank = tiny_bank(8, [127, 127, 200, 5, 127, 128]);
    bank.type_ii(
        0,
        &literals_of([1, 0, 0]),
        None,
        &mut FeedbackScratch::new(LiteralLayout::new(3)),
    );
    // Zero literals: x1 (127 excluded -> 128), x2 (200 included: unchanged), !x0 (5 -> 6).
    assert_eq!(states_of(&bank), [127, 128, 200, 6, 127, 128]);
}

#[test]
fn type_ia_with_s_one_is_deterministic() {
    let sampler = SubsetSampler::new(LiteralLayout::new(3), 1.0);
    let mut rng = wide(1);
    let mut scratch = FeedbackScratch::new(LiteralLayout::new(3));
    let x = literals_of([1, 0, 1]);
    // Boost: literals that are 1 (x0, x2, !x1) go up, the others go down, saturating.
    let mut bank = tiny_bank(8, [255, 0, 10, 0, 7, 128]);
    let boost = TypeI {
        sampler: &sampler,
        boost_true_positive: true,
        literal_budget: None,
    };
    bank.type_ia(0, &x, None, &boost, &mut rng, &mut scratch);
    assert_eq!(states_of(&bank), [255, 0, 11, 0, 8, 127]);
    // Without boost and s = 1 the 1 literals move up with probability (s-1)/s = 0.
    let plain = TypeI {
        sampler: &sampler,
        boost_true_positive: false,
        literal_budget: None,
    };
    let mut bank = tiny_bank(8, [255, 3, 10, 9, 7, 128]);
    bank.type_ia(0, &x, None, &plain, &mut rng, &mut scratch);
    assert_eq!(states_of(&bank), [255, 2, 10, 8, 7, 127]);
}

#[test]
fn type_ib_with_s_one_forgets_everything_one_step() {
    let sampler = SubsetSampler::new(LiteralLayout::new(3), 1.0);
    let mut bank = tiny_bank(16, [65535, 0, 10, 1, 32768, 32767]);
    let mut scratch = FeedbackScratch::new(LiteralLayout::new(3));
    bank.type_ib(0, None, &sampler, &mut wide(3), &mut scratch);
    assert_eq!(states_of(&bank), [65534, 0, 9, 0, 32767, 32766]);
}

#[test]
fn random_type_i_changes_exactly_the_drawn_literals() {
    let sampler = SubsetSampler::new(LiteralLayout::new(3), 0.5);
    // Literal 4 (!x1) sits at 0 and literal 1 (x1) at the top: they cannot go further.
    let start = [100, 255, 102, 103, 0, 105];
    let x = [0u8, 1, 1];
    let lits = literals_of(x);
    let one = |l: usize| if l < 3 { x[l] == 1 } else { x[l - 3] == 0 };
    let bit = |m: &[u64], l: usize| {
        let (w, b) = LiteralLayout::new(3).slot(l);
        (m[w] >> b) & 1 == 1
    };
    for seed in 0..50 {
        // The subset the feedback draws, from a copy of the stream.
        let mut drawn = Subset::new(LiteralLayout::new(3));
        sampler.draw(&mut wide(seed), &mut drawn);
        let drawn = drawn.words();
        for boost in [true, false] {
            let mut bank = tiny_bank(8, start);
            let fb = TypeI {
                sampler: &sampler,
                boost_true_positive: boost,
                literal_budget: None,
            };
            bank.type_ia(
                0,
                &lits,
                None,
                &fb,
                &mut wide(seed),
                &mut FeedbackScratch::new(LiteralLayout::new(3)),
            );
            for l in 0..6 {
                let expected = match (one(l), bit(drawn, l)) {
                    (true, true) if !boost => start[l],
                    (true, _) => (start[l] + 1).min(255),
                    (false, true) => start[l].saturating_sub(1),
                    (false, false) => start[l],
                };
                assert_eq!(
                    bank.state(0, l),
                    expected,
                    "seed {seed} literal {l} boost {boost}"
                );
            }
        }
        let mut bank = tiny_bank(8, start);
        bank.type_ib(
            0,
            None,
            &sampler,
            &mut wide(seed),
            &mut FeedbackScratch::new(LiteralLayout::new(3)),
        );
        for l in 0..6 {
            assert_eq!(
                bank.state(0, l),
                start[l].saturating_sub(bit(drawn, l) as u32)
            );
        }
    }
}

#[test]
fn clause_outputs_match_a_naive_reference() {
    let mut rng = seeded(21);
    for features in [1usize, 5, 64, 65, 130, 300] {
        let layout = LiteralLayout::new(features);
        // Two words of output bits, the second one partly used.
        let clauses = 70;
        let mut bank = ClauseBank::new(layout, 8, clauses);
        let mut naive = vec![vec![0u32; 2 * features]; clauses];
        for (j, row) in naive.iter_mut().enumerate() {
            // Sparse includes so that some clauses match; clause 0 stays empty.
            for (l, s) in row.iter_mut().enumerate() {
                *s = if j > 0 && rng.random_range(0..features.max(4)) < 2 {
                    rng.random_range(128..256)
                } else {
                    rng.random_range(0..128)
                };
                bank.set_state(j, l, *s);
            }
        }
        for _ in 0..200 {
            let x: Vec<u8> = (0..features)
                .map(|_| !rng.next_u32().is_multiple_of(4) as u8)
                .collect();
            let lits = layout.literals_of(&layout.pack_features(&x));
            // Literals left out (as a literal drop does): each kept with probability 3/4.
            let kept: Vec<bool> = (0..2 * features)
                .map(|_| !rng.next_u32().is_multiple_of(4))
                .collect();
            let mut keep = vec![0u64; layout.words()];
            for l in (0..2 * features).filter(|&l| kept[l]) {
                let (w, b) = layout.slot(l);
                keep[w] |= 1 << b;
            }
            let mut outputs = vec![false; clauses];
            bank.outputs_learning(&lits, None, &mut outputs);
            let mut output_bits = vec![u64::MAX; clauses.div_ceil(64)];
            bank.output_bits_learning(&lits, &mut output_bits);
            assert_eq!(output_bits[1] >> (clauses - 64), 0, "bits past the clauses");
            for (j, row) in naive.iter().enumerate() {
                let value = |l: usize| {
                    if l < features {
                        x[l] == 1
                    } else {
                        x[l - features] == 0
                    }
                };
                let included: Vec<usize> = (0..2 * features).filter(|&l| row[l] >= 128).collect();
                let all = included.iter().all(|&l| value(l));
                assert_eq!(bank.output_learning(j, &lits, None), all);
                assert_eq!(outputs[j], all, "{features} features, clause {j}");
                let bit = output_bits[j / 64] >> (j % 64) & 1 == 1;
                assert_eq!(bit, all, "{features} features, clause {j}'s bit");
                let all_kept = included.iter().all(|&l| !kept[l] || value(l));
                assert_eq!(bank.output_learning(j, &lits, Some(&keep)), all_kept);
                assert_eq!(
                    bank.output_predicting(j, &lits),
                    all && !included.is_empty()
                );
            }
        }
    }
}

#[test]
fn a_feedbacks_output_after_is_the_clauses_new_output() {
    // Clauses near the include boundary, so that feedback often adds or drops literals;
    // every kind of feedback on every output, the output it claims checked by evaluation.
    let mut rng = seeded(23);
    let features = 70;
    let layout = LiteralLayout::new(features);
    let sampler = SubsetSampler::new(layout, 0.3);
    let mut darts = wide(23);
    let mut scratch = FeedbackScratch::new(layout);
    let mut checked = [[0u32; 2]; 3];
    for round in 0..3000 {
        let mut bank = ClauseBank::new(layout, 8, 1);
        for l in 0..2 * features {
            let near = rng.random_range(0..30) < 1;
            let state = if near {
                rng.random_range(126..130)
            } else {
                rng.random_range(0..100)
            };
            bank.set_state(0, l, state);
        }
        let x: Vec<u8> = (0..features).map(|_| rng.random_range(0..2)).collect();
        let lits = layout.literals_of(&layout.pack_features(&x));
        let before = bank.output_learning(0, &lits, None);
        let fb = TypeI {
            sampler: &sampler,
            boost_true_positive: round % 2 == 0,
            literal_budget: (round % 3 == 0).then_some(2),
        };
        let type_i = rng.random_range(0..2) == 0;
        let fed = bank.feedback(
            0,
            type_i,
            before.then_some(&lits[..]),
            None,
            &fb,
            &mut darts,
            &mut scratch,
        );
        let after = bank.output_learning(0, &lits, None);
        if let Some(claimed) = fed.output_after(before) {
            assert_eq!(claimed, after, "round {round}: {fed:?} on output {before}");
        } else {
            assert!(!before && fed.includes_changed, "round {round}: {fed:?}");
        }
        let kind = match fed.applied {
            Applied::Ia => 0,
            Applied::Ib => 1,
            Applied::II => 2,
            Applied::Nothing => continue,
        };
        checked[kind][fed.includes_changed as usize] += 1;
    }
    // Every feedback, with and without a change of includes, came up.
    assert!(checked.iter().flatten().all(|&n| n > 20), "{checked:?}");
}

#[test]
fn clauses_over_many_include_words_match_a_naive_reference() {
    // Clauses that include literals in 0 to every one of 32 words, so that evaluations run
    // through every line of the include index and stop in each of them.
    let mut rng = seeded(22);
    let features = 1000;
    let layout = LiteralLayout::new(features);
    let words = layout.words();
    let mut in_word = vec![Vec::new(); words];
    for l in 0..2 * features {
        in_word[layout.slot(l).0].push(l);
    }
    let counts = [0, 1, 4, 5, 6, 10, 11, 14, 15, 16, 20, 21, 25, words];
    let mut bank = ClauseBank::new(layout, 8, counts.len());
    let mut includes: Vec<Vec<usize>> = Vec::new();
    for (j, &count) in counts.iter().enumerate() {
        // One literal in each of `count` random words, no feature twice.
        let mut chosen: Vec<usize> = Vec::new();
        let mut order: Vec<usize> = (0..words).collect();
        for i in 0..words {
            order.swap(i, rng.random_range(i..words));
        }
        for &w in order.iter().take(count) {
            let free: Vec<usize> = in_word[w]
                .iter()
                .copied()
                .filter(|&l| chosen.iter().all(|&c| c % features != l % features))
                .collect();
            let l = free[rng.random_range(0..free.len())];
            bank.set_state(j, l, rng.random_range(128..256));
            chosen.push(l);
        }
        assert_eq!(bank.include_count(j) as usize, count);
        includes.push(chosen);
    }
    let value = |x: &[u8], l: usize| {
        if l < features {
            x[l] == 1
        } else {
            x[l - features] == 0
        }
    };
    let mut outputs = vec![false; counts.len()];
    for chosen in &includes {
        // A sample that meets every include of this clause, then the same with one of them
        // failing (and that literal left out, which makes it hold again).
        let mut x: Vec<u8> = (0..features).map(|_| rng.random_range(0..2)).collect();
        for &l in chosen {
            x[l % features] = (l < features) as u8;
        }
        let mut cases = vec![(x.clone(), None)];
        for &l in chosen {
            let mut failing = x.clone();
            failing[l % features] ^= 1;
            cases.push((failing, Some(l)));
        }
        for (sample, left_out) in &cases {
            let lits = layout.literals_of(&layout.pack_features(sample));
            let mut keep = vec![u64::MAX; words];
            if let Some(l) = left_out {
                let (w, b) = layout.slot(*l);
                keep[w] &= !(1 << b);
            }
            bank.outputs_learning(&lits, None, &mut outputs);
            for (k, included) in includes.iter().enumerate() {
                let all = included.iter().all(|&l| value(sample, l));
                let all_kept = included
                    .iter()
                    .all(|&l| Some(l) == *left_out || value(sample, l));
                assert_eq!(outputs[k], all, "clause {k}, {} words", counts[k]);
                assert_eq!(bank.output_learning(k, &lits, None), all);
                assert_eq!(bank.output_learning(k, &lits, Some(&keep)), all_kept);
                assert_eq!(
                    bank.output_predicting(k, &lits),
                    all && !included.is_empty()
                );
            }
            if left_out.is_none() {
                assert!(outputs[includes.iter().position(|c| c == chosen).unwrap()]);
            }
        }
    }
    // Clauses that drop all but one of their includes: the bank equals one built afresh
    // from the same states (nothing of the longer index is left behind).
    for (j, chosen) in includes.iter().enumerate() {
        for &l in chosen.iter().skip(1) {
            bank.set_state(j, l, 100);
        }
        assert_eq!(bank.include_count(j) as usize, chosen.len().min(1));
    }
    let fresh = ClauseBank::from_raw(layout, 8, counts.len(), bank.raw_states().to_vec());
    assert!(
        fresh.as_ref() == Some(&bank),
        "the index depends on the states alone"
    );
}

/// A per-class machine with one `u32` counter per automaton and no bit tricks, consuming
/// the random streams exactly as the machine documents.
struct NaiveTm {
    params: Params,
    features: usize,
    /// states[class][clause][literal]
    states: Vec<Vec<Vec<u32>>>,
    weights: Vec<Vec<u32>>,
    main: Rng,
    /// One selection stream and one source of subsets per (class, block).
    streams: Vec<Vec<(Rng, SubsetSource)>>,
    sampler: SubsetSampler,
}

impl NaiveTm {
    fn new(params: Params, features: usize, classes: usize) -> NaiveTm {
        let blocks = params.clauses.div_ceil(CLAUSE_BLOCK);
        let start = (1u32 << (params.state_bits - 1)) - 1;
        let mut id = 0;
        NaiveTm {
            states: vec![vec![vec![start; 2 * features]; params.clauses]; classes],
            weights: vec![vec![1; params.clauses]; classes],
            main: substream(params.seed, 0),
            streams: (0..classes)
                .map(|_| {
                    (0..blocks)
                        .map(|_| {
                            id += 1;
                            let (rng, darts) = substream_pair(params.seed, id);
                            (rng, SubsetSource::new(darts))
                        })
                        .collect()
                })
                .collect(),
            sampler: SubsetSampler::new(LiteralLayout::new(features), 1.0 / params.specificity),
            params,
            features,
        }
    }

    fn output(&self, c: usize, j: usize, x: &[bool]) -> bool {
        naive_output(&self.states[c][j], self.params.state_bits, x)
    }

    fn fit_epoch(&mut self, data: &Dataset) {
        let n = data.len();
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, self.main.random_range(0..=i));
        }
        let classes = self.states.len();
        for i in order {
            let x: Vec<bool> = (0..self.features).map(|f| data.value(i, f)).collect();
            let y = data.labels()[i] as usize;
            let other = self.main.random_range(0..classes - 1);
            let neg = if other >= y { other + 1 } else { other };
            let outputs: Vec<Vec<bool>> = [y, neg]
                .iter()
                .map(|&c| {
                    (0..self.params.clauses)
                        .map(|j| self.output(c, j, &x))
                        .collect()
                })
                .collect();
            let t = self.params.threshold;
            let sums: Vec<i32> = [y, neg]
                .iter()
                .zip(&outputs)
                .map(|(&c, outs)| {
                    let s: i64 = outs
                        .iter()
                        .enumerate()
                        .filter(|(_, &o)| o)
                        .map(|(j, _)| if j % 2 == 0 { 1 } else { -1 } * self.weights[c][j] as i64)
                        .sum();
                    s.clamp(-t as i64, t as i64) as i32
                })
                .collect();
            for (k, &c) in [y, neg].iter().enumerate() {
                for j in 0..self.params.clauses {
                    self.clause_feedback(c, j, k == 0, sums[k], outputs[k][j], &x);
                }
            }
        }
    }

    fn clause_feedback(&mut self, c: usize, j: usize, target: bool, v: i32, out: bool, x: &[bool]) {
        let t = self.params.threshold;
        let (rng, darts) = &mut self.streams[c][j / CLAUSE_BLOCK];
        let positive = j.is_multiple_of(2);
        // Only a clause of Type I, or of Type II that output 1, draws its selection.
        if target != positive && !out {
            return;
        }
        // A sum at the threshold leaves no chance and one at minus the threshold makes the
        // selection certain: neither draws.
        let below = if target { t - v } else { t + v };
        if below <= 0 || (below < 2 * t && rng.random_range(0..2 * t) >= below) {
            return;
        }
        let state = &mut self.states[c][j];
        if target == positive {
            let ia = naive_type_i(state, &self.params, &self.sampler, darts, out, x);
            if ia && self.params.weighted {
                self.weights[c][j] += 1;
            }
        } else if out {
            naive_type_ii(state, &self.params, x);
            if self.params.weighted {
                self.weights[c][j] = (self.weights[c][j] - 1).max(1);
            }
        }
    }
}

/// The literal values of `x`: `x` then its negation.
fn naive_literal(x: &[bool], l: usize) -> bool {
    if l < x.len() {
        x[l]
    } else {
        !x[l - x.len()]
    }
}

/// The output of the clause of counters `state` while learning (an empty clause outputs 1).
fn naive_output(state: &[u32], bits: usize, x: &[bool]) -> bool {
    (0..state.len()).all(|l| state[l] < 1 << (bits - 1) || naive_literal(x, l))
}

/// Type I feedback on the clause of counters `state` (its output `out`), its 1/s subset
/// drawn over all literals from `darts`: Type Ia when it output 1 and is within the literal
/// budget (returns true), else Type Ib.
fn naive_type_i(
    state: &mut [u32],
    params: &Params,
    sampler: &SubsetSampler,
    darts: &mut SubsetSource,
    out: bool,
    x: &[bool],
) -> bool {
    let max = (1u32 << params.state_bits) - 1;
    let layout = LiteralLayout::new(x.len());
    let count = state.iter().filter(|&&s| s > max / 2).count() as u32;
    let ia = out && params.literal_budget.is_none_or(|b| count < b);
    let mut subset = Subset::new(layout);
    sampler.draw_from(darts, &mut subset);
    let drawn = subset.words();
    let in_drawn = |l: usize| {
        let (w, b) = layout.slot(l);
        (drawn[w] >> b) & 1 == 1
    };
    for (l, s) in state.iter_mut().enumerate() {
        if ia && naive_literal(x, l) {
            if params.boost_true_positive || !in_drawn(l) {
                *s = (*s + 1).min(max);
            }
        } else if in_drawn(l) {
            *s = s.saturating_sub(1);
        }
    }
    ia
}

/// Type II feedback on a clause that output 1: its excluded literals that are 0 move toward
/// include.
fn naive_type_ii(state: &mut [u32], params: &Params, x: &[bool]) {
    let max = (1u32 << params.state_bits) - 1;
    for (l, s) in state.iter_mut().enumerate() {
        if !naive_literal(x, l) && *s <= max / 2 {
            *s += 1;
        }
    }
}

/// A coalesced machine with one `u32` counter per automaton and no bit tricks, consuming the
/// random streams exactly as the machine documents, in either update order.
struct NaiveCoalesced {
    params: Params,
    /// states[clause][literal]
    states: Vec<Vec<u32>>,
    /// weights[clause][class]
    weights: Vec<Vec<i32>>,
    main: Rng,
    /// Per block of clauses: the selection stream, the weights' own stream and the subsets.
    streams: Vec<(WideRng, Rng, SubsetSource)>,
    sampler: SubsetSampler,
}

impl NaiveCoalesced {
    fn new(params: Params, features: usize, classes: usize) -> NaiveCoalesced {
        let start = (1u32 << (params.state_bits - 1)) - 1;
        let mut main = substream(params.seed, 0);
        let mut weights = Vec::new();
        let mut streams = Vec::new();
        for (b, first) in (0..params.clauses).step_by(CLAUSE_BLOCK).enumerate() {
            for _ in first..(first + CLAUSE_BLOCK).min(params.clauses) {
                let mut sign = || if main.random::<bool>() { 1 } else { -1 };
                weights.push(match params.coalesced_update {
                    CoalescedUpdate::Joint => (0..classes).map(|_| sign()).collect(),
                    CoalescedUpdate::Sequential => vec![sign(); classes],
                });
            }
            let (mut rng, darts) = substream_pair(params.seed, b as u64 + 1);
            let selection = WideRng::from_rng(&mut rng);
            streams.push((selection, rng, SubsetSource::new(darts)));
        }
        NaiveCoalesced {
            states: vec![vec![start; 2 * features]; params.clauses],
            weights,
            main,
            streams,
            sampler: SubsetSampler::new(LiteralLayout::new(features), 1.0 / params.specificity),
            params,
        }
    }

    fn fit_epoch(&mut self, data: &Dataset) {
        let n = data.len();
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, self.main.random_range(0..=i));
        }
        let classes = self.weights[0].len();
        let t = self.params.threshold as i64;
        let bits = self.params.state_bits;
        for i in order {
            let x: Vec<bool> = (0..data.features()).map(|f| data.value(i, f)).collect();
            let y = data.labels()[i] as usize;
            let outputs: Vec<bool> = self
                .states
                .iter()
                .map(|s| naive_output(s, bits, &x))
                .collect();
            let sums: Vec<i64> = (0..classes)
                .map(|c| {
                    let s: i64 = (0..self.params.clauses)
                        .filter(|&j| outputs[j])
                        .map(|j| self.weights[j][c] as i64)
                        .sum();
                    s.clamp(-t, t)
                })
                .collect();
            // Focused negative sampling: weight T + v of every class but the target.
            let chance = |c: usize| if c == y { 0 } else { t + sums[c] };
            let total: i64 = (0..classes).map(chance).sum();
            let negative = if total == 0 {
                let other = self.main.random_range(0..classes - 1);
                other + (other >= y) as usize
            } else {
                let mut r = self.main.random_range(0..total);
                (0..classes)
                    .find(|&c| {
                        let inside = r < chance(c);
                        r -= chance(c);
                        inside
                    })
                    .unwrap()
            };
            // A pair is selected when its 32-bit draw is below 2^32 times its probability
            // (T - v_y) / 2T or (T + v_k) / 2T, rounded down.
            let bound = |below: i64| ((below.clamp(0, 2 * t) as u128) << 32) / (2 * t) as u128;
            let updates = [
                (y, true, bound(t - sums[y])),
                (negative, false, bound(t + sums[negative])),
            ];
            for b in 0..self.streams.len() {
                self.block_feedback(b, &updates, &outputs, &x);
            }
        }
    }

    fn block_feedback(
        &mut self,
        b: usize,
        updates: &[(usize, bool, u128); 2],
        outputs: &[bool],
        x: &[bool],
    ) {
        let first = b * CLAUSE_BLOCK;
        let len = CLAUSE_BLOCK.min(self.params.clauses - first);
        let (selection, weight_draws, darts) = &mut self.streams[b];
        // Pair p's two draws: the low and high halves of lane p % 4 of step p / 4 of its
        // word of 32 pairs (a word's last step taken whole).
        let mut selected = vec![[false; 2]; len];
        for word in 0..len.div_ceil(32) {
            let in_word = (len - 32 * word).min(32);
            for step in 0..in_word.div_ceil(4) {
                for (lane, draw) in selection.next4().into_iter().enumerate() {
                    let p = 32 * word + 4 * step + lane;
                    if p < len {
                        selected[p] = [
                            ((draw & 0xFFFF_FFFF) as u128) < updates[0].2,
                            ((draw >> 32) as u128) < updates[1].2,
                        ];
                    }
                }
            }
        }
        let sequential = self.params.coalesced_update == CoalescedUpdate::Sequential;
        for p in 0..len {
            let j = first + p;
            for (u, &(class, target, _)) in updates.iter().enumerate() {
                if !selected[p][u] {
                    continue;
                }
                let out = if sequential {
                    naive_output(&self.states[j], self.params.state_bits, x)
                } else {
                    outputs[j]
                };
                let state = &mut self.states[j];
                if (self.weights[j][class] >= 0) == target {
                    naive_type_i(state, &self.params, &self.sampler, darts, out, x);
                } else if out {
                    naive_type_ii(state, &self.params, x);
                }
                if !sequential && outputs[j] {
                    self.weights[j][class] += if target { 1 } else { -1 };
                }
            }
            if sequential && outputs[j] {
                let draw = weight_draws.next_u64();
                for (u, half) in [draw & 0xFFFF_FFFF, draw >> 32].into_iter().enumerate() {
                    let (class, target, bound) = updates[u];
                    if (half as u128) < bound {
                        self.weights[j][class] += if target { 1 } else { -1 };
                    }
                }
            }
        }
    }
}

fn random_dataset(rng: &mut Rng, features: usize, classes: u32, n: usize) -> Dataset {
    let mut data = Dataset::new(features);
    for _ in 0..n {
        let x: Vec<u8> = (0..features)
            .map(|_| rng.next_u32().is_multiple_of(3) as u8)
            .collect();
        // Labels depend on the first bits so the machine actually learns something.
        let label =
            (x[0] as u32 + 2 * x[1] as u32 + rng.next_u32().is_multiple_of(5) as u32) % classes;
        data.push(&x, label);
    }
    data
}

fn assert_same_as_naive(tm: &MultiClassTm, naive: &NaiveTm, context: &str) {
    for (c, class) in naive.states.iter().enumerate() {
        for (j, clause) in class.iter().enumerate() {
            assert_eq!(
                tm.weight(c, j),
                naive.weights[c][j],
                "{context} weight {c} {j}"
            );
            for (l, &s) in clause.iter().enumerate() {
                assert_eq!(
                    tm.state(c, j, l),
                    s,
                    "{context}: class {c} clause {j} literal {l}"
                );
            }
        }
    }
}

#[test]
fn training_is_bit_exact_with_the_naive_reference() {
    let configs = [
        (8, true, false, None, 3.0, 67),
        (16, false, true, Some(4), 2.5, 130),
        (3, true, true, None, 10.0, 20),
    ];
    for (bits, boost, weighted, budget, s, features) in configs {
        let params = Params {
            clauses: 2 * CLAUSE_BLOCK + 10,
            threshold: 12,
            specificity: s,
            state_bits: bits,
            boost_true_positive: boost,
            weighted,
            literal_budget: budget,
            seed: 77 + bits as u64,
            ..Params::default()
        };
        let data = random_dataset(&mut seeded(bits as u64), features, 3, 120);
        let mut tm = MultiClassTm::new(params.clone(), features, 3).unwrap();
        let mut naive = NaiveTm::new(params, features, 3);
        for epoch in 0..2 {
            tm.fit_epoch(&data);
            naive.fit_epoch(&data);
            assert_same_as_naive(&tm, &naive, &format!("bits {bits} epoch {epoch}"));
        }
    }
}

#[test]
fn coalesced_training_is_bit_exact_with_the_naive_reference() {
    // Both update orders; two blocks and a partial one; thresholds small enough that class
    // sums reach the clamp (pairs never or always selected); a literal budget.
    let configs = [
        (8, true, None, 3.0, 67, 3, 12),
        (16, false, Some(4), 2.5, 130, 4, 5),
        (3, true, None, 10.0, 20, 2, 3),
    ];
    for update in [CoalescedUpdate::Joint, CoalescedUpdate::Sequential] {
        for (bits, boost, budget, s, features, classes, t) in configs {
            let params = Params {
                clauses: 2 * CLAUSE_BLOCK + 10,
                threshold: t,
                specificity: s,
                state_bits: bits,
                boost_true_positive: boost,
                literal_budget: budget,
                coalesced_update: update,
                seed: 91 + bits as u64,
                ..Params::default()
            };
            let data = random_dataset(&mut seeded(bits as u64), features, classes, 120);
            let mut tm = CoalescedTm::new(params.clone(), features, classes as usize).unwrap();
            let mut naive = NaiveCoalesced::new(params.clone(), features, classes as usize);
            for epoch in 0..3 {
                let context = format!("{update}, bits {bits}, epoch {epoch}");
                for (j, weights) in naive.weights.iter().enumerate() {
                    for (c, &w) in weights.iter().enumerate() {
                        assert_eq!(tm.weight(j, c), w, "{context}: weight {j} {c}");
                    }
                    for (l, &state) in naive.states[j].iter().enumerate() {
                        assert_eq!(tm.state(j, l), state, "{context}: clause {j} literal {l}");
                    }
                }
                tm.fit_epoch(&data);
                naive.fit_epoch(&data);
            }
            let moved = (0..params.clauses)
                .filter(|&j| tm.weight(j, 0).abs() > 1)
                .count();
            assert!(moved > 0, "{update}, bits {bits}: no weight moved");
        }
    }
}

/// A machine after two epochs of `fit` on `data`, trained in a pool of `threads` threads.
fn two_epochs<M: Send>(threads: usize, data: &Dataset, mut tm: M, fit: fn(&mut M, &Dataset)) -> M {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    pool.unwrap().install(|| {
        fit(&mut tm, data);
        fit(&mut tm, data);
        tm
    })
}

/// Three blocks of clauses, so that 2 and 3 threads share them out differently.
fn three_block_params(seed: u64) -> Params {
    Params {
        clauses: 3 * CLAUSE_BLOCK,
        threshold: 20,
        specificity: 4.0,
        seed,
        ..Params::default()
    }
}

#[test]
fn the_model_does_not_depend_on_the_thread_count() {
    let data = random_dataset(&mut seeded(4), 90, 2, 300);
    let params = three_block_params(5);
    let new = || MultiClassTm::new(params.clone(), 90, 2).unwrap();
    let one = two_epochs(1, &data, new(), MultiClassTm::fit_epoch);
    for threads in [2, 3] {
        let other = two_epochs(threads, &data, new(), MultiClassTm::fit_epoch);
        for c in 0..2 {
            for j in (0..params.clauses).step_by(7) {
                assert_eq!(one.clause_literals(c, j), other.clause_literals(c, j));
                for l in (0..180).step_by(11) {
                    assert_eq!(one.state(c, j, l), other.state(c, j, l), "{threads}");
                }
            }
        }
    }
}

#[test]
fn three_classes_give_the_same_model_on_two_three_and_four_threads() {
    // One thread goes class after class; on two, each thread trains a class alone and the
    // third class's blocks are shared sample by sample; three take a class each, and so do
    // four (no more workers than a class has blocks). Two classes on three threads (above)
    // share every class's blocks.
    let data = random_dataset(&mut seeded(10), 70, 3, 300);
    let params = three_block_params(11);
    let new = || MultiClassTm::new(params.clone(), 70, 3).unwrap();
    let one = two_epochs(1, &data, new(), MultiClassTm::fit_epoch);
    for threads in [2, 3, 4] {
        let other = two_epochs(threads, &data, new(), MultiClassTm::fit_epoch);
        for c in 0..3 {
            for j in (0..params.clauses).step_by(5) {
                assert_eq!(one.clause_literals(c, j), other.clause_literals(c, j));
                for l in (0..140).step_by(9) {
                    assert_eq!(one.state(c, j, l), other.state(c, j, l), "{threads}");
                }
            }
        }
    }
}

#[test]
fn the_coalesced_model_does_not_depend_on_the_thread_count() {
    let data = random_dataset(&mut seeded(6), 60, 3, 300);
    for coalesced_update in [CoalescedUpdate::Joint, CoalescedUpdate::Sequential] {
        let params = Params {
            coalesced_update,
            ..three_block_params(7)
        };
        let new = || CoalescedTm::new(params.clone(), 60, 3).unwrap();
        let one = two_epochs(1, &data, new(), CoalescedTm::fit_epoch);
        for threads in [2, 3] {
            let other = two_epochs(threads, &data, new(), CoalescedTm::fit_epoch);
            let context = format!("{coalesced_update}, {threads} threads");
            for j in 0..params.clauses {
                for c in 0..3 {
                    assert_eq!(one.weight(j, c), other.weight(j, c), "{context}");
                }
                for l in (0..120).step_by(7) {
                    assert_eq!(one.state(j, l), other.state(j, l), "{context}");
                }
            }
        }
    }
}

#[test]
fn compiled_inference_equals_the_banks() {
    let data = random_dataset(&mut seeded(8), 75, 3, 400);
    let params = Params {
        clauses: 60,
        threshold: 10,
        specificity: 3.0,
        weighted: true,
        seed: 2,
        ..Params::default()
    };
    let mut tm = MultiClassTm::new(params, 75, 3).unwrap();
    tm.fit_epoch(&data);
    tm.fit_epoch(&data);
    let mut compiled = tm.compile();
    let sums = compiled.class_sums(&data);
    compiled.order_literals_by(&data);
    assert_eq!(
        compiled.class_sums(&data),
        sums,
        "literal order does not matter"
    );
    for i in 0..data.len() {
        assert_eq!(
            &sums[i * 3..i * 3 + 3],
            tm.class_sums(data.row(i)).as_slice(),
            "sample {i}"
        );
    }
}

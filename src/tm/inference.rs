//! Fast inference from exported include masks: each non-empty clause as its included
//! literals and signed per-class weights, evaluated 256 samples at a time.
//!
//! A batch of 256 samples is transposed (64 x 64 bit blocks) so that four words hold one
//! literal of the batch; a clause is then the AND of its literals' words, stopping once
//! no sample is left. Votes are tallied in bit-sliced counters, one per (class, sign): a
//! clause adds its surviving-sample word at the planes of its weight's set bits (a short
//! ripple carry), so the cost per clause does not grow with the number of matching samples.
//! The counters are read back once per batch.

use crate::tm::data::Dataset;
use crate::tm::multiclass::argmax;
use rayon::prelude::*;

/// One clause for inference: included literals (`0..F` plain, `F..2F` negated) and its
/// signed weight for each class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledClause {
    /// Included literals.
    pub literals: Vec<usize>,
    /// Signed vote per class.
    pub weights: Vec<i32>,
}

/// A model reduced to what prediction needs.
#[derive(Clone, Debug)]
pub struct InferenceModel {
    features: usize,
    classes: usize,
    threshold: i32,
    clauses: Vec<CompiledClause>,
    plan: Plan,
}

/// The clauses flattened for evaluation.
#[derive(Clone, Debug, Default)]
struct Plan {
    /// Literals of every clause, back to back, each clause padded to a multiple of
    /// [`LITERAL_GROUP`] with the always-true column `2F`.
    literals: Vec<u32>,
    /// Clause i's literals are `literals[literal_start[i]..literal_start[i + 1]]`.
    literal_start: Vec<u32>,
    /// Vote terms of every clause: (counter, plane) = add the clause's word at `plane` of
    /// counter `counter` (counter 2c counts votes for class c, 2c + 1 votes against).
    terms: Vec<(u32, u32)>,
    /// Clause i's terms are `terms[term_start[i]..term_start[i + 1]]`.
    term_start: Vec<u32>,
    /// Bit planes per counter (enough for the largest possible tally).
    planes: usize,
}

impl Plan {
    fn new(features: usize, classes: usize, clauses: &[CompiledClause]) -> Plan {
        let mut plan = Plan {
            literal_start: vec![0],
            term_start: vec![0],
            ..Plan::default()
        };
        let mut totals = vec![0u64; 2 * classes];
        for clause in clauses {
            plan.literals
                .extend(clause.literals.iter().map(|&l| l as u32));
            let padding =
                clause.literals.len().next_multiple_of(LITERAL_GROUP) - clause.literals.len();
            plan.literals
                .extend(std::iter::repeat_n(2 * features as u32, padding));
            plan.literal_start.push(plan.literals.len() as u32);
            for (c, &w) in clause.weights.iter().enumerate() {
                let counter = 2 * c + (w < 0) as usize;
                let magnitude = w.unsigned_abs();
                totals[counter] += magnitude as u64;
                let mut bits = magnitude;
                while bits != 0 {
                    plan.terms.push((counter as u32, bits.trailing_zeros()));
                    bits &= bits - 1;
                }
            }
            plan.term_start.push(plan.terms.len() as u32);
        }
        let largest = totals.iter().copied().max().unwrap_or(0);
        plan.planes = (64 - largest.leading_zeros() as usize).max(1);
        plan
    }
}

/// Literals ANDed between two tests for an empty batch: independent loads pipeline better
/// than one test per literal.
const LITERAL_GROUP: usize = 4;

/// Words of samples per batch: a batch is `64 * WIDTH` samples, so that a clause's literal
/// list is walked once for that many samples.
const WIDTH: usize = 4;

/// Samples per batch.
const BATCH: usize = 64 * WIDTH;

/// One bit per sample of a batch.
type Lanes = [u64; WIDTH];

/// Per-thread working space of one batch.
struct Scratch {
    /// One lane set per literal, then an always-true one: bit s = the value in sample s.
    columns: Vec<Lanes>,
    /// 64 rows of one feature word, transposed in place.
    block: [u64; 64],
    /// `planes` lane sets per counter.
    counters: Vec<Lanes>,
    /// Tally of one counter per sample.
    tally: [i64; BATCH],
}

/// The lanes of the first `n` samples of a batch.
fn first_lanes(n: usize) -> Lanes {
    std::array::from_fn(|i| {
        let used = n.saturating_sub(64 * i).min(64);
        if used == 64 {
            u64::MAX
        } else {
            (1u64 << used) - 1
        }
    })
}

impl InferenceModel {
    /// A model of `clauses` over `features` features and `classes` classes, sums clamped to
    /// [-threshold, threshold].
    pub fn new(
        features: usize,
        classes: usize,
        threshold: i32,
        clauses: Vec<CompiledClause>,
    ) -> InferenceModel {
        InferenceModel {
            plan: Plan::new(features, classes, &clauses),
            features,
            classes,
            threshold,
            clauses,
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// Number of input features.
    pub fn features(&self) -> usize {
        self.features
    }

    /// The vote clamp T.
    pub fn threshold(&self) -> i32 {
        self.threshold
    }

    /// The non-empty clauses.
    pub fn clauses(&self) -> &[CompiledClause] {
        &self.clauses
    }

    /// Reorders each clause's literals so that the ones most often 0 in `data` come first:
    /// a batch of samples then drops out of a clause after fewer words. Results are
    /// unchanged (a clause is an AND).
    pub fn order_literals_by(&mut self, data: &Dataset) {
        assert_eq!(data.features(), self.features, "feature count");
        let f = self.features;
        let mut ones = vec![0u32; f];
        for i in 0..data.len() {
            for (w, &word) in data.row(i).iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    ones[w * 64 + bits.trailing_zeros() as usize] += 1;
                    bits &= bits - 1;
                }
            }
        }
        let n = data.len() as u32;
        let true_count = |l: usize| if l < f { ones[l] } else { n - ones[l - f] };
        for clause in &mut self.clauses {
            clause.literals.sort_by_key(|&l| (true_count(l), l));
        }
        self.plan = Plan::new(self.features, self.classes, &self.clauses);
    }

    /// Class sums of every sample of `data`, `classes` values per sample (sample-major).
    pub fn class_sums(&self, data: &Dataset) -> Vec<i32> {
        assert_eq!(data.features(), self.features, "feature count");
        let k = self.classes;
        let mut sums = vec![0i32; data.len() * k];
        sums.par_chunks_mut(BATCH * k).enumerate().for_each_init(
            || Scratch {
                columns: vec![[0; WIDTH]; 2 * self.features + 1],
                block: [0; 64],
                counters: vec![[0; WIDTH]; 2 * k * self.plan.planes],
                tally: [0; BATCH],
            },
            |scratch, (chunk, out)| {
                let start = chunk * BATCH;
                let n = out.len() / k;
                self.batch_sums(data, start, n, scratch, out);
            },
        );
        sums
    }

    /// Predicted class of every sample.
    pub fn predict(&self, data: &Dataset) -> Vec<usize> {
        self.class_sums(data)
            .chunks(self.classes)
            .map(argmax)
            .collect()
    }

    /// Fills `scratch.columns` with the literal columns of samples `start..start + n`.
    fn transpose_batch(&self, data: &Dataset, start: usize, n: usize, scratch: &mut Scratch) {
        let f = self.features;
        let (plain, rest) = scratch.columns.split_at_mut(f);
        let (negated, always) = rest.split_at_mut(f);
        for w in 0..data.layout().feature_words() {
            let first = w * 64;
            let count = (f - first).min(64);
            for part in 0..WIDTH {
                for (s, row) in scratch.block.iter_mut().enumerate() {
                    let sample = part * 64 + s;
                    *row = if sample < n {
                        data.row(start + sample)[w]
                    } else {
                        0
                    };
                }
                transpose64(&mut scratch.block);
                for (column, &bits) in plain[first..first + count].iter_mut().zip(&scratch.block) {
                    column[part] = bits;
                }
            }
        }
        let lanes = first_lanes(n);
        for (neg, pos) in negated.iter_mut().zip(plain.iter()) {
            *neg = std::array::from_fn(|i| !pos[i] & lanes[i]);
        }
        always[0] = lanes;
    }

    fn batch_sums(
        &self,
        data: &Dataset,
        start: usize,
        n: usize,
        scratch: &mut Scratch,
        out: &mut [i32],
    ) {
        self.transpose_batch(data, start, n, scratch);
        let plan = &self.plan;
        let planes = plan.planes;
        let lanes = first_lanes(n);
        let columns = &scratch.columns;
        let counters = &mut scratch.counters;
        counters.fill([0; WIDTH]);
        for i in 0..plan.literal_start.len() - 1 {
            let literals =
                &plan.literals[plan.literal_start[i] as usize..plan.literal_start[i + 1] as usize];
            let mut alive = lanes;
            for group in literals.chunks_exact(LITERAL_GROUP) {
                let group: &[u32; LITERAL_GROUP] = group.try_into().expect("exact chunk");
                for &l in group {
                    let column = &columns[l as usize];
                    for (lane, &bits) in alive.iter_mut().zip(column) {
                        *lane &= bits;
                    }
                }
                let any = alive.iter().fold(0, |a, &lane| a | lane);
                if any == 0 {
                    break;
                }
            }
            if alive.iter().all(|&lane| lane == 0) {
                continue;
            }
            for &(counter, plane) in
                &plan.terms[plan.term_start[i] as usize..plan.term_start[i + 1] as usize]
            {
                let base = counter as usize * planes;
                let mut carry = alive;
                // The planes hold the largest possible tally, so the carry always ends.
                for p in &mut counters[base + plane as usize..base + planes] {
                    let mut any = 0;
                    for (x, c) in carry.iter_mut().enumerate() {
                        let next = p[x] & *c;
                        p[x] ^= *c;
                        *c = next;
                        any |= next;
                    }
                    if any == 0 {
                        break;
                    }
                }
            }
        }
        let k = self.classes;
        let t = self.threshold as i64;
        for c in 0..k {
            scratch.tally = [0; BATCH];
            for (sign, counter) in [(1i64, 2 * c), (-1, 2 * c + 1)] {
                for (p, plane) in counters[counter * planes..(counter + 1) * planes]
                    .iter()
                    .enumerate()
                {
                    for (x, &word) in plane.iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            scratch.tally[64 * x + bits.trailing_zeros() as usize] += sign << p;
                            bits &= bits - 1;
                        }
                    }
                }
            }
            for s in 0..n {
                out[s * k + c] = scratch.tally[s].clamp(-t, t) as i32;
            }
        }
    }
}

/// Transposes a 64 x 64 bit matrix in place: afterwards bit s of `m[b]` is what bit b of
/// `m[s]` was (swapping ever smaller off-diagonal blocks).
fn transpose64(m: &mut [u64; 64]) {
    let mut width = 32;
    let mut low = 0x0000_0000_FFFF_FFFFu64;
    while width != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((m[k] >> width) ^ m[k + width]) & low;
            m[k] ^= t << width;
            m[k + width] ^= t;
            k = (k + width + 1) & !width;
        }
        width >>= 1;
        low ^= low << width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;
    use rand::RngCore;

    #[test]
    fn transpose_swaps_rows_and_columns() {
        let mut rng = seeded(3);
        let original: [u64; 64] = std::array::from_fn(|_| rng.next_u64() & rng.next_u64());
        let mut m = original;
        transpose64(&mut m);
        for (r, &row) in original.iter().enumerate() {
            for (c, &col) in m.iter().enumerate() {
                assert_eq!((row >> c) & 1, (col >> r) & 1, "row {r} column {c}");
            }
        }
    }

    #[test]
    fn weighted_votes_equal_a_direct_count() {
        // 70 features (two feature words), 3 classes, large mixed weights, 300 samples (a
        // full and a partial batch).
        let mut rng = seeded(8);
        let features = 70;
        let clauses: Vec<CompiledClause> = (0..50)
            .map(|_| CompiledClause {
                literals: (0..(rng.next_u32() % 3 + 1))
                    .map(|_| (rng.next_u32() as usize) % (2 * features))
                    .collect(),
                weights: (0..3)
                    .map(|_| (rng.next_u32() % 2001) as i32 - 1000)
                    .collect(),
            })
            .collect();
        let mut data = Dataset::new(features);
        for _ in 0..300 {
            let x: Vec<u8> = (0..features)
                .map(|_| !rng.next_u32().is_multiple_of(4) as u8)
                .collect();
            data.push(&x, 0);
        }
        let threshold = 30_000;
        let model = InferenceModel::new(features, 3, threshold, clauses.clone());
        let sums = model.class_sums(&data);
        for i in 0..data.len() {
            let value = |l: usize| {
                if l < features {
                    data.value(i, l)
                } else {
                    !data.value(i, l - features)
                }
            };
            for c in 0..3 {
                let direct: i64 = clauses
                    .iter()
                    .filter(|cl| cl.literals.iter().all(|&l| value(l)))
                    .map(|cl| cl.weights[c] as i64)
                    .sum();
                let clamped = direct.clamp(-(threshold as i64), threshold as i64) as i32;
                assert_eq!(sums[i * 3 + c], clamped, "sample {i} class {c}");
            }
        }
    }
}

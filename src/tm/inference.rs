//! Fast inference from exported include masks: each non-empty clause as its included
//! literals and signed per-class weights, evaluated 64 samples at a time.
//!
//! Samples are transposed so that one word holds one feature of 64 samples; a clause is then
//! the AND of its literals' words (stopping once no sample is left), and its weight is added
//! to the class sums of the samples whose bit survives.

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
    }

    /// Class sums of every sample of `data`, `classes` values per sample (sample-major).
    pub fn class_sums(&self, data: &Dataset) -> Vec<i32> {
        assert_eq!(data.features(), self.features, "feature count");
        let k = self.classes;
        let mut sums = vec![0i32; data.len() * k];
        sums.par_chunks_mut(64 * k)
            .enumerate()
            .for_each(|(chunk, out)| {
                let start = chunk * 64;
                let n = out.len() / k;
                self.chunk_sums(data, start, n, out);
            });
        sums
    }

    /// Predicted class of every sample.
    pub fn predict(&self, data: &Dataset) -> Vec<usize> {
        self.class_sums(data)
            .chunks(self.classes)
            .map(argmax)
            .collect()
    }

    fn chunk_sums(&self, data: &Dataset, start: usize, n: usize, out: &mut [i32]) {
        let f = self.features;
        let mut columns = vec![0u64; 2 * f];
        for s in 0..n {
            let row = data.row(start + s);
            for (w, &word) in row.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let b = bits.trailing_zeros() as usize;
                    columns[w * 64 + b] |= 1 << s;
                    bits &= bits - 1;
                }
            }
        }
        let lanes = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        let (plain, negated) = columns.split_at_mut(f);
        for (neg, &pos) in negated.iter_mut().zip(plain.iter()) {
            *neg = !pos & lanes;
        }
        let k = self.classes;
        for clause in &self.clauses {
            let mut alive = lanes;
            for &l in &clause.literals {
                alive &= columns[l];
                if alive == 0 {
                    break;
                }
            }
            while alive != 0 {
                let s = alive.trailing_zeros() as usize;
                for (o, &w) in out[s * k..(s + 1) * k].iter_mut().zip(&clause.weights) {
                    *o += w;
                }
                alive &= alive - 1;
            }
        }
        let t = self.threshold;
        for v in out.iter_mut() {
            *v = (*v).clamp(-t, t);
        }
    }
}

//! `arena logreg FOLD0.csv FOLD1.csv ...`: the reference line beside the Tsetlin Machine's
//! cross-validation: multinomial logistic regression (softmax over the classes, L2
//! penalty) trained by mini-batch gradient descent on the same fold files, read through the
//! same encoders (fold i is the test set, the others the training set). Deterministic for
//! a seed. Prints each fold's test accuracy and the mean.

use crate::train::{class_count, concat, read_each_with_copies, shuffled};
use std::path::{Path, PathBuf};
use tmbot::features::Encoder;
use tmbot::tm::Dataset;

/// Arguments of `arena logreg`.
#[derive(clap::Args)]
pub struct Args {
    /// One file per fold (at least 2).
    #[arg(required = true, num_args = 2..)]
    folds: Vec<PathBuf>,
    /// Feature encoder of the files (as `arena train`).
    #[arg(long, default_value = "csv")]
    encoder: String,
    /// Passes over the training data.
    #[arg(long, default_value_t = 300)]
    epochs: usize,
    /// Step size of gradient descent (on the batch's mean loss).
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// L2 penalty on the weights, per unit of mean loss (1/n is scikit-learn's C = 1).
    #[arg(long, default_value_t = 0.0)]
    l2: f64,
    /// Samples per gradient step.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Seed of the sample order.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// A softmax regression: one weight per (class, feature) and one bias per class.
pub struct LogReg {
    classes: usize,
    features: usize,
    /// Class-major: class c's weights are `weights[c * features .. (c + 1) * features]`.
    weights: Vec<f64>,
    bias: Vec<f64>,
}

impl LogReg {
    /// The class probabilities of sample `i` of `data`.
    fn probabilities(&self, data: &Dataset, i: usize, active: &mut Vec<usize>) -> Vec<f64> {
        active.clear();
        active.extend((0..self.features).filter(|&f| data.value(i, f)));
        let scores: Vec<f64> = (0..self.classes)
            .map(|c| {
                let w = &self.weights[c * self.features..];
                self.bias[c] + active.iter().map(|&f| w[f]).sum::<f64>()
            })
            .collect();
        let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let exp: Vec<f64> = scores.iter().map(|s| (s - top).exp()).collect();
        let total: f64 = exp.iter().sum();
        exp.into_iter().map(|e| e / total).collect()
    }

    /// Trains on `data` with `args`' schedule.
    pub fn fit(data: &Dataset, classes: usize, args: &Args) -> LogReg {
        let features = data.features();
        let mut model = LogReg {
            classes,
            features,
            weights: vec![0.0; classes * features],
            bias: vec![0.0; classes],
        };
        let mut active = Vec::new();
        let mut grad_w = vec![0.0; classes * features];
        let mut grad_b = vec![0.0; classes];
        for epoch in 0..args.epochs {
            let order = shuffled(data.len(), args.seed.wrapping_add(epoch as u64));
            for batch in order.chunks(args.batch.max(1)) {
                grad_w.iter_mut().for_each(|g| *g = 0.0);
                grad_b.iter_mut().for_each(|g| *g = 0.0);
                for &i in batch {
                    let p = model.probabilities(data, i, &mut active);
                    let label = data.labels()[i] as usize;
                    for (c, &pc) in p.iter().enumerate() {
                        let error = pc - f64::from(u8::from(c == label));
                        grad_b[c] += error;
                        for &f in &active {
                            grad_w[c * features + f] += error;
                        }
                    }
                }
                let step = args.rate / batch.len() as f64;
                for (w, g) in model.weights.iter_mut().zip(&grad_w) {
                    *w -= step * g + args.rate * args.l2 * *w;
                }
                for (b, g) in model.bias.iter_mut().zip(&grad_b) {
                    *b -= step * g;
                }
            }
        }
        model
    }

    /// The share of `data`'s samples whose most probable class is their label.
    pub fn accuracy(&self, data: &Dataset) -> f64 {
        let mut active = Vec::new();
        let right = (0..data.len())
            .filter(|&i| {
                let p = self.probabilities(data, i, &mut active);
                let best = (0..self.classes)
                    .max_by(|&a, &b| p[a].total_cmp(&p[b]).then(b.cmp(&a)))
                    .expect("at least one class");
                best == data.labels()[i] as usize
            })
            .count();
        right as f64 / data.len().max(1) as f64
    }
}

/// Runs `arena logreg`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let encoder = Encoder::parse(&args.encoder).map_err(anyhow::Error::msg)?;
    // Training reads the folds with the encoder's training copies, testing without them.
    let (sets, copies) = read_each_with_copies(&args.folds, encoder)?;
    let files: Vec<(&Path, &Dataset)> =
        args.folds.iter().map(PathBuf::as_path).zip(&sets).collect();
    let classes = class_count(&files, None)?;
    let mut accuracies = Vec::new();
    for (k, test) in sets.iter().enumerate() {
        let train: Vec<Dataset> = copies
            .as_ref()
            .unwrap_or(&sets)
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .map(|(_, d)| d.clone())
            .collect();
        let model = LogReg::fit(&concat(&train), classes, &args);
        let accuracy = model.accuracy(test);
        println!("fold {k}: {:.2}%", 100.0 * accuracy);
        accuracies.push(accuracy);
    }
    let mean = accuracies.iter().sum::<f64>() / accuracies.len() as f64;
    let (low, high) = accuracies
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &a| (l.min(a), h.max(a)));
    println!(
        "logistic regression, {} folds: mean {:.2}% ({:.2}-{:.2}%)",
        accuracies.len(),
        100.0 * mean,
        100.0 * low,
        100.0 * high
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(epochs: usize) -> Args {
        Args {
            folds: Vec::new(),
            encoder: "csv".into(),
            epochs,
            rate: 1.0,
            l2: 0.0,
            batch: 16,
            seed: 1,
        }
    }

    /// Samples of 6 random bits whose class is the number of the first two bits that are
    /// set (0, 1 or 2): a linear rule over the bits.
    fn data(n: usize, seed: u64) -> Dataset {
        use rand::Rng as _;
        let mut rng = tmbot::rng::seeded(seed);
        let mut data = Dataset::new(6);
        for _ in 0..n {
            let bits: Vec<u8> = (0..6).map(|_| u8::from(rng.random_bool(0.5))).collect();
            data.push(&bits, u32::from(bits[0] + bits[1]));
        }
        data
    }

    #[test]
    fn learns_a_linear_rule_and_repeats_itself() {
        let (train, test) = (data(400, 1), data(200, 2));
        let untrained = LogReg::fit(&train, 3, &args(0));
        assert!(untrained.accuracy(&test) < 0.6);
        let model = LogReg::fit(&train, 3, &args(50));
        assert_eq!(model.accuracy(&test), 1.0);
        let again = LogReg::fit(&train, 3, &args(50));
        assert_eq!(model.weights, again.weights);
    }
}

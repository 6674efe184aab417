//! `arena cv`: k-fold cross-validation of a Tsetlin Machine. Folds are given as files (fold
//! i is the test set, the others the training set, as seed 001's ten fold files) or computed
//! from one data file (stratified: each class is dealt round-robin over the folds after a
//! seeded shuffle). Reports the mean and per-fold accuracy, per-class precision, recall and
//! F1 and the confusion matrix summed over the folds.

use crate::train::{evaluate, fit, print_report, read_all, report_json, shuffled, ModelArgs};
use std::path::PathBuf;
use tmbot::tm::metrics::Confusion;
use tmbot::tm::Dataset;

/// Arguments of `arena cv`.
#[derive(clap::Args)]
pub struct Args {
    /// One file per fold (at least 2), or one data file to split with --k.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Number of stratified folds computed from a single data file.
    #[arg(long, default_value_t = 10)]
    k: usize,
    /// Run only the first N folds.
    #[arg(long)]
    only: Option<usize>,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    model_args: ModelArgs,
}

/// Stratified fold index of every sample: per class, a seeded shuffle dealt round-robin.
pub fn stratified_folds(data: &Dataset, k: usize, seed: u64) -> Vec<usize> {
    let mut fold = vec![0; data.len()];
    let mut next = 0;
    for class in 0..data.classes() as u32 {
        for i in shuffled(data.len(), seed) {
            if data.labels()[i] == class {
                fold[i] = next % k;
                next += 1;
            }
        }
    }
    fold
}

/// Runs `arena cv`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let encoder = args.model_args.encoder()?;
    let folds: Vec<Dataset> = if args.data.len() >= 2 {
        args.data
            .iter()
            .map(|p| read_all(std::slice::from_ref(p), encoder))
            .collect::<anyhow::Result<_>>()?
    } else {
        anyhow::ensure!(args.k >= 2, "--k must be at least 2, got {}", args.k);
        let data = read_all(&args.data, encoder)?;
        anyhow::ensure!(
            data.len() >= args.k,
            "{} samples cannot make {} folds",
            data.len(),
            args.k
        );
        let assignment = stratified_folds(&data, args.k, args.model_args.seed);
        (0..args.k)
            .map(|f| {
                let idx: Vec<usize> = (0..data.len()).filter(|&i| assignment[i] == f).collect();
                data.subset(&idx)
            })
            .collect()
    };
    for (i, f) in folds.iter().enumerate().skip(1) {
        anyhow::ensure!(
            f.features() == folds[0].features(),
            "fold {i} has {} features, fold 0 has {}",
            f.features(),
            folds[0].features()
        );
    }
    let classes = folds.iter().map(|f| f.classes()).max().unwrap_or(0).max(2);
    let runs = args.only.unwrap_or(folds.len()).min(folds.len());
    let mut total = Confusion::new(classes);
    let mut accuracies = Vec::new();
    let mut epochs = Vec::new();
    for test_fold in 0..runs {
        let mut train = Dataset::with_names(folds[0].feature_names.clone());
        for (i, f) in folds.iter().enumerate() {
            if i != test_fold {
                train.extend(f);
            }
        }
        let label = format!("fold {test_fold}: ");
        let trained = fit(&args.model_args, encoder, &train, classes, &label)?;
        let confusion = evaluate(&trained.machine, &folds[test_fold], classes);
        eprintln!(
            "fold {test_fold}: test accuracy {:.2}%",
            100.0 * confusion.accuracy()
        );
        accuracies.push(confusion.accuracy());
        epochs.push(trained.epoch_seconds.len());
        total.add(&confusion);
    }
    let mean = accuracies.iter().sum::<f64>() / accuracies.len().max(1) as f64;
    if args.json {
        let out = serde_json::json!({
            "folds": runs,
            "mean_accuracy": mean,
            "fold_accuracy": accuracies,
            "fold_epochs": epochs,
            "pooled": report_json(&total),
        });
        println!("{out}");
    } else {
        println!("mean accuracy over {runs} folds: {:.2}%", 100.0 * mean);
        let per_fold: Vec<String> = accuracies
            .iter()
            .map(|a| format!("{:.2}", 100.0 * a))
            .collect();
        println!("per fold: {}", per_fold.join(" "));
        println!("pooled over the folds:");
        print_report(&total);
    }
    Ok(())
}

//! `arena train`: trains a Tsetlin Machine on a dataset (a CSV of 0/1 features with the label
//! last, or a dataset read through a named feature encoder) and saves the model.
//!
//! The number of epochs is fixed (`--epochs`) or adaptive (`--adaptive`, seed 001's version
//! 2 rule on a validation split held out of the training data, never the test set).
//! Progress goes to stderr; `--json` prints a machine-readable summary on stdout.

use anyhow::Context;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tmbot::features::{checkers_planes, read_dataset, Encoder};
use tmbot::rng;
use tmbot::tm::adaptive::AdaptiveEpochs;
use tmbot::tm::metrics::Confusion;
use tmbot::tm::persist::{Machine, SavedModel};
use tmbot::tm::{CoalescedTm, ConvTm, Dataset, MultiClassTm, Params};

/// The machine `arena train` and `arena cv` build.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// One clause bank per class over the whole input.
    PerClass,
    /// Seed 001's convolutional machine over `--window` square patches of the board.
    Conv,
    /// One pool of `--clauses` clauses shared by all classes, with signed per-class weights.
    Coalesced,
}

/// Hyper-parameters and schedule shared by `arena train` and `arena cv`.
#[derive(clap::Args, Clone, Debug)]
pub struct ModelArgs {
    /// Feature encoder of the data files: csv, hex-connection, checkers-planes.
    #[arg(long, default_value = "csv")]
    pub encoder: String,
    /// The machine.
    #[arg(long = "model", value_enum, default_value_t = ModelKind::PerClass)]
    pub kind: ModelKind,
    /// Side of the square patch window of `--model conv`.
    #[arg(long, default_value_t = 2)]
    pub window: usize,
    /// Clauses per class (per-class, conv) or in the shared pool (coalesced).
    #[arg(long, default_value_t = 2000)]
    pub clauses: usize,
    /// Vote clamp T.
    #[arg(long = "T", default_value_t = 100)]
    pub threshold: i32,
    /// Specificity s.
    #[arg(long, default_value_t = 10.0)]
    pub s: f64,
    /// Bits per automaton state (1..=16).
    #[arg(long, default_value_t = 8)]
    pub state_bits: usize,
    /// Integer clause weights (the coalesced machine always has them).
    #[arg(long)]
    pub weighted: bool,
    /// Turn off boost_true_positive_feedback.
    #[arg(long)]
    pub no_boost: bool,
    /// Most literals a clause may include.
    #[arg(long)]
    pub literal_budget: Option<u32>,
    /// Probability that a clause sits out an epoch.
    #[arg(long, default_value_t = 0.0)]
    pub clause_drop: f64,
    /// Probability that a literal is ignored for an epoch.
    #[arg(long, default_value_t = 0.0)]
    pub literal_drop: f64,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fixed number of epochs (ignored with --adaptive).
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// Seed 001's adaptive epochs on a validation split of the training data.
    #[arg(long)]
    pub adaptive: bool,
    /// Fraction of the training data held out for --adaptive.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Epoch cap for --adaptive.
    #[arg(long, default_value_t = 500)]
    pub max_epochs: usize,
}

impl ModelArgs {
    /// The encoder named by `--encoder`.
    pub fn encoder(&self) -> anyhow::Result<Encoder> {
        Encoder::parse(&self.encoder).map_err(anyhow::Error::msg)
    }

    /// The machine's hyper-parameters.
    pub fn params(&self) -> Params {
        Params {
            clauses: self.clauses,
            threshold: self.threshold,
            specificity: self.s,
            state_bits: self.state_bits,
            boost_true_positive: !self.no_boost,
            weighted: self.weighted,
            literal_budget: self.literal_budget,
            clause_drop: self.clause_drop,
            literal_drop: self.literal_drop,
            seed: self.seed,
        }
    }

    /// A fresh machine of the chosen kind for data of `features` features read through
    /// `encoder`.
    pub fn machine(
        &self,
        encoder: Encoder,
        features: usize,
        classes: usize,
    ) -> anyhow::Result<Machine> {
        let machine = match self.kind {
            ModelKind::PerClass => {
                MultiClassTm::new(self.params(), features, classes).map(Machine::PerClass)
            }
            ModelKind::Conv => {
                anyhow::ensure!(
                    encoder == Encoder::CheckersPlanes,
                    "--model conv needs a board encoder (checkers-planes), got {}",
                    encoder.name()
                );
                let grid = checkers_planes::patch_grid(self.window)
                    .map_err(|e| anyhow::anyhow!("--window: {e}"))?;
                ConvTm::new(self.params(), grid, classes).map(Machine::Conv)
            }
            ModelKind::Coalesced => {
                anyhow::ensure!(
                    self.clause_drop == 0.0 && self.literal_drop == 0.0,
                    "--model coalesced has no clause or literal drop"
                );
                CoalescedTm::new(self.params(), features, classes).map(Machine::Coalesced)
            }
        };
        machine.map_err(anyhow::Error::msg)
    }
}

/// What a training run did.
pub struct Trained {
    /// The machine.
    pub machine: Machine,
    /// Seconds per epoch.
    pub epoch_seconds: Vec<f64>,
    /// Validation accuracy per epoch (adaptive runs only).
    pub validation: Vec<f64>,
}

/// Reads and concatenates data files through `encoder`.
pub fn read_all(paths: &[PathBuf], encoder: Encoder) -> anyhow::Result<Dataset> {
    let mut iter = paths.iter();
    let first = iter.next().context("no data file given")?;
    let mut data = read_dataset(first, encoder)?;
    for path in iter {
        let more = read_dataset(path, encoder)?;
        anyhow::ensure!(
            more.features() == data.features(),
            "{}: {} features, but {} has {}",
            path.display(),
            more.features(),
            first.display(),
            data.features()
        );
        data.extend(&more);
    }
    Ok(data)
}

/// Accuracy of `tm` on `data`.
pub fn evaluate(tm: &Machine, data: &Dataset, classes: usize) -> Confusion {
    Confusion::of(classes, data.labels(), &tm.predict_all(data))
}

/// Trains on `data` (read through `encoder`) with `args`' schedule, reporting progress on
/// stderr under `label`.
pub fn fit(
    args: &ModelArgs,
    encoder: Encoder,
    data: &Dataset,
    classes: usize,
    label: &str,
) -> anyhow::Result<Trained> {
    anyhow::ensure!(!data.is_empty(), "{label}: no training samples");
    let (train, validation) = if args.adaptive {
        anyhow::ensure!(
            args.validation > 0.0 && args.validation < 1.0,
            "--validation must be between 0 and 1, got {}",
            args.validation
        );
        let order = shuffled(data.len(), args.seed);
        let held =
            ((data.len() as f64 * args.validation).round() as usize).clamp(1, data.len() - 1);
        (
            data.subset(&order[held..]),
            Some(data.subset(&order[..held])),
        )
    } else {
        (data.clone(), None)
    };
    let mut machine = args.machine(encoder, data.features(), classes)?;
    let mut rule = AdaptiveEpochs::new(args.max_epochs);
    let mut epoch_seconds = Vec::new();
    loop {
        let done = match &validation {
            Some(_) => !rule.should_continue(),
            None => epoch_seconds.len() >= args.epochs,
        };
        if done {
            break;
        }
        let start = Instant::now();
        machine.fit_epoch(&train);
        epoch_seconds.push(start.elapsed().as_secs_f64());
        let epoch = epoch_seconds.len();
        match &validation {
            Some(v) => {
                let acc = evaluate(&machine, v, classes).accuracy();
                rule.record(acc);
                eprintln!(
                    "{label}epoch {epoch}: {:.2} s, validation accuracy {:.2}%",
                    epoch_seconds[epoch - 1],
                    100.0 * acc
                );
            }
            None => eprintln!("{label}epoch {epoch}: {:.2} s", epoch_seconds[epoch - 1]),
        }
    }
    Ok(Trained {
        machine,
        epoch_seconds,
        validation: rule.history().to_vec(),
    })
}

/// A shuffle of `0..n` from `seed` (its own stream, apart from the machine's).
pub fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    use rand::Rng as _;
    let mut rng = rng::substream(seed, u64::MAX);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    order
}

/// Prints accuracy, per-class precision/recall/F1 and the confusion matrix.
pub fn print_report(confusion: &Confusion) {
    println!("accuracy {:.2}%", 100.0 * confusion.accuracy());
    println!("class  precision  recall     F1");
    for c in 0..confusion.counts.len() {
        let s = confusion.scores(c);
        println!(
            "{c:>5}  {:>8.2}%  {:>6.2}%  {:>6.2}%",
            100.0 * s.precision,
            100.0 * s.recall,
            100.0 * s.f1
        );
    }
    println!("confusion matrix (rows actual, columns predicted):");
    for row in &confusion.counts {
        let cells: Vec<String> = row.iter().map(|v| format!("{v:>7}")).collect();
        println!("{}", cells.join(""));
    }
}

/// The report as JSON.
pub fn report_json(confusion: &Confusion) -> serde_json::Value {
    let classes: Vec<serde_json::Value> = (0..confusion.counts.len())
        .map(|c| {
            let s = confusion.scores(c);
            serde_json::json!({"class": c, "precision": s.precision, "recall": s.recall, "f1": s.f1})
        })
        .collect();
    serde_json::json!({
        "accuracy": confusion.accuracy(),
        "classes": classes,
        "confusion": confusion.counts,
    })
}

/// Arguments of `arena train`.
#[derive(clap::Args)]
pub struct Args {
    /// Training data files (concatenated).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Test file, evaluated once after training.
    #[arg(long)]
    test: Option<PathBuf>,
    /// Where to save the model.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    model_args: ModelArgs,
}

/// Runs `arena train`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let encoder = args.model_args.encoder()?;
    let data = read_all(&args.data, encoder)?;
    let test = args
        .test
        .as_deref()
        .map(|p: &Path| read_dataset(p, encoder))
        .transpose()?;
    if let Some(t) = &test {
        anyhow::ensure!(
            t.features() == data.features(),
            "test file has {} features, training data {}",
            t.features(),
            data.features()
        );
    }
    let classes = data
        .classes()
        .max(test.as_ref().map_or(0, |t| t.classes()))
        .max(2);
    eprintln!(
        "training on {} samples, {} features, {classes} classes",
        data.len(),
        data.features()
    );
    let trained = fit(&args.model_args, encoder, &data, classes, "")?;
    let confusion = test
        .as_ref()
        .map(|t| evaluate(&trained.machine, t, classes));
    if let Some(path) = &args.out {
        let saved = SavedModel {
            encoder: encoder.name().to_string(),
            feature_names: data.feature_names.clone(),
            machine: trained.machine,
        };
        saved.save(path)?;
        eprintln!("saved {}", path.display());
    }
    if args.json {
        let out = serde_json::json!({
            "epochs": trained.epoch_seconds.len(),
            "epoch_seconds": trained.epoch_seconds,
            "validation_accuracy": trained.validation,
            "test": confusion.as_ref().map(report_json),
        });
        println!("{out}");
    } else if let Some(c) = &confusion {
        print_report(c);
    }
    Ok(())
}

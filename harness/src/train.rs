//! `arena train`: trains a Tsetlin Machine on a dataset (a CSV of 0/1 features with the label
//! last, or a dataset read through a named feature encoder) and saves the model.
//!
//! The number of epochs is fixed (`--epochs`) or adaptive (`--adaptive`, seed 001's version
//! 2 rule on a validation split held out of the training data, or on the test set with
//! `--adaptive-on test` as the thesis did, a choice made on the test set).
//! Progress goes to stderr; `--json` prints a machine-readable summary on stdout.

use crate::thread_share::{EpochPools, ThreadShare};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tmbot::features::encoder::Kind;
use tmbot::features::{checkers_planes, read_dataset, Encoder};
use tmbot::rng;
use tmbot::stop::StopFlag;
use tmbot::tm::adaptive::AdaptiveEpochs;
use tmbot::tm::device::{Device, Trainer};
use tmbot::tm::metrics::Confusion;
use tmbot::tm::persist::{Machine, SavedModel};
use tmbot::tm::{CoalescedTm, CoalescedUpdate, ConvTm, Dataset, MultiClassTm, Params};

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

/// The accuracy that `--adaptive`'s rule reads after every epoch.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdaptiveOn {
    /// A `--validation` part held out of the training data (a fair estimate).
    Validation,
    /// The test set, as seed 001's thesis did: all the training data trains, and the
    /// stopping point is chosen on the test set (which then flatters the machine).
    Test,
}

/// Hyper-parameters and schedule shared by `arena train` and `arena cv`.
#[derive(clap::Args, Clone, Debug)]
pub struct ModelArgs {
    /// Feature encoder of the data files, NAME[:OPTION=VALUE,...]: csv, hex-connection,
    /// hex-compact, checkers-planes, checkers-meta (`arena encoders` lists their options).
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
    /// How the coalesced machine applies a sample's two updates: `sequential` (the target
    /// class's first, then the negative class's on the clauses as the first left them; the
    /// default) or `joint` (both read the sample's one evaluation).
    #[arg(long)]
    pub coalesced_update: Option<CoalescedUpdate>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Fixed number of epochs (ignored with --adaptive).
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// Seed 001's adaptive epochs on a validation split of the training data.
    #[arg(long)]
    pub adaptive: bool,
    /// What --adaptive's rule reads: `validation` or, as the thesis did, `test` (the test
    /// set or fold; the whole training data trains).
    #[arg(long, value_enum, default_value_t = AdaptiveOn::Validation, requires = "adaptive")]
    pub adaptive_on: AdaptiveOn,
    /// Fraction of the training data held out for --adaptive.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Epoch cap for --adaptive.
    #[arg(long, default_value_t = 500)]
    pub max_epochs: usize,
    /// With --adaptive, keep the machine of the epoch the rule saw at its best (the first of
    /// equals) instead of the last one.
    #[arg(long, requires = "adaptive")]
    pub keep_best: bool,
    /// Number of classes K (labels 0..K-1); by default the number of distinct labels.
    #[arg(long)]
    pub classes: Option<usize>,
    /// Where the epochs run: cpu, cuda (the first GPU; per-class machines, in a build with
    /// the `cuda` feature), or cuda-reference (the GPU's epochs computed on one CPU thread:
    /// the model `cuda` gives, exactly, without a GPU).
    #[arg(long, default_value_t = Device::Cpu)]
    pub device: Device,
}

impl ModelArgs {
    /// Whether the adaptive rule reads the test set (`--adaptive --adaptive-on test`).
    pub fn rule_reads_test(&self) -> bool {
        self.adaptive && self.adaptive_on == AdaptiveOn::Test
    }

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
            coalesced_update: self.coalesced_update.unwrap_or_default(),
            seed: self.seed,
        }
    }

    /// Checks that the options suit the chosen machine and `encoder` (before any data is
    /// read, so that a wrong combination fails at once).
    pub fn check(&self, encoder: &Encoder) -> anyhow::Result<()> {
        if let Some(update) = self.coalesced_update {
            anyhow::ensure!(
                self.kind == ModelKind::Coalesced,
                "--coalesced-update {update} needs --model coalesced"
            );
        }
        match self.kind {
            ModelKind::PerClass => {}
            ModelKind::Conv => {
                anyhow::ensure!(
                    encoder.kind == Kind::CheckersPlanes && !encoder.meta && !encoder.balance,
                    "--model conv needs a board encoder (checkers-planes, without meta or \
                     balance), got {}",
                    encoder.name()
                );
                checkers_planes::patch_grid(self.window)
                    .map_err(|e| anyhow::anyhow!("--window: {e}"))?;
            }
            ModelKind::Coalesced => anyhow::ensure!(
                self.clause_drop == 0.0 && self.literal_drop == 0.0,
                "--model coalesced has no clause or literal drop"
            ),
        }
        Ok(())
    }

    /// A fresh machine of the chosen kind for data of `features` features read through
    /// `encoder`.
    pub fn machine(
        &self,
        encoder: Encoder,
        features: usize,
        classes: usize,
    ) -> anyhow::Result<Machine> {
        self.check(&encoder)?;
        let machine = match self.kind {
            ModelKind::PerClass => {
                MultiClassTm::new(self.params(), features, classes).map(Machine::PerClass)
            }
            ModelKind::Conv => {
                let grid = checkers_planes::patch_grid(self.window)
                    .map_err(|e| anyhow::anyhow!("--window: {e}"))?;
                ConvTm::new(self.params(), grid, classes).map(Machine::Conv)
            }
            ModelKind::Coalesced => {
                CoalescedTm::new(self.params(), features, classes).map(Machine::Coalesced)
            }
        };
        machine.map_err(anyhow::Error::msg)
    }
}

/// What a training run did.
pub struct Trained {
    /// The machine kept: the last epoch's, or with `--keep-best` that of the rule's best epoch.
    pub machine: Machine,
    /// The 1-based epoch whose machine was kept (0 when no epoch ran).
    pub kept_epoch: usize,
    /// The last epoch's machine when `--keep-best` kept an earlier one.
    pub last: Option<Machine>,
    /// Seconds per epoch.
    pub epoch_seconds: Vec<f64>,
    /// The accuracy the adaptive rule read after each epoch (adaptive runs only): on the
    /// validation part, or with `--adaptive-on test` on the test set (as `watched`).
    pub validation: Vec<f64>,
    /// Accuracy on the watched set after each epoch (when one was given).
    pub watched: Vec<f64>,
    /// True when the stop flag ended training before the schedule did.
    pub interrupted: bool,
}

/// Reads each data file through `encoder`; all must have the same features.
pub fn read_each(paths: &[PathBuf], encoder: Encoder) -> anyhow::Result<Vec<Dataset>> {
    let mut sets: Vec<Dataset> = Vec::with_capacity(paths.len());
    for path in paths {
        let data = read_dataset(path, &encoder)?;
        if let Some(first) = sets.first() {
            anyhow::ensure!(
                data.features() == first.features(),
                "{}: {} features, but {} has {}",
                path.display(),
                data.features(),
                paths[0].display(),
                first.features()
            );
        }
        sets.push(data);
    }
    anyhow::ensure!(!sets.is_empty(), "no data file given");
    Ok(sets)
}

/// [`read_each`] for training and testing: each file's rows as they are, and, when the
/// encoder makes training copies ([`Encoder::copies`]), each file's rows with their copies.
/// A file is read once: every row's copies follow it, so the rows as they are are every
/// `copies`-th row of the copied set.
pub fn read_each_with_copies(
    paths: &[PathBuf],
    encoder: Encoder,
) -> anyhow::Result<(Vec<Dataset>, Option<Vec<Dataset>>)> {
    let copies = encoder.copies();
    if copies == 1 {
        return Ok((read_each(paths, encoder)?, None));
    }
    let with_copies = read_each(paths, encoder)?;
    let plain = with_copies
        .iter()
        .map(|set| set.subset(&(0..set.len()).step_by(copies).collect::<Vec<_>>()))
        .collect();
    Ok((plain, Some(with_copies)))
}

/// The samples of `sets` one after the other.
pub fn concat(sets: &[Dataset]) -> Dataset {
    let mut all = Dataset::with_names(sets[0].feature_names.clone());
    for set in sets {
        all.extend(set);
    }
    all
}

/// The 1-based line of data file `path` that holds sample `index` (blank lines and a header
/// line skipped, as the readers do).
fn sample_line(path: &Path, index: usize) -> Option<usize> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut rows = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .peekable();
    let header = rows.peek().is_some_and(|(_, first)| {
        let head = first.split(',').next().unwrap_or("").trim();
        head.parse::<i64>().is_err()
    });
    rows.nth(index + usize::from(header)).map(|(i, _)| i + 1)
}

/// The number of classes of data read from `files` (one dataset each): `declared` (from
/// `--classes`), else the number of distinct labels (at least 2). A label that is not below
/// it (a typo such as a 7 among classes 0..2) is an error naming its file and line.
pub fn class_count(files: &[(&Path, &Dataset)], declared: Option<usize>) -> anyhow::Result<usize> {
    let seen: std::collections::BTreeSet<u32> = files
        .iter()
        .flat_map(|(_, data)| data.labels().iter().copied())
        .collect();
    let classes = match declared {
        Some(k) => {
            anyhow::ensure!(k >= 2, "--classes must be at least 2, got {k}");
            k
        }
        None => seen.len().max(2),
    };
    for (path, data) in files {
        let Some(index) = data.labels().iter().position(|&y| y as usize >= classes) else {
            continue;
        };
        let label = data.labels()[index];
        let place = sample_line(path, index)
            .map_or(format!("sample {}", index + 1), |n| format!("line {n}"));
        let why = match declared {
            Some(k) => format!("--classes {k} declares classes 0..{}", k - 1),
            None => {
                let labels: Vec<String> = seen.iter().map(u32::to_string).collect();
                format!(
                    "the data's labels are {}: classes must be numbered 0..K-1 (declare K with --classes)",
                    labels.join(", ")
                )
            }
        };
        anyhow::bail!(
            "{}: {place}: label {label} is outside the classes 0..{}; {why}",
            path.display(),
            classes - 1
        );
    }
    Ok(classes)
}

/// Accuracy of `tm` on `data`.
pub fn evaluate(tm: &Machine, data: &Dataset, classes: usize) -> Confusion {
    Confusion::of(classes, data.labels(), &tm.predict_all(data))
}

/// The progress of a training run (`arena train`) or of a cross-validation (`arena cv`): a
/// bar on standard error over every epoch of every fold, with the fold, the epoch, the
/// accuracy and the adaptive rule's state, and an ETA (for `--adaptive`, up to the epoch
/// cap). Under `--json`, or when standard error is not a terminal, there is no bar and each
/// epoch is one line instead (none under `--json`).
pub struct Progress {
    bar: ProgressBar,
    lines: bool,
    /// The adaptive rule reads the test accuracy, which the line shows already.
    rule_on_test: bool,
    epochs_per_fold: u64,
    /// Epochs done in each fold (folds may train at the same time).
    done: std::sync::Mutex<Vec<u64>>,
}

impl Progress {
    /// Progress over `folds` runs of `args`' schedule.
    pub fn new(args: &ModelArgs, folds: usize, json: bool) -> Progress {
        let epochs_per_fold = if args.adaptive {
            args.max_epochs
        } else {
            args.epochs
        } as u64;
        let terminal = std::io::stderr().is_terminal();
        let bar = if json || !terminal {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::new(epochs_per_fold * folds as u64);
            bar.set_style(
                ProgressStyle::with_template("{prefix} {bar:25} {elapsed} ETA {eta}  {msg}")
                    .expect("the template is valid"),
            );
            bar
        };
        Progress {
            bar,
            lines: !json && !terminal,
            rule_on_test: args.rule_reads_test(),
            epochs_per_fold,
            done: std::sync::Mutex::new(vec![0; folds]),
        }
    }

    /// Reports epoch `epoch` (1-based) of fold `fold` (0-based, `label` names it) with its
    /// seconds and, for adaptive runs, the rule's state.
    fn epoch(
        &self,
        fold: usize,
        label: &str,
        epoch: usize,
        seconds: f64,
        rule: Option<&AdaptiveEpochs>,
        test: Option<f64>,
    ) {
        let mut state = format!("epoch {epoch}: {seconds:.2} s");
        if let Some(accuracy) = test {
            state += &format!(", test accuracy {:.2}%", 100.0 * accuracy);
        }
        if let Some(rule) = rule {
            if let Some(&accuracy) = rule.history().last().filter(|_| !self.rule_on_test) {
                state += &format!(", validation accuracy {:.2}%", 100.0 * accuracy);
            }
            if let Some((best, accuracy)) = rule.best() {
                state += &format!(", best epoch {best} ({:.2}%)", 100.0 * accuracy);
            }
            state += &match rule.margin() {
                Some(m) => format!(
                    ", recent-minus-older mean {:+.2} points (stops below 0)",
                    100.0 * m
                ),
                None => ", stopping rule waits for 10 epochs".to_string(),
            };
        }
        if self.lines {
            eprintln!("{label}{state}");
        }
        self.bar
            .set_prefix(label.trim_end_matches([':', ' ']).to_string());
        self.bar.set_message(state);
        self.set_done(fold, epoch as u64);
    }

    /// Marks fold `fold` (0-based) done, however many epochs it took.
    pub fn fold_done(&self, fold: usize) {
        self.set_done(fold, self.epochs_per_fold);
    }

    fn set_done(&self, fold: usize, epochs: u64) {
        let mut done = self.done.lock().expect("progress");
        if let Some(d) = done.get_mut(fold) {
            *d = epochs.min(self.epochs_per_fold);
        }
        self.bar.set_position(done.iter().sum());
    }

    /// Prints a line above the bar (or plainly when there is none, unless under `--json`).
    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            if self.lines {
                eprintln!("{line}");
            }
        } else {
            self.bar.println(line);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Trains on `data` (read through `encoder`) with `args`' schedule as fold `fold` (0-based;
/// 0 for `arena train`), reporting progress under `label`. Stops early, with `interrupted`
/// set, when `stop` is raised (checked between epochs).
pub fn fit(
    args: &ModelArgs,
    encoder: Encoder,
    data: &Dataset,
    classes: usize,
    (fold, label): (usize, &str),
    Watch {
        progress,
        stop,
        test: watch,
        threads,
    }: Watch,
) -> anyhow::Result<Trained> {
    anyhow::ensure!(!data.is_empty(), "{label}no training samples");
    let on_test = args.rule_reads_test();
    anyhow::ensure!(
        !on_test || watch.is_some(),
        "{label}--adaptive-on test needs a test set"
    );
    let (train, validation) = if args.adaptive && !on_test {
        anyhow::ensure!(
            args.validation > 0.0 && args.validation < 1.0,
            "--validation must be between 0 and 1, got {}",
            args.validation
        );
        // The file's rows are split, each with its training copies (which follow it): the
        // validation part holds the rows themselves, the training part every copy of the
        // others.
        let copies = encoder.copies();
        let rows = data.len() / copies;
        anyhow::ensure!(
            rows >= 2,
            "{label}too few samples to hold out a validation part"
        );
        let order = shuffled(rows, args.seed);
        let held = ((rows as f64 * args.validation).round() as usize).clamp(1, rows - 1);
        let every_copy = |rows: &[usize]| -> Vec<usize> {
            rows.iter()
                .flat_map(|&row| row * copies..(row + 1) * copies)
                .collect()
        };
        let originals: Vec<usize> = order[..held].iter().map(|&row| row * copies).collect();
        (
            data.subset(&every_copy(&order[held..])),
            Some(data.subset(&originals)),
        )
    } else {
        (data.clone(), None)
    };
    let mut machine = args.machine(encoder, data.features(), classes)?;
    let mut trainer =
        Trainer::new(args.device, &machine, &train).map_err(|e| anyhow::anyhow!("{label}{e}"))?;
    let mut rule = AdaptiveEpochs::new(args.max_epochs);
    let mut epoch_seconds = Vec::new();
    let mut watched = Vec::new();
    let mut interrupted = false;
    let mut pools = EpochPools::default();
    let mut best: Option<(usize, Machine)> = None;
    loop {
        let done = if args.adaptive {
            !rule.should_continue()
        } else {
            epoch_seconds.len() >= args.epochs
        };
        if done {
            break;
        }
        if stop.is_raised() {
            interrupted = true;
            break;
        }
        let start = Instant::now();
        match threads {
            Some(share) => {
                trainer.fit_epoch_in(pools.get(share.threads_now())?, &mut machine, &train)
            }
            None => trainer.fit_epoch(&mut machine, &train),
        }
        .map_err(|e| anyhow::anyhow!("{label}{e}"))?;
        epoch_seconds.push(start.elapsed().as_secs_f64());
        if let Some(w) = watch {
            watched.push(evaluate(&machine, w, classes).accuracy());
        }
        if args.adaptive {
            rule.record(match &validation {
                Some(v) => evaluate(&machine, v, classes).accuracy(),
                None => *watched.last().expect("the rule reads the watched test set"),
            });
            let newest = epoch_seconds.len();
            if args.keep_best && rule.best().map(|(epoch, _)| epoch) == Some(newest) {
                best = Some((newest, machine.clone()));
            }
        }
        let epoch = epoch_seconds.len();
        let rule_state = args.adaptive.then_some(&rule);
        let seconds = epoch_seconds[epoch - 1];
        progress.epoch(
            fold,
            label,
            epoch,
            seconds,
            rule_state,
            watched.last().copied(),
        );
    }
    let last_epoch = epoch_seconds.len();
    let (machine, kept_epoch, last) = match best {
        Some((epoch, kept)) if epoch < last_epoch => (kept, epoch, Some(machine)),
        _ => (machine, last_epoch, None),
    };
    Ok(Trained {
        machine,
        kept_epoch,
        last,
        epoch_seconds,
        validation: rule.history().to_vec(),
        watched,
        interrupted,
    })
}

/// Who watches a training run: the progress report, the stop flag, and a test set scored
/// after every epoch (when given).
pub struct Watch<'a> {
    /// The progress report.
    pub progress: &'a Progress,
    /// Raised to stop after the epoch in progress.
    pub stop: &'a StopFlag,
    /// Scored after every epoch, into [`Trained::watched`].
    pub test: Option<&'a Dataset>,
    /// Shared with other runs training at the same time: each CPU epoch then runs on this
    /// run's share of the threads (otherwise on the threads of the caller's pool).
    pub threads: Option<&'a ThreadShare>,
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
    /// Also test after every epoch and report the highest test accuracy with its epoch, as
    /// seed 000 reports its figures (a choice made on the test set: not a fair estimate).
    #[arg(long, requires = "test")]
    test_each_epoch: bool,
    /// Where to save the model.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    model_args: ModelArgs,
}

/// A stop flag raised by the first Ctrl-C (SIGINT), after which the run finishes the epoch
/// in progress and reports `what` it keeps; a second Ctrl-C ends the process at once.
pub fn stop_on_interrupt(what: &'static str) -> StopFlag {
    let stop = StopFlag::default();
    let flag = stop.clone();
    let installed = ctrlc::set_handler(move || {
        if flag.is_raised() {
            std::process::exit(130);
        }
        eprintln!(
            "\ninterrupted: finishing the epoch in progress, then {what} (again to quit now)"
        );
        flag.raise();
    });
    if let Err(e) = installed {
        eprintln!("arena: Ctrl-C will end the run without a summary: {e}");
    }
    stop
}

/// Fails unless a file can be written at `path` (probed with the temporary file that the
/// save writes first, then removed), so that a long run does not end in an unwritable path.
pub fn ensure_writable(path: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        !path.is_dir(),
        "{}: is a folder, not a file",
        path.display()
    );
    let mut probe = path.as_os_str().to_owned();
    probe.push(".tmp");
    match std::fs::File::create(&probe) {
        Ok(_) => {
            // Only the probe is removed; a failure to remove it surfaces when the save
            // overwrites it.
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => anyhow::bail!("cannot write {}: {e}", path.display()),
    }
}

/// Runs `arena train`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let encoder = args.model_args.encoder()?;
    args.model_args.check(&encoder)?;
    if let Some(path) = &args.out {
        ensure_writable(path)?;
    }
    let parts = read_each(&args.data, encoder)?;
    let test = args
        .test
        .as_deref()
        .map(|p: &Path| read_dataset(p, &encoder.plain()))
        .transpose()?;
    if let Some(t) = &test {
        anyhow::ensure!(
            t.features() == parts[0].features(),
            "test file has {} features, training data {}",
            t.features(),
            parts[0].features()
        );
    }
    let mut files: Vec<(&Path, &Dataset)> =
        args.data.iter().map(PathBuf::as_path).zip(&parts).collect();
    if let (Some(path), Some(t)) = (&args.test, &test) {
        files.push((path, t));
    }
    let classes = class_count(&files, args.model_args.classes)?;
    let data = concat(&parts);
    eprintln!(
        "training on {} samples, {} features, {classes} classes",
        data.len(),
        data.features()
    );
    let progress = Progress::new(&args.model_args, 1, args.json);
    let stop = stop_on_interrupt("saving the model trained so far");
    let trained = fit(
        &args.model_args,
        encoder,
        &data,
        classes,
        (0, ""),
        Watch {
            progress: &progress,
            stop: &stop,
            test: test
                .as_ref()
                .filter(|_| args.test_each_epoch || args.model_args.rule_reads_test()),
            threads: None,
        },
    )?;
    progress.finish();
    let highest = trained
        .watched
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)));
    let confusion = test
        .as_ref()
        .map(|t| evaluate(&trained.machine, t, classes));
    let last_confusion = test
        .as_ref()
        .zip(trained.last.as_ref())
        .map(|(t, last)| evaluate(last, t, classes));
    let epochs = trained.epoch_seconds.len();
    let kept_epoch = trained.kept_epoch;
    if args.model_args.keep_best {
        eprintln!("kept the machine of epoch {kept_epoch} of {epochs} (the rule's best accuracy)");
    }
    match &args.out {
        Some(path) => {
            let saved = SavedModel {
                encoder: encoder.name(),
                feature_names: data.feature_names.clone(),
                machine: trained.machine,
            };
            saved.save(path)?;
            eprintln!("saved {} ({epochs} epochs)", path.display());
        }
        None => eprintln!("no -o FILE given: the trained model was not saved"),
    }
    if args.json {
        let out = serde_json::json!({
            "epochs": epochs,
            "kept_epoch": kept_epoch,
            "epoch_seconds": trained.epoch_seconds,
            "validation_accuracy": trained.validation,
            "test_accuracy_each_epoch": trained.watched,
            "test": confusion.as_ref().map(report_json),
            "last_epoch_test_accuracy": last_confusion.as_ref().map(Confusion::accuracy),
            "interrupted": trained.interrupted,
        });
        println!("{out}");
    } else if let Some(c) = &confusion {
        print_report(c);
        if let Some(last) = &last_confusion {
            println!(
                "the last epoch's machine (epoch {epochs}): test accuracy {:.2}%",
                100.0 * last.accuracy()
            );
        }
        if let Some((epoch, accuracy)) = highest {
            println!(
                "highest test accuracy over the epochs: {:.2}% after epoch {} (chosen on the test set)",
                100.0 * accuracy,
                epoch + 1
            );
        }
    }
    anyhow::ensure!(!trained.interrupted, "interrupted after {epochs} epochs");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_with_their_copies_give_back_the_rows_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hex.csv");
        let mut text = String::from("a,b,c,d,e,f,g,h,i,winner\n");
        let mut rng = tmbot::rng::seeded(3);
        for _ in 0..50 {
            use rand::Rng as _;
            for _ in 0..9 {
                text.push_str(&format!("{},", rng.random_range(-1..=1)));
            }
            text.push_str(&format!("{}\n", [-1, 1][rng.random_range(0..2)]));
        }
        std::fs::write(&path, text).unwrap();
        let paths = [path.clone(), path];
        let parse = |name: &str| Encoder::parse(name).unwrap();
        let as_they_are = read_each(&paths, parse("hex-connection")).unwrap();
        let copied = parse("hex-connection:fold=on,rotate=on");
        let (plain, copies) = read_each_with_copies(&paths, copied).unwrap();
        assert_eq!(plain, as_they_are);
        assert_eq!(copies.unwrap(), read_each(&paths, copied).unwrap());
        let (plain, copies) = read_each_with_copies(&paths, parse("hex-connection")).unwrap();
        assert_eq!((plain, copies), (as_they_are, None));
    }
}

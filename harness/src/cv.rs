//! `arena cv`: k-fold cross-validation of a Tsetlin Machine. Folds are given as files (fold
//! i is the test set, the others the training set, as seed 001's ten fold files) or computed
//! from one data file (stratified: each class is dealt round-robin over the folds after a
//! seeded shuffle). Reports the mean and per-fold accuracy, per-class precision, recall and
//! F1 and the confusion matrix summed over the folds.
//!
//! With `--out DIR` or `--journal FILE` every finished fold is appended to a journal (JSON
//! lines: first the setup, then one object per fold with its accuracy, epochs and confusion
//! matrix); `--resume` skips the folds it holds. Ctrl-C stops after the epoch in progress
//! and prints the summary of the folds finished so far.

use crate::thread_share::ThreadShare;
use crate::train::{
    class_count, evaluate, fit, print_report, read_each_with_copies, report_json, shuffled,
    stop_on_interrupt, ModelArgs, Progress, Watch,
};
use anyhow::Context;
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use tmbot::tm::metrics::Confusion;
use tmbot::tm::Dataset;

/// Folds computed from one data file when `--k` is not given.
const DEFAULT_K: usize = 10;

/// The journal's name inside `--out DIR`.
const JOURNAL_NAME: &str = "cv-journal.jsonl";

/// Arguments of `arena cv`.
#[derive(clap::Args)]
pub struct Args {
    /// One file per fold (at least 2), or one data file to split with --k.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Number of stratified folds computed from a single data file (default 10).
    #[arg(long)]
    k: Option<usize>,
    /// Run only the first N folds.
    #[arg(long)]
    only: Option<usize>,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
    /// Folder for the fold journal (cv-journal.jsonl), created if needed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The fold journal file (instead of --out).
    #[arg(long, conflicts_with = "out")]
    journal: Option<PathBuf>,
    /// Continue from the journal: folds it holds are not trained again.
    #[arg(long)]
    resume: bool,
    /// Folds trained at the same time, each on its share of the threads: folds never wait
    /// for one another, so on a few cores this beats sharing every fold's clauses. The
    /// share is taken again at every epoch, so the last fold left training gets every thread.
    #[arg(long, default_value_t = 1)]
    fold_jobs: usize,
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

/// One finished fold.
#[derive(serde::Serialize, serde::Deserialize)]
struct FoldResult {
    fold: usize,
    accuracy: f64,
    epochs: usize,
    confusion: Vec<Vec<u64>>,
    /// With `--keep-best`: the epoch kept and the test accuracy of the last epoch's machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kept: Option<KeptEpoch>,
}

/// What `--keep-best` chose in a fold, beside what the last epoch would have given.
#[derive(serde::Serialize, serde::Deserialize)]
struct KeptEpoch {
    epoch: usize,
    last_epoch_accuracy: f64,
}

/// The folds of the run, each with the name its errors give it, and the class count.
struct Folds {
    /// Each fold's rows as they are: what a fold is tested on.
    sets: Vec<Dataset>,
    /// Each fold's rows with their training copies, when the encoder makes copies
    /// ([`Encoder::copies`]): what a fold contributes to training.
    copies: Option<Vec<Dataset>>,
    names: Vec<String>,
    classes: usize,
}

/// Reads the folds: one per file, or `--k` computed from one file.
fn read_folds(args: &Args) -> anyhow::Result<Folds> {
    let encoder = args.model_args.encoder()?;
    if args.data.len() >= 2 {
        if let Some(k) = args.k {
            anyhow::bail!(
                "--k {k} splits one data file into folds; with {} files each file is a fold (give one file to use --k)",
                args.data.len()
            );
        }
        let (sets, copies) = read_each_with_copies(&args.data, encoder)?;
        let files: Vec<(&Path, &Dataset)> =
            args.data.iter().map(PathBuf::as_path).zip(&sets).collect();
        let classes = class_count(&files, args.model_args.classes)?;
        let names = args
            .data
            .iter()
            .enumerate()
            .map(|(i, p)| format!("fold {i} ({})", p.display()))
            .collect();
        return Ok(Folds {
            sets,
            copies,
            names,
            classes,
        });
    }
    let k = args.k.unwrap_or(DEFAULT_K);
    anyhow::ensure!(k >= 2, "--k must be at least 2, got {k}");
    let file = &args.data[0];
    let per_row = encoder.copies();
    let (mut plain, with_copies) = read_each_with_copies(std::slice::from_ref(file), encoder)?;
    let data = plain.remove(0);
    let classes = class_count(&[(file.as_path(), &data)], args.model_args.classes)?;
    anyhow::ensure!(
        data.len() >= k,
        "{}: {} samples cannot make {k} folds",
        file.display(),
        data.len()
    );
    let assignment = &stratified_folds(&data, k, args.model_args.seed);
    let rows_of = |f: usize| (0..data.len()).filter(move |&i| assignment[i] == f);
    let sets = (0..k)
        .map(|f| data.subset(&rows_of(f).collect::<Vec<_>>()))
        .collect();
    // A row's training copies follow it in the file read with them, so they go with it.
    let copies = with_copies.map(|mut with_copies| {
        let with_copies = with_copies.remove(0);
        (0..k)
            .map(|f| {
                let idx: Vec<usize> = rows_of(f)
                    .flat_map(|row| row * per_row..(row + 1) * per_row)
                    .collect();
                with_copies.subset(&idx)
            })
            .collect()
    });
    let names = (0..k)
        .map(|i| format!("fold {i} of {k} from {}", file.display()))
        .collect();
    Ok(Folds {
        sets,
        copies,
        names,
        classes,
    })
}

/// The fold journal.
struct Journal {
    path: PathBuf,
}

impl Journal {
    /// Opens the journal named by `--out`/`--journal` (none without them) for a run whose
    /// setup line is `setup`: a new journal gets the setup line; an existing one must be
    /// continued with `--resume` and have been written for the same setup. Returns the
    /// journal and the folds it holds.
    fn open(
        args: &Args,
        setup: &serde_json::Value,
    ) -> anyhow::Result<Option<(Journal, BTreeMap<usize, FoldResult>)>> {
        let path = match (&args.journal, &args.out) {
            (Some(file), _) => file.clone(),
            (None, Some(dir)) => {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                dir.join(JOURNAL_NAME)
            }
            (None, None) => {
                anyhow::ensure!(!args.resume, "--resume needs --out DIR or --journal FILE");
                return Ok(None);
            }
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => anyhow::bail!("cannot read {}: {e}", path.display()),
        };
        let mut done = BTreeMap::new();
        if text.trim().is_empty() {
            let mut file = std::fs::File::create(&path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            writeln!(file, "{}", serde_json::json!({ "setup": setup }))
                .with_context(|| format!("cannot write {}", path.display()))?;
        } else {
            anyhow::ensure!(
                args.resume,
                "{} already holds folds: continue with --resume, or remove it",
                path.display()
            );
            let mut lines = text.lines().enumerate();
            let written: Option<serde_json::Value> = lines
                .next()
                .and_then(|(_, l)| serde_json::from_str::<serde_json::Value>(l).ok())
                .map(|v| v["setup"].clone());
            let reason = match &written {
                Some(written) if written == setup => None,
                Some(written) => {
                    let parts: Vec<&str> = [
                        ("data", "the data files"),
                        ("k", "the fold count"),
                        ("model", "the model options"),
                    ]
                    .into_iter()
                    .filter(|(key, _)| written.get(key) != setup.get(key))
                    .map(|(_, part)| part)
                    .collect();
                    Some(match parts.is_empty() {
                        true => "its settings differ".to_string(),
                        false => format!("{} differ", parts.join(", ")),
                    })
                }
                None => Some("its first line is not a setup line".to_string()),
            };
            if let Some(reason) = reason {
                anyhow::bail!(
                    "{} was written for another setup ({reason}); remove it or name another \
                     journal",
                    path.display()
                );
            }
            let last = text.lines().count();
            for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
                match serde_json::from_str::<FoldResult>(line) {
                    Ok(result) => {
                        done.insert(result.fold, result);
                    }
                    // A line cut short when the run was killed: that fold runs again.
                    Err(_) if i + 1 == last => {}
                    Err(e) => anyhow::bail!("{}: line {}: {e}", path.display(), i + 1),
                }
            }
        }
        Ok(Some((Journal { path }, done)))
    }

    /// Appends a finished fold.
    fn record(&self, result: &FoldResult) -> anyhow::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .with_context(|| format!("cannot append to {}", self.path.display()))?;
        let line = serde_json::to_string(result).expect("a fold result serialises");
        writeln!(file, "{line}")
            .and_then(|()| file.sync_data())
            .with_context(|| format!("cannot append to {}", self.path.display()))
    }
}

/// Runs `arena cv`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let encoder = args.model_args.encoder()?;
    args.model_args.check(&encoder)?;
    if let Some(n) = args.only {
        anyhow::ensure!(n >= 1, "--only {n}: run at least one fold");
    }
    let folds = read_folds(&args)?;
    for (i, f) in folds.sets.iter().enumerate().skip(1) {
        anyhow::ensure!(
            f.features() == folds.sets[0].features(),
            "{} has {} features, {} has {}",
            folds.names[i],
            f.features(),
            folds.names[0],
            folds.sets[0].features()
        );
    }
    let count = folds.sets.len();
    let runs = match args.only {
        Some(n) if n > count => anyhow::bail!("--only {n}: there are only {count} folds"),
        Some(n) => n,
        None => count,
    };
    let classes = folds.classes;
    let setup = serde_json::json!({
        "data": args.data.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "k": args.k,
        "model": format!("{:?}", args.model_args),
    });
    let (journal, mut results) = match Journal::open(&args, &setup)? {
        Some((journal, done)) => (Some(journal), done),
        None => (None, BTreeMap::new()),
    };
    results.retain(|&fold, _| fold < runs);
    if !results.is_empty() {
        eprintln!(
            "resuming: {} of {runs} folds already in the journal",
            results.len()
        );
    }
    let progress = Progress::new(&args.model_args, runs, args.json);
    let stop = stop_on_interrupt("printing the summary of the finished folds");
    for &fold in results.keys() {
        progress.fold_done(fold);
    }
    let pending: Vec<usize> = (0..runs).filter(|f| !results.contains_key(f)).collect();
    let queue = std::sync::Mutex::new(pending.into_iter());
    let jobs = args.fold_jobs.clamp(1, runs.max(1));
    let threads = (rayon::current_num_threads() / jobs).max(1);
    // The folds' epochs share every thread: a fold left alone at the end gets them all.
    let share = ThreadShare::new(rayon::current_num_threads());
    let results = std::sync::Mutex::new(results);
    let interrupted = std::sync::atomic::AtomicBool::new(false);
    // Trains and scores one fold; `None` when interrupted.
    let run_fold = |test_fold: usize| -> anyhow::Result<Option<FoldResult>> {
        let mut train = Dataset::with_names(folds.sets[0].feature_names.clone());
        for (i, f) in folds
            .copies
            .as_ref()
            .unwrap_or(&folds.sets)
            .iter()
            .enumerate()
        {
            if i != test_fold {
                train.extend(f);
            }
        }
        let label = format!("fold {}/{runs}: ", test_fold + 1);
        let trained = fit(
            &args.model_args,
            encoder,
            &train,
            classes,
            (test_fold, &label),
            Watch {
                progress: &progress,
                stop: &stop,
                // The thesis's rule reads the test fold.
                test: Some(&folds.sets[test_fold]).filter(|_| args.model_args.rule_reads_test()),
                threads: Some(&share),
            },
        )
        .with_context(|| folds.names[test_fold].clone())?;
        if trained.interrupted {
            return Ok(None);
        }
        progress.fold_done(test_fold);
        let test = &folds.sets[test_fold];
        let confusion = evaluate(&trained.machine, test, classes);
        let kept = args.model_args.keep_best.then(|| KeptEpoch {
            epoch: trained.kept_epoch,
            last_epoch_accuracy: trained.last.as_ref().map_or(confusion.accuracy(), |last| {
                evaluate(last, test, classes).accuracy()
            }),
        });
        let mut line = format!(
            "{}: test accuracy {:.2}%",
            folds.names[test_fold],
            100.0 * confusion.accuracy()
        );
        if let Some(k) = &kept {
            line += &format!(
                " (epoch {} kept; the last epoch's {:.2}%)",
                k.epoch,
                100.0 * k.last_epoch_accuracy
            );
        }
        progress.println(&line);
        Ok(Some(FoldResult {
            fold: test_fold,
            accuracy: confusion.accuracy(),
            epochs: trained.epoch_seconds.len(),
            confusion: confusion.counts,
            kept,
        }))
    };
    let worker = || -> anyhow::Result<()> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .context("cannot start the training threads")?;
        loop {
            let next = queue.lock().expect("fold queue").next();
            let Some(test_fold) = next else {
                return Ok(());
            };
            if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok(());
            }
            let outcome = {
                let _training = share.enter();
                pool.install(|| run_fold(test_fold))
            };
            let Some(result) = outcome? else {
                interrupted.store(true, std::sync::atomic::Ordering::Relaxed);
                return Ok(());
            };
            let mut results = results.lock().expect("fold results");
            if let Some(j) = &journal {
                j.record(&result)?;
            }
            results.insert(test_fold, result);
        }
    };
    let outcomes: Vec<anyhow::Result<()>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs).map(|_| scope.spawn(worker)).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let results = results.into_inner().expect("fold results");
    let interrupted = interrupted.into_inner();
    for outcome in outcomes {
        outcome?;
    }
    progress.finish();
    print_summary(&results, classes, runs, args.json);
    if interrupted {
        let hint = match &journal {
            Some(j) => format!("; continue with --resume (journal {})", j.path.display()),
            None => String::new(),
        };
        anyhow::bail!("interrupted after {} of {runs} folds{hint}", results.len());
    }
    Ok(())
}

/// Prints the mean, per-fold and pooled figures of the finished folds `results` (of `runs`).
fn print_summary(results: &BTreeMap<usize, FoldResult>, classes: usize, runs: usize, json: bool) {
    let mut total = Confusion::new(classes);
    for r in results.values() {
        let mut c = Confusion::new(classes);
        c.counts.clone_from(&r.confusion);
        total.add(&c);
    }
    let accuracies: Vec<f64> = results.values().map(|r| r.accuracy).collect();
    let epochs: Vec<usize> = results.values().map(|r| r.epochs).collect();
    let done = results.len();
    let mean = |values: &[f64]| values.iter().sum::<f64>() / done.max(1) as f64;
    let percents = |values: &[f64]| -> String {
        let each: Vec<String> = values.iter().map(|a| format!("{:.2}", 100.0 * a)).collect();
        each.join(" ")
    };
    // With --keep-best (every fold of a journal has the same setup): the last epochs' figures.
    let last: Option<Vec<f64>> = results
        .values()
        .map(|r| r.kept.as_ref().map(|k| k.last_epoch_accuracy))
        .collect();
    let last = last.filter(|l| !l.is_empty());
    if json {
        let out = serde_json::json!({
            "folds": done,
            "of_folds": runs,
            "mean_accuracy": mean(&accuracies),
            "fold_accuracy": accuracies,
            "fold_epochs": epochs,
            "fold_kept_epochs": results.values().map(|r| r.kept.as_ref().map(|k| k.epoch)).collect::<Option<Vec<_>>>(),
            "last_epoch_mean_accuracy": last.as_deref().map(mean),
            "pooled": report_json(&total),
        });
        println!("{out}");
    } else {
        println!(
            "mean accuracy over {done} folds: {:.2}%",
            100.0 * mean(&accuracies)
        );
        println!("per fold: {}", percents(&accuracies));
        if let Some(last) = &last {
            println!(
                "the last epochs' machines instead of the kept ones: mean {:.2}%, per fold: {}",
                100.0 * mean(last),
                percents(last)
            );
        }
        println!("pooled over the folds:");
        print_report(&total);
    }
}

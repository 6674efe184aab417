//! `arena bench tm`: Tsetlin Machine training, measured so that the figures cannot mislead.
//!
//! Every run is a fresh process (tmbot's own through a hidden `--run` option, the Python
//! peers through `bench/tm_peers.py`) on the same CSV files, and the runs are interleaved:
//! every contestant once, then every contestant again, `--repeats` times, so that a change
//! in the machine's load falls on all of them alike. For each epoch the bench prints the
//! median and the range of the wall seconds and of the CPU seconds (every thread of the
//! process), and the test accuracy; memory is the growth of the process's resident set
//! from the moment its data is loaded (and the memory the loading freed is handed back to
//! the system) to the end of training. Ratios compare each peer with
//! tmbot's machine of the same family at the same number of threads (per-class libraries
//! with the per-class machine, coalesced ones with the coalesced machine), and tmbot on two
//! threads with tmbot on one. `--load` keeps one core busy throughout (a spinning thread
//! of the bench itself), to show what threads do on a busy machine.
//!
//! Data: random-play Hex games with seed 000's connection features (generated), or
//! `--train`/`--test` files (several training files are joined, as folds are).

use anyhow::Context;
use rand::Rng as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use tmbot::features::hex_connection::HexConnection;
use tmbot::game::hex::geometry::neighbours;
use tmbot::rng;
use tmbot::tm::persist::Machine;
use tmbot::tm::{CoalescedTm, CoalescedUpdate, Dataset, InferenceModel, MultiClassTm, Params};

/// Arguments of `arena bench tm`.
#[derive(clap::Args)]
pub struct Args {
    /// Training rows of generated random-play games.
    #[arg(long, default_value_t = 20_000)]
    train_rows: usize,
    /// Test rows of generated games.
    #[arg(long, default_value_t = 5_000)]
    test_rows: usize,
    /// Board side of the generated games.
    #[arg(long, default_value_t = 7)]
    board: usize,
    /// Training CSV files (joined) instead of generated games; needs --test.
    #[arg(long, num_args = 1.., requires = "test")]
    train: Vec<PathBuf>,
    /// Test CSV file, with --train.
    #[arg(long, requires = "train")]
    test: Option<PathBuf>,
    /// Seed of the generated games and of every machine.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Clauses (per class for the per-class machines, shared for the coalesced ones).
    #[arg(long, default_value_t = 2000)]
    clauses: usize,
    /// Vote clamp T.
    #[arg(long = "T", default_value_t = 100)]
    threshold: i32,
    /// Specificity s.
    #[arg(long, default_value_t = 10.0)]
    s: f64,
    /// State bits.
    #[arg(long, default_value_t = 8)]
    state_bits: usize,
    /// Integer-weighted clauses (tmbot, pyTsetlinMachine and TMU's per-class classifier).
    #[arg(long)]
    weighted: bool,
    /// How tmbot's coalesced machine applies a sample's two updates (joint or sequential).
    #[arg(long, default_value_t = CoalescedUpdate::default())]
    coalesced_update: CoalescedUpdate,
    /// Epochs of every run.
    #[arg(long, default_value_t = 2)]
    epochs: usize,
    /// Rounds of the interleaved runs.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// The contestants, in the order of each round: tmbot:per-class:THREADS,
    /// tmbot:coalesced:THREADS, pytm, tmu, tmu_co, gt:JOBS (the peers need --peers). By
    /// default tmbot's two machines on 1 and 2 threads, and with --peers every peer at
    /// equal threads beside them.
    #[arg(long, value_delimiter = ',')]
    runs: Vec<String>,
    /// Keep one core busy during the runs (a spinning thread).
    #[arg(long)]
    load: bool,
    /// Positions for tmbot's inference measurement (after the per-class runs; 0: none).
    #[arg(long, default_value_t = 2_000_000)]
    inference_positions: usize,
    /// Folder for the CSV files every contestant reads: `train.csv` and `test.csv` for the
    /// generated games, `given-train.csv` and `given-test.csv` for `--train`/`--test` files.
    #[arg(long, default_value = "/tmp/tm-bench")]
    out_dir: PathBuf,
    /// Python interpreter with the peer libraries.
    #[arg(long)]
    peers: Option<PathBuf>,
    /// The peers script (relative paths are taken from the current folder).
    #[arg(long, default_value = "bench/tm_peers.py")]
    peers_script: PathBuf,
    /// One tmbot run (MODEL:THREADS) on the files of --train/--test; prints one JSON line.
    #[arg(long, hide = true)]
    run: Option<String>,
}

/// One random-play game on a `side` x `side` board, played to the first connection. Returns
/// the final cells (1 White = blue, -1 Black = red, as seed 000 writes them) and the winner
/// as a class (1 White, 0 Black).
fn random_game(side: usize, rng: &mut tmbot::rng::Rng) -> (Vec<i8>, u32) {
    let n = side * side;
    let mut empty: Vec<usize> = (0..n).collect();
    let mut cells = vec![0i8; n];
    let mut value = -1i8; // Black (red, top to bottom) moves first.
    loop {
        let pick = rng.random_range(0..empty.len());
        let cell = empty.swap_remove(pick);
        cells[cell] = value;
        if connects(&cells, side, value) {
            return (cells, (value == 1) as u32);
        }
        value = -value;
    }
}

/// Does `value` join its edges (-1: top to bottom, 1: left to right)?
fn connects(cells: &[i8], side: usize, value: i8) -> bool {
    let at = |a: usize, b: usize| {
        if value == -1 {
            b * side + a
        } else {
            a * side + b
        }
    };
    let mut seen = vec![false; cells.len()];
    let mut stack: Vec<usize> = (0..side)
        .map(|a| at(a, 0))
        .filter(|&c| cells[c] == value)
        .collect();
    for &c in &stack {
        seen[c] = true;
    }
    while let Some(c) = stack.pop() {
        let (x, y) = (c % side, c / side);
        if (value == -1 && y == side - 1) || (value == 1 && x == side - 1) {
            return true;
        }
        for (nx, ny) in neighbours(x, y, side, side) {
            let nc = ny * side + nx;
            if cells[nc] == value && !seen[nc] {
                seen[nc] = true;
                stack.push(nc);
            }
        }
    }
    false
}

/// `rows` random-play games encoded with the connection features.
pub fn hex_games(side: usize, rows: usize, seed: u64) -> Dataset {
    let enc = HexConnection::new(side, side);
    let mut data = Dataset::with_names(enc.feature_names());
    let mut rng = rng::seeded(seed);
    for _ in 0..rows {
        let (cells, winner) = random_game(side, &mut rng);
        data.push(&enc.encode(&cells).expect("generated board"), winner);
    }
    data
}

/// A contestant: tmbot's machine on some threads, or a peer library.
#[derive(Clone, Debug, PartialEq)]
enum Contestant {
    Tmbot { coalesced: bool, threads: usize },
    Peer { lib: String, jobs: usize },
}

impl Contestant {
    fn parse(text: &str) -> anyhow::Result<Contestant> {
        let parts: Vec<&str> = text.trim().split(':').collect();
        let count = |t: &str| -> anyhow::Result<usize> {
            t.parse()
                .ok()
                .filter(|&n| n >= 1)
                .with_context(|| format!("run '{text}': '{t}' is not a thread count"))
        };
        Ok(match parts.as_slice() {
            ["tmbot", model, threads] => Contestant::Tmbot {
                coalesced: match *model {
                    "per-class" => false,
                    "coalesced" => true,
                    _ => anyhow::bail!("run '{text}': model is per-class or coalesced"),
                },
                threads: count(threads)?,
            },
            [lib @ ("pytm" | "tmu" | "tmu_co")] => Contestant::Peer {
                lib: lib.to_string(),
                jobs: 1,
            },
            ["gt", jobs] => Contestant::Peer {
                lib: "gt".into(),
                jobs: count(jobs)?,
            },
            _ => anyhow::bail!(
                "run '{text}': expected tmbot:per-class:N, tmbot:coalesced:N, pytm, tmu, tmu_co or gt:N"
            ),
        })
    }

    fn name(&self) -> String {
        match self {
            Contestant::Tmbot { coalesced, threads } => format!(
                "tmbot {} {threads}t",
                if *coalesced { "coalesced" } else { "per-class" }
            ),
            Contestant::Peer { lib, jobs } if lib == "gt" => format!("gt {jobs}t"),
            Contestant::Peer { lib, .. } => lib.clone(),
        }
    }

    /// The model family and the thread count, for pairing peers with tmbot.
    fn family(&self) -> (bool, usize) {
        match self {
            Contestant::Tmbot { coalesced, threads } => (*coalesced, *threads),
            Contestant::Peer { lib, jobs } => (matches!(lib.as_str(), "tmu_co" | "gt"), *jobs),
        }
    }
}

/// The default contestants: tmbot's machines on 1 and 2 threads, and the peers beside them.
fn default_runs(peers: bool) -> Vec<Contestant> {
    let names: &[&str] = if peers {
        &[
            "tmbot:per-class:1",
            "pytm",
            "tmu",
            "tmbot:coalesced:1",
            "tmu_co",
            "gt:1",
            "tmbot:per-class:2",
            "tmbot:coalesced:2",
            "gt:2",
        ]
    } else {
        &[
            "tmbot:per-class:1",
            "tmbot:per-class:2",
            "tmbot:coalesced:1",
            "tmbot:coalesced:2",
        ]
    };
    names
        .iter()
        .map(|n| Contestant::parse(n).expect("valid default"))
        .collect()
}

/// What one run measured. A figure that could not be measured (a time too short for the
/// clock, a system without `/proc`) is NaN here and `null` in the JSON line.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Measured {
    #[serde(with = "unmeasured::many")]
    epoch_wall: Vec<f64>,
    #[serde(with = "unmeasured::many")]
    epoch_cpu: Vec<f64>,
    #[serde(with = "unmeasured::many")]
    test_accuracy: Vec<f64>,
    #[serde(with = "unmeasured::one")]
    growth_mb: f64,
    #[serde(default)]
    cpu_split: bool,
    /// Inference positions per wall second, then per CPU second (tmbot's per-class runs).
    #[serde(default, with = "unmeasured::many")]
    inference: Vec<f64>,
}

/// NaN figures as JSON `null` and back.
mod unmeasured {
    /// A list of figures.
    pub mod many {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer>(values: &[f64], s: S) -> Result<S::Ok, S::Error> {
            let values: Vec<Option<f64>> =
                values.iter().map(|v| v.is_finite().then_some(*v)).collect();
            values.serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            let values = Vec::<Option<f64>>::deserialize(d)?;
            Ok(values.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
        }
    }

    /// One figure.
    pub mod one {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        pub fn serialize<S: Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
            value.is_finite().then_some(*value).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
            Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
        }
    }
}

/// The resident set or its peak (`VmRSS`, `VmHWM`) of this process in MB.
fn status_mb(key: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// Hands the memory freed while loading back to the system (glibc keeps freed heap
/// resident), so that the growth measured next is the machine's own and not the reuse of
/// the loader's leftovers; the peers' script does the same.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Resets the peak resident set to the current one (Linux); false where it cannot.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// One tmbot run (the hidden `--run MODEL:THREADS`): reads the CSV files, then trains and
/// tests, measuring as the module docs say; prints one JSON line.
fn run_tmbot(args: &Args, spec: &str) -> anyhow::Result<()> {
    let Contestant::Tmbot { coalesced, threads } = Contestant::parse(&format!("tmbot:{spec}"))?
    else {
        unreachable!("parsed as tmbot")
    };
    let test_path = args.test.as_ref().context("--run needs --test")?;
    let train = Dataset::read_csv(&args.train[0]).map_err(|e| anyhow::anyhow!("{e}"))?;
    let test = Dataset::read_csv(test_path).map_err(|e| anyhow::anyhow!("{e}"))?;
    let classes = train.classes().max(test.classes());
    let params = machine_params(args);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the threads")?;
    release_freed_memory();
    let loaded = status_mb("VmRSS").unwrap_or(f64::NAN);
    anyhow::ensure!(
        reset_peak(),
        "cannot reset the peak memory (/proc/self/clear_refs)"
    );
    let mut machine = if coalesced {
        Machine::Coalesced(
            CoalescedTm::new(params, train.features(), classes).map_err(anyhow::Error::msg)?,
        )
    } else {
        Machine::PerClass(
            MultiClassTm::new(params, train.features(), classes).map_err(anyhow::Error::msg)?,
        )
    };
    let mut measured = Measured::default();
    for _ in 0..args.epochs {
        let (wall, cpu) = (Instant::now(), super::cpu_seconds());
        pool.install(|| machine.fit_epoch(&train));
        measured.epoch_wall.push(wall.elapsed().as_secs_f64());
        let cpu = super::cpu_seconds().zip(cpu).map(|(b, a)| b - a);
        measured.epoch_cpu.push(cpu.unwrap_or(f64::NAN));
        measured
            .test_accuracy
            .push(test.accuracy(&machine.predict_all(&test)));
    }
    measured.growth_mb = status_mb("VmHWM").unwrap_or(f64::NAN) - loaded;
    if let Machine::PerClass(tm) = &machine {
        if args.inference_positions > 0 && !test.is_empty() {
            let mut compiled = tm.compile();
            compiled.order_literals_by(&train);
            let (wall, cpu) = inference_rate(&compiled, &test, args.inference_positions, &pool);
            measured.inference = vec![wall, cpu];
        }
    }
    println!("{}", serde_json::to_string(&measured)?);
    Ok(())
}

/// Class sums of at least `positions` test positions (the test set over and over) in
/// `pool`: positions per wall second and per CPU second.
fn inference_rate(
    model: &InferenceModel,
    test: &Dataset,
    positions: usize,
    pool: &rayon::ThreadPool,
) -> (f64, f64) {
    let rounds = positions.div_ceil(test.len());
    let (wall, cpu) = (Instant::now(), super::cpu_seconds());
    let checksum: i64 = pool.install(|| {
        (0..rounds)
            .map(|_| {
                model
                    .class_sums(test)
                    .iter()
                    .map(|&v| v as i64)
                    .sum::<i64>()
            })
            .sum()
    });
    std::hint::black_box(checksum);
    let done = (rounds * test.len()) as f64;
    let cpu = super::cpu_seconds()
        .zip(cpu)
        .map_or(f64::NAN, |(b, a)| b - a);
    (done / wall.elapsed().as_secs_f64(), done / cpu)
}

/// The machines' hyper-parameters from the arguments.
fn machine_params(args: &Args) -> Params {
    Params {
        clauses: args.clauses,
        threshold: args.threshold,
        specificity: args.s,
        state_bits: args.state_bits,
        boost_true_positive: true,
        weighted: args.weighted,
        coalesced_update: args.coalesced_update,
        seed: args.seed,
        ..Params::default()
    }
}

/// Runs one contestant in a fresh process on `train`/`test` and reads its JSON line.
fn measure(
    args: &Args,
    contestant: &Contestant,
    train: &Path,
    test: &Path,
) -> anyhow::Result<Measured> {
    let shared = [
        ("--train", train.display().to_string()),
        ("--test", test.display().to_string()),
        ("--clauses", args.clauses.to_string()),
        ("--T", args.threshold.to_string()),
        ("--s", args.s.to_string()),
        ("--epochs", args.epochs.to_string()),
        ("--state-bits", args.state_bits.to_string()),
        ("--seed", args.seed.to_string()),
    ];
    let positions = args.inference_positions.to_string();
    let mut command = match contestant {
        Contestant::Tmbot { coalesced, threads } => {
            let mut c = std::process::Command::new(
                std::env::current_exe().context("finding the arena program")?,
            );
            let model = if *coalesced { "coalesced" } else { "per-class" };
            c.args(["bench", "tm", "--run", &format!("{model}:{threads}")])
                .args(["--inference-positions", &positions])
                .args(["--coalesced-update", &args.coalesced_update.to_string()]);
            c
        }
        Contestant::Peer { lib, jobs } => {
            let python = args.peers.as_ref().context("peers need --peers PYTHON")?;
            let mut c = std::process::Command::new(python);
            c.arg(&args.peers_script)
                .args(["--lib", lib, "--jobs", &jobs.to_string()]);
            c
        }
    };
    for (flag, value) in shared {
        command.args([flag, &value]);
    }
    if args.weighted {
        command.arg("--weighted");
    }
    let output = command
        .output()
        .with_context(|| format!("starting {}", contestant.name()))?;
    anyhow::ensure!(
        output.status.success(),
        "{} failed: {}",
        contestant.name(),
        String::from_utf8_lossy(&output.stderr).trim()
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .with_context(|| format!("{} printed no result", contestant.name()))?;
    serde_json::from_str(line).with_context(|| format!("{}: reading its result", contestant.name()))
}

/// The median and the range of `values`.
pub(super) fn spread(values: &[f64]) -> (f64, f64, f64) {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    (median, v[0], v[n - 1])
}

/// Every run of one contestant.
struct Runs {
    contestant: Contestant,
    runs: Vec<Measured>,
}

impl Runs {
    /// The values of epoch `e` (0-based) over the runs.
    fn epoch(&self, e: usize, pick: fn(&Measured) -> &Vec<f64>) -> Vec<f64> {
        self.runs
            .iter()
            .filter_map(|m| pick(m).get(e).copied())
            .collect()
    }

    fn median(&self, e: usize, pick: fn(&Measured) -> &Vec<f64>) -> f64 {
        spread(&self.epoch(e, pick)).0
    }
}

/// `a / b` as `1.5x` (two decimals under 1), or `n/a` when either is unknown or `b` is 0.
pub(super) fn ratio(a: f64, b: f64) -> String {
    let r = a / b;
    match r.is_finite() && b > 0.0 {
        true if r < 1.0 => format!("{r:.2}x"),
        true => format!("{r:.1}x"),
        false => "n/a".to_string(),
    }
}

/// `value` with `digits` decimals and its `unit`, or `unmeasured`.
fn shown(value: f64, digits: usize, unit: &str) -> String {
    match value.is_finite() {
        true => format!("{value:.digits$}{unit}"),
        false => "unmeasured".to_string(),
    }
}

/// The table of medians and ranges, then the ratios, as lines.
fn report(all: &[Runs], epochs: usize) -> Vec<String> {
    let mut lines = vec![format!(
        "{:<20} {:>5} {:>24} {:>24} {:>9} {:>9}",
        "run", "epoch", "wall s: median [range]", "CPU s: median [range]", "accuracy", "memory"
    )];
    let range = |v: &[f64]| match spread(v) {
        (m, lo, hi) if m.is_finite() => format!("{m:.2} [{lo:.2}-{hi:.2}]"),
        _ => "unmeasured".to_string(),
    };
    for r in all {
        for e in 0..epochs {
            let split = r.runs.iter().any(|m| m.cpu_split);
            lines.push(format!(
                "{:<20} {:>5} {:>24} {:>24} {:>9} {:>9}",
                if e == 0 {
                    r.contestant.name()
                } else {
                    String::new()
                },
                e + 1,
                range(&r.epoch(e, |m| &m.epoch_wall)),
                range(&r.epoch(e, |m| &m.epoch_cpu)) + if split { "*" } else { "" },
                shown(100.0 * r.median(e, |m| &m.test_accuracy), 2, "%"),
                shown(
                    spread(&r.runs.iter().map(|m| m.growth_mb).collect::<Vec<_>>()).0,
                    0,
                    " MB"
                ),
            ));
        }
    }
    for r in all {
        let rates = |k: usize| -> Vec<f64> {
            r.runs
                .iter()
                .filter_map(|m| m.inference.get(k).copied())
                .collect()
        };
        if !rates(0).is_empty() {
            let rate = |k: usize| shown(spread(&rates(k)).0, 0, "");
            lines.push(format!(
                "{} inference (compiled, after training): {} positions/s, {} per CPU second (medians)",
                r.contestant.name(),
                rate(0),
                rate(1)
            ));
        }
    }
    if all.iter().any(|r| r.runs.iter().any(|m| m.cpu_split)) {
        lines.push("* the run's CPU seconds split evenly over its epochs".into());
    }
    let find = |coalesced: bool, threads: usize| {
        all.iter().find(|r| {
            matches!(r.contestant, Contestant::Tmbot { .. })
                && r.contestant.family() == (coalesced, threads)
        })
    };
    let per_epoch = |a: &Runs, b: &Runs, pick: fn(&Measured) -> &Vec<f64>| {
        (0..epochs)
            .map(|e| ratio(a.median(e, pick), b.median(e, pick)))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let numbers = (1..=epochs)
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join(" / ");
    for r in all {
        let (coalesced, threads) = r.contestant.family();
        match &r.contestant {
            Contestant::Peer { .. } => {
                if let Some(ours) = find(coalesced, threads) {
                    lines.push(format!(
                        "{} over {} (epochs {}): wall {}, CPU {}",
                        r.contestant.name(),
                        ours.contestant.name(),
                        numbers,
                        per_epoch(r, ours, |m| &m.epoch_wall),
                        per_epoch(r, ours, |m| &m.epoch_cpu),
                    ));
                }
            }
            Contestant::Tmbot { .. } if threads > 1 => {
                if let Some(one) = find(coalesced, 1) {
                    lines.push(format!(
                        "{} speed-up over {} (epochs {}): wall {}",
                        r.contestant.name(),
                        one.contestant.name(),
                        numbers,
                        per_epoch(one, r, |m| &m.epoch_wall),
                    ));
                }
            }
            Contestant::Tmbot { .. } => {}
        }
    }
    lines
}

/// Writes the data files: the generated games, or the given files (training files joined).
fn data_files(args: &Args) -> anyhow::Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("creating {}", args.out_dir.display()))?;
    // Given files are written under names of their own, so the generated games stay put.
    let prefix = if args.test.is_some() { "given-" } else { "" };
    let train_csv = args.out_dir.join(format!("{prefix}train.csv"));
    let test_csv = args.out_dir.join(format!("{prefix}test.csv"));
    let (train, test) = match &args.test {
        Some(test) => {
            let mut joined: Option<Dataset> = None;
            for path in &args.train {
                let part = Dataset::read_csv(path).map_err(|e| anyhow::anyhow!("{e}"))?;
                match &mut joined {
                    Some(j) => {
                        anyhow::ensure!(
                            j.features() == part.features(),
                            "{}: {} features, the first file has {}",
                            path.display(),
                            part.features(),
                            j.features()
                        );
                        j.extend(&part);
                    }
                    None => joined = Some(part),
                }
            }
            let test = Dataset::read_csv(test).map_err(|e| anyhow::anyhow!("{e}"))?;
            (joined.context("no training file")?, test)
        }
        None => (
            hex_games(args.board, args.train_rows, args.seed),
            hex_games(args.board, args.test_rows, args.seed.wrapping_add(1)),
        ),
    };
    println!(
        "data: {} training and {} test rows, {} features, {} classes",
        train.len(),
        test.len(),
        train.features(),
        train.classes().max(test.classes())
    );
    for (data, path) in [(&train, &train_csv), (&test, &test_csv)] {
        data.write_csv(path)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok((train_csv, test_csv))
}

/// Runs the benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(spec) = &args.run {
        return run_tmbot(&args, spec);
    }
    let contestants = if args.runs.is_empty() {
        default_runs(args.peers.is_some())
    } else {
        args.runs
            .iter()
            .map(|r| Contestant::parse(r))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    if contestants
        .iter()
        .any(|c| matches!(c, Contestant::Peer { .. }))
    {
        anyhow::ensure!(args.peers.is_some(), "peer runs need --peers PYTHON");
        anyhow::ensure!(
            args.peers_script.is_file(),
            "--peers-script {} is not a file (run from the project folder or name the script)",
            args.peers_script.display()
        );
    }
    let (train, test) = data_files(&args)?;
    println!(
        "{} clauses, T {}, s {}, {} state bits, boost{}, {} coalesced update; {} epochs, {} \
         interleaved rounds{}",
        args.clauses,
        args.threshold,
        args.s,
        args.state_bits,
        if args.weighted { ", weighted" } else { "" },
        args.coalesced_update,
        args.epochs,
        args.repeats,
        if args.load {
            ", one core kept busy"
        } else {
            ""
        }
    );
    let busy = AtomicBool::new(args.load);
    let mut all: Vec<Runs> = contestants
        .into_iter()
        .map(|contestant| Runs {
            contestant,
            runs: Vec::new(),
        })
        .collect();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        if args.load {
            scope.spawn(|| {
                let mut x = 0u64;
                while busy.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            });
        }
        let result = (|| {
            for round in 1..=args.repeats {
                for r in all.iter_mut() {
                    let m = measure(&args, &r.contestant, &train, &test)?;
                    eprintln!(
                        "round {round}: {:<20} wall {:?} s",
                        r.contestant.name(),
                        m.epoch_wall
                            .iter()
                            .map(|s| (s * 100.0).round() / 100.0)
                            .collect::<Vec<_>>()
                    );
                    r.runs.push(m);
                }
            }
            Ok(())
        })();
        busy.store(false, Ordering::Relaxed);
        result
    })?;
    for line in report(&all, args.epochs) {
        println!("{line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(wall: &[f64]) -> Measured {
        Measured {
            epoch_wall: wall.to_vec(),
            epoch_cpu: wall.to_vec(),
            test_accuracy: vec![0.5; wall.len()],
            growth_mb: 10.0,
            cpu_split: false,
            inference: Vec::new(),
        }
    }

    #[test]
    fn contestants_parse_and_refuse() {
        assert_eq!(
            Contestant::parse("tmbot:coalesced:2").unwrap(),
            Contestant::Tmbot {
                coalesced: true,
                threads: 2
            }
        );
        assert_eq!(Contestant::parse("gt:2").unwrap().family(), (true, 2));
        assert_eq!(Contestant::parse("pytm").unwrap().family(), (false, 1));
        for bad in ["tmbot:conv:1", "tmbot:per-class:0", "gt", "sklearn"] {
            assert!(Contestant::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn medians_and_ratios_pair_each_peer_with_its_family_at_equal_threads() {
        assert_eq!(spread(&[3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(spread(&[4.0, 1.0, 2.0, 3.0]).0, 2.5);
        assert!(spread(&[]).0.is_nan());
        let runs = |name: &str, walls: &[&[f64]]| Runs {
            contestant: Contestant::parse(name).unwrap(),
            runs: walls.iter().map(|w| measured(w)).collect(),
        };
        let all = [
            runs(
                "tmbot:per-class:1",
                &[&[2.0, 1.0], &[4.0, 1.0], &[3.0, 1.0]],
            ),
            runs("pytm", &[&[30.0, 10.0], &[30.0, 10.0], &[30.0, 10.0]]),
            runs("tmbot:coalesced:2", &[&[1.0, 0.5]]),
            runs("gt:2", &[&[2.0, 2.0]]),
            runs("tmbot:per-class:2", &[&[1.5, 0.5]]),
        ];
        let lines = report(&all, 2).join("\n");
        assert!(
            lines.contains("pytm over tmbot per-class 1t (epochs 1 / 2): wall 10.0x / 10.0x"),
            "{lines}"
        );
        assert!(
            lines.contains("gt 2t over tmbot coalesced 2t (epochs 1 / 2): wall 2.0x / 4.0x"),
            "{lines}"
        );
        assert!(lines.contains("tmbot per-class 2t speed-up over tmbot per-class 1t (epochs 1 / 2): wall 2.0x / 2.0x"), "{lines}");
        assert!(!lines.contains("inf") && !lines.contains("NaN"), "{lines}");
    }

    #[test]
    fn ratios_are_never_infinite() {
        assert_eq!(ratio(1.0, 0.0), "n/a");
        assert_eq!(ratio(f64::NAN, 1.0), "n/a");
        assert_eq!(ratio(0.5, 1.0), "0.50x");
    }
}

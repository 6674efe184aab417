//! `arena bench tm`: Tsetlin Machine training and inference speed on random-play 7x7 Hex
//! with seed 000's connection features, optionally side by side with the Python peers
//! (shared/bench/tm_peers.py run on the very same CSV files).

use super::cpu_seconds;
use anyhow::Context;
use rand::Rng as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tmbot::features::hex_connection::HexConnection;
use tmbot::game::hex::geometry::neighbours;
use tmbot::rng;
use tmbot::tm::{CoalescedTm, Dataset, MultiClassTm, Params};

/// Arguments of `arena bench tm`.
#[derive(clap::Args)]
pub struct Args {
    /// Training rows (random-play games).
    #[arg(long, default_value_t = 20_000)]
    train_rows: usize,
    /// Test rows.
    #[arg(long, default_value_t = 5_000)]
    test_rows: usize,
    /// Board side.
    #[arg(long, default_value_t = 7)]
    board: usize,
    /// Seed of the games and of the machines.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Clauses (per class for the per-class machine).
    #[arg(long, default_value_t = 2000)]
    clauses: usize,
    /// Vote clamp T.
    #[arg(long, default_value_t = 100)]
    threshold: i32,
    /// Specificity s.
    #[arg(long, default_value_t = 10.0)]
    s: f64,
    /// State bits.
    #[arg(long, default_value_t = 8)]
    state_bits: usize,
    /// Epochs.
    #[arg(long, default_value_t = 2)]
    epochs: usize,
    /// Positions for the inference measurement.
    #[arg(long, default_value_t = 2_000_000)]
    inference_positions: usize,
    /// Folder for the generated train.csv and test.csv.
    #[arg(long, default_value = "/tmp/tm-bench")]
    out_dir: PathBuf,
    /// Skip the coalesced machine.
    #[arg(long)]
    no_coalesced: bool,
    /// Python interpreter with the peer libraries: runs tm_peers.py on the same files.
    #[arg(long)]
    peers: Option<PathBuf>,
    /// The peers script (relative paths are taken from the current folder).
    #[arg(long, default_value = "shared/bench/tm_peers.py")]
    peers_script: PathBuf,
    /// Peer libraries to run.
    #[arg(long, default_value = "pytm,tmu,tmu_co,gt")]
    libs: String,
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

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// One peer library's figures from tm_peers.py.
struct PeerRun {
    lib: String,
    epoch_seconds: Vec<f64>,
    peak_rss_mb: f64,
}

/// tmbot's own figures, for the ratios against the peers.
struct Ours {
    per_class: Vec<f64>,
    /// Empty with `--no-coalesced`.
    coalesced: Vec<f64>,
    peak_rss_mb: f64,
}

/// Trains `tm` with `fit` for `epochs` epochs, printing each epoch's seconds and the test
/// accuracy from `accuracy`; returns the seconds.
fn timed_epochs<M>(
    name: &str,
    epochs: usize,
    tm: &mut M,
    fit: impl Fn(&mut M),
    accuracy: impl Fn(&M) -> f64,
) -> Vec<f64> {
    (1..=epochs)
        .map(|epoch| {
            let start = Instant::now();
            fit(tm);
            let seconds = start.elapsed().as_secs_f64();
            println!(
                "tmbot {name} epoch {epoch}: {seconds:.2} s, test accuracy {:.2}%",
                100.0 * accuracy(tm)
            );
            seconds
        })
        .collect()
}

/// Each peer's epoch times over tmbot's (same model family: the per-class libraries against
/// the per-class machine, the coalesced ones against the coalesced machine) and tmbot's
/// peak memory over the fastest peer's, as lines to print.
fn ratio_lines(ours: &Ours, peers: &[PeerRun]) -> Vec<String> {
    let mut lines = Vec::new();
    for peer in peers {
        let (family, mine) = if matches!(peer.lib.as_str(), "tmu_co" | "gt") {
            ("coalesced", &ours.coalesced)
        } else {
            ("per-class", &ours.per_class)
        };
        if mine.is_empty() || peer.epoch_seconds.is_empty() {
            continue;
        }
        let ratios: Vec<String> = peer
            .epoch_seconds
            .iter()
            .zip(mine)
            .enumerate()
            .map(|(e, (theirs, mine))| format!("epoch {}: {}", e + 1, ratio(*theirs, *mine)))
            .collect();
        lines.push(format!(
            "speed-up over {:<10} (tmbot {family}): {}",
            peer.lib,
            ratios.join(", ")
        ));
    }
    let total = |p: &PeerRun| p.epoch_seconds.iter().sum::<f64>();
    if let Some(fastest) = peers
        .iter()
        .filter(|p| !p.epoch_seconds.is_empty())
        .min_by(|a, b| total(a).total_cmp(&total(b)))
    {
        lines.push(format!(
            "peak memory: tmbot {:.0} MB = {} that of the fastest peer, {} ({:.0} MB)",
            ours.peak_rss_mb,
            ratio(ours.peak_rss_mb, fastest.peak_rss_mb),
            fastest.lib,
            fastest.peak_rss_mb
        ));
    }
    lines
}

/// `a / b` as `1.5x` (two decimals under 1), or `n/a` when `b` is zero or either is unknown,
/// so that no `inf` or `NaN` is printed.
fn ratio(a: f64, b: f64) -> String {
    let r = a / b;
    match r.is_finite() && b > 0.0 {
        true if r < 1.0 => format!("{r:.2}x"),
        true => format!("{r:.1}x"),
        false => "n/a".to_string(),
    }
}

/// `count / seconds` rounded, or `unmeasured` when the time was too short to measure.
fn per_second(count: f64, seconds: Option<f64>) -> String {
    match seconds {
        Some(s) if s > 0.0 && (count / s).is_finite() => format!("{:.0}", count / s),
        _ => "unmeasured".to_string(),
    }
}

/// The peak resident memory as `123 MB`, or `unknown` where the system does not say.
fn peak_rss_text() -> String {
    peak_rss_mb().map_or("unknown".to_string(), |mb| format!("{mb:.0} MB"))
}

fn run_peers(
    args: &Args,
    python: &Path,
    train: &Path,
    test: &Path,
) -> anyhow::Result<Vec<PeerRun>> {
    anyhow::ensure!(
        args.peers_script.is_file(),
        "--peers-script {} is not a file (run from the project folder or name the script)",
        args.peers_script.display()
    );
    eprintln!("running peers {} (this takes minutes)", args.libs);
    let output = std::process::Command::new(python)
        .arg(&args.peers_script)
        .args(["--train", &train.display().to_string()])
        .args(["--test", &test.display().to_string()])
        .args(["--clauses", &args.clauses.to_string()])
        .args(["--T", &args.threshold.to_string()])
        .args(["--s", &args.s.to_string()])
        .args(["--epochs", &args.epochs.to_string()])
        .args(["--state-bits", &args.state_bits.to_string()])
        .args(["--libs", &args.libs])
        // Peers that can use threads get as many as tmbot.
        .args(["--jobs", &rayon::current_num_threads().to_string()])
        .output()
        .with_context(|| format!("running {}", python.display()))?;
    anyhow::ensure!(
        output.status.success(),
        "{} failed: {}",
        args.peers_script.display(),
        String::from_utf8_lossy(&output.stderr).trim()
    );
    let mut runs = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let lib = v["lib"].as_str().unwrap_or("?");
        if let Some(e) = v.get("error") {
            println!("peer {lib:<10} error: {}", e.as_str().unwrap_or("?").trim());
            continue;
        }
        let list = |key: &str, scale: f64| -> String {
            v[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|x| format!("{:.2}", x.as_f64().unwrap_or(f64::NAN) * scale))
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .unwrap_or_default()
        };
        let peak_rss_mb = v["peak_rss_mb"].as_f64().unwrap_or(f64::NAN);
        println!(
            "peer {lib:<10} epoch s: {}  test acc %: {}  peak RSS {peak_rss_mb:.0} MB",
            list("epoch_s", 1.0),
            list("test_acc", 100.0),
        );
        let epoch_seconds = v["epoch_s"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
            .unwrap_or_default();
        runs.push(PeerRun {
            lib: lib.to_string(),
            epoch_seconds,
            peak_rss_mb,
        });
    }
    Ok(runs)
}

/// Runs the benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let train = hex_games(args.board, args.train_rows, args.seed);
    let test = hex_games(args.board, args.test_rows, args.seed.wrapping_add(1));
    println!(
        "data: {} train + {} test random-play {}x{} Hex games, {} features, generated in {:.1} s",
        train.len(),
        test.len(),
        args.board,
        args.board,
        train.features(),
        t0.elapsed().as_secs_f64()
    );
    std::fs::create_dir_all(&args.out_dir)
        .with_context(|| format!("creating {}", args.out_dir.display()))?;
    let train_csv = args.out_dir.join("train.csv");
    let test_csv = args.out_dir.join("test.csv");
    train
        .write_csv(&train_csv)
        .with_context(|| format!("writing {}", train_csv.display()))?;
    test.write_csv(&test_csv)
        .with_context(|| format!("writing {}", test_csv.display()))?;

    let params = Params {
        clauses: args.clauses,
        threshold: args.threshold,
        specificity: args.s,
        state_bits: args.state_bits,
        boost_true_positive: true,
        seed: args.seed,
        ..Params::default()
    };
    println!(
        "per-class TM: {} clauses per class, T {}, s {}, {} state bits, boost, {} threads",
        args.clauses,
        args.threshold,
        args.s,
        args.state_bits,
        rayon::current_num_threads()
    );
    let mut tm =
        MultiClassTm::new(params.clone(), train.features(), 2).map_err(anyhow::Error::msg)?;
    let per_class = timed_epochs(
        "per-class",
        args.epochs,
        &mut tm,
        |tm| tm.fit_epoch(&train),
        |tm| test.accuracy(&tm.compile().predict(&test)),
    );
    println!("tmbot peak RSS (VmHWM) {}", peak_rss_text());

    let mut compiled = tm.compile();
    compiled.order_literals_by(&train);
    drop(tm);
    let rounds = args.inference_positions.div_ceil(test.len().max(1));
    let start = Instant::now();
    let cpu_start = cpu_seconds();
    let mut checksum = 0i64;
    for _ in 0..rounds {
        checksum += compiled
            .class_sums(&test)
            .iter()
            .map(|&v| v as i64)
            .sum::<i64>();
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu_start).map(|(end, begin)| end - begin);
    let positions = (rounds * test.len()) as f64;
    println!(
        "tmbot inference: {} positions/s, {} per CPU second ({} positions, {} non-empty clauses, checksum {checksum})",
        per_second(positions, Some(seconds)),
        per_second(positions, cpu),
        rounds * test.len(),
        compiled.clauses().len()
    );
    drop(compiled);

    let mut coalesced = Vec::new();
    if !args.no_coalesced {
        println!(
            "coalesced TM: {} clauses shared by the classes",
            args.clauses
        );
        let mut co = CoalescedTm::new(params, train.features(), 2).map_err(anyhow::Error::msg)?;
        coalesced = timed_epochs(
            "coalesced",
            args.epochs,
            &mut co,
            |co| co.fit_epoch(&train),
            |co| test.accuracy(&co.compile().predict(&test)),
        );
        println!("tmbot peak RSS (VmHWM) after both {}", peak_rss_text());
    }
    if let Some(python) = &args.peers {
        let peers = run_peers(&args, python, &train_csv, &test_csv)?;
        let ours = Ours {
            per_class,
            coalesced,
            peak_rss_mb: peak_rss_mb().unwrap_or(f64::NAN),
        };
        for line in ratio_lines(&ours, &peers) {
            println!("{line}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_are_never_infinite() {
        assert_eq!(ratio(3.0, 2.0), "1.5x");
        assert_eq!(ratio(1.0, 4.0), "0.25x");
        assert_eq!(ratio(1.0, 0.0), "n/a");
        assert_eq!(ratio(f64::NAN, 2.0), "n/a");
        assert_eq!(per_second(10.0, Some(2.0)), "5");
        assert_eq!(per_second(10.0, Some(0.0)), "unmeasured");
        assert_eq!(per_second(10.0, None), "unmeasured");
    }

    #[test]
    fn ratios_compare_each_peer_with_its_own_model_family() {
        let peer = |lib: &str, epoch_seconds: Vec<f64>, peak_rss_mb| PeerRun {
            lib: lib.into(),
            epoch_seconds,
            peak_rss_mb,
        };
        let ours = Ours {
            per_class: vec![2.0, 1.0],
            coalesced: vec![1.0, 0.5],
            peak_rss_mb: 100.0,
        };
        let peers = [
            peer("pytm", vec![20.0, 6.0], 600.0),
            peer("gt", vec![3.0, 2.0], 400.0),
            peer("tmu", vec![], 700.0),
        ];
        assert_eq!(
            ratio_lines(&ours, &peers),
            [
                "speed-up over pytm       (tmbot per-class): epoch 1: 10.0x, epoch 2: 6.0x",
                "speed-up over gt         (tmbot coalesced): epoch 1: 3.0x, epoch 2: 4.0x",
                "peak memory: tmbot 100 MB = 0.25x that of the fastest peer, gt (400 MB)",
            ]
        );
    }
}

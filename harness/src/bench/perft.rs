//! `arena bench perft`: single-threaded checkers perft from the start position in both
//! capture modes, best of several runs (the machine may be shared).

use std::time::Instant;
use tmbot::game::checkers::{perft, CaptureMode, Position};

/// Arguments of `arena bench perft`.
#[derive(clap::Args)]
pub struct Args {
    /// Depth of the perft.
    #[arg(long, default_value_t = 11)]
    depth: u32,
    /// Runs per mode; the fastest is reported with the median.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
}

/// Runs the benchmark and prints nodes, seconds and nodes per second for each mode.
pub fn run(args: Args) -> anyhow::Result<()> {
    for (name, mode) in [
        ("paths", CaptureMode::Paths),
        ("positions", CaptureMode::Distinct),
    ] {
        let mut nodes = 0;
        let mut seconds: Vec<f64> = (0..args.runs)
            .map(|_| {
                let started = Instant::now();
                nodes = perft(&Position::start(), args.depth, mode);
                started.elapsed().as_secs_f64()
            })
            .collect();
        seconds.sort_by(f64::total_cmp);
        let rate = |s: f64| nodes as f64 / s.max(1e-9) / 1e6;
        let (best, median) = (seconds[0], seconds[seconds.len() / 2]);
        println!(
            "checkers perft {name:<9} depth {}: {nodes} nodes, best {best:.3} s = {:.1} M nodes/s, \
             median {median:.3} s = {:.1} M nodes/s ({} runs, 1 thread)",
            args.depth,
            rate(best),
            rate(median),
            args.runs
        );
    }
    Ok(())
}

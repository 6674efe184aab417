//! `arena bench perft`: single-threaded checkers perft from the start position in both
//! capture modes.

use std::time::Instant;
use tmbot::game::checkers::{perft, CaptureMode, Position};

/// Arguments of `arena bench perft`.
#[derive(clap::Args)]
pub struct Args {
    /// Depth of the perft.
    #[arg(long, default_value_t = 11)]
    depth: u32,
}

/// Runs the benchmark and prints nodes, seconds and nodes per second for each mode.
pub fn run(args: Args) -> anyhow::Result<()> {
    for (name, mode) in [
        ("paths", CaptureMode::Paths),
        ("positions", CaptureMode::Distinct),
    ] {
        let started = Instant::now();
        let nodes = perft(&Position::start(), args.depth, mode);
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "checkers perft {name:<9} depth {}: {nodes} nodes in {seconds:.3} s = {:.1} M nodes/s",
            args.depth,
            nodes as f64 / seconds.max(1e-9) / 1e6
        );
    }
    Ok(())
}

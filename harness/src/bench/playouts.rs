//! `arena bench playouts`: uniform random Hex playouts from the empty board.

use rayon::prelude::*;
use std::time::Instant;
use tmbot::game::hex::Hex;
use tmbot::rng;

/// Arguments of `arena bench playouts`.
#[derive(clap::Args)]
pub struct Args {
    /// Board side (width = height).
    #[arg(long, default_value_t = 11)]
    size: usize,
    /// Playouts per measurement.
    #[arg(long, default_value_t = 2_000_000)]
    count: u64,
    /// Threads for the parallel measurement (0 skips it).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `count` playouts on one thread from sub-stream `stream`; returns Black's wins.
fn black_wins(game: &Hex, seed: u64, stream: u64, count: u64) -> u64 {
    let mut rng = rng::substream(seed, stream);
    (0..count)
        .filter(|_| game.fill_playout(&mut rng).0 == tmbot::game::Color::Black)
        .count() as u64
}

/// Runs the benchmark and prints playouts per second.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.count > 0, "--count must be at least 1");
    let game = Hex::new(args.size, args.size)?;
    let start = Instant::now();
    let wins = black_wins(&game, args.seed, 0, args.count);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "hex {0}x{0} uniform playouts, 1 thread: {1} in {2:.3} s = {3:.0} playouts/s (Black won {4:.1}%)",
        args.size,
        args.count,
        secs,
        args.count as f64 / secs,
        100.0 * wins as f64 / args.count as f64
    );
    if args.threads > 0 {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(args.threads)
            .build()?;
        let per_thread = args.count.div_ceil(args.threads as u64);
        let start = Instant::now();
        pool.install(|| {
            (0..args.threads as u64)
                .into_par_iter()
                .map(|t| black_wins(&game, args.seed, t + 1, per_thread))
                .sum::<u64>()
        });
        let secs = start.elapsed().as_secs_f64();
        let total = per_thread * args.threads as u64;
        println!(
            "hex {0}x{0} uniform playouts, {1} threads: {2:.0} playouts/s ({3:.0} per thread)",
            args.size,
            args.threads,
            total as f64 / secs,
            total as f64 / secs / args.threads as f64
        );
    }
    Ok(())
}

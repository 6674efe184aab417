//! `arena bench playouts`: Hex playouts from the empty board, uniform random fills and the
//! bridge-keeping pattern playout.

use rayon::prelude::*;
use std::time::Instant;
use tmbot::game::hex::playout::bridge_playout;
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
    /// The playout: uniform (random fill), bridges (the pattern playout) or weighted (the
    /// pattern playout with the move patterns' local weights).
    #[arg(long, value_enum, default_value_t = Policy::Uniform)]
    policy: Policy,
}

/// Which playout the benchmark runs.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Policy {
    /// Every empty cell filled in random order.
    Uniform,
    /// Random order, but an intrusion into a bridge is answered at once.
    Bridges,
    /// Bridge-keeping, and moves next to the last one drawn by the move patterns' weights.
    Weighted,
}

impl Policy {
    fn winner(self, game: &Hex, rng: &mut rng::Rng) -> tmbot::game::Color {
        match self {
            Policy::Uniform => game.fill_playout(rng).0,
            Policy::Bridges => bridge_playout(game, rng, false).0,
            Policy::Weighted => bridge_playout(game, rng, true).0,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Policy::Uniform => "uniform",
            Policy::Bridges => "bridge-keeping",
            Policy::Weighted => "weighted",
        }
    }
}

/// Runs `count` playouts on one thread from sub-stream `stream`; returns Black's wins.
fn black_wins(game: &Hex, policy: Policy, seed: u64, stream: u64, count: u64) -> u64 {
    let mut rng = rng::substream(seed, stream);
    (0..count)
        .filter(|_| policy.winner(game, &mut rng) == tmbot::game::Color::Black)
        .count() as u64
}

/// Runs the benchmark and prints playouts per second.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.count > 0, "--count must be at least 1");
    let game = Hex::new(args.size, args.size)?;
    let start = Instant::now();
    let wins = black_wins(&game, args.policy, args.seed, 0, args.count);
    let secs = start.elapsed().as_secs_f64();
    println!(
        "hex {0}x{0} {5} playouts, 1 thread: {1} in {2:.3} s = {3:.0} playouts/s (Black won {4:.1}%)",
        args.size,
        args.count,
        secs,
        args.count as f64 / secs,
        100.0 * wins as f64 / args.count as f64,
        args.policy.name()
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
                .map(|t| black_wins(&game, args.policy, args.seed, t + 1, per_thread))
                .sum::<u64>()
        });
        let secs = start.elapsed().as_secs_f64();
        let total = per_thread * args.threads as u64;
        println!(
            "hex {0}x{0} {4} playouts, {1} threads: {2:.0} playouts/s ({3:.0} per thread)",
            args.size,
            args.threads,
            total as f64 / secs,
            total as f64 / secs / args.threads as f64,
            args.policy.name()
        );
    }
    Ok(())
}

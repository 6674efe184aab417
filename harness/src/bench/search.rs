//! `arena bench search`: MCTS simulations per second on an empty Hex board (1 and 2
//! threads, uniform playouts) and alpha-beta nodes per second on checkers from the start.

use std::time::Instant;
use tmbot::eval::checkers::Material;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::rng;
use tmbot::search::alphabeta::AlphaBeta;
use tmbot::search::mcts::{Mcts, MctsConfig};
use tmbot::search::Limits;

/// Arguments of `arena bench search`.
#[derive(clap::Args)]
pub struct Args {
    /// Hex board size for the MCTS figures.
    #[arg(long, default_value_t = 11)]
    size: usize,
    /// Simulations per MCTS run.
    #[arg(long, default_value_t = 300_000)]
    playouts: u64,
    /// Alpha-beta depth on checkers (0 skips it).
    #[arg(long, default_value_t = 10)]
    depth: u32,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs the search benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    let hex = Hex::new(args.size, args.size)?;
    let limits = Limits {
        playouts: Some(args.playouts),
        ..Limits::default()
    };
    let mut single = 0.0;
    for threads in [1, 2] {
        let mut mcts = Mcts::new(MctsConfig {
            threads,
            ..MctsConfig::default()
        });
        let started = Instant::now();
        let report = mcts.search(&hex, &limits, &mut rng::seeded(args.seed));
        let seconds = started.elapsed().as_secs_f64();
        let rate = report.simulations as f64 / seconds;
        if threads == 1 {
            single = rate;
        }
        println!(
            "mcts {0}x{0} empty, {threads} thread(s): {1} simulations in {seconds:.3} s = {rate:.0}/s ({2:.2}x), {3} tree nodes",
            args.size,
            report.simulations,
            rate / single,
            report.tree_nodes
        );
    }
    if args.depth > 0 {
        let mut search = AlphaBeta::<Checkers>::new(22);
        let limits = Limits {
            depth: Some(args.depth),
            ..Limits::default()
        };
        let started = Instant::now();
        let report = search.search(
            &Checkers::new(),
            &Material::default(),
            &limits,
            &mut rng::seeded(args.seed),
        );
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "alphabeta checkers start, depth {}: {} nodes in {seconds:.3} s = {:.0} nodes/s (score {})",
            report.depth,
            report.nodes,
            report.nodes as f64 / seconds,
            report.score
        );
    }
    Ok(())
}

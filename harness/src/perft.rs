//! `arena perft GAME --depth N`: leaf counts of the legal-move tree, one line per depth.
//! Only English checkers is offered: in Hex every empty cell is a legal move, so perft(d) of
//! an n-cell board is n!/(n-d)! and says nothing about the rules code.

use anyhow::Context;
use std::time::Instant;
use tmbot::game::checkers::{parse_fen, perft, perft_parallel, CaptureMode, Position};

/// The game whose move tree is counted.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum PerftGame {
    /// English checkers.
    Checkers,
}

/// Arguments of `arena perft`.
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(value_enum)]
    game: PerftGame,
    /// Deepest depth counted (every depth from 1 is printed; 0 prints perft(0) = 1).
    #[arg(long, default_value_t = 9)]
    depth: u32,
    /// Start position as a FEN (default: the standard start).
    #[arg(long)]
    fen: Option<String>,
    /// Count distinct positions (capture paths with one effect count once) instead of
    /// every jump path (the published tables).
    #[arg(long)]
    positions: bool,
    /// Threads sharing the root moves (1: the single-threaded perft; 0: one per core).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Print one JSON object per depth instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `arena perft`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let PerftGame::Checkers = args.game;
    let position = match &args.fen {
        Some(fen) => parse_fen(fen).context("--fen")?,
        None => Position::start(),
    };
    let mode = if args.positions {
        CaptureMode::Distinct
    } else {
        CaptureMode::Paths
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("cannot start the perft threads")?;
    for depth in args.depth.min(1)..=args.depth {
        let started = Instant::now();
        let nodes = if args.threads == 1 {
            perft(&position, depth, mode)
        } else {
            pool.install(|| perft_parallel(&position, depth, mode))
        };
        let seconds = started.elapsed().as_secs_f64();
        let rate = nodes as f64 / seconds.max(1e-9);
        if args.json {
            let line = serde_json::json!({
                "depth": depth, "nodes": nodes, "seconds": seconds, "nodes_per_second": rate,
            });
            println!("{line}");
        } else {
            println!(
                "perft({depth}) = {nodes}  ({seconds:.3} s, {:.1} M nodes/s)",
                rate / 1e6
            );
        }
    }
    Ok(())
}

//! `arena bench search`: MCTS simulations per second on an empty Hex board at one thread
//! and at two (root and tree parallelism), interleaved over repeats, and alpha-beta nodes
//! per second on checkers from the start and, with `--ballots`, over the positions of an
//! opening deck with a player's own evaluation and tables.

use super::cpu_seconds;
use crate::stats::median;
use std::path::PathBuf;
use std::time::Instant;
use tmbot::eval::checkers::Material;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::play::openings::Book;
use tmbot::player::Player;
use tmbot::rng;
use tmbot::search::alphabeta::AlphaBeta;
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
    /// The MCTS player timed (its threads are set by the benchmark).
    #[arg(long, default_value = "mcts")]
    mcts: String,
    /// Runs of each variant, interleaved; their medians are reported.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Alpha-beta depth on checkers (0 skips it).
    #[arg(long, default_value_t = 10)]
    depth: u32,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A checkers opening deck: the player of `--checkers-player` searches the position of
    /// each of its first `--ballot-count` ballots, one after another, with a fresh game each.
    #[arg(long)]
    ballots: Option<PathBuf>,
    /// Ballots searched from the deck.
    #[arg(long, default_value_t = 24)]
    ballot_count: usize,
    /// The checkers player of `--ballots` (its spec bounds each search: a depth or a time).
    #[arg(long, default_value = "alphabeta:depth=12")]
    checkers_player: String,
}

/// Runs the search benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    let hex = Hex::new(args.size, args.size)?;
    let limits = Limits {
        playouts: Some(args.playouts),
        ..Limits::default()
    };
    let joiner = if args.mcts.contains(':') { ',' } else { ':' };
    let variants = [
        ("1 thread", String::new()),
        ("2 threads, root parallel", "threads=2".to_string()),
        (
            "2 threads, tree parallel",
            "threads=2,parallel=tree".to_string(),
        ),
    ];
    let mut players = Vec::new();
    for (_, options) in &variants {
        let spec = match options.as_str() {
            "" => args.mcts.clone(),
            options => format!("{}{joiner}{options}", args.mcts),
        };
        players.push(Player::<Hex>::from_spec(&spec).map_err(|e| anyhow::anyhow!("{e}"))?);
    }
    // Per variant: simulations/s by wall time, CPU seconds per wall second, tree nodes.
    let mut runs = vec![(Vec::new(), Vec::new(), 0u64); variants.len()];
    for repeat in 0..args.repeats.max(1) {
        for (player, run) in players.iter_mut().zip(&mut runs) {
            player.new_game();
            let (started, cpu) = (Instant::now(), cpu_seconds());
            let decision =
                player.decide(&hex, &limits, &mut rng::seeded(args.seed + repeat as u64));
            let seconds = started.elapsed().as_secs_f64();
            let cpu = cpu_seconds().zip(cpu).map_or(f64::NAN, |(b, a)| b - a);
            run.0.push(decision.playouts.unwrap_or(0) as f64 / seconds);
            run.1.push(cpu / seconds);
            run.2 = decision.nodes.unwrap_or(0);
        }
    }
    let single = median(&runs[0].0);
    for ((name, _), (rates, cores, nodes)) in variants.iter().zip(&runs) {
        let rate = median(rates);
        println!(
            "{} on {1}x{1} empty, {name}: {rate:.0} simulations/s ({2:.2}x), {3:.2} CPU s per wall s, {nodes} tree nodes (median of {4})",
            args.mcts,
            args.size,
            rate / single,
            median(cores),
            rates.len()
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
    if let Some(path) = &args.ballots {
        ballots(path, &args)?;
    }
    Ok(())
}

/// Alpha-beta nodes per second over the positions of an opening deck.
fn ballots(path: &std::path::Path, args: &Args) -> anyhow::Result<()> {
    let book = Book::load(path).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut player =
        Player::<Checkers>::from_spec(&args.checkers_player).map_err(|e| anyhow::anyhow!("{e}"))?;
    let (mut nodes, mut searched) = (0u64, 0usize);
    let (started, cpu) = (Instant::now(), cpu_seconds());
    for i in 0..args.ballot_count.min(book.len()) {
        let (position, _) = book
            .apply(i, &Checkers::new())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        player.new_game();
        let decision = player.decide(&position, &Limits::default(), &mut rng::seeded(args.seed));
        if let Some(n) = decision.nodes {
            nodes += n;
            searched += 1;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds().zip(cpu).map_or(f64::NAN, |(b, a)| b - a);
    println!(
        "{}: {searched} ballots searched, {nodes} nodes in {seconds:.3} s ({cpu:.3} CPU s) = {:.0} nodes/s",
        args.checkers_player,
        nodes as f64 / seconds
    );
    Ok(())
}

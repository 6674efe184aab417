//! `arena bench TARGET`: benchmarks that print their figures (and peers' figures side by side).

mod engine;
mod perft;
mod playouts;
mod search;
mod tm;

use clap::Subcommand;

/// Arguments of `arena bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    target: Target,
}

#[derive(Subcommand)]
enum Target {
    /// Single-threaded checkers perft from the start (paths and positions modes).
    Perft(perft::Args),
    /// Uniform random Hex playouts from the empty board (playouts/s).
    Playouts(playouts::Args),
    /// MCTS simulations/s on empty Hex (1 and 2 threads), alpha-beta nodes/s on checkers.
    Search(search::Args),
    /// Tsetlin Machine training and inference on random-play Hex (with peers).
    Tm(tm::Args),
    /// The tmbot binary: start-up to first answer, genmove wall time under max_time.
    Engine(engine::Args),
}

/// Runs one benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.target {
        Target::Perft(args) => perft::run(args),
        Target::Playouts(args) => playouts::run(args),
        Target::Search(args) => search::run(args),
        Target::Tm(args) => tm::run(args),
        Target::Engine(args) => engine::run(args),
    }
}

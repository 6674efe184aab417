//! `arena bench TARGET`: benchmarks that print their figures (and peers' figures side by side).

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
    /// Tsetlin Machine training and inference on random-play Hex (with peers).
    Tm(tm::Args),
}

/// Runs one benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.target {
        Target::Tm(a) => tm::run(a),
    }
}

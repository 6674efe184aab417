//! `arena bench TARGET`: benchmarks that print their figures (and peers' figures side by side).

use clap::Subcommand;

/// Arguments of `arena bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    target: Target,
}

#[derive(Subcommand)]
enum Target {}

/// Runs one benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.target {}
}

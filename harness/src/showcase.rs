//! `arena showcase`: the main job on its defaults: the tournament file
//! `tournaments/quickstart.toml` (round robins of built-in players in Hex and checkers, a
//! Tsetlin-Machine-evaluated player among them) into `quickstart-out/`. Run again, it
//! continues an interrupted showcase or prints the finished one's tables.

use crate::tournament;
use std::path::PathBuf;

/// Arguments of `arena showcase`.
#[derive(clap::Args)]
pub struct Args {
    /// The tournament file.
    #[arg(long, default_value = "tournaments/quickstart.toml")]
    file: PathBuf,
    /// Output folder.
    #[arg(long, default_value = "quickstart-out")]
    out: PathBuf,
    /// Games played at once (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
}

/// Runs `arena showcase`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if !args.file.exists() {
        anyhow::bail!(
            "{} not found: run the showcase from the repository root, or give --file",
            args.file.display()
        );
    }
    tournament::run(tournament::Args {
        file: args.file,
        out: args.out,
        resume: true,
        concurrency: args.concurrency,
        shard: None,
        json: false,
    })
}

//! `arena export MODEL --out FILE`: writes a model's include masks and weights in the
//! inference export format (see `tmbot::tm::persist`), loadable without the automata states.

use std::path::PathBuf;
use tmbot::tm::persist::{save_inference, SavedModel};

/// Arguments of `arena export`.
#[derive(clap::Args)]
pub struct Args {
    /// The model file.
    model: PathBuf,
    /// Where to write the export.
    #[arg(long, short)]
    out: PathBuf,
}

/// Runs `arena export`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let model = SavedModel::load(&args.model)?;
    save_inference(&model, &args.out)?;
    eprintln!("exported {}", args.out.display());
    Ok(())
}

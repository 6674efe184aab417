//! `arena perft` (not yet built).

/// Arguments of `arena perft`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `arena perft`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("arena perft is not available yet")
}

//! `arena train` (not yet built).

/// Arguments of `arena train`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `arena train`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("arena train is not available yet")
}

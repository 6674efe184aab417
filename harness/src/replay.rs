//! `arena replay` (not yet built).

/// Arguments of `arena replay`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `arena replay`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("arena replay is not available yet")
}

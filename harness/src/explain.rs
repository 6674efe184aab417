//! `arena explain` (not yet built).

/// Arguments of `arena explain`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `arena explain`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("arena explain is not available yet")
}

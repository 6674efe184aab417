//! `arena cv` (not yet built).

/// Arguments of `arena cv`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs `arena cv`.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("arena cv is not available yet")
}

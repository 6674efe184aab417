//! `arena evolve FILE.toml`: seed 003's evolution of neural players on a hexagonal torus,
//! extended (other fitness, shakes, mutations, networks, searches; checkers).
//!
//! - [`config`]: the evolution file; each (run, seed) is an independent shard;
//! - [`torus`]: the population's neighbourhoods;
//! - [`breed`]: breeding and mutation;
//! - [`games`]: the games, all through the referee;
//! - [`run`]: one evolution with its log, checkpoints, evaluation and exports;
//! - [`report`]: the comparison of finished runs (distributions, cross-population games).

pub mod breed;
pub mod config;
pub mod games;
pub mod report;
pub mod run;
pub mod torus;

use crate::tournament::Shard as ShardSpec;
use anyhow::Context;
use std::path::PathBuf;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::stop::StopFlag;

/// Arguments of `arena evolve`.
#[derive(clap::Args)]
pub struct Args {
    /// The evolution file (TOML): an [evolve] table and [[run]] tables with their seeds.
    pub file: PathBuf,
    /// Output folder: one folder per run and seed (NAME-sSEED), and report/.
    #[arg(long, default_value = "evolve-out")]
    pub out: PathBuf,
    /// Continue interrupted runs from their checkpoints (finished runs are skipped).
    #[arg(long)]
    pub resume: bool,
    /// Run only shard K of N (1-based) of the file's runs x seeds (e.g. a Slurm array task).
    #[arg(long)]
    pub shard: Option<ShardSpec>,
    /// Evolve this many generations instead of the file's (with --resume: extend runs).
    #[arg(long)]
    pub generations: Option<u64>,
    /// Compare the finished runs instead of evolving: distributions, summary table and,
    /// with --cross, cross-population games.
    #[arg(long)]
    pub report: bool,
    /// With --report: players sampled per population for the cross-population round robin
    /// (each meets each sampled player of every other population twice, colours swapped).
    #[arg(long, default_value_t = 0)]
    pub cross: usize,
    /// Print summaries as JSON (no progress bar).
    #[arg(long)]
    pub json: bool,
}

/// Runs `arena evolve`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let shards = config::load(&args.file)?;
    if args.report {
        return report::write(&shards, &args.out, args.cross, args.json);
    }
    let picked: Vec<&config::Shard> = shards
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            args.shard
                .is_none_or(|s| *i as u64 % s.count == s.index - 1)
        })
        .map(|(_, s)| s)
        .collect();
    let stop = StopFlag::default();
    let _ = tmbot::play::external::install_interrupt_handler(stop.clone());
    let options = run::RunOptions {
        resume: args.resume,
        generations: args.generations,
        stop,
        quiet: args.json,
    };
    let mut stopped = false;
    for shard in picked {
        let dir = run::shard_dir(&args.out, shard);
        let summary = match shard.config.game.as_str() {
            "checkers" => run::evolve::<Checkers>(shard, &dir, &options),
            _ => run::evolve::<Hex>(shard, &dir, &options),
        }
        .with_context(|| format!("run {}", shard.id()))?;
        match summary {
            Some(summary) if args.json => println!("{}", serde_json::to_string(&summary)?),
            Some(summary) => println!("{}", report::summary_line(&summary)),
            None => {
                eprintln!("{}: stopped; continue with --resume", shard.id());
                stopped = true;
                break;
            }
        }
    }
    if stopped {
        anyhow::bail!("interrupted");
    }
    Ok(())
}

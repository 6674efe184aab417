//! `arena sprt`: the sequential probability ratio test of a result, as fastchess and fishtest
//! run it (generalised SPRT on trinomial or pentanomial counts, logistic or normalised Elo).
//! Counts come from the command line or from every pairing of a tournament's summary.

use crate::stats::{self, EloModel, Penta, SprtState, Wdl};
use anyhow::{bail, Context};
use std::path::PathBuf;

/// Arguments of `arena sprt`.
#[derive(clap::Args)]
pub struct Args {
    /// Elo of the null hypothesis.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    /// Elo of the alternative hypothesis.
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
    elo1: f64,
    /// False positive rate.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// False negative rate.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// Elo model of elo0 and elo1.
    #[arg(long, value_enum, default_value = "normalized")]
    model: Model,
    /// Wins, draws, losses: `W,D,L`.
    #[arg(long, conflicts_with_all = ["penta", "summary"])]
    wdl: Option<String>,
    /// Pair counts `LL,LD,WL+DD,WD,WW`.
    #[arg(long, conflicts_with = "summary")]
    penta: Option<String>,
    /// A tournament's output folder: test every pairing of its summary.json.
    #[arg(long)]
    summary: Option<PathBuf>,
}

/// The Elo model on the command line.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum Model {
    Logistic,
    Normalized,
}

fn counts(text: &str, n: usize, what: &str) -> anyhow::Result<Vec<u64>> {
    let values: Vec<u64> = text
        .split(',')
        .map(|v| v.trim().parse::<u64>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("{what} '{text}': expected {n} whole numbers"))?;
    if values.len() != n {
        bail!(
            "{what} '{text}': expected {n} numbers, got {}",
            values.len()
        );
    }
    Ok(values)
}

/// One test's line.
fn verdict(name: &str, llr: f64, bounds: (f64, f64)) -> String {
    let state = match stats::sprt_decide(llr, bounds) {
        SprtState::Continue => "continue",
        SprtState::AcceptH0 => "H0 accepted",
        SprtState::AcceptH1 => "H1 accepted",
    };
    format!(
        "{name}LLR {llr:.3} ({:.1}%) [{:.3}, {:.3}]: {state}",
        100.0 * llr / if llr < 0.0 { -bounds.0 } else { bounds.1 },
        bounds.0,
        bounds.1
    )
}

/// Runs `arena sprt`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if !(0.0 < args.alpha && args.alpha < 0.5 && 0.0 < args.beta && args.beta < 0.5) {
        bail!("--alpha and --beta must lie between 0 and 0.5");
    }
    if args.elo0 >= args.elo1 {
        bail!("--elo0 must be below --elo1");
    }
    let model = match args.model {
        Model::Logistic => EloModel::Logistic,
        Model::Normalized => EloModel::Normalized,
    };
    let bounds = stats::sprt_bounds(args.alpha, args.beta);
    println!(
        "SPRT elo0 {} elo1 {} alpha {} beta {} ({:?} Elo)",
        args.elo0, args.elo1, args.alpha, args.beta, args.model
    );
    if let Some(text) = &args.wdl {
        let c = counts(text, 3, "--wdl")?;
        let wdl = Wdl {
            wins: c[0],
            draws: c[1],
            losses: c[2],
        };
        let llr = stats::llr_trinomial(&wdl, args.elo0, args.elo1, model);
        println!("{}", verdict("", llr, bounds));
    } else if let Some(text) = &args.penta {
        let c = counts(text, 5, "--penta")?;
        let penta = Penta {
            ll: c[0],
            ld: c[1],
            wl_dd: c[2],
            wd: c[3],
            ww: c[4],
        };
        let llr = stats::llr_pentanomial(&penta, args.elo0, args.elo1, model);
        println!("{}", verdict("", llr, bounds));
    } else if let Some(dir) = &args.summary {
        let path = dir.join("summary.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let summary: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a tournament summary", path.display()))?;
        let events = summary["events"]
            .as_array()
            .with_context(|| format!("{}: no events", path.display()))?;
        for event in events {
            for pairing in event["pairings"].as_array().into_iter().flatten() {
                let wdl: Wdl = serde_json::from_value(pairing["wdl"].clone())?;
                let penta: Penta = serde_json::from_value(pairing["penta"].clone())?;
                let llr = if penta.pairs() > 0 {
                    stats::llr_pentanomial(&penta, args.elo0, args.elo1, model)
                } else {
                    stats::llr_trinomial(&wdl, args.elo0, args.elo1, model)
                };
                let name = format!(
                    "{}: {} vs {}: ",
                    event["name"].as_str().unwrap_or("?"),
                    pairing["a"].as_str().unwrap_or("?"),
                    pairing["b"].as_str().unwrap_or("?")
                );
                println!("{}", verdict(&name, llr, bounds));
            }
        }
    } else {
        bail!("give --wdl, --penta or --summary");
    }
    Ok(())
}

//! `arena baseline`: seed 003's yardstick and a graded ladder.
//!
//! - Against random (default): N games against the uniformly random player, half as the
//!   first player, and the win rate with its 95% interval (Wilson).
//! - `--ladder`: the player meets every rung of a ladder of built-in players of rising
//!   strength (random, greedy, flat Monte Carlo, MCTS at rising playouts, alpha-beta at
//!   rising depth), and each rung meets the next, so one joint rating fit places the player
//!   on the ladder's scale (random = 0).
//!
//! Both run as a tournament (journal, resume, records) in `--out`.

use crate::stats::{self, Wdl};
use crate::tournament::config::{EventConfig, Format, GameName, OnFault, OpeningOrder};
use crate::tournament::config::{PlayerEntry, TournamentFile};
use crate::tournament::{self, report::EventSummary};
use anyhow::bail;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Hex rungs, weakest first.
const HEX_LADDER: [&str; 6] = [
    "random",
    "greedy:eval=twodistance",
    "flatmc:playouts=300",
    "mcts:playouts=300",
    "alphabeta:depth=2",
    "mcts:playouts=3000",
];

/// Checkers rungs, weakest first.
const CHECKERS_LADDER: [&str; 7] = [
    "random",
    "greedy",
    "flatmc:playouts=300",
    "alphabeta:depth=2",
    "alphabeta:depth=4",
    "alphabeta:depth=6",
    "alphabeta:depth=8",
];

/// Arguments of `arena baseline`.
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum)]
    game: crate::matches::GameKind,
    /// Hex board size.
    #[arg(long, default_value_t = 7)]
    size: usize,
    /// The player's spec (in-process or external).
    #[arg(long)]
    player: String,
    /// Games against random (seed 003: 2000), or per ladder pairing with --ladder.
    #[arg(long, default_value_t = 2000)]
    games: u64,
    /// Place the player on the ladder of built-in players instead.
    #[arg(long)]
    ladder: bool,
    /// Seed of every game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output folder (journal, records, results).
    #[arg(long, default_value = "baseline-out")]
    out: PathBuf,
    /// Continue an interrupted baseline in --out.
    #[arg(long)]
    resume: bool,
    /// Games played at once (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// The baseline's result against random.
#[derive(Debug, Serialize)]
struct RandomReport {
    player: String,
    games: u64,
    as_first: Wdl,
    as_second: Wdl,
    win_rate: f64,
    low: f64,
    high: f64,
}

/// A rung's (or the player's) place on the ladder.
#[derive(Debug, Serialize)]
struct Rung {
    name: String,
    elo: f64,
    error95: f64,
}

/// Runs `arena baseline`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let (game, size, rungs): (GameName, Option<usize>, &[&str]) = match args.game {
        crate::matches::GameKind::Hex => (GameName::Hex, Some(args.size), &HEX_LADDER),
        crate::matches::GameKind::Checkers => (GameName::Checkers, None, &CHECKERS_LADDER),
    };
    let opponents: Vec<&str> = if args.ladder {
        rungs.to_vec()
    } else {
        vec!["random"]
    };
    let mut players = vec![PlayerEntry::Named {
        name: "player".into(),
        spec: args.player.clone(),
    }];
    players.extend(opponents.iter().map(|s| PlayerEntry::Spec(s.to_string())));
    let file = TournamentFile {
        seed: args.seed,
        concurrency: None,
        events: vec![EventConfig {
            name: if args.ladder { "ladder" } else { "baseline" }.into(),
            game,
            size,
            format: if args.ladder {
                Format::Ladder
            } else {
                Format::Gauntlet
            },
            games: args.games,
            openings: None,
            opening_order: OpeningOrder::Sequential,
            time_control: None,
            margin: None,
            stall: None,
            playouts: None,
            nodes: None,
            depth: None,
            max_plies: Some(1_000),
            adjudicate_decided: false,
            on_fault: OnFault::Loss,
            players,
        }],
    };
    let text = toml::to_string(&file)?;
    let tournament_args = tournament::Args {
        file: PathBuf::from("(baseline)"),
        out: args.out.clone(),
        resume: args.resume,
        concurrency: args.concurrency,
        shard: None,
        json: args.json,
    };
    let (summaries, interrupted) =
        tournament::run_file(&file, &text, Path::new("."), &tournament_args)?;
    let summary = &summaries[0];
    if args.ladder {
        report_ladder(summary, args.json)?;
    } else {
        report_random(summary, &args)?;
    }
    if interrupted {
        bail!("interrupted: continue with --resume");
    }
    Ok(())
}

fn report_random(summary: &EventSummary, args: &Args) -> anyhow::Result<()> {
    let pairing = &summary.pairings[0];
    let total = pairing.wdl;
    let wins = total.points();
    let (low, high) = stats::wilson(wins, total.games() as f64, stats::Z95);
    let report = RandomReport {
        player: args.player.clone(),
        games: total.games(),
        as_first: pairing.first_as_black,
        as_second: pairing.first_as_white,
        win_rate: wins / total.games().max(1) as f64,
        low,
        high,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} against random, {} (half as first player):\n  as first:  {} wins {} \
             losses {} draws\n  as second: {} wins {} losses {} draws\n  win rate {:.4} (95% \
             interval {:.4} .. {:.4})",
            report.player,
            crate::plural::games(report.games),
            report.as_first.wins,
            report.as_first.losses,
            report.as_first.draws,
            report.as_second.wins,
            report.as_second.losses,
            report.as_second.draws,
            report.win_rate,
            report.low,
            report.high
        );
    }
    Ok(())
}

fn report_ladder(summary: &EventSummary, json: bool) -> anyhow::Result<()> {
    let zero = summary
        .standings
        .iter()
        .find(|s| s.name == "random")
        .map_or(0.0, |s| s.elo);
    let mut rungs: Vec<Rung> = summary
        .standings
        .iter()
        .map(|s| Rung {
            name: s.name.clone(),
            elo: s.elo - zero,
            error95: s.error95,
        })
        .collect();
    rungs.sort_by(|a, b| b.elo.total_cmp(&a.elo));
    if json {
        println!("{}", serde_json::to_string_pretty(&rungs)?);
        return Ok(());
    }
    println!("ladder ratings (random = 0, joint fit over every game):");
    for rung in &rungs {
        let mark = if rung.name == "player" { "  <-" } else { "" };
        println!(
            "  {:>+7.0} +- {:<5.0} {}{mark}",
            rung.elo, rung.error95, rung.name
        );
    }
    for p in summary.pairings.iter().filter(|p| p.a == "player") {
        println!(
            "  player vs {}: +{} ={} -{}",
            p.b, p.wdl.wins, p.wdl.draws, p.wdl.losses
        );
    }
    Ok(())
}

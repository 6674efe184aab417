//! `arena match`: two players (in-process specs or external engines) play a series through
//! the referee with colours alternating (A is Black in even games; games 2k and 2k+1 form a
//! colour-swapped pair), each game from its own seed sub-stream. The result is printed per
//! colour with the score, its 95% interval (Wilson where the normal one degenerates), the Elo
//! of the score with its interval, and the pentanomial counts of the pairs.

use crate::stats::{self, Estimate, Penta, Wdl};
use anyhow::{bail, Context};
use rand::Rng as _;
use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::Color;
use tmbot::play::record::Termination;
use tmbot::play::spec::check_spec;
use tmbot::play::{
    agent_from_spec, play_game, Agent, AgentGame, AgentOptions, GameSettings, TimeControl,
};
use tmbot::rng;

/// Which game is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GameKind {
    /// Hex on a size x size board (no swap).
    Hex,
    /// English checkers from the standard start.
    Checkers,
}

/// Arguments of `arena match`.
#[derive(clap::Args)]
pub struct Args {
    /// The game.
    #[arg(long, value_enum)]
    game: GameKind,
    /// Hex board size.
    #[arg(long, default_value_t = 11)]
    size: usize,
    /// Player A's spec, e.g. `mcts:playouts=2000` or `external:cmd="tmbot hex"`.
    #[arg(long)]
    a: String,
    /// Player B's spec.
    #[arg(long)]
    b: String,
    /// Number of games (A plays Black in the even-numbered ones).
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Seed of the whole series.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Time control: none, 0.5s/move, 40/60+0.6, 10+0.1.
    #[arg(long, default_value = "none")]
    time_control: String,
    /// Plies after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 2_000)]
    max_plies: usize,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// The whole result, with the configuration that reproduces it.
#[derive(Debug, Serialize)]
struct Report {
    game: GameKind,
    size: Option<usize>,
    a: String,
    b: String,
    games: u64,
    seed: u64,
    time_control: String,
    a_as_black: Wdl,
    a_as_white: Wdl,
    total: Wdl,
    pairs: Penta,
    trinomial: Estimate,
    pentanomial: Option<Estimate>,
    faults: u64,
    average_plies: f64,
}

/// What one game of a series came to.
#[derive(Clone, Copy, Debug)]
struct SeriesGame {
    /// The game's index in the series.
    index: u64,
    /// A's score.
    score: f64,
    /// Plies played.
    plies: usize,
    /// True when an agent faulted.
    fault: bool,
}

/// Plays game `index` of a series (A is Black in even games) with the worker's agents, kept
/// between its games.
fn play_series_game<G: AgentGame>(
    start: &G,
    agents: &mut [Box<dyn Agent<G>>; 2],
    args: &Args,
    settings: &GameSettings,
    index: u64,
) -> anyhow::Result<SeriesGame> {
    let a_color = if index.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    let seed = rng::substream(args.seed, index).random();
    let [a, b] = agents;
    let record = if a_color == Color::Black {
        play_game(start, &[], [a.as_mut(), b.as_mut()], settings, seed)
    } else {
        play_game(start, &[], [b.as_mut(), a.as_mut()], settings, seed)
    };
    if record.termination == Termination::Interrupt {
        bail!("game {index} was interrupted");
    }
    Ok(SeriesGame {
        index,
        score: record.result.score_for(a_color).unwrap_or(0.5),
        plies: record.plies(),
        fault: record.termination.is_fault(),
    })
}

fn run_series<G: AgentGame>(start: G, args: &Args) -> anyhow::Result<Report> {
    // Reject bad specs before any game starts.
    check_spec::<G>(&args.a).context("player A")?;
    check_spec::<G>(&args.b).context("player B")?;
    let settings = GameSettings {
        time_control: TimeControl::parse(&args.time_control).map_err(anyhow::Error::msg)?,
        max_plies: Some(args.max_plies),
        stall: Duration::from_secs(60),
        ..GameSettings::default()
    };
    // Workers take the next game index; each keeps its two agents (and external engines)
    // for all its games. Every game is seeded by its index, so the results do not depend
    // on which worker played it.
    let next = AtomicU64::new(0);
    let progress = crate::tournament::progress_bar(args.games, args.json);
    let progress = &progress;
    let workers = args.jobs.clamp(1, args.games.max(1) as usize);
    let played: Vec<Vec<SeriesGame>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (start, settings, next) = (&start, &settings, &next);
                scope.spawn(move || -> anyhow::Result<Vec<SeriesGame>> {
                    let options = AgentOptions::default();
                    let mut agents = [
                        agent_from_spec::<G>(&args.a, &options).context("player A")?,
                        agent_from_spec::<G>(&args.b, &options).context("player B")?,
                    ];
                    let mut mine = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= args.games {
                            return Ok(mine);
                        }
                        mine.push(play_series_game(start, &mut agents, args, settings, index)?);
                        progress.inc(1);
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("match worker"))
            .collect::<anyhow::Result<_>>()
    })?;
    progress.finish_and_clear();
    let mut results: Vec<SeriesGame> = played.into_iter().flatten().collect();
    results.sort_by_key(|g| g.index);
    let mut as_black = Wdl::default();
    let mut as_white = Wdl::default();
    let mut pairs = Penta::default();
    for (index, game) in results.iter().enumerate() {
        if index % 2 == 0 {
            as_black.add(game.score);
            if let Some(second) = results.get(index + 1) {
                pairs.add_pair(game.score, second.score);
            }
        } else {
            as_white.add(game.score);
        }
    }
    let total = as_black.merged(&as_white);
    let plies: usize = results.iter().map(|g| g.plies).sum();
    Ok(Report {
        game: args.game,
        size: matches!(args.game, GameKind::Hex).then_some(args.size),
        a: args.a.clone(),
        b: args.b.clone(),
        games: args.games,
        seed: args.seed,
        time_control: settings.time_control.to_string(),
        a_as_black: as_black,
        a_as_white: as_white,
        total,
        pairs,
        trinomial: stats::trinomial(&total),
        pentanomial: (pairs.pairs() > 0).then(|| stats::pentanomial(&pairs)),
        faults: results.iter().filter(|g| g.fault).count() as u64,
        average_plies: plies as f64 / results.len().max(1) as f64,
    })
}

/// Runs `arena match`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let report = match args.game {
        GameKind::Hex => {
            let start = Hex::new(args.size, args.size).context("--size")?;
            run_series(start, &args)?
        }
        GameKind::Checkers => run_series(Checkers::new(), &args)?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let line = |name: &str, t: &Wdl| {
        println!(
            "  {name:<12} {:>5} wins {:>5} losses {:>5} draws",
            t.wins, t.losses, t.draws
        );
    };
    println!("A = {}\nB = {}", report.a, report.b);
    println!(
        "{}, seed {}, time control {}, average {:.1} plies{}",
        crate::plural::games(report.games),
        report.seed,
        report.time_control,
        report.average_plies,
        if report.faults > 0 {
            format!(", {} ended by a fault", report.faults)
        } else {
            String::new()
        }
    );
    line("A as Black", &report.a_as_black);
    line("A as White", &report.a_as_white);
    line("total", &report.total);
    let e = report.pentanomial.unwrap_or(report.trinomial);
    println!(
        "score of A: {:.4} (95% interval {:.4} .. {:.4}), {}{}",
        e.score,
        e.score_low,
        e.score_high,
        e.elo_text(),
        e.los
            .map_or(String::new(), |l| format!(", LOS {:.1}%", 100.0 * l))
    );
    let p = &report.pairs;
    if p.pairs() > 0 {
        println!(
            "pairs (LL LD WL+DD WD WW): {} {} {} {} {}",
            p.ll, p.ld, p.wl_dd, p.wd, p.ww
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &str, b: &str) -> Args {
        Args {
            game: GameKind::Hex,
            size: 4,
            a: a.to_string(),
            b: b.to_string(),
            games: 4,
            seed: 3,
            jobs: 1,
            time_control: "none".into(),
            max_plies: 2_000,
            json: false,
        }
    }

    #[test]
    fn colours_alternate_and_results_add_up() {
        let args = args("mcts:playouts=300", "random");
        let start = Hex::new(4, 4).unwrap();
        let report = run_series(start.clone(), &args).unwrap();
        assert_eq!(report.a_as_black.games() + report.a_as_white.games(), 4);
        assert_eq!(report.a_as_black.games(), 2);
        assert_eq!(report.pairs.pairs(), 2);
        // Same seed, same series.
        let again = run_series(start, &args).unwrap();
        assert_eq!(again.total, report.total);
    }

    #[test]
    fn bad_specs_are_reported_before_playing() {
        let err = run_series(Hex::new(4, 4).unwrap(), &args("mcts:c=fast", "random")).unwrap_err();
        let text = format!("{err:#}");
        assert!(
            text.contains("player A") && text.contains("c=fast"),
            "{text}"
        );
    }

    #[test]
    fn perfect_scores_have_an_honest_interval() {
        let e = stats::trinomial(&Wdl {
            wins: 4,
            draws: 0,
            losses: 0,
        });
        assert!(e.score_low < 0.6 && e.score_high == 1.0, "{e:?}");
        let text = e.elo_text();
        assert!(text.contains("+inf") && !text.contains("NaN"), "{text}");
    }
}

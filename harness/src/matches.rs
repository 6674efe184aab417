//! `arena match`: two in-process players (spec strings) play a series with colours
//! alternating (A is Black in even games), each game from its own seed sub-stream, and the
//! result is printed per colour with the score, its 95% interval and the Elo difference.

use anyhow::{bail, Context};
use rayon::prelude::*;
use serde::Serialize;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::Color;
use tmbot::player::Player;
use tmbot::rng;
use tmbot::search::{Limits, SearchGame};

/// Games longer than this many plies are scored as draws (checkers draw rules end games far
/// sooner; Hex games cannot be longer than the board).
const MAX_PLIES: usize = 2_000;

/// Which game is played.
#[derive(Clone, Copy, Debug, clap::ValueEnum, Serialize)]
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
    /// Player A's spec, e.g. `mcts:playouts=2000`.
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
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// Wins, losses and draws of player A.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Tally {
    /// Games A won.
    pub wins: u64,
    /// Games A lost.
    pub losses: u64,
    /// Drawn games.
    pub draws: u64,
}

impl Tally {
    fn add(&mut self, score: f64) {
        match score {
            s if s > 0.75 => self.wins += 1,
            s if s < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
    }

    fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    fn merged(&self, other: &Tally) -> Tally {
        Tally {
            wins: self.wins + other.wins,
            losses: self.losses + other.losses,
            draws: self.draws + other.draws,
        }
    }
}

/// Score statistics of a series (trinomial model, as cutechess and fastchess compute it).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct ScoreStats {
    /// Mean score of A, (W + D/2) / N.
    pub score: f64,
    /// Lower end of the 95% interval of the score.
    pub low: f64,
    /// Upper end of the 95% interval of the score.
    pub high: f64,
    /// Elo difference of the score (infinite at 0 or 1).
    pub elo: f64,
    /// Half-width of the Elo 95% interval (NaN when the score is 0 or 1).
    pub elo_error: f64,
}

fn elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The score of `tally` with its 95% interval and Elo.
pub fn score_stats(tally: &Tally) -> ScoreStats {
    let n = tally.games().max(1) as f64;
    let (w, d, l) = (
        tally.wins as f64 / n,
        tally.draws as f64 / n,
        tally.losses as f64 / n,
    );
    let s = w + d / 2.0;
    let variance = w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2);
    let sigma = (variance / n).sqrt();
    let (low, high) = ((s - 1.96 * sigma).max(0.0), (s + 1.96 * sigma).min(1.0));
    ScoreStats {
        score: s,
        low,
        high,
        elo: elo(s),
        elo_error: (elo(high) - elo(low)) / 2.0,
    }
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
    a_as_black: Tally,
    a_as_white: Tally,
    total: Tally,
    stats: ScoreStats,
    average_plies: f64,
}

/// Plays game `index` of the series from `start`: A is Black when `index` is even. Returns
/// A's score and the number of plies.
pub(crate) fn play_one<G: SearchGame>(
    start: &G,
    a: &str,
    b: &str,
    seed: u64,
    index: u64,
) -> anyhow::Result<(f64, usize)> {
    let mut players = [Player::<G>::from_spec(a)?, Player::<G>::from_spec(b)?];
    let a_color = if index % 2 == 0 {
        Color::Black
    } else {
        Color::White
    };
    let mut rng = rng::substream(seed, index);
    let mut game = start.clone();
    let mut plies = 0;
    while game.outcome().is_none() && plies < MAX_PLIES {
        let seat = usize::from(game.side_to_move() != a_color);
        let Some(mv) = players[seat].choose(&game, &Limits::default(), &mut rng) else {
            bail!(
                "{} found no move in {}",
                players[seat].spec(),
                game.position_text()
            );
        };
        game.play(mv);
        plies += 1;
    }
    let score = game.outcome().map_or(0.5, |o| o.score_for(a_color));
    Ok((score, plies))
}

fn run_series<G: SearchGame>(start: G, args: &Args) -> anyhow::Result<Report> {
    // Reject bad specs before any game starts.
    Player::<G>::from_spec(&args.a).context("player A")?;
    Player::<G>::from_spec(&args.b).context("player B")?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.max(1))
        .build()?;
    let results: Vec<(u64, f64, usize)> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|i| play_one(&start, &args.a, &args.b, args.seed, i).map(|(s, p)| (i, s, p)))
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let mut as_black = Tally::default();
    let mut as_white = Tally::default();
    let mut plies = 0;
    for &(index, score, length) in &results {
        if index % 2 == 0 {
            as_black.add(score);
        } else {
            as_white.add(score);
        }
        plies += length;
    }
    let total = as_black.merged(&as_white);
    Ok(Report {
        game: args.game,
        size: matches!(args.game, GameKind::Hex).then_some(args.size),
        a: args.a.clone(),
        b: args.b.clone(),
        games: args.games,
        seed: args.seed,
        a_as_black: as_black,
        a_as_white: as_white,
        total,
        stats: score_stats(&total),
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
    } else {
        let line = |name: &str, t: &Tally| {
            println!(
                "  {name:<12} {:>5} wins {:>5} losses {:>5} draws",
                t.wins, t.losses, t.draws
            );
        };
        println!("A = {}\nB = {}", report.a, report.b);
        println!(
            "{} games, seed {}, average {:.1} plies",
            report.games, report.seed, report.average_plies
        );
        line("A as Black", &report.a_as_black);
        line("A as White", &report.a_as_white);
        line("total", &report.total);
        let s = report.stats;
        let elo = if s.elo.is_finite() && s.elo_error.is_finite() {
            format!("Elo {:+.1} +- {:.1}", s.elo, s.elo_error)
        } else {
            "Elo unbounded (a perfect or zero score has no finite estimate)".to_string()
        };
        println!(
            "score of A: {:.4} (95% interval {:.4} .. {:.4}), {elo}",
            s.score, s.low, s.high
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_interval_matches_the_trinomial_formula() {
        // 60 wins, 20 draws, 20 losses: s = 0.7, var = 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16.
        let stats = score_stats(&Tally {
            wins: 60,
            losses: 20,
            draws: 20,
        });
        assert!((stats.score - 0.7).abs() < 1e-12);
        let half = 1.96 * (0.16f64 / 100.0).sqrt();
        assert!((stats.high - stats.score - half).abs() < 1e-12);
        assert!((stats.elo - 147.19).abs() < 0.01, "{}", stats.elo);
    }

    fn args(a: &str, b: &str) -> Args {
        Args {
            game: GameKind::Hex,
            size: 4,
            a: a.to_string(),
            b: b.to_string(),
            games: 4,
            seed: 3,
            jobs: 1,
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
}

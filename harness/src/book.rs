//! `arena book`: builds a checkers move book from the player's own deep searches. From the
//! end of each opening of a suite (the ACF three-move deck by default) it searches to a
//! fixed depth, records the best move, plays it and goes on, `--plies` times: the book then
//! holds the main line of every ballot for both colours. Depth-limited searches make the
//! book the same on every run and machine; ballots are searched in parallel.

use anyhow::Context;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Instant;
use tmbot::game::checkers::Checkers;
use tmbot::game::Game;
use tmbot::play::openings;
use tmbot::player::book::{BookMove, MoveBook};
use tmbot::player::Player;
use tmbot::rng::seeded;
use tmbot::search::alphabeta::centi_score;
use tmbot::search::Limits;

/// Arguments of `arena book`.
#[derive(clap::Args)]
pub struct Args {
    /// Where the book goes (written through a temporary file and a rename).
    #[arg(long)]
    out: PathBuf,
    /// The openings whose ends the book starts from.
    #[arg(long, default_value = "openings/checkers-3move.txt")]
    openings: PathBuf,
    /// Book moves along each opening's main line.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=40))]
    plies: u32,
    /// The searching player (its depth is set by --depth).
    #[arg(long, default_value = "alphabeta:tt=22,endgame=4,eval=knowledge")]
    player: String,
    /// Search depth in plies.
    #[arg(long, default_value_t = 17, value_parser = clap::value_parser!(u32).range(1..=40))]
    depth: u32,
    /// Openings searched at once (default: every core).
    #[arg(long)]
    threads: Option<usize>,
}

/// One opening's main line: each position with its book move.
type Line = Vec<(Checkers, BookMove)>;

/// Builds the book and writes it.
pub fn run(args: Args) -> anyhow::Result<()> {
    let suite = openings::Book::load(&args.openings)?;
    let start = Checkers::new();
    suite.check(&start)?;
    // Checked once here, so that the threads' players cannot fail.
    Player::<Checkers>::from_spec(&args.player)
        .with_context(|| format!("--player {}", args.player))?;
    let threads = args
        .threads
        .unwrap_or_else(rayon::current_num_threads)
        .max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let started = Instant::now();
    let limits = Limits {
        depth: Some(args.depth),
        ..Limits::default()
    };
    let lines: Vec<Line> = pool.install(|| {
        (0..suite.len())
            .into_par_iter()
            .map_init(
                || Player::<Checkers>::from_spec(&args.player).expect("checked above"),
                |player, index| {
                    let (mut game, _) = suite.apply(index, &start).expect("checked above");
                    player.new_game();
                    let mut line = Line::new();
                    for _ in 0..args.plies {
                        if game.outcome().is_some() {
                            break;
                        }
                        let decision = player.decide(&game, &limits, &mut seeded(0));
                        let Some(mv) = decision.best else { break };
                        let entry = BookMove {
                            mv: game.move_to_text(mv),
                            score: decision.value.map_or(0, centi_score),
                            depth: decision.depth.unwrap_or(0),
                        };
                        line.push((game.clone(), entry));
                        game.play(mv);
                    }
                    eprintln!(
                        "opening {}: {} book moves ({:.0} s)",
                        index + 1,
                        line.len(),
                        started.elapsed().as_secs_f64()
                    );
                    line
                },
            )
            .collect()
    });
    let mut book = MoveBook::<Checkers>::default();
    for (game, entry) in lines.into_iter().flatten() {
        book.insert(&game, entry);
    }
    let path = args.out.to_string_lossy().into_owned();
    tmbot::protocol::write_atomically(&path, &book.to_text()).map_err(anyhow::Error::msg)?;
    println!(
        "{} positions from {} openings, depth {}, in {:.0} s: {}",
        book.len(),
        suite.len(),
        args.depth,
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

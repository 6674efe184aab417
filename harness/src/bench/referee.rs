//! `arena bench referee`: games per second through the one referee, and the referee's own
//! cost per move.
//!
//! - In-process: uniform random players on Hex (11x11 by default), on 1 thread and on
//!   `--threads` threads, with CPU seconds beside wall seconds.
//! - External: two `tmbot hex --player random` processes (Hex 7x7 by default) driven through
//!   pipes, engines kept alive between games.
//! - Overhead: the in-process games against the same games played by a bare loop (random
//!   move, play, outcome check) with the same draws: what the agents' interface, the clock
//!   and the record add per move; for external engines, the whole round trip per move.

use super::cpu_seconds;
use rand::Rng as _;
use std::path::PathBuf;
use std::time::Instant;
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};
use tmbot::play::referee::agent_seed;
use tmbot::play::{agent_from_spec, play_game, Agent, AgentOptions, GameSettings, PlayerAgent};
use tmbot::rng;
use tmbot::search::SearchGame;

/// Arguments of `arena bench referee`.
#[derive(clap::Args)]
pub struct Args {
    /// Board side of the in-process games.
    #[arg(long, default_value_t = 11)]
    size: usize,
    /// In-process games per measurement.
    #[arg(long, default_value_t = 200_000)]
    games: u64,
    /// Threads of the parallel in-process measurement.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Board side of the external games.
    #[arg(long, default_value_t = 7)]
    external_size: usize,
    /// External games (0 skips them).
    #[arg(long, default_value_t = 2_000)]
    external_games: u64,
    /// The engine binary (default: `tmbot` next to `arena`).
    #[arg(long)]
    engine: Option<PathBuf>,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Totals of a run of games.
#[derive(Default)]
struct Totals {
    games: u64,
    moves: u64,
    black_wins: u64,
}

/// The same games as [`in_process`] without the referee: the bare game loop.
fn bare_games(start: &Hex, count: u64, seed: u64, stream: u64) -> Totals {
    let mut seeds = rng::substream(seed, stream);
    let mut totals = Totals::default();
    let mut scratch = Vec::new();
    for _ in 0..count {
        // The referee gives Black's agent the stream of seat 0, White's of seat 1.
        let game_seed: u64 = seeds.random();
        let mut rngs = [0, 1].map(|seat| rng::seeded(agent_seed(game_seed, seat)));
        let mut game = start.clone();
        while game.outcome().is_none() {
            let seat = game.side_to_move().index();
            let mv = game
                .random_move(&mut rngs[seat], &mut scratch)
                .expect("a game not over has a move");
            game.play(mv);
            totals.moves += 1;
        }
        totals.games += 1;
        totals.black_wins += u64::from(game.outcome().and_then(|o| o.winner) == Some(Color::Black));
    }
    totals
}

/// Plays `count` games between `black` and `white` seeded from stream `stream`.
fn play_games(
    start: &Hex,
    black: &mut dyn Agent<Hex>,
    white: &mut dyn Agent<Hex>,
    count: u64,
    seed: u64,
    stream: u64,
) -> Totals {
    let settings = GameSettings::default();
    let mut seeds = rng::substream(seed, stream);
    let mut totals = Totals::default();
    for _ in 0..count {
        let record = play_game(
            start,
            &[],
            [&mut *black, &mut *white],
            &settings,
            seeds.random(),
        );
        totals.games += 1;
        totals.moves += record.moves.len() as u64;
        totals.black_wins += u64::from(record.result.winner() == Some(Color::Black));
    }
    totals
}

fn in_process(start: &Hex, count: u64, seed: u64, stream: u64) -> anyhow::Result<Totals> {
    let mut black = PlayerAgent::<Hex>::from_spec("random")?;
    let mut white = PlayerAgent::<Hex>::from_spec("random")?;
    Ok(play_games(
        start, &mut black, &mut white, count, seed, stream,
    ))
}

/// Prints one measurement's line.
fn report(label: &str, totals: &Totals, wall: f64, cpu: Option<f64>) {
    println!(
        "{label}: {} in {wall:.3} s wall{} = {:.0} games/s; {:.1} moves/game, {:.2} us \
         per move, Black won {:.1}%",
        crate::plural::games(totals.games),
        cpu.map_or(String::new(), |c| format!(" ({c:.3} s CPU)")),
        totals.games as f64 / wall,
        totals.moves as f64 / totals.games.max(1) as f64,
        1e6 * wall / totals.moves.max(1) as f64,
        100.0 * totals.black_wins as f64 / totals.games.max(1) as f64,
    );
}

/// Runs `measure` and returns its result with wall and CPU seconds.
fn timed<T>(measure: impl FnOnce() -> T) -> (T, f64, Option<f64>) {
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    let result = measure();
    let wall = t0.elapsed().as_secs_f64();
    (result, wall, cpu_seconds().zip(cpu0).map(|(b, a)| b - a))
}

/// Runs the benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    let start = Hex::new(args.size, args.size)?;
    let label = format!("hex {0}x{0} random vs random, in-process", args.size);

    // Bare loop and referee interleaved (A B A B A B), the median of each.
    let mut bare_walls = Vec::new();
    let mut referee_walls = Vec::new();
    for _ in 0..3 {
        let (bare, wall, cpu) = timed(|| bare_games(&start, args.games, args.seed, 0));
        report(&format!("{label}, bare game loop"), &bare, wall, cpu);
        bare_walls.push(cpu.unwrap_or(wall) / bare.moves.max(1) as f64);
        let (totals, wall, cpu) = timed(|| in_process(&start, args.games, args.seed, 0));
        let totals = totals?;
        anyhow::ensure!(
            totals.moves == bare.moves && totals.black_wins == bare.black_wins,
            "the referee's games differ from the bare loop's"
        );
        report(&format!("{label}, referee, 1 thread"), &totals, wall, cpu);
        referee_walls.push(cpu.unwrap_or(wall) / totals.moves.max(1) as f64);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "referee and agent interface add {:.3} us of CPU per move over the bare game loop \
         (medians of 3 interleaved runs)",
        1e6 * (median(&mut referee_walls) - median(&mut bare_walls))
    );

    if args.threads > 1 {
        let per_thread = args.games.div_ceil(args.threads as u64);
        let (parts, wall, cpu) = timed(|| {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (0..args.threads as u64)
                    .map(|t| {
                        let start = &start;
                        scope.spawn(move || in_process(start, per_thread, args.seed, t + 1))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("bench thread"))
                    .collect::<anyhow::Result<Vec<Totals>>>()
            })
        });
        let mut totals = Totals::default();
        for part in parts? {
            totals.games += part.games;
            totals.moves += part.moves;
            totals.black_wins += part.black_wins;
        }
        report(
            &format!("{label}, {} threads", args.threads),
            &totals,
            wall,
            cpu,
        );
    }

    if args.external_games > 0 {
        let engine = match &args.engine {
            Some(path) => path.clone(),
            None => std::env::current_exe()?.with_file_name("tmbot"),
        };
        anyhow::ensure!(
            engine.exists(),
            "{} not found: build it (cargo build --release) or give --engine",
            engine.display()
        );
        let spec = format!(
            "external:cmd=\"{} hex --player random\",name=random",
            engine.display()
        );
        let options = AgentOptions::default();
        let mut black = agent_from_spec::<Hex>(&spec, &options)?;
        let mut white = agent_from_spec::<Hex>(&spec, &options)?;
        let small = Hex::new(args.external_size, args.external_size)?;
        // One game first, so process start-up is not timed.
        play_games(&small, black.as_mut(), white.as_mut(), 1, args.seed, 99);
        let (totals, wall, cpu) = timed(|| {
            play_games(
                &small,
                black.as_mut(),
                white.as_mut(),
                args.external_games,
                args.seed,
                100,
            )
        });
        report(
            &format!(
                "hex {0}x{0} random vs random, two external tmbot processes (CPU: arena's \
                 only; us per move: the whole round trip, an upper bound of what the harness \
                 adds)",
                args.external_size
            ),
            &totals,
            wall,
            cpu,
        );
    }
    Ok(())
}

//! `arena solve`: the Hex solver (DFPN with H-search) on one position, or on every first
//! move of an empty board (the solved-opening tables).

use anyhow::{bail, Context};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tmbot::game::hex::{Hex, HexMove};
use tmbot::game::{Color, Game};
use tmbot::search::dfpn::{Dfpn, DEFAULT_TABLE_ENTRIES};
use tmbot::search::Limits;

/// Arguments of `arena solve`.
#[derive(clap::Args)]
pub struct Args {
    /// Board side (a square board); `--width`/`--height` for other shapes.
    #[arg(long, default_value_t = 5)]
    size: usize,
    /// Board width (columns; White joins the left and right edges).
    #[arg(long)]
    width: Option<usize>,
    /// Board height (rows; Black joins the top and bottom edges).
    #[arg(long)]
    height: Option<usize>,
    /// Solve this position (`showposition` text, e.g. `5/2b2/5/5/5 w`) instead of the
    /// openings table.
    #[arg(long)]
    position: Option<String>,
    /// Seconds each solve may take (0: until solved); unsolved entries print `?`.
    #[arg(long, default_value_t = 0.0)]
    time: f64,
    /// Positions the solver's table keeps (each thread's table, for the openings table).
    #[arg(long, default_value_t = DEFAULT_TABLE_ENTRIES)]
    table_entries: usize,
    /// Openings solved at once, each thread with its own solver and table (default: every
    /// core).
    #[arg(long)]
    threads: Option<usize>,
}

/// Runs `arena solve`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if !(args.time.is_finite() && args.time >= 0.0) {
        bail!("--time must be seconds from 0 up, not {}", args.time);
    }
    let limits = Limits {
        time: (args.time > 0.0).then(|| Duration::from_secs_f64(args.time)),
        ..Limits::default()
    };
    if let Some(text) = &args.position {
        let mut solver = Dfpn::new(args.table_entries);
        let game = Hex::from_position_text(text).context("--position")?;
        Dfpn::check_board(&game).map_err(anyhow::Error::msg)?;
        let started = Instant::now();
        let proof = solver.solve(&game, &limits);
        let winner = proof.winner.map_or("not solved", Color::name);
        let best = proof.winning_move.map_or(String::new(), |c| {
            format!(" (winning move {})", game.cell_name(c))
        });
        println!(
            "{} to move: winner {winner}{best}; {} expansions, {:.2} s",
            game.side_to_move(),
            proof.expansions,
            started.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let width = args.width.unwrap_or(args.size);
    let height = args.height.unwrap_or(args.size);
    let game = Hex::new(width, height).map_err(|e| anyhow::anyhow!("board: {e}"))?;
    Dfpn::check_board(&game).map_err(anyhow::Error::msg)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, width * height);
    println!("{width}x{height}: the result for Black of each first move (B wins, w loses; Black joins top and bottom)");
    let started = Instant::now();
    let cells = width * height;
    // Each thread takes the next opening left in table order (a long solve holds up only
    // its own thread); a thread's table serves every opening it solves.
    let next = AtomicUsize::new(0);
    let mut marks = vec!["?"; cells];
    let (mut expansions, mut stored) = (0, 0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (next, limits) = (&next, &limits);
                scope.spawn(move || {
                    let mut game = Hex::new(width, height).expect("checked above");
                    let mut solver = Dfpn::new(args.table_entries);
                    let mut solved = Vec::new();
                    loop {
                        let cell = next.fetch_add(1, Ordering::Relaxed);
                        if cell >= cells {
                            break;
                        }
                        let opening = Instant::now();
                        game.play(HexMove::Cell(cell as u16));
                        let proof = solver.solve(&game, limits);
                        game.undo();
                        eprintln!(
                            "{}: {} expansions, {:.2} s",
                            game.cell_name(cell),
                            proof.expansions,
                            opening.elapsed().as_secs_f64()
                        );
                        solved.push((cell, proof.winner, proof.expansions));
                    }
                    (solved, solver.table_entries())
                })
            })
            .collect();
        for worker in workers {
            let (solved, entries) = worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            stored += entries;
            for (cell, winner, count) in solved {
                expansions += count;
                marks[cell] = match winner {
                    Some(Color::Black) => "B",
                    Some(Color::White) => "w",
                    None => "?",
                };
            }
        }
    });
    for row in marks.chunks(width) {
        println!("{}", row.join(" "));
    }
    println!(
        "{cells} openings, {expansions} expansions, {:.1} s on {threads} thread(s), {stored} positions stored",
        started.elapsed().as_secs_f64(),
    );
    Ok(())
}

//! `arena solve`: the Hex solver (DFPN with H-search) on one position, or on every first
//! move of an empty board (the solved-opening tables).

use anyhow::{bail, Context};
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
    /// Positions the solver's table keeps.
    #[arg(long, default_value_t = DEFAULT_TABLE_ENTRIES)]
    table_entries: usize,
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
    let mut solver = Dfpn::new(args.table_entries);
    if let Some(text) = &args.position {
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
    let mut game = Hex::new(width, height).map_err(|e| anyhow::anyhow!("board: {e}"))?;
    Dfpn::check_board(&game).map_err(anyhow::Error::msg)?;
    println!("{width}x{height}: the result for Black of each first move (B wins, w loses; Black joins top and bottom)");
    let started = Instant::now();
    let mut expansions = 0;
    let mut rows = Vec::new();
    for y in 0..height {
        let mut row = String::new();
        for x in 0..width {
            let cell = game.cell(x, y);
            let opening = Instant::now();
            game.play(HexMove::Cell(cell as u16));
            let proof = solver.solve(&game, &limits);
            game.undo();
            expansions += proof.expansions;
            row.push(match proof.winner {
                Some(Color::Black) => 'B',
                Some(Color::White) => 'w',
                None => '?',
            });
            eprintln!(
                "{}: {} expansions, {:.2} s",
                game.cell_name(cell),
                proof.expansions,
                opening.elapsed().as_secs_f64()
            );
        }
        rows.push(row);
    }
    for row in &rows {
        let spaced: Vec<String> = row.chars().map(String::from).collect();
        println!("{}", spaced.join(" "));
    }
    println!(
        "{} openings, {expansions} expansions, {:.1} s, {} positions stored",
        width * height,
        started.elapsed().as_secs_f64(),
        solver.table_entries()
    );
    Ok(())
}

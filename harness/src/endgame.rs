//! `arena endgame`: solves every checkers position of up to N pieces by retrograde analysis
//! and reports each material signature (positions, wins, losses, draws, longest win), the
//! time and the size of the tables.

use std::time::Instant;
use tmbot::game::checkers::endgame::Endgame;
use tmbot::game::Solved;

/// Arguments of `arena endgame`.
#[derive(clap::Args)]
pub struct Args {
    /// Most pieces on the board (both colours together), 2 to 5.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(2..=5))]
    pieces: u32,
    /// Save the tables to this file (players read it with `alphabeta:endgame=FILE`).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
}

/// Builds the databases and prints their figures.
pub fn run(args: Args) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut rows = Vec::new();
    let db = Endgame::build(args.pieces, |signature, positions| {
        eprintln!(
            "{signature}: {positions} positions ({:.1} s)",
            start.elapsed().as_secs_f64()
        );
        rows.push(signature);
    });
    let seconds = start.elapsed().as_secs_f64();
    println!("| signature | positions | formula | wins | losses | draws | longest win (plies) |");
    println!("|---|---|---|---|---|---|---|");
    let mut total = 0u64;
    for signature in rows {
        let verdicts = db.verdicts(signature);
        let (mut wins, mut losses, mut draws, mut longest) = (0u64, 0u64, 0u64, 0u32);
        for v in &verdicts {
            match v {
                Solved::Win(d) => {
                    wins += 1;
                    longest = longest.max(*d);
                }
                Solved::Loss(_) => losses += 1,
                Solved::Draw => draws += 1,
            }
        }
        total += verdicts.len() as u64;
        println!(
            "| {signature} | {} | {} | {wins} | {losses} | {draws} | {longest} |",
            verdicts.len(),
            2 * signature.positions_by_formula()
        );
    }
    println!(
        "{total} positions (both sides to move) of up to {} pieces in {seconds:.1} s; tables \
         {:.1} MB",
        args.pieces,
        db.bytes() as f64 / 1e6
    );
    if let Some(path) = &args.out {
        db.save(path).map_err(anyhow::Error::msg)?;
        println!("saved {}", path.display());
    }
    Ok(())
}

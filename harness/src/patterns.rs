//! `arena patterns JOURNAL... --out FILE`: fits Hex move patterns
//! ([`tmbot::game::hex::move_patterns`]) to the moves of chosen players in tournament
//! journals, holding out every K-th game to report how well the fit predicts moves it has
//! not seen.

use crate::tournament::journal;
use anyhow::{bail, Context};
use std::path::PathBuf;
use tmbot::game::hex::move_patterns::{Example, FitOptions, MovePatterns};
use tmbot::game::hex::{Hex, HexMove};
use tmbot::game::{Color, Game};

/// Arguments of `arena patterns`.
#[derive(clap::Args)]
pub struct Args {
    /// Journals (journal.jsonl, or a tournament's output folder holding one) of Hex games.
    #[arg(required = true)]
    journals: Vec<PathBuf>,
    /// Learn the moves of these players only (comma-separated names; default: every player).
    #[arg(long, value_delimiter = ',')]
    from: Vec<String>,
    /// Hold out every K-th game to test the fit (0: fit on every game).
    #[arg(long, default_value_t = 5)]
    holdout: usize,
    /// Full-batch gradient steps.
    #[arg(long, default_value_t = FitOptions::default().steps)]
    steps: usize,
    /// Step size.
    #[arg(long, default_value_t = FitOptions::default().rate)]
    rate: f64,
    /// L2 penalty.
    #[arg(long, default_value_t = FitOptions::default().l2)]
    l2: f64,
    /// Where to write the weights.
    #[arg(long, short)]
    out: PathBuf,
}

/// The examples of one game: each move of a chosen player, in the position it was played.
fn game_examples(
    record: &tmbot::play::record::TextRecord,
    from: &[String],
) -> anyhow::Result<Vec<Example>> {
    let mut game = Hex::from_position_text(&record.start)?;
    for mv in &record.opening {
        game.try_play(mv)
            .map_err(|e| anyhow::anyhow!("opening move {mv}: {e}"))?;
    }
    let mut examples = Vec::new();
    for (ply, m) in record.moves.iter().enumerate() {
        let mover = match game.side_to_move() {
            Color::Black => &record.black,
            Color::White => &record.white,
        };
        let mv = game
            .parse_move(&m.mv)
            .map_err(|e| anyhow::anyhow!("move {} ({}): {e}", ply + 1, m.mv))?;
        if from.is_empty() || from.contains(mover) {
            if let HexMove::Cell(cell) = mv {
                examples.extend(Example::new(&game, usize::from(cell)));
            }
        }
        game.play(mv);
    }
    Ok(examples)
}

/// Runs `arena patterns`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (mut train, mut test) = (Vec::new(), Vec::new());
    let mut games = 0;
    for path in &args.journals {
        let file = if path.is_dir() {
            path.join(crate::tournament::JOURNAL)
        } else {
            path.clone()
        };
        let (entries, _) = journal::read(&file)?;
        if entries.is_empty() {
            bail!("{}: no games", file.display());
        }
        for entry in entries {
            let examples = game_examples(&entry.record, &args.from).with_context(|| {
                format!("{} game {} of {}", file.display(), entry.index, entry.event)
            })?;
            games += 1;
            if args.holdout > 0 && games % args.holdout == 0 {
                test.extend(examples);
            } else {
                train.extend(examples);
            }
        }
    }
    if train.is_empty() {
        bail!("no moves to learn (check --from against the journals' player names)");
    }
    let options = FitOptions {
        steps: args.steps,
        rate: args.rate,
        l2: args.l2,
    };
    eprintln!(
        "{games} games: {} moves to fit, {} held out",
        train.len(),
        test.len()
    );
    let model = MovePatterns::fit(&train, options);
    let built_in = MovePatterns::built_in();
    for (name, model, set) in [
        ("fitted", &model, &train),
        ("held out", &model, &test),
        ("built-in weights, held out", built_in, &test),
    ] {
        if set.is_empty() {
            continue;
        }
        let fit = model.assess(set);
        println!(
            "{name}: {} moves, top-1 {:.1}%, mean log-likelihood {:.3} (uniform {:.3})",
            set.len(),
            100.0 * fit.top1,
            fit.log_likelihood,
            fit.uniform_log_likelihood
        );
    }
    let comment = format!(
        "Fitted by arena patterns (--from {} --holdout {} --steps {} --rate {} --l2 {})\nto the moves of {} positions of {games} games.",
        if args.from.is_empty() { "everyone".to_string() } else { args.from.join(",") },
        args.holdout, args.steps, args.rate, args.l2, train.len()
    );
    tmbot::tm::persist::write_atomically(&args.out, model.to_text(&comment).as_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}

//! `arena tune POSITIONS.csv...`: fits the weights of the checkers knowledge evaluation to
//! game outcomes by logistic regression. Each quiet position (no capture pending for either
//! side) of the self-play files gives the terms of its side to move and that side's score
//! in the game (1, 0.5, 0); the fitted model is P(score) = sigmoid(w . terms). Games are
//! split by their index (every fifth game is held out) so the reported loss is measured on
//! games the fit never saw, beside the loss of the current weights. The weights are printed
//! with the man at 100 and the logistic scale that goes with them, ready for
//! `Knowledge::default`.

use crate::dataset::for_each_position;
use std::path::PathBuf;
use tmbot::eval::checkers_knowledge::{terms, Knowledge, Terms, TERMS, TERM_COUNT};
use tmbot::game::checkers::Checkers;
use tmbot::game::Game;

/// Arguments of `arena tune`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions files written by `arena selfplay` (checkers).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Passes of gradient descent over the training positions.
    #[arg(long, default_value_t = 2000)]
    epochs: usize,
    /// Step size of the descent (on terms scaled to unit spread).
    #[arg(long, default_value_t = 0.5)]
    rate: f64,
    /// L2 penalty on the weights (terms scaled to unit spread).
    #[arg(long, default_value_t = 1e-4)]
    l2: f64,
}

/// One training example: the terms of the side to move and its score.
struct Example {
    terms: Terms,
    score: f64,
    held_out: bool,
}

/// Every fifth game (by index) is held out.
const HELD_OUT_EVERY: u64 = 5;

/// Reads the quiet positions of `files`.
fn examples(files: &[PathBuf]) -> anyhow::Result<Vec<Example>> {
    let mut out = Vec::new();
    for path in files {
        for_each_position(path, |row, at| {
            if row.plies_to_end == 0 {
                return Ok(());
            }
            let game = Checkers::from_position_text(row.position)
                .map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
            let position = game.position();
            let mut turned = *position;
            turned.set_side_to_move(position.side_to_move().opponent());
            if position.must_capture() || turned.must_capture() {
                return Ok(());
            }
            let mover = position.side_to_move();
            let score = match mover {
                tmbot::game::Color::Black => row.outcome_black,
                tmbot::game::Color::White => 1.0 - row.outcome_black,
            };
            out.push(Example {
                terms: terms(position, mover),
                score,
                held_out: row.game % HELD_OUT_EVERY == 0,
            });
            Ok(())
        })?;
    }
    Ok(out)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Mean cross-entropy of the model `w` (on raw terms) over the examples `held_out` picks.
fn loss(examples: &[Example], w: &Terms, held_out: bool) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for e in examples.iter().filter(|e| e.held_out == held_out) {
        let p = sigmoid(dot(w, &e.terms)).clamp(1e-12, 1.0 - 1e-12);
        sum -= e.score * p.ln() + (1.0 - e.score) * (1.0 - p).ln();
        n += 1;
    }
    sum / n.max(1) as f64
}

fn dot(a: &Terms, b: &Terms) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Fits, reports and prints the weights.
pub fn run(args: Args) -> anyhow::Result<()> {
    let examples = examples(&args.files)?;
    let train = examples.iter().filter(|e| !e.held_out).count();
    anyhow::ensure!(
        train > 0 && train < examples.len(),
        "too few quiet positions to fit and check ({} read)",
        examples.len()
    );
    // Each term scaled to unit spread, so one step size suits all of them.
    let mut spread = [0.0; TERM_COUNT];
    for e in &examples {
        for (s, t) in spread.iter_mut().zip(&e.terms) {
            *s += t * t;
        }
    }
    let spread: Terms = spread.map(|s| (s / examples.len() as f64).sqrt().max(1e-9));
    let current = Knowledge::default();
    let mut v: Terms = std::array::from_fn(|i| current.weights[i] / current.scale * spread[i]);
    // The training terms scaled once, not in every pass.
    let scaled: Vec<(Terms, f64)> = examples
        .iter()
        .filter(|e| !e.held_out)
        .map(|e| (std::array::from_fn(|i| e.terms[i] / spread[i]), e.score))
        .collect();
    for _ in 0..args.epochs {
        let mut gradient = [0.0; TERM_COUNT];
        for (x, score) in &scaled {
            let error = sigmoid(dot(&v, x)) - score;
            for (g, xi) in gradient.iter_mut().zip(x) {
                *g += error * xi;
            }
        }
        for i in 0..TERM_COUNT {
            v[i] -= args.rate * (gradient[i] / train as f64 + args.l2 * v[i]);
        }
    }
    let raw: Terms = std::array::from_fn(|i| v[i] / spread[i]);
    let current_raw: Terms = std::array::from_fn(|i| current.weights[i] / current.scale);
    println!(
        "{} quiet positions ({} training, {} held out, every {HELD_OUT_EVERY}th game)",
        examples.len(),
        train,
        examples.len() - train
    );
    println!(
        "cross-entropy held out: current weights {:.5}, fitted {:.5} (training {:.5} -> {:.5})",
        loss(&examples, &current_raw, true),
        loss(&examples, &raw, true),
        loss(&examples, &current_raw, false),
        loss(&examples, &raw, false)
    );
    let man = raw[0];
    anyhow::ensure!(
        man > 0.0,
        "the fitted man weight is not positive ({man}): more games needed"
    );
    println!("| term | current | fitted (man = 100) |");
    println!("|---|---|---|");
    for i in 0..TERM_COUNT {
        println!(
            "| {} | {} | {:.1} |",
            TERMS[i],
            current.weights[i],
            raw[i] / man * 100.0
        );
    }
    println!("scale (hundredths of a man per logit): {:.1}", 100.0 / man);
    Ok(())
}

//! `arena tune POSITIONS.csv...`: fits the weights of the checkers knowledge evaluation by
//! logistic regression. Each quiet position (no capture pending for either side) of the
//! positions files gives the terms of its side to move and a target for that side: its score
//! in the game (1, 0.5, 0), the value a search gave the position (the file's `value`
//! column: the player's own search in `arena selfplay`, or a stronger engine's, see
//! `bench/label_positions.py`), or a blend of both (`--value-weight`). The fitted model is
//! target = sigmoid(w . terms), the terms including their `end:` twins (weights that change
//! as pieces come off). Games are split by their index (every fifth game is held
//! out) so the reported loss is measured on games the fit never saw, beside the loss of the
//! current weights. The weights are printed at the current logistic scale (so a value
//! target's scores, mapped at the same scale, come back in their own units), and written
//! with `--out` as a weights file (`eval=knowledge:FILE`).

use crate::dataset::for_each_position;
use anyhow::Context as _;
use rayon::prelude::*;
use std::io::Write as _;
use std::path::PathBuf;
use tmbot::eval::checkers::Material;
use tmbot::eval::checkers_knowledge::{
    centre_tables, terms, Knowledge, Terms, BOARD_TERMS, NAMED_TERMS, TERM_COUNT,
};
use tmbot::eval::Evaluator as _;
use tmbot::game::checkers::Checkers;
use tmbot::game::Game;
use tmbot::rng::seeded;
use tmbot::search::alphabeta::{centi_score, AlphaBeta};
use tmbot::search::{Limits, SearchGame as _};

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
    /// L2 penalty on the weights' distance from the starting ones (terms scaled to unit
    /// spread): what the positions do not decide stays as it was.
    #[arg(long, default_value_t = 1e-4)]
    l2: f64,
    /// Share of the target taken from the positions' `value` column (0: the game's outcome
    /// alone; 1: the value alone). Positions without a value are left out when it is above 0.
    #[arg(long, default_value_t = 0.0, value_parser = share)]
    value_weight: f64,
    /// Write the fitted weights here (the format `eval=knowledge:FILE` reads).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The weights the fit starts from, is pulled towards (--l2) and is compared with
    /// (a weights file; default: the built-in weights).
    #[arg(long)]
    start: Option<PathBuf>,
    /// Leave out positions where a material-only search this deep finds a score more than
    /// --tactics-margin from the static one (a combination is under way: the position's
    /// worth is not in its terms). 0 keeps every quiet position.
    #[arg(long, default_value_t = 4)]
    tactics_depth: u32,
    /// The margin of --tactics-depth, in hundredths of a man.
    #[arg(long, default_value_t = 50)]
    tactics_margin: i32,
}

fn share(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|v| (0.0..=1.0).contains(v))
        .ok_or_else(|| format!("expected a number from 0 to 1, got '{text}'"))
}

/// One training example: the terms of the side to move and its score.
struct Example {
    terms: Terms,
    score: f64,
    held_out: bool,
}

/// A quiet position read from a file, with its target for the side to move.
pub(crate) struct Candidate {
    pub(crate) game: Checkers,
    pub(crate) score: f64,
    pub(crate) held_out: bool,
}

/// Whether a material-only alpha-beta search of `depth` plies scores `game` within
/// `margin` of its static material score (no combination under way).
fn is_calm(game: &Checkers, depth: u32, margin: i32, search: &mut AlphaBeta<Checkers>) -> bool {
    let material = Material::default();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let searched = search
        .search(game, &material, &limits, &mut seeded(0))
        .score;
    (searched - centi_score(material.evaluate_one(game).value)).abs() <= margin
}

/// Every fifth game (by index) is held out.
pub(crate) const HELD_OUT_EVERY: u64 = 5;

/// Reads the quiet positions of `files`, with targets that take `value_weight` of the
/// position's value and the rest of the game's outcome; also counts the positions left
/// out for want of a value.
pub(crate) fn candidates(
    files: &[PathBuf],
    value_weight: f64,
) -> anyhow::Result<(Vec<Candidate>, usize)> {
    let mut out = Vec::new();
    let mut without_value = 0;
    for path in files {
        for_each_position(path, |row, at| {
            if row.plies_to_end == 0 {
                return Ok(());
            }
            let value = match row.value {
                Some(value) => value,
                None if value_weight > 0.0 => {
                    without_value += 1;
                    return Ok(());
                }
                None => 0.0,
            };
            let game = Checkers::from_position_text(row.position)
                .map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
            if !game.is_quiet() || game.is_threatened() {
                return Ok(());
            }
            let outcome = match game.side_to_move() {
                tmbot::game::Color::Black => row.outcome_black,
                tmbot::game::Color::White => 1.0 - row.outcome_black,
            };
            out.push(Candidate {
                game,
                score: value_weight * value + (1.0 - value_weight) * outcome,
                held_out: row.game % HELD_OUT_EVERY == 0,
            });
            Ok(())
        })?;
    }
    Ok((out, without_value))
}

pub(crate) fn sigmoid(x: f64) -> f64 {
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

/// Root mean square of the difference between the model's value and the target over the
/// held-out examples.
fn rms_error(examples: &[Example], w: &Terms) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for e in examples.iter().filter(|e| e.held_out) {
        sum += (sigmoid(dot(w, &e.terms)) - e.score).powi(2);
        n += 1;
    }
    (sum / n.max(1) as f64).sqrt()
}

fn dot(a: &Terms, b: &Terms) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Fits, reports and prints the weights.
/// The calm positions among `candidates` (all of them when `depth` is 0; see
/// [`is_calm`]), each turned into an example by `example` (in parallel, in order).
pub(crate) fn calm_examples<E: Send>(
    candidates: Vec<Candidate>,
    depth: u32,
    margin: i32,
    example: impl Fn(Candidate) -> E + Sync + Send,
) -> Vec<E> {
    candidates
        .into_par_iter()
        .map_init(
            || AlphaBeta::new(16),
            |search, candidate| {
                (depth == 0 || is_calm(&candidate.game, depth, margin, search))
                    .then(|| example(candidate))
            },
        )
        .flatten()
        .collect()
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let (candidates, without_value) = candidates(&args.files, args.value_weight)?;
    let read = candidates.len();
    // The calm positions' terms (the others are not worth computing).
    let examples: Vec<Example> = calm_examples(
        candidates,
        args.tactics_depth,
        args.tactics_margin,
        |candidate| Example {
            terms: terms(candidate.game.position(), candidate.game.side_to_move()),
            score: candidate.score,
            held_out: candidate.held_out,
        },
    );
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
    let spread: Terms = spread.map(|s| (s / examples.len() as f64).sqrt());
    let spread: Terms = spread.map(|s| if s > 1e-9 { s } else { 1.0 });
    let current = match &args.start {
        Some(path) => Knowledge::load(path).map_err(anyhow::Error::msg)?,
        None => Knowledge::default(),
    };
    let prior: Terms = std::array::from_fn(|i| current.weights[i] / current.scale * spread[i]);
    let mut v = prior;
    // The training terms scaled once, not in every pass.
    let scaled: Vec<(Terms, f64)> = examples
        .iter()
        .filter(|e| !e.held_out)
        .map(|e| (std::array::from_fn(|i| e.terms[i] / spread[i]), e.score))
        .collect();
    for _ in 0..args.epochs {
        // Partial gradients of fixed chunks, added in chunk order: the same fit on any
        // number of threads.
        let partials: Vec<Terms> = scaled
            .par_chunks(4096)
            .map(|chunk| {
                let mut gradient = [0.0; TERM_COUNT];
                for (x, score) in chunk {
                    let error = sigmoid(dot(&v, x)) - score;
                    for (g, xi) in gradient.iter_mut().zip(x) {
                        *g += error * xi;
                    }
                }
                gradient
            })
            .collect();
        let mut gradient = [0.0; TERM_COUNT];
        for partial in &partials {
            for (g, p) in gradient.iter_mut().zip(partial) {
                *g += p;
            }
        }
        for i in 0..TERM_COUNT {
            v[i] -= args.rate * (gradient[i] / train as f64 + args.l2 * (v[i] - prior[i]));
        }
    }
    let mut raw: Terms = std::array::from_fn(|i| v[i] / spread[i]);
    centre_tables(&mut raw);
    let current_raw: Terms = std::array::from_fn(|i| current.weights[i] / current.scale);
    println!(
        "{} quiet positions ({} training, {} held out, every {HELD_OUT_EVERY}th game)",
        examples.len(),
        train,
        examples.len() - train
    );
    if read > examples.len() {
        println!(
            "{} quiet positions with a combination under way left out (--tactics-depth {})",
            read - examples.len(),
            args.tactics_depth
        );
    }
    if without_value > 0 {
        println!("{without_value} positions without a value left out");
    }
    println!(
        "cross-entropy held out: current weights {:.5}, fitted {:.5} (training {:.5} -> {:.5})",
        loss(&examples, &current_raw, true),
        loss(&examples, &raw, true),
        loss(&examples, &current_raw, false),
        loss(&examples, &raw, false)
    );
    println!(
        "root mean square error of the value held out: current {:.4}, fitted {:.4}",
        rms_error(&examples, &current_raw),
        rms_error(&examples, &raw)
    );
    // The fitted logits in hundredths of a man at the current scale: the same values in
    // the search as any other scale with the weights scaled alike.
    let fitted = Knowledge {
        weights: raw.map(|w| (w * current.scale * 10.0).round() / 10.0),
        scale: current.scale,
        patterns: None,
    };
    println!("| term | current | fitted | current end: | fitted end: |");
    println!("|---|---|---|---|---|");
    for (i, name) in NAMED_TERMS.iter().enumerate() {
        let ending = BOARD_TERMS + i;
        println!(
            "| {name} | {} | {} | {} | {} |",
            current.weights[i], fitted.weights[i], current.weights[ending], fitted.weights[ending]
        );
    }
    println!(
        "square tables and their end: twins: {} terms (written with --out)",
        2 * (BOARD_TERMS - NAMED_TERMS.len())
    );
    println!(
        "scale (hundredths of a man per logit, kept): {}",
        fitted.scale
    );
    if let Some(path) = &args.out {
        tmbot::tm::persist::write_atomically_with(path, |w| {
            w.write_all(fitted.to_text().as_bytes())
        })
        .with_context(|| format!("cannot write {}", path.display()))?;
        println!("weights written to {}", path.display());
    }
    Ok(())
}

//! `arena tune-patterns POSITIONS.csv...`: fits the pattern tables of the checkers knowledge
//! evaluation ([`tmbot::eval::checkers_patterns`]) on top of its weights, to the values the
//! self-play searches gave the positions (or to the games' outcomes, `--value-weight`). Each
//! calm quiet position (as `arena tune` picks them) gives the knowledge score of its side to
//! move, the windows' patterns of both sides, and the side's target. The model is target =
//! sigmoid((gain x knowledge + tables) / scale), the tables' part the side's patterns'
//! entries less the opponent's, each an opening score plus the share of pieces gone times an
//! ending score. The gain is fitted first, alone (the weights were tuned for play, not
//! calibrated to these targets, and the tables must not take the difference up), and the
//! tables are written divided by it, so that they add to the weights as they are. Stochastic
//! gradient descent over the training games' positions in a seeded order, with an L2 pull
//! towards 0; entries seen in too few positions stay at 0; every fifth game is held out, and
//! the pass with the lowest held-out loss is kept.

use crate::tune::{calm_examples, candidates, sigmoid, Candidate, HELD_OUT_EVERY};
use anyhow::Context as _;
use rand::seq::SliceRandom as _;
use std::io::Write as _;
use std::path::PathBuf;
use tmbot::eval::checkers_knowledge::Knowledge;
use tmbot::eval::checkers_patterns::{entries_of, PatternTables, ENTRIES, WINDOWS};
use tmbot::game::Game;

/// Arguments of `arena tune-patterns`.
#[derive(clap::Args)]
pub struct Args {
    /// Positions files written by `arena selfplay` (checkers).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Write the fitted tables here (the format `eval=knowledge:patterns=FILE` reads).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The knowledge weights the tables are fitted on top of (a weights file; default: the
    /// built-in weights).
    #[arg(long)]
    start: Option<PathBuf>,
    /// As `arena tune --value-weight`: the share of the target taken from the positions'
    /// search values (the default) instead of the games' outcomes.
    #[arg(long, default_value_t = 1.0)]
    value_weight: f64,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 12)]
    epochs: usize,
    /// Step size (hundredths of a man squared per unit of the logistic loss's gradient),
    /// halved every four passes.
    #[arg(long, default_value_t = 300.0)]
    rate: f64,
    /// L2 pull of every entry towards 0, per step.
    #[arg(long, default_value_t = 1e-5)]
    l2: f64,
    /// As `arena tune --tactics-depth`: leave out positions with a combination under way.
    #[arg(long, default_value_t = 4)]
    tactics_depth: u32,
    /// As `arena tune --tactics-margin`.
    #[arg(long, default_value_t = 50)]
    tactics_margin: i32,
    /// Entries in fewer training positions than this stay at 0 (a rare pattern's fitted
    /// score is mostly noise, which a search would seek out).
    #[arg(long, default_value_t = 30)]
    min_count: usize,
    /// Seed of the order of the positions in each pass.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// One position: the fixed knowledge score of its side to move, the table entries of both
/// sides (the side's first), the share of pieces gone and the side's score in the game.
struct Example {
    knowledge: f64,
    entries: [[u32; WINDOWS]; 2],
    share: f32,
    score: f64,
    held_out: bool,
}

impl Example {
    /// The model's score (hundredths of a man) under `tables`, the knowledge score taken
    /// `gain` times.
    fn score(&self, tables: &PatternTables, gain: f64) -> f64 {
        let [own, other] = &self.entries;
        gain * self.knowledge
            + f64::from(tables.worth(own, self.share) - tables.worth(other, self.share))
    }
}

/// Mean cross-entropy over the examples `held_out` picks, at logistic `scale`.
fn loss(
    examples: &[Example],
    tables: &PatternTables,
    gain: f64,
    scale: f64,
    held_out: bool,
) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for e in examples.iter().filter(|e| e.held_out == held_out) {
        let p = sigmoid(e.score(tables, gain) / scale).clamp(1e-12, 1.0 - 1e-12);
        sum -= e.score * p.ln() + (1.0 - e.score) * (1.0 - p).ln();
        n += 1;
    }
    sum / n.max(1) as f64
}

/// Fits, reports and writes the tables.
pub fn run(args: Args) -> anyhow::Result<()> {
    let knowledge = match &args.start {
        Some(path) => Knowledge::load(path).map_err(anyhow::Error::msg)?,
        None => Knowledge::default(),
    };
    let (candidates, without_value) = candidates(&args.files, args.value_weight)?;
    if without_value > 0 {
        println!("{without_value} positions without a value left out");
    }
    let read = candidates.len();
    let examples = calm_examples(
        candidates,
        args.tactics_depth,
        args.tactics_margin,
        |candidate| {
            let Candidate {
                game,
                score,
                held_out,
            } = candidate;
            let position = game.position();
            let color = game.side_to_move();
            let (weights_score, share) = knowledge.score_and_share(position, color);
            Example {
                knowledge: weights_score,
                entries: entries_of(position, color),
                share: share as f32,
                score,
                held_out,
            }
        },
    );
    let mut order: Vec<usize> = (0..examples.len())
        .filter(|&i| !examples[i].held_out)
        .collect();
    let train = order.len();
    anyhow::ensure!(
        train > 0 && train < examples.len(),
        "too few quiet positions to fit and check ({} read)",
        examples.len()
    );
    println!(
        "{} calm quiet positions of {read} quiet ones ({train} training, {} held out, every \
         {HELD_OUT_EVERY}th game)",
        examples.len(),
        examples.len() - train
    );
    let mut counts = vec![0usize; ENTRIES];
    for &i in &order {
        for entry in examples[i].entries.iter().flatten() {
            counts[*entry as usize] += 1;
        }
    }
    let fitted: Vec<bool> = counts.iter().map(|&n| n >= args.min_count).collect();
    let scale = knowledge.scale;
    let mut tables = PatternTables::default();
    println!(
        "cross-entropy held out: knowledge alone {:.5} (training {:.5})",
        loss(&examples, &tables, 1.0, scale, true),
        loss(&examples, &tables, 1.0, scale, false)
    );
    // The knowledge score's gain that fits the outcomes best (Newton's method on one
    // variable): the weights were tuned for play, not calibrated to outcomes, and the tables
    // must not take up the difference.
    let mut gain = 1.0;
    for _ in 0..20 {
        let (mut slope, mut curve) = (0.0, 0.0);
        for &i in &order {
            let e = &examples[i];
            let x = e.knowledge / scale;
            let p = sigmoid(gain * x);
            slope += (p - e.score) * x;
            curve += p * (1.0 - p) * x * x;
        }
        gain -= slope / curve.max(1e-12);
    }
    let without = loss(&examples, &tables, gain, scale, true);
    println!(
        "knowledge score's gain fitted to the targets: {gain:.3}; cross-entropy held out \
         {without:.5}"
    );
    let mut best = (without, 0, tables.clone());
    let mut rng = tmbot::rng::seeded(args.seed);
    for epoch in 1..=args.epochs {
        let rate = (args.rate * 0.5f64.powi(((epoch - 1) / 4) as i32)) as f32;
        order.shuffle(&mut rng);
        for &i in &order {
            let e = &examples[i];
            let gradient = (sigmoid(e.score(&tables, gain) / scale) - e.score) / scale;
            let step = rate * gradient as f32;
            let decay = 1.0 - rate * args.l2 as f32;
            for (sign, entries) in [(1.0f32, &e.entries[0]), (-1.0, &e.entries[1])] {
                for &entry in entries.iter().filter(|&&entry| fitted[entry as usize]) {
                    let [opening, ending] = &mut tables.entries[entry as usize];
                    *opening = *opening * decay - step * sign;
                    *ending = *ending * decay - step * sign * e.share;
                }
            }
        }
        let held_out = loss(&examples, &tables, gain, scale, true);
        println!(
            "pass {epoch}: step {rate}, cross-entropy held out {held_out:.5} (training {:.5})",
            loss(&examples, &tables, gain, scale, false)
        );
        if held_out < best.0 {
            best = (held_out, epoch, tables.clone());
        }
    }
    let (held_out, epoch, tables) = best;
    // As played: added to the weights as they are, in hundredths of a man to two places.
    let played = PatternTables {
        entries: tables
            .entries
            .iter()
            .map(|e| e.map(|v| (v / gain as f32 * 100.0).round() / 100.0))
            .collect(),
    };
    let used = played.entries.iter().filter(|e| **e != [0.0; 2]).count();
    println!(
        "kept pass {epoch}: cross-entropy held out {held_out:.5} against {without:.5} for the \
         knowledge alone; {used} entries of {} not 0",
        played.entries.len()
    );
    if let Some(path) = &args.out {
        let comment = format!(
            "Fitted by arena tune-patterns to {} positions (pass {epoch} of {}, step {}, l2 {}).",
            examples.len(),
            args.epochs,
            args.rate,
            args.l2
        );
        tmbot::tm::persist::write_atomically_with(path, |w| {
            w.write_all(played.to_text(&comment).as_bytes())
        })
        .with_context(|| format!("cannot write {}", path.display()))?;
        println!("tables written to {}", path.display());
    }
    Ok(())
}

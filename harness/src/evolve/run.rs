//! One evolution: the first population from the seed, then generation after generation
//! (neighbour games, breeding), with a per-generation log, strength samples against random
//! players, checkpoints that a resumed run continues bit for bit, and at the end seed 003's
//! evaluation of every player, the exported best and median networks, the ladder and
//! charts.

use super::breed::{breed, Genome};
use super::config::{RunConfig, Shard};
use super::games::{self, EvolveGame, TAG_BREED, TAG_FINAL, TAG_INIT, TAG_SAMPLE};
use super::torus::Torus;
use crate::plot;
use crate::stats::median;
use crate::tournament::journal::write_atomically;
use anyhow::{bail, Context};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tmbot::nn::network::Shape;
use tmbot::nn::NetModel;
use tmbot::rng::seeded;
use tmbot::stop::StopFlag;

/// The settings and seed a run's folder belongs to.
const CONFIG_FILE: &str = "config.json";
/// The last checkpoint.
pub const CHECKPOINT_FILE: &str = "checkpoint.json";
/// One line per generation.
pub const LOG_FILE: &str = "generations.csv";
/// Strength samples against random players.
pub const STRENGTH_FILE: &str = "strength.csv";
/// Every final player's score against random.
pub const FINAL_FILE: &str = "final.csv";
/// The run's summary.
pub const SUMMARY_FILE: &str = "summary.json";

const LOG_HEADER: &str =
    "generation,games,mean_score,median_score,min_score,max_score,weight_magnitude,diversity,seconds";
const STRENGTH_HEADER: &str = "generation,player,score_vs_random";

/// How runs are carried out.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Continue a run from its checkpoint (or skip it when finished).
    pub resume: bool,
    /// Replaces the configured number of generations (extends a finished run on resume).
    pub generations: Option<u64>,
    /// Raised to stop after the current generation (a checkpoint is written).
    pub stop: StopFlag,
    /// Hide the progress bar.
    pub quiet: bool,
}

#[derive(Serialize, Deserialize, PartialEq)]
struct RunIdentity {
    config: RunConfig,
    seed: u64,
}

/// A saved population.
#[derive(Serialize, Deserialize)]
pub struct Checkpoint {
    /// Generations completed.
    pub generation: u64,
    /// The players, torus cell by cell.
    pub population: Vec<Genome>,
}

impl Checkpoint {
    /// Reads a run folder's checkpoint.
    pub fn load(dir: &Path) -> anyhow::Result<Checkpoint> {
        let path = dir.join(CHECKPOINT_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("{}: not a checkpoint", path.display()))
    }

    fn save(&self, dir: &Path) -> anyhow::Result<()> {
        write_atomically(&dir.join(CHECKPOINT_FILE), &serde_json::to_string(self)?)
    }
}

/// A final player's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Standing {
    /// Torus cell.
    pub player: usize,
    /// Score against random, in [0,1].
    pub score: f64,
}

/// What a run reports when it ends.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary {
    /// NAME-sSEED.
    pub run: String,
    /// The configuration's name.
    pub name: String,
    /// The seed.
    pub seed: u64,
    /// Generations evolved.
    pub generations: u64,
    /// Games against random per player in the final evaluation.
    pub final_games: u64,
    /// Median, mean, best and worst final score against random.
    pub median: f64,
    /// Mean final score.
    pub mean: f64,
    /// Best final score.
    pub best: f64,
    /// Worst final score.
    pub worst: f64,
    /// Players scoring at least 90% against random.
    pub above_90: usize,
    /// The best player's score against each ladder rung.
    pub ladder: Vec<(String, f64)>,
    /// Generations per second of the evolution (games and breeding, without samples).
    pub generations_per_second: f64,
}

/// The network shape of `config`.
pub fn shape(config: &RunConfig) -> Shape {
    Shape {
        sizes: config.sizes(),
        activation: config.activation,
        skip: config.encoding().skip(),
    }
}

/// The next generation, bred from `population` and its `scores`.
pub fn next_generation(
    population: &[Genome],
    scores: &[f64],
    torus: Torus,
    config: &RunConfig,
    seed: u64,
    generation: u64,
) -> Vec<Genome> {
    (0..population.len())
        .into_par_iter()
        .map(|i| {
            let around = torus.neighbours(i);
            let group: Vec<&Genome> = std::iter::once(i)
                .chain(around)
                .map(|k| &population[k])
                .collect();
            let group_scores: Vec<f64> = std::iter::once(i)
                .chain(around)
                .map(|k| scores[k])
                .collect();
            let mut rng = seeded(games::stream_seed(seed, TAG_BREED, generation, i as u64));
            breed(&group, &group_scores, config, &mut rng)
        })
        .collect()
}

/// The first population.
pub fn first_population(config: &RunConfig, seed: u64, players: usize) -> Vec<Genome> {
    let len = shape(config).genome_len();
    (0..players)
        .map(|i| {
            let mut rng = seeded(games::stream_seed(seed, TAG_INIT, 0, i as u64));
            Genome::random(len, config, &mut rng)
        })
        .collect()
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

/// Mean absolute weight and mean distance of a genome to the population's centroid.
fn magnitude_and_diversity(population: &[Genome]) -> (f64, f64) {
    let len = population[0].weights.len();
    let n = population.len() as f64;
    let mut centroid = vec![0.0; len];
    let mut magnitude = 0.0;
    for genome in population {
        for (c, w) in centroid.iter_mut().zip(&genome.weights) {
            *c += w / n;
            magnitude += w.abs();
        }
    }
    let diversity = population
        .iter()
        .map(|g| {
            g.weights
                .iter()
                .zip(&centroid)
                .map(|(w, c)| (w - c) * (w - c))
                .sum::<f64>()
                .sqrt()
        })
        .sum::<f64>()
        / n;
    (magnitude / (n * len as f64), diversity)
}

/// Keeps the header and the lines of generations up to `generation` (the first field).
fn truncate_csv(path: &Path, header: &str, generation: u64) -> anyhow::Result<()> {
    let kept: Vec<String> = match std::fs::read_to_string(path) {
        Ok(text) => text
            .lines()
            .skip(1)
            .filter(|line| {
                line.split(',')
                    .next()
                    .and_then(|g| g.parse::<u64>().ok())
                    .is_some_and(|g| g <= generation)
            })
            .map(str::to_string)
            .collect(),
        Err(_) => Vec::new(),
    };
    let mut text = format!("{header}\n");
    for line in kept {
        text.push_str(&line);
        text.push('\n');
    }
    write_atomically(path, &text)
}

fn append(path: &Path, lines: &str) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.write_all(lines.as_bytes())?;
    file.flush()?;
    Ok(())
}

/// Players sampled evenly over the torus.
fn sampled(players: usize, count: usize) -> Vec<usize> {
    let count = count.min(players);
    (0..count).map(|k| k * players / count).collect()
}

/// Measures sampled players against random and logs them.
fn sample_strength<G: EvolveGame>(
    dir: &Path,
    models: &[NetModel],
    config: &RunConfig,
    seed: u64,
    generation: u64,
) -> anyhow::Result<()> {
    let picked = sampled(models.len(), config.sample_players);
    let chosen: Vec<&NetModel> = picked.iter().map(|&p| &models[p]).collect();
    let scores = games::scores_against::<G>(
        &chosen,
        "random",
        config.sample_games,
        config,
        (seed, TAG_SAMPLE, generation),
    )?;
    let lines: String = picked
        .iter()
        .zip(&scores)
        .map(|(p, s)| format!("{generation},{p},{s:.4}\n"))
        .collect();
    append(&dir.join(STRENGTH_FILE), &lines)
}

fn progress(total: u64, done: u64, label: &str, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{label} {{bar:30}} {{pos}}/{{len}} generations  {{elapsed}} ETA {{eta}}  {{msg}}"
        ))
        .expect("the template is valid"),
    );
    bar.set_position(done);
    bar
}

/// Runs (or resumes) one shard in `dir`. Returns `None` when stopped before the end.
pub fn evolve<G: EvolveGame>(
    shard: &Shard,
    dir: &Path,
    options: &RunOptions,
) -> anyhow::Result<Option<Summary>> {
    let mut config = shard.config.clone();
    if let Some(generations) = options.generations {
        config.generations = generations;
    }
    let seed = shard.seed;
    let torus = Torus {
        width: config.torus[0],
        height: config.torus[1],
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let identity_path = dir.join(CONFIG_FILE);
    let mut population;
    let mut generation;
    if identity_path.exists() {
        if !options.resume {
            bail!(
                "{} holds a run already: pass --resume to continue it, or choose another --out",
                dir.display()
            );
        }
        let stored: RunIdentity =
            serde_json::from_str(&std::fs::read_to_string(&identity_path)?)
                .with_context(|| format!("{}: not a run identity", identity_path.display()))?;
        let mut comparable = stored.config.clone();
        comparable.generations = config.generations;
        if comparable != config || stored.seed != seed {
            bail!(
                "{} was run with other settings; only the number of generations may change on resume",
                dir.display()
            );
        }
        let checkpoint = Checkpoint::load(dir)?;
        if checkpoint.generation > config.generations {
            bail!(
                "{} has {} generations already, more than the {} asked for",
                dir.display(),
                checkpoint.generation,
                config.generations
            );
        }
        if checkpoint.generation == config.generations && dir.join(SUMMARY_FILE).exists() {
            let text = std::fs::read_to_string(dir.join(SUMMARY_FILE))?;
            return Ok(Some(serde_json::from_str(&text)?));
        }
        population = checkpoint.population;
        generation = checkpoint.generation;
        truncate_csv(&dir.join(LOG_FILE), LOG_HEADER, generation)?;
        truncate_csv(&dir.join(STRENGTH_FILE), STRENGTH_HEADER, generation)?;
    } else {
        population = first_population(&config, seed, torus.len());
        generation = 0;
        truncate_csv(&dir.join(LOG_FILE), LOG_HEADER, 0)?;
        truncate_csv(&dir.join(STRENGTH_FILE), STRENGTH_HEADER, 0)?;
        Checkpoint {
            generation,
            population: population.clone(),
        }
        .save(dir)?;
    }
    // The identity of the run (on resume: with the latest generation count).
    write_atomically(
        &identity_path,
        &serde_json::to_string_pretty(&RunIdentity {
            config: config.clone(),
            seed,
        })?,
    )?;
    // The current population's networks, built once per generation.
    let mut models = games::models(&population, &config);
    if generation == 0 && config.sample_every > 0 && !strength_has(dir, 0)? {
        sample_strength::<G>(dir, &models, &config, seed, 0)?;
    }
    let bar = progress(config.generations, generation, &shard.id(), options.quiet);
    let mut evolving_seconds = 0.0;
    let mut evolved = 0u64;
    while generation < config.generations {
        if options.stop.is_raised() {
            Checkpoint {
                generation,
                population,
            }
            .save(dir)?;
            bar.abandon_with_message("stopped; resume with --resume");
            return Ok(None);
        }
        let started = Instant::now();
        let (scores, game_count) =
            games::generation_scores::<G>(&models, torus, &config, seed, generation);
        population = next_generation(&population, &scores, torus, &config, seed, generation);
        models = games::models(&population, &config);
        generation += 1;
        let seconds = started.elapsed().as_secs_f64();
        evolving_seconds += seconds;
        evolved += 1;
        let s = sorted(&scores);
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        let (magnitude, diversity) = magnitude_and_diversity(&population);
        append(
            &dir.join(LOG_FILE),
            &format!(
                "{generation},{game_count},{mean:.4},{:.4},{:.4},{:.4},{magnitude:.6},{diversity:.6},{seconds:.4}\n",
                median(&s),
                s[0],
                s[s.len() - 1]
            ),
        )?;
        if config.sample_every > 0 && generation % config.sample_every == 0 {
            sample_strength::<G>(dir, &models, &config, seed, generation)?;
        }
        if generation % config.checkpoint_every == 0 || generation == config.generations {
            Checkpoint {
                generation,
                population: population.clone(),
            }
            .save(dir)?;
        }
        bar.set_position(generation);
        bar.set_message(format!("mean wins {mean:.2}/12"));
    }
    bar.finish_and_clear();
    let generations_per_second = if evolving_seconds > 0.0 {
        evolved as f64 / evolving_seconds
    } else {
        0.0
    };
    finish::<G>(shard, &config, dir, &models, generations_per_second).map(Some)
}

fn strength_has(dir: &Path, generation: u64) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(dir.join(STRENGTH_FILE)).unwrap_or_default();
    Ok(text
        .lines()
        .skip(1)
        .any(|l| l.split(',').next() == Some(&generation.to_string())))
}

/// Seed 003's evaluation of the final population, the exports, the ladder and the charts.
fn finish<G: EvolveGame>(
    shard: &Shard,
    config: &RunConfig,
    dir: &Path,
    models: &[NetModel],
    generations_per_second: f64,
) -> anyhow::Result<Summary> {
    let all: Vec<&NetModel> = models.iter().collect();
    let scores = games::scores_against::<G>(
        &all,
        "random",
        config.final_games,
        config,
        (shard.seed, TAG_FINAL, config.generations),
    )?;
    let mut standings: Vec<Standing> = scores
        .iter()
        .enumerate()
        .map(|(player, &score)| Standing { player, score })
        .collect();
    // Best first; ties by torus cell.
    standings.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.player.cmp(&b.player)));
    let mut csv = String::from("rank,player,score_vs_random\n");
    for (rank, s) in standings.iter().enumerate() {
        csv.push_str(&format!("{},{},{:.4}\n", rank + 1, s.player, s.score));
    }
    write_atomically(&dir.join(FINAL_FILE), &csv)?;
    let best = &standings[0];
    let middle = &standings[standings.len() / 2];
    models[best.player]
        .save(&dir.join("best.ann"))
        .map_err(anyhow::Error::msg)?;
    models[middle.player]
        .save(&dir.join("median.ann"))
        .map_err(anyhow::Error::msg)?;
    let mut ladder = Vec::new();
    for rung in &config.ladder {
        let score = games::scores_against::<G>(
            &[&models[best.player]],
            rung,
            config.ladder_games,
            config,
            (
                shard.seed,
                TAG_FINAL + 1 + ladder.len() as u64,
                config.generations,
            ),
        )?[0];
        ladder.push((rung.clone(), score));
    }
    let s = sorted(&scores);
    let summary = Summary {
        run: shard.id(),
        name: config.name.clone(),
        seed: shard.seed,
        generations: config.generations,
        final_games: config.final_games,
        median: median(&s),
        mean: s.iter().sum::<f64>() / s.len() as f64,
        best: s[s.len() - 1],
        worst: s[0],
        above_90: s.iter().filter(|&&x| x >= 0.9).count(),
        ladder,
        generations_per_second,
    };
    write_charts(dir, &shard.id(), &standings)?;
    write_atomically(
        &dir.join(SUMMARY_FILE),
        &serde_json::to_string_pretty(&summary)?,
    )?;
    Ok(summary)
}

/// The sorted final scores of a run (best first) as `(rank, score)` points.
pub fn distribution(standings: &[Standing]) -> Vec<(f64, f64)> {
    standings
        .iter()
        .enumerate()
        .map(|(rank, s)| ((rank + 1) as f64, s.score))
        .collect()
}

/// Strength samples per generation: `(generation, median, best)` of the sampled players.
pub fn strength_curve(dir: &Path) -> anyhow::Result<Vec<(f64, f64, f64)>> {
    let text = std::fs::read_to_string(dir.join(STRENGTH_FILE)).unwrap_or_default();
    let mut by_generation: std::collections::BTreeMap<u64, Vec<f64>> = Default::default();
    for (n, line) in text.lines().enumerate().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let parsed = (fields.len() == 3)
            .then(|| {
                Some((
                    fields[0].parse::<u64>().ok()?,
                    fields[2].parse::<f64>().ok()?,
                ))
            })
            .flatten();
        let (generation, score) = parsed.with_context(|| {
            format!(
                "{} line {}: '{line}'",
                dir.join(STRENGTH_FILE).display(),
                n + 1
            )
        })?;
        by_generation.entry(generation).or_default().push(score);
    }
    Ok(by_generation
        .into_iter()
        .map(|(g, scores)| {
            let s = sorted(&scores);
            (g as f64, median(&s), s[s.len() - 1])
        })
        .collect())
}

fn write_charts(dir: &Path, id: &str, standings: &[Standing]) -> anyhow::Result<()> {
    let svg = plot::line_chart(
        &format!("{id}: every player against random, best first"),
        &[(id.to_string(), distribution(standings))],
        "player rank",
        "score against random",
    );
    write_atomically(&dir.join("final.svg"), &svg)?;
    let curve = strength_curve(dir)?;
    let series = vec![
        (
            "median".to_string(),
            curve.iter().map(|&(g, m, _)| (g, m)).collect(),
        ),
        (
            "best".to_string(),
            curve.iter().map(|&(g, _, b)| (g, b)).collect(),
        ),
    ];
    let svg = plot::line_chart(
        &format!("{id}: sampled players against random"),
        &series,
        "generation",
        "score against random",
    );
    write_atomically(&dir.join("strength.svg"), &svg)
}

/// The folder of `shard` under `out`.
pub fn shard_dir(out: &Path, shard: &Shard) -> PathBuf {
    out.join(shard.id())
}

//! The comparison of finished runs, as seed 003 compared its configurations: each
//! population's players sorted by their score against random (one chart per
//! configuration, one line per seed), a summary table, the strength curves over
//! generations, and optionally a cross-population round robin.

use super::breed::Genome;
use super::config::Shard;
use super::games::{self, EvolveGame};
use super::run::{self, Checkpoint, Standing, Summary};
use crate::plot;
use crate::tournament::journal::write_atomically;
use anyhow::Context;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::Color;
use tmbot::nn::NetModel;
use tmbot::play::referee::{play_game, GameSettings};

/// A chart line: its name and points.
type Series = (String, Vec<(f64, f64)>);

/// One line about a finished run.
pub fn summary_line(s: &Summary) -> String {
    let ladder: Vec<String> = s
        .ladder
        .iter()
        .map(|(rung, score)| format!("{rung} {score:.3}"))
        .collect();
    format!(
        "{}: {} generations ({:.1}/s); against random ({} games each): median {:.3}, mean {:.3}, best {:.3}, worst {:.3}, {} players >= 0.9{}",
        s.run,
        s.generations,
        s.generations_per_second,
        s.final_games,
        s.median,
        s.mean,
        s.best,
        s.worst,
        s.above_90,
        if ladder.is_empty() {
            String::new()
        } else {
            format!("; ladder: {}", ladder.join(", "))
        }
    )
}

fn read_standings(dir: &Path) -> anyhow::Result<Vec<Standing>> {
    let path = dir.join(run::FINAL_FILE);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .enumerate()
        .skip(1)
        .map(|(n, line)| {
            let fields: Vec<&str> = line.split(',').collect();
            let parsed = (fields.len() == 3)
                .then(|| {
                    Some(Standing {
                        player: fields[1].parse().ok()?,
                        score: fields[2].parse().ok()?,
                    })
                })
                .flatten();
            parsed.with_context(|| format!("{} line {}: '{line}'", path.display(), n + 1))
        })
        .collect()
}

/// Writes `out/report/`: summary.csv, one distribution chart per configuration, the
/// strength curves, and with `cross > 0` the cross-population round robin.
pub fn write(shards: &[Shard], out: &Path, cross: usize, json: bool) -> anyhow::Result<()> {
    let dir = out.join("report");
    std::fs::create_dir_all(&dir)?;
    let mut summaries = Vec::new();
    let mut by_name: BTreeMap<String, Vec<Series>> = BTreeMap::new();
    let mut curves = Vec::new();
    for shard in shards {
        let run_dir = run::shard_dir(out, shard);
        let text = std::fs::read_to_string(run_dir.join(run::SUMMARY_FILE)).with_context(|| {
            format!(
                "{} is not finished (no summary): run it first",
                run_dir.display()
            )
        })?;
        let summary: Summary = serde_json::from_str(&text)?;
        by_name
            .entry(shard.config.name.clone())
            .or_default()
            .push((shard.id(), run::distribution(&read_standings(&run_dir)?)));
        let curve = run::strength_curve(&run_dir)?;
        curves.push((shard.id(), curve.iter().map(|&(g, m, _)| (g, m)).collect()));
        summaries.push(summary);
    }
    let mut csv =
        String::from("run,name,seed,generations,final_games,median,mean,best,worst,above_90\n");
    for s in &summaries {
        csv.push_str(&format!(
            "{},{},{},{},{},{:.4},{:.4},{:.4},{:.4},{}\n",
            s.run,
            s.name,
            s.seed,
            s.generations,
            s.final_games,
            s.median,
            s.mean,
            s.best,
            s.worst,
            s.above_90
        ));
    }
    write_atomically(&dir.join("summary.csv"), &csv)?;
    for (name, series) in &by_name {
        let svg = plot::line_chart(
            &format!("{name}: players against random, best first"),
            series,
            "player rank",
            "score against random",
        );
        write_atomically(&dir.join(format!("{name}.svg")), &svg)?;
    }
    let medians: Vec<(String, Vec<(f64, f64)>)> = by_name
        .iter()
        .map(|(name, series)| {
            // The configuration's pooled players, best first, rank scaled to a share.
            let mut pooled: Vec<f64> = series
                .iter()
                .flat_map(|(_, p)| p.iter().map(|&(_, s)| s))
                .collect();
            pooled.sort_by(|a, b| b.total_cmp(a));
            let n = pooled.len() as f64;
            let points = pooled
                .iter()
                .enumerate()
                .map(|(i, &s)| ((i as f64 + 0.5) / n, s))
                .collect();
            (name.clone(), points)
        })
        .collect();
    write_atomically(
        &dir.join("configurations.svg"),
        &plot::line_chart(
            "Every configuration's players against random (pooled seeds)",
            &medians,
            "share of players",
            "score against random",
        ),
    )?;
    write_atomically(
        &dir.join("strength.svg"),
        &plot::line_chart(
            "Median sampled player against random, over generations",
            &curves,
            "generation",
            "score against random",
        ),
    )?;
    if json {
        println!("{}", serde_json::to_string(&summaries)?);
    } else {
        for s in &summaries {
            println!("{}", summary_line(s));
        }
    }
    if cross > 0 {
        let table = match shards[0].config.game.as_str() {
            "checkers" => cross_round_robin::<Checkers>(shards, out, cross)?,
            _ => cross_round_robin::<Hex>(shards, out, cross)?,
        };
        write_atomically(&dir.join("cross.csv"), &table)?;
        if !json {
            print!("{table}");
        }
    }
    eprintln!("report written to {}", dir.display());
    Ok(())
}

/// Every population's `sample` players (evenly over the torus) meet every other
/// population's twice, colours swapped; the table gives each population's mean score
/// against each other one, and overall.
fn cross_round_robin<G: EvolveGame>(
    shards: &[Shard],
    out: &Path,
    sample: usize,
) -> anyhow::Result<String> {
    let first = &shards[0].config;
    if let Some(other) = shards
        .iter()
        .find(|s| s.config.game != first.game || s.config.size != first.size)
    {
        anyhow::bail!(
            "cross-population games need one game and board size; {} differs",
            other.id()
        );
    }
    let mut populations: Vec<Vec<NetModel>> = Vec::new();
    for shard in shards {
        let checkpoint = Checkpoint::load(&run::shard_dir(out, shard))?;
        let n = checkpoint.population.len();
        let picked: Vec<Genome> = (0..sample.min(n))
            .map(|k| checkpoint.population[k * n / sample.min(n)].clone())
            .collect();
        populations.push(games::models(&picked, &shard.config));
    }
    let start = G::start(first);
    let settings = GameSettings {
        max_plies: Some(first.max_plies),
        ..GameSettings::default()
    };
    let pairs: Vec<(usize, usize, usize, usize)> = (0..populations.len())
        .flat_map(|a| {
            (0..populations.len())
                .filter(move |&b| b != a)
                .map(move |b| (a, b))
        })
        .flat_map(|(a, b)| {
            let (na, nb) = (populations[a].len(), populations[b].len());
            (0..na).flat_map(move |i| (0..nb).map(move |j| (a, i, b, j)))
        })
        .collect();
    let results: Vec<f64> = pairs
        .par_iter()
        .enumerate()
        .map(|(k, &(a, i, b, j))| {
            let mut black = G::net_agent(&populations[a][i], &shards[a].config);
            let mut white = G::net_agent(&populations[b][j], &shards[b].config);
            let seed = games::stream_seed(shards[a].seed, 9, b as u64, k as u64);
            let record = play_game(
                &start,
                &[],
                [black.as_mut(), white.as_mut()],
                &settings,
                seed,
            );
            record.result.score_for(Color::Black).unwrap_or(0.0)
        })
        .collect();
    let n = populations.len();
    let mut score = vec![vec![(0.0, 0u64); n]; n];
    for (&(a, _, b, _), &black) in pairs.iter().zip(&results) {
        score[a][b].0 += black;
        score[a][b].1 += 1;
        score[b][a].0 += 1.0 - black;
        score[b][a].1 += 1;
    }
    let mut table = String::from("population");
    for shard in shards {
        table.push(',');
        table.push_str(&shard.id());
    }
    table.push_str(",overall\n");
    for (a, shard) in shards.iter().enumerate() {
        table.push_str(&shard.id());
        let (mut total, mut games) = (0.0, 0u64);
        for (b, &(s, g)) in score[a].iter().enumerate() {
            if a == b {
                table.push(',');
            } else {
                table.push_str(&format!(",{:.4}", s / g as f64));
                total += s;
                games += g;
            }
        }
        table.push_str(&format!(",{:.4}\n", total / games.max(1) as f64));
    }
    Ok(table)
}

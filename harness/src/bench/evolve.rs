//! `arena bench evolve`: generations per second of seed 003's evolution (a 10 x 10 torus,
//! 600 neighbour games and the breeding of 100 networks per generation) on 1 thread and on
//! `--threads` threads, interleaved (1, N, 1, N, ...), with the median and spread of each
//! and CPU seconds beside wall seconds.

use super::cpu_seconds;
use crate::evolve::config::parse;
use crate::evolve::games::{generation_scores, models};
use crate::evolve::run::{first_population, next_generation};
use crate::evolve::torus::Torus;
use crate::stats::median;
use std::time::Instant;
use tmbot::game::hex::Hex;

/// Arguments of `arena bench evolve`.
#[derive(clap::Args)]
pub struct Args {
    /// Board sides to measure.
    #[arg(long, value_delimiter = ',', default_values_t = [7, 11])]
    sizes: Vec<usize>,
    /// Hidden layers, e.g. 5 or 25,5.
    #[arg(long, value_delimiter = ',', default_values_t = [5])]
    hidden: Vec<usize>,
    /// Generations per measurement.
    #[arg(long, default_value_t = 20)]
    generations: u64,
    /// Interleaved repeats of each thread count.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Threads of the parallel measurement.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Wall and CPU seconds of `generations` generations from the seed's first population.
fn measure(
    size: usize,
    hidden: &[usize],
    generations: u64,
    seed: u64,
) -> anyhow::Result<(f64, Option<f64>, f64)> {
    let hidden: Vec<String> = hidden.iter().map(usize::to_string).collect();
    let text = format!(
        "[evolve]\nsize = {size}\nhidden = [{}]\n[[run]]\nname = \"bench\"\n",
        hidden.join(",")
    );
    let config = parse(&text)?.remove(0).config;
    let torus = Torus {
        width: 10,
        height: 10,
    };
    let mut population = first_population(&config, seed, torus.len());
    let cpu = cpu_seconds();
    let started = Instant::now();
    let mut total_score = 0.0;
    for generation in 0..generations {
        let models = models(&population, &config);
        let (scores, _) = generation_scores::<Hex>(&models, torus, &config, seed, generation);
        total_score += scores.iter().sum::<f64>();
        population = next_generation(&population, &scores, torus, &config, seed, generation);
    }
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu.zip(cpu_seconds()).map(|(a, b)| b - a);
    Ok((wall, cpu, total_score))
}

/// Runs the benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    let counts = [1, args.threads];
    let pools = counts
        .iter()
        .map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build())
        .collect::<Result<Vec<_>, _>>()?;
    for &size in &args.sizes {
        let mut walls = [Vec::new(), Vec::new()];
        let mut cpus = [Vec::new(), Vec::new()];
        let mut checks = [Vec::new(), Vec::new()];
        for _ in 0..args.repeats {
            for (k, pool) in pools.iter().enumerate() {
                let (wall, cpu, check) =
                    pool.install(|| measure(size, &args.hidden, args.generations, args.seed))?;
                walls[k].push(wall / args.generations as f64);
                cpus[k].push(cpu.unwrap_or(f64::NAN) / args.generations as f64);
                checks[k].push(check);
            }
        }
        anyhow::ensure!(
            checks.iter().flatten().all(|&c| c == checks[0][0]),
            "the evolution differed between runs or thread counts"
        );
        for (k, threads) in counts.iter().enumerate() {
            let (low, high) = walls[k]
                .iter()
                .fold((f64::INFINITY, 0.0f64), |(l, h), &w| (l.min(w), h.max(w)));
            let wall = median(&walls[k]);
            println!(
                "hex {size}x{size}, {} network, {threads} thread{}: {:.1} ms/generation wall \
                 (median of {}, spread {:.1}-{:.1}), {:.1} ms CPU = {:.1} generations/s",
                shape_name(size, &args.hidden),
                if *threads == 1 { "" } else { "s" },
                wall * 1e3,
                args.repeats,
                low * 1e3,
                high * 1e3,
                median(&cpus[k]) * 1e3,
                1.0 / wall
            );
        }
    }
    println!("(identical populations on every run and thread count: checked)");
    Ok(())
}

fn shape_name(size: usize, hidden: &[usize]) -> String {
    let mut parts = vec![(size * size).to_string()];
    parts.extend(hidden.iter().map(usize::to_string));
    parts.push("1".into());
    parts.join("-")
}

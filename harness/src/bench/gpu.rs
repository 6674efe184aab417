//! `arena bench gpu`: the per-class Tsetlin Machine's epochs on the GPU beside the same
//! epochs on the CPU (a pool of `--cpu-threads` threads on the same machine), at the
//! checkers thesis's setting by default (19,000 clauses x 3 classes on the checkers planes,
//! nine folds: about 20,000 samples), then batched inference on the GPU beside the CPU's.
//!
//! Each device trains its own machine from the same seed for its epochs; epoch k of one is
//! set beside epoch k of the other (clause activity, and so the cost of an epoch, changes as
//! a machine learns). Wall seconds and, for the CPU, the process's CPU seconds; the GPU's
//! epoch includes the upload and download of the automata. Inference is timed end to end
//! (samples up, sums down), `--repeats` times alternating GPU and CPU, median and range.

use super::cpu_seconds;
use super::tm::{ratio, spread};
use anyhow::Context;
use std::path::PathBuf;
use std::time::Instant;
use tmbot::tm::device::{BatchScorer, Device, Trainer};
use tmbot::tm::persist::Machine;
use tmbot::tm::{Dataset, MultiClassTm, Params};

/// Arguments of `arena bench gpu`.
#[derive(clap::Args)]
pub struct Args {
    /// Folder of seed 001's folds (fold0.csv .. fold9.csv): folds 1-9 train, fold 0 tests.
    #[arg(long, default_value = "../shared/data/checkers/standard_end_10fold")]
    folds: PathBuf,
    /// Clauses per class.
    #[arg(long, default_value_t = 19_000)]
    clauses: usize,
    /// Vote clamp T.
    #[arg(long = "T", default_value_t = 40_000)]
    threshold: i32,
    /// Specificity s.
    #[arg(long, default_value_t = 9.0)]
    s: f64,
    /// Seed of both machines.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Epochs on the CPU.
    #[arg(long, default_value_t = 2)]
    cpu_epochs: usize,
    /// Epochs on the GPU.
    #[arg(long, default_value_t = 5)]
    gpu_epochs: usize,
    /// Threads of the CPU runs.
    #[arg(long, default_value_t = 2)]
    cpu_threads: usize,
    /// Positions per inference batch (the training rows repeated).
    #[arg(long, value_delimiter = ',', default_value = "1000000,1000")]
    batches: Vec<usize>,
    /// Rounds of the inference timing.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Positions of each batch the CPU's inference is timed on (its rate hardly depends on
    /// the batch beyond a few thousand; a million would take minutes).
    #[arg(long, default_value_t = 20_000)]
    cpu_positions: usize,
}

/// One device's epochs: (wall seconds, CPU seconds) each, and the test accuracy after them.
struct Epochs {
    times: Vec<(f64, f64)>,
    accuracy: f64,
    machine: Machine,
}

fn train(
    device: Device,
    params: &Params,
    train: &Dataset,
    test: &Dataset,
    epochs: usize,
) -> anyhow::Result<Epochs> {
    let tm = MultiClassTm::new(params.clone(), train.features(), 3).map_err(anyhow::Error::msg)?;
    let mut machine = Machine::PerClass(tm);
    let mut trainer = Trainer::new(device, &machine, train).map_err(anyhow::Error::msg)?;
    let mut times = Vec::new();
    for epoch in 1..=epochs {
        let (start, cpu) = (Instant::now(), cpu_seconds());
        trainer
            .fit_epoch(&mut machine, train)
            .map_err(anyhow::Error::msg)?;
        let wall = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds().zip(cpu).map_or(f64::NAN, |(b, a)| b - a);
        eprintln!("{device} epoch {epoch}: {wall:.3} s wall, {cpu:.2} CPU s");
        times.push((wall, cpu));
    }
    let accuracy = test.accuracy(&machine.predict_all(test));
    Ok(Epochs {
        times,
        accuracy,
        machine,
    })
}

/// Runs the GPU benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    let read = |k: usize| {
        let path = args.folds.join(format!("fold{k}.csv"));
        Dataset::read_csv(&path).with_context(|| format!("reading {}", path.display()))
    };
    let test = read(0)?;
    let mut train_set = read(1)?;
    for k in 2..10 {
        train_set.extend(&read(k)?);
    }
    let gpu_name = describe_gpu()?;
    let params = Params {
        clauses: args.clauses,
        threshold: args.threshold,
        specificity: args.s,
        weighted: true,
        seed: args.seed,
        ..Params::default()
    };
    println!("GPU: {gpu_name}");
    println!(
        "training: per-class, {} clauses x 3 classes, T {}, s {}, weighted; {} samples of {} \
         features (folds 1-9); CPU: {} threads",
        args.clauses,
        args.threshold,
        args.s,
        train_set.len(),
        train_set.features(),
        args.cpu_threads
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.cpu_threads)
        .build()?;
    let cpu = pool.install(|| train(Device::Cpu, &params, &train_set, &test, args.cpu_epochs))?;
    let gpu = train(Device::Cuda, &params, &train_set, &test, args.gpu_epochs)?;
    println!("| epoch | CPU wall s | CPU s | GPU wall s | CPU wall / GPU wall |");
    println!("| --- | --- | --- | --- | --- |");
    for e in 0..args.cpu_epochs.max(args.gpu_epochs) {
        let c = cpu.times.get(e).copied().unwrap_or((f64::NAN, f64::NAN));
        let g = gpu.times.get(e).map_or(f64::NAN, |t| t.0);
        println!(
            "| {} | {} | {} | {} | {} |",
            e + 1,
            figure(c.0),
            figure(c.1),
            figure(g),
            ratio(c.0, g)
        );
    }
    println!(
        "fold 0 accuracy: CPU {:.2}% after {} epochs, GPU {:.2}% after {}",
        100.0 * cpu.accuracy,
        args.cpu_epochs,
        100.0 * gpu.accuracy,
        args.gpu_epochs
    );
    let model = match &gpu.machine {
        Machine::PerClass(tm) => tm.compile(),
        _ => unreachable!("the bench trains per-class machines"),
    };
    println!(
        "inference: {} non-empty clauses (the GPU-trained machine), end to end",
        model.clauses().len()
    );
    let gpu_scorer = BatchScorer::new(Device::Cuda, model.clone()).map_err(anyhow::Error::msg)?;
    let cpu_scorer = BatchScorer::Cpu(model);
    println!(
        "| batch | GPU positions/s (range) | CPU positions/s, {} threads (range) | GPU / CPU |",
        args.cpu_threads
    );
    println!("| --- | --- | --- | --- |");
    for &batch in &args.batches {
        let batch_of = |n: usize| {
            let mut data = Dataset::new(train_set.features());
            for i in 0..n {
                data.push_packed(train_set.row(i % train_set.len()), 0);
            }
            data
        };
        let (data, cpu_data) = (batch_of(batch), batch_of(batch.min(args.cpu_positions)));
        // Warm-up: the first launch loads the kernel.
        assert_eq!(
            gpu_scorer.class_sums(&cpu_data),
            cpu_scorer.class_sums(&cpu_data),
            "GPU and CPU sums differ"
        );
        let (mut on_gpu, mut on_cpu) = (Vec::new(), Vec::new());
        for _ in 0..args.repeats.max(1) {
            let start = Instant::now();
            std::hint::black_box(gpu_scorer.class_sums(&data));
            on_gpu.push(batch as f64 / start.elapsed().as_secs_f64());
            let start = Instant::now();
            std::hint::black_box(pool.install(|| cpu_scorer.class_sums(&cpu_data)));
            on_cpu.push(cpu_data.len() as f64 / start.elapsed().as_secs_f64());
        }
        anyhow::ensure!(!gpu_scorer.fell_back(), "the GPU failed during the timing");
        let (g, g_lo, g_hi) = spread(&on_gpu);
        let (c, c_lo, c_hi) = spread(&on_cpu);
        println!(
            "| {batch} | {g:.3e} ({g_lo:.2e}-{g_hi:.2e}) | {c:.3e} ({c_lo:.2e}-{c_hi:.2e}) | {} |",
            ratio(g, c)
        );
    }
    Ok(())
}

fn figure(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "-".into()
    }
}

#[cfg(feature = "cuda")]
fn describe_gpu() -> anyhow::Result<String> {
    tmbot::tm::cuda::describe().map_err(anyhow::Error::msg)
}

#[cfg(not(feature = "cuda"))]
fn describe_gpu() -> anyhow::Result<String> {
    anyhow::bail!("this arena has no CUDA support: build it with `cargo build --release --workspace --features cuda`")
}

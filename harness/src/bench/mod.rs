//! `arena bench TARGET`: benchmarks that print their figures (and peers' figures side by side).

mod engine;
mod evolve;
mod gpu;
mod perft;
mod playouts;
mod referee;
mod search;
mod tm;

use clap::Subcommand;

/// Arguments of `arena bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    target: Target,
}

#[derive(Subcommand)]
enum Target {
    /// Single-threaded checkers perft from the start (paths and positions modes).
    Perft(perft::Args),
    /// Uniform random Hex playouts from the empty board (playouts/s).
    Playouts(playouts::Args),
    /// MCTS simulations/s on empty Hex (1 and 2 threads), alpha-beta nodes/s on checkers.
    Search(search::Args),
    /// Tsetlin Machine training and inference on random-play Hex (with peers).
    Tm(tm::Args),
    /// The per-class Tsetlin Machine's epochs and batched inference on a CUDA GPU beside
    /// the CPU (a build with the `cuda` feature).
    Gpu(gpu::Args),
    /// The tmbot binary: start-up to first answer, genmove wall time under max_time.
    Engine(engine::Args),
    /// Generations/s of seed 003's evolution (7x7 and 11x11, 1 and N threads, interleaved).
    Evolve(evolve::Args),
    /// Games/s through the referee (in-process and external random players) and the
    /// referee's own cost per move.
    Referee(referee::Args),
}

/// Runs one benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.target {
        Target::Perft(args) => perft::run(args),
        Target::Playouts(args) => playouts::run(args),
        Target::Search(args) => search::run(args),
        Target::Tm(args) => tm::run(args),
        Target::Gpu(args) => gpu::run(args),
        Target::Engine(args) => engine::run(args),
        Target::Referee(args) => referee::run(args),
        Target::Evolve(args) => evolve::run(args),
    }
}

/// User plus system CPU seconds of this process so far (Linux), a steadier measure than wall
/// time when other programs share the cores.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    // Clock ticks are 1/100 s on Linux.
    Some((user + system) / 100.0)
}

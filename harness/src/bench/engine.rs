//! `arena bench engine`: the `tmbot` binary as a GUI sees it: the time from starting the
//! process to its first answer (`name`), and the wall time of `genmove` on an empty Hex
//! board under a per-move limit (`param_tmbot max_time`).

use anyhow::{bail, Context};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// Arguments of `arena bench engine`.
#[derive(clap::Args)]
pub struct Args {
    /// The engine binary (default: `tmbot` next to `arena`).
    #[arg(long)]
    engine: Option<PathBuf>,
    /// Process starts to time.
    #[arg(long, default_value_t = 20)]
    starts: usize,
    /// `genmove` calls to time, each on a fresh `clear_board`.
    #[arg(long, default_value_t = 20)]
    moves: usize,
    /// Hex board size for `genmove`.
    #[arg(long, default_value_t = 11)]
    size: usize,
    /// Seconds per move (`param_tmbot max_time`).
    #[arg(long, default_value_t = 1.0)]
    max_time: f64,
    /// The engine's player spec (default: the engine's own, MCTS for Hex).
    #[arg(long)]
    player: Option<String>,
    /// The engine's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// A running engine and its pipes.
struct EngineProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl EngineProcess {
    fn start(engine: &PathBuf, args: &[String]) -> anyhow::Result<EngineProcess> {
        let mut child = Command::new(engine)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", engine.display()))?;
        let stdin = child.stdin.take().context("no stdin pipe")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout pipe")?);
        Ok(EngineProcess {
            child,
            stdin,
            stdout,
        })
    }

    /// Sends `command` and returns the successful answer's text.
    fn ask(&mut self, command: &str) -> anyhow::Result<String> {
        writeln!(self.stdin, "{command}")?;
        self.stdin.flush()?;
        let mut response = String::new();
        loop {
            let mut line = String::new();
            if self.stdout.read_line(&mut line)? == 0 {
                bail!("the engine closed its output after '{command}'");
            }
            if line == "\n" {
                break;
            }
            response.push_str(&line);
        }
        match response.strip_prefix("= ") {
            Some(text) => Ok(text.trim_end().to_string()),
            None => bail!("'{command}' failed: {}", response.trim_end()),
        }
    }

    fn quit(mut self) -> anyhow::Result<()> {
        self.ask("quit")?;
        let status = self.child.wait()?;
        if !status.success() {
            bail!("the engine exited with {status}");
        }
        Ok(())
    }
}

/// Median and maximum of `samples` (sorted in place).
fn median_max(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort_unstable();
    (samples[samples.len() / 2], samples[samples.len() - 1])
}

/// Runs the engine benchmark.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.starts == 0 || args.moves == 0 {
        bail!("--starts and --moves must be at least 1");
    }
    let engine = match args.engine {
        Some(path) => path,
        None => std::env::current_exe()?
            .with_file_name(format!("tmbot{}", std::env::consts::EXE_SUFFIX)),
    };
    let mut engine_args = vec![
        "hex".to_string(),
        "--size".to_string(),
        args.size.to_string(),
        "--seed".to_string(),
        args.seed.to_string(),
    ];
    if let Some(player) = &args.player {
        engine_args.extend(["--player".to_string(), player.clone()]);
    }

    let mut starts = Vec::with_capacity(args.starts);
    for _ in 0..args.starts {
        let started = Instant::now();
        let mut process = EngineProcess::start(&engine, &engine_args)?;
        process.ask("name")?;
        starts.push(started.elapsed());
        process.quit()?;
    }
    let (median, max) = median_max(&mut starts);
    println!(
        "start-up to first answer (name), {} starts: median {:.1} ms, max {:.1} ms",
        args.starts,
        median.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3
    );

    let mut process = EngineProcess::start(&engine, &engine_args)?;
    process.ask(&format!("param_tmbot max_time {}", args.max_time))?;
    let params = process.ask("param_tmbot")?;
    let player = params
        .lines()
        .find_map(|line| line.strip_prefix("[string] player "))
        .unwrap_or("?")
        .to_string();
    let mut moves = Vec::with_capacity(args.moves);
    for _ in 0..args.moves {
        process.ask("clear_board")?;
        let started = Instant::now();
        process.ask("genmove black")?;
        moves.push(started.elapsed());
    }
    process.quit()?;
    let (median, max) = median_max(&mut moves);
    println!(
        "genmove on an empty {0}x{0} board, max_time {1} s (player {player}), {2} calls: median {3:.3} s, max {4:.3} s",
        args.size,
        args.max_time,
        args.moves,
        median.as_secs_f64(),
        max.as_secs_f64()
    );
    Ok(())
}

//! `arena`: tmbot's harness (showcase, perft, game replay, matches, Tsetlin Machine training, benchmarks).

mod baseline;
mod bench;
mod book;
mod cv;
mod dataset;
mod endgame;
mod evolve;
mod explain;
mod export;
mod learn;
mod logreg;
mod matches;
mod patterns;
mod perft;
mod plot;
mod plural;
mod replay;
mod selfplay;
mod showcase;
mod solve;
mod sprt;
mod stats;
mod thread_share;
mod tournament;
mod train;
mod tune;
mod tune_patterns;

use clap::{Parser, Subcommand};

/// tmbot's harness.
#[derive(Parser)]
#[command(name = "arena", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// A quick tour: built-in players meet in a small round robin in each game.
    Showcase(showcase::Args),
    /// Count the leaves of the legal-move tree (rules oracle and speed test).
    Perft(perft::Args),
    /// Solve a Hex position, or every first move of a board (DFPN with virtual connections).
    Solve(solve::Args),
    /// Replay every game of a PDN file and report the ones that fail.
    Replay(replay::Args),
    /// Train a Tsetlin Machine on a dataset and save the model.
    Train(train::Args),
    /// k-fold cross-validation of a Tsetlin Machine.
    Cv(cv::Args),
    /// The same folds by multinomial logistic regression (the reference line).
    Logreg(logreg::Args),
    /// Print a trained model's clauses as readable rules.
    Explain(explain::Args),
    /// Write a model's include masks and weights for fast inference.
    Export(export::Args),
    /// Play a series between two in-process players, colours alternating.
    Match(matches::Args),
    /// Benchmarks (perft, playouts, searches, engine, Tsetlin Machine).
    Bench(bench::Args),
    /// Play a tournament file: round robins and gauntlets with a journal, records and ratings.
    Tournament(tournament::Args),
    /// Join the output folders of a tournament's shards.
    Merge(tournament::MergeArgs),
    /// A player against random (seed 003's protocol) or placed on a ladder of built-in players.
    Baseline(baseline::Args),
    /// Play a tournament file and write every position of its games (positions.csv).
    Selfplay(selfplay::Args),
    /// Turn positions.csv files into the seeds' training files (end, N plies before, all).
    Dataset(dataset::Args),
    /// List the feature encoders of `train`/`cv` with their versions and options.
    Encoders,
    /// The iterated learning loop: self-play, dataset, train, gauntlet; keep the better.
    Learn(learn::Args),
    /// Evolve neural players on a hexagonal torus (seed 003), then evaluate and compare them.
    Evolve(evolve::Args),
    /// Solve every checkers position of up to N pieces (endgame databases) and report them.
    Endgame(endgame::Args),
    /// Fit the checkers knowledge evaluation's weights to self-play outcomes (logistic
    /// regression).
    Tune(tune::Args),
    /// Fit the checkers knowledge evaluation's pattern tables (men in nine 4x4 windows) to
    /// self-play outcomes, on top of its weights.
    TunePatterns(tune_patterns::Args),
    /// Build a checkers move book from the player's own deep searches along each opening.
    Book(book::Args),
    /// Fit Hex move patterns (the MCTS's move priors) to the moves of players in journals.
    Patterns(patterns::Args),
    /// Sequential probability ratio test of a result (fastchess/fishtest GSPRT).
    Sprt(sprt::Args),
}

/// Restores the default action of SIGPIPE (the Rust runtime ignores it), so that output
/// piped into a reader that closes early (`arena perft checkers | head -1`) ends the process
/// quietly, as with other Unix tools, instead of failing a write with a panic.
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: called once at the start of main, before any other thread exists; SIG_DFL is
    // a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

fn main() {
    tmbot::build_target::require();
    default_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Showcase(args) => showcase::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Evolve(args) => evolve::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Dataset(args) => dataset::run(args),
        Command::Learn(args) => learn::run(args),
        Command::Logreg(args) => logreg::run(args),
        Command::Encoders => {
            print!("{}", tmbot::features::encoder::listing());
            Ok(())
        }
        Command::Replay(args) => replay::run(args),
        Command::Train(args) => train::run(args),
        Command::Cv(args) => cv::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Export(args) => export::run(args),
        Command::Match(args) => matches::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Tournament(args) => tournament::run(args),
        Command::Merge(args) => tournament::merge(args),
        Command::Baseline(args) => baseline::run(args),
        Command::Endgame(args) => endgame::run(args),
        Command::Book(args) => book::run(args),
        Command::Tune(args) => tune::run(args),
        Command::TunePatterns(args) => tune_patterns::run(args),
        Command::Sprt(args) => sprt::run(args),
        Command::Patterns(args) => patterns::run(args),
    };
    if let Err(err) = result {
        eprintln!("arena: error: {err:#}");
        std::process::exit(1);
    }
}

//! `cbhost LIBRARY`: any CheckerBoard engine library (Cake, simplech, tmbot's own) as a
//! text engine speaking tmbot's checkers protocol on standard input and output, so that
//! `arena` tournaments play it as `external:cmd="cbhost path/to/cake.so",dir=path/to`.
//!
//! Libraries print what they like on standard output; it is sent to standard error here, and
//! the protocol keeps a descriptor of its own.

use clap::Parser;
use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use tmbot::protocol::session;
use tmbot_cb::host::EngineLibrary;
use tmbot_cb::hosted::{parse_positive, Hosted};

/// Command line of `cbhost`.
#[derive(Parser, Debug)]
#[command(
    name = "cbhost",
    version,
    about = "Runs a CheckerBoard engine library behind tmbot's checkers text protocol"
)]
struct Cli {
    /// The engine library (a .so/.dll exporting CheckerBoard's getmove).
    library: PathBuf,
    /// Seconds a move may take (`max_time` changes it; a clock set by `time_left` may
    /// shorten it).
    #[arg(long, default_value = "1", value_parser = parse_positive)]
    time: f64,
    /// A move that has taken this many times its time is cut short (the library's
    /// `playnow` is raised): engines take the time as an average and may overrun it.
    #[arg(long, default_value = "2", value_parser = parse_positive)]
    cap: f64,
}

/// The protocol's output: standard output as it was at start-up, with file descriptor 1
/// pointed at standard error so that the library's own printing cannot break the protocol.
#[cfg(unix)]
fn protocol_output() -> io::Result<Box<dyn Write>> {
    use std::os::fd::FromRawFd;
    // SAFETY: plain descriptor calls on this process's own standard streams.
    unsafe {
        let kept = libc::dup(1);
        if kept < 0 || libc::dup2(2, 1) < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Box::new(std::fs::File::from_raw_fd(kept)))
    }
}

#[cfg(not(unix))]
fn protocol_output() -> io::Result<Box<dyn Write>> {
    Ok(Box::new(io::stdout()))
}

fn main() -> ExitCode {
    tmbot::build_target::require();
    let cli = Cli::parse();
    let output = match protocol_output() {
        Ok(output) => output,
        Err(err) => {
            eprintln!("cbhost: cannot set up standard output: {err}");
            return ExitCode::FAILURE;
        }
    };
    let library = match EngineLibrary::load(&cli.library) {
        Ok(library) => library,
        Err(err) => {
            eprintln!("cbhost: {err}");
            return ExitCode::from(2);
        }
    };
    let mut hosted = Hosted::new(library, cli.time, cli.cap);
    let registry = hosted.registry();
    eprintln!(
        "cbhost: {} from {}, {} s a move, cut at {} times that",
        registry.identity.name,
        cli.library.display(),
        cli.time,
        cli.cap
    );
    let stop = hosted.stop.clone();
    match session::serve(
        &registry,
        &mut hosted,
        BufReader::new(io::stdin()),
        output,
        stop,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("cbhost: {err}");
            ExitCode::FAILURE
        }
    }
}

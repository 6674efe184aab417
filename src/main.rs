//! The `tmbot` engine: speaks HTP (Hex) or the checkers board-string protocol on stdin and
//! stdout, with GTP framing. Logs go to stderr. Exits on `quit` or when stdin closes.

use clap::{Parser, ValueEnum};
use std::io::{self, BufReader};
use std::process::ExitCode;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::player::list_players;
use tmbot::protocol::engine::{Engine, ProtocolGame};
use tmbot::protocol::registry::Registry;
use tmbot::protocol::{checkers, htp, session};

/// Hex board size when `--size` is not given.
const DEFAULT_HEX_SIZE: usize = 11;

/// Which game (and so which protocol) to speak.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum GameKind {
    /// Hex over HTP (HexGui, Benzene tools).
    Hex,
    /// English checkers over the board-string protocol.
    Checkers,
}

/// tmbot: a Hex and English checkers engine with Tsetlin Machine evaluators.
#[derive(Parser)]
#[command(name = "tmbot", version, about)]
struct Cli {
    /// The game to play.
    #[arg(value_enum, default_value = "hex")]
    game: GameKind,
    /// The player: a search, its evaluator and limits (see --list-players).
    #[arg(long)]
    player: Option<String>,
    /// Seed of every random choice (the same seed and commands give the same answers).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Hex board size at start-up (default 11; changed later with `boardsize`). Hex only:
    /// checkers has no size.
    #[arg(long)]
    size: Option<usize>,
    /// Print every player and evaluator with its options, then exit.
    #[arg(long)]
    list_players: bool,
}

fn serve<G: ProtocolGame>(game: G, registry: Registry<Engine<G>>, cli: &Cli) -> ExitCode {
    if cli.list_players {
        print!("{}", list_players::<G>(G::DEFAULT_PLAYER));
        return ExitCode::SUCCESS;
    }
    let spec = cli.player.as_deref().unwrap_or(G::DEFAULT_PLAYER);
    let mut engine = match Engine::new(game, spec, cli.seed) {
        Ok(engine) => engine,
        Err(err) => {
            eprintln!("tmbot: bad --player '{spec}': {err}");
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "tmbot {}: {:?}, player {}, seed {}",
        env!("CARGO_PKG_VERSION"),
        cli.game,
        engine.player_spec(),
        cli.seed
    );
    let stop = engine.stop.clone();
    match session::serve(
        &registry,
        &mut engine,
        BufReader::new(io::stdin()),
        io::stdout().lock(),
        stop,
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("tmbot: output closed: {err}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    tmbot::build_target::require();
    let cli = Cli::parse();
    match cli.game {
        GameKind::Hex => {
            let size = cli.size.unwrap_or(DEFAULT_HEX_SIZE);
            match Hex::new(size, size) {
                Ok(game) => serve(game, htp::registry(), &cli),
                Err(err) => {
                    eprintln!("tmbot: --size: {err}");
                    ExitCode::from(2)
                }
            }
        }
        GameKind::Checkers => match cli.size {
            Some(size) => {
                eprintln!(
                    "tmbot: --size {size}: checkers is always played on the 8 x 8 board; \
                     --size is for hex only"
                );
                ExitCode::from(2)
            }
            None => serve(Checkers::new(), checkers::registry(), &cli),
        },
    }
}

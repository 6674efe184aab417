//! A CheckerBoard engine library behind tmbot's checkers text protocol (`cbhost`): the
//! position is kept here, and `genmove` asks the library through `getmove`. So any
//! CheckerBoard engine plays in the harness's tournaments as an external engine.

use crate::host::EngineLibrary;
use crate::{CB_DRAW, CB_LOSS, CB_WIN};
use std::time::{Duration, Instant};
use tmbot::game::checkers::{to_fen, Checkers};
use tmbot::game::Game;
use tmbot::protocol::checkers::{game_history, play_move};
use tmbot::protocol::clock::Clock;
use tmbot::protocol::engine::{parse_color, parse_seconds, ProtocolGame, DEFAULT_GAME_TIME};
use tmbot::protocol::registry::{Command, Identity, Registry};
use tmbot::stop::StopFlag;

/// The session: the library, the game so far and the time settings.
pub struct Hosted {
    library: EngineLibrary,
    /// The game record.
    pub game: Checkers,
    /// Raised by `# interrupt`: the library is told to play at once.
    pub stop: StopFlag,
    clock: Clock,
    max_time: f64,
    cap_factor: f64,
    /// Whether the library has yet to move in this game (its history is then reset).
    fresh: bool,
}

impl Hosted {
    /// A session on `library` thinking `max_time` seconds a move (less when a clock set by
    /// `time_left` asks for less), told to play at once when a move has taken `cap_factor`
    /// times its time.
    pub fn new(library: EngineLibrary, max_time: f64, cap_factor: f64) -> Hosted {
        Hosted {
            library,
            game: Checkers::new(),
            stop: StopFlag::default(),
            clock: Clock::new(DEFAULT_GAME_TIME),
            max_time,
            cap_factor,
            fresh: true,
        }
    }

    /// The protocol table, answering `name` with the library's name.
    pub fn registry(&self) -> Registry<Hosted> {
        Registry {
            identity: Identity {
                // One registry per process: the name is leaked once.
                name: Box::leak(self.library.name().into_boxed_str()),
                version: "",
                protocol_version: "2",
            },
            commands: &COMMANDS,
        }
    }

    fn set_game(&mut self, game: Checkers) {
        self.game = game;
        self.fresh = true;
    }
}

const COMMANDS: [Command<Hosted>; 10] = [
    Command {
        name: "clear_board",
        usage: "clear_board: the start position",
        handler: clear_board,
    },
    Command {
        name: "setboard",
        usage: "setboard FEN: set the position",
        handler: setboard,
    },
    Command {
        name: "play",
        usage: "play MOVE: play a PDN move such as 11-15 or 22x15",
        handler: play,
    },
    Command {
        name: "genmove",
        usage: "genmove [COLOR]: the library's move, played",
        handler: genmove,
    },
    Command {
        name: "getboard",
        usage: "getboard: the position as a FEN",
        handler: getboard,
    },
    Command {
        name: "legal_moves",
        usage: "legal_moves: every legal move",
        handler: legal_moves,
    },
    Command {
        name: "time_left",
        usage: "time_left COLOR SECONDS: set a clock (moves then take at most their share)",
        handler: time_left,
    },
    Command {
        name: "max_time",
        usage: "max_time [SECONDS]: read or set the time a move may take",
        handler: max_time,
    },
    Command {
        name: "set",
        usage: "set gamehist FEN [MOVES...]: the game so far",
        handler: set,
    },
    Command {
        name: "enginecommand",
        usage: "enginecommand TEXT: the library's own command (name, about, set hashsize 64, ...)",
        handler: enginecommand,
    },
];

fn clear_board(h: &mut Hosted, _args: &[String]) -> Result<String, String> {
    h.set_game(Checkers::new());
    h.clock.reset();
    Ok(String::new())
}

fn setboard(h: &mut Hosted, args: &[String]) -> Result<String, String> {
    if args.is_empty() {
        return Err("usage: setboard FEN".to_string());
    }
    let game = Checkers::from_fen(&args.join(" ")).map_err(|e| e.to_string())?;
    h.set_game(game);
    Ok(String::new())
}

fn set(h: &mut Hosted, args: &[String]) -> Result<String, String> {
    match args.split_first() {
        Some((name, rest)) if name == "gamehist" => {
            let words: Vec<&str> = rest.iter().map(String::as_str).collect();
            h.set_game(game_history(&words)?);
            Ok(String::new())
        }
        _ => Err("usage: set gamehist FEN [MOVES...]".to_string()),
    }
}

fn play(h: &mut Hosted, args: &[String]) -> Result<String, String> {
    play_move(&mut h.game, args)
}

fn genmove(h: &mut Hosted, args: &[String]) -> Result<String, String> {
    if let Some(color) = args.first() {
        let color = parse_color(color)?;
        if color != h.game.side_to_move() {
            return Err(format!(
                "it is {}'s move in {}",
                h.game.side_to_move().name(),
                to_fen(h.game.position())
            ));
        }
    }
    if h.game.outcome().is_some() {
        return Ok("resign".to_string());
    }
    let color = h.game.side_to_move();
    let budget = h
        .clock
        .budget(color, h.game.moves_left_estimate(), Some(h.max_time))
        .as_secs_f64();
    let started = Instant::now();
    let cap = Duration::from_secs_f64(budget * h.cap_factor);
    let answer = h
        .library
        .getmove(h.game.position(), budget, cap, h.fresh, &h.stop)?;
    let seconds = started.elapsed().as_secs_f64();
    let left = h.clock.left(color) - seconds + h.clock.increment;
    h.clock.set_left(color, left);
    h.fresh = false;
    let text = h.game.move_to_text(answer.mv);
    let verdict = match answer.verdict {
        CB_WIN => " (it says it wins)",
        CB_LOSS => " (it says it loses)",
        CB_DRAW => " (it says draw)",
        _ => "",
    };
    eprintln!(
        "genmove {}: {text} in {seconds:.3} s of {budget:.3}{verdict}: {}",
        color.name(),
        answer.status
    );
    h.game.play(answer.mv);
    Ok(text)
}

fn getboard(h: &mut Hosted, _args: &[String]) -> Result<String, String> {
    Ok(to_fen(h.game.position()))
}

fn legal_moves(h: &mut Hosted, _args: &[String]) -> Result<String, String> {
    let mut moves = Vec::new();
    h.game.legal_moves(&mut moves);
    Ok(moves
        .iter()
        .map(|&mv| h.game.move_to_text(mv))
        .collect::<Vec<_>>()
        .join(" "))
}

fn time_left(h: &mut Hosted, args: &[String]) -> Result<String, String> {
    match args {
        [color, value] | [color, value, _] => {
            h.clock.set_left(parse_color(color)?, parse_seconds(value)?);
            Ok(String::new())
        }
        _ => Err("usage: time_left COLOR SECONDS".to_string()),
    }
}

fn max_time(h: &mut Hosted, args: &[String]) -> Result<String, String> {
    match args {
        [] => Ok(format!("{}", h.max_time)),
        [value] => {
            h.max_time = parse_positive(value)?;
            Ok(String::new())
        }
        _ => Err("usage: max_time [SECONDS]".to_string()),
    }
}

/// Reads a positive, finite number (seconds, a factor).
pub fn parse_positive(text: &str) -> Result<f64, String> {
    text.parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
        .ok_or_else(|| format!("'{text}' is not a positive number"))
}

fn enginecommand(h: &mut Hosted, args: &[String]) -> Result<String, String> {
    if args.is_empty() {
        return Err("usage: enginecommand TEXT".to_string());
    }
    let text = args.join(" ");
    h.library
        .command(&text)
        .ok_or_else(|| format!("the engine does not understand '{text}'"))
}

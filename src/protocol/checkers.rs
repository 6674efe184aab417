//! The checkers protocol: GTP framing with CheckerBoard-style positions (PDN FEN such as
//! `B:W21,...,32:B1,...,12`) and PDN moves (`11-15`, `22x15`). `set gamehist` and
//! `get protocolversion`/`get gametype` use CheckerBoard's engine-command spelling.

use super::engine::{parse_color, Engine, Generated, ProtocolGame};
use super::registry::{Command, Identity, Registry};
use crate::game::checkers::{diagram, parse_digits, record, to_fen, Checkers, DrawRules};
use crate::game::{Color, Game};

/// The checkers engine's session state.
pub type CheckersEngine = Engine<Checkers>;

/// Plies the side to move is expected to play in a checkers game, for time budgets.
const EXPECTED_GAME_PLIES: usize = 100;

impl ProtocolGame for Checkers {
    const DEFAULT_PLAYER: &'static str = "alphabeta:eval=knowledge:patterns=built-in";

    type Tools = ();

    fn restarted(&self) -> Checkers {
        Checkers::new().with_rules(self.rules())
    }

    fn moves_left_estimate(&self) -> usize {
        EXPECTED_GAME_PLIES.saturating_sub(self.ply()).max(16) / 2
    }

    fn diagram(&self) -> String {
        format!(
            "{}\n{}",
            diagram::diagram(self.position()),
            to_fen(self.position())
        )
    }

    fn moves_played(&self) -> usize {
        self.ply()
    }
}

/// The checkers protocol's command table.
pub fn registry() -> Registry<CheckersEngine> {
    Registry {
        identity: Identity::TMBOT,
        commands: &COMMANDS,
    }
}

const COMMANDS: [Command<CheckersEngine>; 16] = [
    Command {
        name: "setboard",
        usage: "setboard FEN | setboard [COLOR] DIGITS: set the position",
        handler: setboard,
    },
    Command {
        name: "getboard",
        usage: "getboard: the position as a FEN",
        handler: getboard,
    },
    Command {
        name: "play",
        usage: "play MOVE: play a PDN move such as 11-15 or 22x15",
        handler: play,
    },
    Command {
        name: "genmove",
        usage: "genmove [COLOR]: search, play and print a move",
        handler: genmove,
    },
    Command {
        name: "undo",
        usage: "undo: take back the last move",
        handler: undo,
    },
    Command {
        name: "showboard",
        usage: "showboard: diagram and FEN",
        handler: showboard,
    },
    Command {
        name: "legal_moves",
        usage: "legal_moves: every legal move",
        handler: legal_moves,
    },
    Command {
        name: "final_score",
        usage: "final_score: B+, W+, 0 (draw) or cannot score",
        handler: final_score,
    },
    Command {
        name: "result",
        usage: "result: the PDN result (1-0, 0-1, 1/2-1/2, *)",
        handler: result,
    },
    Command {
        name: "time_left",
        usage: "time_left [COLOR [SECONDS]]: read or set a clock",
        handler: time_left,
    },
    Command {
        name: "set",
        usage: "set gamehist FEN [MOVES...] | set NAME VALUE",
        handler: set,
    },
    Command {
        name: "get",
        usage: "get protocolversion|gametype|NAME",
        handler: get,
    },
    Command {
        name: "param_tmbot",
        usage: "param_tmbot [NAME VALUE]: player, seed, max_time, increment, resign_threshold",
        handler: param_tmbot,
    },
    Command {
        name: "loadpdn",
        usage: "loadpdn FILE [GAME]: load a game (1-based) from a PDN file",
        handler: loadpdn,
    },
    Command {
        name: "savepdn",
        usage: "savepdn FILE: save the game as PDN",
        handler: savepdn,
    },
    Command {
        name: "clear_board",
        usage: "clear_board: the start position",
        handler: clear_board,
    },
];

fn setboard(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    if args.is_empty() {
        return Err("usage: setboard FEN | setboard [COLOR] DIGITS".to_string());
    }
    let rules = e.game.rules();
    let first_is_side = args.first().is_some_and(|a| Color::parse(a).is_ok()) && args.len() > 1;
    let game = if args
        .iter()
        .skip(usize::from(first_is_side))
        .all(|a| a.bytes().all(|b| b.is_ascii_digit()))
    {
        let side = if first_is_side {
            parse_color(&args[0])?
        } else {
            Color::Black
        };
        let digits = args[usize::from(first_is_side)..].concat();
        Checkers::from_position(parse_digits(&digits, side).map_err(|e| e.to_string())?)
    } else {
        Checkers::from_fen(&args.join(" ")).map_err(|e| e.to_string())?
    };
    e.game = game.with_rules(rules);
    Ok(String::new())
}

fn getboard(e: &mut CheckersEngine, _args: &[String]) -> Result<String, String> {
    Ok(to_fen(e.game.position()))
}

fn clear_board(e: &mut CheckersEngine, _args: &[String]) -> Result<String, String> {
    e.new_game();
    Ok(String::new())
}

fn play(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    play_move(&mut e.game, args)
}

/// `play MOVE`: plays the PDN move in `game` (refused once the game is over); the protocol's
/// answer.
pub fn play_move(game: &mut Checkers, args: &[String]) -> Result<String, String> {
    let [text] = args else {
        return Err("usage: play MOVE".to_string());
    };
    if game.outcome().is_some() {
        return Err("illegal move: the game is over".to_string());
    }
    game.try_play(text)
        .map(|_| String::new())
        .map_err(|err| err.to_string())
}

fn genmove(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    if let Some(color) = args.first() {
        let color = parse_color(color)?;
        if color != e.game.side_to_move() {
            let mut position = *e.game.position();
            position.set_side_to_move(color);
            e.game = Checkers::from_position(position).with_rules(e.game.rules());
        }
    }
    if e.game.outcome().is_some() {
        return Ok("resign".to_string());
    }
    match e.generate("genmove")? {
        Generated::Resign => {
            e.resign();
            Ok("resign".to_string())
        }
        Generated::Move(mv) => {
            let text = e.game.move_to_text(mv);
            e.game.play(mv);
            Ok(text)
        }
    }
}

fn undo(e: &mut CheckersEngine, _args: &[String]) -> Result<String, String> {
    e.undo()
}

fn showboard(e: &mut CheckersEngine, _args: &[String]) -> Result<String, String> {
    Ok(format!("\n{}", e.game.diagram()))
}

fn legal_moves(e: &mut CheckersEngine, _args: &[String]) -> Result<String, String> {
    Ok(e.legal_moves_text())
}

fn final_score(e: &mut CheckersEngine, _args: &[String]) -> Result<String, String> {
    e.final_score()
}

fn result(e: &mut CheckersEngine, _args: &[String]) -> Result<String, String> {
    Ok(record::PdnResult::from_outcome(e.game.outcome())
        .as_str()
        .to_string())
}

fn time_left(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    e.time_left(args)
}

fn param_tmbot(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    e.param(args)
}

/// Reads CheckerBoard's game history: a FEN (which may contain spaces after commas) then
/// the PDN moves played since, as in `set gamehist B:W21-32:B1-12 11-15 23-19`. The FEN runs
/// to the last word with a `:`, and on while a word ends with what must be followed by a
/// square (`,`, `:`, a list's `W`/`B` or a king's `K`); every later word is a move. A move
/// that does not play is named with its place in the list.
pub fn game_history(words: &[&str]) -> Result<Checkers, String> {
    let Some(last_colon) = words.iter().rposition(|w| w.contains(':')) else {
        return Err("set gamehist needs a FEN".to_string());
    };
    let fen_end = words[last_colon..]
        .iter()
        .position(|w| !w.ends_with(|c: char| c == ',' || c == ':' || c.is_ascii_alphabetic()))
        .map_or(words.len(), |i| last_colon + i + 1);
    let mut game = Checkers::from_fen(&words[..fen_end].join(" ")).map_err(|e| e.to_string())?;
    for (number, mv) in words[fen_end..].iter().enumerate() {
        game.try_play(mv)
            .map_err(|e| format!("gamehist move {} ({mv}): {e}", number + 1))?;
    }
    Ok(game)
}

fn set(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    match args.split_first() {
        Some((name, rest)) if name == "gamehist" => {
            let words: Vec<&str> = rest.iter().map(String::as_str).collect();
            e.game = game_history(&words)?.with_rules(e.game.rules());
            Ok(String::new())
        }
        Some((name, [value])) if name == "drawplies" => {
            let mut rules: DrawRules = e.game.rules();
            rules.no_progress_plies = match value.as_str() {
                "0" | "off" => None,
                n => Some(
                    n.parse()
                        .map_err(|_| format!("drawplies must be a number or off, not '{n}'"))?,
                ),
            };
            e.game = e.game.clone().with_rules(rules);
            Ok(String::new())
        }
        Some(_) => e.param(args),
        None => Err("usage: set NAME VALUE".to_string()),
    }
}

fn get(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    match args.first().map(String::as_str) {
        Some("protocolversion") => Ok("2".to_string()),
        Some("gametype") => Ok("21".to_string()),
        Some("player") => Ok(e.player_spec().to_string()),
        Some("drawplies") => Ok(e
            .game
            .rules()
            .no_progress_plies
            .map_or("off".to_string(), |n| n.to_string())),
        Some(other) => Err(format!("unknown setting: {other}")),
        None => Err("usage: get NAME".to_string()),
    }
}

fn loadpdn(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    let (path, number) = match args {
        [path] => (path, 1),
        [path, n] => (
            path,
            n.parse::<usize>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("game number must be 1 or more, not '{n}'"))?,
        ),
        _ => return Err("usage: loadpdn FILE [GAME]".to_string()),
    };
    let games = record::read_pdn_file(std::path::Path::new(path))
        .map_err(|err| format!("cannot read {path}: {err}"))?;
    let count = games.len();
    let game = games
        .into_iter()
        .nth(number - 1)
        .ok_or_else(|| format!("{path} has {count} games, not {number}"))?;
    let game = game.map_err(|err| format!("{path}: {err}"))?;
    let replayed = game
        .replay()
        .map_err(|err| format!("{path}: {err}"))?
        .with_rules(e.game.rules());
    e.load_game(replayed, game.tags)?;
    Ok(String::new())
}

fn savepdn(e: &mut CheckersEngine, args: &[String]) -> Result<String, String> {
    let [path] = args else {
        return Err("usage: savepdn FILE".to_string());
    };
    let mut set = vec![("GameType", "21".to_string())];
    if let Some((winner, _)) = e.result() {
        let result = record::PdnResult::from_winner(winner);
        set.push(("Result", result.as_str().to_string()));
    }
    let mut tags = e.record_info(["Black", "White"], &set);
    if !tags.iter().any(|(name, _)| name == "Event") {
        tags.insert(0, ("Event".to_string(), "tmbot game".to_string()));
    }
    let text = record::write_pdn(&[record::PdnGame::from_game(&e.game, tags)]);
    super::write_atomically(path, &text)
}

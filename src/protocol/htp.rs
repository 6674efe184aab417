//! HTP, the Hex Text Protocol of Benzene/MoHex and HexGui: the command table and handlers.
//!
//! Behaviour follows MoHex where HexGui relies on it: `play` has no turn-order check (White
//! may move first, after a human swap HexGui re-sends the position that way), `play <c>
//! resign` is a no-op, `genmove` answers `resign` once the game is decided, and swap is off
//! unless `param_game allow_swap 1` (the Benzene meaning of `swap-pieces`; `swap-sides` and
//! `swap` are accepted as the same move).

use super::engine::{parse_color, Engine, Generated, ProtocolGame};
use super::htp_solver;
use super::registry::{Command, Identity, Registry};
use crate::game::hex::{notation, sgf::SgfRecord, Hex, HexMove, SwapRule};
use crate::game::{Color, Game};
use crate::search::SearchGame;

/// The Hex engine's session state.
pub type HexEngine = Engine<Hex>;

impl ProtocolGame for Hex {
    /// MCTS with dead cells, captured pairs and dominated vulnerable cells left out of the
    /// tree, bridge-keeping playouts, RAVE, the move patterns' progressive bias and the root
    /// solver (BENCHMARKS.md, "Hex solver and strength": each stage measured against the one
    /// before on 9x9).
    const DEFAULT_PLAYER: &'static str =
        "mcts:patterns=dominated,solver=200,playout=patterns,rave=1000,c=0,bias=3";

    type Tools = super::htp_solver::HexTools;

    fn restarted(&self) -> Hex {
        Hex::new(self.width(), self.height())
            .expect("the current size is valid")
            .with_swap(self.swap_rule())
    }

    /// The side's half of the plies a game of this size usually has left (half the cells
    /// in all: games end long before the board fills), so that a clock is spent over the
    /// moves a game has, not over every empty cell; past the usual length, none (the clock's
    /// share then keeps to its floor of 8 moves).
    fn moves_left_estimate(&self) -> usize {
        let (played, usual) = self
            .game_length()
            .expect("a Hex game knows its usual length");
        usual.saturating_sub(played).div_ceil(2)
    }

    fn diagram(&self) -> String {
        notation::diagram(self)
    }

    fn moves_played(&self) -> usize {
        self.moves().count()
    }
}

/// The HTP command table.
pub fn registry() -> Registry<HexEngine> {
    Registry {
        identity: Identity::TMBOT,
        commands: &COMMANDS,
    }
}

const COMMANDS: [Command<HexEngine>; 20] = [
    Command {
        name: "boardsize",
        usage: "boardsize W [H]: new empty board",
        handler: boardsize,
    },
    Command {
        name: "clear_board",
        usage: "clear_board: empty the board",
        handler: clear_board,
    },
    Command {
        name: "play",
        usage: "play COLOR CELL|swap-pieces|swap-sides|swap|resign",
        handler: play,
    },
    Command {
        name: "genmove",
        usage: "genmove COLOR: search, play and print a move",
        handler: genmove,
    },
    Command {
        name: "reg_genmove",
        usage: "reg_genmove COLOR: search and print a move without playing it",
        handler: reg_genmove,
    },
    Command {
        name: "undo",
        usage: "undo: take back the last move",
        handler: undo,
    },
    Command {
        name: "showboard",
        usage: "showboard: the board as a diagram",
        handler: showboard,
    },
    Command {
        name: "final_score",
        usage: "final_score: B+, W+ or cannot score",
        handler: final_score,
    },
    Command {
        name: "all_legal_moves",
        usage: "all_legal_moves [COLOR]: the empty cells",
        handler: all_legal_moves,
    },
    Command {
        name: "time_left",
        usage: "time_left [COLOR [SECONDS]]: read or set a clock",
        handler: time_left,
    },
    Command {
        name: "hexgui-analyze_commands",
        usage: "the commands HexGui offers in its menu",
        handler: analyze_commands,
    },
    Command {
        name: "param_game",
        usage: "param_game [NAME VALUE]: allow_swap, swap_rule, game_time",
        handler: param_game,
    },
    Command {
        name: "param_tmbot",
        usage: "param_tmbot [NAME VALUE]: player, seed, max_time, increment, resign_threshold",
        handler: param_tmbot,
    },
    Command {
        name: "loadsgf",
        usage: "loadsgf FILE [MOVE]: load a game record",
        handler: loadsgf,
    },
    Command {
        name: "savesgf",
        usage: "savesgf FILE: save the game record",
        handler: savesgf,
    },
    Command {
        name: "showposition",
        usage: "showposition: the position as one line of text",
        handler: showposition,
    },
    Command {
        name: "dfpn-solve-state",
        usage: "dfpn-solve-state [COLOR]: the winner with COLOR to move (empty if not solved)",
        handler: htp_solver::solve_state,
    },
    Command {
        name: "dfpn-solver-find-winning",
        usage: "dfpn-solver-find-winning COLOR: the winning moves of COLOR",
        handler: htp_solver::find_winning,
    },
    Command {
        name: "dfpn-clear-tt",
        usage: "dfpn-clear-tt: forget the solver's positions",
        handler: htp_solver::clear_table,
    },
    Command {
        name: "param_dfpn",
        usage: "param_dfpn [NAME VALUE]: timelimit, tt_entries",
        handler: htp_solver::param_dfpn,
    },
];

/// Largest side `boardsize` accepts.
const MAX_BOARD: usize = 19;

fn board_side(args: &[String], index: usize) -> Result<usize, String> {
    let text = &args[index];
    let value: i64 = text
        .parse()
        .map_err(|_| format!("argument {} ({text}) must be an integer", index + 1))?;
    if value < 1 {
        return Err(format!(
            "argument {} ({text}) must be greater or equal 1",
            index + 1
        ));
    }
    if value > MAX_BOARD as i64 {
        return Err(format!(
            "argument {} ({text}) must be less or equal {MAX_BOARD}",
            index + 1
        ));
    }
    Ok(value as usize)
}

fn boardsize(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    let (width, height) = match args.len() {
        1 => (board_side(args, 0)?, board_side(args, 0)?),
        2 => (board_side(args, 0)?, board_side(args, 1)?),
        _ => return Err("usage: boardsize W [H]".to_string()),
    };
    let game = Hex::new(width, height).map_err(|err| err.to_string())?;
    let rule = e.game.swap_rule();
    e.set_game(game.with_swap(rule))?;
    Ok(String::new())
}

fn clear_board(e: &mut HexEngine, _args: &[String]) -> Result<String, String> {
    e.new_game();
    Ok(String::new())
}

fn play(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    let [color, text] = args else {
        return Err("usage: play COLOR MOVE".to_string());
    };
    let color = parse_color(color)?;
    let illegal = |reason: &str| format!("illegal move:  {color} {text} ({reason})");
    match text.to_ascii_lowercase().as_str() {
        "resign" => Ok(String::new()),
        "swap-pieces" | "swap-sides" | "swap" => {
            // Under Benzene's rule HexGui's `swap-sides` (and `swap`) mean what Benzene's
            // `swap-pieces` means: colours exchanged, board unchanged, White moves again.
            let mv = if text.eq_ignore_ascii_case("swap-pieces")
                || e.game.swap_rule() == SwapRule::Benzene
            {
                HexMove::SwapPieces
            } else {
                HexMove::SwapSides
            };
            let mut legal = Vec::new();
            e.game.legal_moves(&mut legal);
            if color != e.game.side_to_move() || !legal.contains(&mv) {
                return Err(illegal("swap not allowed here"));
            }
            e.game.play(mv);
            Ok(String::new())
        }
        _ => {
            let cell = e
                .game
                .parse_cell(text)
                .map_err(|err| format!("invalid move: {err}"))?;
            e.game
                .place(color, cell)
                .map_err(|err| illegal(&err.reason))?;
            Ok(String::new())
        }
    }
}

fn generate(e: &mut HexEngine, args: &[String], commit: bool) -> Result<String, String> {
    let [color] = args else {
        return Err("usage: genmove COLOR".to_string());
    };
    let color = parse_color(color)?;
    if e.game.outcome().is_some() {
        return Ok("resign".to_string());
    }
    if e.game.side_to_move() != color {
        e.game.set_side_to_move(color);
    }
    let command = if commit { "genmove" } else { "reg_genmove" };
    match e.generate(command)? {
        Generated::Resign => {
            if commit {
                e.resign();
            }
            Ok("resign".to_string())
        }
        Generated::Move(mv) => {
            let text = e.game.move_to_text(mv);
            if commit {
                e.game.play(mv);
            }
            Ok(text)
        }
    }
}

fn genmove(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    generate(e, args, true)
}

fn reg_genmove(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    generate(e, args, false)
}

fn undo(e: &mut HexEngine, _args: &[String]) -> Result<String, String> {
    e.undo()
}

fn showboard(e: &mut HexEngine, _args: &[String]) -> Result<String, String> {
    Ok(format!("\n{}", e.game.diagram()))
}

fn showposition(e: &mut HexEngine, _args: &[String]) -> Result<String, String> {
    Ok(e.game.position_text())
}

fn final_score(e: &mut HexEngine, _args: &[String]) -> Result<String, String> {
    e.final_score()
}

fn all_legal_moves(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    if let Some(color) = args.first() {
        parse_color(color)?;
    }
    if e.game.outcome().is_some() {
        return Ok(String::new());
    }
    let cells = e.game.board().empty_cells();
    Ok(cells
        .iter()
        .map(|c| e.game.cell_name(c))
        .collect::<Vec<_>>()
        .join(" "))
}

fn time_left(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    e.time_left(args)
}

fn analyze_commands(_e: &mut HexEngine, _args: &[String]) -> Result<String, String> {
    Ok([
        "param/Game Param/param_game",
        "param/tmbot Param/param_tmbot",
        "plist/All Legal Moves/all_legal_moves %c",
        "string/ShowBoard/showboard",
        "string/Final Score/final_score",
        "move/Reg GenMove/reg_genmove %c",
        "string/DFPN Solve State/dfpn-solve-state %c",
        "plist/DFPN Winning Moves/dfpn-solver-find-winning %c",
        "none/DFPN Clear Table/dfpn-clear-tt",
        "param/DFPN Param/param_dfpn",
    ]
    .join("\n"))
}

fn param_game(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    match args {
        [] => Ok(format!(
            "[bool] allow_swap {}\n[list/off/benzene/hexgui] swap_rule {}\n[string] game_time {}",
            u8::from(e.game.swap_rule() != SwapRule::Off),
            e.game.swap_rule().name(),
            e.clock.game_time
        )),
        [name, value] if name == "swap_rule" => {
            let rule = SwapRule::from_name(value).ok_or_else(|| {
                format!("swap_rule must be off, benzene or hexgui, not '{value}'")
            })?;
            e.game.set_swap_rule(rule);
            Ok(String::new())
        }
        [name, value] if name == "allow_swap" => {
            let rule = match value.as_str() {
                "1" | "true" => SwapRule::Benzene,
                "0" | "false" => SwapRule::Off,
                _ => return Err(format!("allow_swap must be 0 or 1, not '{value}'")),
            };
            e.game.set_swap_rule(rule);
            Ok(String::new())
        }
        [name, value] if name == "game_time" => {
            let seconds: f64 = value
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e9)
                .ok_or_else(|| {
                    format!("game_time must be a positive number of seconds, not '{value}'")
                })?;
            e.clock.game_time = seconds;
            e.clock.reset();
            Ok(String::new())
        }
        [name, _] => Err(format!("unknown parameter: {name}")),
        _ => Err("usage: param_game [NAME VALUE]".to_string()),
    }
}

fn param_tmbot(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    e.param(args)
}

fn loadsgf(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    let (path, upto) = match args {
        [path] => (path, None),
        [path, n] => (
            path,
            Some(
                n.parse::<usize>()
                    .map_err(|_| format!("move number must be an integer, not '{n}'"))?,
            ),
        ),
        _ => return Err("usage: loadsgf FILE [MOVE]".to_string()),
    };
    let text = std::fs::read_to_string(path).map_err(|err| format!("cannot read {path}: {err}"))?;
    let record = SgfRecord::parse(&text).map_err(|err| format!("{path}: {err}"))?;
    let rule = record.swap_rule().unwrap_or(e.game.swap_rule());
    let mut game = record
        .replay(rule)
        .map_err(|err| format!("{path}: {err}"))?;
    if let Some(n) = upto {
        // `loadsgf FILE N` stops before move N, as in GTP.
        while game.moves().count() >= n.max(1) {
            if game.undo().is_none() {
                break;
            }
        }
    }
    e.load_game(game, record.info)?;
    Ok(String::new())
}

fn savesgf(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    let [path] = args else {
        return Err("usage: savesgf FILE".to_string());
    };
    let mut record = SgfRecord::from_game(&e.game);
    let mut set: Vec<(&str, String)> = record
        .info
        .drain(..)
        .filter(|(name, _)| name == "RU")
        .map(|(_, value)| ("RU", value))
        .collect();
    if let Some((winner, resigned)) = e.result() {
        let winner = match winner {
            Some(Color::Black) => "B+",
            Some(Color::White) => "W+",
            None => "0",
        };
        set.push(("RE", format!("{winner}{}", if resigned { "R" } else { "" })));
    }
    record.info = e.record_info(["PB", "PW"], &set);
    super::write_atomically(path, &record.to_sgf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{line, session};

    fn answers(commands: &[&str]) -> Vec<String> {
        let registry = registry();
        let mut engine = HexEngine::new(Hex::new(5, 5).unwrap(), "random", 1).unwrap();
        commands
            .iter()
            .map(|c| session::respond(&registry, &mut engine, &line::parse(c).unwrap()).text)
            .collect()
    }

    /// A sudden-death clock is spent over a game of the usual length: each move of Black
    /// takes its planned share of the time left, and a 9x9 game of 40 plies (the length of
    /// games against MoHex) leaves some time over but not most of it.
    #[test]
    fn a_clock_is_spent_over_a_usual_game() {
        use crate::search::time_plan::clock_share;
        let mut game = Hex::new(9, 9).unwrap();
        assert_eq!(game.moves_left_estimate(), 20, "half of 40 plies");
        let mut left = 60.0;
        for ply in 0..40 {
            if ply % 2 == 0 {
                let (share, _) = clock_share(left, 0.0, game.moves_left_estimate());
                left -= share.as_secs_f64();
            }
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            game.play(moves[(ply * 37) % moves.len()]);
        }
        let spent = 1.0 - left / 60.0;
        assert!(
            (0.75..0.95).contains(&spent),
            "spent {spent:.2} of the clock"
        );
        assert_eq!(game.moves_left_estimate(), 0, "past the usual length");
    }

    #[test]
    fn every_swap_spelling_is_benzenes_swap_when_allowed() {
        for swap in ["swap-pieces", "swap-sides", "swap", "SWAP-SIDES"] {
            let out = answers(&[
                "play white swap-pieces",
                "param_game allow_swap 1",
                "play black c2",
                &format!("play white {swap}"),
                "showposition",
                "play white swap-pieces",
                "undo",
                "showposition",
            ]);
            assert_eq!(
                out[0],
                "? illegal move:  white swap-pieces (swap not allowed here)\n\n"
            );
            assert_eq!(out[3], "= \n\n", "{swap}");
            assert_eq!(
                out[4], "= 5/2b2/5/5/5 w\n\n",
                "board unchanged, White again"
            );
            assert!(
                out[5].starts_with("? illegal move"),
                "only once: {}",
                out[5]
            );
            assert_eq!(out[7], "= 5/2b2/5/5/5 w\n\n");
        }
    }
}

//! The Hex solver over HTP, named as MoHex names its DFPN commands: `dfpn-solve-state`,
//! `dfpn-solver-find-winning`, `dfpn-clear-tt` and `param_dfpn`.

use super::engine::parse_color;
use super::htp::HexEngine;
use crate::game::hex::Hex;
use crate::game::{Color, Game};
use crate::search::dfpn::{Dfpn, DEFAULT_TABLE_ENTRIES};
use crate::search::Limits;
use std::time::{Duration, Instant};

/// The session's solver: its table (kept between commands, so related positions are
/// solved faster) and its limits.
pub struct HexTools {
    dfpn: Dfpn,
    /// Seconds a solve may take (0: until solved).
    time_limit: f64,
    table_entries: usize,
}

impl Default for HexTools {
    fn default() -> Self {
        HexTools {
            dfpn: Dfpn::new(DEFAULT_TABLE_ENTRIES),
            time_limit: 0.0,
            table_entries: DEFAULT_TABLE_ENTRIES,
        }
    }
}

/// The position to solve: the game, with `args[0]` (if given) to move.
fn position(e: &HexEngine, args: &[String], usage: &str) -> Result<Hex, String> {
    let mut game = e.game.clone();
    match args {
        [] => {}
        [color] => game.set_side_to_move(parse_color(color)?),
        _ => return Err(format!("usage: {usage}")),
    }
    Dfpn::check_board(&game)?;
    Ok(game)
}

fn limits(e: &HexEngine) -> Limits {
    Limits {
        time: (e.tools.time_limit > 0.0).then(|| Duration::from_secs_f64(e.tools.time_limit)),
        stop: Some(e.stop.clone()),
        ..Limits::default()
    }
}

fn color_name(color: Option<Color>) -> &'static str {
    color.map_or("empty", Color::name)
}

/// `dfpn-solve-state [COLOR]`: the winner with COLOR (default: the side to move) to move,
/// `empty` when the time limit or an interrupt ends the search first.
pub fn solve_state(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    let game = position(e, args, "dfpn-solve-state [COLOR]")?;
    let start = Instant::now();
    let limits = limits(e);
    let proof = e.tools.dfpn.solve(&game, &limits);
    let best = proof.winning_move.map_or(String::new(), |c| {
        format!(", wins with {}", game.cell_name(c))
    });
    eprintln!(
        "dfpn: {} to move, winner {}{best}; {} expansions, {} positions stored, {:.2} s",
        game.side_to_move(),
        color_name(proof.winner),
        proof.expansions,
        e.tools.dfpn.table_entries(),
        start.elapsed().as_secs_f64()
    );
    Ok(color_name(proof.winner).to_string())
}

/// `dfpn-solver-find-winning COLOR`: every move that wins for COLOR to move (the time limit
/// applies to each move; moves left open are named on stderr).
pub fn find_winning(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    if args.len() != 1 {
        return Err("usage: dfpn-solver-find-winning COLOR".to_string());
    }
    let game = position(e, args, "dfpn-solver-find-winning COLOR")?;
    let limits = limits(e);
    let results = e.tools.dfpn.solve_moves(&game, &limits);
    let open: Vec<String> = results
        .iter()
        .filter(|(_, won)| won.is_none())
        .map(|&(c, _)| game.cell_name(c))
        .collect();
    if !open.is_empty() {
        eprintln!("dfpn: not solved in time: {}", open.join(" "));
    }
    Ok(results
        .iter()
        .filter(|(_, won)| *won == Some(true))
        .map(|&(c, _)| game.cell_name(c))
        .collect::<Vec<_>>()
        .join(" "))
}

/// `dfpn-clear-tt`: forgets every solved position.
pub fn clear_table(e: &mut HexEngine, _args: &[String]) -> Result<String, String> {
    e.tools.dfpn.clear();
    Ok(String::new())
}

/// `param_dfpn [NAME VALUE]`: `timelimit` (seconds a solve may take, 0 = none) and
/// `tt_entries` (positions the table keeps).
pub fn param_dfpn(e: &mut HexEngine, args: &[String]) -> Result<String, String> {
    match args {
        [] => Ok(format!(
            "[string] timelimit {}\n[string] tt_entries {}",
            e.tools.time_limit, e.tools.table_entries
        )),
        [name, value] if name == "timelimit" => {
            e.tools.time_limit = value
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && (0.0..1e9).contains(s))
                .ok_or_else(|| format!("timelimit must be seconds from 0 up, not '{value}'"))?;
            Ok(String::new())
        }
        [name, value] if name == "tt_entries" => {
            let entries: usize = value.parse().ok().filter(|&n| n >= 1024).ok_or_else(|| {
                format!("tt_entries must be an integer of at least 1024, not '{value}'")
            })?;
            e.tools.table_entries = entries;
            e.tools.dfpn = Dfpn::new(entries);
            Ok(String::new())
        }
        [name, _] => Err(format!("unknown parameter: {name}")),
        _ => Err("usage: param_dfpn [NAME VALUE]".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use crate::game::hex::Hex;
    use crate::protocol::htp::{registry, HexEngine};
    use crate::protocol::{line, session};

    fn answers(size: usize, commands: &[&str]) -> Vec<String> {
        let registry = registry();
        let mut engine = HexEngine::new(Hex::new(size, size).unwrap(), "random", 1).unwrap();
        commands
            .iter()
            .map(|c| session::respond(&registry, &mut engine, &line::parse(c).unwrap()).text)
            .collect()
    }

    #[test]
    fn solves_the_position_for_either_colour() {
        let out = answers(
            4,
            &[
                "play black a4",
                "dfpn-solve-state",
                "dfpn-solve-state black",
                "dfpn-solver-find-winning white",
                "dfpn-clear-tt",
                "dfpn-solve-state white",
            ],
        );
        // Black's a4 wins on 4x4 (the reference's table), so White to move loses.
        assert_eq!(out[1], "= black\n\n");
        assert_eq!(out[2], "= black\n\n");
        assert_eq!(out[3], "= \n\n", "White has no winning move");
        assert_eq!(out[4], "= \n\n");
        assert_eq!(out[5], "= black\n\n");
        let first = answers(3, &["dfpn-solver-find-winning black"]);
        assert_eq!(first[0], format!("= {}\n\n", winning_3x3()));
    }

    /// Black's winning first moves on 3x3 from the reference's table (`B` cells).
    fn winning_3x3() -> String {
        let table = ["wwB", "BBB", "Bww"];
        let mut cells = Vec::new();
        for (y, row) in table.iter().enumerate() {
            for (x, mark) in row.chars().enumerate() {
                if mark == 'B' {
                    cells.push(format!("{}{}", (b'a' + x as u8) as char, y + 1));
                }
            }
        }
        cells.join(" ")
    }

    #[test]
    fn bad_arguments_and_big_boards_are_refused() {
        let out = answers(
            5,
            &[
                "dfpn-solve-state green",
                "dfpn-solve-state black white",
                "dfpn-solver-find-winning",
                "param_dfpn timelimit -1",
                "param_dfpn tt_entries 10",
                "param_dfpn colour 1",
                "param_dfpn timelimit 2.5",
                "param_dfpn",
            ],
        );
        assert!(out[0].starts_with("? "), "{}", out[0]);
        assert_eq!(out[1], "? usage: dfpn-solve-state [COLOR]\n\n");
        assert_eq!(out[2], "? usage: dfpn-solver-find-winning COLOR\n\n");
        assert!(out[3].contains("timelimit must be seconds"), "{}", out[3]);
        assert!(out[4].contains("at least 1024"), "{}", out[4]);
        assert_eq!(out[5], "? unknown parameter: colour\n\n");
        assert_eq!(out[6], "= \n\n");
        assert_eq!(
            out[7],
            "= [string] timelimit 2.5\n[string] tt_entries 4194304\n\n"
        );
        let big = answers(12, &["dfpn-solve-state"]);
        assert_eq!(
            big[0],
            "? the solver handles boards of up to 128 cells, not 12x12\n\n"
        );
    }

    #[test]
    fn a_time_limit_leaves_the_answer_empty() {
        // 0.001 s cannot solve an empty 11x11 board.
        let out = answers(11, &["param_dfpn timelimit 0.001", "dfpn-solve-state"]);
        assert_eq!(out[1], "= empty\n\n");
    }
}

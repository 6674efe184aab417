//! `arena tune` end to end: a positions file whose values come from known weights is fitted
//! back to those weights' scores (stage-dependent `end:` weights included), and the weights
//! file it writes plays as `eval=knowledge:F`.

mod common;

use common::*;
use std::fmt::Write as _;
use std::path::Path;
use tmbot::eval::checkers_knowledge::{Knowledge, WEIGHTS_HEADER};
use tmbot::game::checkers::Checkers;
use tmbot::game::{Color, Game};
use tmbot::rng::seeded;
use tmbot::search::SearchGame;

const HEADER: &str =
    "event,game,ply,plies_to_end,side_to_move,position,outcome_stm,outcome_black,value,visits";

/// The weights the values are made from: a few terms, some of them changing with the stage
/// of the game (`end:`).
fn truth() -> Knowledge {
    let text = format!(
        "{WEIGHTS_HEADER}\nscale 200\nman 90\nking 140\ntrapped-king -40\nback-rank 15\n\
         man@14 12\nman@19 -9\nking@15 20\nmobility 3\nend:man 60\nend:back-rank -30\n"
    );
    Knowledge::parse(&text).unwrap()
}

/// Quiet positions (no capture pending for either side) of `games` random games.
fn quiet_positions(games: u64) -> Vec<(u64, Checkers)> {
    let mut rng = seeded(11);
    let mut scratch = Vec::new();
    let mut out = Vec::new();
    for game in 0..games {
        let mut state = Checkers::new();
        while state.outcome().is_none() && state.ply() < 100 {
            if state.is_quiet() && !state.is_threatened() {
                out.push((game, Checkers::from_position(*state.position())));
            }
            let mv = state.random_move(&mut rng, &mut scratch).unwrap();
            state.play(mv);
        }
    }
    out
}

/// A positions file of `positions` valued by `truth` (every row of a game half-way through).
fn write_positions(path: &Path, positions: &[(u64, Checkers)], truth: &Knowledge) {
    let mut text = format!("{HEADER}\n");
    for (game, state) in positions {
        let side = state.side_to_move();
        let score = truth.score(state.position(), side);
        let value = 1.0 / (1.0 + (-score / truth.scale).exp());
        let stm = if side == Color::Black { "b" } else { "w" };
        writeln!(
            text,
            "t,{game},10,10,{stm},\"{}\",0.5,0.5,{value:.6},",
            state.position_text()
        )
        .unwrap();
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn values_of_known_weights_are_fitted_back() {
    let dir = tempfile::tempdir().unwrap();
    let truth = truth();
    let positions = quiet_positions(60);
    let file = dir.path().join("positions.csv");
    write_positions(&file, &positions, &truth);
    let weights = dir.path().join("w.txt");
    let start = dir.path().join("start.weights");
    std::fs::write(&start, Knowledge::default().to_text()).unwrap();
    let out = ok(&[
        "tune",
        file.to_str().unwrap(),
        "--start",
        start.to_str().unwrap(),
        "--value-weight",
        "1",
        "--tactics-depth",
        "0",
        "--l2",
        "0",
        "--epochs",
        "3000",
        "--out",
        weights.to_str().unwrap(),
    ]);
    assert!(out.contains("weights written to"), "{out}");
    let fitted = Knowledge::load(&weights).unwrap();
    let current = Knowledge::default();
    // Scores of the fitted weights are close to the truth's, much closer than the built-in
    // weights' (mean absolute difference over every position, in hundredths of a man).
    let error = |k: &Knowledge| {
        positions
            .iter()
            .map(|(_, s)| {
                let side = s.side_to_move();
                (k.score(s.position(), side) - truth.score(s.position(), side)).abs()
            })
            .sum::<f64>()
            / positions.len() as f64
    };
    let (fitted_error, current_error) = (error(&fitted), error(&current));
    assert!(
        fitted_error < 3.0 && fitted_error < current_error / 4.0,
        "fitted {fitted_error}, built-in {current_error}\n{out}"
    );
    // The file plays: a short game with the fitted weights.
    let spec = format!(
        "alphabeta:depth=2,eval=knowledge:{}",
        weights.to_str().unwrap()
    );
    let played = ok(&[
        "match", "--game", "checkers", "--a", &spec, "--b", "random", "--games", "2",
    ]);
    assert!(played.contains("total            2 wins"), "{played}");
}

#[test]
fn targets_need_values_and_shares_stay_within_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("positions.csv");
    let positions = quiet_positions(5);
    let mut text = format!("{HEADER}\n");
    for (game, state) in &positions {
        writeln!(text, "t,{game},10,10,b,\"{}\",1,1,,", state.position_text()).unwrap();
    }
    std::fs::write(&file, &text).unwrap();
    let path = file.to_str().unwrap();
    let err = fails(&["tune", path, "--value-weight", "1.5"]);
    assert!(
        err.contains("expected a number from 0 to 1, got '1.5'"),
        "{err}"
    );
    let err = fails(&["tune", path, "--value-weight", "1", "--tactics-depth", "0"]);
    assert!(err.contains("too few quiet positions"), "{err}");
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, text.replacen(",1,1,,", ",1,1,1.7,", 1)).unwrap();
    let err = fails(&["tune", bad.to_str().unwrap()]);
    assert!(
        err.contains("line 2: value '1.7' is not in [0, 1]"),
        "{err}"
    );
    let missing = dir.path().join("missing.weights");
    let err = fails(&["tune", path, "--start", missing.to_str().unwrap()]);
    assert!(
        err.contains("cannot read") && err.contains("missing.weights"),
        "{err}"
    );
    let weights = dir.path().join("w.txt");
    std::fs::write(&weights, format!("{WEIGHTS_HEADER}\nmen 100\n")).unwrap();
    let spec = format!("alphabeta:depth=1,eval=knowledge:{}", weights.display());
    let err = fails(&["match", "--game", "checkers", "--a", &spec, "--b", "random"]);
    assert!(err.contains("line 2: no term 'men'"), "{err}");
}

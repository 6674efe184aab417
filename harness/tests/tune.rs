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

/// The mean absolute difference between `k`'s and `truth`'s scores of `positions` for their
/// sides to move (hundredths of a man).
fn mean_score_error(positions: &[(u64, Checkers)], k: &Knowledge, truth: &Knowledge) -> f64 {
    positions
        .iter()
        .map(|(_, s)| {
            let side = s.side_to_move();
            (k.score(s.position(), side) - truth.score(s.position(), side)).abs()
        })
        .sum::<f64>()
        / positions.len() as f64
}

/// Plays two short games of a 2-ply alpha-beta with evaluation `eval` against random moves
/// and checks it wins both.
fn plays_checkers(eval: &str) {
    let spec = format!("alphabeta:depth=2,eval={eval}");
    let played = ok(&[
        "match", "--game", "checkers", "--a", &spec, "--b", "random", "--games", "2",
    ]);
    assert!(played.contains("total            2 wins"), "{played}");
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
    let error = |k: &Knowledge| mean_score_error(&positions, k, &truth);
    let (fitted_error, current_error) = (error(&fitted), error(&current));
    assert!(
        fitted_error < 3.0 && fitted_error < current_error / 4.0,
        "fitted {fitted_error}, built-in {current_error}\n{out}"
    );
    // The file plays: a short game with the fitted weights.
    plays_checkers(&format!("knowledge:{}", weights.to_str().unwrap()));
}

#[test]
fn pattern_tables_of_known_values_are_fitted_back() {
    use tmbot::eval::checkers_patterns::{both_sides, PatternTables, PATTERNS, PATTERNS_HEADER};
    let dir = tempfile::tempdir().unwrap();
    let positions = quiet_positions(200);
    // The truth: the built-in weights plus tables whose entries seen in 40 positions or more
    // are worth -30 to 30 hundredths of a man (a fixed pseudo-random draw each).
    let mut counts = vec![0usize; 9 * PATTERNS];
    for (_, state) in &positions {
        for (window, &pattern) in both_sides(state.position()).iter().flatten().enumerate() {
            counts[window % 9 * PATTERNS + pattern] += 1;
        }
    }
    let mut tables = PatternTables::default();
    for (entry, &count) in counts.iter().enumerate() {
        if count >= 40 {
            let draw = (entry * 7919 % 61) as f32 - 30.0;
            tables.entries[entry] = [draw, -draw / 2.0];
        }
    }
    let truth = Knowledge {
        patterns: Some(std::sync::Arc::new(tables)),
        ..Knowledge::default()
    };
    let file = dir.path().join("positions.csv");
    write_positions(&file, &positions, &truth);
    let out_file = dir.path().join("tables.txt");
    let out = ok(&[
        "tune-patterns",
        file.to_str().unwrap(),
        "--tactics-depth",
        "0",
        "--l2",
        "0",
        "--epochs",
        "24",
        "--out",
        out_file.to_str().unwrap(),
    ]);
    assert!(out.contains("tables written to"), "{out}");
    assert!(
        std::fs::read_to_string(&out_file)
            .unwrap()
            .starts_with(PATTERNS_HEADER),
        "{out}"
    );
    // The fitted tables on the built-in weights score the positions much closer to the truth
    // than the weights alone (mean absolute difference, hundredths of a man).
    let fitted = Knowledge {
        patterns: Some(std::sync::Arc::new(PatternTables::load(&out_file).unwrap())),
        ..Knowledge::default()
    };
    let error = |k: &Knowledge| mean_score_error(&positions, k, &truth);
    let (fitted_error, alone_error) = (error(&fitted), error(&Knowledge::default()));
    assert!(
        fitted_error < alone_error / 3.0,
        "fitted {fitted_error}, weights alone {alone_error}\n{out}"
    );
    // The file plays.
    plays_checkers(&format!(
        "knowledge:patterns={}",
        out_file.to_str().unwrap()
    ));
}

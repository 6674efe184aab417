//! `arena patterns` end to end: a tournament's journal is fitted, the weights file it writes
//! reads back as move patterns, and journals without the named players' moves are refused.

mod common;

use common::*;
use tmbot::game::hex::move_patterns::MovePatterns;

const TOURNAMENT: &str = r#"seed = 3

[[event]]
name = "hex6"
game = "hex"
size = 6
games = 6
players = [{ name = "teacher", spec = "mcts:playouts=200,patterns=on" }, "random"]
"#;

#[test]
fn a_journal_is_fitted_and_the_weights_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.toml");
    std::fs::write(&file, TOURNAMENT).unwrap();
    let out = dir.path().join("out");
    ok(&[
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let weights = dir.path().join("w.txt");
    let report = ok(&[
        "patterns",
        out.to_str().unwrap(),
        "--from",
        "teacher",
        "--holdout",
        "3",
        "--steps",
        "50",
        "-o",
        weights.to_str().unwrap(),
    ]);
    assert!(
        report.contains("fitted: ") && report.contains("held out: "),
        "{report}"
    );
    let text = std::fs::read_to_string(&weights).unwrap();
    let model = MovePatterns::parse(&text).unwrap();
    assert_ne!(model, MovePatterns::uniform());
    assert!(text.contains("--from teacher"), "{text}");

    let err = fails(&[
        "patterns",
        out.to_str().unwrap(),
        "--from",
        "nobody",
        "-o",
        weights.to_str().unwrap(),
    ]);
    assert!(err.contains("no moves to learn"), "{err}");
    // The weights file from before is left as it was.
    assert_eq!(std::fs::read_to_string(&weights).unwrap(), text);

    let journal = out.join("journal.jsonl");
    let mut lines = std::fs::read_to_string(&journal).unwrap();
    lines.push_str("{\"not\": \"an entry\"}\n");
    std::fs::write(&journal, lines).unwrap();
    let err = fails(&["patterns", journal.to_str().unwrap(), "-o", "x"]);
    assert!(err.contains("line 7"), "{err}");
}

//! `arena perft --fen`: legal start positions are counted, positions no game of English
//! checkers reaches are refused with the square and rule.

use std::process::Command;

/// Runs `arena perft checkers --depth 1 --fen FEN`: (success, stdout, stderr).
fn perft_from(fen: &str) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["perft", "checkers", "--depth", "1", "--fen", fen])
        .output()
        .expect("arena runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn perft_refuses_positions_no_game_reaches() {
    for (fen, reason) in [
        (
            "B:W21-32:B1-13",
            "black has 13 pieces; a side has at most 12",
        ),
        (
            "W:W21:B30",
            "a black man cannot stand on square 30, on the row where black men are crowned",
        ),
        ("W:W2:B5", "a white man cannot stand on square 2"),
        ("B:W21,21:B1", "square 21 is given twice"),
        (
            "B:W21:B33",
            "square 33 is not one of the 32 dark squares 1..32",
        ),
    ] {
        let (ok, _, stderr) = perft_from(fen);
        assert!(!ok, "{fen} was counted");
        assert!(
            stderr.contains("--fen") && stderr.contains(reason),
            "{fen}: {stderr}"
        );
    }
}

#[test]
fn perft_counts_legal_set_ups() {
    // Kings stand on any row, men on their own first row.
    let (ok, stdout, stderr) = perft_from("W:WK30,31:BK29,1");
    assert!(ok, "{stderr}");
    assert!(!stdout.trim().is_empty(), "{stdout}");
}

//! `arena solve`: the openings table printed by one thread and by several (each with its
//! own solver, openings handed out in table order) is the reference's.

use std::process::Command;

/// The 5x5 table of shared/reference/hex.md ("Solved openings"), as `arena solve` prints it.
const OPENINGS_5X5: &str = "w w w w B\nw B B B B\nw B B B w\nB B B B w\nB w w w w\n";

#[test]
fn the_5x5_table_is_the_same_on_any_number_of_threads() {
    for threads in ["1", "3"] {
        let out = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(["solve", "--size", "5", "--threads", threads])
            .output()
            .expect("arena runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let table: String = stdout
            .lines()
            .skip(1)
            .take(5)
            .map(|l| l.to_owned() + "\n")
            .collect();
        assert_eq!(table, OPENINGS_5X5, "{threads} thread(s): {stdout}");
        assert!(
            stdout.contains("25 openings") && stdout.contains(&format!("on {threads} thread")),
            "{stdout}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.lines().filter(|l| l.contains("expansions")).count(),
            25,
            "{stderr}"
        );
    }
}

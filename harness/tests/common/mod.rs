//! Running the `arena` binary from the harness's integration tests.

#![allow(dead_code)] // Each test binary uses its own part of these helpers.

use std::process::{Command, Output};

/// The binary under test.
pub const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// Runs `arena` with `args` to its end.
pub fn arena(args: &[&str]) -> Output {
    Command::new(ARENA).args(args).output().expect("arena runs")
}

/// Runs `arena`, which must succeed; its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = arena(args);
    assert!(
        out.status.success(),
        "arena {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `arena`, which must fail; its standard error.
pub fn fails(args: &[&str]) -> String {
    let out = arena(args);
    assert!(!out.status.success(), "arena {args:?} should fail");
    String::from_utf8(out.stderr).unwrap()
}

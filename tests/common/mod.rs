//! Helpers for tests that drive the `tmbot` binary through its standard input and output.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// Starts `tmbot ARGS` with piped stdin and stdout (stderr discarded).
pub fn spawn_engine(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tmbot"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("tmbot starts")
}

/// Runs `tmbot ARGS` with `input` on stdin (then closed) and returns stdout.
pub fn run_engine(args: &[&str], input: &str) -> String {
    let output = run_engine_output(args, input);
    assert!(
        output.status.success(),
        "tmbot exited with {}",
        output.status
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Runs `tmbot ARGS` with `input` on stdin (then closed) and returns its exit status,
/// stdout and stderr.
pub fn run_engine_output(args: &[&str], input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tmbot"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tmbot starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Splits a stream of responses into the responses (each ends with its blank line).
pub fn responses(output: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = output;
    while let Some(end) = rest.find("\n\n") {
        out.push(&rest[..end + 2]);
        rest = &rest[end + 2..];
    }
    assert!(
        rest.is_empty(),
        "trailing output without its blank line: {rest:?}"
    );
    out
}

/// Compares `actual` with the golden file `tests/golden/NAME`; with `TMBOT_BLESS=1` in the
/// environment the golden file is (re)written instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("TMBOT_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with TMBOT_BLESS=1 to create it)",
            path.display()
        )
    });
    assert_eq!(
        actual,
        expected,
        "transcript differs from {}",
        path.display()
    );
}

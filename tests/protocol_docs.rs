//! The transcripts in docs/htp.md and docs/checkers-protocol.md are the engine's real output:
//! each is replayed through the binary (with the command line the page names) and must match
//! byte for byte.

#[allow(dead_code)] // each test file uses some of the helpers
mod common;

use common::run_engine;

/// The engine arguments and the transcript of a page: the command line is the one quoted as
/// "real output for `tmbot ...`", the transcript the fenced block after `## Transcript`.
fn transcript_of(page: &str) -> (Vec<&str>, &str) {
    let section = &page[page.find("## Transcript").expect("a Transcript section")..];
    let quoted = section
        .split("real output for `tmbot ")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .expect("the page names the engine's command line");
    let block = section
        .split("```\n")
        .nth(1)
        .expect("a fenced transcript block");
    (quoted.split_whitespace().collect(), block)
}

/// Splits a transcript into what was sent and what was answered: an answer starts with `=`
/// or `?` and runs to its empty line; every other line was sent.
fn split(transcript: &str) -> (String, String) {
    let (mut sent, mut answered) = (String::new(), String::new());
    let mut in_answer = false;
    for line in transcript.split_inclusive('\n') {
        if !in_answer && (line.starts_with('=') || line.starts_with('?')) {
            in_answer = true;
        }
        if in_answer {
            answered.push_str(line);
            in_answer = line != "\n";
        } else {
            sent.push_str(line);
        }
    }
    (sent, answered)
}

fn check_page(page: &str) {
    let (args, transcript) = transcript_of(page);
    let (sent, answered) = split(transcript);
    assert!(sent.lines().count() >= 20, "{sent}");
    assert_eq!(run_engine(&args, &sent), answered);
}

#[test]
fn the_htp_page_transcript_is_real() {
    check_page(include_str!("../docs/htp.md"));
}

#[test]
fn the_checkers_page_transcript_is_real() {
    check_page(include_str!("../docs/checkers-protocol.md"));
}

//! `cbhost`: CheckerBoard engine libraries as external engines of the harness. tmbot's own
//! library is always at hand; Cake and simplech are played when their libraries have been
//! built (`TMBOT_CAPERS` names the folder with `cake/cake.so` and `cliche/simplech.so`;
//! `bench/opponents.sh` builds them), else those tests say so and skip.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use tmbot::game::checkers::Checkers;
use tmbot::game::Game;
use tmbot::play::record::GameResult;
use tmbot::play::{
    agent_from_spec, play_game, AgentOptions, GameRecord, GameSettings, Termination, TimeControl,
};

mod common;
use common::library_path;

const HOST: &str = env!("CARGO_BIN_EXE_cbhost");

/// The spec of `library` run by `cbhost` in `dir`, thinking `seconds` a move.
fn hosted_spec(library: &Path, dir: &Path, seconds: f64) -> String {
    format!(
        "external:cmd=\"'{HOST}' '{}' --time {seconds}\",dir={}",
        library.display(),
        dir.display()
    )
}

/// Plays one game of the hosted `library` against `opponent` (the library has Black when
/// `black` is true) under `time_control`.
fn hosted_game(
    library: &Path,
    seconds: f64,
    opponent: &str,
    black: bool,
    time_control: TimeControl,
) -> GameRecord<<Checkers as Game>::Move> {
    let dir = library.parent().unwrap();
    let options = AgentOptions::default();
    let mut hosted =
        agent_from_spec::<Checkers>(&hosted_spec(library, dir, seconds), &options).unwrap();
    let mut other = agent_from_spec::<Checkers>(opponent, &options).unwrap();
    let settings = GameSettings {
        time_control,
        max_plies: Some(300),
        ..GameSettings::default()
    };
    let agents: [&mut dyn tmbot::play::Agent<Checkers>; 2] = if black {
        [hosted.as_mut(), other.as_mut()]
    } else {
        [other.as_mut(), hosted.as_mut()]
    };
    play_game(&Checkers::new(), &[], agents, &settings, 7)
}

fn assert_clean(record: &GameRecord<<Checkers as Game>::Move>) {
    assert!(
        matches!(
            record.termination,
            Termination::Normal | Termination::Adjudication
        ),
        "{:?}: {}",
        record.termination,
        record.detail
    );
    assert!(record.plies() > 10, "{} plies", record.plies());
    assert_ne!(record.result, GameResult::Unfinished);
}

#[test]
fn tmbot_own_library_plays_whole_games_through_the_host() {
    for black in [true, false] {
        let record = hosted_game(
            &library_path(),
            0.02,
            "alphabeta:depth=2",
            black,
            TimeControl::Unlimited,
        );
        assert_clean(&record);
        let seat = usize::from(!black);
        assert_eq!(record.players[seat], "tmbot", "{:?}", record.players);
    }
}

#[test]
fn the_host_speaks_the_checkers_protocol_and_passes_engine_commands_on() {
    let mut child = Command::new(HOST)
        .arg(library_path())
        .args(["--time", "0.02"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"name\nsetboard W:W21:B1\ngenmove w\ngetboard\nenginecommand get gametype\n\
              enginecommand no such thing\nplay 9-14\nmax_time -1\nquit\n",
        )
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let answers: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(answers[0], "= tmbot");
    assert_eq!(answers[1], "= ");
    assert!(
        answers[2] == "= 21-17" || answers[2] == "= 21-25",
        "{}",
        answers[2]
    );
    let after = answers[2].trim_start_matches("= ");
    let square = after.split('-').nth(1).unwrap();
    assert_eq!(answers[3], format!("= B:W{square}:B1"));
    assert_eq!(answers[4], "= 21");
    assert_eq!(
        answers[5],
        "? the engine does not understand 'no such thing'"
    );
    assert!(answers[6].starts_with("? "), "{}", answers[6]);
    assert_eq!(answers[7], "? '-1' is not a positive number");
    assert!(output.status.success());
}

#[test]
fn a_library_that_cannot_be_loaded_is_named() {
    let output = Command::new(HOST)
        .arg("/no/such/engine.so")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(err.contains("/no/such/engine.so"), "{err}");
}

/// The built Cake and simplech libraries, or `None` (said on stderr) when absent.
fn opponents() -> Option<[PathBuf; 2]> {
    let Some(dir) = std::env::var_os("TMBOT_CAPERS") else {
        eprintln!("skipped: TMBOT_CAPERS is not set (bench/opponents.sh builds Cake and simplech)");
        return None;
    };
    let dir = PathBuf::from(dir);
    let libraries = [dir.join("cake/cake.so"), dir.join("cliche/simplech.so")];
    if let Some(missing) = libraries.iter().find(|p| !p.exists()) {
        eprintln!("skipped: {} is not built", missing.display());
        return None;
    }
    Some(libraries)
}

#[test]
fn cake_and_simplech_play_legal_games_through_the_host() {
    let Some(libraries) = opponents() else {
        return;
    };
    for library in &libraries {
        for black in [true, false] {
            let record = hosted_game(
                library,
                0.05,
                "alphabeta:depth=3",
                black,
                TimeControl::Unlimited,
            );
            assert_clean(&record);
        }
    }
}

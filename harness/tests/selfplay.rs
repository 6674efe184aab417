//! `arena selfplay` and `arena dataset` end to end: every position of every game, replayed
//! from the journal's records; the seeds' formats read back by the training encoders;
//! folds that never split a game.

mod common;

use common::*;
use std::path::Path;
use tmbot::features::{read_dataset, Encoder};
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};

fn selfplay(dir: &Path, toml: &str) -> String {
    let file = dir.join("t.toml");
    std::fs::write(&file, toml).unwrap();
    let out = dir.join("out");
    ok(&[
        "selfplay",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    std::fs::read_to_string(out.join("positions.csv")).unwrap()
}

const HEX: &str = r#"
seed = 3
[[event]]
name = "h"
game = "hex"
size = 5
games = 12
players = [{ name = "a", spec = "random" }, { name = "b", spec = "mcts:playouts=50" }]
"#;

#[test]
fn positions_cover_every_ply_of_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let text = selfplay(dir.path(), HEX);
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .map(|l| {
            let (head, rest) = l.split_once(",\"").unwrap();
            let (position, tail) = rest.split_once("\",").unwrap();
            head.split(',')
                .chain([position])
                .chain(tail.split(','))
                .map(str::to_string)
                .collect()
        })
        .collect();
    let games: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(games.len(), 12);
    let mut visits_seen = false;
    for game in games {
        let mine: Vec<&Vec<String>> = rows.iter().filter(|r| r[1] == game).collect();
        let total = mine.len() - 1;
        for (ply, row) in mine.iter().enumerate() {
            assert_eq!(row[2], ply.to_string());
            assert_eq!(row[3], (total - ply).to_string());
            let position = Hex::from_position_text(&row[5]).unwrap();
            let side = if row[4] == "b" {
                Color::Black
            } else {
                Color::White
            };
            assert_eq!(position.side_to_move(), side);
            // The outcome from the side to move is the complement of Black's for White.
            let (stm, black): (f64, f64) = (row[6].parse().unwrap(), row[7].parse().unwrap());
            assert_eq!(
                stm,
                if side == Color::Black {
                    black
                } else {
                    1.0 - black
                }
            );
            visits_seen |= !row[9].is_empty();
            if ply == total {
                // The last position is the completed board: the side that just moved won.
                let outcome = position.outcome().expect("the game is over");
                assert_eq!(outcome.winner, Some(side.opponent()));
                assert_eq!(stm, 0.0);
                assert!(row[8].is_empty() && row[9].is_empty());
            } else {
                assert!(position.outcome().is_none());
            }
        }
    }
    assert!(visits_seen, "the MCTS player reports its visits");
}

#[test]
fn datasets_are_the_seeds_formats_and_folds_keep_games_whole() {
    let dir = tempfile::tempdir().unwrap();
    selfplay(dir.path(), HEX);
    let positions = dir.path().join("out/positions.csv");
    let positions = positions.to_str().unwrap();
    let end = dir.path().join("end.csv");
    let printed = dataset(positions, "hex", "end", &end);
    assert!(printed.starts_with("12 rows from 12 games"), "{printed}");
    // Read back by the training encoder: 25 cells give 25 x 26 connection features.
    let data = read_dataset(&end, &Encoder::parse("hex-connection").unwrap()).unwrap();
    assert_eq!((data.len(), data.features()), (12, 650));
    // The games' SGF records, replayed, give the same rows.
    let records = dir.path().join("out/records");
    let event = std::fs::read_dir(&records)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let from_sgf = dir.path().join("sgf.csv");
    let printed = dataset(event.to_str().unwrap(), "hex", "before:0,3", &from_sgf);
    assert!(printed.starts_with("24 rows from 12 games"), "{printed}");
    let from_positions = dir.path().join("pos.csv");
    dataset(positions, "hex", "before:0,3", &from_positions);
    let sorted = |path: &Path| {
        let mut lines: Vec<String> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(sorted(&from_sgf), sorted(&from_positions));
    // Two plies before the end, in 3 folds: each game in exactly one fold.
    let folds = dir.path().join("folds");
    ok(&[
        "dataset",
        positions,
        "--game",
        "hex",
        "--select",
        "before:2",
        "--folds",
        "3",
        "--seed",
        "5",
        "-o",
        folds.to_str().unwrap(),
    ]);
    let sizes: Vec<usize> = (0..3)
        .map(|k| {
            read_dataset(
                &folds.join(format!("fold{k}.csv")),
                &Encoder::parse("hex-connection").unwrap(),
            )
            .unwrap()
            .len()
        })
        .collect();
    assert_eq!(sizes, [4, 4, 4]);
    // All positions, deduplicated: the empty start board appears once.
    let all = dir.path().join("all.csv");
    ok(&[
        "dataset",
        positions,
        "--game",
        "hex",
        "--select",
        "all",
        "--dedupe",
        "-o",
        all.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&all).unwrap();
    let empty_rows = text
        .lines()
        .filter(|l| l.split(',').take(25).all(|c| c == "0"))
        .count();
    assert!(
        empty_rows <= 2,
        "one empty board per winner at most: {empty_rows}"
    );
    let out = arena(&[
        "dataset", positions, "--game", "hex", "--select", "middle", "-o", "x.csv",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("before:N"));
}

/// Runs `arena dataset` on one positions file; its standard output.
fn dataset(positions: &str, game: &str, select: &str, out: &Path) -> String {
    ok(&[
        "dataset",
        positions,
        "--game",
        game,
        "--select",
        select,
        "-o",
        out.to_str().unwrap(),
    ])
}

#[test]
fn checkers_positions_become_seed_001_rows() {
    let dir = tempfile::tempdir().unwrap();
    selfplay(
        dir.path(),
        r#"
seed = 1
[[event]]
name = "c"
game = "checkers"
games = 4
max_plies = 40
players = [{ name = "a", spec = "random" }, { name = "b", spec = "greedy" }]
"#,
    );
    let positions = dir.path().join("out/positions.csv");
    let out = dir.path().join("c.csv");
    dataset(positions.to_str().unwrap(), "checkers", "all", &out);
    let data = read_dataset(&out, &Encoder::parse("checkers-planes").unwrap()).unwrap();
    assert_eq!(data.features(), 128);
    assert!(data.labels().iter().all(|&l| l <= 2));
    // The start position: twelve black men on squares 1-12, twelve white men on 21-32.
    assert!((0..12).all(|s| data.value(0, s)) && (12..32).all(|s| !data.value(0, s)));
    assert!((64 + 20..64 + 32).all(|s| data.value(0, s)));
    assert_eq!(data.feature_names[0], "BM_1");

    // The side to move travels with each row: seen by the mover, the start is the same
    // board, and after Black's first move the board is White's and so are the labels.
    let mover = read_dataset(&out, &Encoder::parse("checkers-planes:view=mover").unwrap()).unwrap();
    assert_eq!(mover.len(), data.len());
    assert_eq!(mover.row(0), data.row(0));
    assert_eq!(mover.labels()[0], data.labels()[0]);
    let swapped = |l: u32| [1, 0, 2][l as usize];
    assert_eq!(mover.labels()[1], swapped(data.labels()[1]));
    assert!((0..128).any(|f| mover.value(1, f) != data.value(1, f)));
    let white = read_dataset(
        &out,
        &Encoder::parse("checkers-planes:labels=white").unwrap(),
    )
    .unwrap();
    assert!((0..data.len()).all(|i| white.labels()[i] == swapped(data.labels()[i])));
    let meta = read_dataset(&out, &Encoder::parse("checkers-meta").unwrap()).unwrap();
    assert_eq!((meta.features(), meta.len()), (70, data.len()));
    assert_eq!(meta.feature_names[0], "own-men>=1");

    // Seed 001's compositions: the end and two and four plies before it, per game.
    let composed = dir.path().join("est.csv");
    dataset(
        positions.to_str().unwrap(),
        "checkers",
        "end-second-third",
        &composed,
    );
    let est = read_dataset(&composed, &Encoder::parse("checkers-planes").unwrap()).unwrap();
    assert_eq!(est.len(), 4 * 3, "four games of at least five plies");
}

const TINSLEY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/checkers/tinsley.pdn"
);

#[test]
fn a_real_pdn_archive_becomes_final_positions() {
    if !Path::new(TINSLEY).exists() {
        eprintln!("skipping: {TINSLEY} is absent");
        assert!(
            std::env::var_os("TMBOT_REQUIRE_SHARED_DATA").is_none(),
            "{TINSLEY} is absent but TMBOT_REQUIRE_SHARED_DATA is set"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let end = dir.path().join("end.csv");
    let out = arena(&[
        "dataset",
        TINSLEY,
        "--game",
        "checkers",
        "--select",
        "end",
        "-o",
        end.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 724 games, one of which (game 541) has an illegal move: `arena replay` finds the same.
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("723 rows from 723 games"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 games left out"));
    let data = read_dataset(&end, &Encoder::parse("checkers-planes").unwrap()).unwrap();
    assert_eq!(data.len(), 723);
    // Masters' games: most end drawn (label 2), and both colours win some.
    let count = |l: u32| data.labels().iter().filter(|&&x| x == l).count();
    assert!(count(2) > count(0) && count(2) > count(1) && count(0) > 0 && count(1) > 0);
    let err = arena(&["dataset", TINSLEY, "--game", "hex", "-o", "x.csv"]);
    assert!(String::from_utf8_lossy(&err.stderr).contains("--game checkers"));
}

/// `games` random 7x7 games seeded `seed`, selfplayed into `dir` and turned into their
/// completed boards; returns the dataset's path.
fn completed_games(dir: &Path, seed: u64, games: u64) -> std::path::PathBuf {
    let out = dir.join(format!("s{seed}"));
    std::fs::create_dir_all(&out).unwrap();
    selfplay(
        &out,
        &format!(
            "seed = {seed}\n[[event]]\nname = \"r\"\ngame = \"hex\"\nsize = 7\ngames = {games}\n\
             players = [{{ name = \"a\", spec = \"random\" }}, {{ name = \"b\", spec = \"random\" }}]\n"
        ),
    );
    let csv = out.join("end.csv");
    let positions = out.join("out/positions.csv");
    ok(&[
        "dataset",
        positions.to_str().unwrap(),
        "--game",
        "hex",
        "--select",
        "end",
        "-o",
        csv.to_str().unwrap(),
    ]);
    csv
}

#[test]
fn completed_random_games_teach_a_machine_the_winner() {
    // Seed 000's first experiment on our own data: train on random completed 7x7 games,
    // test on games played from another seed. The edge symbols decide a completed board.
    let dir = tempfile::tempdir().unwrap();
    let train = completed_games(dir.path(), 1, 2000);
    let test = completed_games(dir.path(), 2, 2000);
    let accuracy = |encoder: &str| -> f64 {
        let model = dir.path().join(format!("{encoder}.tm"));
        let printed = ok(&[
            "train",
            train.to_str().unwrap(),
            "--test",
            test.to_str().unwrap(),
            "--encoder",
            encoder,
            "--clauses",
            "100",
            "--T",
            "50",
            "--s",
            "1.2",
            "--weighted",
            "--epochs",
            "10",
            "-o",
            model.to_str().unwrap(),
        ]);
        let line = printed.lines().find(|l| l.starts_with("accuracy")).unwrap();
        line.trim_start_matches("accuracy ")
            .trim_end_matches('%')
            .parse()
            .unwrap()
    };
    let with_edges = accuracy("hex-connection:edges=on");
    assert!(with_edges >= 99.9, "{with_edges}");
    let plain = accuracy("hex-connection");
    assert!(plain >= 95.0, "{plain}");
}

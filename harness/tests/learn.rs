//! `arena learn`: the iterated loop of self-play, dataset, training and gauntlet.

mod common;

use common::{fails, ok};
use std::path::Path;

const LOOP: &str = r#"
seed = 3
game = "hex"
size = 4
generations = 2
player = "greedy:eval=tm-votes:{model}"
[selfplay]
games = 6
players = ["random", "greedy:eval=twodistance"]
[dataset]
select = "all"
dedupe = true
window = 2
[train]
encoder = "hex-compact:fold=on"
options = ["--weighted", "--clauses", "40", "--T", "20", "--s", "3", "--epochs", "2"]
[gauntlet]
games = 4
ladder = ["random"]
"#;

fn table(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("generations.csv"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn generations_learn_play_and_resume() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("loop.toml");
    std::fs::write(&file, LOOP).unwrap();
    let out = dir.path().join("out");
    let args = [
        "learn",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "1",
    ];
    let printed = ok(&args);
    assert!(printed.contains("best model"), "{printed}");
    let rows = table(&out);
    assert_eq!(
        rows[0],
        "generation,model,score_vs_best,elo,elo_error95,kept"
    );
    assert_eq!(rows.len(), 3, "{rows:?}");
    // The first generation is kept with no score against a best; the second meets it.
    let first: Vec<&str> = rows[1].split(',').collect();
    assert_eq!((first[0], first[2], first[5]), ("1", "", "true"));
    let second: Vec<&str> = rows[2].split(',').collect();
    let score: f64 = second[2].parse().unwrap();
    assert!((0.0..=1.0).contains(&score));
    assert_eq!(second[5], if score > 0.5 { "true" } else { "false" });
    // Generation 2 learned from both generations' positions, and played the best of
    // generation 1 in its self-play.
    let gen2 = std::fs::read_to_string(out.join("gen-2/selfplay.toml")).unwrap();
    assert!(gen2.contains("gen-1/model.tmi"), "{gen2}");
    assert!(out.join("gen-2/gauntlet/summary.json").exists());

    // A finished loop resumed does nothing again and reports the same table.
    let model = std::fs::metadata(out.join("gen-1/model.tmi"))
        .unwrap()
        .modified()
        .unwrap();
    let mut resume = args.to_vec();
    resume.push("--resume");
    ok(&resume);
    assert_eq!(table(&out), rows);
    let again = std::fs::metadata(out.join("gen-1/model.tmi"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(model, again, "the model was not trained again");

    // A used folder without --resume is refused.
    assert!(fails(&args).contains("--resume"));
}

#[test]
fn bad_loop_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("loop.toml");
    let out = dir.path().join("out");
    for (change, message) in [
        (("{model}", "x.tm"), "{model}"),
        (("game = \"hex\"", "game = \"go\""), "hex or checkers"),
        (("generations = 2", "generations = 0"), "at least 1"),
        (("window = 2", "windows = 2"), "unknown field"),
    ] {
        std::fs::write(&file, LOOP.replace(change.0, change.1)).unwrap();
        let err = fails(&[
            "learn",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(err.contains(message), "{change:?}: {err}");
    }
}

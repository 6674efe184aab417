//! `arena evolve` end to end on small tori: a resumed run is bit-identical to an
//! uninterrupted one, refused reruns, shards, the report with its cross-population games,
//! exported networks playing by spec, and a checkers run with a searching network.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use tmbot::game::hex::Hex;
use tmbot::player::Player;

const SMALL: &str = r#"
[evolve]
game = "hex"
size = 5
torus = [3, 4]
generations = 6
checkpoint_every = 2
sample_every = 3
sample_players = 3
sample_games = 4
final_games = 10

[[run]]
name = "vanilla"
seeds = [7]

[[run]]
name = "exponential"
fitness = "exponential"
more_mutations = 0.5
seeds = [7]
"#;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The log without its timing column.
fn log_without_times(dir: &Path) -> Vec<String> {
    read(&dir.join("generations.csv"))
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
        .collect()
}

#[test]
fn a_resumed_run_is_bit_identical_to_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("small.toml");
    std::fs::write(&file, SMALL).unwrap();
    let file = file.to_str().unwrap();
    let straight = dir.path().join("straight");
    let resumed = dir.path().join("resumed");
    ok(&[
        "evolve",
        file,
        "--out",
        straight.to_str().unwrap(),
        "--shard",
        "1/2",
    ]);
    ok(&[
        "evolve",
        file,
        "--out",
        resumed.to_str().unwrap(),
        "--shard",
        "1/2",
        "--generations",
        "3",
    ]);
    let halfway = read(&resumed.join("vanilla-s7/generations.csv"));
    assert_eq!(halfway.lines().count(), 4, "header and three generations");
    // Running again without --resume is refused; changed settings are refused on resume.
    let err = fails(&[
        "evolve",
        file,
        "--out",
        resumed.to_str().unwrap(),
        "--shard",
        "1/2",
    ]);
    assert!(err.contains("--resume"), "{err}");
    let changed = dir.path().join("changed.toml");
    std::fs::write(
        &changed,
        SMALL.replace("sample_games = 4", "sample_games = 6"),
    )
    .unwrap();
    let err = fails(&[
        "evolve",
        changed.to_str().unwrap(),
        "--out",
        resumed.to_str().unwrap(),
        "--shard",
        "1/2",
        "--resume",
    ]);
    assert!(err.contains("other settings"), "{err}");
    ok(&[
        "evolve",
        file,
        "--out",
        resumed.to_str().unwrap(),
        "--shard",
        "1/2",
        "--resume",
        "--generations",
        "6",
    ]);
    let (a, b) = (straight.join("vanilla-s7"), resumed.join("vanilla-s7"));
    for name in [
        "checkpoint.json",
        "strength.csv",
        "final.csv",
        "best.ann",
        "median.ann",
    ] {
        assert_eq!(read(&a.join(name)), read(&b.join(name)), "{name}");
    }
    assert_eq!(log_without_times(&a), log_without_times(&b));
    assert_eq!(log_without_times(&a).len(), 7);
    // Shard 1/2 ran only the first run.
    assert!(!straight.join("exponential-s7").exists());
    // A finished run is skipped on resume, with its summary printed again.
    let again = ok(&[
        "evolve",
        file,
        "--out",
        straight.to_str().unwrap(),
        "--shard",
        "1/2",
        "--resume",
    ]);
    assert!(again.contains("vanilla-s7: 6 generations"), "{again}");
}

#[test]
fn the_report_compares_runs_and_exports_play_by_spec() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("small.toml");
    std::fs::write(&file, SMALL).unwrap();
    let file = file.to_str().unwrap();
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    let err = fails(&["evolve", file, "--out", out, "--report"]);
    assert!(err.contains("not finished"), "{err}");
    let printed = ok(&["evolve", file, "--out", out]);
    assert!(
        printed.contains("vanilla-s7") && printed.contains("exponential-s7"),
        "{printed}"
    );
    let report = ok(&["evolve", file, "--out", out, "--report", "--cross", "3"]);
    assert!(report.contains("overall"), "{report}");
    let base = Path::new(out);
    let summary = read(&base.join("report/summary.csv"));
    assert_eq!(summary.lines().count(), 3, "{summary}");
    for svg in [
        "vanilla.svg",
        "exponential.svg",
        "configurations.svg",
        "strength.svg",
    ] {
        let text = read(&base.join("report").join(svg));
        assert!(
            text.starts_with("<svg") && text.trim_end().ends_with("</svg>"),
            "{svg}"
        );
    }
    // Cross table: each population's score against the other and overall, which sum to 1
    // (every game is won by one side in Hex).
    let cross = read(&base.join("report/cross.csv"));
    let rows: Vec<Vec<&str>> = cross
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let ab: f64 = rows[0][2].parse().unwrap();
    let ba: f64 = rows[1][1].parse().unwrap();
    assert!((ab + ba - 1.0).abs() < 1e-3, "{cross}");
    // Every final player was scored; the best network plays as an ordinary player.
    let finals = read(&base.join("vanilla-s7/final.csv"));
    assert_eq!(finals.lines().count(), 13);
    let spec = format!("greedy:eval=ann:{}/vanilla-s7/best.ann", out);
    let player = Player::<Hex>::from_spec(&spec).unwrap();
    let game = Hex::new(5, 5).unwrap();
    player.check_game(&game).unwrap();
    let baseline = ok(&[
        "baseline",
        "--game",
        "hex",
        "--size",
        "5",
        "--player",
        &spec,
        "--games",
        "20",
        "--out",
        dir.path().join("baseline").to_str().unwrap(),
        "--json",
    ]);
    let baseline: serde_json::Value = serde_json::from_str(&baseline).unwrap();
    assert_eq!(baseline["games"], 20, "{baseline}");
}

#[test]
fn checkers_networks_evolve_with_a_search() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("checkers.toml");
    std::fs::write(
        &file,
        r#"
[evolve]
game = "checkers"
torus = [3, 3]
generations = 2
hidden = [6]
activation = "tanh"
shake = "self-adaptive"
sigma = 0.05
search = "alphabeta:depth=1,tt=10"
max_plies = 40
sample_every = 0
final_games = 2
ladder = ["random", "greedy"]
ladder_games = 2

[[run]]
name = "blondie"
"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let printed = ok(&[
        "evolve",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        printed.contains("blondie-s1") && printed.contains("ladder: random"),
        "{printed}"
    );
    let checkpoint = read(&out.join("blondie-s1/checkpoint.json"));
    assert!(
        checkpoint.contains("\"sigmas\""),
        "self-adaptive genomes carry their sigmas"
    );
    let model = tmbot::nn::NetModel::load(&out.join("blondie-s1/best.ann")).unwrap();
    assert_eq!(model.network.shape.sizes, vec![33, 6, 1]);
}

#[test]
fn bad_files_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.toml");
    std::fs::write(
        &file,
        "[evolve]\nsize = 5\n[[run]]\nname = \"x\"\ntorus = [2, 2]\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let err = fails(&[
        "evolve",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains("torus 2x2") && err.contains("bad.toml"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn ctrl_c_writes_a_checkpoint_that_resumes_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("small.toml");
    std::fs::write(&file, SMALL.replace("generations = 6", "generations = 400")).unwrap();
    let file = file.to_str().unwrap();
    let (stopped, straight) = (dir.path().join("stopped"), dir.path().join("straight"));
    let mut child = Command::new(ARENA)
        .args([
            "evolve",
            file,
            "--out",
            stopped.to_str().unwrap(),
            "--shard",
            "2/2",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Interrupt once a few generations are logged.
    let log = stopped.join("exponential-s7/generations.csv");
    while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < 4
        && child.try_wait().unwrap().is_none()
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let pid = child.id().to_string();
    Command::new("kill").args(["-INT", &pid]).status().unwrap();
    let status = child.wait().unwrap();
    let checkpoint = read(&stopped.join("exponential-s7/checkpoint.json"));
    if !status.success() {
        // Stopped early: the checkpoint holds the last finished generation.
        assert!(
            !checkpoint.starts_with("{\"generation\":400"),
            "stopped before the end"
        );
    }
    ok(&[
        "evolve",
        file,
        "--out",
        stopped.to_str().unwrap(),
        "--shard",
        "2/2",
        "--resume",
    ]);
    ok(&[
        "evolve",
        file,
        "--out",
        straight.to_str().unwrap(),
        "--shard",
        "2/2",
    ]);
    let (a, b) = (
        stopped.join("exponential-s7"),
        straight.join("exponential-s7"),
    );
    for name in ["checkpoint.json", "strength.csv", "final.csv", "best.ann"] {
        assert_eq!(read(&a.join(name)), read(&b.join(name)), "{name}");
    }
    assert_eq!(log_without_times(&a), log_without_times(&b));
}

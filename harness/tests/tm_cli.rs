//! `arena train`, `arena cv`, `arena explain` and `arena export` end to end on seed 001's
//! checkers fold files (skipped with a message when the shared data is absent).

use std::path::{Path, PathBuf};
use std::process::Command;
use tmbot::features::read_dataset;
use tmbot::features::Encoder;
use tmbot::tm::persist::{load_inference, Machine, SavedModel};

const FOLDS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/data/checkers/standard_end_10fold"
);

fn fold(i: usize) -> Option<PathBuf> {
    let path = Path::new(FOLDS).join(format!("fold{i}.csv"));
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipping: {} is absent", path.display());
        None
    }
}

fn arena(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .output()
        .expect("arena runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Scaled-down settings: few clauses, few epochs.
const SMALL: [&str; 12] = [
    "--encoder",
    "checkers-planes",
    "--clauses",
    "60",
    "--T",
    "40",
    "--s",
    "10",
    "--weighted",
    "--epochs",
    "2",
    "--seed",
];

#[test]
fn train_conv_on_checkers_folds() {
    let (Some(test), Some(a), Some(b)) = (fold(0), fold(1), fold(2)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("conv.tm");
    let mut args = vec!["train", a.to_str().unwrap(), b.to_str().unwrap()];
    args.extend(["--test", test.to_str().unwrap(), "--model", "conv"]);
    args.extend(["--window", "2", "--json", "-o", model.to_str().unwrap()]);
    args.extend(SMALL);
    args.push("3");
    let (ok, stdout, stderr) = arena(&args);
    assert!(ok, "{stderr}");
    let report = json(&stdout);
    assert_eq!(report["epochs"], 2);
    let accuracy = report["test"]["accuracy"].as_f64().unwrap();
    // Draws are 62.8% of the data; a model that learnt nothing predicts about that at best.
    assert!((0.5..=1.0).contains(&accuracy), "accuracy {accuracy}");
    // The saved model is convolutional and predicts the reported accuracy again.
    let saved = SavedModel::load(&model).unwrap();
    let Machine::Conv(conv) = &saved.machine else {
        panic!("saved a {:?}", saved.machine);
    };
    assert_eq!(conv.grid().window, 2);
    let data = read_dataset(&test, Encoder::CheckersPlanes).unwrap();
    let predicted = saved.machine.predict_all(&data);
    let correct = predicted
        .iter()
        .zip(data.labels())
        .filter(|(&p, &y)| p == y as usize)
        .count();
    assert_eq!(correct as f64 / data.len() as f64, accuracy);
    // explain writes clauses over patch features; export refuses convolutional models.
    let (ok, stdout, stderr) = arena(&["explain", model.to_str().unwrap(), "--top", "3"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("convolutional over 2x2 windows"),
        "{stdout}"
    );
    assert!(stdout.contains("Clause"), "{stdout}");
    let out = dir.path().join("conv.tmi");
    let (ok, _, stderr) = arena(&[
        "export",
        model.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok && stderr.contains("convolutional"), "{stderr}");
    // A window that does not fit the 4 x 8 board is a clear error.
    let (ok, _, stderr) = arena(&[
        "train",
        a.to_str().unwrap(),
        "--encoder",
        "checkers-planes",
        "--model",
        "conv",
        "--window",
        "5",
    ]);
    assert!(!ok && stderr.contains("--window"), "{stderr}");
}

#[test]
fn cv_conv_on_checkers_folds() {
    let folds: Option<Vec<PathBuf>> = (0..4).map(fold).collect();
    let Some(folds) = folds else {
        return;
    };
    let mut args = vec!["cv"];
    args.extend(folds.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--only", "2", "--model", "conv", "--window", "3", "--json"]);
    args.extend(SMALL);
    args.push("5");
    let (ok, stdout, stderr) = arena(&args);
    assert!(ok, "{stderr}");
    let report = json(&stdout);
    assert_eq!(report["folds"], 2);
    let mean = report["mean_accuracy"].as_f64().unwrap();
    assert!((0.5..=1.0).contains(&mean), "mean accuracy {mean}");
}

#[test]
fn exported_per_class_model_predicts_like_the_model() {
    let (Some(test), Some(a)) = (fold(0), fold(1)) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.tm");
    let out = dir.path().join("m.tmi");
    let mut args = vec!["train", a.to_str().unwrap(), "-o", model.to_str().unwrap()];
    args.extend(SMALL);
    args.push("7");
    let (ok, _, stderr) = arena(&args);
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = arena(&[
        "export",
        model.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let saved = SavedModel::load(&model).unwrap();
    let exported = load_inference(&out).unwrap();
    let data = read_dataset(&test, Encoder::CheckersPlanes).unwrap();
    let sums = exported.class_sums(&data);
    for i in 0..data.len() {
        assert_eq!(
            sums[i * 3..(i + 1) * 3],
            saved.machine.class_sums(data.row(i))[..]
        );
    }
}

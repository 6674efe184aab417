//! `arena train`, `arena cv`, `arena explain` and `arena export` end to end on seed 001's
//! checkers fold files (skipped with a message when the shared data is absent), and on a
//! small generated CSV.

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
        assert!(
            std::env::var_os("TMBOT_REQUIRE_SHARED_DATA").is_none(),
            "{} is absent but TMBOT_REQUIRE_SHARED_DATA is set",
            path.display()
        );
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
    assert_eq!(data.accuracy(&saved.machine.predict_all(&data)), accuracy);
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

/// A generated CSV with a header: 12 features `f0..f11`; class 2 when f2, else class 1 when
/// f0 AND f1, else class 0.
fn write_rule_csv(path: &Path, rows: usize) {
    use rand::Rng as _;
    let mut rng = tmbot::rng::seeded(5);
    let mut text: String = (0..12).map(|f| format!("f{f},")).collect();
    text.push_str("label\n");
    for _ in 0..rows {
        let x: Vec<u8> = (0..12).map(|_| rng.random_range(0..2)).collect();
        let label = if x[2] == 1 { 2 } else { x[0] & x[1] };
        for v in &x {
            text.push_str(&format!("{v},"));
        }
        text.push_str(&format!("{label}\n"));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn coalesced_model_trains_saves_explains_and_exports() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rule.csv");
    write_rule_csv(&csv, 400);
    let model = dir.path().join("k.tm");
    let (csv, model_path) = (csv.to_str().unwrap(), model.to_str().unwrap());
    let (ok, stdout, stderr) = arena(&[
        "train",
        csv,
        "--test",
        csv,
        "--model",
        "coalesced",
        "--clauses",
        "40",
        "--T",
        "10",
        "--s",
        "3",
        "--epochs",
        "5",
        "--seed",
        "3",
        "--json",
        "-o",
        model_path,
    ]);
    assert!(ok, "{stderr}");
    let report = json(&stdout);
    assert_eq!(report["epochs"], 5);
    let accuracy = report["test"]["accuracy"].as_f64().unwrap();
    // The majority class (0) is 37.5% of the samples.
    assert!(accuracy >= 0.8, "accuracy {accuracy}");
    // The saved model is coalesced and predicts the reported accuracy again.
    let saved = SavedModel::load(&model).unwrap();
    assert!(matches!(saved.machine, Machine::Coalesced(_)), "{saved:?}");
    let data = tmbot::tm::Dataset::read_csv(Path::new(csv)).unwrap();
    assert_eq!(data.accuracy(&saved.machine.predict_all(&data)), accuracy);
    // explain ranks the whole pool for each class; the sign is that of the class weight.
    let (ok, stdout, stderr) = arena(&["explain", model_path, "--top", "40"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("model: coalesced, 12 features (csv encoder), 3 classes, 40 clauses shared by all classes"),
        "{stdout}"
    );
    let mut class = 0;
    let mut signs = std::collections::BTreeSet::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("class ") {
            class = rest.split(':').next().unwrap().parse().unwrap();
            continue;
        }
        let Some((head, body)) = line.split_once("  Clause ") else {
            continue;
        };
        let (j, rule) = body.split_once(": ").unwrap();
        let j: usize = j.parse().unwrap();
        let (sign, weight) = head.split_once(" weight ").unwrap();
        let weight: i32 = weight.trim().parse().unwrap();
        let signed = match sign {
            "+" => weight,
            "-" => -weight,
            _ => 0,
        };
        assert_eq!(signed, saved.machine.weight(class, j), "{line}");
        assert!(rule.contains('f'), "{line}");
        signs.insert(sign.to_string());
    }
    assert!(signs.contains("+") && signs.contains("-"), "{stdout}");
    // export writes the include masks; they predict as the model.
    let out = dir.path().join("k.tmi");
    let (ok, _, stderr) = arena(&["export", model_path, "--out", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let sums = load_inference(&out).unwrap().class_sums(&data);
    for i in 0..data.len() {
        assert_eq!(
            sums[i * 3..(i + 1) * 3],
            saved.machine.class_sums(data.row(i))[..]
        );
    }
    // The coalesced machine has no drops.
    let (ok, _, stderr) = arena(&["train", csv, "--model", "coalesced", "--clause-drop", "0.1"]);
    assert!(
        !ok && stderr.contains("no clause or literal drop"),
        "{stderr}"
    );
}

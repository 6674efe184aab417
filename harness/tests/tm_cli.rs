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

/// A test's temporary folder, its files named by text paths as the command line takes them.
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new() -> Scratch {
        Scratch(tempfile::tempdir().unwrap())
    }

    /// The path of `name` in the folder, as text.
    fn path(&self, name: &str) -> String {
        text(&self.0.path().join(name)).to_owned()
    }

    /// The path of `name` in the folder after `write` has written it there.
    fn file(&self, name: &str, write: impl FnOnce(&Path)) -> String {
        let path = self.path(name);
        write(Path::new(&path));
        path
    }
}

/// A path as text (every path here is UTF-8).
fn text(path: &Path) -> &str {
    path.to_str().unwrap()
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
    let dir = Scratch::new();
    let model = &dir.path("conv.tm");
    let mut args = vec!["train", text(&a), text(&b)];
    args.extend(["--test", text(&test), "--model", "conv"]);
    args.extend(["--window", "2", "--json", "-o", model]);
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
    let saved = SavedModel::load(Path::new(model)).unwrap();
    let Machine::Conv(conv) = &saved.machine else {
        panic!("saved a {:?}", saved.machine);
    };
    assert_eq!(conv.grid().window, 2);
    let data = read_dataset(&test, &Encoder::parse("checkers-planes").unwrap()).unwrap();
    assert_eq!(data.accuracy(&saved.machine.predict_all(&data)), accuracy);
    // explain writes clauses over patch features; export refuses convolutional models.
    let (ok, stdout, stderr) = arena(&["explain", model, "--top", "3"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("convolutional over 2x2 windows"),
        "{stdout}"
    );
    assert!(stdout.contains("Clause"), "{stdout}");
    let (ok, _, stderr) = arena(&["export", model, "--out", &dir.path("conv.tmi")]);
    assert!(!ok && stderr.contains("convolutional"), "{stderr}");
    // A window that does not fit the 4 x 8 board is a clear error.
    let (ok, _, stderr) = arena(&[
        "train",
        text(&a),
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
    args.extend(folds.iter().map(|p| text(p)));
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
    let dir = Scratch::new();
    let (model, out) = (&dir.path("m.tm"), &dir.path("m.tmi"));
    let mut args = vec!["train", text(&a), "-o", model];
    args.extend(SMALL);
    args.push("7");
    let (ok, _, stderr) = arena(&args);
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = arena(&["export", model, "--out", out]);
    assert!(ok, "{stderr}");
    let saved = SavedModel::load(Path::new(model)).unwrap();
    let exported = load_inference(Path::new(out)).unwrap();
    let data = read_dataset(&test, &Encoder::parse("checkers-planes").unwrap()).unwrap();
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
    let header: Vec<String> = (0..12).map(|f| format!("f{f}")).collect();
    write_csv(path, &header, "label", rows, || {
        let x: Vec<i8> = (0..12).map(|_| rng.random_range(0..2)).collect();
        let label = if x[2] == 1 { 2 } else { x[0] & x[1] };
        (x, label)
    });
}

/// Writes `rows` rows made by `row` (values, then the label) under a header of `columns`
/// and `label`.
fn write_csv(
    path: &Path,
    columns: &[String],
    label: &str,
    rows: usize,
    mut row: impl FnMut() -> (Vec<i8>, i8),
) {
    let mut text = format!("{},{label}\n", columns.join(","));
    for _ in 0..rows {
        let (values, label) = row();
        for v in &values {
            text.push_str(&format!("{v},"));
        }
        text.push_str(&format!("{label}\n"));
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn coalesced_model_trains_saves_explains_and_exports() {
    let dir = Scratch::new();
    let csv = &dir.file("rule.csv", |p| write_rule_csv(p, 400));
    let model_path = &dir.path("k.tm");
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
        "--coalesced-update",
        "sequential",
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
    let saved = SavedModel::load(Path::new(model_path)).unwrap();
    assert!(matches!(saved.machine, Machine::Coalesced(_)), "{saved:?}");
    assert_eq!(
        saved.machine.params().coalesced_update,
        tmbot::tm::CoalescedUpdate::Sequential
    );
    let data = tmbot::tm::Dataset::read_csv(Path::new(csv)).unwrap();
    assert_eq!(data.accuracy(&saved.machine.predict_all(&data)), accuracy);
    // explain ranks the whole pool for each class; the sign is that of the class weight.
    let (ok, stdout, stderr) = arena(&["explain", model_path, "--top", "40"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("model: coalesced (sequential update), 12 features (csv@1 encoder), 3 classes, 40 clauses shared by all classes"),
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
    let out = &dir.path("k.tmi");
    let (ok, _, stderr) = arena(&["export", model_path, "--out", out]);
    assert!(ok, "{stderr}");
    let sums = load_inference(Path::new(out)).unwrap().class_sums(&data);
    for i in 0..data.len() {
        assert_eq!(
            sums[i * 3..(i + 1) * 3],
            saved.machine.class_sums(data.row(i))[..]
        );
    }
    // The update order is the coalesced machine's alone; a misspelt one is named.
    let (ok, _, stderr) = arena(&["train", csv, "--coalesced-update", "sequential"]);
    assert!(
        !ok && stderr.contains("--coalesced-update sequential needs --model coalesced"),
        "{stderr}"
    );
    let (ok, _, stderr) = arena(&[
        "train",
        csv,
        "--model",
        "coalesced",
        "--coalesced-update",
        "tmu",
    ]);
    assert!(!ok && stderr.contains("joint or sequential"), "{stderr}");
    // The coalesced machine has no drops.
    let (ok, _, stderr) = arena(&["train", csv, "--model", "coalesced", "--clause-drop", "0.1"]);
    assert!(
        !ok && stderr.contains("no clause or literal drop"),
        "{stderr}"
    );
    // Options that do not fit the machine are named before any data is read.
    let missing = &dir.path("not-written-yet.csv");
    for command in ["train", "cv"] {
        let (ok, _, stderr) = arena(&[command, missing, "--coalesced-update", "joint"]);
        assert!(
            !ok && stderr.contains("--coalesced-update joint needs --model coalesced")
                && !stderr.contains("not-written-yet"),
            "{command}: {stderr}"
        );
    }
}

/// A generated Hex CSV in seed 000's layout: 9 `cell_r_c` columns of a 3x3 board in
/// {-1, 0, 1}, then the winner (1 or -1), which is the owner of the centre cell (random
/// when it is empty).
fn write_hex_csv(path: &Path, rows: usize) {
    use rand::Rng as _;
    let mut rng = tmbot::rng::seeded(9);
    let header: Vec<String> = (0..9)
        .map(|c| format!("cell_{}_{}", c / 3, c % 3))
        .collect();
    write_csv(path, &header, "winner", rows, || {
        let cells: Vec<i8> = (0..9).map(|_| rng.random_range(-1..=1)).collect();
        let winner = match cells[4] {
            0 => [-1, 1][rng.random_range(0..2)],
            v => v,
        };
        (cells, winner)
    });
}

#[test]
fn explain_is_readable_with_cell_and_class_names_and_short_clauses() {
    let dir = Scratch::new();
    let csv = &dir.file("hex.csv", |p| write_hex_csv(p, 300));
    let model = &dir.path("hex.tm");
    let (ok, _, stderr) = arena(&[
        "train",
        csv,
        "--encoder",
        "hex-connection",
        "--clauses",
        "20",
        "--T",
        "10",
        "--s",
        "1.5",
        "--epochs",
        "2",
        "-o",
        model,
    ]);
    assert!(ok, "{stderr}");
    let (ok, stdout, stderr) = arena(&["explain", model, "--top", "5", "--literals", "3"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("class 0 (Black wins)"), "{stdout}");
    assert!(stdout.contains("class 1 (White wins)"), "{stdout}");
    assert!(stdout.contains("ranked by |weight|, all 1"), "{stdout}");
    assert!(stdout.contains(" more"), "{stdout}");
    let clause_lines: Vec<&str> = stdout.lines().filter(|l| l.contains("Clause ")).collect();
    assert!(!clause_lines.is_empty(), "{stdout}");
    for line in &clause_lines {
        let body = line.split_once(": ").unwrap().1;
        let shown = body.split(" ... ").next().unwrap();
        assert!(shown.matches(" AND ").count() < 3, "{line}");
        for literal in shown.split(" AND ") {
            let name = literal.trim_start_matches("NOT ");
            let (prefix, cells) = name.split_once('_').unwrap();
            assert!(["B", "R", "CB", "CR"].contains(&prefix), "{line}");
            for cell in cells.split('_') {
                let (column, row) = cell.split_at(1);
                assert!(("a"..="c").contains(&column), "{line}");
                assert!(("1"..="3").contains(&row), "{line}");
            }
        }
    }
    // With the training data, clauses are ranked by the votes they cast there.
    let (ok, stdout, stderr) = arena(&["explain", model, "--top", "20", "--data", csv]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("ranked by votes cast on"), "{stdout}");
    let mut last = u64::MAX;
    for line in stdout.lines() {
        if line.starts_with("class ") {
            last = u64::MAX;
        }
        if let Some((_, rest)) = line
            .split_once("  Clause ")
            .and_then(|(head, _)| head.split_once("votes "))
        {
            let votes: u64 = rest.split_whitespace().next().unwrap().parse().unwrap();
            assert!(votes <= last, "{stdout}");
            last = votes;
        }
    }
    assert!(last < u64::MAX, "{stdout}");
    // A checkers model's classes are named by outcome.
    let (Some(fold1),) = (fold(1),) else {
        return;
    };
    let checkers = &dir.path("c.tm");
    let mut args = vec!["train", text(&fold1), "-o", checkers];
    args.extend(SMALL);
    args.push("2");
    let (ok, _, stderr) = arena(&args);
    assert!(ok, "{stderr}");
    let (ok, stdout, stderr) = arena(&["explain", checkers, "--top", "2"]);
    assert!(ok, "{stderr}");
    for name in ["loss for Black", "win for Black", "draw"] {
        assert!(stdout.contains(name), "{stdout}");
    }
}

#[test]
fn train_checks_the_output_before_training_and_says_when_nothing_is_saved() {
    let dir = Scratch::new();
    let csv = &dir.file("rule.csv", |p| write_rule_csv(p, 50));
    let missing = &dir.path("no-such-folder/m.tm");
    let (ok, _, stderr) = arena(&["train", csv, "--epochs", "1", "-o", missing]);
    assert!(!ok, "{stderr}");
    assert!(!stderr.contains("epoch 1"), "trained first: {stderr}");
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
    let (ok, _, stderr) = arena(&["train", csv, "--epochs", "1", "--clauses", "10"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("was not saved"), "{stderr}");
}

/// The rule CSV in 3 stratified folds, journaled; `rest` are further options.
fn cv_rule(csv: &str, journal: &str, rest: &[&str]) -> (bool, String, String) {
    let mut args = vec![
        "cv",
        csv,
        "--k",
        "3",
        "--journal",
        journal,
        "--clauses",
        "20",
        "--T",
        "10",
        "--s",
        "3",
        "--seed",
        "4",
    ];
    args.extend(rest);
    arena(&args)
}

#[test]
fn cv_journals_each_fold_and_resumes() {
    let dir = Scratch::new();
    let csv = &dir.file("rule.csv", |p| write_rule_csv(p, 300));
    let journal = &dir.path("cv.jsonl");
    let (ok, full, stderr) = cv_rule(csv, journal, &["--epochs", "3", "--json"]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(journal).unwrap();
    assert_eq!(text.lines().count(), 4, "{text}");
    // An existing journal is continued only on request.
    let (ok, _, stderr) = cv_rule(csv, journal, &["--epochs", "3", "--json"]);
    assert!(!ok && stderr.contains("--resume"), "{stderr}");
    // Another setup does not continue this journal.
    let (ok, _, stderr) = cv_rule(csv, journal, &["--epochs", "4", "--resume"]);
    assert!(
        !ok && stderr.contains("another setup (the model options differ)"),
        "{stderr}"
    );
    // Drop the last fold: --resume trains it alone and reports what the full run did.
    let kept: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(journal, kept.join("\n") + "\n").unwrap();
    let (ok, resumed, stderr) = cv_rule(csv, journal, &["--epochs", "3", "--json", "--resume"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("resuming: 2 of 3 folds"), "{stderr}");
    assert_eq!(json(&resumed), json(&full));
    assert_eq!(std::fs::read_to_string(journal).unwrap(), text);
}

#[test]
fn folds_trained_two_at_a_time_give_the_same_summary() {
    let dir = Scratch::new();
    let csv = &dir.file("rule.csv", |p| write_rule_csv(p, 300));
    let (ok, alone, stderr) = cv_rule(csv, &dir.path("one.jsonl"), &["--epochs", "2", "--json"]);
    assert!(ok, "{stderr}");
    let two = &dir.path("two.jsonl");
    let (ok, paired, stderr) = cv_rule(csv, two, &["--epochs", "2", "--json", "--fold-jobs", "2"]);
    assert!(ok, "{stderr}");
    assert_eq!(json(&paired), json(&alone));
    // Every fold is journalled once, in whatever order the folds finished.
    let text = std::fs::read_to_string(two).unwrap();
    let mut folds: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| json(l)["fold"].as_u64().unwrap())
        .collect();
    folds.sort_unstable();
    assert_eq!(folds, [0, 1, 2], "{text}");
}

#[test]
fn train_tests_each_epoch_on_request_with_folded_hex_symbols() {
    let dir = Scratch::new();
    let csv = &dir.file("hex.csv", |p| write_hex_csv(p, 200));
    let common = [
        "train",
        csv,
        "--test",
        csv,
        "--encoder",
        "hex-connection:hv=32,hv-bits=2",
        "--model",
        "coalesced",
        "--clauses",
        "20",
        "--T",
        "10",
        "--epochs",
        "3",
        "--test-each-epoch",
    ];
    let (ok, stdout, stderr) = arena(&common);
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("epoch 3: ") && stderr.contains("test accuracy"),
        "{stderr}"
    );
    assert!(
        stdout.contains("highest test accuracy over the epochs: "),
        "{stdout}"
    );
    let (ok, stdout, stderr) = arena(&[&common[..], &["--json"]].concat());
    assert!(ok, "{stderr}");
    let each = json(&stdout)["test_accuracy_each_epoch"].clone();
    assert_eq!(each.as_array().map(Vec::len), Some(3), "{stdout}");
    let (ok, _, stderr) = arena(&["train", csv, "--test-each-epoch"]);
    assert!(!ok && stderr.contains("--test"), "{stderr}");
}

/// The sum of a confusion matrix in JSON.
fn samples_in(confusion: &serde_json::Value) -> u64 {
    let rows = confusion.as_array().expect("a confusion matrix");
    rows.iter()
        .flat_map(|row| row.as_array().expect("a matrix row"))
        .map(|n| n.as_u64().expect("a count"))
        .sum()
}

/// Mirror and half-turn copies of Hex rows are training data only: `train` tests on the
/// test file's rows as they are, and `cv` on each fold's rows, while training on four
/// rows for each.
#[test]
fn training_copies_of_hex_rows_stay_out_of_the_tests() {
    let dir = Scratch::new();
    let csv = &dir.file("hex.csv", |p| write_hex_csv(p, 200));
    // The same machine and encoder for every command.
    let with_copies = |command: &[&str]| {
        let machine = [
            "--model",
            "coalesced",
            "--clauses",
            "20",
            "--T",
            "10",
            "--json",
        ];
        let encoder = ["--encoder", "hex-connection:fold=on,rotate=on"];
        arena(&[command, &encoder, &machine].concat())
    };
    let (ok, stdout, stderr) = with_copies(&["train", csv, "--test", csv, "--epochs", "2"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("training on 800 samples"), "{stderr}");
    assert_eq!(samples_in(&json(&stdout)["test"]["confusion"]), 200);
    let (ok, stdout, stderr) = with_copies(&["cv", csv, "--k", "4", "--epochs", "2"]);
    assert!(ok, "{stderr}");
    assert_eq!(samples_in(&json(&stdout)["pooled"]["confusion"]), 200);
    // Adaptive epochs hold out a tenth of the file's rows (20) with all their copies, and
    // validate on those rows as they are: every accuracy is a multiple of 1/20.
    let (ok, stdout, stderr) = with_copies(&["train", csv, "--adaptive", "--max-epochs", "3"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("training on 800 samples"), "{stderr}");
    let validation = json(&stdout)["validation_accuracy"].clone();
    let validation = validation.as_array().expect("validation accuracies");
    assert!(!validation.is_empty(), "{stdout}");
    for accuracy in validation {
        let right = accuracy.as_f64().unwrap() * 20.0;
        assert!((right - right.round()).abs() < 1e-9, "{stdout}");
    }
}

/// The rule CSV with a fifth of its labels replaced by random ones, so that accuracy moves
/// from epoch to epoch.
fn write_noisy_rule_csv(path: &Path, rows: usize) {
    use rand::Rng as _;
    write_rule_csv(path, rows);
    let mut rng = tmbot::rng::seeded(9);
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let mut noisy = format!("{}\n", lines.next().unwrap());
    for line in lines {
        let (features, label) = line.rsplit_once(',').unwrap();
        let label = if rng.random_range(0..5) == 0 {
            rng.random_range(0..3).to_string()
        } else {
            label.to_string()
        };
        noisy.push_str(&format!("{features},{label}\n"));
    }
    std::fs::write(path, noisy).unwrap();
}

#[test]
fn keep_best_keeps_the_machine_of_the_best_validated_epoch() {
    let dir = Scratch::new();
    let csv = &dir.file("noisy.csv", |p| write_noisy_rule_csv(p, 400));
    let args = [
        "train",
        csv,
        "--test",
        csv,
        "--test-each-epoch",
        "--adaptive",
        "--keep-best",
        "--max-epochs",
        "30",
        "--clauses",
        "12",
        "--T",
        "6",
        "--s",
        "3",
        "--seed",
        "1",
        "--json",
    ];
    let (ok, stdout, stderr) = arena(&args);
    assert!(ok, "{stderr}");
    let out = json(&stdout);
    let floats = |key: &str| -> Vec<f64> {
        out[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let validation = floats("validation_accuracy");
    let each_epoch = floats("test_accuracy_each_epoch");
    let epochs = validation.len();
    // The first of the best validation accuracies.
    let best = (0..epochs).fold(0, |b, i| if validation[i] > validation[b] { i } else { b });
    let kept = out["kept_epoch"].as_u64().unwrap() as usize;
    assert_eq!(kept, best + 1, "{stdout}");
    assert!(
        kept < epochs,
        "the run must keep an earlier epoch to test anything: {stdout}"
    );
    // The machine scored after training is the kept epoch's, and the last one is reported.
    let test = out["test"]["accuracy"].as_f64().unwrap();
    let last = out["last_epoch_test_accuracy"].as_f64().unwrap();
    assert_eq!(test, each_epoch[kept - 1], "{stdout}");
    assert_eq!(last, each_epoch[epochs - 1], "{stdout}");
    assert_ne!(
        test, last,
        "the kept and the last machine must differ here: {stdout}"
    );
    assert!(stderr.contains(&format!("kept the machine of epoch {kept} of {epochs}")));
    // Without --adaptive there is nothing to choose from.
    let (ok, _, stderr) = arena(&["train", csv, "--keep-best"]);
    assert!(!ok && stderr.contains("--adaptive"), "{stderr}");
    // arena cv journals the kept epoch and reports the last epochs' mean beside.
    let journal = &dir.path("cv.jsonl");
    let (ok, stdout, stderr) = cv_rule(
        csv,
        journal,
        &["--adaptive", "--keep-best", "--max-epochs", "25", "--json"],
    );
    assert!(ok, "{stderr}");
    let summary = json(&stdout);
    assert_eq!(
        summary["fold_kept_epochs"].as_array().map(Vec::len),
        Some(3)
    );
    assert!(summary["last_epoch_mean_accuracy"].is_f64(), "{stdout}");
    let text = std::fs::read_to_string(journal).unwrap();
    assert!(
        text.lines()
            .skip(1)
            .all(|l| json(l)["kept"]["epoch"].is_u64()),
        "{text}"
    );
}

#[test]
fn adaptive_epochs_read_the_test_set_on_request_as_the_thesis_did() {
    let dir = Scratch::new();
    let train = &dir.file("train.csv", |p| write_noisy_rule_csv(p, 300));
    let test = &dir.file("test.csv", |p| write_noisy_rule_csv(p, 100));
    let rule = [
        "--clauses",
        "12",
        "--T",
        "6",
        "--s",
        "3",
        "--max-epochs",
        "60",
        "--json",
    ];
    let run = |extra: &[&str]| {
        let (ok, stdout, stderr) = arena(&[&["train", train, "--adaptive"], extra, &rule].concat());
        assert!(ok, "{stderr}");
        json(&stdout)
    };
    let on_test = run(&["--test", test, "--adaptive-on", "test"]);
    // The rule read the test accuracies, epoch by epoch, and stopped by them.
    let read = on_test["validation_accuracy"].clone();
    assert_eq!(read, on_test["test_accuracy_each_epoch"], "{on_test}");
    let epochs = on_test["epochs"].as_u64().unwrap() as usize;
    assert_eq!(read.as_array().map(Vec::len), Some(epochs));
    assert!(
        (21..60).contains(&epochs),
        "the rule must stop it: {on_test}"
    );
    // The default holds a validation part out instead: other accuracies, another machine.
    let held_out = run(&["--test", test]);
    assert_ne!(held_out["validation_accuracy"], read, "{held_out}");
    let (ok, _, stderr) = arena(
        &[
            &["train", train, "--adaptive", "--adaptive-on", "test"][..],
            &rule,
        ]
        .concat(),
    );
    assert!(
        !ok && stderr.contains("--adaptive-on test needs a test set"),
        "{stderr}"
    );
    let (ok, _, stderr) = arena(&["train", train, "--adaptive-on", "test", "--test", test]);
    assert!(!ok && stderr.contains("--adaptive"), "{stderr}");
    // arena cv reads each test fold.
    let journal = &dir.path("cv.jsonl");
    let (ok, stdout, stderr) = cv_rule(
        train,
        journal,
        &[
            "--adaptive",
            "--adaptive-on",
            "test",
            "--max-epochs",
            "25",
            "--json",
        ],
    );
    assert!(ok, "{stderr}");
    assert_eq!(json(&stdout)["folds"], 3, "{stdout}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_in_cv_prints_the_summary_of_the_finished_folds() {
    use std::io::Read as _;
    let dir = Scratch::new();
    let csv = &dir.file("rule.csv", |p| write_rule_csv(p, 300));
    let (journal, log) = (&dir.path("cv.jsonl"), &dir.path("stderr.txt"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["cv", csv, "--k", "3", "--journal", journal])
        .args([
            "--clauses",
            "20",
            "--T",
            "10",
            "--s",
            "3",
            "--epochs",
            "3000",
        ])
        .stdout(std::process::Stdio::piped())
        // A line per epoch: a file, since a full pipe would block arena.
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap();
    // Interrupt once the first fold is in the journal (the setup line and one fold).
    while std::fs::read_to_string(journal).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "cv ended before fold 1"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: kill with a valid signal to the child's own process id.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let stderr = std::fs::read_to_string(log).unwrap();
    assert!(!status.success(), "{stderr}");
    assert!(
        stdout.contains("mean accuracy over 1 folds"),
        "{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("interrupted after 1 of 3 folds"),
        "{stderr}"
    );
    assert!(stderr.contains("--resume"), "{stderr}");
}

#[test]
fn data_and_fold_errors_are_clear() {
    let dir = Scratch::new();
    let bad = &dir.file("bad.csv", |p| {
        std::fs::write(p, "a,b,y\n1,0,0\n0,1,1\n\n1,1,2\n0,0,7\n1,1,1\n").unwrap()
    });
    let (ok, _, stderr) = arena(&["train", bad, "--epochs", "1"]);
    assert!(!ok, "{stderr}");
    assert!(stderr.contains("bad.csv: line 6: label 7"), "{stderr}");
    let (ok, _, stderr) = arena(&["train", bad, "--epochs", "1", "--classes", "3"]);
    assert!(!ok && stderr.contains("--classes 3"), "{stderr}");
    let a = &dir.file("a.csv", |p| write_rule_csv(p, 30));
    let b = &dir.file("b.csv", |p| std::fs::write(p, "1,0,1\n0,1,0\n").unwrap());
    let (ok, _, stderr) = arena(&["cv", a, "--only", "0"]);
    assert!(!ok && stderr.contains("--only 0"), "{stderr}");
    let (ok, _, stderr) = arena(&["cv", a, a, "--k", "5"]);
    assert!(
        !ok && stderr.contains("--k 5") && stderr.contains("each file is a fold"),
        "{stderr}"
    );
    let (ok, _, stderr) = arena(&["cv", a, b]);
    assert!(!ok && stderr.contains("b.csv"), "{stderr}");
}

#[test]
fn exported_model_plays_through_eval_tm() {
    use rand::Rng as _;
    let dir = Scratch::new();
    // Random checkers-planes rows without a header: the model is poor, but it must load and
    // play.
    let csv = &dir.file("planes.csv", |p| {
        let mut rng = tmbot::rng::seeded(2);
        let mut rows = String::new();
        for _ in 0..60 {
            for _ in 0..128 {
                rows.push_str(if rng.random_range(0..8) == 0 {
                    "1,"
                } else {
                    "0,"
                });
            }
            rows.push_str(&format!("{}\n", rng.random_range(0..3)));
        }
        std::fs::write(p, rows).unwrap();
    });
    let (model, out) = (&dir.path("m.tm"), &dir.path("m.tmi"));
    let (ok, _, stderr) = arena(&[
        "train",
        csv,
        "--encoder",
        "checkers-planes",
        "--clauses",
        "10",
        "--epochs",
        "1",
        "-o",
        model,
    ]);
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = arena(&["export", model, "--out", out]);
    assert!(ok, "{stderr}");
    let player = format!("greedy:eval=tm:{out}");
    let (ok, stdout, stderr) = arena(&[
        "match",
        "--game",
        "checkers",
        "--a",
        &player,
        "--b",
        "random",
        "--games",
        "1",
        "--max-plies",
        "20",
    ]);
    assert!(ok, "{stdout}\n{stderr}");
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_arena_quietly() {
    use std::io::BufRead as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["perft", "checkers", "--depth", "12"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("perft(1) = 7"), "{first}");
    // The reader is gone: the next line arena prints meets a closed pipe.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

#[test]
fn small_commands_behave() {
    let (ok, stdout, stderr) = arena(&["perft", "checkers", "--depth", "0"]);
    assert!(
        ok && stdout.starts_with("perft(0) = 1 "),
        "{stdout}{stderr}"
    );
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let (_, help, _) = arena(&["perft", "--help"]);
    assert!(!help.to_lowercase().contains("hex"), "{help}");
    let (_, help, _) = arena(&["bench", "tm", "--help"]);
    assert!(!help.contains(env!("CARGO_MANIFEST_DIR")), "{help}");
    let dir = Scratch::new();
    let out = &dir.path("");
    // A bench of one epoch on four clauses, writing into `dir`, with `args` besides.
    let bench = |args: &[&str]| {
        let common = [
            "bench",
            "tm",
            "--clauses",
            "4",
            "--epochs",
            "1",
            "--out-dir",
            out,
        ];
        arena(&[&common[..], args].concat())
    };
    let (ok, stdout, stderr) = bench(&[
        "--train-rows",
        "20",
        "--test-rows",
        "4",
        "--board",
        "3",
        "--inference-positions",
        "4",
        "--runs",
        "tmbot:coalesced:1,tmbot:per-class:1,tmbot:coalesced:2",
        "--repeats",
        "2",
    ]);
    assert!(ok, "{stderr}");
    // Two interleaved rounds of the three runs, then the table and the thread ratio.
    assert_eq!(stderr.matches("round 2: ").count(), 3, "{stderr}");
    assert!(stdout.contains("CPU s: median [range]"), "{stdout}");
    assert!(
        stdout.contains("tmbot coalesced 2t speed-up over tmbot coalesced 1t"),
        "{stdout}"
    );
    assert!(stdout.contains("tmbot per-class 1t inference"), "{stdout}");
    let mut words = stdout.split(|c: char| !c.is_alphanumeric());
    assert!(!words.any(|w| w == "inf" || w == "NaN"), "{stdout}");
    // Given files are written under their own names: the generated games stay as they are.
    let (train, test) = (&dir.path("train.csv"), &dir.path("test.csv"));
    let generated = std::fs::read(train).unwrap();
    let (ok, _, stderr) = bench(&[
        "--train",
        test,
        "--test",
        test,
        "--inference-positions",
        "0",
        "--runs",
        "tmbot:coalesced:1",
        "--repeats",
        "1",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(std::fs::read(train).unwrap(), generated);
    let given = std::fs::read(dir.path("given-train.csv")).unwrap();
    assert_eq!(given, std::fs::read(dir.path("given-test.csv")).unwrap());
}

#[test]
fn replay_fails_on_other_variants_empty_files_and_binary_bytes() {
    let dir = Scratch::new();
    let pdn = |name: &str, bytes: &[u8]| dir.file(name, |p| std::fs::write(p, bytes).unwrap());
    let english = pdn("en.pdn", b"[GameType \"21\"]\n1. 11-15 23-19 *\n");
    let (ok, stdout, stderr) = arena(&["replay", &english]);
    assert!(ok, "{stdout}{stderr}");
    let russian = pdn("ru.pdn", b"[GameType \"20\"]\n1. 11-15 23-19 *\n");
    let (ok, stdout, _) = arena(&["replay", &russian]);
    assert!(!ok && stdout.contains("not English checkers"), "{stdout}");
    let empty = pdn("empty.pdn", b"");
    let (ok, _, stderr) = arena(&["replay", &empty]);
    assert!(!ok && stderr.contains("no game"), "{stderr}");
    let binary = pdn("bin.pdn", b"[Event \"x\"]\n1. 11-15\x1b[2J\xff 23-19 *\n");
    let (ok, stdout, _) = arena(&["replay", &binary]);
    assert!(!ok, "{stdout}");
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{fffd}'),
        "{stdout}"
    );
}

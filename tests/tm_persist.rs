//! Model files and inference exports: round trips, older versions, and clear errors on
//! damaged, truncated or foreign files.

use rand::RngCore;
use tmbot::features::patches::PatchGrid;
use tmbot::rng::seeded;
use tmbot::tm::persist::{
    export_compiled, inference_bytes, load_inference, read_inference, save_inference, Machine,
    ModelError, SavedModel,
};
use tmbot::tm::{CoalescedTm, ConvTm, Dataset, MultiClassTm, Params};

fn trained() -> (SavedModel, Dataset) {
    let mut rng = seeded(3);
    let mut data = Dataset::new(40);
    for _ in 0..300 {
        let x: Vec<u8> = (0..40).map(|_| (rng.next_u32() & 1) as u8).collect();
        let y = (x[0] & x[3]) as u32 + x[7] as u32;
        data.push(&x, y);
    }
    let params = Params {
        clauses: 150,
        threshold: 12,
        specificity: 4.0,
        state_bits: 16,
        weighted: true,
        literal_budget: Some(9),
        seed: 9,
        ..Params::default()
    };
    let mut tm = MultiClassTm::new(params, 40, 3).unwrap();
    tm.fit_epoch(&data);
    let model = SavedModel {
        encoder: "csv".into(),
        feature_names: data.feature_names.clone(),
        machine: Machine::PerClass(tm),
    };
    (model, data)
}

fn per_class(model: &SavedModel) -> &MultiClassTm {
    match &model.machine {
        Machine::PerClass(tm) => tm,
        other => panic!("expected a per-class machine, got {other:?}"),
    }
}

#[test]
fn round_trip_keeps_everything() {
    let (model, data) = trained();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.tm");
    model.save(&path).unwrap();
    let back = SavedModel::load(&path).unwrap();
    assert_eq!(back.encoder, "csv");
    assert_eq!(back.feature_names, model.feature_names);
    assert_eq!(back.machine.params(), model.machine.params());
    let (a, b) = (per_class(&back), per_class(&model));
    for c in 0..3 {
        for j in 0..150 {
            assert_eq!(a.weight(c, j), b.weight(c, j));
            for l in 0..80 {
                assert_eq!(a.state(c, j, l), b.state(c, j, l));
            }
        }
    }
    for i in 0..data.len() {
        assert_eq!(
            back.machine.class_sums(data.row(i)),
            model.machine.class_sums(data.row(i))
        );
    }
    assert_eq!(back.to_bytes(), model.to_bytes());
}

fn message(result: Result<SavedModel, ModelError>) -> String {
    result.expect_err("must fail").to_string()
}

#[test]
fn damaged_files_are_clear_errors() {
    let (model, _) = trained();
    let bytes = model.to_bytes();
    // Every single-byte corruption is caught (magic, version or checksum).
    for at in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x20;
        let e = message(SavedModel::from_bytes(&bad, "m.tm"));
        assert!(e.starts_with("m.tm: "), "{e}");
    }
    let mut bad = bytes.clone();
    bad[100] ^= 1;
    assert!(message(SavedModel::from_bytes(&bad, "m.tm")).contains("checksum"));
    // Truncations.
    for len in [0, 5, 11, 20, bytes.len() / 2, bytes.len() - 1] {
        let e = message(SavedModel::from_bytes(&bytes[..len], "m.tm"));
        assert!(
            e.contains("truncated") || e.contains("checksum") || e.contains("magic"),
            "{len}: {e}"
        );
    }
    // Foreign and future files.
    assert!(message(SavedModel::from_bytes(b"PK\x03\x04 zip", "m.tm")).contains("magic"));
    let mut future = bytes.clone();
    future[8] = 99;
    assert!(message(SavedModel::from_bytes(&future, "m.tm")).contains("version 99 is newer"));
    let mut ancient = bytes.clone();
    ancient[8] = 0;
    assert!(message(SavedModel::from_bytes(&ancient, "m.tm")).contains("version 0 is older"));
    let missing = SavedModel::load(std::path::Path::new("/nonexistent/m.tm"));
    assert!(message(missing).contains("/nonexistent/m.tm"));
}

/// `bytes` with the format version replaced and the checksum recomputed (FNV-1a 64).
fn with_version(bytes: &[u8], version: u32) -> Vec<u8> {
    let mut out = bytes[..bytes.len() - 8].to_vec();
    out[8..12].copy_from_slice(&version.to_le_bytes());
    let sum = out.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

#[test]
fn version_1_files_still_load() {
    let (model, data) = trained();
    let bytes = model.to_bytes();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 2);
    let old = SavedModel::from_bytes(&with_version(&bytes, 1), "old.tm").unwrap();
    for i in 0..data.len() {
        assert_eq!(
            old.machine.class_sums(data.row(i)),
            model.machine.class_sums(data.row(i))
        );
    }
    // A version 1 file cannot hold a convolutional machine.
    let (conv, _) = trained_conv();
    let e = message(SavedModel::from_bytes(
        &with_version(&conv.to_bytes(), 1),
        "c.tm",
    ));
    assert!(
        e.contains("convolutional") && e.contains("version 1"),
        "{e}"
    );
}

fn trained_conv() -> (SavedModel, Dataset) {
    let mut rng = seeded(11);
    let grid = PatchGrid::new(5, 4, 2, 2).unwrap();
    let mut data = Dataset::new(grid.input_features());
    for _ in 0..200 {
        let x: Vec<u8> = (0..40).map(|_| (rng.next_u32() % 4 == 0) as u8).collect();
        let y = (x[0] | x[27]) as u32 + (x[13] & x[33]) as u32;
        data.push(&x, y);
    }
    let params = Params {
        clauses: 30,
        threshold: 10,
        specificity: 3.0,
        weighted: true,
        seed: 2,
        ..Params::default()
    };
    let mut tm = ConvTm::new(params, grid, 3).unwrap();
    tm.fit_epoch(&data);
    tm.fit_epoch(&data);
    let model = SavedModel {
        encoder: "csv".into(),
        feature_names: data.feature_names.clone(),
        machine: Machine::Conv(tm),
    };
    (model, data)
}

#[test]
fn convolutional_round_trip_and_damage() {
    let (model, data) = trained_conv();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.tm");
    model.save(&path).unwrap();
    let back = SavedModel::load(&path).unwrap();
    let (Machine::Conv(a), Machine::Conv(b)) = (&back.machine, &model.machine) else {
        panic!("expected convolutional machines");
    };
    assert_eq!(a.grid(), b.grid());
    assert_eq!(a.params(), b.params());
    let literals = a.patch_layout().literals();
    let mut weights_above_one = 0;
    for c in 0..3 {
        for j in 0..30 {
            assert_eq!(a.weight(c, j), b.weight(c, j));
            weights_above_one += (a.weight(c, j) > 1) as usize;
            for l in 0..literals {
                assert_eq!(a.state(c, j, l), b.state(c, j, l));
            }
        }
    }
    assert!(weights_above_one > 0, "training moved no weight");
    for i in 0..data.len() {
        assert_eq!(a.class_sums(data.row(i)), b.class_sums(data.row(i)));
    }
    assert_eq!(back.to_bytes(), model.to_bytes());
    let bytes = model.to_bytes();
    for at in (0..bytes.len()).step_by(53) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x04;
        assert!(SavedModel::from_bytes(&bad, "c.tm").is_err(), "byte {at}");
    }
    for len in [10, 60, bytes.len() - 9] {
        assert!(SavedModel::from_bytes(&bytes[..len], "c.tm").is_err());
    }
}

#[test]
fn inference_export_predicts_like_the_model() {
    let (model, data) = trained();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.tmi");
    save_inference(&model, &path).unwrap();
    let exported = load_inference(&path).unwrap();
    let tm = per_class(&model);
    let sums = exported.class_sums(&data);
    for i in 0..data.len() {
        assert_eq!(
            sums[i * 3..(i + 1) * 3],
            tm.class_sums(data.row(i))[..],
            "sample {i}"
        );
    }
    let predicted = exported.predict(&data);
    for (i, &p) in predicted.iter().enumerate() {
        assert_eq!(p, tm.predict(data.row(i)));
    }
    // Far smaller than the automata states it came from.
    let bytes = inference_bytes(&model).unwrap();
    assert!(bytes.len() * 4 < model.to_bytes().len());
    // Damage is reported, never a panic.
    for at in (0..bytes.len()).step_by(31).chain([bytes.len() - 1]) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x10;
        let e = read_inference(&bad, "m.tmi")
            .expect_err("must fail")
            .to_string();
        assert!(e.starts_with("m.tmi: "), "{e}");
    }
    assert!(read_inference(&bytes[..20], "m.tmi").is_err());
    let model_file = read_inference(&model.to_bytes(), "m.tm").expect_err("not an export");
    assert!(model_file.to_string().contains("magic"));
    let (conv, _) = trained_conv();
    assert!(inference_bytes(&conv)
        .unwrap_err()
        .contains("convolutional"));
}

#[test]
fn coalesced_export_round_trips() {
    let (_, data) = trained();
    let params = Params {
        clauses: 64,
        threshold: 12,
        specificity: 4.0,
        seed: 6,
        ..Params::default()
    };
    let mut tm = CoalescedTm::new(params, 40, 3).unwrap();
    tm.fit_epoch(&data);
    let compiled = tm.compile();
    assert!(!compiled.clauses().is_empty());
    let bytes = export_compiled(&compiled, 40, 12);
    let back = read_inference(&bytes, "c.tmi").unwrap();
    assert_eq!(back.clauses(), compiled.clauses());
    assert_eq!(back.class_sums(&data), compiled.class_sums(&data));
    // The clamp travels with the file: T = 1 gives different sums for this model.
    let clamped = read_inference(&export_compiled(&compiled, 40, 1), "c.tmi").unwrap();
    assert!(clamped
        .class_sums(&data)
        .iter()
        .all(|s| (-1..=1).contains(s)));
    assert_ne!(clamped.class_sums(&data), compiled.class_sums(&data));
}

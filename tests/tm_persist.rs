//! Model files: round trips, and clear errors on damaged, truncated or foreign files.

use rand::RngCore;
use tmbot::rng::seeded;
use tmbot::tm::persist::{ModelError, SavedModel};
use tmbot::tm::{Dataset, MultiClassTm, Params};

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
        machine: tm,
    };
    (model, data)
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
    for c in 0..3 {
        for j in 0..150 {
            assert_eq!(back.machine.weight(c, j), model.machine.weight(c, j));
            for l in 0..80 {
                assert_eq!(back.machine.state(c, j, l), model.machine.state(c, j, l));
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
    assert!(message(SavedModel::from_bytes(&future, "m.tm")).contains("version 99"));
    let missing = SavedModel::load(std::path::Path::new("/nonexistent/m.tm"));
    assert!(message(missing).contains("/nonexistent/m.tm"));
}

//! Model files and inference exports: round trips, older versions, and clear errors on
//! damaged, truncated or foreign files.

use rand::RngCore;
use tmbot::rng::seeded;
use tmbot::tm::patches::PatchGrid;
use tmbot::tm::persist::{
    export_compiled, inference_bytes, load_inference, read_export, read_inference, save_inference,
    Machine, ModelError, SavedModel,
};
use tmbot::tm::{CoalescedTm, CoalescedUpdate, ConvTm, Dataset, MultiClassTm, Params};

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

/// The signed weights of [`Machine::weight`] are the votes: summed over the clauses that
/// fire on a sample (every included literal true) and clamped to T, they give the class
/// sums. Machines whose clauses read the input features directly (not patches).
fn assert_weights_are_votes(machine: &Machine, data: &Dataset) {
    let (f, t) = (machine.features(), machine.params().threshold);
    for i in 0..data.len() {
        let holds = |l: usize| {
            if l < f {
                data.value(i, l)
            } else {
                !data.value(i, l - f)
            }
        };
        let sums: Vec<i32> = (0..machine.classes())
            .map(|c| {
                (0..machine.params().clauses)
                    .filter(|&j| {
                        let literals = machine.clause_literals(c, j);
                        !literals.is_empty() && literals.into_iter().all(holds)
                    })
                    .map(|j| machine.weight(c, j))
                    .sum::<i32>()
                    .clamp(-t, t)
            })
            .collect();
        assert_eq!(sums, machine.class_sums(data.row(i)), "sample {i}");
    }
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
    assert_weights_are_votes(&back.machine, &data);
}

fn message(result: Result<SavedModel, ModelError>) -> String {
    result.expect_err("must fail").to_string()
}

/// Every single-byte corruption (one byte in `step` and the last) and every truncation of
/// the saved `bytes` is a clear error naming the file, never a panic.
fn assert_damage_is_reported(bytes: &[u8], step: usize) {
    for at in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        let mut bad = bytes.to_vec();
        bad[at] ^= 0x20;
        let e = message(SavedModel::from_bytes(&bad, "m.tm"));
        assert!(e.starts_with("m.tm: "), "byte {at}: {e}");
    }
    let mut bad = bytes.to_vec();
    bad[100] ^= 1;
    assert!(message(SavedModel::from_bytes(&bad, "m.tm")).contains("checksum"));
    for len in [
        0,
        5,
        11,
        20,
        60,
        bytes.len() / 2,
        bytes.len() - 9,
        bytes.len() - 1,
    ] {
        let e = message(SavedModel::from_bytes(&bytes[..len], "m.tm"));
        assert!(
            e.contains("truncated") || e.contains("checksum") || e.contains("magic"),
            "{len}: {e}"
        );
    }
}

#[test]
fn damaged_files_are_clear_errors() {
    let (model, _) = trained();
    let bytes = model.to_bytes();
    assert_damage_is_reported(&bytes, 97);
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

/// `bytes` with `edit` applied to the part before the checksum, and the checksum recomputed
/// (FNV-1a 64).
fn rechecksummed(bytes: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = bytes[..bytes.len() - 8].to_vec();
    edit(&mut out);
    let sum = out.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// `bytes` with the format version replaced.
fn with_version(bytes: &[u8], version: u32) -> Vec<u8> {
    rechecksummed(bytes, |b| b[8..12].copy_from_slice(&version.to_le_bytes()))
}

/// Where the coalesced update's byte sits: after the magic, version, kind and the
/// hyper-parameters before it (8 + 4 + 1 + 8 + 4 + 8 + 4 + 1 + 1 + 4 + 8 + 8 + 8 bytes).
const UPDATE_BYTE: usize = 67;

/// `bytes` (a version 3 file) as the version 2 file of the same machine: without the
/// coalesced update's byte.
fn as_version_2(bytes: &[u8]) -> Vec<u8> {
    rechecksummed(bytes, |b| {
        b[8..12].copy_from_slice(&2u32.to_le_bytes());
        b.remove(UPDATE_BYTE);
    })
}

/// `bytes` with the machine kind replaced.
fn with_kind(bytes: &[u8], kind: u8) -> Vec<u8> {
    rechecksummed(bytes, |b| b[12] = kind)
}

#[test]
fn version_1_and_2_files_still_load() {
    let (model, data) = trained();
    let bytes = model.to_bytes();
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 3);
    for version in [1, 2] {
        let old_bytes = with_version(&as_version_2(&bytes), version);
        let old = SavedModel::from_bytes(&old_bytes, "old.tm").unwrap();
        let joint = Params {
            coalesced_update: CoalescedUpdate::Joint,
            ..model.machine.params().clone()
        };
        assert_eq!(old.machine.params(), &joint, "version {version}");
        for i in 0..data.len() {
            assert_eq!(
                old.machine.class_sums(data.row(i)),
                model.machine.class_sums(data.row(i))
            );
        }
    }
    // A version 2 coalesced file is a machine of the joint update.
    let (coalesced, data) = trained_coalesced(CoalescedUpdate::Joint);
    let old = SavedModel::from_bytes(&as_version_2(&coalesced.to_bytes()), "k.tm").unwrap();
    assert_eq!(old.machine.params(), coalesced.machine.params());
    for i in 0..data.len() {
        assert_eq!(
            old.machine.class_sums(data.row(i)),
            coalesced.machine.class_sums(data.row(i))
        );
    }
    // A version 1 file cannot hold a convolutional machine.
    let (conv, _) = trained_conv();
    let e = message(SavedModel::from_bytes(
        &with_version(&as_version_2(&conv.to_bytes()), 1),
        "c.tm",
    ));
    assert!(
        e.contains("convolutional") && e.contains("version 1"),
        "{e}"
    );
    // Nor a coalesced one.
    let (coalesced, _) = trained_coalesced(CoalescedUpdate::Joint);
    let e = message(SavedModel::from_bytes(
        &with_version(&as_version_2(&coalesced.to_bytes()), 1),
        "k.tm",
    ));
    assert!(e.contains("coalesced") && e.contains("version 1"), "{e}");
}

fn trained_conv() -> (SavedModel, Dataset) {
    let mut rng = seeded(11);
    let grid = PatchGrid::new(5, 4, 2, 2).unwrap();
    let mut data = Dataset::new(grid.input_features());
    for _ in 0..200 {
        let x: Vec<u8> = (0..40)
            .map(|_| rng.next_u32().is_multiple_of(4) as u8)
            .collect();
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
    assert_damage_is_reported(&model.to_bytes(), 53);
}

fn trained_coalesced(coalesced_update: CoalescedUpdate) -> (SavedModel, Dataset) {
    let (_, data) = trained();
    // Two blocks of the pool (128 + 22 clauses).
    let params = Params {
        clauses: 150,
        threshold: 12,
        specificity: 4.0,
        state_bits: 10,
        literal_budget: Some(9),
        coalesced_update,
        seed: 6,
        ..Params::default()
    };
    let mut tm = CoalescedTm::new(params, 40, 3).unwrap();
    tm.fit_epoch(&data);
    tm.fit_epoch(&data);
    let model = SavedModel {
        encoder: "csv".into(),
        feature_names: data.feature_names.clone(),
        machine: Machine::Coalesced(tm),
    };
    (model, data)
}

fn coalesced(model: &SavedModel) -> &CoalescedTm {
    match &model.machine {
        Machine::Coalesced(tm) => tm,
        other => panic!("expected a coalesced machine, got {other:?}"),
    }
}

#[test]
fn coalesced_round_trip_keeps_everything() {
    for update in [CoalescedUpdate::Joint, CoalescedUpdate::Sequential] {
        coalesced_round_trip(update);
    }
}

fn coalesced_round_trip(update: CoalescedUpdate) {
    let (model, data) = trained_coalesced(update);
    assert_eq!(model.machine.params().coalesced_update, update);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.tm");
    model.save(&path).unwrap();
    let back = SavedModel::load(&path).unwrap();
    assert_eq!(back.feature_names, model.feature_names);
    assert_eq!(back.machine.params(), model.machine.params());
    assert_eq!((back.machine.features(), back.machine.classes()), (40, 3));
    let (a, b) = (coalesced(&back), coalesced(&model));
    let (mut negative, mut heavy) = (0, 0);
    for j in 0..150 {
        for c in 0..3 {
            assert_eq!(a.weight(j, c), b.weight(j, c));
            assert_eq!(back.machine.weight(c, j), b.weight(j, c));
            negative += (a.weight(j, c) < 0) as usize;
            heavy += (a.weight(j, c).abs() > 1) as usize;
            assert_eq!(back.machine.clause_literals(c, j), b.clause_literals(j));
        }
        for l in 0..80 {
            assert_eq!(a.state(j, l), b.state(j, l));
        }
    }
    assert!(negative > 0 && heavy > 0, "training moved no weight");
    // The banks' class sums match the compiled include masks, before and after the trip.
    let compiled = b.compile().class_sums(&data);
    for i in 0..data.len() {
        let sums = back.machine.class_sums(data.row(i));
        assert_eq!(sums, model.machine.class_sums(data.row(i)), "sample {i}");
        assert_eq!(sums[..], compiled[i * 3..(i + 1) * 3], "sample {i}");
    }
    assert_eq!(back.machine.predict_all(&data), b.compile().predict(&data));
    assert_weights_are_votes(&back.machine, &data);
    assert_eq!(back.to_bytes(), model.to_bytes());
    // The inference export predicts as the model.
    let exported = read_inference(&inference_bytes(&back).unwrap(), "k.tmi").unwrap();
    assert_eq!(exported.class_sums(&data), compiled);
    // ...and names its encoder, so an evaluator needs no more than the file.
    let export = read_export(&inference_bytes(&back).unwrap(), "k.tmi").unwrap();
    assert_eq!(export.encoder.as_deref(), Some(model.encoder.as_str()));
}

#[test]
fn damaged_coalesced_files_are_clear_errors() {
    let (model, _) = trained_coalesced(CoalescedUpdate::Sequential);
    let bytes = model.to_bytes();
    assert_eq!(bytes[12], 3, "machine kind");
    assert_eq!(bytes[UPDATE_BYTE], 1, "the sequential update");
    let unknown = rechecksummed(&bytes, |b| b[UPDATE_BYTE] = 7);
    let e = message(SavedModel::from_bytes(&unknown, "m.tm"));
    assert!(e.contains("unknown coalesced update 7"), "{e}");
    assert_damage_is_reported(&bytes, 41);
    // A kind that does not match the clause data is caught by the size check.
    let (per_class, _) = trained();
    for wrong in [with_kind(&bytes, 1), with_kind(&per_class.to_bytes(), 3)] {
        let e = message(SavedModel::from_bytes(&wrong, "m.tm"));
        assert!(e.contains("bytes of clause state"), "{e}");
    }
    let e = message(SavedModel::from_bytes(&with_kind(&bytes, 4), "m.tm"));
    assert!(e.contains("unknown machine kind 4"), "{e}");
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
    let bytes = export_compiled(&compiled, 40, 12, "csv");
    let back = read_inference(&bytes, "c.tmi").unwrap();
    assert_eq!(back.clauses(), compiled.clauses());
    assert_eq!(back.class_sums(&data), compiled.class_sums(&data));
    // The clamp travels with the file: T = 1 gives different sums for this model.
    let clamped = read_inference(&export_compiled(&compiled, 40, 1, "csv"), "c.tmi").unwrap();
    assert!(clamped
        .class_sums(&data)
        .iter()
        .all(|s| (-1..=1).contains(s)));
    assert_ne!(clamped.class_sums(&data), compiled.class_sums(&data));
}

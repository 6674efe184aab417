//! The Tsetlin Machine learns: noisy XOR, and seed 001's checkers folds end to end.

use rand::RngCore;
use tmbot::rng::seeded;
use tmbot::tm::{CoalescedTm, Dataset, MultiClassTm, Params};

/// XOR of the first two of 12 random bits; `noise` of the labels flipped.
fn noisy_xor(seed: u64, n: usize, noise: f64) -> Dataset {
    let mut rng = seeded(seed);
    let mut data = Dataset::new(12);
    for _ in 0..n {
        let x: Vec<u8> = (0..12).map(|_| (rng.next_u32() & 1) as u8).collect();
        let mut y = (x[0] ^ x[1]) as u32;
        if (rng.next_u64() as f64 / u64::MAX as f64) < noise {
            y ^= 1;
        }
        data.push(&x, y);
    }
    data
}

fn accuracy(tm: &MultiClassTm, data: &Dataset) -> f64 {
    data.accuracy(&tm.compile().predict(data))
}

#[test]
fn learns_noisy_xor() {
    let train = noisy_xor(1, 5000, 0.1);
    let test = noisy_xor(2, 5000, 0.0);
    // Several seeds: the result must not hinge on a lucky one.
    for seed in 1..=3 {
        let params = Params {
            clauses: 20,
            threshold: 15,
            specificity: 3.9,
            boost_true_positive: false,
            seed,
            ..Params::default()
        };
        let mut tm = MultiClassTm::new(params, 12, 2).unwrap();
        for _ in 0..200 {
            tm.fit_epoch(&train);
        }
        let acc = accuracy(&tm, &test);
        assert!(acc >= 0.99, "seed {seed}: noisy XOR test accuracy {acc}");
    }
}

#[test]
fn coalesced_learns_noisy_xor() {
    let train = noisy_xor(1, 5000, 0.1);
    let test = noisy_xor(2, 5000, 0.0);
    // A 20-clause shared pool either learns XOR fully or, for some seeds, ends the 200
    // epochs below 99% (the pool oscillates between solutions). green-tsetlin does the same
    // on this very data with its early stop at 100% turned off: 4 of seeds 1-8 and 8 of
    // 1-16 reach 99%. At least half of the eight seeds must, with a mean of 95% or more.
    let mut accuracies = Vec::new();
    for seed in 1..=8 {
        let params = Params {
            clauses: 20,
            threshold: 15,
            specificity: 3.9,
            boost_true_positive: false,
            seed,
            ..Params::default()
        };
        let mut tm = CoalescedTm::new(params, 12, 2).unwrap();
        for _ in 0..200 {
            tm.fit_epoch(&train);
        }
        accuracies.push(test.accuracy(&tm.compile().predict(&test)));
    }
    let reached = accuracies.iter().filter(|&&a| a >= 0.99).count();
    let mean = accuracies.iter().sum::<f64>() / accuracies.len() as f64;
    assert!(
        reached >= 4 && mean >= 0.95,
        "coalesced noisy XOR accuracies {accuracies:?}"
    );
}

#[test]
fn learns_checkers_fold_zero() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/data/checkers/standard_end_10fold"
    );
    let path = |k: usize| std::path::PathBuf::from(format!("{dir}/fold{k}.csv"));
    if !path(0).exists() {
        eprintln!("skipping: {dir} is absent");
        assert!(
            std::env::var_os("TMBOT_REQUIRE_SHARED_DATA").is_none(),
            "{dir} is absent but TMBOT_REQUIRE_SHARED_DATA is set"
        );
        return;
    }
    let test = Dataset::read_csv(&path(0)).unwrap();
    let mut train = Dataset::read_csv(&path(1)).unwrap();
    for k in 2..5 {
        train.extend(&Dataset::read_csv(&path(k)).unwrap());
    }
    assert_eq!(test.features(), 128);
    // The thesis's weighted machine (19,000 clauses, T 40,000, s 9) scaled down.
    let params = Params {
        clauses: 1000,
        threshold: 2000,
        specificity: 9.0,
        weighted: true,
        seed: 1,
        ..Params::default()
    };
    let mut tm = MultiClassTm::new(params, 128, 3).unwrap();
    for _ in 0..3 {
        tm.fit_epoch(&train);
    }
    let acc = accuracy(&tm, &test);
    let majority = test.labels().iter().filter(|&&y| y == 2).count() as f64 / test.len() as f64;
    eprintln!("checkers fold 0: accuracy {acc:.4}, majority class {majority:.4}");
    assert!(
        acc > majority + 0.01,
        "accuracy {acc} vs majority {majority}"
    );
}

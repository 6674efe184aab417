//! The Tsetlin Machine learns: noisy XOR, and seed 001's checkers folds end to end, with the
//! CPU's random streams and with the GPU trainer's.

mod tm_data;

use tm_data::{checkers_fold, noisy_xor, small_thesis_params, xor_params};
use tmbot::tm::{CoalescedTm, CoalescedUpdate, Dataset, MultiClassTm, Params};

fn accuracy(tm: &MultiClassTm, data: &Dataset) -> f64 {
    data.accuracy(&tm.compile().predict(data))
}

#[test]
fn learns_noisy_xor() {
    let train = noisy_xor(1, 5000, 0.1);
    let test = noisy_xor(2, 5000, 0.0);
    // Several seeds: the result must not hinge on a lucky one.
    for seed in 1..=3 {
        let params = xor_params(seed);
        let mut tm = MultiClassTm::new(params, 12, 2).unwrap();
        for _ in 0..200 {
            tm.fit_epoch(&train);
        }
        let acc = accuracy(&tm, &test);
        assert!(acc >= 0.99, "seed {seed}: noisy XOR test accuracy {acc}");
    }
}

#[test]
fn learns_noisy_xor_with_the_gpus_draws() {
    // The GPU trainer's counter-based random numbers, on the CPU: a different stream, the
    // same learning.
    let train = noisy_xor(1, 5000, 0.1);
    let test = noisy_xor(2, 5000, 0.0);
    for seed in 1..=3 {
        let mut tm = MultiClassTm::new(xor_params(seed), 12, 2).unwrap();
        for _ in 0..200 {
            tm.fit_epoch_device_draws(&train);
        }
        let acc = accuracy(&tm, &test);
        assert!(acc >= 0.99, "seed {seed}: noisy XOR test accuracy {acc}");
    }
}

#[test]
fn coalesced_learns_noisy_xor() {
    for update in [CoalescedUpdate::Joint, CoalescedUpdate::Sequential] {
        coalesced_noisy_xor(update);
    }
}

fn coalesced_noisy_xor(coalesced_update: CoalescedUpdate) {
    let train = noisy_xor(1, 5000, 0.1);
    let test = noisy_xor(2, 5000, 0.0);
    // A 20-clause shared pool either learns XOR fully or, for some seeds, ends the 200
    // epochs below 99% (the pool oscillates between solutions). green-tsetlin does the same
    // on this very data with its early stop at 100% turned off: 4 of seeds 1-8 and 8 of
    // 1-16 reach 99%. At least half of the eight seeds must, with a mean of 95% or more.
    let mut accuracies = Vec::new();
    for seed in 1..=8 {
        let params = Params {
            coalesced_update,
            ..xor_params(seed)
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
        "coalesced noisy XOR accuracies ({coalesced_update} update) {accuracies:?}"
    );
}

#[test]
fn learns_checkers_fold_zero() {
    let Some(test) = checkers_fold(0) else {
        return;
    };
    let mut train = checkers_fold(1).unwrap();
    for k in 2..5 {
        train.extend(&checkers_fold(k).unwrap());
    }
    assert_eq!(test.features(), 128);
    let params = small_thesis_params();
    let mut tm = MultiClassTm::new(params.clone(), 128, 3).unwrap();
    // The same machine trained with the GPU trainer's random numbers (on the CPU).
    let mut with_gpu_draws = MultiClassTm::new(params, 128, 3).unwrap();
    for _ in 0..3 {
        tm.fit_epoch(&train);
        with_gpu_draws.fit_epoch_device_draws(&train);
    }
    let acc = accuracy(&tm, &test);
    let acc_gpu_draws = accuracy(&with_gpu_draws, &test);
    let majority = test.labels().iter().filter(|&&y| y == 2).count() as f64 / test.len() as f64;
    eprintln!(
        "checkers fold 0: accuracy {acc:.4}, with the GPU's draws {acc_gpu_draws:.4}, \
         majority class {majority:.4}"
    );
    assert!(
        acc > majority + 0.01,
        "accuracy {acc} vs majority {majority}"
    );
    assert!(
        (acc - acc_gpu_draws).abs() < 0.02,
        "accuracy {acc}, with the GPU's draws {acc_gpu_draws}"
    );
}

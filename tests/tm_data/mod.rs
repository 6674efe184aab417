//! Data the Tsetlin Machine tests share: noisy XOR and the machine that learns it, seed
//! 001's checkers folds, and the thesis's machine scaled down for them.

use rand::RngCore;
use std::path::PathBuf;
use tmbot::rng::seeded;
use tmbot::tm::{Dataset, Params};

/// XOR of the first two of 12 random bits; `noise` of the labels flipped.
pub fn noisy_xor(seed: u64, n: usize, noise: f64) -> Dataset {
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

/// Fold `k` of seed 001's ten, from ../shared/data or from TMBOT_DATA's folder; `None`,
/// said on stderr, when the data is absent (a failure under TMBOT_REQUIRE_SHARED_DATA).
pub fn checkers_fold(k: usize) -> Option<Dataset> {
    let data = std::env::var("TMBOT_DATA")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data").into());
    let path = PathBuf::from(format!("{data}/checkers/standard_end_10fold/fold{k}.csv"));
    if !path.exists() {
        eprintln!("skipping: {} is absent", path.display());
        assert!(
            std::env::var_os("TMBOT_REQUIRE_SHARED_DATA").is_none(),
            "{} is absent but TMBOT_REQUIRE_SHARED_DATA is set",
            path.display()
        );
        return None;
    }
    Some(Dataset::read_csv(&path).unwrap())
}

/// The thesis's weighted machine (19,000 clauses, T 40,000, s 9) scaled down.
pub fn small_thesis_params() -> Params {
    Params {
        clauses: 1000,
        threshold: 2000,
        specificity: 9.0,
        weighted: true,
        seed: 1,
        ..Params::default()
    }
}

/// The machine that learns noisy XOR: 20 clauses, T 15, s 3.9, no boost.
pub fn xor_params(seed: u64) -> Params {
    Params {
        clauses: 20,
        threshold: 15,
        specificity: 3.9,
        boost_true_positive: false,
        seed,
        ..Params::default()
    }
}

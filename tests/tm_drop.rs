//! Clause and literal drop in the per-class machine: without drop every clause and literal
//! of a small machine learns in one epoch; with drop, the clauses (literals) sitting the
//! epoch out keep their states, and the same seed drops the same ones.
//! (The convolutional machine's exact per-clause checks are in `tm_conv.rs`.)

use rand::RngCore;
use tmbot::rng::seeded;
use tmbot::tm::{Dataset, MultiClassTm, Params};

const FEATURES: usize = 12;
const CLAUSES: usize = 40;

fn data() -> Dataset {
    let mut rng = seeded(21);
    let mut data = Dataset::new(FEATURES);
    for _ in 0..150 {
        let x: Vec<u8> = (0..FEATURES).map(|_| (rng.next_u32() & 1) as u8).collect();
        data.push(&x, (x[0] ^ x[1]) as u32);
    }
    data
}

/// A fresh machine and the same machine after one epoch.
fn epoch(seed: u64, clause_drop: f64, literal_drop: f64) -> (MultiClassTm, MultiClassTm) {
    let params = Params {
        clauses: CLAUSES,
        threshold: 40,
        specificity: 2.0,
        clause_drop,
        literal_drop,
        seed,
        ..Params::default()
    };
    let fresh = MultiClassTm::new(params, FEATURES, 2).unwrap();
    let mut tm = fresh.clone();
    tm.fit_epoch(&data());
    (fresh, tm)
}

fn clause_moved(a: &MultiClassTm, b: &MultiClassTm, class: usize, clause: usize) -> bool {
    (0..2 * FEATURES).any(|l| a.state(class, clause, l) != b.state(class, clause, l))
}

fn literal_moved(a: &MultiClassTm, b: &MultiClassTm, literal: usize) -> bool {
    (0..2 * CLAUSES).any(|k| {
        a.state(k / CLAUSES, k % CLAUSES, literal) != b.state(k / CLAUSES, k % CLAUSES, literal)
    })
}

fn moved_clauses(seed: u64, clause_drop: f64) -> Vec<bool> {
    let (fresh, tm) = epoch(seed, clause_drop, 0.0);
    (0..2 * CLAUSES)
        .map(|k| clause_moved(&fresh, &tm, k / CLAUSES, k % CLAUSES))
        .collect()
}

#[test]
fn clause_drop_freezes_whole_clauses() {
    assert!(
        moved_clauses(3, 0.0).iter().all(|&m| m),
        "a clause idled without drop"
    );
    let moved = moved_clauses(3, 0.5);
    let frozen = moved.iter().filter(|&&m| !m).count();
    // Each clause sits out with probability 1/2: 80 clauses give 40 +- 4.5.
    assert!((20..=60).contains(&frozen), "{frozen} of 80 frozen");
    assert_eq!(moved_clauses(3, 0.5), moved);
    assert_ne!(moved_clauses(4, 0.5), moved);
}

#[test]
fn literal_drop_freezes_literals_in_every_clause() {
    let (fresh, tm) = epoch(5, 0.0, 0.0);
    assert!((0..2 * FEATURES).all(|l| literal_moved(&fresh, &tm, l)));
    let (fresh, tm) = epoch(5, 0.0, 0.5);
    let frozen = (0..2 * FEATURES)
        .filter(|&l| !literal_moved(&fresh, &tm, l))
        .count();
    assert!((4..=20).contains(&frozen), "{frozen} of 24 literals frozen");
    let (_, again) = epoch(5, 0.0, 0.5);
    for k in 0..2 * CLAUSES {
        assert!(!clause_moved(&tm, &again, k / CLAUSES, k % CLAUSES));
    }
}

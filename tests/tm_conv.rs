//! The convolutional Tsetlin Machine: any-patch clause truth, feedback on a random matching
//! patch, position-free learning, clause and literal drops, and the checkers folds.

use rand::RngCore;
use tmbot::rng::seeded;
use tmbot::tm::literals::LiteralLayout;
use tmbot::tm::patches::PatchGrid;
use tmbot::tm::{ConvTm, Dataset, Params};

/// A 3 x 3 one-plane board, window 2: patch features are the 4 window cells, `x>0`, `y>0`.
fn tiny(params: Params) -> ConvTm {
    ConvTm::new(params, PatchGrid::new(3, 3, 1, 2).unwrap(), 2).unwrap()
}

fn board(cells: &[u8]) -> Vec<u64> {
    LiteralLayout::new(cells.len()).pack_features(cells)
}

const INCLUDE: u32 = 200;

#[test]
fn a_clause_fires_when_any_patch_matches() {
    let mut tm = tiny(Params {
        clauses: 2,
        ..Params::default()
    });
    // Clause 0 of class 0: window cell (0, 0) is 1 and cell (1, 1) is 0 (negated literal 6 + 3).
    tm.set_state(0, 0, 0, INCLUDE);
    tm.set_state(0, 0, 6 + 3, INCLUDE);
    // Cell (1, 1) of the board set only: patch (1, 1) has cell (0, 0) = 1 and (1, 1) = 0.
    let b = board(&[0, 0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(tm.matching_patches(0, 0, &b), vec![3]);
    // Cells (0, 0) and (1, 1) set: patch 0 has both (no match), patch 3 matches.
    let b = board(&[1, 0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(tm.matching_patches(0, 0, &b), vec![3]);
    // Cells (0, 0), (1, 0) and (0, 1): patches 0, 1 and 2 match; patch 3's cell (0, 0) is 0.
    let b = board(&[1, 1, 0, 1, 0, 0, 0, 0, 0]);
    assert_eq!(tm.matching_patches(0, 0, &b), vec![0, 1, 2]);
    // Nothing set: no patch matches; the class sum has no vote from the clause.
    let empty = board(&[0; 9]);
    assert!(tm.matching_patches(0, 0, &empty).is_empty());
    assert_eq!(tm.class_sums(&empty), vec![0, 0]);
    assert_eq!(tm.class_sums(&b), vec![1, 0]);
    // Adding the position bit x>0 keeps only the right-hand patches.
    tm.set_state(0, 0, 4, INCLUDE);
    assert_eq!(tm.matching_patches(0, 0, &b), vec![1]);
    // An empty clause matches nothing at prediction.
    assert!(tm.matching_patches(1, 0, &b).is_empty());
}

#[test]
fn type_ia_uses_one_randomly_drawn_matching_patch() {
    // s = 1: Type Ia with boost moves every 1 literal of the patch up and every 0 literal
    // down, so the new states name the patch used.
    let params = Params {
        clauses: 2,
        threshold: 1,
        specificity: 1.0,
        ..Params::default()
    };
    let b = board(&[1, 1, 0, 1, 0, 0, 0, 0, 0]);
    let start = {
        let mut tm = tiny(params.clone());
        for l in 0..12 {
            tm.set_state(1, 0, l, 100);
        }
        tm.set_state(1, 0, 0, INCLUDE);
        tm
    };
    // Clause 0 of class 1 (includes cell (0, 0)) matches patches 0, 1, 2 of `b`; not 3.
    assert_eq!(start.matching_patches(1, 0, &b), vec![0, 1, 2]);
    let sample = start.patch_literals(&b);
    let expected: Vec<Vec<u32>> = (0..4)
        .map(|p| {
            let lits = sample.patch(p);
            (0..12)
                .map(|l| {
                    let (w, bit) = start.patch_layout().slot(l);
                    let s = start.state(1, 0, l);
                    if (lits[w] >> bit) & 1 == 1 {
                        s + 1
                    } else {
                        s - 1
                    }
                })
                .collect()
        })
        .collect();
    let mut seen = [0; 4];
    for seed in 0..200 {
        let mut tm = tiny(Params {
            seed,
            ..params.clone()
        });
        for l in 0..12 {
            tm.set_state(1, 0, l, start.state(1, 0, l));
        }
        tm.learn(&b, 1);
        let after: Vec<u32> = (0..12).map(|l| tm.state(1, 0, l)).collect();
        if after == (0..12).map(|l| start.state(1, 0, l)).collect::<Vec<_>>() {
            continue; // not selected for feedback this time
        }
        let p = expected
            .iter()
            .position(|e| *e == after)
            .unwrap_or_else(|| panic!("seed {seed}: states {after:?} fit no patch"));
        seen[p] += 1;
    }
    assert_eq!(seen[3], 0, "the non-matching patch was used");
    assert!(seen[..3].iter().all(|&n| n >= 10), "patch counts {seen:?}");
}

/// Motif of class 0 ([[1, 0], [0, 1]]) and of class 1 ([[0, 1], [1, 0]]), row-major.
const MOTIFS: [[u8; 4]; 2] = [[1, 0, 0, 1], [0, 1, 1, 0]];

/// `side` x `side` grids of sparse random cells with one motif planted at a random place
/// whose left column is in `columns`; the label is the motif. Grids holding both motifs are
/// drawn again.
fn motif_data(n: usize, side: usize, columns: std::ops::Range<usize>, seed: u64) -> Dataset {
    let mut rng = seeded(seed);
    let mut data = Dataset::new(side * side);
    let holds = |cells: &[u8], m: &[u8; 4]| {
        (0..side - 1).any(|y| {
            (0..side - 1).any(|x| {
                let at = |dx: usize, dy: usize| cells[(y + dy) * side + x + dx];
                [at(0, 0), at(1, 0), at(0, 1), at(1, 1)] == *m
            })
        })
    };
    while data.len() < n {
        let label = data.len() % 2;
        let mut cells: Vec<u8> = (0..side * side)
            .map(|_| (rng.next_u32() % 100 < 10) as u8)
            .collect();
        let x = columns.start + rng.next_u32() as usize % columns.len();
        let y = rng.next_u32() as usize % (side - 1);
        for (k, &v) in MOTIFS[label].iter().enumerate() {
            cells[(y + k / 2) * side + x + k % 2] = v;
        }
        if !holds(&cells, &MOTIFS[1 - label]) {
            data.push(&cells, label as u32);
        }
    }
    data
}

#[test]
fn learns_a_motif_anywhere_on_the_board() {
    let side = 6;
    let train = motif_data(2000, side, 0..side - 1, 1);
    let test = motif_data(500, side, 0..side - 1, 2);
    assert!(motif_accuracy(&train, &test) >= 0.95);
}

/// Test accuracy of a convolutional machine trained on `train`.
fn motif_accuracy(train: &Dataset, test: &Dataset) -> f64 {
    let side = (train.features() as f64).sqrt() as usize;
    let params = Params {
        clauses: 60,
        threshold: 30,
        specificity: 5.0,
        seed: 5,
        ..Params::default()
    };
    let mut tm = ConvTm::new(params, PatchGrid::new(side, side, 1, 2).unwrap(), 2).unwrap();
    for _ in 0..20 {
        tm.fit_epoch(train);
    }
    test.accuracy(&tm.predict_all(test))
}

fn drop_machine(seed: u64, clause_drop: f64) -> (ConvTm, ConvTm) {
    let params = Params {
        clauses: 40,
        threshold: 40,
        specificity: 2.0,
        clause_drop,
        seed,
        ..Params::default()
    };
    let side = 4;
    let data = motif_data(60, side, 0..side - 1, 3);
    let fresh = ConvTm::new(params, PatchGrid::new(side, side, 1, 2).unwrap(), 2).unwrap();
    let mut tm = fresh.clone();
    tm.draw_drops();
    for i in 0..data.len() {
        tm.learn(data.row(i), data.labels()[i] as usize);
    }
    (fresh, tm)
}

fn changed(a: &ConvTm, b: &ConvTm, class: usize, clause: usize) -> bool {
    let literals = a.patch_layout().literals();
    (0..literals).any(|l| a.state(class, clause, l) != b.state(class, clause, l))
}

#[test]
fn dropped_clauses_get_no_feedback() {
    // Without drop every clause of this small machine learns something in 60 samples.
    let (fresh, tm) = drop_machine(7, 0.0);
    for class in 0..2 {
        for j in 0..40 {
            assert!(!tm.is_dropped(class, j));
            assert!(changed(&fresh, &tm, class, j), "clause {class}/{j} idle");
        }
    }
    // With drop 0.5, the dropped clauses are exactly the unchanged ones.
    let (fresh, tm) = drop_machine(7, 0.5);
    let mut dropped = 0;
    for class in 0..2 {
        for j in 0..40 {
            assert_eq!(
                tm.is_dropped(class, j),
                !changed(&fresh, &tm, class, j),
                "clause {class}/{j}"
            );
            dropped += tm.is_dropped(class, j) as usize;
        }
    }
    assert!((20..=60).contains(&dropped), "{dropped} of 80 dropped");
    // The same seed drops the same clauses and trains to the same states.
    let (_, again) = drop_machine(7, 0.5);
    let (_, other) = drop_machine(8, 0.5);
    let pattern =
        |m: &ConvTm| -> Vec<bool> { (0..80).map(|k| m.is_dropped(k / 40, k % 40)).collect() };
    assert_eq!(pattern(&tm), pattern(&again));
    assert_ne!(pattern(&tm), pattern(&other));
    for k in 0..80 {
        assert!(!changed(&tm, &again, k / 40, k % 40));
    }
}

#[test]
fn literal_drop_freezes_dropped_literals() {
    let params = Params {
        clauses: 10,
        threshold: 10,
        specificity: 2.0,
        literal_drop: 0.5,
        seed: 4,
        ..Params::default()
    };
    let data = motif_data(100, 4, 0..3, 5);
    let fresh = ConvTm::new(params.clone(), PatchGrid::new(4, 4, 1, 2).unwrap(), 2).unwrap();
    let mut a = fresh.clone();
    a.fit_epoch(&data);
    let mut b = fresh.clone();
    b.fit_epoch(&data);
    // Reproducible from the seed.
    for k in 0..20 {
        assert!(!changed(&a, &b, k / 10, k % 10));
    }
    // Some literal is never touched by any clause (dropped for the whole epoch) while others
    // move: with 12 literals and drop 0.5, both kinds exist for this seed.
    let literals = a.patch_layout().literals();
    let moved: Vec<bool> = (0..literals)
        .map(|l| (0..20).any(|k| a.state(k / 10, k % 10, l) != fresh.state(k / 10, k % 10, l)))
        .collect();
    assert!(
        moved.iter().any(|&m| m) && moved.iter().any(|&m| !m),
        "{moved:?}"
    );
}

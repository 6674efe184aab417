//! The GPU back-end equals the CPU (feature `cuda`): clause outputs and class sums bit for
//! bit, on random clauses and on trained models; GPU training gives the CPU's model given the
//! same random numbers, and reaches the CPU's accuracy with its own;
//! models trained on the GPU save and load on the CPU. Without a GPU every test says so and
//! passes, unless TMBOT_REQUIRE_GPU is set (the GPU check script sets it).
#![cfg(feature = "cuda")]

mod tm_data;

use rand::{Rng, RngCore};
use tm_data::{checkers_fold, noisy_xor, small_thesis_params, xor_params};
use tmbot::rng::seeded;
use tmbot::tm::cuda::{self, Inference};
use tmbot::tm::device::{Device, Trainer};
use tmbot::tm::inference::{CompiledClause, InferenceModel};
use tmbot::tm::persist::{Machine, SavedModel};
use tmbot::tm::{Dataset, MultiClassTm, Params};

/// Whether a GPU is here; says why not otherwise.
fn gpu() -> bool {
    match cuda::describe() {
        Ok(name) => {
            eprintln!("GPU: {name}");
            true
        }
        Err(e) => {
            assert!(
                std::env::var_os("TMBOT_REQUIRE_GPU").is_none(),
                "TMBOT_REQUIRE_GPU is set but: {e}"
            );
            eprintln!("skipping: {e}");
            false
        }
    }
}

fn random_data(seed: u64, features: usize, n: usize, density: f64) -> Dataset {
    let mut rng = seeded(seed);
    let mut data = Dataset::new(features);
    for _ in 0..n {
        let x: Vec<u8> = (0..features)
            .map(|_| rng.random_bool(density) as u8)
            .collect();
        data.push(&x, 0);
    }
    data
}

/// The CPU's reference for clause outputs: every included literal is true.
fn cpu_clause_outputs(model: &InferenceModel, data: &Dataset) -> Vec<bool> {
    let f = model.features();
    let mut out = Vec::new();
    for i in 0..data.len() {
        for clause in model.clauses() {
            out.push(clause.literals.iter().all(|&l| {
                if l < f {
                    data.value(i, l)
                } else {
                    !data.value(i, l - f)
                }
            }));
        }
    }
    out
}

fn assert_equal_on(model: &InferenceModel, data: &Dataset, what: &str) {
    let gpu = Inference::new(model).unwrap();
    assert_eq!(
        gpu.class_sums(data).unwrap(),
        model.class_sums(data),
        "{what}: class sums"
    );
    assert_eq!(
        gpu.clause_outputs(data).unwrap(),
        cpu_clause_outputs(model, data),
        "{what}: clause outputs"
    );
}

#[test]
fn inference_equals_the_cpu_on_random_clauses() {
    if !gpu() {
        return;
    }
    let mut rng = seeded(7);
    // Feature counts around word boundaries and a large hypervector-sized input (up to 128
    // features and 4 classes the dense kernel, else the sparse one); sample counts that
    // leave a partial block; clauses of 1 to 12 literals with signed weights
    // large enough to reach the clamp.
    for (case, &(features, classes, clauses, samples)) in [
        (1, 2, 5, 1),
        (63, 3, 300, 257),
        (64, 2, 1000, 1000),
        (128, 3, 600, 515),
        (100, 5, 400, 513),
        (130, 3, 2000, 3001),
        (2048, 2, 500, 700),
    ]
    .iter()
    .enumerate()
    {
        let clause_list: Vec<CompiledClause> = (0..clauses)
            .map(|_| {
                let n = rng.random_range(1..=12.min(2 * features));
                let mut literals: Vec<usize> =
                    (0..n).map(|_| rng.random_range(0..2 * features)).collect();
                literals.sort_unstable();
                literals.dedup();
                let weights = (0..classes).map(|_| rng.random_range(-40..=40)).collect();
                CompiledClause { literals, weights }
            })
            .collect();
        let model = InferenceModel::new(features, classes, 60, clause_list);
        // Sparse inputs let long clauses fire as well as short ones.
        for density in [0.5, 0.1, 0.9] {
            let data = random_data(rng.next_u64(), features, samples, density);
            assert_equal_on(&model, &data, &format!("case {case}, density {density}"));
        }
    }
}

fn train(device: Device, params: Params, data: &Dataset, classes: usize, epochs: usize) -> Machine {
    let tm = MultiClassTm::new(params, data.features(), classes).unwrap();
    let mut machine = Machine::PerClass(tm);
    let mut trainer = Trainer::new(device, &machine, data).unwrap();
    for _ in 0..epochs {
        trainer.fit_epoch(&mut machine, data).unwrap();
    }
    machine
}

fn accuracy(machine: &Machine, data: &Dataset) -> f64 {
    data.accuracy(&machine.predict_all(data))
}

#[test]
fn gpu_training_learns_noisy_xor_like_the_cpu() {
    if !gpu() {
        return;
    }
    let data = noisy_xor(1, 5000, 0.1);
    let test = noisy_xor(2, 5000, 0.0);
    for seed in 1..=3 {
        let cpu = accuracy(&train(Device::Cpu, xor_params(seed), &data, 2, 200), &test);
        let gpu = accuracy(&train(Device::Cuda, xor_params(seed), &data, 2, 200), &test);
        eprintln!("seed {seed}: cpu {cpu:.4}, gpu {gpu:.4}");
        assert!(
            gpu >= 0.99 && (gpu - cpu).abs() <= 0.005,
            "seed {seed}: cpu {cpu}, gpu {gpu}"
        );
    }
}

/// XOR of x0 and x1 (classes 0 and 1), and a third class for x2 & x3: 6,000 training and
/// 2,000 test samples of 12 features.
fn three_classes() -> (Dataset, Dataset) {
    let mut rng = seeded(5);
    let mut data = Dataset::new(12);
    let mut test = Dataset::new(12);
    for i in 0..8000 {
        let x: Vec<u8> = (0..12).map(|_| (rng.next_u32() & 1) as u8).collect();
        let y = if x[2] == 1 && x[3] == 1 {
            2
        } else {
            (x[0] ^ x[1]) as u32
        };
        if i < 6000 {
            data.push(&x, y)
        } else {
            test.push(&x, y)
        }
    }
    (data, test)
}

/// Weights, a literal budget and both drops, which go through their own kernel branches.
fn option_params() -> Params {
    Params {
        clauses: 40,
        threshold: 20,
        specificity: 3.9,
        weighted: true,
        literal_budget: Some(4),
        clause_drop: 0.1,
        literal_drop: 0.02,
        seed: 3,
        ..Params::default()
    }
}

#[test]
fn gpu_training_options_learn() {
    if !gpu() {
        return;
    }
    // The options still learn; three classes exercise the negative class draw.
    let (data, test) = three_classes();
    let machine = train(Device::Cuda, option_params(), &data, 3, 100);
    let acc = accuracy(&machine, &test);
    eprintln!("three classes, weighted, budget 4, drops: {acc:.4}");
    assert!(acc >= 0.97, "accuracy {acc}");
    let Machine::PerClass(tm) = &machine else {
        unreachable!()
    };
    let max_weight = (0..3)
        .flat_map(|c| (0..40).map(move |j| (c, j)))
        .map(|(c, j)| tm.weight(c, j))
        .max()
        .unwrap();
    assert!(max_weight > 1, "weights never moved");
    for c in 0..3 {
        for j in 0..40 {
            assert!(tm.clause_literals(c, j).len() <= 4, "budget broken");
        }
    }
}

fn model_bytes(machine: &Machine, features: usize) -> Vec<u8> {
    SavedModel {
        machine: machine.clone(),
        encoder: "csv".into(),
        feature_names: (0..features).map(|i| format!("x{i}")).collect(),
    }
    .to_bytes()
}

#[test]
fn gpu_training_equals_the_cpu_given_the_gpus_draws() {
    if !gpu() {
        return;
    }
    // The GPU's model, automaton by automaton and weight by weight, equals the CPU's when the
    // CPU draws the GPU's random numbers (device cuda-reference): plain and boosted XOR,
    // every option on three classes, and the thesis's machine scaled down on a checkers fold.
    let xor = noisy_xor(1, 3000, 0.1);
    let boosted = Params {
        boost_true_positive: true,
        ..xor_params(4)
    };
    let (three, _) = three_classes();
    let mut cases = vec![
        ("noisy XOR", xor_params(2), xor.clone(), 2, 30),
        ("noisy XOR, boost", boosted, xor, 2, 30),
        ("three classes, every option", option_params(), three, 3, 30),
    ];
    if let Some(fold) = checkers_fold(1) {
        cases.push(("checkers fold 1", small_thesis_params(), fold, 3, 2));
    }
    for (what, params, data, classes, epochs) in cases {
        let on_gpu = train(Device::Cuda, params.clone(), &data, classes, epochs);
        let on_cpu = train(Device::CudaReference, params, &data, classes, epochs);
        let features = data.features();
        assert!(
            model_bytes(&on_gpu, features) == model_bytes(&on_cpu, features),
            "{what}: the GPU's model differs from the CPU's given the same draws"
        );
        eprintln!("{what}: {epochs} epochs, GPU model = CPU model with the GPU's draws");
    }
}

#[test]
fn gpu_training_is_reproducible_and_its_model_loads_on_the_cpu() {
    if !gpu() {
        return;
    }
    let data = noisy_xor(3, 2000, 0.1);
    let a = train(Device::Cuda, xor_params(9), &data, 2, 20);
    let b = train(Device::Cuda, xor_params(9), &data, 2, 20);
    let bytes = |m: &Machine| model_bytes(m, 12);
    assert_eq!(bytes(&a), bytes(&b), "same seed, different models");
    let loaded = SavedModel::from_bytes(&bytes(&a), "<gpu model>").unwrap();
    let test = noisy_xor(4, 3000, 0.0);
    assert_eq!(loaded.machine.predict_all(&test), a.predict_all(&test));
    // The loaded model's compiled clauses score the same on both devices.
    let Machine::PerClass(tm) = &loaded.machine else {
        unreachable!()
    };
    assert_equal_on(&tm.compile(), &test, "a GPU-trained model");
}

#[test]
fn inference_equals_the_cpu_on_a_trained_checkers_model() {
    if !gpu() {
        return;
    }
    let (Some(test), Some(train_set)) = (checkers_fold(0), checkers_fold(1)) else {
        return;
    };
    let params = small_thesis_params();
    let machine = train(Device::Cpu, params, &train_set, 3, 2);
    let Machine::PerClass(tm) = &machine else {
        unreachable!()
    };
    assert_equal_on(&tm.compile(), &test, "a trained checkers model");
}

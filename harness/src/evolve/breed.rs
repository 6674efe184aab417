//! Breeding, seed 003's way: for every weight of every player, keep it with the inertia
//! probability; otherwise take that weight from the player itself or one of its six
//! neighbours, chosen with probability proportional to fitness, and shake it. Then mutate
//! the new network: swap (or copy) random pairs of weights, once or a negative-binomial
//! number of times.
//!
//! Generations are synchronous: every child is bred from the parents' generation, and each
//! child draws from its own random stream, so the result does not depend on the order in
//! which children are bred.

use super::config::{Fitness, Mutation, RunConfig, Shake};
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use tmbot::rng::{normal, Rng};

/// A player's genome: its network's weights and, under self-adaptive shaking, one sigma per
/// weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Genome {
    /// The weights in the network's order.
    pub weights: Vec<f64>,
    /// One sigma per weight (empty unless the shake is self-adaptive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sigmas: Vec<f64>,
}

impl Genome {
    /// A random genome of `len` weights drawn from Normal(0, 1) (sigmas start at `sigma`
    /// under self-adaptive shaking).
    pub fn random(len: usize, config: &RunConfig, rng: &mut Rng) -> Genome {
        Genome {
            weights: (0..len).map(|_| normal(rng)).collect(),
            sigmas: if config.shake == Shake::SelfAdaptive {
                vec![config.sigma; len]
            } else {
                Vec::new()
            },
        }
    }
}

/// The breeding weights of a group (the player first, then its neighbours) from their
/// scores: proportional to the score (linear) or to 2^score (exponential), normalised to
/// sum to 1. A group that scored nothing under linear fitness is chosen from uniformly.
pub fn breeding_probabilities(fitness: Fitness, scores: &[f64]) -> Vec<f64> {
    let raw: Vec<f64> = match fitness {
        Fitness::Linear => scores.to_vec(),
        // Relative to the best score: the same ratios without overflow.
        Fitness::Exponential => {
            let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            scores.iter().map(|s| (s - best).exp2()).collect()
        }
    };
    let total: f64 = raw.iter().sum();
    if total > 0.0 {
        raw.iter().map(|r| r / total).collect()
    } else {
        vec![1.0 / scores.len() as f64; scores.len()]
    }
}

/// Index drawn with the given probabilities (which sum to 1).
fn pick(probabilities: &[f64], rng: &mut Rng) -> usize {
    let mut u = rng.random::<f64>();
    for (i, p) in probabilities.iter().enumerate() {
        if u < *p {
            return i;
        }
        u -= p;
    }
    probabilities.len() - 1
}

/// The number of mutations: one, then one more while a coin with probability `more`
/// comes up (1 + a geometric count; `more` = 0 gives exactly one).
pub fn mutation_count(more: f64, rng: &mut Rng) -> usize {
    let mut count = 1;
    while more > 0.0 && rng.random::<f64>() < more {
        count += 1;
    }
    count
}

/// The child of `group[0]`: bred weight by weight from `group` (the player, then its
/// neighbours) with their `scores`, then mutated.
pub fn breed(group: &[&Genome], scores: &[f64], config: &RunConfig, rng: &mut Rng) -> Genome {
    let probabilities = breeding_probabilities(config.fitness, scores);
    let own = group[0];
    let len = own.weights.len();
    let adaptive = config.shake == Shake::SelfAdaptive;
    let tau = 1.0 / (2.0 * (len as f64).sqrt()).sqrt();
    let mut child = own.clone();
    for j in 0..len {
        if config.inertia > 0.0 && rng.random::<f64>() < config.inertia {
            continue;
        }
        let parent = group[pick(&probabilities, rng)];
        let w = parent.weights[j];
        child.weights[j] = match config.shake {
            Shake::Fixed => w + config.sigma * normal(rng),
            Shake::Scaled => w + config.sigma * w.abs() * normal(rng),
            Shake::SelfAdaptive => {
                let sigma = parent.sigmas[j] * (tau * normal(rng)).exp();
                child.sigmas[j] = sigma;
                w + sigma * normal(rng)
            }
        };
    }
    debug_assert!(!adaptive || child.sigmas.len() == len);
    if config.mutation != Mutation::None && len >= 2 {
        for _ in 0..mutation_count(config.more_mutations, rng) {
            let a = rng.random_range(0..len);
            let b = (a + rng.random_range(1..len)) % len;
            match config.mutation {
                Mutation::Swap => child.weights.swap(a, b),
                Mutation::Copy => child.weights[b] = child.weights[a],
                Mutation::None => unreachable!(),
            }
        }
    }
    child
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmbot::rng::seeded;

    fn config() -> RunConfig {
        super::super::config::parse("[[run]]\nname = \"t\"").unwrap()[0]
            .config
            .clone()
    }

    #[test]
    fn exponential_fitness_favours_the_winner_exactly() {
        // The player won 12, its neighbours 0..=5 games.
        let scores = [12.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
        let p = breeding_probabilities(Fitness::Exponential, &scores);
        let total = 4096.0 + 1.0 + 2.0 + 4.0 + 8.0 + 16.0 + 32.0;
        assert!((p[0] - 4096.0 / total).abs() < 1e-15);
        assert!((p[6] - 32.0 / total).abs() < 1e-15);
        let linear = breeding_probabilities(Fitness::Linear, &scores);
        assert!((linear[0] - 12.0 / 27.0).abs() < 1e-15);
        assert_eq!(
            breeding_probabilities(Fitness::Linear, &[0.0; 4]),
            vec![0.25; 4]
        );
        // Large scores do not overflow.
        let big = breeding_probabilities(Fitness::Exponential, &[2000.0, 1999.0]);
        assert!((big[0] - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn breeding_takes_weights_with_the_fitness_probabilities() {
        // Seven parents whose weights name them; no shake, no mutation.
        let mut config = config();
        config.sigma = 0.0;
        config.mutation = Mutation::None;
        config.fitness = Fitness::Exponential;
        let parents: Vec<Genome> = (0..7)
            .map(|k| Genome {
                weights: vec![k as f64; 10_000],
                sigmas: vec![],
            })
            .collect();
        let group: Vec<&Genome> = parents.iter().collect();
        let scores = [3.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0];
        let child = breed(&group, &scores, &config, &mut seeded(5));
        let expected = breeding_probabilities(Fitness::Exponential, &scores);
        for (k, p) in expected.iter().enumerate() {
            let share = child.weights.iter().filter(|&&w| w == k as f64).count() as f64 / 1e4;
            // 10,000 draws: a binomial share is within 0.015 of p (more than 3 sigma).
            assert!((share - p).abs() < 0.015, "parent {k}: {share} vs {p}");
        }
    }

    #[test]
    fn inertia_keeps_weights_and_mutations_swap_exactly_one_pair() {
        let mut config = config();
        config.sigma = 0.0;
        let own = Genome {
            weights: (0..50).map(f64::from).collect(),
            sigmas: vec![],
        };
        let other = Genome {
            weights: vec![-1.0; 50],
            sigmas: vec![],
        };
        // Only the player itself scored: every weight is its own, then one swap.
        let child = breed(&[&own, &other], &[1.0, 0.0], &config, &mut seeded(2));
        let moved: Vec<usize> = (0..50).filter(|&i| child.weights[i] != i as f64).collect();
        assert_eq!(moved.len(), 2, "{moved:?}");
        assert_eq!(child.weights[moved[0]], moved[1] as f64);
        // Copy: one weight duplicated.
        config.mutation = Mutation::Copy;
        let child = breed(&[&own, &other], &[1.0, 0.0], &config, &mut seeded(2));
        assert_eq!((0..50).filter(|&i| child.weights[i] != i as f64).count(), 1);
        // Full inertia bar a sliver: nearly all weights kept even though the neighbour won.
        config.mutation = Mutation::None;
        config.inertia = 0.999;
        let child = breed(&[&own, &other], &[0.0, 12.0], &config, &mut seeded(2));
        assert!((0..50).filter(|&i| child.weights[i] == i as f64).count() >= 45);
    }

    #[test]
    fn negative_binomial_mutation_counts() {
        let mut rng = seeded(9);
        assert!((0..100).all(|_| mutation_count(0.0, &mut rng) == 1));
        // 1 + Geometric(p): mean 1 / (1 - p) = 2 for p = 0.5, 4/3 for 0.25.
        for (p, mean) in [(0.5, 2.0), (0.25, 4.0 / 3.0)] {
            let n = 100_000;
            let total: usize = (0..n).map(|_| mutation_count(p, &mut rng)).sum();
            assert!((total as f64 / n as f64 - mean).abs() < 0.02);
        }
    }

    #[test]
    fn fixed_shake_has_the_configured_spread_and_self_adaptive_moves_sigmas() {
        let mut config = config();
        config.mutation = Mutation::None;
        let own = Genome {
            weights: vec![0.0; 20_000],
            sigmas: vec![],
        };
        let child = breed(&[&own], &[1.0], &config, &mut seeded(4));
        let var = child.weights.iter().map(|w| w * w).sum::<f64>() / 20_000.0;
        assert!((var - 1.0).abs() < 0.05, "{var}");
        config.shake = Shake::SelfAdaptive;
        config.sigma = 0.05;
        let own = Genome::random(100, &config, &mut seeded(1));
        assert_eq!(own.sigmas, vec![0.05; 100]);
        let child = breed(&[&own], &[1.0], &config, &mut seeded(4));
        assert!(child.sigmas.iter().all(|&s| s > 0.0 && s != 0.05));
    }
}

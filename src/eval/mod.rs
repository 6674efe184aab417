//! Position evaluators: the [`Evaluator`] trait (batched, values in [0,1] for the side to
//! move), a per-game [`EvalRegistry`] of evaluator specs, and the game-independent
//! [`RandomEval`].
//!
//! Game-specific heuristics live in their own modules; learned evaluators (Tsetlin Machine,
//! neural networks) plug in by registering a constructor under a spec name.

pub mod ann;
pub mod checkers;
pub mod checkers_knowledge;
pub mod checkers_patterns;
pub mod checkers_tm_term;
pub mod hex;
pub mod tm;

use crate::game::Game;
use crate::rng;
use rand::Rng as _;
use std::sync::Arc;
use thiserror::Error;

/// The estimated worth of a position for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Value {
    /// Expected score in [0,1]: 0 lost, 0.5 drawn, 1 won (for the side to move).
    pub value: f64,
    /// How sure the evaluator is, in [0,1], when it can tell.
    pub certainty: Option<f64>,
}

impl Value {
    /// A value without certainty information.
    pub fn new(value: f64) -> Value {
        Value {
            value,
            certainty: None,
        }
    }
}

/// Estimates positions, many at a time (searches evaluate siblings together).
pub trait Evaluator<G: Game>: Send + Sync {
    /// One value per position, in order, each for that position's side to move.
    fn evaluate(&self, positions: &[G]) -> Vec<Value>;

    /// The value of a single position (searches that cannot batch call this; override it
    /// when a batch of one costs more than one evaluation).
    fn evaluate_one(&self, position: &G) -> Value {
        self.evaluate(std::slice::from_ref(position))[0]
    }

    /// Whether this evaluator can judge positions of `game` (its kind and board size), or
    /// why not. Players check this before they play, so that no game is played without an
    /// evaluation.
    fn check(&self, _game: &G) -> Result<(), String> {
        Ok(())
    }
}

/// [`Evaluator::evaluate`] of an evaluator that judges one position at a time: its
/// `evaluate_one` of each.
pub fn evaluate_each<G: Game, E: Evaluator<G> + ?Sized>(
    evaluator: &E,
    positions: &[G],
) -> Vec<Value> {
    positions
        .iter()
        .map(|game| evaluator.evaluate_one(game))
        .collect()
}

/// An evaluator specification that could not be turned into an evaluator.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad evaluator '{spec}': {message}")]
pub struct EvalError {
    /// The evaluator spec as given (`material`, `tm:models/x.tm`, ...).
    pub spec: String,
    /// Why it was rejected.
    pub message: String,
}

/// Builds an evaluator from the argument after `name:` (empty when there is none).
pub type EvalConstructor<G> = fn(&str) -> Result<Arc<dyn Evaluator<G>>, String>;

struct RegistryEntry<G: Game> {
    name: &'static str,
    doc: &'static str,
    build: EvalConstructor<G>,
}

/// The evaluators available for a game, by spec name (`random`, `material`, `tm`, ...).
pub struct EvalRegistry<G: Game> {
    entries: Vec<RegistryEntry<G>>,
}

impl<G: Game> Default for EvalRegistry<G> {
    fn default() -> Self {
        let mut registry = EvalRegistry {
            entries: Vec::new(),
        };
        registry.register(
            "random",
            "random[:SEED] - a pseudo-random value per position (fixed by the seed)",
            |arg| {
                let seed = if arg.is_empty() {
                    0
                } else {
                    arg.parse::<u64>()
                        .map_err(|_| format!("seed '{arg}' is not a non-negative integer"))?
                };
                Ok(Arc::new(RandomEval { seed }))
            },
        );
        registry
    }
}

impl<G: Game> EvalRegistry<G> {
    /// Adds (or replaces) the evaluator `name`, documented by `doc`.
    pub fn register(&mut self, name: &'static str, doc: &'static str, build: EvalConstructor<G>) {
        self.entries.retain(|entry| entry.name != name);
        self.entries.push(RegistryEntry { name, doc, build });
    }

    /// Builds the evaluator described by `spec` (`name` or `name:argument`).
    pub fn build(&self, spec: &str) -> Result<Arc<dyn Evaluator<G>>, EvalError> {
        let (name, arg) = spec.split_once(':').unwrap_or((spec, ""));
        let error = |message: String| EvalError {
            spec: spec.to_string(),
            message,
        };
        let entry = self
            .entries
            .iter()
            .find(|entry| entry.name == name)
            .ok_or_else(|| error(format!("unknown evaluator; known: {}", self.names())))?;
        (entry.build)(arg).map_err(error)
    }

    /// The registered names, comma separated.
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.entries.iter().map(|entry| entry.name).collect();
        names.join(", ")
    }

    /// `(name, doc)` of every registered evaluator.
    pub fn docs(&self) -> Vec<(&'static str, &'static str)> {
        self.entries
            .iter()
            .map(|entry| (entry.name, entry.doc))
            .collect()
    }
}

/// Games that know their evaluators.
pub trait EvalGame: Game {
    /// The evaluator players use when their spec names none.
    const DEFAULT_EVAL: &'static str = "random";

    /// The registry of evaluators for this game (the generic ones plus the game's own).
    fn evaluators() -> EvalRegistry<Self> {
        EvalRegistry::default()
    }
}

/// A uniform pseudo-random value per position, drawn from a sub-stream of `seed` picked by
/// the position hash (so the same position always gets the same value).
#[derive(Clone, Copy, Debug)]
pub struct RandomEval {
    /// The seed of the value stream.
    pub seed: u64,
}

impl<G: Game> Evaluator<G> for RandomEval {
    fn evaluate(&self, positions: &[G]) -> Vec<Value> {
        positions
            .iter()
            .map(|game| Value::new(rng::substream(self.seed, game.hash()).random::<f64>()))
            .collect()
    }
}

/// The value of a finished game for the side to move (1 won, 0.5 drawn, 0 lost), if over.
pub fn terminal_value<G: Game>(game: &G) -> Option<f64> {
    game.outcome()
        .map(|outcome| outcome.score_for(game.side_to_move()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::toy::TicTacToe;

    #[test]
    fn registry_builds_known_specs_and_names_unknown_ones() {
        let registry = TicTacToe::evaluators();
        let eval = registry.build("random:7").unwrap();
        let positions = [TicTacToe::default(), TicTacToe::from_moves(&[4])];
        let first = eval.evaluate(&positions);
        assert_eq!(first, eval.evaluate(&positions), "fixed by the seed");
        assert!(first.iter().all(|v| (0.0..1.0).contains(&v.value)));
        assert_ne!(first[0], first[1]);
        let err = registry.build("oracle").err().unwrap();
        assert_eq!(err.spec, "oracle");
        assert!(err.message.contains("random"), "{err}");
        assert!(registry.build("random:x").is_err());
    }
}

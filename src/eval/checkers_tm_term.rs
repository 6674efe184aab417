//! The knowledge evaluation with a Tsetlin Machine's judgement as one more term (seed 001's
//! kind of model as an evaluation feature, not the whole evaluation): the model's expected
//! outcome for the side to move, its class values weighted by their votes as `tm-votes`
//! reads them, from -1 (a sure loss) to 1 (a sure win), times a weight in hundredths of a
//! man, added to the knowledge score before the logistic.

use super::checkers::logistic_value;
use super::checkers_knowledge::Knowledge;
use super::tm::{path_and_device, TmEvaluator};
use super::{Evaluator, Value};
use crate::game::checkers::Checkers;
use crate::game::Game;
use std::sync::Arc;

/// Weight of the machine's term when the spec gives none (hundredths of a man).
pub const DEFAULT_WEIGHT: f64 = 50.0;

/// The built-in knowledge evaluation plus a weighted Tsetlin Machine term.
pub struct KnowledgeWithTm {
    knowledge: Knowledge,
    machine: TmEvaluator<Checkers>,
    weight: f64,
}

impl KnowledgeWithTm {
    /// The built-in knowledge plus `machine`'s term at `weight`.
    pub fn new(machine: TmEvaluator<Checkers>, weight: f64) -> KnowledgeWithTm {
        KnowledgeWithTm {
            knowledge: Knowledge::default(),
            machine: machine.graded(),
            weight,
        }
    }
}

impl Evaluator<Checkers> for KnowledgeWithTm {
    fn check(&self, game: &Checkers) -> Result<(), String> {
        self.machine.check(game)
    }

    fn evaluate(&self, positions: &[Checkers]) -> Vec<Value> {
        let judged = self.machine.evaluate(positions);
        positions
            .iter()
            .zip(judged)
            .map(|(game, judged)| {
                logistic_value(game, self.knowledge.scale, || {
                    self.knowledge.score(game.position(), game.side_to_move())
                        + self.weight * (2.0 * judged.value - 1.0)
                })
            })
            .collect()
    }
}

/// Builds `knowledge-tm:PATH[,weight=W][,device=cuda]` for the registry.
pub fn build(arg: &str) -> Result<Arc<dyn Evaluator<Checkers>>, String> {
    let usage = "knowledge-tm:PATH[,weight=W][,device=cuda]";
    let (rest, device) = path_and_device(arg)?;
    let (path, weight) = match rest.rsplit_once(",weight=") {
        Some((path, weight)) => (
            path,
            weight
                .parse::<f64>()
                .ok()
                .filter(|w| w.is_finite())
                .ok_or_else(|| format!("{usage}: bad weight '{weight}'"))?,
        ),
        None => (rest, DEFAULT_WEIGHT),
    };
    if path.is_empty() {
        return Err(format!("knowledge-tm needs a model file: {usage}"));
    }
    let machine = TmEvaluator::<Checkers>::load(path)?.on(device)?;
    Ok(Arc::new(KnowledgeWithTm::new(machine, weight)))
}

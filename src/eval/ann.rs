//! Neural network evaluators (`eval=ann:PATH`): a model file saved by `arena evolve` (or
//! written by hand) judges each position from the view of the player who just moved, as
//! its network was trained to; the value for the side to move is one minus that verdict
//! (the output mapped to [0,1], see [`crate::nn::Activation::to_unit`]).

use super::{Evaluator, Value};
use crate::nn::encoding::NetInput;
use crate::nn::NetModel;
use std::path::Path;
use std::sync::Arc;

/// A network judging positions of one game.
#[derive(Clone, Debug)]
pub struct AnnEvaluator {
    model: NetModel,
}

impl AnnEvaluator {
    /// An evaluator of `model`.
    pub fn new(model: NetModel) -> AnnEvaluator {
        AnnEvaluator { model }
    }

    /// The model.
    pub fn model(&self) -> &NetModel {
        &self.model
    }

    /// The value of `position` for its side to move.
    pub fn value<G: NetInput>(&self, position: &G, input: &mut Vec<f64>) -> f64 {
        let viewer = position.side_to_move().opponent();
        position.net_input(self.model.encoding, viewer, input);
        let network = &self.model.network;
        1.0 - network.shape.activation.to_unit(network.forward(input))
    }
}

impl<G: NetInput> Evaluator<G> for AnnEvaluator {
    fn evaluate(&self, positions: &[G]) -> Vec<Value> {
        let mut input = Vec::new();
        positions
            .iter()
            .map(|p| Value::new(self.value(p, &mut input)))
            .collect()
    }

    fn check(&self, game: &G) -> Result<(), String> {
        if self.model.game != G::GAME {
            return Err(format!(
                "the network plays {}, not {}",
                self.model.game,
                G::GAME
            ));
        }
        if game.board_size() != self.model.size {
            return Err(format!(
                "the network plays size {}, not {}",
                self.model.size,
                game.board_size()
            ));
        }
        Ok(())
    }
}

/// The registry constructor of `ann:PATH`.
pub fn build<G: NetInput + 'static>(arg: &str) -> Result<Arc<dyn Evaluator<G>>, String> {
    if arg.is_empty() {
        return Err("ann needs a model file: ann:PATH".into());
    }
    let model = NetModel::load(Path::new(arg))?;
    if model.game != G::GAME {
        return Err(format!(
            "{arg} is a {} network, not a {} one",
            model.game,
            G::GAME
        ));
    }
    Ok(Arc::new(AnnEvaluator::new(model)))
}

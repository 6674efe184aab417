//! Tsetlin Machine evaluators: a model saved by `arena train` judges positions through the
//! feature encoder named in its file (`eval=tm:PATH`). PATH may also be an inference export
//! written by `arena export` (a `.tmi`: include masks and weights only); it names no encoder,
//! so the game's encoder is assumed and its feature count is checked against it.
//!
//! Class meanings follow the seed datasets the models are trained on: checkers models
//! (`checkers-planes`) use seed 001's labels from Black's view (0 loss, 1 win, 2 draw); Hex
//! models (`hex-connection`) use seed 000's winner classes (0: red = Black, who joins top and
//! bottom, wins; 1: blue = White wins). As in the checkers thesis, a position is worth the
//! outcome of its predicted class (loss 0, draw 0.5, win 1), turned to the side to move; the
//! certainty is the vote margin between the two best classes over 2T.

use super::{Evaluator, Value};
use crate::features::{checkers_planes, hex_connection::HexConnection};
use crate::game::checkers::Checkers;
use crate::game::hex::Hex;
use crate::game::{Color, Game};
use crate::tm::data::Dataset;
use crate::tm::inference::InferenceModel;
use crate::tm::persist::{is_inference_export, read_inference, Machine, SavedModel};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a game's positions become a TM's input, and what its classes are worth.
pub trait TmEncoding: Game {
    /// The encoder names a model for this game may carry.
    const ENCODERS: &'static [&'static str];

    /// Each class's value for Black, given the model's class count.
    fn class_values(classes: usize) -> Result<Vec<f64>, String>;

    /// The position's features (0/1), or why it cannot be encoded for a model of
    /// `features` inputs.
    fn encode(&self, features: usize) -> Result<Vec<u8>, String>;

    /// Why a model of `features` inputs cannot be one of this game's encoder (checked for
    /// inference exports, which do not name their encoder).
    fn check_features(features: usize) -> Result<(), String>;
}

impl TmEncoding for Checkers {
    const ENCODERS: &'static [&'static str] = &["checkers-planes"];

    fn class_values(classes: usize) -> Result<Vec<f64>, String> {
        match classes {
            3 => Ok(vec![0.0, 1.0, 0.5]),
            2 => Ok(vec![0.0, 1.0]),
            n => Err(format!(
                "a checkers model needs 2 or 3 classes (loss, win[, draw]), not {n}"
            )),
        }
    }

    fn encode(&self, _features: usize) -> Result<Vec<u8>, String> {
        let [bm, bk, wm, wk] = self.position().planes();
        let squares: Vec<u8> = (0..32)
            .map(|i| {
                let bit = 1u32 << i;
                [(bm, 1), (bk, 2), (wm, 3), (wk, 4)]
                    .iter()
                    .find(|(plane, _)| plane & bit != 0)
                    .map_or(0, |&(_, code)| code)
            })
            .collect();
        checkers_planes::encode(&squares)
    }

    fn check_features(features: usize) -> Result<(), String> {
        if features == checkers_planes::FEATURES {
            Ok(())
        } else {
            Err(format!(
                "{features} features, but a checkers model reads the {} checkers-planes features",
                checkers_planes::FEATURES
            ))
        }
    }
}

impl TmEncoding for Hex {
    const ENCODERS: &'static [&'static str] = &["hex-connection", "hex-connection-edges"];

    fn class_values(classes: usize) -> Result<Vec<f64>, String> {
        match classes {
            2 => Ok(vec![1.0, 0.0]),
            n => Err(format!(
                "a Hex model needs 2 classes (red/Black wins, blue/White wins), not {n}"
            )),
        }
    }

    fn encode(&self, features: usize) -> Result<Vec<u8>, String> {
        // The feature count tells the plain connection features from those with edges.
        let (w, h) = (self.width(), self.height());
        let encoder = [HexConnection::new(w, h), HexConnection::with_edges(w, h)]
            .into_iter()
            .find(|e| e.feature_count() == features)
            .unwrap_or_else(|| HexConnection::new(w, h));
        if encoder.feature_count() != features {
            return Err(format!(
                "the model evaluates {} boards, this game is {}x{} ({features} features, \
                 not {})",
                hex_model_board(features),
                self.width(),
                self.height(),
                encoder.feature_count()
            ));
        }
        let stones: Vec<Option<Color>> = (0..self.cell_count()).map(|c| self.stone(c)).collect();
        encoder.encode_stones(&stones)
    }

    fn check_features(features: usize) -> Result<(), String> {
        // N cells give N(N+1) connection features, and two more with the edge symbols.
        let is_connection = |f: usize| {
            let cells = ((4.0 * f as f64 + 1.0).sqrt() as usize).saturating_sub(1) / 2;
            f > 0 && cells * (cells + 1) == f
        };
        if is_connection(features) || (features > 2 && is_connection(features - 2)) {
            Ok(())
        } else {
            Err(format!(
                "{features} features is neither N(N+1) nor N(N+1)+2 for N cells, as the \
                 hex-connection features of a board are"
            ))
        }
    }
}

/// The board a `hex-connection` model of `features` inputs was trained on: `9x9` for a
/// square board, else its cell count (`n` cells give n(n+1) features).
fn hex_model_board(features: usize) -> String {
    let cells = (0..=features).find(|n| n * (n + 1) >= features);
    match cells {
        Some(n) if n * (n + 1) == features => match (0..=n).find(|side| side * side >= n) {
            Some(side) if side * side == n => format!("{side}x{side}"),
            _ => format!("{n}-cell"),
        },
        _ => format!("unknown ({features} features)"),
    }
}

/// How the evaluator computes class sums: per-class and coalesced machines are compiled to
/// include masks; convolutional machines test every patch, sample by sample.
enum Scorer {
    Compiled(InferenceModel),
    Patches(Box<Machine>),
}

impl Scorer {
    fn class_sums(&self, data: &Dataset) -> Vec<i32> {
        match self {
            Scorer::Compiled(model) => model.class_sums(data),
            Scorer::Patches(machine) => (0..data.len())
                .flat_map(|i| machine.class_sums(data.row(i)))
                .collect(),
        }
    }
}

/// A saved Tsetlin Machine used as an evaluator.
pub struct TmEvaluator<G> {
    scorer: Scorer,
    features: usize,
    class_values: Vec<f64>,
    threshold: f64,
    /// Value by the votes (see [`TmEvaluator::graded`]) instead of by the winning class.
    graded: bool,
    warned: AtomicBool,
    game: PhantomData<fn(&G)>,
}

impl<G: TmEncoding> TmEvaluator<G> {
    /// Loads the model (or inference export) at `path`; it must have been trained with
    /// `G`'s encoder.
    pub fn load(path: &str) -> Result<TmEvaluator<G>, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        if is_inference_export(&bytes) {
            let model = read_inference(&bytes, path).map_err(|e| e.to_string())?;
            G::check_features(model.features())
                .map_err(|e| format!("{path}: an inference export from arena export with {e}"))?;
            let class_values =
                G::class_values(model.classes()).map_err(|e| format!("{path}: {e}"))?;
            return Ok(TmEvaluator {
                features: model.features(),
                threshold: f64::from(model.threshold()),
                scorer: Scorer::Compiled(model),
                class_values,
                graded: false,
                warned: AtomicBool::new(false),
                game: PhantomData,
            });
        }
        let saved = SavedModel::from_bytes(&bytes, path).map_err(|e| e.to_string())?;
        if !G::ENCODERS.contains(&saved.encoder.as_str()) {
            return Err(format!(
                "{path}: the model uses the '{}' encoder, this game needs {}",
                saved.encoder,
                G::ENCODERS
                    .iter()
                    .map(|e| format!("'{e}'"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ));
        }
        let class_values =
            G::class_values(saved.machine.classes()).map_err(|e| format!("{path}: {e}"))?;
        let features = saved.machine.features();
        let threshold = f64::from(saved.machine.params().threshold);
        let scorer = match saved.machine {
            Machine::PerClass(tm) => Scorer::Compiled(tm.compile()),
            Machine::Coalesced(tm) => Scorer::Compiled(tm.compile()),
            conv @ Machine::Conv(_) => Scorer::Patches(Box::new(conv)),
        };
        Ok(TmEvaluator {
            scorer,
            features,
            class_values,
            threshold,
            graded: false,
            warned: AtomicBool::new(false),
            game: PhantomData,
        })
    }

    /// The same machine valuing a position by all its votes: each class weighted by
    /// e^(4 x its clamped sum / T), so the value moves with the vote margin instead of
    /// jumping between the class values (the winning class alone decides under the thesis's
    /// rule, which leaves one-ply searches with ties among most moves).
    pub fn graded(mut self) -> TmEvaluator<G> {
        self.graded = true;
        self
    }

    /// The value of one position's class sums, for the side to move.
    fn value(&self, sums: &[i32], to_move: Color) -> Value {
        let mut order: Vec<usize> = (0..sums.len()).collect();
        order.sort_by_key(|&c| (std::cmp::Reverse(sums[c]), c));
        let black = if self.graded {
            let weights: Vec<f64> = sums
                .iter()
                .map(|&s| (4.0 * f64::from(s - sums[order[0]]) / self.threshold).exp())
                .collect();
            let total: f64 = weights.iter().sum();
            weights
                .iter()
                .zip(&self.class_values)
                .map(|(w, v)| w * v)
                .sum::<f64>()
                / total
        } else {
            self.class_values[order[0]]
        };
        let margin = f64::from(sums[order[0]] - sums[order[1]]);
        let value = if to_move == Color::Black {
            black
        } else {
            1.0 - black
        };
        Value {
            value,
            certainty: Some((margin / (2.0 * self.threshold)).clamp(0.0, 1.0)),
        }
    }
}

impl<G: TmEncoding> Evaluator<G> for TmEvaluator<G> {
    fn check(&self, game: &G) -> Result<(), String> {
        game.encode(self.features).map(|_| ())
    }

    fn evaluate(&self, positions: &[G]) -> Vec<Value> {
        let features = self.features;
        let mut data = Dataset::unnamed(features);
        let mut encodable = Vec::with_capacity(positions.len());
        for position in positions {
            match position.encode(features) {
                Ok(bits) => {
                    data.push(&bits, 0);
                    encodable.push(true);
                }
                Err(message) => {
                    if !self.warned.swap(true, Ordering::Relaxed) {
                        eprintln!(
                            "tm evaluator: {message}; such positions get the neutral value 0.5"
                        );
                    }
                    encodable.push(false);
                }
            }
        }
        let sums = self.scorer.class_sums(&data);
        let classes = self.class_values.len();
        let mut rows = sums.chunks(classes);
        positions
            .iter()
            .zip(encodable)
            .map(|(position, ok)| match (ok, rows.next()) {
                (true, Some(row)) => self.value(row, position.side_to_move()),
                _ => Value {
                    value: 0.5,
                    certainty: Some(0.0),
                },
            })
            .collect()
    }
}

/// Builds the `tm-votes:PATH` evaluator for the registry (see [`TmEvaluator::graded`]).
pub fn build_graded<G: TmEncoding + 'static>(
    arg: &str,
) -> Result<std::sync::Arc<dyn Evaluator<G>>, String> {
    if arg.is_empty() {
        return Err("tm-votes needs a model file: tm-votes:PATH".to_string());
    }
    Ok(std::sync::Arc::new(TmEvaluator::<G>::load(arg)?.graded()))
}

/// Builds the `tm:PATH` evaluator for the registry.
pub fn build<G: TmEncoding + 'static>(
    arg: &str,
) -> Result<std::sync::Arc<dyn Evaluator<G>>, String> {
    if arg.is_empty() {
        return Err("tm needs a model file: tm:PATH".to_string());
    }
    Ok(std::sync::Arc::new(TmEvaluator::<G>::load(arg)?))
}

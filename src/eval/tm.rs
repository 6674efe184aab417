//! Tsetlin Machine evaluators: a model saved by `arena train` judges positions through the
//! feature encoder named in its file (`eval=tm:PATH`; see [`crate::features::encoder`]).
//! PATH may also be an inference export written by `arena export` (a `.tmi`: include masks,
//! weights and the encoder's name; exports of version 1 name none, so the game's plain
//! encoders are tried by their feature count).
//!
//! Class meanings follow the seed datasets the models are trained on, turned by the
//! encoder's [`Perspective`]: checkers models give the outcome for Black (or White, or the
//! side to move: 0 loss, 1 win, 2 draw); Hex models give seed 000's winner classes (0: Black,
//! who joins top and bottom, wins; 1: White wins). As in the checkers thesis, a position is
//! worth the outcome of its predicted class (loss 0, draw 0.5, win 1), turned to the side to
//! move; the certainty is the vote margin between the two best classes over 2T.

use super::{Evaluator, Value};
use crate::features::encoder::{GameOf, Kind, Perspective, Sample, LIST};
use crate::features::Encoder;
use crate::game::checkers::Checkers;
use crate::game::hex::Hex;
use crate::game::{Color, Game};
use crate::tm::data::Dataset;
use crate::tm::device::{BatchScorer, Device};
use crate::tm::persist::{is_inference_export, read_export, Machine, SavedModel};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a game's positions reach an encoder, and what a model's classes are worth.
pub trait TmEncoding: Game {
    /// The encoders of this game.
    const GAME: GameOf;

    /// The encoders tried for an inference export, which names none.
    const EXPORT_ENCODERS: &'static [Kind];

    /// Each class's value for the model's perspective side, given the class count.
    fn class_values(classes: usize) -> Result<Vec<f64>, String>;

    /// The position as an encoder reads it.
    fn sample(&self) -> Sample<'_>;

    /// The board a model of `features` inputs through `encoder` was trained on, if it can
    /// be told (for error messages).
    fn model_board(_encoder: &Encoder, _features: usize) -> Option<String> {
        None
    }

    /// This position's board, as [`TmEncoding::model_board`] names it.
    fn board_name(&self) -> Option<String> {
        None
    }
}

impl TmEncoding for Checkers {
    const GAME: GameOf = GameOf::Checkers;
    const EXPORT_ENCODERS: &'static [Kind] = &[Kind::CheckersPlanes, Kind::CheckersMeta];

    fn class_values(classes: usize) -> Result<Vec<f64>, String> {
        match classes {
            3 => Ok(vec![0.0, 1.0, 0.5]),
            2 => Ok(vec![0.0, 1.0]),
            n => Err(format!(
                "a checkers model needs 2 or 3 classes (loss, win[, draw]), not {n}"
            )),
        }
    }

    fn sample(&self) -> Sample<'_> {
        Sample::Checkers {
            planes: self.position().planes(),
            to_move: Some(self.side_to_move()),
        }
    }
}

impl TmEncoding for Hex {
    const GAME: GameOf = GameOf::Hex;
    const EXPORT_ENCODERS: &'static [Kind] = &[Kind::HexConnection, Kind::HexCompact];

    fn class_values(classes: usize) -> Result<Vec<f64>, String> {
        match classes {
            2 => Ok(vec![1.0, 0.0]),
            n => Err(format!(
                "a Hex model needs 2 classes (Black wins, White wins), not {n}"
            )),
        }
    }

    fn sample(&self) -> Sample<'_> {
        Sample::Hex(self)
    }

    fn model_board(encoder: &Encoder, features: usize) -> Option<String> {
        (1..=19).find_map(|side| {
            let board = Hex::new(side, side).ok()?;
            (encoder.feature_count(Sample::Hex(&board)).ok()? == features)
                .then(|| format!("{side}x{side}"))
        })
    }

    fn board_name(&self) -> Option<String> {
        Some(format!("{}x{}", self.width(), self.height()))
    }
}

/// The encoder of a model: named in its file, or (for an inference export) the first of the
/// game's plain encoders whose feature count fits the position.
#[derive(Clone, Debug)]
enum Encoding {
    Named(Encoder),
    ByCount(Vec<Encoder>),
}

impl Encoding {
    fn for_sample(&self, sample: Sample, features: usize) -> Option<&Encoder> {
        match self {
            Encoding::Named(encoder) => Some(encoder),
            Encoding::ByCount(list) => list
                .iter()
                .find(|e| e.feature_count(sample) == Ok(features)),
        }
    }
}

/// How the evaluator computes class sums: per-class and coalesced machines are compiled to
/// include masks; convolutional machines test every patch, sample by sample.
enum Scorer {
    Compiled(BatchScorer),
    Patches(Box<Machine>),
}

impl Scorer {
    fn class_sums(&self, data: &Dataset) -> Vec<i32> {
        match self {
            Scorer::Compiled(scorer) => scorer.class_sums(data),
            Scorer::Patches(machine) => (0..data.len())
                .flat_map(|i| machine.class_sums(data.row(i)))
                .collect(),
        }
    }
}

/// A saved Tsetlin Machine used as an evaluator.
pub struct TmEvaluator<G> {
    scorer: Scorer,
    encoding: Encoding,
    perspective: Perspective,
    features: usize,
    class_values: Vec<f64>,
    threshold: f64,
    /// Value by the votes (see [`TmEvaluator::graded`]) instead of by the winning class.
    graded: bool,
    warned: AtomicBool,
    game: PhantomData<fn(&G)>,
}

impl<G: TmEncoding> TmEvaluator<G> {
    /// Loads the model (or inference export) at `path`; its encoder must read `G`'s
    /// positions.
    pub fn load(path: &str) -> Result<TmEvaluator<G>, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        if is_inference_export(&bytes) {
            let export = read_export(&bytes, path).map_err(|e| e.to_string())?;
            let model = export.model;
            let class_values =
                G::class_values(model.classes()).map_err(|e| format!("{path}: {e}"))?;
            let encoding = match export.encoder {
                Some(name) => Encoding::Named(Self::encoder_of(path, &name)?),
                None => {
                    Encoding::ByCount(G::EXPORT_ENCODERS.iter().map(|&k| Encoder::of(k)).collect())
                }
            };
            let perspective = match &encoding {
                Encoding::Named(encoder) => encoder.perspective(),
                Encoding::ByCount(_) => Perspective::Black,
            };
            return Ok(TmEvaluator {
                features: model.features(),
                threshold: f64::from(model.threshold()),
                scorer: Scorer::Compiled(BatchScorer::Cpu(model)),
                encoding,
                perspective,
                class_values,
                graded: false,
                warned: AtomicBool::new(false),
                game: PhantomData,
            });
        }
        let saved = SavedModel::from_bytes(&bytes, path).map_err(|e| e.to_string())?;
        let encoder = Self::encoder_of(path, &saved.encoder)?;
        let class_values =
            G::class_values(saved.machine.classes()).map_err(|e| format!("{path}: {e}"))?;
        let features = saved.machine.features();
        let threshold = f64::from(saved.machine.params().threshold);
        let scorer = match saved.machine {
            Machine::PerClass(tm) => Scorer::Compiled(BatchScorer::Cpu(tm.compile())),
            Machine::Coalesced(tm) => Scorer::Compiled(BatchScorer::Cpu(tm.compile())),
            conv @ Machine::Conv(_) => Scorer::Patches(Box::new(conv)),
        };
        Ok(TmEvaluator {
            scorer,
            encoding: Encoding::Named(encoder),
            perspective: encoder.perspective(),
            features,
            class_values,
            threshold,
            graded: false,
            warned: AtomicBool::new(false),
            game: PhantomData,
        })
    }

    /// The same evaluator scoring on `device` (the model is uploaded now for a GPU).
    pub fn on(mut self, device: Device) -> Result<TmEvaluator<G>, String> {
        if device != Device::Cuda {
            return Ok(self);
        }
        self.scorer = match self.scorer {
            Scorer::Compiled(scorer) => {
                Scorer::Compiled(BatchScorer::new(device, scorer.into_model())?)
            }
            Scorer::Patches(_) => {
                return Err("a convolutional model evaluates on the cpu only".into());
            }
        };
        Ok(self)
    }

    /// The encoder called `name` in the model file at `path`, if it reads `G`'s positions.
    fn encoder_of(path: &str, name: &str) -> Result<Encoder, String> {
        let encoder = Encoder::parse(name).map_err(|e| format!("{path}: {e}"))?;
        if encoder.game() != G::GAME {
            let ours: Vec<&str> = LIST
                .iter()
                .filter(|e| e.kind.game() == G::GAME)
                .map(|e| e.name)
                .collect();
            return Err(format!(
                "{path}: the model uses the '{name}' encoder; this game's models use {}",
                ours.join(" or ")
            ));
        }
        Ok(encoder)
    }

    /// Appends `position`'s features to `out`, or says why the model cannot read it.
    fn encode(&self, position: &G, out: &mut Vec<u8>) -> Result<(), String> {
        let sample = position.sample();
        let encoder = self.encoding.for_sample(sample, self.features);
        let count = encoder.map(|e| e.feature_count(sample));
        match (encoder, count) {
            (Some(encoder), Some(Ok(n))) if n == self.features => encoder.encode(sample, out),
            (Some(encoder), Some(Ok(n))) => Err(
                match (
                    G::model_board(encoder, self.features),
                    position.board_name(),
                ) {
                    (Some(model), Some(board)) => format!(
                        "the model evaluates {model} boards, this game is {board} ({} \
                         features, not {n})",
                        self.features
                    ),
                    _ => format!(
                        "the model reads {} features of {}, this position gives {n}",
                        self.features,
                        encoder.name()
                    ),
                },
            ),
            (_, Some(Err(e))) => Err(e),
            _ => Err(format!(
                "no encoder of this game gives the export's {} features{}",
                self.features,
                position
                    .board_name()
                    .map(|b| format!(" on {b}"))
                    .unwrap_or_default()
            )),
        }
    }

    /// The same machine valuing a position by all its votes: each class weighted by
    /// e^(4 x its clamped sum / T), so the value moves with the vote margin instead of
    /// jumping between the class values (the winning class alone decides under the thesis's
    /// rule, which leaves one-ply searches with ties among most moves).
    pub fn graded(mut self) -> TmEvaluator<G> {
        self.graded = true;
        self
    }

    /// The value of one position's class sums (for the model's perspective side), turned to
    /// the side to move.
    fn value(&self, sums: &[i32], to_move: Color) -> Value {
        let mut order: Vec<usize> = (0..sums.len()).collect();
        order.sort_by_key(|&c| (std::cmp::Reverse(sums[c]), c));
        let seen = if self.graded {
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
        let seen_by = match self.perspective {
            Perspective::Black => Color::Black,
            Perspective::White => Color::White,
            Perspective::Mover => to_move,
        };
        let value = if to_move == seen_by { seen } else { 1.0 - seen };
        Value {
            value,
            certainty: Some((margin / (2.0 * self.threshold)).clamp(0.0, 1.0)),
        }
    }
}

impl<G: TmEncoding> Evaluator<G> for TmEvaluator<G> {
    fn check(&self, game: &G) -> Result<(), String> {
        self.encode(game, &mut Vec::new())
    }

    fn evaluate(&self, positions: &[G]) -> Vec<Value> {
        let features = self.features;
        let mut data = Dataset::unnamed(features);
        let mut encodable = Vec::with_capacity(positions.len());
        let mut bits = Vec::with_capacity(features);
        for position in positions {
            bits.clear();
            match self.encode(position, &mut bits) {
                Ok(()) => {
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
        return Err("tm-votes needs a model file: tm-votes:PATH[,device=cuda]".to_string());
    }
    let (path, device) = path_and_device(arg)?;
    Ok(std::sync::Arc::new(
        TmEvaluator::<G>::load(path)?.on(device)?.graded(),
    ))
}

/// Splits `PATH[,device=cpu|cuda]`.
pub(crate) fn path_and_device(arg: &str) -> Result<(&str, Device), String> {
    match arg.rsplit_once(",device=") {
        Some((path, device)) => Ok((path, device.parse()?)),
        None => Ok((arg, Device::Cpu)),
    }
}

/// Builds the `tm:PATH` evaluator for the registry.
pub fn build<G: TmEncoding + 'static>(
    arg: &str,
) -> Result<std::sync::Arc<dyn Evaluator<G>>, String> {
    if arg.is_empty() {
        return Err("tm needs a model file: tm:PATH[,device=cuda]".to_string());
    }
    let (path, device) = path_and_device(arg)?;
    Ok(std::sync::Arc::new(
        TmEvaluator::<G>::load(path)?.on(device)?,
    ))
}

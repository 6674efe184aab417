//! The network model file (`.ann`): a JSON object naming its format, the game, the board
//! size, the input encoding and the network (shape and weights), so that `eval=ann:PATH`
//! needs nothing else.
//!
//! ```json
//! {"format": "tmbot-ann", "version": 1, "game": "hex", "size": 7,
//!  "encoding": "hex-signed", "sizes": [49, 5, 1], "activation": "sigmoid", "skip": 0,
//!  "weights": [0.12, -1.3, ...]}
//! ```

use super::encoding::Encoding;
use super::network::Network;
use crate::tm::persist::write_atomically;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The `format` field of every model file.
pub const FORMAT: &str = "tmbot-ann";
/// The file format version this build reads and writes.
pub const VERSION: u32 = 1;

/// A saved network with what it plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetModel {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// `hex` or `checkers`.
    pub game: String,
    /// Hex board side (0 for checkers).
    pub size: usize,
    /// The input encoding.
    pub encoding: Encoding,
    /// The network.
    #[serde(flatten)]
    pub network: Network,
}

impl NetModel {
    /// A model of `network` reading `encoding` on a board of `size` (0 for checkers).
    pub fn new(encoding: Encoding, size: usize, network: Network) -> Result<NetModel, String> {
        let model = NetModel {
            format: FORMAT.into(),
            version: VERSION,
            game: encoding.game().into(),
            size,
            encoding,
            network,
        };
        model.check()?;
        Ok(model)
    }

    /// Checks that the parts fit together, naming the first that does not.
    pub fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format is '{}', expected '{FORMAT}'", self.format));
        }
        if self.version != VERSION {
            return Err(format!(
                "format version {} is not supported (this build reads {VERSION})",
                self.version
            ));
        }
        if self.game != self.encoding.game() {
            return Err(format!(
                "game '{}' does not match encoding '{}' (a {} encoding)",
                self.game,
                self.encoding.name(),
                self.encoding.game()
            ));
        }
        let cells = self.size * self.size;
        if self.game == "hex" && !(1..=19).contains(&self.size) {
            return Err(format!("Hex board size {} is not 1 to 19", self.size));
        }
        let inputs = self.encoding.inputs(cells);
        let shape = &self.network.shape;
        if shape.inputs() != inputs {
            return Err(format!(
                "encoding '{}' gives {inputs} inputs here, the network takes {}",
                self.encoding.name(),
                shape.inputs()
            ));
        }
        if shape.skip != self.encoding.skip() {
            return Err(format!(
                "encoding '{}' feeds {} direct inputs, the network has skip {}",
                self.encoding.name(),
                self.encoding.skip(),
                shape.skip
            ));
        }
        Network::new(shape.clone(), self.network.weights.clone()).map(|_| ())
    }

    /// Reads and checks a model file.
    pub fn load(path: &Path) -> Result<NetModel, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        NetModel::parse(&text).map_err(|err| format!("{}: {err}", path.display()))
    }

    /// Parses and checks a model's JSON text.
    pub fn parse(text: &str) -> Result<NetModel, String> {
        let model: NetModel =
            serde_json::from_str(text).map_err(|err| format!("not a network model: {err}"))?;
        model.check()?;
        Ok(model)
    }

    /// Writes the model (to a temporary file renamed into place).
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string(self).map_err(|err| err.to_string())?;
        write_atomically(path, text.as_bytes())
            .map_err(|err| format!("cannot write {}: {err}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nn::network::{Activation, Shape};

    fn model() -> NetModel {
        let shape = Shape {
            sizes: vec![9, 2, 1],
            activation: Activation::Sigmoid,
            skip: 0,
        };
        let weights = (0..shape.genome_len())
            .map(|i| i as f64 * 0.1 - 1.0)
            .collect();
        NetModel::new(
            Encoding::HexSigned,
            3,
            Network::new(shape, weights).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn round_trips_exactly_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.ann");
        let mut original = model();
        original.network.weights[3] = 0.1 + 0.2;
        original.save(&path).unwrap();
        assert_eq!(NetModel::load(&path).unwrap(), original);
    }

    #[test]
    fn bad_files_are_named() {
        let good = serde_json::to_value(model()).unwrap();
        let broken = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v = good.clone();
            edit(&mut v);
            NetModel::parse(&v.to_string()).unwrap_err()
        };
        assert!(broken(&|v| v["format"] = "x".into()).contains("format"));
        assert!(broken(&|v| v["version"] = 9.into()).contains("version 9"));
        assert!(broken(&|v| v["size"] = 4.into()).contains("16 inputs"));
        assert!(broken(&|v| v["game"] = "checkers".into()).contains("does not match"));
        assert!(broken(&|v| v["encoding"] = "go".into()).contains("not a network model"));
        assert!(broken(&|v| v["weights"]
            .as_array_mut()
            .unwrap()
            .pop()
            .map(drop)
            .unwrap())
        .contains("weights"));
        assert!(broken(&|v| v["activation"] = "cubic".into()).contains("not a network model"));
        assert!(NetModel::parse("{")
            .unwrap_err()
            .contains("not a network model"));
    }
}

//! Small feed-forward neural networks for position evaluation (seed 003's evolved Hex
//! players, Blondie24-style checkers networks).
//!
//! - [`network`]: the network (layer sizes, activation, one flat genome of weights);
//! - [`encoding`]: how a game's positions become the network's inputs;
//! - [`model`]: the model file (`.ann`, JSON) that `eval=ann:PATH` loads;
//! - [`fast_hex`]: seed 003's one-ply Hex player with incremental first-layer sums.

pub mod encoding;
pub mod fast_hex;
pub mod model;
pub mod network;

pub use encoding::Encoding;
pub use model::NetModel;
pub use network::{Activation, Network};

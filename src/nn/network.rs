//! A fully connected feed-forward network with one output, stored as one flat genome so
//! that evolution can breed it weight by weight.
//!
//! Genome layout, layer after layer (`sizes = [inputs, hidden..., 1]`): for each layer of
//! `n_in -> n_out`, `n_out` rows of `n_in` weights, then `n_out` biases. With `skip > 0`, the
//! last `skip` inputs also feed the output directly (Blondie24's piece-difference input):
//! their `skip` weights close the genome.

use serde::{Deserialize, Serialize};

/// A neuron's activation function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// 1 / (1 + e^-x), in (0, 1) (seed 003's vanilla network).
    Sigmoid,
    /// tanh x, in (-1, 1) (Blondie24).
    Tanh,
    /// max(0, x).
    Relu,
    /// x for x > 0, 0.01 x otherwise.
    LeakyRelu,
    /// x / (1 + |x|), in (-1, 1).
    Softsign,
    /// ln(1 + e^x).
    Softplus,
    /// 1 for x > 0, 0 otherwise.
    Threshold,
}

impl Activation {
    /// Every activation, for listings and parsing.
    pub const ALL: [Activation; 7] = [
        Activation::Sigmoid,
        Activation::Tanh,
        Activation::Relu,
        Activation::LeakyRelu,
        Activation::Softsign,
        Activation::Softplus,
        Activation::Threshold,
    ];

    /// The name used in configs and model files.
    pub fn name(self) -> &'static str {
        match self {
            Activation::Sigmoid => "sigmoid",
            Activation::Tanh => "tanh",
            Activation::Relu => "relu",
            Activation::LeakyRelu => "leaky-relu",
            Activation::Softsign => "softsign",
            Activation::Softplus => "softplus",
            Activation::Threshold => "threshold",
        }
    }

    /// The activation called `name`.
    pub fn parse(name: &str) -> Result<Activation, String> {
        Activation::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Activation::ALL.iter().map(|a| a.name()).collect();
                format!("unknown activation '{name}'; known: {}", names.join(", "))
            })
    }

    /// The function itself.
    #[inline]
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Tanh => x.tanh(),
            Activation::Relu => x.max(0.0),
            Activation::LeakyRelu => {
                if x > 0.0 {
                    x
                } else {
                    0.01 * x
                }
            }
            Activation::Softsign => x / (1.0 + x.abs()),
            Activation::Softplus => {
                // ln(1 + e^x) without overflow for large x.
                if x > 30.0 {
                    x
                } else {
                    x.exp().ln_1p()
                }
            }
            Activation::Threshold => {
                if x > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// Whether the function is strictly increasing (then ranking by its input is ranking by
    /// its output; relu and threshold have flat parts that make ties).
    pub fn strictly_increasing(self) -> bool {
        !matches!(self, Activation::Relu | Activation::Threshold)
    }

    /// Maps an output of this activation monotonically into [0, 1] (a win probability):
    /// sigmoid and threshold outputs are already there, tanh and softsign are rescaled from
    /// (-1, 1), unbounded outputs go through the logistic curve.
    pub fn to_unit(self, y: f64) -> f64 {
        match self {
            Activation::Sigmoid | Activation::Threshold => y,
            Activation::Tanh | Activation::Softsign => 0.5 * (y + 1.0),
            Activation::Relu | Activation::LeakyRelu | Activation::Softplus => {
                1.0 / (1.0 + (-y).exp())
            }
        }
    }
}

/// A network's shape: layer sizes (inputs first, one output last), activation and the
/// number of direct input-to-output connections.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    /// `[inputs, hidden..., 1]`.
    pub sizes: Vec<usize>,
    /// Every neuron's activation (hidden and output).
    pub activation: Activation,
    /// How many of the last inputs also feed the output directly.
    #[serde(default)]
    pub skip: usize,
}

/// Most inputs, neurons per layer and layers a network may have (they guard model files).
pub const MAX_WIDTH: usize = 100_000;
/// Most layers (weights between them) a network may have.
pub const MAX_LAYERS: usize = 16;

impl Shape {
    /// Checks the shape, naming what is wrong.
    pub fn check(&self) -> Result<(), String> {
        if self.sizes.len() < 2 || self.sizes.len() > MAX_LAYERS + 1 {
            return Err(format!(
                "a network needs 2 to {} layer sizes (inputs ... 1), got {:?}",
                MAX_LAYERS + 1,
                self.sizes
            ));
        }
        if self.sizes.iter().any(|&n| n == 0 || n > MAX_WIDTH) {
            return Err(format!(
                "layer sizes must be 1 to {MAX_WIDTH}, got {:?}",
                self.sizes
            ));
        }
        if *self.sizes.last().unwrap() != 1 {
            return Err(format!(
                "the last layer must be one output, got {:?}",
                self.sizes
            ));
        }
        if self.skip > self.sizes[0] {
            return Err(format!(
                "skip {} is more than the {} inputs",
                self.skip, self.sizes[0]
            ));
        }
        if self.skip > 0 && self.sizes.len() < 3 {
            return Err("direct inputs (skip) need at least one hidden layer".into());
        }
        Ok(())
    }

    /// The number of genes (weights, biases and direct weights).
    pub fn genome_len(&self) -> usize {
        self.sizes
            .windows(2)
            .map(|w| w[1] * (w[0] + 1))
            .sum::<usize>()
            + self.skip
    }

    /// Number of inputs.
    pub fn inputs(&self) -> usize {
        self.sizes[0]
    }
}

/// A network: its shape and genome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Network {
    /// The shape.
    #[serde(flatten)]
    pub shape: Shape,
    /// Every weight (see the module doc for the layout).
    pub weights: Vec<f64>,
}

impl Network {
    /// A network of `shape` with `weights`, checked.
    pub fn new(shape: Shape, weights: Vec<f64>) -> Result<Network, String> {
        shape.check()?;
        if weights.len() != shape.genome_len() {
            return Err(format!(
                "a {:?} network with skip {} has {} weights, got {}",
                shape.sizes,
                shape.skip,
                shape.genome_len(),
                weights.len()
            ));
        }
        if let Some(i) = weights.iter().position(|w| !w.is_finite()) {
            return Err(format!("weight {i} is not a finite number"));
        }
        Ok(Network { shape, weights })
    }

    /// The first layer's weight from input `input` to neuron `neuron`.
    #[inline]
    pub fn first_weight(&self, neuron: usize, input: usize) -> f64 {
        self.weights[neuron * self.shape.sizes[0] + input]
    }

    /// The first layer's biases.
    pub fn first_biases(&self) -> &[f64] {
        let (n_in, n_out) = (self.shape.sizes[0], self.shape.sizes[1]);
        &self.weights[n_out * n_in..n_out * (n_in + 1)]
    }

    /// The first layer's weighted sums (without bias or activation) of `input`.
    pub fn first_sums(&self, input: &[f64], sums: &mut Vec<f64>) {
        let n_in = self.shape.sizes[0];
        sums.clear();
        sums.extend(
            self.weights[..self.shape.sizes[1] * n_in]
                .chunks_exact(n_in)
                .map(|row| row.iter().zip(input).map(|(w, x)| w * x).sum::<f64>()),
        );
    }

    /// The output from the first layer's weighted sums (biases not yet added) and the
    /// direct inputs (the last `skip` inputs; empty without skip).
    pub fn finish(&self, first_sums: &[f64], direct: &[f64], scratch: &mut Vec<f64>) -> f64 {
        let pre = self.finish_before_activation(first_sums, direct, scratch);
        self.shape.activation.apply(pre)
    }

    /// The output neuron's input (before its activation) from the first layer's weighted
    /// sums and the direct inputs. Monotonic activations rank positions in its order, and it
    /// keeps apart positions whose outputs round to the same value where the activation
    /// saturates (a sigmoid is exactly 1.0 in floating point from an input of about 37).
    pub fn finish_before_activation(
        &self,
        first_sums: &[f64],
        direct: &[f64],
        scratch: &mut Vec<f64>,
    ) -> f64 {
        let sizes = &self.shape.sizes;
        let act = self.shape.activation;
        let biases = self.first_biases();
        scratch.clear();
        scratch.extend(first_sums.iter().zip(biases).map(|(s, b)| act.apply(s + b)));
        let mut offset = sizes[1] * (sizes[0] + 1);
        let mut next = Vec::new();
        let hidden_layers = sizes.len() - 2;
        for (k, layer) in sizes[1..].windows(2).enumerate() {
            let (n_in, n_out) = (layer[0], layer[1]);
            let weights = &self.weights[offset..offset + n_out * n_in];
            let biases = &self.weights[offset + n_out * n_in..offset + n_out * (n_in + 1)];
            offset += n_out * (n_in + 1);
            let last = k + 1 == hidden_layers;
            next.clear();
            for (row, bias) in weights.chunks_exact(n_in).zip(biases) {
                let mut sum = bias
                    + row
                        .iter()
                        .zip(scratch.iter())
                        .map(|(w, x)| w * x)
                        .sum::<f64>();
                if last {
                    sum += self.weights[offset..]
                        .iter()
                        .zip(direct)
                        .map(|(w, x)| w * x)
                        .sum::<f64>();
                }
                next.push(if last { sum } else { act.apply(sum) });
            }
            std::mem::swap(scratch, &mut next);
        }
        scratch[0]
    }

    /// The output for `input` (its last `skip` values also feed the output directly).
    pub fn forward(&self, input: &[f64]) -> f64 {
        debug_assert_eq!(input.len(), self.shape.inputs());
        let mut sums = Vec::with_capacity(self.shape.sizes[1]);
        self.first_sums(input, &mut sums);
        let direct = &input[input.len() - self.shape.skip..];
        self.finish(&sums, direct, &mut Vec::new())
    }
}

//! Evolution files (TOML): an `[evolve]` table of settings shared by every run, and
//! `[[run]]` tables that override any of them and list their seeds. Each (run, seed) pair is
//! one independent evolution, a shard of the file.
//!
//! ```toml
//! [evolve]
//! game = "hex"
//! size = 7
//! generations = 300
//!
//! [[run]]
//! name = "vanilla"
//! seeds = [1, 2, 3, 4, 5, 6]
//!
//! [[run]]
//! name = "exponential"
//! fitness = "exponential"
//! seeds = [1, 2]
//! ```

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::path::Path;
use tmbot::nn::{Activation, Encoding};

/// How fitness turns wins into breeding weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fitness {
    /// Proportional to the score (seed 003's vanilla).
    Linear,
    /// Proportional to 2^score (seed 003's stronger variant).
    Exponential,
}

/// How a chosen weight is shaken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Shake {
    /// Add Normal(0, sigma) (seed 003).
    Fixed,
    /// Add Normal(0, sigma x |w|): the shake scales with the weight (the authors' proposal).
    Scaled,
    /// Blondie24: each weight carries its own sigma, itself mutated by a log-normal factor
    /// (sigma' = sigma exp(tau N(0,1)), tau = 1/sqrt(2 sqrt(n))), then w' = w + sigma' N(0,1).
    SelfAdaptive,
}

/// The mutation applied after breeding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mutation {
    /// Swap two random weights of the network (seed 003).
    Swap,
    /// Copy one random weight over another (the authors' proposal).
    Copy,
    /// No mutation beyond the shake (seed 003's no-swap configuration).
    None,
}

/// One evolution's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The run's name (its folder is NAME-sSEED).
    #[serde(default)]
    pub name: String,
    /// `hex` or `checkers`.
    #[serde(default = "default_game")]
    pub game: String,
    /// Hex board side.
    #[serde(default = "default_size")]
    pub size: usize,
    /// Torus width and height (players = width x height).
    #[serde(default = "default_torus")]
    pub torus: [usize; 2],
    /// Generations to evolve.
    #[serde(default = "default_generations")]
    pub generations: u64,
    /// Hidden layer sizes (seed 003 vanilla: [5]; three-layer: [25, 5]).
    #[serde(default = "default_hidden")]
    pub hidden: Vec<usize>,
    /// Activation of every neuron.
    #[serde(default = "default_activation")]
    pub activation: Activation,
    /// Input encoding (default: hex-signed for Hex, checkers-blondie for checkers).
    #[serde(default)]
    pub encoding: Option<Encoding>,
    /// Probability of keeping a weight as it is (no breeding, no shake).
    #[serde(default)]
    pub inertia: f64,
    /// Breeding weights from wins.
    #[serde(default = "default_fitness")]
    pub fitness: Fitness,
    /// Shake of the chosen weights.
    #[serde(default = "default_shake")]
    pub shake: Shake,
    /// Sigma of the shake (the starting sigma when self-adaptive).
    #[serde(default = "default_sigma")]
    pub sigma: f64,
    /// The mutation after breeding.
    #[serde(default = "default_mutation")]
    pub mutation: Mutation,
    /// Probability of one more mutation after each (0: exactly one, seed 003's vanilla;
    /// 0.25 and 0.5: its negative-binomial variants).
    #[serde(default)]
    pub more_mutations: f64,
    /// The search around the network: `greedy` (seed 003: one ply, no search) or a spec such
    /// as `alphabeta:depth=4` (Blondie24's minimax).
    #[serde(default = "default_search")]
    pub search: String,
    /// Whether players see immediate wins (seed 003's players only know legal moves).
    #[serde(default)]
    pub take_wins: bool,
    /// Plies after which a game is a draw (checkers).
    #[serde(default = "default_max_plies")]
    pub max_plies: usize,
    /// Write a checkpoint every this many generations.
    #[serde(default = "default_checkpoint_every")]
    pub checkpoint_every: u64,
    /// Measure strength against random every this many generations (0: never).
    #[serde(default = "default_sample_every")]
    pub sample_every: u64,
    /// Players sampled (evenly over the torus) at each strength measurement.
    #[serde(default = "default_sample_players")]
    pub sample_players: usize,
    /// Games against random per sampled player.
    #[serde(default = "default_sample_games")]
    pub sample_games: u64,
    /// Games of every final player against random (seed 003: 2000, half as first player).
    #[serde(default = "default_final_games")]
    pub final_games: u64,
    /// Opponents of the final best player, weakest first (a graded strength scale).
    #[serde(default)]
    pub ladder: Vec<String>,
    /// Games against each ladder rung (half as first player).
    #[serde(default = "default_ladder_games")]
    pub ladder_games: u64,
}

fn default_game() -> String {
    "hex".into()
}
fn default_size() -> usize {
    7
}
fn default_torus() -> [usize; 2] {
    [10, 10]
}
fn default_generations() -> u64 {
    300
}
fn default_hidden() -> Vec<usize> {
    vec![5]
}
fn default_activation() -> Activation {
    Activation::Sigmoid
}
fn default_fitness() -> Fitness {
    Fitness::Linear
}
fn default_shake() -> Shake {
    Shake::Fixed
}
fn default_sigma() -> f64 {
    1.0
}
fn default_mutation() -> Mutation {
    Mutation::Swap
}
fn default_search() -> String {
    "greedy".into()
}
fn default_max_plies() -> usize {
    300
}
fn default_checkpoint_every() -> u64 {
    25
}
fn default_sample_every() -> u64 {
    25
}
fn default_sample_players() -> usize {
    10
}
fn default_sample_games() -> u64 {
    200
}
fn default_final_games() -> u64 {
    2000
}
fn default_ladder_games() -> u64 {
    100
}

/// Largest torus side.
const MAX_SIDE: usize = 100;

impl RunConfig {
    /// The input encoding (the game's default when none is set).
    pub fn encoding(&self) -> Encoding {
        self.encoding.unwrap_or(match self.game.as_str() {
            "checkers" => Encoding::CheckersBlondie,
            _ => Encoding::HexSigned,
        })
    }

    /// Layer sizes, inputs to the one output.
    pub fn sizes(&self) -> Vec<usize> {
        let inputs = self.encoding().inputs(self.size * self.size);
        std::iter::once(inputs)
            .chain(self.hidden.iter().copied())
            .chain([1])
            .collect()
    }

    /// Whether games use the fast one-ply Hex player.
    pub fn fast_hex(&self) -> bool {
        self.game == "hex" && self.search == "greedy"
    }

    /// Checks the settings, naming the first that is wrong.
    pub fn check(&self) -> anyhow::Result<()> {
        match self.game.as_str() {
            "hex" => {
                if !(2..=19).contains(&self.size) {
                    bail!("size {} is not 2 to 19", self.size);
                }
            }
            "checkers" => {}
            other => bail!("game '{other}' is neither hex nor checkers"),
        }
        if self.encoding().game() != self.game {
            bail!(
                "encoding '{}' reads {}, not {}",
                self.encoding().name(),
                self.encoding().game(),
                self.game
            );
        }
        let [w, h] = self.torus;
        if !(3..=MAX_SIDE).contains(&w) || !(3..=MAX_SIDE).contains(&h) {
            bail!("torus {w}x{h}: each side must be 3 to {MAX_SIDE} (six distinct neighbours)");
        }
        if self.hidden.is_empty() && self.encoding().skip() > 0 {
            bail!("encoding '{}' needs a hidden layer", self.encoding().name());
        }
        tmbot::nn::network::Shape {
            sizes: self.sizes(),
            activation: self.activation,
            skip: self.encoding().skip(),
        }
        .check()
        .map_err(anyhow::Error::msg)?;
        for (name, p) in [
            ("inertia", self.inertia),
            ("more_mutations", self.more_mutations),
        ] {
            if !(0.0..1.0).contains(&p) {
                bail!("{name} {p} is not a probability below 1");
            }
        }
        if !(self.sigma.is_finite() && self.sigma >= 0.0) {
            bail!("sigma {} is not a finite number of at least 0", self.sigma);
        }
        if self.checkpoint_every == 0 {
            bail!("checkpoint_every must be at least 1");
        }
        if self.sample_every > 0 && (self.sample_players == 0 || self.sample_games < 2) {
            bail!("sampling needs sample_players >= 1 and sample_games >= 2");
        }
        if self.search != "greedy" {
            let spec = tmbot::player::spec::Spec::parse(&self.search)
                .map_err(|e| anyhow::anyhow!("search: {e}"))?;
            if !["greedy", "avgtree", "alphabeta"].contains(&spec.name.as_str()) {
                bail!(
                    "search '{}': only greedy, avgtree and alphabeta use a network",
                    spec.name
                );
            }
        }
        for rung in &self.ladder {
            let checked = match self.game.as_str() {
                "hex" => tmbot::play::spec::check_spec::<tmbot::game::hex::Hex>(rung),
                _ => tmbot::play::spec::check_spec::<tmbot::game::checkers::Checkers>(rung),
            };
            checked.with_context(|| format!("ladder rung '{rung}'"))?;
        }
        Ok(())
    }
}

/// One evolution of a file: a run's settings and one of its seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    /// The settings (with `name` set).
    pub config: RunConfig,
    /// The seed of every random choice of the evolution.
    pub seed: u64,
}

impl Shard {
    /// The folder name, NAME-sSEED.
    pub fn id(&self) -> String {
        format!("{}-s{}", self.config.name, self.seed)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTables {
    #[serde(default)]
    evolve: toml::Table,
    #[serde(default)]
    run: Vec<toml::Table>,
}

/// Reads an evolution file into its shards, in file order (runs, then seeds).
pub fn load(path: &Path) -> anyhow::Result<Vec<Shard>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    parse_in(&text, base).with_context(|| format!("{}", path.display()))
}

/// Parses an evolution file's text (see the module doc), `{here}` in ladder specs standing
/// for the current folder.
pub fn parse(text: &str) -> anyhow::Result<Vec<Shard>> {
    parse_in(text, Path::new("."))
}

/// Parses an evolution file's text; `{here}` in ladder specs stands for `base`, the file's
/// folder.
fn parse_in(text: &str, base: &Path) -> anyhow::Result<Vec<Shard>> {
    let here = base.to_string_lossy();
    let tables: FileTables = toml::from_str(text)?;
    if tables.run.is_empty() {
        bail!("no [[run]] table: name at least one run and its seeds");
    }
    let mut shards = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for (i, run) in tables.run.into_iter().enumerate() {
        let mut merged = tables.evolve.clone();
        let mut seeds = vec![1];
        for (key, value) in run {
            if key == "seeds" {
                seeds = value
                    .try_into::<Vec<u64>>()
                    .with_context(|| format!("run {}: seeds must be a list of integers", i + 1))?;
            } else {
                merged.insert(key, value);
            }
        }
        let mut config: RunConfig = merged
            .try_into()
            .with_context(|| format!("run {}", i + 1))?;
        for rung in &mut config.ladder {
            *rung = rung.replace("{here}", &here);
        }
        let name = config.name.clone();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            bail!(
                "run {}: name '{name}' must be letters, digits, - or _",
                i + 1
            );
        }
        if !names.insert(name.clone()) {
            bail!("run name '{name}' is used twice");
        }
        config.check().with_context(|| format!("run '{name}'"))?;
        if seeds.is_empty() {
            bail!("run '{name}': seeds is empty");
        }
        for seed in seeds {
            shards.push(Shard {
                config: config.clone(),
                seed,
            });
        }
    }
    Ok(shards)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_override_the_shared_settings() {
        let shards = parse(
            "[evolve]\ngenerations = 7\n[[run]]\nname = \"a\"\nseeds = [1, 2]\n\
             [[run]]\nname = \"b\"\nfitness = \"exponential\"\nhidden = [25, 5]\n",
        )
        .unwrap();
        assert_eq!(shards.len(), 3);
        assert_eq!(shards[1].id(), "a-s2");
        assert_eq!(shards[2].config.fitness, Fitness::Exponential);
        assert_eq!(shards[2].config.sizes(), vec![49, 25, 5, 1]);
        assert!(shards.iter().all(|s| s.config.generations == 7));
    }

    #[test]
    fn the_shipped_evolution_files_load() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tournaments/evolve");
        let mut files = 0;
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                let shards = load(&path).unwrap_or_else(|e| panic!("{e:#}"));
                assert!(!shards.is_empty());
                files += 1;
            }
        }
        assert!(files >= 4, "seed003, quick, beyond and blondie");
        let seed003 = load(&folder.join("seed003.toml")).unwrap();
        assert_eq!(seed003.len(), 6 + 2 * 6, "vanilla x 6, six variants x 2");
    }

    #[test]
    fn bad_files_name_the_problem() {
        let err = |text: &str| format!("{:#}", parse(text).unwrap_err());
        assert!(err("[evolve]\n").contains("no [[run]]"));
        assert!(err("[[run]]\nname = \"a\"\nfitnes = \"linear\"").contains("fitnes"));
        assert!(err("[[run]]\nname = \"a\"\ntorus = [2, 10]").contains("torus 2x10"));
        assert!(err("[[run]]\nname = \"a\"\ninertia = 1.5").contains("inertia"));
        assert!(err("[[run]]\nname = \"a\"\n[[run]]\nname = \"a\"").contains("twice"));
        assert!(err("[[run]]\nname = \"a b\"").contains("name 'a b'"));
        assert!(err("[[run]]\nname = \"a\"\nsearch = \"mcts\"").contains("only greedy"));
        assert!(err("[[run]]\nname = \"a\"\nladder = [\"nope\"]").contains("nope"));
        assert!(err("[[run]]\nname = \"a\"\nencoding = \"checkers-blondie\"").contains("reads"));
    }
}

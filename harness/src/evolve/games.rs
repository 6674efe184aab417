//! The games of an evolution, all through the referee: a generation's neighbour games, the
//! strength measurement against random players, and the final player's ladder.

use super::breed::Genome;
use super::config::RunConfig;
use super::torus::Torus;
use rand::RngCore as _;
use rayon::prelude::*;
use std::sync::Arc;
use tmbot::eval::ann::AnnEvaluator;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::Color;
use tmbot::nn::encoding::NetInput;
use tmbot::nn::{fast_hex, NetModel, Network};
use tmbot::play::agent::{Agent, AgentError, PlayerAgent, Turn};
use tmbot::play::choice::Choice;
use tmbot::play::referee::{play_game, GameSettings};
use tmbot::play::spec::{agent_from_spec, AgentGame, AgentOptions};
use tmbot::player::Player;
use tmbot::rng::{seeded, substream, Rng};

/// Games evolution can play: their start position and their network players.
pub trait EvolveGame: AgentGame + NetInput {
    /// The empty board of `config`.
    fn start(config: &RunConfig) -> Self;

    /// The agent playing `model` with `config`'s search.
    fn net_agent<'a>(model: &'a NetModel, config: &RunConfig) -> Box<dyn Agent<Self> + 'a>;
}

/// Seed 003's Hex player ([`fast_hex`]) as an agent.
struct FastHexAgent<'a> {
    model: &'a NetModel,
    take_wins: bool,
    rng: Rng,
    scratch: fast_hex::Scratch,
}

impl Agent<Hex> for FastHexAgent<'_> {
    fn name(&self) -> &str {
        "network"
    }

    fn new_game(&mut self, _start: &Hex, seed: u64) -> Result<(), AgentError> {
        self.rng = seeded(seed);
        Ok(())
    }

    fn genmove(
        &mut self,
        turn: &Turn<'_, Hex>,
    ) -> Result<Choice<tmbot::game::hex::HexMove>, AgentError> {
        let model = self.model;
        fast_hex::choose(
            &model.network,
            model.encoding,
            turn.game,
            self.take_wins,
            &mut self.rng,
            &mut self.scratch,
        )
        .map(Choice::bare)
        .ok_or_else(|| AgentError::Protocol("asked to move in a finished game".into()))
    }
}

/// The network inside `config.search` (greedy, avgtree or alphabeta).
fn search_agent<'a, G: EvolveGame>(model: &NetModel, config: &RunConfig) -> Box<dyn Agent<G> + 'a> {
    let evaluator = Arc::new(AnnEvaluator::new(model.clone()));
    let player = Player::with_evaluator(&config.search, evaluator, "network")
        .expect("the search spec was checked with the configuration");
    Box::new(PlayerAgent::new(player))
}

impl EvolveGame for Hex {
    fn start(config: &RunConfig) -> Hex {
        Hex::new(config.size, config.size).expect("the size was checked")
    }

    fn net_agent<'a>(model: &'a NetModel, config: &RunConfig) -> Box<dyn Agent<Hex> + 'a> {
        if config.fast_hex() {
            Box::new(FastHexAgent {
                model,
                take_wins: config.take_wins,
                rng: seeded(0),
                scratch: fast_hex::Scratch::default(),
            })
        } else {
            search_agent(model, config)
        }
    }
}

impl EvolveGame for Checkers {
    fn start(_config: &RunConfig) -> Checkers {
        Checkers::new()
    }

    fn net_agent<'a>(model: &'a NetModel, config: &RunConfig) -> Box<dyn Agent<Checkers> + 'a> {
        search_agent(model, config)
    }
}

/// The models of `population`'s genomes, as networks of `config`'s shape.
pub fn models(population: &[Genome], config: &RunConfig) -> Vec<NetModel> {
    let shape = super::run::shape(config);
    let size = if config.game == "hex" { config.size } else { 0 };
    population
        .iter()
        .map(|genome| {
            let network = Network {
                shape: shape.clone(),
                weights: genome.weights.clone(),
            };
            NetModel::new(config.encoding(), size, network).expect("shapes follow the config")
        })
        .collect()
}

/// The seed of item `index` of kind `tag` in generation `generation` of the run seeded `seed`.
pub fn stream_seed(seed: u64, tag: u64, generation: u64, index: u64) -> u64 {
    let base = substream(seed, tag).next_u64();
    substream(base ^ generation.wrapping_mul(0xD6E8_FEB8_6659_FD93), index).next_u64()
}

/// Stream tags.
pub const TAG_GAMES: u64 = 1;
/// Stream tag of breeding.
pub const TAG_BREED: u64 = 2;
/// Stream tag of the first population.
pub const TAG_INIT: u64 = 3;
/// Stream tag of strength measurements.
pub const TAG_SAMPLE: u64 = 4;
/// Stream tag of the final evaluation.
pub const TAG_FINAL: u64 = 5;

fn settings(config: &RunConfig) -> GameSettings {
    GameSettings {
        max_plies: Some(config.max_plies),
        ..GameSettings::default()
    }
}

/// One game between two agents; the score of `black` (1 win, 0.5 draw, 0 loss).
fn black_score<G: EvolveGame>(
    start: &G,
    black: &mut dyn Agent<G>,
    white: &mut dyn Agent<G>,
    settings: &GameSettings,
    seed: u64,
) -> f64 {
    let record = play_game(start, &[], [black, white], settings, seed);
    record.result.score_for(Color::Black).unwrap_or(0.0)
}

/// A generation's games: every player meets each of its six neighbours once as Black (so
/// once as White too, in the neighbour's game); each player's score (wins, draws as half)
/// out of its 12 games, and the number of games.
pub fn generation_scores<G: EvolveGame>(
    models: &[NetModel],
    torus: Torus,
    config: &RunConfig,
    seed: u64,
    generation: u64,
) -> (Vec<f64>, u64) {
    let start = G::start(config);
    let settings = settings(config);
    let jobs: Vec<(usize, usize)> = (0..torus.len())
        .flat_map(|i| torus.neighbours(i).map(|j| (i, j)))
        .collect();
    let results: Vec<f64> = jobs
        .par_iter()
        .enumerate()
        .map(|(k, &(i, j))| {
            let mut black = G::net_agent(&models[i], config);
            let mut white = G::net_agent(&models[j], config);
            let game_seed = stream_seed(seed, TAG_GAMES, generation, k as u64);
            black_score(&start, black.as_mut(), white.as_mut(), &settings, game_seed)
        })
        .collect();
    let mut scores = vec![0.0; torus.len()];
    for (&(i, j), &black) in jobs.iter().zip(&results) {
        scores[i] += black;
        scores[j] += 1.0 - black;
    }
    (scores, jobs.len() as u64)
}

/// Each model's score against `opponent` over `games` games (the first half as Black),
/// as a share in [0,1]; every game seeded from `seed`, `tag` and `generation`.
pub fn scores_against<G: EvolveGame>(
    models: &[&NetModel],
    opponent: &str,
    games: u64,
    config: &RunConfig,
    (seed, tag, generation): (u64, u64, u64),
) -> anyhow::Result<Vec<f64>> {
    let start = G::start(config);
    let settings = settings(config);
    agent_from_spec::<G>(opponent, &AgentOptions::default())
        .map_err(|e| anyhow::anyhow!("opponent '{opponent}': {e}"))?;
    let jobs: Vec<(usize, u64)> = (0..models.len())
        .flat_map(|p| (0..games).map(move |g| (p, g)))
        .collect();
    // One opponent agent per worker's batch of games (each game starts it afresh).
    let results: Vec<anyhow::Result<f64>> = jobs
        .par_iter()
        .map_init(
            || agent_from_spec::<G>(opponent, &AgentOptions::default()),
            |other, &(p, g)| {
                let other = other
                    .as_mut()
                    .map_err(|e| anyhow::anyhow!("opponent '{opponent}': {e}"))?;
                let mut net = G::net_agent(models[p], config);
                let game_seed = stream_seed(seed, tag, generation, p as u64 * games + g);
                Ok(if g < games / 2 {
                    black_score(&start, net.as_mut(), other.as_mut(), &settings, game_seed)
                } else {
                    1.0 - black_score(&start, other.as_mut(), net.as_mut(), &settings, game_seed)
                })
            },
        )
        .collect();
    let mut scores = vec![0.0; models.len()];
    for (&(p, _), result) in jobs.iter().zip(results) {
        scores[p] += result?;
    }
    Ok(scores.into_iter().map(|s| s / games as f64).collect())
}

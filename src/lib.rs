//! tmbot: Hex and English checkers with Tsetlin Machine evaluators and classic searches.
//!
//! Rooms (one concept per module, see DESIGN.md in the shared folder):
//! - [`game`]: the [`game::Game`] trait, Hex and checkers rules, notation and records;
//! - [`features`]: booleanizers turning positions into bit vectors for learning;
//! - [`tm`]: the Tsetlin Machine (no game dependencies);
//! - [`eval`]: position evaluators and their registry;
//! - [`search`]: greedy, averaging tree, alpha-beta, UCT/MCTS and flat Monte Carlo;
//! - [`player`]: a search + evaluator + limits built from a spec string;
//! - [`play`]: opening books and their schedule over a series of games;
//! - [`rng`]: the seeded random number generator every random choice comes from.

pub mod eval;
pub mod features;
pub mod game;
pub mod play;
pub mod player;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod stop;
pub mod tm;

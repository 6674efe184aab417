//! tmbot: Hex and English checkers with Tsetlin Machine evaluators and classic searches.
//!
//! Rooms (one concept per module, see DESIGN.md in the shared folder):
//! - [`game`]: the [`game::Game`] trait, Hex and checkers rules, notation and records;
//! - [`features`]: booleanizers turning positions into bit vectors for learning;
//! - [`tm`]: the Tsetlin Machine (no game dependencies);
//! - [`nn`]: small feed-forward networks (evolved players) and their model files;
//! - [`eval`]: position evaluators and their registry;
//! - [`search`]: greedy, averaging tree, alpha-beta, UCT/MCTS and flat Monte Carlo;
//! - [`player`]: a search + evaluator + limits built from a spec string;
//! - [`play`]: the match contract: agents, clocks, the referee and game records;
//! - [`protocol`]: the text protocols' line parsing, framing and engine loop (HTP, checkers);
//! - [`stop`]: the flag that asks a running search to stop early;
//! - [`rng`]: the seeded random number generator every random choice comes from;
//! - [`huge_pages`]: large tables asking for 2 MB pages;
//! - [`build_target`]: the processor level the programs are compiled for, checked first.

pub mod build_target;
pub mod eval;
pub mod features;
pub mod game;
pub mod huge_pages;
pub mod nn;
pub mod play;
pub mod player;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod stop;
pub mod tm;

//! tmbot: Hex and English checkers with Tsetlin Machine evaluators and classic searches.
//!
//! Rooms (one concept per module, see DESIGN.md in the shared folder):
//! - [`game`]: the [`game::Game`] trait, Hex and checkers rules, notation and records;
//! - [`features`]: booleanizers turning positions into bit vectors for learning;
//! - [`tm`]: the Tsetlin Machine (no game dependencies);
//! - [`rng`]: the seeded random number generator every random choice comes from.

pub mod features;
pub mod game;
pub mod protocol;
pub mod rng;
pub mod stop;
pub mod tm;

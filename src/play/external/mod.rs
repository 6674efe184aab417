//! External engines as agents, driven over tmbot's two protocols (HTP for Hex, the checkers
//! board-string protocol). PLACEHOLDER: the controller is being written.

use super::agent::{Agent, AgentError, Turn};
use super::choice::Choice;
use crate::game::checkers::Checkers;
use crate::game::hex::Hex;
use crate::player::spec::{Spec, SpecError};
use crate::protocol::engine::ProtocolGame;
use std::marker::PhantomData;

/// The spec name of external engines.
pub const SPEC_NAME: &str = "external";

/// What the controller needs to know of a game's protocol.
pub trait ExternalGame: ProtocolGame {}

impl ExternalGame for Hex {}
impl ExternalGame for Checkers {}

/// An external engine's settings from its spec.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// The command line.
    pub cmd: String,
}

impl EngineConfig {
    /// Reads the spec's options.
    pub fn from_spec(spec: &Spec) -> Result<EngineConfig, SpecError> {
        Err(SpecError::new(&spec.name, "not yet available"))
    }
}

/// An external engine.
pub struct ExternalEngine<G> {
    config: EngineConfig,
    game: PhantomData<G>,
}

impl<G: ExternalGame> ExternalEngine<G> {
    /// The engine of `spec`.
    pub fn from_spec(spec: &Spec) -> Result<ExternalEngine<G>, SpecError> {
        Ok(ExternalEngine {
            config: EngineConfig::from_spec(spec)?,
            game: PhantomData,
        })
    }
}

impl<G: ExternalGame> Agent<G> for ExternalEngine<G> {
    fn name(&self) -> &str {
        &self.config.cmd
    }

    fn new_game(&mut self, _start: &G, _seed: u64) -> Result<(), AgentError> {
        Err(AgentError::Setup("not yet available".into()))
    }

    fn genmove(&mut self, _turn: &Turn<'_, G>) -> Result<Choice<G::Move>, AgentError> {
        Err(AgentError::Setup("not yet available".into()))
    }
}

/// Raises `stop` on Ctrl-C (placeholder).
pub fn install_interrupt_handler(stop: crate::stop::StopFlag) {
    let _ = stop;
}

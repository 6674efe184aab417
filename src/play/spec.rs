//! Agents from spec strings: the one grammar of players (`mcts:playouts=2000`) extended with
//! external engines (`external:cmd="mohex --quiet",init="param_mohex max_time 1",protocol=htp`).

use super::agent::{Agent, PlayerAgent};
use super::external::{self, ExternalGame};
use crate::player::spec::{Spec, SpecError};
use crate::search::Limits;
use crate::stop::StopFlag;

/// Games that agents of every kind can play.
pub trait AgentGame: ExternalGame + 'static {}

impl<G: ExternalGame + 'static> AgentGame for G {}

/// How agents built from specs are set up.
#[derive(Clone, Debug, Default)]
pub struct AgentOptions {
    /// Limits replacing in-process players' own (a tournament's playouts, nodes or depth).
    pub limits: Limits,
    /// Raised to interrupt searches and external engines' moves (Ctrl-C).
    pub stop: Option<StopFlag>,
}

/// Builds the agent of `spec`: an external engine for `external:...`, else an in-process
/// player.
pub fn agent_from_spec<G: AgentGame>(
    spec: &str,
    options: &AgentOptions,
) -> Result<Box<dyn Agent<G>>, SpecError> {
    let parsed = Spec::parse(spec)?;
    if parsed.name == external::SPEC_NAME {
        let mut engine = external::ExternalEngine::<G>::from_spec(&parsed)?;
        if let Some(stop) = &options.stop {
            engine = engine.with_stop(stop.clone());
        }
        return Ok(Box::new(engine));
    }
    let mut agent = PlayerAgent::<G>::from_spec(spec)?.with_limits(options.limits.clone());
    if let Some(stop) = &options.stop {
        agent = agent.with_stop(stop.clone());
    }
    Ok(Box::new(agent))
}

/// Checks `spec` without starting anything (external engines are not launched).
pub fn check_spec<G: AgentGame>(spec: &str) -> Result<(), SpecError> {
    let parsed = Spec::parse(spec)?;
    if parsed.name == external::SPEC_NAME {
        external::ExternalEngine::<G>::from_spec(&parsed).map(|_| ())
    } else {
        PlayerAgent::<G>::from_spec(spec).map(|_| ())
    }
}

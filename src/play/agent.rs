//! The agent interface: anything that can play a game through the referee. In-process
//! players are wrapped by [`PlayerAgent`]; external engines implement it over a protocol.

use super::choice::Choice;
use super::clock::ClockView;
use super::record::Termination;
use crate::game::Game;
use crate::player::spec::SpecError;
use crate::player::Player;
use crate::protocol::engine::{ProtocolGame, AFTER_DEADLINE_SHARE};
use crate::rng::{seeded, Rng};
use crate::search::time_plan::move_times;
use crate::search::Limits;
use crate::stop::StopFlag;
use std::time::Duration;
use thiserror::Error;

/// What went wrong with an agent. Each kind maps to one [`Termination`] class.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AgentError {
    /// The agent could not be started or set up for the game.
    #[error("setup failed: {0}")]
    Setup(String),
    /// Reading from or writing to the agent failed.
    #[error("transport error: {0}")]
    Transport(String),
    /// The agent closed its channel (its process ended).
    #[error("channel closed: {0}")]
    Closed(String),
    /// The agent broke the protocol (garbage, an answer to another command, a failure).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// The agent answered a move that is not legal here.
    #[error("illegal move: {0}")]
    Illegal(String),
    /// No answer to `command` within `after`.
    #[error("no answer to '{command}' within {:.3} s", after.as_secs_f64())]
    NoAnswer {
        /// The command left unanswered.
        command: String,
        /// How long the agent was waited for.
        after: Duration,
    },
    /// The run was stopped while the agent was thinking.
    #[error("interrupted")]
    Interrupted,
}

impl AgentError {
    /// The termination class of a game this error ended; `timed` says whether the game had a
    /// clock (a missing answer is then a loss on time, otherwise a stall).
    pub fn termination(&self, timed: bool) -> Termination {
        match self {
            AgentError::Setup(_) | AgentError::Transport(_) | AgentError::Closed(_) => {
                Termination::Disconnect
            }
            AgentError::Protocol(_) | AgentError::Illegal(_) => Termination::Illegal,
            AgentError::NoAnswer { .. } if timed => Termination::Timeout,
            AgentError::NoAnswer { .. } => Termination::Stall,
            AgentError::Interrupted => Termination::Interrupt,
        }
    }
}

/// Everything an agent is told when it is asked for a move.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a, G: Game> {
    /// The start position of the game.
    pub start: &'a G,
    /// Every move played from `start` so far (book moves included).
    pub moves: &'a [G::Move],
    /// The current position (the side to move is the agent's colour).
    pub game: &'a G,
    /// The mover's clock.
    pub clock: ClockView,
}

/// A participant in games: an in-process player or an external engine.
pub trait Agent<G: Game>: Send {
    /// The name records give this agent.
    fn name(&self) -> &str;

    /// Starts what the agent runs on ahead of its first game (an external engine's process,
    /// its handshake and `init` commands), so that an engine that cannot start is found
    /// before a game is charged to it. In-process agents have nothing to start.
    fn start(&mut self) -> Result<(), AgentError> {
        Ok(())
    }

    /// Prepares for a new game from `start`; every random choice of the game comes from
    /// `seed`.
    fn new_game(&mut self, start: &G, seed: u64) -> Result<(), AgentError>;

    /// Chooses the move of the side to move in `turn.game` (or resigns).
    fn genmove(&mut self, turn: &Turn<'_, G>) -> Result<Choice<G::Move>, AgentError>;

    /// Tells the agent that the game ended with `termination` (an external engine that
    /// faulted is restarted before its next game).
    fn end_game(&mut self, termination: Termination) {
        let _ = termination;
    }
}

/// An in-process [`Player`] as an agent: clock budgets become time limits, and a stop flag
/// interrupts its search.
pub struct PlayerAgent<G: ProtocolGame> {
    player: Player<G>,
    name: String,
    overrides: Limits,
    rng: Rng,
}

impl<G: ProtocolGame> PlayerAgent<G> {
    /// The player of `spec`.
    pub fn from_spec(spec: &str) -> Result<PlayerAgent<G>, SpecError> {
        Ok(PlayerAgent::new(Player::from_spec(spec)?))
    }

    /// Wraps `player`.
    pub fn new(player: Player<G>) -> PlayerAgent<G> {
        PlayerAgent {
            name: player.spec().to_string(),
            player,
            overrides: Limits::default(),
            rng: seeded(0),
        }
    }

    /// Limits that replace the spec's own in every move (a tournament's playouts, nodes or
    /// depth).
    pub fn with_limits(mut self, overrides: Limits) -> PlayerAgent<G> {
        self.overrides = overrides;
        self
    }

    /// Raising `stop` ends the running search at once (its move is then discarded).
    pub fn with_stop(mut self, stop: StopFlag) -> PlayerAgent<G> {
        self.overrides.stop = Some(stop);
        self
    }
}

impl<G: ProtocolGame> Agent<G> for PlayerAgent<G> {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, start: &G, seed: u64) -> Result<(), AgentError> {
        self.player
            .check_game(start)
            .map_err(|err| AgentError::Setup(err.to_string()))?;
        self.rng = seeded(seed);
        self.player.new_game();
        Ok(())
    }

    fn genmove(&mut self, turn: &Turn<'_, G>) -> Result<Choice<G::Move>, AgentError> {
        let mut limits = self.overrides.clone();
        if let Some((target, most)) = turn.clock.plan(turn.game.moves_left_estimate()) {
            let own = self.player.own_time(turn.game);
            let (time, planned) = move_times(target, most, own, 1.0 - AFTER_DEADLINE_SHARE);
            limits.time = Some(time);
            limits.target = planned;
        }
        let decision = self.player.decide(turn.game, &limits, &mut self.rng);
        if limits.stop.as_ref().is_some_and(StopFlag::is_raised) {
            return Err(AgentError::Interrupted);
        }
        Ok(Choice::from_decision(decision))
    }
}

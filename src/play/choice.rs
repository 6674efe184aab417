//! A move with what the search knew about it when it chose the move.

use crate::search::Decision;
use std::time::Duration;

/// An agent's answer to one `genmove`: the move (or a resignation) and the search's report.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice<M> {
    /// The move; `None` resigns.
    pub mv: Option<M>,
    /// The search's report (value, depth, nodes, playouts, visits) where it gave one.
    pub decision: Decision<M>,
    /// Wall time the agent took, as the referee measured it.
    pub time: Duration,
}

impl<M: Copy> Choice<M> {
    /// The choice a search made; no legal move reads as a resignation.
    pub fn from_decision(decision: Decision<M>) -> Choice<M> {
        Choice {
            mv: decision.best,
            decision,
            time: Duration::ZERO,
        }
    }

    /// A resignation.
    pub fn resign() -> Choice<M> {
        Choice::from_decision(Decision::bare(None))
    }

    /// A move with no report (an engine that only names its move).
    pub fn bare(mv: M) -> Choice<M> {
        Choice::from_decision(Decision::bare(Some(mv)))
    }
}

//! Searches that pick a move: greedy, the averaging tree, alpha-beta, UCT/MCTS and flat
//! Monte Carlo. All are generic over [`SearchGame`]; every random choice draws from the
//! [`Rng`] passed in, so a search under playout, node or depth limits is reproducible.
//! [`dfpn`] is the Hex solver (proof-number search), which MCTS may consult at the root.

pub mod alphabeta;
pub mod avgtree;
mod checkers;
pub mod dfpn;
pub mod flatmc;
pub mod greedy;
mod hex;
pub mod mcts;
pub mod time_plan;
#[cfg(test)]
pub(crate) mod toy;

use crate::eval::EvalGame;
use crate::game::{Color, Game, Outcome, Solved};
use crate::rng::Rng;
use crate::stop::StopFlag;
use rand::Rng as _;
use std::time::{Duration, Instant};

/// How much a search may do; `None` means no limit of that kind. The search stops at the
/// first limit reached, or when the stop flag is raised (and uses its own default when no
/// limit is set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time for the move: the most it may take.
    pub time: Option<Duration>,
    /// The time the move is planned to take when `time` allows more (a clock's share of the
    /// time left, CheckerBoard's average time a move): alpha-beta then stops deepening early
    /// on a stable best move and runs on toward `time` on a critical one
    /// ([`time_plan::TimePlan`]); the other searches spend the planned time. Without it a
    /// search uses all of `time`.
    pub target: Option<Duration>,
    /// Monte Carlo simulations.
    pub playouts: Option<u64>,
    /// Nodes visited (alpha-beta) or tree nodes (MCTS).
    pub nodes: Option<u64>,
    /// Search depth in plies.
    pub depth: Option<u32>,
    /// A request from outside to stop now and answer with the best move so far.
    pub stop: Option<StopFlag>,
}

impl Limits {
    /// `self`, with every limit set in `overrides` replacing this one.
    pub fn overridden_by(&self, overrides: &Limits) -> Limits {
        Limits {
            time: overrides.time.or(self.time),
            target: overrides.target.or(self.target),
            playouts: overrides.playouts.or(self.playouts),
            nodes: overrides.nodes.or(self.nodes),
            depth: overrides.depth.or(self.depth),
            stop: overrides.stop.clone().or_else(|| self.stop.clone()),
        }
    }

    /// The time a search that does not plan its own (all but alpha-beta) spends: the
    /// planned time when there is one, else the time limit.
    pub fn planned_time(&self) -> Option<Duration> {
        self.target.or(self.time)
    }
}

/// What [`SearchGame::root_knowledge`] proved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootKnowledge<M> {
    /// A move proven to win.
    pub winning: Option<M>,
    /// The moves not proven to lose, when some were (`None`: no restriction).
    pub candidates: Option<Vec<M>>,
}

impl<M> Default for RootKnowledge<M> {
    fn default() -> Self {
        RootKnowledge {
            winning: None,
            candidates: None,
        }
    }
}

/// Which of the game's move patterns MCTS applies when it expands a node
/// ([`SearchGame::candidate_moves`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreePatterns {
    /// Every legal move.
    #[default]
    Off,
    /// The moves that cannot matter are left out (Hex: dead cells and captured pairs).
    Prune,
    /// Prune's moves left out, and a move that another move dominates (Hex: a vulnerable
    /// cell whose killer is among the moves and not left out itself): the dominating move
    /// wins whenever the dominated one does, so a winning move stays in view.
    Dominated,
    /// Prune's moves left out, and a forcing pattern's reply the only move (Hex: an
    /// intrusion into a bridge is answered at once). A forced reply is usually right, not
    /// always: a node whose winning move lies elsewhere is then misjudged.
    Forced,
}

/// What a game's own analysis proves about a position for its side to move
/// ([`SearchGame::node_knowledge`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKnowledge<M> {
    /// The side to move wins with best play.
    Won,
    /// The side to move loses with best play.
    Lost,
    /// No move but these does better than the best of them: any other move loses, or is
    /// one that a move of these matches (Hex: an inferior cell), so it may be treated as lost.
    MustPlay(Vec<M>),
}

/// The time limit and stop flag of a search, cheap to poll.
#[derive(Clone, Debug, Default)]
pub(crate) struct Deadline {
    end: Option<Instant>,
    stop: Option<StopFlag>,
}

impl Deadline {
    /// The deadline of `limits` ([`Limits::planned_time`]), counted from now.
    pub(crate) fn of(limits: &Limits) -> Deadline {
        Deadline {
            end: limits.planned_time().map(|t| Instant::now() + t),
            stop: limits.stop.clone(),
        }
    }

    /// Moves the time limit to `end` (a stop request still counts).
    pub(crate) fn set_end(&mut self, end: Instant) {
        self.end = Some(end);
    }

    /// The time until the deadline (`None` without a time limit).
    pub(crate) fn left(&self) -> Option<Duration> {
        self.end
            .map(|end| end.saturating_duration_since(Instant::now()))
    }

    /// True once the time is up or a stop was requested.
    pub(crate) fn passed(&self) -> bool {
        self.stop.as_ref().is_some_and(StopFlag::is_raised)
            || self.end.is_some_and(|end| Instant::now() >= end)
    }
}

/// Game-specific knowledge the searches use; every method has a generic default.
pub trait SearchGame: EvalGame {
    /// Plies after which a random playout is cut off (and scored as a draw).
    const PLAYOUT_CAP: usize = 1_000;

    /// False while a capture (or other forcing sequence) is pending, so alpha-beta keeps
    /// searching past its depth (quiescence).
    fn is_quiet(&self) -> bool {
        true
    }

    /// True when the opponent could capture if it were its move: a quiet position that is
    /// not yet safe to evaluate, since the side to move may have to answer the threat.
    /// Alpha-beta searches one ply more there, a set number of times along a line of play
    /// ([`alphabeta::AlphaBeta::with_threat_extensions`]).
    fn is_threatened(&self) -> bool {
        false
    }

    /// The [`Game::hash`] of the position after `mv`, where the game can tell it without
    /// playing the move: alpha-beta then asks for the next move's table entry while it
    /// searches the move before it.
    fn hash_after(&self, mv: Self::Move) -> Option<u64> {
        let _ = mv;
        None
    }

    /// This position's result from the solved tables loaded by [`SearchGame::load_solved`],
    /// if they cover it.
    fn solved(&self) -> Option<Solved> {
        None
    }

    /// Loads this game's solved tables for every search of the process, from `source`: a
    /// number of pieces to build them for, or a file to read them from.
    fn load_solved(source: &str) -> Result<(), String> {
        let _ = source;
        Err("this game has no endgame databases".into())
    }

    /// A random playout like [`Game::random_playout`] that also records, for RAVE/AMAF, each
    /// move that ends up played and its colour.
    fn traced_playout(
        &self,
        rng: &mut Rng,
        max_plies: usize,
        trace: &mut Vec<(Color, Self::Move)>,
    ) -> Option<Outcome> {
        trace.clear();
        crate::game::playout_with(self, rng, max_plies, |color, mv| trace.push((color, mv)))
    }

    /// A playout by the game's playout patterns (moves that answer the opponent's last
    /// move; `weighted`: also moves drawn by the weights of local patterns, where the game
    /// has them), traced like [`SearchGame::traced_playout`]; the default is that uniform
    /// one.
    fn pattern_playout(
        &self,
        rng: &mut Rng,
        max_plies: usize,
        trace: &mut Vec<(Color, Self::Move)>,
        _weighted: bool,
    ) -> Option<Outcome> {
        self.traced_playout(rng, max_plies, trace)
    }

    /// How many move numbers [`SearchGame::move_slot`] gives (the same in every position
    /// of a game); 0 (the default) when the game numbers none.
    fn move_slots(&self) -> usize {
        0
    }

    /// A number below [`SearchGame::move_slots`] for `mv`, the same in every position of
    /// the game, so that per-move tables (RAVE) can be arrays; `None` for moves without one.
    fn move_slot(&self, mv: Self::Move) -> Option<usize> {
        let _ = mv;
        None
    }

    /// The chances that a strong player picks each of `moves` (summing to 1), into `out`;
    /// `false` (the default) when the game has no move model.
    fn move_priors(&self, moves: &[Self::Move], out: &mut Vec<f64>) -> bool {
        let _ = (moves, out);
        false
    }

    /// What a solver proves at the root before MCTS searches, within `expansions` solver
    /// nodes and `limits`: a winning move, or the moves not proven to lose (MCTS leaves the
    /// others out of its tree). The default proves nothing.
    fn root_knowledge(&self, expansions: u64, limits: &Limits) -> RootKnowledge<Self::Move> {
        let _ = (expansions, limits);
        RootKnowledge::default()
    }

    /// What the game's own analysis (cheaper than a search, dearer than a playout) proves
    /// about this position for the side to move, used by MCTS at nodes with many visits;
    /// `None` when it proves nothing, the default.
    fn node_knowledge(&self) -> Option<NodeKnowledge<Self::Move>> {
        None
    }

    /// The moves MCTS should consider: as `patterns` says, games may leave out moves that
    /// cannot matter or answer forcing patterns with a single move; the default is every
    /// legal move.
    fn candidate_moves(&self, moves: &mut Vec<Self::Move>, patterns: TreePatterns) {
        let _ = patterns;
        self.legal_moves(moves);
    }

    /// Plies played and the plies a game of this kind usually lasts, for players that
    /// spread a time per move over the game ([`time_plan::Pace::Front`]); `None` (the
    /// default) when the game does not know.
    fn game_length(&self) -> Option<(usize, usize)> {
        None
    }

    /// A uniformly random legal move (`None` once the game is over); `scratch` is working
    /// memory the caller keeps between calls. Games may override this with a faster draw
    /// that gives the same distribution.
    fn random_move(&self, rng: &mut Rng, scratch: &mut Vec<Self::Move>) -> Option<Self::Move> {
        self.legal_moves(scratch);
        (!scratch.is_empty()).then(|| scratch[rng.random_range(0..scratch.len())])
    }
}

/// What a search chose and what it knows about the choice; fields a search does not measure
/// stay `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision<M> {
    /// The chosen move (`None` when there is no legal move).
    pub best: Option<M>,
    /// The expected score of the side to move after the best move, in [0, 1] (1 a certain
    /// win). Alpha-beta maps its centi-scores back with [`alphabeta::score_value`].
    pub value: Option<f64>,
    /// The deepest completed iteration (alpha-beta) or the fixed depth (averaging tree).
    pub depth: Option<u32>,
    /// Nodes visited (alpha-beta), positions evaluated (greedy, averaging tree) or tree nodes
    /// (MCTS).
    pub nodes: Option<u64>,
    /// Simulations run (MCTS, flat Monte Carlo).
    pub playouts: Option<u64>,
    /// Visits of the chosen move (MCTS).
    pub visits: Option<u64>,
    /// The expected line of play, from the chosen move on (MCTS: the most visited child at
    /// each level); empty where the search gives none.
    pub line: Vec<M>,
}

impl<M> Decision<M> {
    /// A decision that knows only its move.
    pub fn bare(best: Option<M>) -> Decision<M> {
        Decision {
            best,
            value: None,
            depth: None,
            nodes: None,
            playouts: None,
            visits: None,
            line: Vec::new(),
        }
    }
}

/// Picks uniformly among the indices whose score is maximal (within 1e-12).
pub fn argmax_random_tie(scores: &[f64], rng: &mut Rng) -> Option<usize> {
    let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = (0..scores.len())
        .filter(|&i| scores[i] >= best - 1e-12)
        .collect();
    match ties.len() {
        0 => None,
        1 => Some(ties[0]),
        n => Some(ties[rng.random_range(0..n)]),
    }
}

/// The positions after each of `moves` from `game`.
pub(crate) fn children<G: Game>(game: &G, moves: &[G::Move]) -> Vec<G> {
    moves
        .iter()
        .map(|&mv| {
            let mut child = game.clone();
            child.play(mv);
            child
        })
        .collect()
}

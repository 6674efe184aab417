//! UCT Monte Carlo tree search (seed 004): selection by UCB1 `V + C·sqrt(2 ln N / N_i)`,
//! expansion of every child of a leaf once it has been visited `expand_after` times, a
//! uniform random playout (or the game's pattern playout, or the evaluator when one is
//! given), and backpropagation. Options: RAVE/AMAF blending, game patterns at expansion,
//! subtree reuse between moves, root parallelism (a tree per thread) or tree parallelism
//! (one tree shared without locks, virtual loss) over threads, prior knowledge (the
//! children of nodes near the root start with virtual visits valued by an evaluator, all
//! siblings evaluated in one batch), progressive bias from the game's move priors,
//! proven values propagated in the tree (MCTS-solver), and the game's own analysis at nodes
//! with many visits (Hex: virtual connections prove positions and prune moves outside the
//! must-play region). A timed search of one tree stops once the rest of its time could
//! not change its choice. Reports give the expected line of play.

mod node;

use super::{
    argmax_random_tie, Deadline, Limits, NodeKnowledge, RootKnowledge, SearchGame, TreePatterns,
};
use crate::eval::Evaluator;
use crate::game::{Color, Game};
use crate::rng::{self, Rng};
pub use node::BiasDecay;
use node::{Arena, Scoring};
use rand::seq::SliceRandom;
use rand::Rng as _;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Tree size (about 1 GiB) past which leaves are no longer expanded; simulations go on
/// from the leaves, so long time limits cannot exhaust memory.
pub const MAX_TREE_NODES: usize = 16 << 20;

/// Simulations between two checks of whether a timed search's choice is settled.
const SETTLED_CHECK: u64 = 256;

/// Simulations per move when no limit is given.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;

/// Settings of the tree search.
#[derive(Clone)]
pub struct MctsConfig<G: Game> {
    /// Exploration constant C of `V + C·sqrt(2 ln N / N_i)` (seed 004 used 2).
    pub c: f64,
    /// RAVE equivalence parameter k (`beta = sqrt(k / (3N + k))`); `None` disables RAVE.
    pub rave: Option<f64>,
    /// Evaluator used at the leaf instead of a random playout.
    pub evaluator: Option<Arc<dyn Evaluator<G>>>,
    /// The game's move patterns applied at expansion ([`SearchGame::candidate_moves`]).
    pub patterns: TreePatterns,
    /// Play out with the game's playout patterns ([`SearchGame::pattern_playout`]) instead
    /// of uniformly random moves.
    pub pattern_playouts: bool,
    /// With [`MctsConfig::pattern_playouts`]: also the game's weighted local patterns.
    pub weighted_playouts: bool,
    /// Threads searching in parallel: one tree each, their root statistics summed (root
    /// parallelism), or all in one tree under [`MctsConfig::shared_tree`].
    pub threads: usize,
    /// The threads share one tree, with virtual losses (tree parallelism); a search with
    /// several threads then depends on how they interleave and is not reproduced exactly
    /// from its seed, as root parallelism is.
    pub shared_tree: bool,
    /// Keep the subtree of the position reached between two moves.
    pub reuse: bool,
    /// Visits a leaf needs before it is expanded (the root is always expanded).
    pub expand_after: u32,
    /// Prior knowledge: new children get [`Prior::visits`] virtual visits worth the
    /// evaluator's value of their position.
    pub prior: Option<Prior<G>>,
    /// Progressive bias from the game's move priors ([`SearchGame::move_priors`]): a child
    /// with chance p scores `bias * p`, faded by [`MctsConfig::bias_decay`], on top of its
    /// value, and an unvisited child is valued at its AMAF mean (0.5 without one) instead
    /// of being tried first (0: off).
    pub bias: f64,
    /// How the progressive bias fades with a child's visits (`/ (visits + 1)` by default).
    pub bias_decay: BiasDecay,
    /// Proven wins and losses are propagated up the tree (MCTS-solver): a finished game is
    /// proven, a node is lost for its mover once one reply is proven to win and won once
    /// every reply is proven to lose; selection passes over moves proven to lose, a
    /// simulation that reaches a proven node scores it without a playout, a move proven to
    /// win is played, and the search ends once the root is proven.
    pub prove: bool,
    /// Visits at which a node below the root asks the game's own analysis
    /// ([`SearchGame::node_knowledge`], Hex: H-search): a position it proves is scored
    /// without playouts and its proof carried up the tree, and the moves outside a
    /// must-play region are proven to lose; implies the proof handling of
    /// [`MctsConfig::prove`] (0: off).
    pub knowledge: u32,
    /// Solver nodes spent on the root before searching ([`SearchGame::root_knowledge`]):
    /// a proven win is played at once, moves proven to lose stay out of the tree (0: off).
    pub solver: u64,
}

/// Prior knowledge for new tree nodes (virtual visits, as in Gelly and Silver's UCT with
/// prior knowledge).
#[derive(Clone)]
pub struct Prior<G: Game> {
    /// Values the children's positions.
    pub evaluator: Arc<dyn Evaluator<G>>,
    /// Virtual visits each child starts with.
    pub visits: u32,
    /// Tree levels whose expansions get priors (1: the root's children only).
    pub depth: usize,
}

impl<G: Game> MctsConfig<G> {
    /// Whether the tree keeps and acts on proven values ([`MctsConfig::prove`], or the
    /// proofs of [`MctsConfig::knowledge`]).
    fn proofs(&self) -> bool {
        self.prove || self.knowledge > 0
    }

    /// The terms of the nodes' selection values.
    fn scoring(&self) -> Scoring {
        Scoring {
            rave: self.rave,
            bias_decay: self.bias_decay,
        }
    }
}

impl<G: Game> Default for MctsConfig<G> {
    fn default() -> Self {
        MctsConfig {
            c: 0.25,
            rave: None,
            evaluator: None,
            patterns: TreePatterns::Off,
            pattern_playouts: false,
            weighted_playouts: false,
            threads: 1,
            shared_tree: false,
            reuse: false,
            expand_after: 2,
            prior: None,
            bias: 0.0,
            bias_decay: BiasDecay::Visits,
            prove: false,
            knowledge: 0,
            solver: 0,
        }
    }
}

/// The colour that first played each move of one simulation below the node being updated
/// (RAVE): in an array for the moves the game numbers ([`SearchGame::move_slot`]), in a hash
/// map for the others.
struct FirstPlays<M> {
    /// [`Color::index`] + 1 of each numbered move's colour, 0 for none.
    numbered: Vec<u8>,
    /// The numbered moves set since the last clear.
    touched: Vec<usize>,
    others: HashMap<M, Color>,
}

impl<M: Copy + Eq + std::hash::Hash> FirstPlays<M> {
    fn for_game<G: SearchGame<Move = M>>(game: &G) -> FirstPlays<M> {
        FirstPlays {
            numbered: vec![0; game.move_slots()],
            touched: Vec::new(),
            others: HashMap::new(),
        }
    }

    fn clear(&mut self) {
        for &slot in &self.touched {
            self.numbered[slot] = 0;
        }
        self.touched.clear();
        self.others.clear();
    }

    /// Records that `color` played `mv` (replacing what was recorded for it).
    fn insert<G: SearchGame<Move = M>>(&mut self, game: &G, mv: M, color: Color) {
        match game.move_slot(mv) {
            Some(slot) => {
                if self.numbered[slot] == 0 {
                    self.touched.push(slot);
                }
                self.numbered[slot] = color.index() as u8 + 1;
            }
            None => {
                self.others.insert(mv, color);
            }
        }
    }

    fn get<G: SearchGame<Move = M>>(&self, game: &G, mv: M) -> Option<Color> {
        match game.move_slot(mv) {
            Some(slot) => match self.numbered[slot] {
                0 => None,
                1 => Some(Color::Black),
                _ => Some(Color::White),
            },
            None => self.others.get(&mv).copied(),
        }
    }
}

/// One search tree, rooted at the position last searched.
pub struct Tree<G: Game> {
    nodes: Arena<G::Move>,
    root_hash: u64,
    /// The only moves the root may get when it is expanded (from the root solver).
    root_moves: Option<Vec<G::Move>>,
}

impl<G: SearchGame> Tree<G> {
    fn new(game: &G) -> Tree<G> {
        Tree {
            nodes: Arena::with_root(MAX_TREE_NODES, game.side_to_move().opponent()),
            root_hash: game.hash(),
            root_moves: None,
        }
    }

    /// The tree for `game`: the subtree of this tree when `game` follows the searched
    /// position by up to two moves, else a fresh tree.
    fn rerooted(self, game: &G) -> Tree<G> {
        let mut back = game.clone();
        let mut path = Vec::new();
        while back.hash() != self.root_hash && path.len() < 2 {
            match back.undo() {
                Some(mv) => path.push(mv),
                None => break,
            }
        }
        if back.hash() != self.root_hash {
            return Tree::new(game);
        }
        let mut index = 0;
        for &mv in path.iter().rev() {
            match self.nodes[index]
                .children()
                .find(|&c| self.nodes[c].mv() == Some(mv))
            {
                Some(child) => index = child,
                None => return Tree::new(game),
            }
        }
        Tree {
            nodes: self.nodes.subtree(index),
            root_hash: game.hash(),
            root_moves: None,
        }
    }

    /// Runs simulations until `budget` is spent, the deadline comes, the tree reaches
    /// `node_limit` nodes or (one tree searched under a time limit) the choice is settled
    /// ([`Tree::choice_settled`]). Several threads may run this on one tree at once, without
    /// a lock: every node on a simulation's path counts its visit on the way down and its
    /// result on the way back (a virtual loss meanwhile, so the other threads look
    /// elsewhere), and a leaf is expanded by the one thread that claims it.
    fn simulate(
        &self,
        game: &G,
        config: &MctsConfig<G>,
        budget: &Budget,
        node_limit: u64,
        deadline: &Deadline,
        rng: &mut Rng,
    ) {
        let scoring = config.scoring();
        let mut path = Vec::with_capacity(64);
        let mut moves = Vec::new();
        let mut trace = Vec::new();
        let mut chances = Vec::new();
        let mut amaf = FirstPlays::for_game(game);
        let mut position = game.clone();
        // The clock is read every 64 simulations, or every one when an evaluator makes them
        // slow (a Tsetlin Machine takes tenths of a millisecond a position).
        let check_every = if config.evaluator.is_some() || config.prior.is_some() {
            1
        } else {
            64
        };
        let prove = config.proofs();
        // One tree searched alone or by every thread: it stops once its choice is settled.
        let settles = config.threads <= 1 || config.shared_tree;
        let started = Instant::now();
        let visits_before = self.nodes[0].visits();
        for done in 0u64.. {
            if (done % check_every == 0 && deadline.passed())
                || (settles
                    && done % SETTLED_CHECK == SETTLED_CHECK - 1
                    && self.choice_settled(started, visits_before, deadline))
                || self.nodes.len() as u64 >= node_limit
                || (prove && self.nodes[0].proof().is_some())
                || !budget.claim()
            {
                break;
            }
            // Selection.
            path.clear();
            path.push(0usize);
            self.nodes[0].add_visit(scoring);
            let mut index = 0;
            while self.nodes[index].has_children()
                && !(prove && self.nodes[index].proof().is_some())
            {
                index = self.select(index, config);
                position.play(self.nodes[index].child_move());
                path.push(index);
                if self.nodes[index].add_visit(scoring) == config.knowledge {
                    self.apply_knowledge(index, &position);
                }
            }
            // Expansion of a leaf visited before (the root always), by one thread.
            let leaf = &self.nodes[index];
            let mut outcome = position.outcome();
            if (index == 0 || leaf.visits() > config.expand_after)
                && self.nodes.len() < MAX_TREE_NODES
                && outcome.is_none()
                && leaf.claim_expansion()
            {
                match (&self.root_moves, index) {
                    (Some(root_moves), 0) => moves.clone_from(root_moves),
                    _ => position.candidate_moves(&mut moves, config.patterns),
                }
                moves.shuffle(rng);
                let prior = config
                    .prior
                    .as_ref()
                    .filter(|prior| path.len() <= prior.depth)
                    .map(|prior| (prior.visits, prior_scores(&position, &moves, prior)));
                let biased = config.bias > 0.0 && position.move_priors(&moves, &mut chances);
                let mover = position.side_to_move();
                let made = self.nodes.expand(index, &moves, mover, |k, child| {
                    if let Some((visits, scores)) = &prior {
                        child.set_prior(*visits, scores[k], scoring);
                    }
                    if biased {
                        child.set_bias((config.bias * chances[k]) as f32, scoring);
                    }
                });
                if made && !moves.is_empty() {
                    // The first new child, unless a prior or the bias ranks them.
                    index = self.select(index, config);
                    position.play(self.nodes[index].child_move());
                    path.push(index);
                    self.nodes[index].add_visit(scoring);
                    outcome = position.outcome();
                }
            }
            // Simulation: a score in [0,1] for Black.
            let leaf = &self.nodes[index];
            if prove {
                if let Some(winner) = outcome.and_then(|o| o.winner) {
                    leaf.prove(winner == leaf.mover());
                }
            }
            let proof = if prove { leaf.proof() } else { None };
            let black_score = if let Some(won) = proof {
                trace.clear();
                if won == (leaf.mover() == Color::Black) {
                    1.0
                } else {
                    0.0
                }
            } else if let Some(outcome) = outcome {
                trace.clear();
                outcome.score_for(Color::Black)
            } else if let Some(evaluator) = &config.evaluator {
                trace.clear();
                let value = evaluator.evaluate_one(&position).value;
                match position.side_to_move() {
                    Color::Black => value,
                    Color::White => 1.0 - value,
                }
            } else if config.pattern_playouts {
                position
                    .pattern_playout(rng, G::PLAYOUT_CAP, &mut trace, config.weighted_playouts)
                    .map_or(0.5, |o| o.score_for(Color::Black))
            } else if scoring.rave.is_some() {
                position
                    .traced_playout(rng, G::PLAYOUT_CAP, &mut trace)
                    .map_or(0.5, |o| o.score_for(Color::Black))
            } else {
                position
                    .random_playout(rng, G::PLAYOUT_CAP)
                    .map_or(0.5, |o| o.score_for(Color::Black))
            };
            if proof.is_some() {
                self.propagate_proof(&path);
            }
            self.backpropagate(&position, &path, black_score, scoring, &trace, &mut amaf);
            for _ in 1..path.len() {
                position.undo();
            }
        }
    }

    /// Records what the game's analysis of `position` (the node `index`'s) proves: the
    /// node's value, or the children outside the must-play region as lost. Children made
    /// by patterns that all fall outside the region are left as they are (the patterns,
    /// not the position, left the region's moves out).
    fn apply_knowledge(&self, index: usize, position: &G) {
        let node = &self.nodes[index];
        match position.node_knowledge() {
            None => {}
            // The node's mover is the side not to move.
            Some(NodeKnowledge::Won) => node.prove(false),
            Some(NodeKnowledge::Lost) => node.prove(true),
            Some(NodeKnowledge::MustPlay(region)) => {
                let children = self.nodes.slice(node.children());
                let inside = |child: &node::Node<G::Move>| region.contains(&child.child_move());
                if children.iter().any(inside) {
                    children
                        .iter()
                        .filter(|child| !inside(child))
                        .for_each(|child| child.prove(false));
                }
            }
        }
    }

    fn select(&self, parent: usize, config: &MctsConfig<G>) -> usize {
        let node = &self.nodes[parent];
        let weight = config.c * (2.0 * f64::from(node.visits().max(1)).ln()).max(0.0).sqrt();
        let range = node.children();
        let mut best = range.start;
        let mut best_score = f64::NEG_INFINITY;
        for (child, node) in range.clone().zip(self.nodes.slice(range)) {
            if config.proofs() {
                match node.proof() {
                    Some(true) => return child,
                    Some(false) => continue,
                    None => {}
                }
            }
            let score = node.score(weight);
            if score > best_score {
                best_score = score;
                best = child;
            }
        }
        best
    }

    /// Carries the proven value of the last node of `path` up the path while it proves its
    /// parents: a child proven to win proves its parent lost for the parent's mover, and
    /// a child proven to lose proves its parent won once every sibling is proven lost too.
    fn propagate_proof(&self, path: &[usize]) {
        for pair in path.windows(2).rev() {
            let (parent, child) = (&self.nodes[pair[0]], &self.nodes[pair[1]]);
            if parent.proof().is_some() {
                break;
            }
            match child.proof() {
                Some(true) => parent.prove(false),
                Some(false)
                    if self
                        .nodes
                        .slice(parent.children())
                        .iter()
                        .all(|sibling| sibling.proof() == Some(false)) =>
                {
                    parent.prove(true)
                }
                _ => break,
            }
        }
    }

    /// Adds the result of a simulation (its visits were counted on the way down).
    fn backpropagate(
        &self,
        game: &G,
        path: &[usize],
        black_score: f64,
        scoring: Scoring,
        trace: &[(Color, G::Move)],
        amaf: &mut FirstPlays<G::Move>,
    ) {
        let score_for = |color: Color| match color {
            Color::Black => black_score,
            Color::White => 1.0 - black_score,
        };
        if scoring.rave.is_some() {
            // The colour that first played each move below the current node.
            amaf.clear();
            for &(color, mv) in trace.iter().rev() {
                amaf.insert(game, mv, color);
            }
        }
        for &index in path.iter().rev() {
            let node = &self.nodes[index];
            if scoring.rave.is_some() {
                for child in self.nodes.slice(node.children()) {
                    let (mv, mover) = child.child_head();
                    if amaf.get(game, mv) == Some(mover) {
                        child.add_amaf(score_for(mover), scoring);
                    }
                }
                if let Some(mv) = node.mv() {
                    amaf.insert(game, mv, node.mover());
                }
            }
            node.add_result(score_for(node.mover()), scoring);
        }
    }

    /// `first` (a root move), then the most visited child at each level below it while that
    /// child has [`LINE_MIN_VISITS`] visits (ties: the first child).
    fn line_after(&self, first: G::Move) -> Vec<G::Move> {
        let mut line = vec![first];
        let mut index = self.nodes[0]
            .children()
            .find(|&c| self.nodes[c].mv() == Some(first));
        while let Some(node) = index.filter(|_| line.len() < LINE_MAX_MOVES) {
            let mut best: Option<usize> = None;
            for child in self.nodes[node].children() {
                let visits = self.nodes[child].visits();
                if visits >= LINE_MIN_VISITS
                    && !matches!(best, Some(b) if visits <= self.nodes[b].visits())
                {
                    best = Some(child);
                }
            }
            if let Some(child) = best {
                line.push(self.nodes[child].child_move());
            }
            index = best;
        }
        line
    }

    /// Whether the most visited root move stays the choice whatever the rest of the time
    /// brings: its lead over the next move not proven to lose is larger than the
    /// simulations the time left allows at the rate since `started` (when the root had
    /// `visits_before` visits).
    fn choice_settled(&self, started: Instant, visits_before: u32, deadline: &Deadline) -> bool {
        let Some(left) = deadline.left() else {
            return false;
        };
        let run = self.nodes[0].visits().saturating_sub(visits_before);
        let (mut first, mut second) = (0u32, 0u32);
        for child in self.nodes.slice(self.nodes[0].children()) {
            if child.proof() == Some(false) {
                continue;
            }
            let visits = child.visits();
            if visits > first {
                second = first;
                first = visits;
            } else if visits > second {
                second = visits;
            }
        }
        lead_holds(first - second, run, started.elapsed(), left)
    }

    /// Each root move with its visits, the mover's summed score and its proven value.
    fn root_stats(&self) -> Vec<(G::Move, u32, f64, Option<bool>)> {
        self.nodes
            .slice(self.nodes[0].children())
            .iter()
            .map(|node| (node.child_move(), node.visits(), node.wins(), node.proof()))
            .collect()
    }
}

/// The values to their mover of the positions `moves` lead to from `position`, from the
/// prior's evaluator (all siblings in one batch; finished games by their outcome).
fn prior_scores<G: SearchGame>(position: &G, moves: &[G::Move], prior: &Prior<G>) -> Vec<f64> {
    let mover = position.side_to_move();
    let children: Vec<G> = moves
        .iter()
        .map(|&mv| {
            let mut child = position.clone();
            child.play(mv);
            child
        })
        .collect();
    let values = prior.evaluator.evaluate(&children);
    children
        .iter()
        .zip(values)
        .map(|(child, value)| match child.outcome() {
            Some(outcome) => outcome.score_for(mover),
            // The value is the child's side to move's, the mover's opponent.
            None => 1.0 - value.value,
        })
        .collect()
}

/// The most of a timed move the root solver may take: a quarter, growing from none over the
/// first half of a game's usual length (the solver seldom proves anything in the opening,
/// where the time serves the tree better); a quarter throughout for games without one.
fn solver_share<G: SearchGame>(game: &G) -> f64 {
    const SHARE: f64 = 0.25;
    match game.game_length() {
        Some((played, expected)) if expected > 0 => {
            SHARE * (2.0 * played as f64 / expected as f64).min(1.0)
        }
        _ => SHARE,
    }
}

/// Whether a lead of `lead` visits holds: `run` simulations took `elapsed`, and at that rate
/// the time `left` allows fewer than `lead` more.
fn lead_holds(lead: u32, run: u32, elapsed: Duration, left: Duration) -> bool {
    let elapsed = elapsed.as_secs_f64();
    run > 0 && elapsed > 0.0 && f64::from(lead) > f64::from(run) / elapsed * left.as_secs_f64()
}

/// Simulations a tree may still run, claimed one at a time by the threads searching it.
struct Budget {
    claimed: AtomicU64,
    limit: u64,
}

impl Budget {
    fn new(limit: u64) -> Budget {
        Budget {
            claimed: AtomicU64::new(0),
            limit,
        }
    }

    /// Takes one simulation; false once the budget is spent.
    fn claim(&self) -> bool {
        self.claimed.fetch_add(1, Ordering::Relaxed) < self.limit
    }
}

/// A UCT searcher; keeps its trees between moves when `reuse` is on.
pub struct Mcts<G: Game> {
    config: MctsConfig<G>,
    trees: Vec<Option<Tree<G>>>,
}

/// Root statistics of a finished search.
#[derive(Clone, Debug, PartialEq)]
pub struct MctsReport<M> {
    /// The most visited move (ties broken at random); `None` without legal moves.
    pub best: Option<M>,
    /// The best move's mean score for the side to move (`None` when it was never visited).
    pub value: Option<f64>,
    /// Visits of every root move, summed over the threads.
    pub visits: Vec<(M, u32)>,
    /// Simulations run in this search (all threads).
    pub simulations: u64,
    /// Nodes in the trees after the search (all threads).
    pub tree_nodes: usize,
    /// The expected line from the best move on: the most visited child at each level of
    /// the first tree, while it has at least [`LINE_MIN_VISITS`] visits.
    pub line: Vec<M>,
}

/// Visits a node needs to be part of a report's expected line.
pub const LINE_MIN_VISITS: u32 = 10;

/// Longest expected line a report gives.
const LINE_MAX_MOVES: usize = 12;

impl<G: SearchGame> Mcts<G> {
    /// A searcher with `config`.
    pub fn new(config: MctsConfig<G>) -> Mcts<G> {
        let trees = if config.shared_tree {
            1
        } else {
            config.threads.max(1)
        };
        Mcts {
            config,
            trees: (0..trees).map(|_| None).collect(),
        }
    }

    /// Forgets the trees kept for reuse (a new game).
    pub fn new_game(&mut self) {
        self.trees.iter_mut().for_each(|t| *t = None);
    }

    /// Searches `game` within `limits` (playouts are split evenly over the trees; with no
    /// limit at all, [`DEFAULT_PLAYOUTS`]).
    pub fn search(&mut self, game: &G, limits: &Limits, rng: &mut Rng) -> MctsReport<G::Move> {
        let playouts = match limits.playouts {
            Some(p) => p,
            None if limits.time.is_some() || limits.nodes.is_some() => u64::MAX,
            None => DEFAULT_PLAYOUTS,
        };
        let node_limit = limits.nodes.unwrap_or(u64::MAX);
        let deadline = Deadline::of(limits);
        let solver_time = limits.planned_time().map(|t| t.mul_f64(solver_share(game)));
        let knowledge = if self.config.solver > 0 && solver_time != Some(Duration::ZERO) {
            let share = Limits {
                time: solver_time,
                stop: limits.stop.clone(),
                ..Limits::default()
            };
            game.root_knowledge(self.config.solver, &share)
        } else {
            RootKnowledge::default()
        };
        if let Some(mv) = knowledge.winning {
            return MctsReport {
                best: Some(mv),
                value: Some(1.0),
                visits: vec![(mv, 0)],
                simulations: 0,
                tree_nodes: 0,
                line: vec![mv],
            };
        }
        let seed: u64 = rng.random();
        let reuse = self.config.reuse;
        let config = &self.config;
        let mut trees: Vec<Tree<G>> = self
            .trees
            .iter_mut()
            .map(|slot| match slot.take() {
                Some(tree) if reuse => tree.rerooted(game),
                _ => Tree::new(game),
            })
            .collect();
        for tree in &mut trees {
            tree.root_moves.clone_from(&knowledge.candidates);
        }
        let reused: u64 = trees.iter().map(|t| u64::from(t.nodes[0].visits())).sum();
        // Each tree with its share of the simulations; thread k searches tree k modulo
        // their number.
        let count = trees.len() as u64;
        let budgets: Vec<Budget> = (0..count)
            .map(|k| Budget::new(playouts / count + u64::from(k < playouts % count)))
            .collect();
        let run = |k: usize| {
            let lane = k % trees.len();
            let mut thread_rng = rng::substream(seed, k as u64);
            trees[lane].simulate(
                game,
                config,
                &budgets[lane],
                node_limit,
                &deadline,
                &mut thread_rng,
            );
        };
        let threads = config.threads.max(1);
        if threads == 1 {
            run(0);
        } else {
            std::thread::scope(|scope| {
                for k in 0..threads {
                    scope.spawn(move || run(k));
                }
            });
        }
        let mut totals: Vec<(G::Move, u32)> = Vec::new();
        let mut wins: Vec<f64> = Vec::new();
        // Per root move: proven to win (in some tree), to lose, or neither.
        let mut proofs: Vec<Option<bool>> = Vec::new();
        for tree in &trees {
            for (mv, visits, score, proof) in tree.root_stats() {
                match totals.iter().position(|(m, _)| *m == mv) {
                    Some(k) => {
                        totals[k].1 += visits;
                        wins[k] += score;
                        proofs[k] = proofs[k].max(proof);
                    }
                    None => {
                        totals.push((mv, visits));
                        wins.push(score);
                        proofs.push(proof);
                    }
                }
            }
        }
        let simulations = trees
            .iter()
            .map(|t| u64::from(t.nodes[0].visits()))
            .sum::<u64>()
            - reused;
        // The most visited move, among the moves proven to win if there are any, else among
        // those not proven to lose if there are any.
        let rank = |k: usize| match proofs[k] {
            Some(true) => 2,
            None => 1,
            Some(false) => 0,
        };
        let top = (0..totals.len()).map(rank).max().unwrap_or(0);
        let scores: Vec<f64> = totals
            .iter()
            .enumerate()
            .map(|(k, &(_, v))| if rank(k) == top { f64::from(v) } else { -1.0 })
            .collect();
        // Stopped before the root was expanded: any legal move.
        let chosen = argmax_random_tie(&scores, rng);
        let value = chosen
            .filter(|&i| totals[i].1 > 0 || proofs[i].is_some())
            .map(|i| match proofs[i] {
                Some(true) => 1.0,
                Some(false) => 0.0,
                None => wins[i] / f64::from(totals[i].1),
            });
        let best = chosen.map(|i| totals[i].0).or_else(|| {
            let mut moves = Vec::new();
            game.legal_moves(&mut moves);
            (!moves.is_empty()).then(|| moves[rng.random_range(0..moves.len())])
        });
        let tree_nodes = trees.iter().map(|t| t.nodes.len()).sum();
        let line = match best {
            Some(mv) => trees[0].line_after(mv),
            None => Vec::new(),
        };
        if reuse {
            self.trees = trees.into_iter().map(Some).collect();
        }
        MctsReport {
            best,
            value,
            visits: totals,
            simulations,
            tree_nodes,
            line,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;
    use crate::search::toy::TicTacToe;

    fn playouts(n: u64) -> Limits {
        Limits {
            playouts: Some(n),
            ..Limits::default()
        }
    }

    #[test]
    fn takes_a_win_and_blocks_a_loss() {
        for config in [
            MctsConfig::default(),
            MctsConfig {
                rave: Some(300.0),
                ..MctsConfig::default()
            },
            MctsConfig {
                threads: 2,
                c: 2.0,
                ..MctsConfig::default()
            },
            MctsConfig {
                threads: 2,
                shared_tree: true,
                rave: Some(300.0),
                ..MctsConfig::default()
            },
        ] {
            // X has 0,1 and O has 3,4: X wins at 2.
            let win = TicTacToe::from_moves(&[0, 3, 1, 4]);
            let mut mcts = Mcts::new(config.clone());
            assert_eq!(
                mcts.search(&win, &playouts(3000), &mut seeded(1)).best,
                Some(2)
            );
            // X has 0,1 and O has 4: O must block at 2.
            let block = TicTacToe::from_moves(&[0, 4, 1]);
            let mut mcts = Mcts::new(config);
            assert_eq!(
                mcts.search(&block, &playouts(3000), &mut seeded(2)).best,
                Some(2)
            );
        }
    }

    #[test]
    fn first_plays_keep_the_last_colour_recorded_for_each_move() {
        use crate::search::toy::{TreeGame, TreeNode};
        // Numbered moves (tic-tac-toe's cells) and moves without numbers (a tree's nodes).
        let numbered = TicTacToe::default();
        let mut plays = FirstPlays::for_game(&numbered);
        plays.insert(&numbered, 4, Color::White);
        plays.insert(&numbered, 4, Color::Black);
        plays.insert(&numbered, 0, Color::White);
        assert_eq!(plays.get(&numbered, 4), Some(Color::Black));
        assert_eq!(plays.get(&numbered, 0), Some(Color::White));
        assert_eq!(plays.get(&numbered, 8), None);
        plays.clear();
        assert!((0..9).all(|mv| plays.get(&numbered, mv).is_none()));
        let leaf = TreeNode {
            children: vec![],
            result: Some(None),
            value: 0.5,
        };
        let tree = TreeGame::new(vec![leaf]);
        let mut plays = FirstPlays::for_game(&tree);
        plays.insert(&tree, 7, Color::White);
        plays.insert(&tree, 7, Color::Black);
        assert_eq!(plays.get(&tree, 7), Some(Color::Black));
        plays.clear();
        assert_eq!(plays.get(&tree, 7), None);
    }

    #[test]
    fn a_prior_gives_the_children_virtual_visits_worth_its_values() {
        use crate::search::toy::{TreeEval, TreeGame, TreeNode};
        let node = |children: Vec<usize>, value: f64| TreeNode {
            children,
            result: None,
            value,
        };
        // Black chooses among nodes 1-3, worth 0.2, 0.9 and 0.5 to Black (the values are
        // White's, who moves there); every line ends drawn at node 4.
        let mut tree = vec![
            node(vec![1, 2, 3], 0.5),
            node(vec![4], 0.8),
            node(vec![4], 0.1),
            node(vec![4], 0.5),
        ];
        tree.push(TreeNode {
            children: vec![],
            result: Some(None),
            value: 0.5,
        });
        let game = TreeGame::new(tree);
        let config = MctsConfig {
            prior: Some(Prior {
                evaluator: Arc::new(TreeEval),
                visits: 20,
                depth: 1,
            }),
            ..MctsConfig::default()
        };
        let report = Mcts::new(config).search(&game, &playouts(1), &mut seeded(4));
        assert_eq!(report.best, Some(2));
        let mut visits = report.visits.clone();
        visits.sort();
        assert_eq!(visits, vec![(1, 20), (2, 21), (3, 20)]);
        assert_eq!(report.simulations, 1);
        // 0.9 x 20 virtual visits and one drawn playout.
        assert!((report.value.unwrap() - 18.5 / 21.0).abs() < 1e-12);
    }

    #[test]
    fn same_seed_same_search() {
        let game = TicTacToe::from_moves(&[4]);
        let config = MctsConfig {
            threads: 2,
            ..MctsConfig::default()
        };
        let a = Mcts::new(config.clone()).search(&game, &playouts(2001), &mut seeded(9));
        let b = Mcts::new(config).search(&game, &playouts(2001), &mut seeded(9));
        assert_eq!(a, b);
        // The line starts with the best move and goes on with legal moves.
        assert_eq!(a.line.first(), a.best.as_ref());
        assert!(a.line.len() > 1, "{:?}", a.line);
        let mut position = game.clone();
        for &mv in &a.line {
            let mut legal = Vec::new();
            position.legal_moves(&mut legal);
            assert!(legal.contains(&mv), "{:?}", a.line);
            position.play(mv);
        }
        assert_eq!(a.simulations, 2001);
        assert_eq!(
            a.visits.iter().map(|&(_, v)| u64::from(v)).sum::<u64>(),
            2001
        );
    }

    /// Visits and scores of every node of `tree` below `index` add up: each simulation
    /// through a node went on to one of its children, unless the node was a leaf then. With
    /// one thread that is the `expand_after` visits before it had children; with several,
    /// others may have played out from it while one thread was making them.
    fn check_counts(tree: &Tree<TicTacToe>, index: usize, expand_after: u32, one_thread: bool) {
        let node = &tree.nodes[index];
        assert!(node.wins() >= 0.0 && node.wins() <= f64::from(node.visits()));
        assert!(!node.expanding(), "an expansion was left unfinished");
        if !node.has_children() {
            return;
        }
        let below: u32 = node.children().map(|c| tree.nodes[c].visits()).sum();
        assert!(below <= node.visits(), "node {index}: {below} visits below");
        let before = if index == 0 { 0 } else { expand_after };
        if one_thread {
            assert_eq!(node.visits() - below, before, "node {index}");
        }
        for child in node.children() {
            check_counts(tree, child, expand_after, one_thread);
        }
    }

    #[test]
    fn threads_sharing_a_tree_leave_every_virtual_loss_resolved() {
        let game = TicTacToe::from_moves(&[4]);
        for threads in [1, 2, 4] {
            let config = MctsConfig {
                threads,
                shared_tree: true,
                rave: Some(300.0),
                reuse: true,
                ..MctsConfig::default()
            };
            let mut mcts = Mcts::new(config);
            let report = mcts.search(&game, &playouts(5000), &mut seeded(3));
            assert_eq!(report.simulations, 5000);
            let tree = mcts.trees[0].as_ref().expect("the tree is kept for reuse");
            assert_eq!(mcts.trees.len(), 1);
            assert_eq!(tree.nodes[0].visits(), 5000);
            check_counts(tree, 0, 2, threads == 1);
        }
    }

    /// The value of `game` for the side to move by exhaustive search: 1 win, 0 draw, -1 loss.
    fn negamax(game: &mut TicTacToe) -> i32 {
        if let Some(outcome) = game.outcome() {
            return match outcome.winner {
                Some(w) if w == game.side_to_move() => 1,
                Some(_) => -1,
                None => 0,
            };
        }
        let mut moves = Vec::new();
        game.legal_moves(&mut moves);
        let mut best = -1;
        for mv in moves {
            game.play(mv);
            best = best.max(-negamax(game));
            game.undo();
        }
        best
    }

    /// Every proven node of `tree` below `index` (reached by playing its moves on `game`)
    /// has the value exhaustive search gives it; returns how many were proven.
    fn check_proofs(tree: &Tree<TicTacToe>, index: usize, game: &mut TicTacToe) -> usize {
        let node = &tree.nodes[index];
        let mut proven = 0;
        if let Some(won) = node.proof() {
            // The mover wins when the side to move loses.
            assert_eq!(negamax(game), if won { -1 } else { 1 }, "{game:?}");
            proven += 1;
        }
        for child in node.children() {
            game.play(tree.nodes[child].child_move());
            proven += check_proofs(tree, child, game);
            game.undo();
        }
        proven
    }

    #[test]
    fn proven_values_agree_with_exhaustive_search() {
        let mut total = 0;
        for (k, start) in [&[][..], &[4], &[0, 4], &[0, 1], &[4, 0, 8], &[1, 4, 7, 3]]
            .into_iter()
            .enumerate()
        {
            for shared_tree in [false, true] {
                let config = MctsConfig {
                    prove: true,
                    threads: 2,
                    shared_tree,
                    reuse: true,
                    ..MctsConfig::default()
                };
                let mut game = TicTacToe::from_moves(start);
                let mut mcts = Mcts::new(config);
                let report = mcts.search(&game, &playouts(20_000), &mut seeded(k as u64));
                for tree in mcts.trees.iter().flatten() {
                    total += check_proofs(tree, 0, &mut game);
                }
                // A position won for the side to move is proven and its win played.
                if negamax(&mut game) == 1 {
                    let mv = report.best.unwrap();
                    game.play(mv);
                    assert_eq!(negamax(&mut game), -1, "{start:?}: {mv} does not win");
                    assert_eq!(report.value, Some(1.0), "{start:?}");
                    assert!(
                        report.simulations < 20_000,
                        "{start:?}: the proof ends the search"
                    );
                }
            }
        }
        assert!(
            total > 1000,
            "only {total} proven nodes: the test proves little"
        );
    }

    #[test]
    fn one_thread_searches_a_shared_tree_as_its_own() {
        let game = TicTacToe::from_moves(&[4, 0]);
        let own = Mcts::new(MctsConfig::default()).search(&game, &playouts(3000), &mut seeded(5));
        let shared = Mcts::new(MctsConfig {
            shared_tree: true,
            ..MctsConfig::default()
        })
        .search(&game, &playouts(3000), &mut seeded(5));
        assert_eq!(own, shared);
    }

    #[test]
    fn reuse_keeps_the_subtree_of_the_reached_position() {
        let config = MctsConfig {
            reuse: true,
            ..MctsConfig::default()
        };
        let mut mcts = Mcts::new(config);
        let mut game = TicTacToe::default();
        let mut rng = seeded(4);
        let first = mcts.search(&game, &playouts(4000), &mut rng);
        game.play(first.best.unwrap());
        let mut replies = Vec::new();
        game.legal_moves(&mut replies);
        game.play(replies[0]);
        let second = mcts.search(&game, &playouts(1000), &mut rng);
        assert_eq!(second.simulations, 1000);
        let visits: u64 = second.visits.iter().map(|&(_, v)| u64::from(v)).sum();
        assert!(
            visits > 1000,
            "the reused subtree kept its visits ({visits})"
        );
        // An unrelated position starts afresh.
        let third = mcts.search(&TicTacToe::from_moves(&[8]), &playouts(500), &mut rng);
        let visits: u64 = third.visits.iter().map(|&(_, v)| u64::from(v)).sum();
        assert_eq!(visits, 500);
    }

    #[test]
    fn a_node_limit_alone_ends_the_search() {
        let limits = Limits {
            nodes: Some(200),
            ..Limits::default()
        };
        let report =
            Mcts::new(MctsConfig::default()).search(&TicTacToe::default(), &limits, &mut seeded(1));
        assert!(
            report.tree_nodes >= 200 && report.tree_nodes < 200 + 9,
            "{}",
            report.tree_nodes
        );
        assert!(report.best.is_some());
    }

    #[test]
    fn a_lead_holds_when_the_time_left_cannot_close_it() {
        let ms = Duration::from_millis;
        // 1,000 simulations in 100 ms: 900 ms more allow 9,000.
        assert!(!lead_holds(9_000, 1_000, ms(100), ms(900)));
        assert!(lead_holds(9_001, 1_000, ms(100), ms(900)));
        // Nothing run yet, or no time measured: no rate to judge by.
        assert!(!lead_holds(10, 0, ms(100), ms(900)));
        assert!(!lead_holds(10, 1_000, ms(0), ms(900)));
        // Time up: any lead holds.
        assert!(lead_holds(1, 1_000, ms(100), ms(0)));
    }

    #[test]
    fn the_root_solver_gets_its_share_as_the_game_fills() {
        use crate::game::hex::Hex;
        let mut game = Hex::new(9, 9).unwrap();
        assert_eq!(solver_share(&game), 0.0);
        // The cells of rows 1 to 3 in order, the colours alternating: no chain crosses.
        let mut fill = (0..27).map(|k| format!("{}{}", (b'a' + k % 9) as char, k / 9 + 1));
        for name in fill.by_ref().take(10) {
            game.play(game.parse_move(&name).unwrap());
        }
        // 10 of the usual 40 plies: half the quarter.
        assert!((solver_share(&game) - 0.125).abs() < 1e-12);
        for name in fill.take(10) {
            game.play(game.parse_move(&name).unwrap());
        }
        assert_eq!(solver_share(&game), 0.25);
        // Games of no usual length: a quarter throughout.
        assert_eq!(solver_share(&TicTacToe::from_moves(&[])), 0.25);
    }

    #[test]
    fn a_raised_stop_flag_ends_the_search() {
        let stop = crate::stop::StopFlag::default();
        stop.raise();
        let limits = Limits {
            stop: Some(stop),
            ..Limits::default()
        };
        let game = TicTacToe::default();
        let report = Mcts::new(MctsConfig::default()).search(&game, &limits, &mut seeded(1));
        assert_eq!(report.simulations, 0);
        assert!(report.best.is_some(), "a move is still given");
    }
}

//! UCT Monte Carlo tree search (seed 004): selection by UCB1 `V + C·sqrt(2 ln N / N_i)`,
//! expansion of every child of a leaf once it has been visited `expand_after` times, a
//! uniform random playout (or the game's pattern playout, or the evaluator when one is
//! given), and backpropagation. Options: RAVE/AMAF blending, game patterns at expansion,
//! subtree reuse between moves, root parallelism over threads, prior knowledge (the
//! children of nodes near the root start with virtual visits valued by an evaluator, all
//! siblings evaluated in one batch), and progressive bias from the game's move priors.
//! Reports give the expected line of play.

use super::{argmax_random_tie, Deadline, Limits, RootKnowledge, SearchGame};
use crate::eval::Evaluator;
use crate::game::{Color, Game};
use crate::rng::{self, Rng};
use rand::seq::SliceRandom;
use rand::Rng as _;
use std::collections::HashMap;
use std::sync::Arc;

/// Tree size (about 1 GiB) past which leaves are no longer expanded; simulations go on
/// from the leaves, so long time limits cannot exhaust memory.
pub const MAX_TREE_NODES: usize = 16 << 20;

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
    /// Use the game's move patterns at expansion ([`SearchGame::candidate_moves`]).
    pub patterns: bool,
    /// Play out with the game's playout patterns ([`SearchGame::pattern_playout`]) instead
    /// of uniformly random moves.
    pub pattern_playouts: bool,
    /// Independent trees searched in parallel, their root statistics summed.
    pub threads: usize,
    /// Keep the subtree of the position reached between two moves.
    pub reuse: bool,
    /// Visits a leaf needs before it is expanded (the root is always expanded).
    pub expand_after: u32,
    /// Prior knowledge: new children get [`Prior::visits`] virtual visits worth the
    /// evaluator's value of their position.
    pub prior: Option<Prior<G>>,
    /// Progressive bias from the game's move priors ([`SearchGame::move_priors`]): a child
    /// with chance p scores `bias * p / (visits + 1)` on top of its value, and an unvisited
    /// child is valued at its AMAF mean (0.5 without one) instead of being tried first
    /// (0: off).
    pub bias: f64,
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

impl<G: Game> Default for MctsConfig<G> {
    fn default() -> Self {
        MctsConfig {
            c: 0.25,
            rave: None,
            evaluator: None,
            patterns: false,
            pattern_playouts: false,
            threads: 1,
            reuse: false,
            expand_after: 2,
            prior: None,
            bias: 0.0,
            solver: 0,
        }
    }
}

const NO_CHILDREN: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node<M> {
    /// The move leading here (`None` at the root).
    mv: Option<M>,
    /// The colour that played `mv`.
    mover: Color,
    first_child: u32,
    child_count: u32,
    visits: u32,
    /// Sum of the scores of `mover` over the visits.
    wins: f64,
    amaf_visits: u32,
    amaf_wins: f64,
    /// Cached selection value: the mean (blended with AMAF under RAVE), plus the decaying
    /// progressive bias when there is one; unvisited nodes without a bias get `UNVISITED`
    /// plus their AMAF mean so they are tried first.
    value: f64,
    /// Cached `1 / sqrt(visits)` (0 while unvisited).
    explore: f64,
    /// Cached `wins / visits` (0 while unvisited).
    mean: f64,
    /// Cached weight of the AMAF mean in the value under RAVE (`sqrt(k / (3 visits + k))`).
    beta: f64,
    /// The progressive bias (`bias * p`) under [`MctsConfig::bias`].
    bias: Option<f32>,
}

/// Selection value of unvisited nodes: above any visited one.
const UNVISITED: f64 = 1e9;

impl<M> Node<M> {
    fn new(mv: Option<M>, mover: Color) -> Node<M> {
        Node {
            mv,
            mover,
            first_child: NO_CHILDREN,
            child_count: 0,
            visits: 0,
            wins: 0.0,
            amaf_visits: 0,
            amaf_wins: 0.0,
            value: UNVISITED,
            explore: 0.0,
            mean: 0.0,
            beta: 0.0,
            bias: None,
        }
    }

    fn children(&self) -> std::ops::Range<usize> {
        let first = self.first_child as usize;
        first..first + self.child_count as usize
    }

    /// Recomputes the cached selection terms after the visits or wins changed.
    fn refresh(&mut self, rave: Option<f64>) {
        if self.visits > 0 {
            let n = f64::from(self.visits);
            self.mean = self.wins / n;
            self.beta = rave.map_or(0.0, |k| (k / (3.0 * n + k)).sqrt());
            self.explore = 1.0 / n.sqrt();
        }
        self.blend();
    }

    /// Recomputes the selection value from the cached mean and RAVE weight and the AMAF
    /// statistics (which only RAVE keeps).
    fn blend(&mut self) {
        let amaf = (self.amaf_visits > 0).then(|| self.amaf_wins / f64::from(self.amaf_visits));
        let value = match (self.visits, amaf) {
            (0, amaf) if self.bias.is_some() => amaf.unwrap_or(0.5),
            (0, amaf) => UNVISITED + amaf.unwrap_or(0.0),
            (_, Some(amaf)) => (1.0 - self.beta) * self.mean + self.beta * amaf,
            (_, None) => self.mean,
        };
        self.value = match self.bias {
            Some(bias) => value + f64::from(bias) / f64::from(self.visits + 1),
            None => value,
        };
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
    nodes: Vec<Node<G::Move>>,
    root_hash: u64,
    /// The only moves the root may get when it is expanded (from the root solver).
    root_moves: Option<Vec<G::Move>>,
}

impl<G: SearchGame> Tree<G> {
    fn new(game: &G) -> Tree<G> {
        Tree {
            nodes: vec![Node::new(None, game.side_to_move().opponent())],
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
                .find(|&c| self.nodes[c].mv == Some(mv))
            {
                Some(child) => index = child,
                None => return Tree::new(game),
            }
        }
        self.subtree(index, game.hash())
    }

    /// A compact copy of the subtree under `top`.
    fn subtree(&self, top: usize, hash: u64) -> Tree<G> {
        let mut root = self.nodes[top];
        root.mv = None;
        let mut nodes = vec![root];
        let mut queue = vec![(top, 0usize)];
        while let Some((old, new)) = queue.pop() {
            let range = self.nodes[old].children();
            if range.is_empty() {
                continue;
            }
            nodes[new].first_child = nodes.len() as u32;
            for child in range {
                queue.push((child, nodes.len()));
                nodes.push(self.nodes[child]);
            }
        }
        Tree {
            nodes,
            root_hash: hash,
            root_moves: None,
        }
    }

    /// Runs `playouts` simulations (fewer if the deadline comes first or the tree reaches
    /// `node_limit` nodes).
    fn simulate(
        &mut self,
        game: &G,
        config: &MctsConfig<G>,
        playouts: u64,
        node_limit: u64,
        deadline: &Deadline,
        rng: &mut Rng,
    ) {
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
        for done in 0..playouts {
            if (done % check_every == 0 && deadline.passed())
                || self.nodes.len() as u64 >= node_limit
            {
                break;
            }
            path.clear();
            path.push(0usize);
            let mut index = 0;
            // Selection.
            while self.nodes[index].child_count > 0 {
                index = self.select(index, config);
                position.play(self.nodes[index].mv.expect("child nodes carry a move"));
                path.push(index);
            }
            // Expansion of a leaf that was visited before (the root always).
            if position.outcome().is_none()
                && (index == 0 || self.nodes[index].visits >= config.expand_after)
                && self.nodes.len() < MAX_TREE_NODES
            {
                match (&self.root_moves, index) {
                    (Some(root_moves), 0) => moves.clone_from(root_moves),
                    _ => position.candidate_moves(&mut moves, config.patterns),
                }
                moves.shuffle(rng);
                let mover = position.side_to_move();
                let first = self.nodes.len();
                self.nodes[index].first_child = first as u32;
                self.nodes[index].child_count = moves.len() as u32;
                self.nodes
                    .extend(moves.iter().map(|&mv| Node::new(Some(mv), mover)));
                match &config.prior {
                    Some(prior) if path.len() <= prior.depth => {
                        self.add_prior(first, &position, &moves, prior, config.rave);
                    }
                    _ => {}
                }
                if config.bias > 0.0 && position.move_priors(&moves, &mut chances) {
                    for (node, p) in self.nodes[first..].iter_mut().zip(&chances) {
                        node.bias = Some((config.bias * p) as f32);
                        node.blend();
                    }
                }
                if !moves.is_empty() {
                    // The first new child, unless a prior or the bias ranks them.
                    index = self.select(index, config);
                    position.play(self.nodes[index].mv.expect("child nodes carry a move"));
                    path.push(index);
                }
            }
            // Simulation: a score in [0,1] for Black.
            let black_score = if let Some(outcome) = position.outcome() {
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
                    .pattern_playout(rng, G::PLAYOUT_CAP, &mut trace)
                    .map_or(0.5, |o| o.score_for(Color::Black))
            } else if config.rave.is_some() {
                position
                    .traced_playout(rng, G::PLAYOUT_CAP, &mut trace)
                    .map_or(0.5, |o| o.score_for(Color::Black))
            } else {
                position
                    .random_playout(rng, G::PLAYOUT_CAP)
                    .map_or(0.5, |o| o.score_for(Color::Black))
            };
            self.backpropagate(&position, &path, black_score, config, &trace, &mut amaf);
            for _ in 1..path.len() {
                position.undo();
            }
        }
    }

    /// Gives the new children from `first` on (one per move of `moves`, played from
    /// `position`) the prior's virtual visits, valued for their mover.
    fn add_prior(
        &mut self,
        first: usize,
        position: &G,
        moves: &[G::Move],
        prior: &Prior<G>,
        rave: Option<f64>,
    ) {
        let children: Vec<G> = moves
            .iter()
            .map(|&mv| {
                let mut child = position.clone();
                child.play(mv);
                child
            })
            .collect();
        let values = prior.evaluator.evaluate(&children);
        let visits = f64::from(prior.visits);
        for (k, (child, value)) in children.iter().zip(values).enumerate() {
            // The value is the child's side to move's; the node's mover is the other side.
            let for_mover = match child.outcome() {
                Some(outcome) => outcome.score_for(self.nodes[first + k].mover),
                None => 1.0 - value.value,
            };
            let node = &mut self.nodes[first + k];
            node.visits = prior.visits;
            node.wins = visits * for_mover;
            node.refresh(rave);
        }
    }

    fn select(&self, parent: usize, config: &MctsConfig<G>) -> usize {
        let node = &self.nodes[parent];
        let weight = config.c * (2.0 * f64::from(node.visits.max(1)).ln()).max(0.0).sqrt();
        let mut best = node.first_child as usize;
        let mut best_score = f64::NEG_INFINITY;
        for child in node.children() {
            let c = &self.nodes[child];
            let score = c.value + weight * c.explore;
            if score > best_score {
                best_score = score;
                best = child;
            }
        }
        best
    }

    fn backpropagate(
        &mut self,
        game: &G,
        path: &[usize],
        black_score: f64,
        config: &MctsConfig<G>,
        trace: &[(Color, G::Move)],
        amaf: &mut FirstPlays<G::Move>,
    ) {
        let score_for = |color: Color| match color {
            Color::Black => black_score,
            Color::White => 1.0 - black_score,
        };
        if config.rave.is_some() {
            // The colour that first played each move below the current node.
            amaf.clear();
            for &(color, mv) in trace.iter().rev() {
                amaf.insert(game, mv, color);
            }
        }
        for &index in path.iter().rev() {
            if config.rave.is_some() {
                for child in self.nodes[index].children() {
                    let node = &mut self.nodes[child];
                    let mv = node.mv.expect("child nodes carry a move");
                    if amaf.get(game, mv) == Some(node.mover) {
                        node.amaf_visits += 1;
                        node.amaf_wins += score_for(node.mover);
                        node.blend();
                    }
                }
                if let Some(mv) = self.nodes[index].mv {
                    amaf.insert(game, mv, self.nodes[index].mover);
                }
            }
            let node = &mut self.nodes[index];
            node.visits += 1;
            node.wins += score_for(node.mover);
            node.refresh(config.rave);
        }
    }

    /// `first` (a root move), then the most visited child at each level below it while that
    /// child has [`LINE_MIN_VISITS`] visits (ties: the first child).
    fn line_after(&self, first: G::Move) -> Vec<G::Move> {
        let mut line = vec![first];
        let mut index = self.nodes[0]
            .children()
            .find(|&c| self.nodes[c].mv == Some(first));
        while let Some(node) = index.filter(|_| line.len() < LINE_MAX_MOVES) {
            let mut best: Option<usize> = None;
            for child in self.nodes[node].children() {
                let visits = self.nodes[child].visits;
                if visits >= LINE_MIN_VISITS
                    && !matches!(best, Some(b) if visits <= self.nodes[b].visits)
                {
                    best = Some(child);
                }
            }
            if let Some(child) = best {
                line.push(self.nodes[child].mv.expect("child nodes carry a move"));
            }
            index = best;
        }
        line
    }

    /// Each root move with its visits and the mover's summed score.
    fn root_stats(&self) -> Vec<(G::Move, u32, f64)> {
        self.nodes[0]
            .children()
            .map(|c| {
                let node = &self.nodes[c];
                (
                    node.mv.expect("child nodes carry a move"),
                    node.visits,
                    node.wins,
                )
            })
            .collect()
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
        let threads = config.threads.max(1);
        Mcts {
            config,
            trees: (0..threads).map(|_| None).collect(),
        }
    }

    /// Forgets the trees kept for reuse (a new game).
    pub fn new_game(&mut self) {
        self.trees.iter_mut().for_each(|t| *t = None);
    }

    /// Searches `game` within `limits` (playouts are split evenly over the threads; with
    /// no limit at all, [`DEFAULT_PLAYOUTS`]).
    pub fn search(&mut self, game: &G, limits: &Limits, rng: &mut Rng) -> MctsReport<G::Move> {
        let playouts = match limits.playouts {
            Some(p) => p,
            None if limits.time.is_some() || limits.nodes.is_some() => u64::MAX,
            None => DEFAULT_PLAYOUTS,
        };
        let threads = self.trees.len() as u64;
        let node_limit = limits.nodes.unwrap_or(u64::MAX);
        let deadline = Deadline::of(limits);
        let knowledge = if self.config.solver > 0 {
            // The solver may take a quarter of the move's time.
            let share = Limits {
                time: limits.planned_time().map(|t| t / 4),
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
        let reused: u64 = trees.iter().map(|t| u64::from(t.nodes[0].visits)).sum();
        let run = |k: usize, tree: &mut Tree<G>| {
            let share = playouts / threads + u64::from((k as u64) < playouts % threads);
            let mut thread_rng = rng::substream(seed, k as u64);
            tree.simulate(game, config, share, node_limit, &deadline, &mut thread_rng);
        };
        if trees.len() == 1 {
            run(0, &mut trees[0]);
        } else {
            std::thread::scope(|scope| {
                for (k, tree) in trees.iter_mut().enumerate() {
                    scope.spawn(move || run(k, tree));
                }
            });
        }
        let mut totals: Vec<(G::Move, u32)> = Vec::new();
        let mut wins: Vec<f64> = Vec::new();
        for tree in &trees {
            for (mv, visits, score) in tree.root_stats() {
                match totals.iter().position(|(m, _)| *m == mv) {
                    Some(k) => {
                        totals[k].1 += visits;
                        wins[k] += score;
                    }
                    None => {
                        totals.push((mv, visits));
                        wins.push(score);
                    }
                }
            }
        }
        let simulations = trees
            .iter()
            .map(|t| u64::from(t.nodes[0].visits))
            .sum::<u64>()
            - reused;
        let scores: Vec<f64> = totals.iter().map(|&(_, v)| f64::from(v)).collect();
        // Stopped before the root was expanded: any legal move.
        let chosen = argmax_random_tie(&scores, rng);
        let value = chosen
            .filter(|&i| totals[i].1 > 0)
            .map(|i| wins[i] / f64::from(totals[i].1));
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

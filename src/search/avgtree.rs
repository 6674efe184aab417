//! The averaging tree of the checkers thesis (seed 001): a breadth-first tree of every move
//! sequence to a fixed depth (3 there). Leaves are scored by the evaluator from the root
//! player's point of view (loss 0, draw 0.5, win 1), all leaves in one batch; an internal
//! node is worth the mean of its children; a finished game inside the tree is worth
//! `forced_win` (9) or `forced_loss` (-9) to the root player (a draw 0.5). The root move with
//! the highest value is played, ties broken at random.

use super::{argmax_random_tie, children, Decision};
use crate::eval::Evaluator;
use crate::game::Game;
use crate::rng::Rng;

/// Settings of the averaging tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AvgTreeConfig {
    /// Plies searched (at least 1).
    pub depth: u32,
    /// Value of a position the root player has won.
    pub forced_win: f64,
    /// Value of a position the root player has lost.
    pub forced_loss: f64,
    /// Most positions the tree keeps: a level whose expansion would pass this (estimated
    /// from the growth of the level before) is not expanded, so a deep tree on a wide board
    /// stops at the depth memory allows instead of exhausting it.
    pub max_nodes: usize,
}

/// [`AvgTreeConfig::max_nodes`] by default: 4 million positions, a depth-3 tree on an
/// 11x11 Hex board.
pub const MAX_TREE_NODES: usize = 4_000_000;

impl Default for AvgTreeConfig {
    fn default() -> Self {
        AvgTreeConfig {
            depth: 3,
            forced_win: 9.0,
            forced_loss: -9.0,
            max_nodes: MAX_TREE_NODES,
        }
    }
}

struct TreeNode<G> {
    game: G,
    value: f64,
    children: Vec<usize>,
}

/// The root moves with their averaged values, in legal-move order.
pub fn root_values<G: Game>(
    game: &G,
    evaluator: &dyn Evaluator<G>,
    config: &AvgTreeConfig,
) -> Vec<(G::Move, f64)> {
    grow(game, evaluator, config).0
}

/// The root moves with their averaged values, and the depth the tree reached (less than
/// the configured depth when [`AvgTreeConfig::max_nodes`] stopped it).
fn grow<G: Game>(
    game: &G,
    evaluator: &dyn Evaluator<G>,
    config: &AvgTreeConfig,
) -> (Vec<(G::Move, f64)>, u32) {
    let root_player = game.side_to_move();
    let mut root_moves = Vec::new();
    game.legal_moves(&mut root_moves);
    let mut nodes: Vec<TreeNode<G>> = vec![TreeNode {
        game: game.clone(),
        value: 0.0,
        children: Vec::new(),
    }];
    let mut level = vec![0usize];
    let mut moves = Vec::new();
    let mut depth = 0;
    // Children per expanded node in the last level (the root's level is always expanded).
    let mut growth = 0.0;
    while depth < config.depth.max(1) {
        let expected = nodes.len() as f64 + level.len() as f64 * growth;
        if depth > 0 && expected > config.max_nodes as f64 {
            break;
        }
        let (expanded, before) = (level.len().max(1), nodes.len());
        let mut next_level = Vec::new();
        for &index in &level {
            nodes[index].game.legal_moves(&mut moves);
            for child in children(&nodes[index].game, &moves) {
                let id = nodes.len();
                let finished = child.outcome();
                nodes.push(TreeNode {
                    game: child,
                    value: 0.0,
                    children: Vec::new(),
                });
                nodes[index].children.push(id);
                match finished {
                    Some(outcome) => {
                        nodes[id].value = match outcome.winner {
                            Some(w) if w == root_player => config.forced_win,
                            Some(_) => config.forced_loss,
                            None => 0.5,
                        }
                    }
                    None => next_level.push(id),
                }
            }
        }
        growth = (nodes.len() - before) as f64 / expanded as f64;
        level = next_level;
        depth += 1;
    }
    // `level` now holds the unfinished leaves at full depth: evaluate them in one batch.
    let leaves: Vec<G> = level.iter().map(|&i| nodes[i].game.clone()).collect();
    for (&index, estimate) in level.iter().zip(evaluator.evaluate(&leaves)) {
        let to_move = nodes[index].game.side_to_move();
        nodes[index].value = if to_move == root_player {
            estimate.value
        } else {
            1.0 - estimate.value
        };
    }
    // Children always come after their parent, so a backward sweep averages bottom-up.
    for index in (1..nodes.len()).rev() {
        if !nodes[index].children.is_empty() {
            let sum: f64 = nodes[index].children.iter().map(|&c| nodes[c].value).sum();
            nodes[index].value = sum / nodes[index].children.len() as f64;
        }
    }
    let values = root_moves
        .iter()
        .zip(&nodes[0].children)
        .map(|(&mv, &child)| (mv, nodes[child].value))
        .collect();
    (values, depth)
}

/// The averaging tree's move (ties broken at random). The decision's value is the move's
/// averaged value clamped to [0, 1] (forced results lie outside that range).
pub fn choose<G: Game>(
    game: &G,
    evaluator: &dyn Evaluator<G>,
    config: &AvgTreeConfig,
    rng: &mut Rng,
) -> Decision<G::Move> {
    let (values, depth) = grow(game, evaluator, config);
    let scores: Vec<f64> = values.iter().map(|&(_, v)| v).collect();
    let best = argmax_random_tie(&scores, rng);
    Decision {
        best: best.map(|i| values[i].0),
        value: best.map(|i| scores[i].clamp(0.0, 1.0)),
        depth: Some(depth),
        ..Decision::bare(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Color;
    use crate::rng::seeded;
    use crate::search::toy::{TicTacToe, TreeEval, TreeGame, TreeNode};

    fn node(children: &[usize], value: f64) -> TreeNode {
        TreeNode {
            children: children.to_vec(),
            result: None,
            value,
        }
    }

    /// Root (Black) -> a: White may reply a1 (Black then has two moves, leaves valued
    /// 0.2 / 0.6 for White) or a2 (White has won); b: White's only reply b1, Black's only
    /// move leads to a leaf valued 0.7 for White.
    fn hand_tree() -> TreeGame {
        let mut lost = node(&[], 0.5);
        lost.result = Some(Some(Color::White));
        TreeGame::new(vec![
            node(&[1, 2], 0.5),
            node(&[3, 4], 0.5),
            node(&[5], 0.5),
            node(&[6, 7], 0.9),
            lost,
            node(&[8], 0.1),
            node(&[], 0.2),
            node(&[], 0.6),
            node(&[], 0.7),
        ])
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn reproduces_the_hand_computed_tree() {
        let values = root_values(&hand_tree(), &TreeEval, &AvgTreeConfig::default());
        // a = mean(mean(1 - 0.2, 1 - 0.6), -9) = (0.6 - 9) / 2; b = 1 - 0.7.
        assert_eq!(values.len(), 2);
        assert!(close(values[0].1, -4.2), "{values:?}");
        assert!(close(values[1].1, 0.3), "{values:?}");
        let mut rng = seeded(1);
        let config = AvgTreeConfig::default();
        assert_eq!(
            choose(&hand_tree(), &TreeEval, &config, &mut rng).best,
            Some(2)
        );
    }

    #[test]
    fn depth_two_takes_leaf_values_for_the_root_player() {
        let config = AvgTreeConfig {
            depth: 2,
            ..AvgTreeConfig::default()
        };
        let values = root_values(&hand_tree(), &TreeEval, &config);
        // Depth-2 leaves have Black to move: their values count as they are.
        assert!(close(values[0].1, (0.9 - 9.0) / 2.0), "{values:?}");
        assert!(close(values[1].1, 0.1), "{values:?}");
    }

    #[test]
    fn the_tree_stops_deepening_before_it_passes_its_node_budget() {
        let game = TicTacToe::default();
        let config = AvgTreeConfig {
            depth: 8,
            max_nodes: 1000,
            ..AvgTreeConfig::default()
        };
        // 9 + 72 + 504 positions fit, the next level (about 3000 more) would not.
        let decision = choose(
            &game,
            &crate::eval::RandomEval { seed: 1 },
            &config,
            &mut seeded(1),
        );
        assert_eq!(decision.depth, Some(3));
        assert!(decision.best.is_some());
        let unbounded = AvgTreeConfig {
            depth: 2,
            ..AvgTreeConfig::default()
        };
        let decision = choose(
            &game,
            &crate::eval::RandomEval { seed: 1 },
            &unbounded,
            &mut seeded(1),
        );
        assert_eq!(decision.depth, Some(2));
    }

    #[test]
    fn ties_are_broken_at_random() {
        // With forced results worth 1 and 0 both moves are worth 0.3.
        let config = AvgTreeConfig {
            depth: 3,
            forced_win: 1.0,
            forced_loss: 0.0,
            ..AvgTreeConfig::default()
        };
        let values = root_values(&hand_tree(), &TreeEval, &config);
        assert!(
            close(values[0].1, 0.3) && close(values[1].1, 0.3),
            "{values:?}"
        );
        let picks: std::collections::HashSet<usize> = (0..32)
            .filter_map(|seed| choose(&hand_tree(), &TreeEval, &config, &mut seeded(seed)).best)
            .collect();
        assert_eq!(picks.len(), 2);
    }

    #[test]
    fn a_forced_win_at_depth_one_scores_nine() {
        let mut won = node(&[], 0.5);
        won.result = Some(Some(Color::Black));
        let game = TreeGame::new(vec![
            node(&[1, 2], 0.5),
            node(&[3], 0.5),
            won,
            node(&[], 0.0),
        ]);
        let values = root_values(&game, &TreeEval, &AvgTreeConfig::default());
        assert!(close(values[1].1, 9.0), "{values:?}");
        assert_eq!(
            choose(&game, &TreeEval, &AvgTreeConfig::default(), &mut seeded(3)).best,
            Some(2)
        );
    }
}

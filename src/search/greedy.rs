//! Greedy one-ply search: evaluate every move's resulting position in one batch and play the
//! best (finished games are scored exactly; ties broken at random).

use super::{argmax_random_tie, children, Decision};
use crate::eval::{terminal_value, Evaluator};
use crate::game::Game;
use crate::rng::Rng;

/// The move whose resulting position is best for the mover.
pub fn choose<G: Game>(game: &G, evaluator: &dyn Evaluator<G>, rng: &mut Rng) -> Decision<G::Move> {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    let positions = children(game, &moves);
    let open: Vec<G> = positions
        .iter()
        .filter(|p| p.outcome().is_none())
        .cloned()
        .collect();
    let mut estimates = evaluator.evaluate(&open).into_iter();
    let scores: Vec<f64> = positions
        .iter()
        .map(|p| match terminal_value(p) {
            // Values are for the side to move after the move: the opponent.
            Some(value) => 1.0 - value,
            None => 1.0 - estimates.next().map_or(0.5, |v| v.value),
        })
        .collect();
    let best = argmax_random_tie(&scores, rng);
    Decision {
        best: best.map(|i| moves[i]),
        value: best.map(|i| scores[i]),
        nodes: Some(open.len() as u64),
        ..Decision::bare(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Color;
    use crate::rng::seeded;
    use crate::search::toy::{TreeEval, TreeGame, TreeNode};

    fn node(children: &[usize], value: f64, result: Option<Option<Color>>) -> TreeNode {
        TreeNode {
            children: children.to_vec(),
            result,
            value,
        }
    }

    #[test]
    fn picks_the_child_worst_for_the_opponent_and_takes_wins() {
        // Children valued 0.7, 0.2, 0.9 for White (to move there): Black prefers node 2.
        let game = TreeGame::new(vec![
            node(&[1, 2, 3], 0.5, None),
            node(&[], 0.7, None),
            node(&[], 0.2, None),
            node(&[], 0.9, None),
        ]);
        assert_eq!(choose(&game, &TreeEval, &mut seeded(1)).best, Some(2));
        // A finished win beats any estimate.
        let game = TreeGame::new(vec![
            node(&[1, 2], 0.5, None),
            node(&[], 0.0, None),
            node(&[], 0.5, Some(Some(Color::Black))),
        ]);
        assert_eq!(choose(&game, &TreeEval, &mut seeded(1)).best, Some(2));
    }
}

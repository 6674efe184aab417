//! Greedy one-ply search: evaluate every move's resulting position in one batch and play the
//! best (finished games are scored exactly; ties broken at random).

use super::{argmax_random_tie, children};
use crate::eval::{terminal_value, Evaluator};
use crate::game::Game;
use crate::rng::Rng;

/// The move whose resulting position is best for the mover.
pub fn choose<G: Game>(game: &G, evaluator: &dyn Evaluator<G>, rng: &mut Rng) -> Option<G::Move> {
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
    argmax_random_tie(&scores, rng).map(|i| moves[i])
}

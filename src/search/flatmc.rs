//! Flat Monte Carlo, the baseline of seed 004: the playouts are spread evenly over the legal
//! moves (uniform random playouts from each resulting position) and the move with the best
//! mean score is played, ties broken at random.

use super::{argmax_random_tie, Deadline, Decision, Limits, SearchGame};
use crate::rng::Rng;

/// The flat Monte Carlo move within `limits` (default [`super::mcts::DEFAULT_PLAYOUTS`]
/// playouts).
pub fn choose<G: SearchGame>(game: &G, limits: &Limits, rng: &mut Rng) -> Decision<G::Move> {
    let mut moves = Vec::new();
    game.legal_moves(&mut moves);
    if moves.is_empty() {
        return Decision::bare(None);
    }
    let playouts = match limits.playouts {
        Some(p) => p,
        None if limits.time.is_some() => u64::MAX,
        None => super::mcts::DEFAULT_PLAYOUTS,
    };
    let deadline = Deadline::of(limits);
    let mover = game.side_to_move();
    let positions: Vec<G> = super::children(game, &moves);
    let mut totals = vec![0.0; moves.len()];
    let mut counts = vec![0u64; moves.len()];
    for done in 0..playouts {
        if done % 64 == 0 && deadline.passed() {
            break;
        }
        let i = (done % moves.len() as u64) as usize;
        let position = &positions[i];
        totals[i] += match position.outcome() {
            Some(outcome) => outcome.score_for(mover),
            None => position
                .random_playout(rng, G::PLAYOUT_CAP)
                .map_or(0.5, |o| o.score_for(mover)),
        };
        counts[i] += 1;
    }
    let means: Vec<f64> = totals
        .iter()
        .zip(&counts)
        .map(|(&t, &n)| if n == 0 { 0.5 } else { t / n as f64 })
        .collect();
    let best = argmax_random_tie(&means, rng);
    Decision {
        best: best.map(|i| moves[i]),
        value: best.map(|i| means[i]),
        playouts: Some(counts.iter().sum()),
        visits: best.map(|i| counts[i]),
        ..Decision::bare(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded;
    use crate::search::toy::TicTacToe;

    #[test]
    fn takes_an_immediate_win() {
        let game = TicTacToe::from_moves(&[0, 3, 1, 4]);
        let limits = Limits {
            playouts: Some(700),
            ..Limits::default()
        };
        assert_eq!(choose(&game, &limits, &mut seeded(5)).best, Some(2));
    }
}

//! A classic checkers heuristic: material (men 100, kings 150), advancement of men, the
//! back rank kept against crowning, and mobility; the score difference goes through a
//! logistic curve to a value in [0,1] for the side to move.

use super::{evaluate_each, EvalGame, EvalRegistry, Evaluator, Value};
use crate::game::checkers::{CaptureMode, Checkers, Position};
use crate::game::{Color, Game};
use std::sync::Arc;

/// Weights of the checkers heuristic (in centi-men).
#[derive(Clone, Copy, Debug)]
pub struct Material {
    /// A man.
    pub man: i32,
    /// A king.
    pub king: i32,
    /// Per row a man has advanced.
    pub advance: i32,
    /// Per man still on its own back rank.
    pub back_rank: i32,
    /// Per legal move more than the opponent would have.
    pub mobility: i32,
    /// Score difference that maps to a value of about 0.73.
    pub scale: f64,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            man: 100,
            king: 150,
            advance: 3,
            back_rank: 6,
            mobility: 2,
            scale: 200.0,
        }
    }
}

impl Material {
    /// The heuristic score of `position` for `color` minus that of its opponent.
    pub fn score(&self, position: &Position, color: Color) -> i32 {
        let [black_men, black_kings, white_men, white_kings] = position.planes();
        let side_score = |men: u32, kings: u32, side: Color| {
            let mut score =
                self.man * men.count_ones() as i32 + self.king * kings.count_ones() as i32;
            for square in (0..32).filter(|bit| men & (1 << bit) != 0) {
                // Square n = bit + 1; row 0 holds squares 1..4 (Black's back rank).
                let row = square / 4;
                let advanced = match side {
                    Color::Black => row,
                    Color::White => 7 - row,
                };
                score += self.advance * advanced;
                if advanced == 0 {
                    score += self.back_rank;
                }
            }
            score
        };
        let black = side_score(black_men, black_kings, Color::Black);
        let white = side_score(white_men, white_kings, Color::White);
        let pending = pending_capture_credit(position, self.man);
        let pending = if position.side_to_move() == Color::Black {
            pending
        } else {
            -pending
        };
        let difference = black - white
            + pending
            + self.mobility * (mobility(position, Color::Black) - mobility(position, Color::White));
        match color {
            Color::Black => difference,
            Color::White => -difference,
        }
    }
}

/// The value of `game` for its side to move from a `score` in hundredths of a man: exact
/// for a finished game, else through the logistic curve that maps `scale` to about 0.73.
pub fn logistic_value(game: &Checkers, scale: f64, score: impl FnOnce() -> f64) -> Value {
    match game.outcome() {
        Some(outcome) => Value::new(outcome.score_for(game.side_to_move())),
        None => Value::new(1.0 / (1.0 + (-score() / scale).exp())),
    }
}

/// The number of legal moves `side` would have if it were to move in `position`.
pub fn mobility(position: &Position, side: Color) -> i32 {
    let mut turn = *position;
    turn.set_side_to_move(side);
    // The scratch list is only filled when captures are pending.
    turn.count_moves(CaptureMode::Distinct, &mut Vec::new()) as i32
}

/// A static score misses a capture the side to move is about to make (it would reward
/// offering a piece, since a forced capture leaves the opponent one move): the credit of
/// the side to move, `man` for each piece its best pending capture takes.
pub fn pending_capture_credit(position: &Position, man: i32) -> i32 {
    if !position.must_capture() {
        return 0;
    }
    let best = position
        .legal_moves()
        .iter()
        .map(|m| m.capture_count())
        .max()
        .unwrap_or(0);
    man * best as i32
}

impl Evaluator<Checkers> for Material {
    fn evaluate(&self, positions: &[Checkers]) -> Vec<Value> {
        evaluate_each(self, positions)
    }

    fn evaluate_one(&self, game: &Checkers) -> Value {
        logistic_value(game, self.scale, || {
            f64::from(self.score(game.position(), game.side_to_move()))
        })
    }
}

impl EvalGame for Checkers {
    const DEFAULT_EVAL: &'static str = "material";

    fn evaluators() -> EvalRegistry<Checkers> {
        let mut registry = EvalRegistry::default();
        registry.register(
            "material",
            "material - checkers men/kings, advancement, back rank and mobility",
            |arg| {
                if arg.is_empty() {
                    Ok(Arc::new(Material::default()))
                } else {
                    Err(format!("material takes no argument (got '{arg}')"))
                }
            },
        );
        registry.register(
            "knowledge",
            "knowledge[:PATH][,patterns=TABLES] - checkers material with trade-down, back rank and bridge, centre, runaways, dog-holes, king placement, mobility and square tables; PATH: a weights file written by arena tune --out; TABLES: pattern tables of the men in nine 4x4 windows, built-in (the engines' default) or a file written by arena tune-patterns",
            |arg| Ok(Arc::new(super::checkers_knowledge::build(arg)?)),
        );
        registry.register(
            "knowledge-tm",
            "knowledge-tm:PATH[,weight=W][,device=cuda] - the knowledge evaluation plus a Tsetlin Machine's expected outcome (-1 to 1) times W hundredths of a man (default 50)",
            super::checkers_tm_term::build,
        );
        registry.register(
            "tm",
            "tm:PATH[,device=cuda] - a Tsetlin Machine saved by arena train (checkers-planes or checkers-meta encoder)",
            super::tm::build::<Checkers>,
        );
        registry.register(
            "tm-votes",
            "tm-votes:PATH[,device=cuda] - the same machine, valued by all its votes (softmax of class sums)",
            super::tm::build_graded::<Checkers>,
        );
        registry.register(
            "ann",
            "ann:PATH - a neural network model (.ann) saved by arena evolve",
            super::ann::build::<Checkers>,
        );
        registry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_balanced_and_material_counts() {
        let eval = Material::default();
        let start = Checkers::new();
        assert_eq!(eval.score(start.position(), Color::Black), 0);
        assert!((eval.evaluate(&[start])[0].value - 0.5).abs() < 1e-12);
        // Mirror images score the same for the side they favour.
        let black_up = Checkers::from_fen("W:W30:B5,9").unwrap();
        let white_up = Checkers::from_fen("B:W24,28:B3").unwrap();
        assert_eq!(
            eval.score(black_up.position(), Color::Black),
            eval.score(white_up.position(), Color::White)
        );
        assert!(eval.score(black_up.position(), Color::Black) > 50);
        // A king is worth more than a man on the same square.
        let man = Checkers::from_fen("B:W30:B14").unwrap();
        let king = Checkers::from_fen("B:W30:BK14").unwrap();
        assert!(
            eval.score(king.position(), Color::Black) > eval.score(man.position(), Color::Black)
        );
        // Finished games are exact.
        let lost = Checkers::from_fen("B:W30:B").unwrap();
        assert_eq!(eval.evaluate(&[lost])[0].value, 0.0);
    }
}

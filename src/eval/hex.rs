//! Hex evaluation by two-distance (the classic potential of the Queenbee program): for each
//! colour, every empty cell gets its two-distance to each of the colour's edges (1 + the
//! second smallest distance among its neighbours, stones of the colour being free to cross,
//! so the opponent cannot simply block the best neighbour); the colour's potential is the
//! smallest sum of the two distances over the empty cells. The side with the lower potential
//! is ahead; the difference goes through a logistic curve to a value in [0,1].

use super::{evaluate_each, EvalGame, EvalRegistry, Evaluator, Value};
use crate::game::hex::Hex;
use crate::game::{Color, Game};
use std::sync::Arc;

/// Potentials of this many cells or more count as "cannot connect".
pub const UNREACHABLE: u32 = 10_000;

/// Two-distance evaluation; `scale` is the logistic slope per unit of potential difference.
#[derive(Clone, Copy, Debug)]
pub struct TwoDistance {
    /// Slope of the logistic curve (value = 1 / (1 + e^(-scale·(P_opponent − P_mover)))).
    pub scale: f64,
}

impl Default for TwoDistance {
    fn default() -> Self {
        TwoDistance { scale: 0.6 }
    }
}

/// The start and end edge of `color`: Black joins rows 0 and h-1, White columns 0 and w-1.
fn touches_edge(game: &Hex, color: Color, cell: usize, far: bool) -> bool {
    let (x, y) = game.xy(cell);
    match (color, far) {
        (Color::Black, false) => y == 0,
        (Color::Black, true) => y == game.height() - 1,
        (Color::White, false) => x == 0,
        (Color::White, true) => x == game.width() - 1,
    }
}

/// For each empty cell, the empty cells it reaches in one step for `color`: its empty
/// neighbours and the empty neighbours of any `color` group it touches. Also whether it
/// reaches each edge directly (itself or through such a group).
struct Reach {
    next: Vec<Vec<usize>>,
    edge: [Vec<bool>; 2],
}

fn reach(game: &Hex, color: Color) -> Reach {
    let cells = game.cell_count();
    // Groups of `color` by flood fill: the empty cells around them and the edges they touch.
    let mut group_of = vec![usize::MAX; cells];
    let mut group_liberties: Vec<Vec<usize>> = Vec::new();
    let mut group_edges: Vec<[bool; 2]> = Vec::new();
    for start in 0..cells {
        if game.stone(start) != Some(color) || group_of[start] != usize::MAX {
            continue;
        }
        let id = group_liberties.len();
        let mut liberties = Vec::new();
        let mut edges = [false; 2];
        let mut stack = vec![start];
        group_of[start] = id;
        while let Some(cell) = stack.pop() {
            edges[0] |= touches_edge(game, color, cell, false);
            edges[1] |= touches_edge(game, color, cell, true);
            for n in game.neighbour_cells(cell) {
                match game.stone(n) {
                    Some(c) if c == color && group_of[n] == usize::MAX => {
                        group_of[n] = id;
                        stack.push(n);
                    }
                    None if !liberties.contains(&n) => liberties.push(n),
                    _ => {}
                }
            }
        }
        group_liberties.push(liberties);
        group_edges.push(edges);
    }
    let mut next = vec![Vec::new(); cells];
    let mut edge = [vec![false; cells], vec![false; cells]];
    for cell in (0..cells).filter(|&c| game.stone(c).is_none()) {
        let mut list = Vec::new();
        for (side, flags) in edge.iter_mut().enumerate() {
            flags[cell] = touches_edge(game, color, cell, side == 1);
        }
        for n in game.neighbour_cells(cell) {
            match game.stone(n) {
                None => list.push(n),
                Some(c) if c == color => {
                    let g = group_of[n];
                    list.extend(group_liberties[g].iter().copied());
                    for (flags, &touches) in edge.iter_mut().zip(&group_edges[g]) {
                        flags[cell] |= touches;
                    }
                }
                Some(_) => {}
            }
        }
        list.sort_unstable();
        list.dedup();
        list.retain(|&n| n != cell);
        next[cell] = list;
    }
    Reach { next, edge }
}

/// Two-distances of every empty cell to one edge (`UNREACHABLE` where there is none).
fn two_distance(game: &Hex, reach: &Reach, side: usize) -> Vec<u32> {
    let cells = game.cell_count();
    let mut dist = vec![UNREACHABLE; cells];
    for (cell, d) in dist.iter_mut().enumerate() {
        if game.stone(cell).is_none() && reach.edge[side][cell] {
            *d = 1;
        }
    }
    // Relax until stable: a cell's distance is 1 + the second best of its neighbours.
    let mut changed = true;
    while changed {
        changed = false;
        for cell in 0..cells {
            if game.stone(cell).is_some() || reach.edge[side][cell] {
                continue;
            }
            let (mut best, mut second) = (UNREACHABLE, UNREACHABLE);
            for &n in &reach.next[cell] {
                let d = dist[n];
                if d < best {
                    second = best;
                    best = d;
                } else if d < second {
                    second = d;
                }
            }
            let candidate = (second + 1).min(UNREACHABLE);
            if candidate < dist[cell] {
                dist[cell] = candidate;
                changed = true;
            }
        }
    }
    dist
}

/// Every empty cell's two-distance for `color` to its first and to its second edge (Black:
/// top and bottom rows; White: left and right columns); stones get [`UNREACHABLE`].
pub fn two_distances(game: &Hex, color: Color) -> [Vec<u32>; 2] {
    let reach = reach(game, color);
    [two_distance(game, &reach, 0), two_distance(game, &reach, 1)]
}

/// The potential of `color`: the smallest sum of two-distances to both edges over the
/// empty cells (lower is better; 0 when already connected).
pub fn potential(game: &Hex, color: Color) -> u32 {
    potential_of(game, color, &two_distances(game, color))
}

/// The potential of `color` from its [`two_distances`] (already computed).
pub fn potential_of(game: &Hex, color: Color, [near, far]: &[Vec<u32>; 2]) -> u32 {
    if game.winner() == Some(color) {
        return 0;
    }
    (0..game.cell_count())
        .filter(|&c| game.stone(c).is_none())
        .map(|c| near[c].saturating_add(far[c]))
        .min()
        .unwrap_or(UNREACHABLE)
        .min(UNREACHABLE)
}

impl Evaluator<Hex> for TwoDistance {
    fn evaluate(&self, positions: &[Hex]) -> Vec<Value> {
        evaluate_each(self, positions)
    }

    fn evaluate_one(&self, game: &Hex) -> Value {
        if let Some(outcome) = game.outcome() {
            return Value::new(outcome.score_for(game.side_to_move()));
        }
        let me = game.side_to_move();
        let mine = f64::from(potential(game, me));
        let theirs = f64::from(potential(game, me.opponent()));
        Value::new(1.0 / (1.0 + (-self.scale * (theirs - mine)).exp()))
    }
}

impl EvalGame for Hex {
    const DEFAULT_EVAL: &'static str = "twodistance";

    fn evaluators() -> EvalRegistry<Hex> {
        let mut registry = EvalRegistry::default();
        registry.register(
            "twodistance",
            "twodistance[:SCALE] - Hex two-distance potentials (logistic slope, default 0.6)",
            |arg| {
                let mut eval = TwoDistance::default();
                if !arg.is_empty() {
                    eval.scale = arg
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0)
                        .ok_or_else(|| format!("scale '{arg}' is not a positive number"))?;
                }
                Ok(Arc::new(eval))
            },
        );
        registry.register(
            "tm",
            "tm:PATH[,device=cuda] - a Tsetlin Machine saved by arena train (hex-connection or hex-compact encoder)",
            super::tm::build::<Hex>,
        );
        registry.register(
            "tm-votes",
            "tm-votes:PATH[,device=cuda] - the same machine, valued by all its votes (softmax of class sums)",
            super::tm::build_graded::<Hex>,
        );
        registry.register(
            "ann",
            "ann:PATH - a neural network model (.ann) saved by arena evolve",
            super::ann::build::<Hex>,
        );
        registry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::game::hex::played as game;

    #[test]
    fn empty_board_potentials() {
        // On an empty n x n board the two-distance of a row-k cell to the near edge is k+1
        // (away from the corner it has two neighbours one row closer) and n-k to the far
        // edge, so the potential is n+1.
        for n in [3, 5, 7] {
            let g = game(n, &[]);
            assert_eq!(potential(&g, Color::Black), n as u32 + 1);
            assert_eq!(potential(&g, Color::White), n as u32 + 1);
        }
    }

    #[test]
    fn a_stone_in_the_centre_helps_its_owner() {
        let g = game(5, &["c3"]);
        assert!(potential(&g, Color::Black) < potential(&g, Color::White));
        let value = TwoDistance::default().evaluate(&[g])[0].value;
        // White to move, behind.
        assert!(value < 0.5, "{value}");
    }

    #[test]
    fn a_column_one_cell_short_is_nearly_won() {
        // Black owns c1..c4 on 5x5: one stone (c5 or b5) from the bottom edge.
        let g = game(5, &["c1", "a1", "c2", "a2", "c3", "a3", "c4", "b1"]);
        assert_eq!(potential(&g, Color::Black), 2);
        let value = TwoDistance::default().evaluate(&[g])[0].value;
        assert!(value > 0.9, "{value}");
    }
}

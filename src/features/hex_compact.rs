//! A compact Hex encoding that grows with the cell count (20 features a cell), not with its
//! square as seed 000's connection features do: 2,443 features on 11x11 and 3,407 on 13x13
//! against 14,762 and 28,730.
//!
//! For every cell, in blocks of one kind (names `KIND@CELL`, e.g. `black-top@c3`):
//! - `black`, `white`: the stone on it;
//! - `black-top`, `black-bottom`, `white-left`, `white-right`: its stone's group touches that
//!   edge of its colour;
//! - `black-top<=K`, `black-bottom<=K`, `white-left<=K`, `white-right<=K` for K = 1, 2, 3:
//!   the empty cell's two-distance to that edge (as in the two-distance evaluator: the
//!   opponent cannot block a cell's best neighbour alone) is at most K;
//! - `black-best`, `white-best`: the empty cell lies on one of the colour's best two-distance
//!   paths (its two distances add up to the colour's potential).
//!
//! Then the whole board: `black-potential<=K` and `white-potential<=K` for K = 2 .. S+1
//! (S the longer side; a colour's potential is its smallest sum of two distances, 0 once
//! connected), and `black-to-move`.

use crate::eval::hex::{potential_of, two_distances, UNREACHABLE};
use crate::game::hex::Hex;
use crate::game::{Color, Game};

/// The per-cell feature kinds, in block order.
const CELL_KINDS: [&str; 20] = [
    "black",
    "white",
    "black-top",
    "black-bottom",
    "white-left",
    "white-right",
    "black-top<=1",
    "black-top<=2",
    "black-top<=3",
    "black-bottom<=1",
    "black-bottom<=2",
    "black-bottom<=3",
    "white-left<=1",
    "white-left<=2",
    "white-left<=3",
    "white-right<=1",
    "white-right<=2",
    "white-right<=3",
    "black-best",
    "white-best",
];

/// Distance bins per edge.
const BINS: u32 = 3;

/// The potential thresholds of a board whose longer side is `side`: 2 ..= side + 1.
fn potential_thresholds(width: usize, height: usize) -> std::ops::RangeInclusive<u32> {
    2..=(width.max(height) as u32 + 1)
}

/// Number of features of a `width` x `height` board.
pub fn feature_count(width: usize, height: usize) -> usize {
    CELL_KINDS.len() * width * height + 2 * potential_thresholds(width, height).count() + 1
}

/// The feature names of `game`'s board.
pub fn feature_names(game: &Hex) -> Vec<String> {
    let mut names = Vec::with_capacity(feature_count(game.width(), game.height()));
    for kind in CELL_KINDS {
        names.extend((0..game.cell_count()).map(|c| format!("{kind}@{}", game.cell_name(c))));
    }
    for color in ["black", "white"] {
        names.extend(
            potential_thresholds(game.width(), game.height())
                .map(|k| format!("{color}-potential<={k}")),
        );
    }
    names.push("black-to-move".into());
    names
}

/// Appends `game`'s features (0/1) to `out`.
pub fn encode(game: &Hex, out: &mut Vec<u8>) {
    let cells = game.cell_count();
    let start = out.len();
    out.resize(start + feature_count(game.width(), game.height()), 0);
    let block = |kind: usize, cell: usize| start + kind * cells + cell;
    let distances = Color::BOTH.map(|color| two_distances(game, color));
    let potentials = [0, 1].map(|c| potential_of(game, Color::BOTH[c], &distances[c]));
    for cell in 0..cells {
        match game.stone(cell) {
            Some(color) => {
                let c = color.index();
                out[block(c, cell)] = 1;
                for far in [false, true] {
                    if game.group_touches_edge(cell, color, far) {
                        out[block(2 + 2 * c + usize::from(far), cell)] = 1;
                    }
                }
            }
            None => {
                for (c, [near, far]) in distances.iter().enumerate() {
                    for (e, d) in [near[cell], far[cell]].into_iter().enumerate() {
                        for k in 1..=BINS {
                            if d <= k {
                                let kind = 6 + (2 * c + e) * BINS as usize + (k - 1) as usize;
                                out[block(kind, cell)] = 1;
                            }
                        }
                    }
                    let sum = near[cell].saturating_add(far[cell]);
                    if sum < UNREACHABLE && sum == potentials[c] {
                        out[block(18 + c, cell)] = 1;
                    }
                }
            }
        }
    }
    let mut at = start + CELL_KINDS.len() * cells;
    for p in potentials {
        for k in potential_thresholds(game.width(), game.height()) {
            out[at] = u8::from(p <= k);
            at += 1;
        }
    }
    out[at] = u8::from(game.side_to_move() == Color::Black);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(game: &Hex, name: &str) -> u8 {
        let names = feature_names(game);
        let mut out = Vec::new();
        encode(game, &mut out);
        assert_eq!(out.len(), names.len());
        out[names.iter().position(|n| n == name).expect(name)]
    }

    #[test]
    fn counts_scale_with_the_cells() {
        assert_eq!(feature_count(11, 11), 2443);
        assert_eq!(feature_count(13, 13), 3407);
        let game = Hex::new(5, 5).unwrap();
        assert_eq!(feature_names(&game).len(), feature_count(5, 5));
    }

    #[test]
    fn stones_groups_distances_and_the_mover() {
        let mut game = Hex::new(3, 3).unwrap();
        assert_eq!(value(&game, "black-to-move"), 1);
        // Empty 3x3: a top-row cell is one step from the top; b2 touches two bottom cells,
        // so its two-distance to the bottom is 2.
        assert_eq!(value(&game, "black-top<=1@a1"), 1);
        assert_eq!(value(&game, "black-bottom<=1@b2"), 0);
        assert_eq!(value(&game, "black-bottom<=2@b2"), 1);
        assert_eq!(value(&game, "black-bottom<=3@b2"), 1);
        game.place(Color::Black, game.parse_cell("b1").unwrap())
            .unwrap();
        game.place(Color::White, game.parse_cell("a2").unwrap())
            .unwrap();
        game.place(Color::Black, game.parse_cell("b2").unwrap())
            .unwrap();
        assert_eq!(value(&game, "black@b2"), 1);
        assert_eq!(
            value(&game, "black-top@b2"),
            1,
            "b2 joins b1 on the top row"
        );
        assert_eq!(value(&game, "black-bottom@b2"), 0);
        assert_eq!(value(&game, "white-left@a2"), 1);
        assert_eq!(value(&game, "white-right@a2"), 0);
        assert_eq!(value(&game, "black-to-move"), 0);
        // Black needs one of the two bottom cells under b2: a3 or b3, each a best cell.
        assert_eq!(value(&game, "black-best@b3"), 1);
        assert_eq!(value(&game, "black-potential<=2"), 1);
        assert_eq!(value(&game, "black-best@c1"), 0);
    }
}

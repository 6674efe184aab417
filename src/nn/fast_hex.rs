//! Seed 003's Hex player, fast: every empty cell's resulting board is judged by the network
//! from the mover's view and the best is played (ties at random). The first layer's sums
//! are computed once per move; each candidate only adds its cell's column, so a move costs
//! one full first layer plus a few operations per empty cell.

use super::encoding::{Encoding, NetInput};
use super::network::Network;
use crate::game::hex::{Hex, HexMove};
use crate::game::Game;
use crate::rng::Rng;
use crate::search::argmax_random_tie;

/// Working memory kept between moves.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    input: Vec<f64>,
    sums: Vec<f64>,
    child: Vec<f64>,
    hidden: Vec<f64>,
    cells: Vec<usize>,
    scores: Vec<f64>,
}

/// The network's score of the board after each empty cell is taken by the side to move, read
/// from the mover's view: the output neuron's input when the activation is strictly
/// increasing (see [`Network::finish_before_activation`]), else the output. Cells and their
/// scores, in cell order.
pub fn scores<'s>(
    net: &Network,
    encoding: Encoding,
    game: &Hex,
    scratch: &'s mut Scratch,
) -> (&'s [usize], &'s [f64]) {
    let mover = game.side_to_move();
    game.net_input(encoding, mover, &mut scratch.input);
    net.first_sums(&scratch.input, &mut scratch.sums);
    scratch.cells.clear();
    scratch.cells.extend(game.board().empty_cells().iter());
    scratch.scores.clear();
    // Both encodings put the mover's new stone at input `cell` (+1 signed, 1 in the own
    // plane): the child's sums are the parent's plus that input's column.
    for &cell in &scratch.cells {
        scratch.child.clear();
        scratch.child.extend(
            scratch
                .sums
                .iter()
                .enumerate()
                .map(|(neuron, s)| s + net.first_weight(neuron, cell)),
        );
        let pre = net.finish_before_activation(&scratch.child, &[], &mut scratch.hidden);
        let activation = net.shape.activation;
        scratch.scores.push(if activation.strictly_increasing() {
            pre
        } else {
            activation.apply(pre)
        });
    }
    (&scratch.cells, &scratch.scores)
}

/// The move seed 003's player makes: the best-judged cell (ties at random), or with
/// `take_wins` a winning cell first. `None` when the game is over.
pub fn choose(
    net: &Network,
    encoding: Encoding,
    game: &Hex,
    take_wins: bool,
    rng: &mut Rng,
    scratch: &mut Scratch,
) -> Option<HexMove> {
    if game.outcome().is_some() {
        return None;
    }
    if take_wins {
        let mover = game.side_to_move();
        let win = game.board().empty_cells().iter().find(|&cell| {
            let mut board = game.board().clone();
            board.put(cell, mover);
            board.connects(mover)
        });
        if let Some(cell) = win {
            return Some(HexMove::Cell(cell as u16));
        }
    }
    let (cells, outputs) = scores(net, encoding, game, scratch);
    argmax_random_tie(outputs, rng).map(|i| HexMove::Cell(cells[i] as u16))
}

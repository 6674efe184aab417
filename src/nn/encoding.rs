//! How positions become a network's inputs. Every encoding reads the board from the view
//! of one player, the *viewer*: the player who made the last move, as in seed 003, whose
//! players judge "the board after my move". Values for the side to move are then one minus
//! the network's verdict (see [`crate::eval::ann`]).

use crate::game::checkers::Checkers;
use crate::game::hex::Hex;
use crate::game::{Color, Game};
use serde::{Deserialize, Serialize};

/// Blondie24's value of a king relative to a man in its inputs.
pub const BLONDIE_KING: f64 = 1.5;

/// An input encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// Hex, one input per cell: the viewer's stone +1, the opponent's -1, empty 0 (seed 003).
    HexSigned,
    /// Hex, two planes of one input per cell: the viewer's stones, then the opponent's (the
    /// authors' proposed variant).
    HexPlanes,
    /// Checkers, Blondie24 style: 32 squares (the viewer's man +1, king +1.5, the opponent's
    /// -1 / -1.5; the board turned so the viewer always plays up from squares 1-12), then the
    /// piece difference (the sum of the 32), which also feeds the output directly.
    CheckersBlondie,
}

impl Encoding {
    /// Every encoding.
    pub const ALL: [Encoding; 3] = [
        Encoding::HexSigned,
        Encoding::HexPlanes,
        Encoding::CheckersBlondie,
    ];

    /// The name in configs and model files.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::HexSigned => "hex-signed",
            Encoding::HexPlanes => "hex-planes",
            Encoding::CheckersBlondie => "checkers-blondie",
        }
    }

    /// The encoding called `name`.
    pub fn parse(name: &str) -> Result<Encoding, String> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Encoding::ALL.iter().map(|e| e.name()).collect();
                format!(
                    "unknown input encoding '{name}'; known: {}",
                    names.join(", ")
                )
            })
    }

    /// The game the encoding reads (`hex` or `checkers`).
    pub fn game(self) -> &'static str {
        match self {
            Encoding::HexSigned | Encoding::HexPlanes => "hex",
            Encoding::CheckersBlondie => "checkers",
        }
    }

    /// The number of inputs on a Hex board of `cells` cells (ignored for checkers).
    pub fn inputs(self, cells: usize) -> usize {
        match self {
            Encoding::HexSigned => cells,
            Encoding::HexPlanes => 2 * cells,
            Encoding::CheckersBlondie => 33,
        }
    }

    /// How many of the last inputs feed the output directly.
    pub fn skip(self) -> usize {
        match self {
            Encoding::CheckersBlondie => 1,
            Encoding::HexSigned | Encoding::HexPlanes => 0,
        }
    }
}

/// Games whose positions networks can read.
pub trait NetInput: Game {
    /// The game's name in model files.
    const GAME: &'static str;

    /// The board size a model records (Hex side; 0 for checkers).
    fn board_size(&self) -> usize;

    /// The inputs of `encoding` for this position from `viewer`'s side, into `out`.
    fn net_input(&self, encoding: Encoding, viewer: Color, out: &mut Vec<f64>);

    /// The number of inputs `encoding` gives for this game's positions.
    fn input_len(&self, encoding: Encoding) -> usize;
}

impl NetInput for Hex {
    const GAME: &'static str = "hex";

    fn board_size(&self) -> usize {
        self.width()
    }

    fn net_input(&self, encoding: Encoding, viewer: Color, out: &mut Vec<f64>) {
        out.clear();
        let cells = self.cell_count();
        match encoding {
            Encoding::HexSigned => out.extend((0..cells).map(|c| match self.stone(c) {
                Some(color) if color == viewer => 1.0,
                Some(_) => -1.0,
                None => 0.0,
            })),
            Encoding::HexPlanes => {
                for own in [true, false] {
                    out.extend((0..cells).map(|c| match self.stone(c) {
                        Some(color) if (color == viewer) == own => 1.0,
                        _ => 0.0,
                    }));
                }
            }
            Encoding::CheckersBlondie => unreachable!("models are checked against their game"),
        }
    }

    fn input_len(&self, encoding: Encoding) -> usize {
        encoding.inputs(self.cell_count())
    }
}

impl NetInput for Checkers {
    const GAME: &'static str = "checkers";

    fn board_size(&self) -> usize {
        0
    }

    fn net_input(&self, encoding: Encoding, viewer: Color, out: &mut Vec<f64>) {
        debug_assert_eq!(encoding, Encoding::CheckersBlondie);
        let [bm, bk, wm, wk] = self.position().planes();
        let (own_men, own_kings, opp_men, opp_kings) = match viewer {
            Color::Black => (bm, bk, wm, wk),
            Color::White => (wm, wk, bm, bk),
        };
        out.clear();
        let mut difference = 0.0;
        for i in 0..32 {
            // White's view turns the board: its square 32 becomes input 1.
            let square = if viewer == Color::Black { i } else { 31 - i };
            let bit = 1u32 << square;
            let value = if own_men & bit != 0 {
                1.0
            } else if own_kings & bit != 0 {
                BLONDIE_KING
            } else if opp_men & bit != 0 {
                -1.0
            } else if opp_kings & bit != 0 {
                -BLONDIE_KING
            } else {
                0.0
            };
            difference += value;
            out.push(value);
        }
        out.push(difference);
    }

    fn input_len(&self, encoding: Encoding) -> usize {
        encoding.inputs(32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_inputs_follow_the_viewer() {
        let mut game = Hex::new(3, 3).unwrap();
        game.try_play("a1").unwrap();
        game.try_play("b2").unwrap();
        let mut input = Vec::new();
        game.net_input(Encoding::HexSigned, Color::Black, &mut input);
        assert_eq!(input, [1., 0., 0., 0., -1., 0., 0., 0., 0.]);
        game.net_input(Encoding::HexSigned, Color::White, &mut input);
        assert_eq!(input, [-1., 0., 0., 0., 1., 0., 0., 0., 0.]);
        game.net_input(Encoding::HexPlanes, Color::White, &mut input);
        assert_eq!(input.len(), 18);
        assert_eq!((input[4], input[9]), (1.0, 1.0));
        assert_eq!(input.iter().sum::<f64>(), 2.0);
    }

    #[test]
    fn checkers_inputs_turn_the_board_for_white() {
        let game = Checkers::default();
        let mut black = Vec::new();
        let mut white = Vec::new();
        game.net_input(Encoding::CheckersBlondie, Color::Black, &mut black);
        game.net_input(Encoding::CheckersBlondie, Color::White, &mut white);
        assert_eq!(black.len(), 33);
        assert_eq!(black, white, "the start position is symmetric");
        assert_eq!(&black[..12], &[1.0; 12]);
        assert_eq!(&black[20..32], &[-1.0; 12]);
        assert_eq!(black[32], 0.0);
        let game = Checkers::from_position_text("B:W18:B14,K1").unwrap();
        game.net_input(Encoding::CheckersBlondie, Color::White, &mut white);
        assert_eq!(
            (white[31 - 17], white[31 - 13], white[31]),
            (1.0, -1.0, -1.5)
        );
        assert_eq!(white[32], -1.5);
    }
}

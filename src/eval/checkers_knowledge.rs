//! A checkers evaluation with the game's classic knowledge (after the terms Chinook and Cake
//! describe): material with an incentive to trade down when ahead, the back-rank guard and
//! its bridge, the centre, men that advance as the board empties, runaway men with a free
//! path to the crowning row, dog-holes, kings in the centre or stuck on the edge, and
//! mobility. Scores are in hundredths of a man; the difference goes through a logistic curve
//! to a value in [0,1] for the side to move, as [`super::checkers::Material`]'s does.

use super::checkers::{mobility, pending_capture_credit};
use super::{Evaluator, Value};
use crate::game::checkers::{Checkers, Position};
use crate::game::{Color, Game};
use std::sync::OnceLock;

/// Weights of the terms (hundredths of a man).
#[derive(Clone, Copy, Debug)]
pub struct Knowledge {
    /// A man.
    pub man: i32,
    /// A king.
    pub king: i32,
    /// Per hundredth of material ahead, per piece gone from the 24 of the start, in 1/48ths:
    /// the same lead counts for more on an emptier board, so the side ahead trades.
    pub trade_down: i32,
    /// Per man on its own back rank while the opponent still has men.
    pub back_rank: i32,
    /// Both bridge squares (1 and 3 for Black) held.
    pub bridge: i32,
    /// Per man on the four centre squares.
    pub centre_man: i32,
    /// Per king on the eight central squares.
    pub centre_king: i32,
    /// Per king on an edge square.
    pub edge_king: i32,
    /// Per row a man has advanced, once 16 or fewer pieces are left.
    pub advance: i32,
    /// A runaway man (nothing in the cone in front of it), less [`Knowledge::runaway_row`]
    /// per row it still has to go.
    pub runaway: i32,
    /// See [`Knowledge::runaway`].
    pub runaway_row: i32,
    /// A man stuck in a dog-hole (Black's man on 28 held by a piece on 32).
    pub dog_hole: i32,
    /// Per legal move more than the opponent would have.
    pub mobility: i32,
    /// Score difference that maps to a value of about 0.73.
    pub scale: f64,
}

impl Default for Knowledge {
    fn default() -> Self {
        Knowledge {
            man: 100,
            king: 135,
            trade_down: 1,
            back_rank: 4,
            bridge: 10,
            centre_man: 6,
            centre_king: 8,
            edge_king: 6,
            advance: 3,
            runaway: 45,
            runaway_row: 5,
            dog_hole: 10,
            mobility: 2,
            scale: 200.0,
        }
    }
}

/// Squares as bits (square n is bit n - 1).
const fn bits(squares: &[u32]) -> u32 {
    let mut mask = 0;
    let mut i = 0;
    while i < squares.len() {
        mask |= 1 << (squares[i] - 1);
        i += 1;
    }
    mask
}

/// Black's back rank.
const BACK_RANK: u32 = bits(&[1, 2, 3, 4]);
/// Black's bridge.
const BRIDGE: u32 = bits(&[1, 3]);
const CENTRE: u32 = bits(&[14, 15, 18, 19]);
const KING_CENTRE: u32 = bits(&[10, 11, 14, 15, 18, 19, 22, 23]);
const EDGE: u32 = bits(&[1, 2, 3, 4, 5, 12, 13, 20, 21, 28, 29, 30, 31, 32]);
/// Black's dog-hole and the square that closes it.
const DOG_HOLE: (u32, u32) = (bits(&[28]), bits(&[32]));

/// The squares a Black man on each square could ever reach (rows below it, within its
/// diagonals' spread).
fn cones() -> &'static [u32; 32] {
    static CONES: OnceLock<[u32; 32]> = OnceLock::new();
    CONES.get_or_init(|| {
        let place = |bit: usize| {
            let row = bit / 4;
            (2 * (3 - bit % 4) + (row & 1), row)
        };
        let mut cones = [0u32; 32];
        for (bit, cone) in cones.iter_mut().enumerate() {
            let (x, y) = place(bit);
            for other in 0..32 {
                let (ox, oy) = place(other);
                if oy > y && ox.abs_diff(x) <= oy - y {
                    *cone |= 1 << other;
                }
            }
        }
        cones
    })
}

/// One side's pieces seen as Black (moving towards higher squares).
#[derive(Clone, Copy)]
struct Side {
    men: u32,
    kings: u32,
}

impl Knowledge {
    /// The score of `position` for `color` minus that of its opponent.
    pub fn score(&self, position: &Position, color: Color) -> i32 {
        let [black_men, black_kings, white_men, white_kings] = position.planes();
        let black = Side {
            men: black_men,
            kings: black_kings,
        };
        // White seen from the other end: the board turned round maps square n to 33 - n.
        let white = Side {
            men: white_men.reverse_bits(),
            kings: white_kings.reverse_bits(),
        };
        let material = |s: Side| {
            self.man * s.men.count_ones() as i32 + self.king * s.kings.count_ones() as i32
        };
        let (black_material, white_material) = (material(black), material(white));
        let pieces = (black_men | black_kings | white_men | white_kings).count_ones() as i32;
        let lead = black_material - white_material;
        let trade = self.trade_bonus(lead, pieces);
        let mover = position.side_to_move();
        let pending = pending_capture_credit(position, self.man);
        let pending = if mover == Color::Black {
            pending
        } else {
            -pending
        };
        let difference = lead + trade + pending + self.positional(black, white, pieces)
            - self.positional(white, black, pieces)
            + self.mobility * (mobility(position, Color::Black) - mobility(position, Color::White));
        match color {
            Color::Black => difference,
            Color::White => -difference,
        }
    }

    /// What a material `lead` is worth beyond itself with `pieces` left on the board.
    fn trade_bonus(&self, lead: i32, pieces: i32) -> i32 {
        lead * self.trade_down * (24 - pieces).max(0) / 48
    }

    /// The positional terms of `own` (seen as Black) against `other` (seen the same way).
    fn positional(&self, own: Side, other: Side, pieces: i32) -> i32 {
        // The opponent's pieces as seen from `own`'s end of the board.
        let other_men = other.men.reverse_bits();
        let other_kings = other.kings.reverse_bits();
        let occupied = own.men | own.kings | other_men | other_kings;
        let mut score = 0;
        if other.men != 0 {
            score += self.back_rank * (own.men & BACK_RANK).count_ones() as i32;
            if own.men & BRIDGE == BRIDGE {
                score += self.bridge;
            }
        }
        score += self.centre_man * (own.men & CENTRE).count_ones() as i32;
        score += self.centre_king * (own.kings & KING_CENTRE).count_ones() as i32;
        score -= self.edge_king * (own.kings & EDGE).count_ones() as i32;
        if own.men & DOG_HOLE.0 != 0 && occupied & DOG_HOLE.1 != 0 {
            score -= self.dog_hole;
        }
        let cones = cones();
        let mut men = own.men;
        while men != 0 {
            let bit = men.trailing_zeros() as usize;
            men &= men - 1;
            let rows_to_go = 7 - (bit / 4) as i32;
            if pieces <= 16 {
                score += self.advance * (7 - rows_to_go);
            }
            if cones[bit] & occupied == 0 {
                score += (self.runaway - self.runaway_row * rows_to_go).max(0);
            }
        }
        score
    }
}

impl Evaluator<Checkers> for Knowledge {
    fn evaluate(&self, positions: &[Checkers]) -> Vec<Value> {
        positions
            .iter()
            .map(|game| self.evaluate_one(game))
            .collect()
    }

    fn evaluate_one(&self, game: &Checkers) -> Value {
        if let Some(outcome) = game.outcome() {
            return Value::new(outcome.score_for(game.side_to_move()));
        }
        let score = f64::from(self.score(game.position(), game.side_to_move()));
        Value::new(1.0 / (1.0 + (-score / self.scale).exp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(fen: &str, color: Color) -> i32 {
        Knowledge::default().score(Checkers::from_fen(fen).unwrap().position(), color)
    }

    #[test]
    fn the_start_is_balanced_and_mirror_images_agree() {
        assert_eq!(score("B:W21-32:B1-12", Color::Black), 0);
        // The same positions with colours and ends swapped score the same for their side.
        for (black_view, white_view) in [
            ("W:W30:B5,9", "B:W24,28:B3"),
            ("B:W18,K25:B1,3,K14", "W:W30,32,K19:B15,K8"),
            ("W:W20,24,28:B1,2,11,16", "B:W17,22,31,32:B5,9,13"),
        ] {
            assert_eq!(
                score(black_view, Color::Black),
                score(white_view, Color::White),
                "{black_view} against {white_view}"
            );
        }
    }

    /// A side from its squares as Black sees the board (`other` sides are turned round).
    fn side(men: &[u32], kings: &[u32], turned: bool) -> Side {
        let turn = |mask: u32| if turned { mask.reverse_bits() } else { mask };
        Side {
            men: turn(bits(men)),
            kings: turn(bits(kings)),
        }
    }

    #[test]
    fn the_terms_point_the_right_way() {
        let k = Knowledge::default();
        let positional = |own: Side, other: Side| k.positional(own, other, 6);
        // The same lead counts for more with fewer pieces left.
        assert!(k.trade_bonus(100, 4) > k.trade_bonus(100, 20));
        assert_eq!(k.trade_bonus(100, 24), 0);
        assert_eq!(k.trade_bonus(-100, 4), -k.trade_bonus(100, 4));
        // A runaway man (nothing in front of it) beats one with a man in its way.
        let man = side(&[23], &[], false);
        let far = positional(man, side(&[12], &[], true));
        let blocked = positional(man, side(&[27], &[], true));
        assert_eq!(far - blocked, k.runaway - 2 * k.runaway_row);
        // The bridge is worth keeping while the opponent has men.
        let them = side(&[21, 22], &[], true);
        let bridge = positional(side(&[1, 3], &[], false), them);
        let no_bridge = positional(side(&[1, 2], &[], false), them);
        assert_eq!(bridge - no_bridge, k.bridge);
        // A man in the dog-hole is worse than one beside it.
        let closer = side(&[32], &[], true);
        let stuck = positional(side(&[28], &[], false), closer);
        let beside = positional(side(&[27], &[], false), closer);
        assert_eq!(beside - stuck, k.dog_hole);
        // A king in the centre beats one on the edge.
        let centre = positional(side(&[], &[15], false), side(&[30], &[], true));
        let edge = positional(side(&[], &[12], false), side(&[30], &[], true));
        assert_eq!(centre - edge, k.centre_king + k.edge_king);
    }

    #[test]
    fn cones_spread_one_square_per_row() {
        let cones = cones();
        // Square 1 (bit 0) sees 5 and 6 on the next row and widens row by row.
        assert_eq!(cones[0] & bits(&[5, 6, 7, 8]), bits(&[5, 6]));
        assert_eq!(cones[31], 0, "the crowning row has nothing ahead");
        // Square 28 is on the edge: only 32 lies ahead of it; 27 sees 31 and 32.
        assert_eq!(cones[27], bits(&[32]));
        assert_eq!(cones[26], bits(&[31, 32]));
    }
}

//! A checkers evaluation with the game's classic knowledge (after the terms Chinook and Cake
//! describe): material with an incentive to trade down when ahead, the back-rank guard and
//! its bridge, the centre, men that advance as the board empties, runaway men with a free
//! path to the crowning row, dog-holes, kings in the centre or stuck on the edge, and
//! mobility. It is linear: a weight per term ([`TERMS`]), so the weights can be fitted to
//! game outcomes by logistic regression (`arena tune`). Scores are in hundredths of a man;
//! they go through a logistic curve to a value in [0,1] for the side to move, as
//! [`super::checkers::Material`]'s do.

use super::checkers::{logistic_value, mobility, pending_capture_credit};
use super::{Evaluator, Value};
use crate::game::checkers::{Checkers, Position};
use crate::game::{Color, Game};
use std::sync::OnceLock;

/// The terms, each counted for Black less White (then turned to the side asked about).
pub const TERMS: [&str; 14] = [
    "man",
    "king",
    "trade",
    "back-rank",
    "bridge",
    "centre-man",
    "centre-king",
    "edge-king",
    "advance",
    "runaway",
    "runaway-rows",
    "dog-hole",
    "mobility",
    "pending-capture",
];

/// How many terms the evaluation has.
pub const TERM_COUNT: usize = TERMS.len();

/// The terms' counts in one position, in the order of [`TERMS`]:
/// - `man`, `king`: pieces;
/// - `trade`: pieces ahead times pieces gone from the 24 of the start (the same lead counts
///   for more on an emptier board, so the side ahead trades);
/// - `back-rank`: men on their own back rank while the opponent still has men; `bridge`:
///   both bridge squares (1 and 3 for Black) held then;
/// - `centre-man`: men on the four centre squares; `centre-king`: kings on the eight
///   central squares; `edge-king`: kings on an edge square;
/// - `advance`: rows the men have advanced, once 16 or fewer pieces are left;
/// - `runaway`: men with nothing in the cone in front of them; `runaway-rows`: the rows
///   those still have to go;
/// - `dog-hole`: a man stuck in the dog-hole (Black's man on 28 held by a piece on 32);
/// - `mobility`: legal moves if the side were to move;
/// - `pending-capture`: pieces the side to move's best capture takes (a static score
///   would otherwise reward offering a piece: the forced capture leaves one move).
pub type Terms = [f64; TERM_COUNT];

/// The evaluation: a weight per term (hundredths of a man).
#[derive(Clone, Copy, Debug)]
pub struct Knowledge {
    /// Weights in the order of [`TERMS`].
    pub weights: Terms,
    /// Score difference that maps to a value of about 0.73.
    pub scale: f64,
}

impl Default for Knowledge {
    fn default() -> Self {
        Knowledge {
            weights: [
                100.0, 135.0, 2.0, 4.0, 10.0, 6.0, 8.0, -6.0, 3.0, 45.0, -5.0, -10.0, 2.0, 100.0,
            ],
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

/// The terms of `position` for `color`: its counts less the opponent's.
pub fn terms(position: &Position, color: Color) -> Terms {
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
    let pieces = (black_men | black_kings | white_men | white_kings).count_ones() as f64;
    let mut terms = side_terms(black, white, pieces);
    for (term, theirs) in terms.iter_mut().zip(side_terms(white, black, pieces)) {
        *term -= theirs;
    }
    let lead = terms[0] + terms[1];
    terms[2] = lead * (24.0 - pieces).max(0.0);
    terms[12] = f64::from(mobility(position, Color::Black) - mobility(position, Color::White));
    let pending = f64::from(pending_capture_credit(position, 1));
    terms[13] = match position.side_to_move() {
        Color::Black => pending,
        Color::White => -pending,
    };
    if color == Color::White {
        terms.iter_mut().for_each(|t| *t = -*t);
    }
    terms
}

/// The board terms of `own` (seen as Black) against `other` (seen the same way); the terms
/// of both sides together (trade, mobility, pending capture) are left at 0.
fn side_terms(own: Side, other: Side, pieces: f64) -> Terms {
    // The opponent's pieces as seen from `own`'s end of the board.
    let other_men = other.men.reverse_bits();
    let other_kings = other.kings.reverse_bits();
    let occupied = own.men | own.kings | other_men | other_kings;
    let count = |mask: u32| f64::from(mask.count_ones());
    let mut terms = [0.0; TERM_COUNT];
    terms[0] = count(own.men);
    terms[1] = count(own.kings);
    if other.men != 0 {
        terms[3] = count(own.men & BACK_RANK);
        terms[4] = f64::from(u8::from(own.men & BRIDGE == BRIDGE));
    }
    terms[5] = count(own.men & CENTRE);
    terms[6] = count(own.kings & KING_CENTRE);
    terms[7] = count(own.kings & EDGE);
    terms[11] = f64::from(u8::from(
        own.men & DOG_HOLE.0 != 0 && occupied & DOG_HOLE.1 != 0,
    ));
    let cones = cones();
    let mut men = own.men;
    while men != 0 {
        let bit = men.trailing_zeros() as usize;
        men &= men - 1;
        let rows_to_go = 7.0 - (bit / 4) as f64;
        if pieces <= 16.0 {
            terms[8] += 7.0 - rows_to_go;
        }
        if cones[bit] & occupied == 0 {
            terms[9] += 1.0;
            terms[10] += rows_to_go;
        }
    }
    terms
}

impl Knowledge {
    /// The score of `position` for `color` (hundredths of a man).
    pub fn score(&self, position: &Position, color: Color) -> f64 {
        terms(position, color)
            .iter()
            .zip(&self.weights)
            .map(|(term, weight)| term * weight)
            .sum()
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
        logistic_value(game, self.scale, || {
            self.score(game.position(), game.side_to_move())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms_of(fen: &str) -> Terms {
        let game = Checkers::from_fen(fen).unwrap();
        terms(game.position(), Color::Black)
    }

    fn term(name: &str) -> usize {
        TERMS.iter().position(|t| *t == name).unwrap()
    }

    #[test]
    fn the_start_is_balanced_and_mirror_images_agree() {
        assert_eq!(terms_of("B:W21-32:B1-12"), [0.0; TERM_COUNT]);
        // The same positions with colours and ends swapped have the same terms for their side.
        for (black_view, white_view) in [
            ("W:W30:B5,9", "B:W24,28:B3"),
            ("B:W18,K25:B1,3,K14", "W:W30,32,K19:B15,K8"),
            ("W:W20,24,28:B1,2,11,16", "B:W17,22,31,32:B5,9,13"),
            ("B:W6,7,14,15:B2", "W:W31:B18,19,26,27"),
        ] {
            let white = Checkers::from_fen(white_view).unwrap();
            assert_eq!(
                terms_of(black_view),
                terms(white.position(), Color::White),
                "{black_view} against {white_view}"
            );
        }
    }

    #[test]
    fn each_term_counts_what_it_names() {
        let difference = |a: &str, b: &str, name: &str| {
            let i = term(name);
            terms_of(a)[i] - terms_of(b)[i]
        };
        // A man ahead with 3 pieces left: 21 pieces gone.
        assert_eq!(terms_of("W:W31:B1,3")[term("trade")], 21.0);
        // A runaway man (nothing in front of it) against one with a man in its way.
        assert_eq!(difference("B:WK12:B23,K1", "B:WK27:B23,K1", "runaway"), 1.0);
        assert_eq!(terms_of("B:WK12:B23,K1")[term("runaway-rows")], 2.0);
        // The bridge counts while the opponent has men.
        assert_eq!(difference("W:W21,22:B1,3", "W:W21,22:B1,2", "bridge"), 1.0);
        assert_eq!(terms_of("W:WK21:B1,3")[term("bridge")], 0.0);
        // A man in the dog-hole.
        assert_eq!(
            difference("B:W32,15:B28,5", "B:W32,15:B27,5", "dog-hole"),
            1.0
        );
        // Kings in the centre and on the edge.
        assert_eq!(terms_of("B:W30:BK15")[term("centre-king")], 1.0);
        assert_eq!(terms_of("B:W30:BK12")[term("edge-king")], 1.0);
        // Black to move takes two men: credited to Black.
        assert_eq!(terms_of("B:W6,7,14,15:B2")[term("pending-capture")], 2.0);
    }

    #[test]
    fn the_score_is_the_weighted_sum_and_favours_the_side_ahead() {
        let eval = Knowledge::default();
        let game = Checkers::from_fen("W:W30:B5,9").unwrap();
        let black = eval.score(game.position(), Color::Black);
        assert!(black > 50.0, "{black}");
        assert_eq!(eval.score(game.position(), Color::White), -black);
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

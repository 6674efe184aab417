//! A checkers evaluation with the game's classic knowledge (after the terms Chinook and Cake
//! describe): material with an incentive to trade down when ahead, the back-rank guard and
//! its bridge, the centre, men that advance as the board empties, runaway men with a free
//! path to the crowning row, dog-holes, kings in the centre, stuck on the edge or trapped,
//! men balanced over both wings, mobility, and tables of square values (men in the opening
//! and in the ending, kings) that carry tempo and structure. Each term's weight may change
//! with the game's stage: it is its own weight plus its `end:` twin's times the share of the
//! 24 pieces gone ([`ending_share`]). It is linear: a weight per term ([`term_name`]), so
//! the weights can be fitted by logistic regression (`arena tune`) to
//! game outcomes or to a stronger search's values. Scores are in hundredths of a man; they
//! go through a logistic curve to a value in [0,1] for the side to move, as
//! [`super::checkers::Material`]'s do.

use super::checkers::{logistic_value, mobility, pending_capture_credit};
use super::checkers_patterns::PatternTables;
use super::{evaluate_each, Evaluator, Value};
use crate::game::checkers::{Checkers, Position};
use crate::game::{Color, Game};
use std::sync::{Arc, OnceLock};

/// The named terms, each counted for Black less White (then turned to the side asked about);
/// the square tables follow them (see [`term_name`]).
pub const NAMED_TERMS: [&str; 17] = [
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
    "trapped-king",
    "wing-imbalance",
    "uncontested-king",
];

const MAN: usize = 0;
const KING: usize = 1;
const TRADE: usize = 2;
const BACK_RANK_GUARD: usize = 3;
const BRIDGE_HELD: usize = 4;
const CENTRE_MAN: usize = 5;
const CENTRE_KING: usize = 6;
const EDGE_KING: usize = 7;
const ADVANCE: usize = 8;
const RUNAWAY: usize = 9;
const RUNAWAY_ROWS: usize = 10;
const DOG_HOLE_MAN: usize = 11;
const MOBILITY: usize = 12;
const PENDING_CAPTURE: usize = 13;
const TRAPPED_KING: usize = 14;
const WING_IMBALANCE: usize = 15;
const UNCONTESTED_KING: usize = 16;
/// The first term of each square table: men, kings.
const MAN_SQUARE: usize = NAMED_TERMS.len();
const KING_SQUARE: usize = MAN_SQUARE + 32;

/// How many terms a position counts: the named ones and two tables of 32 squares.
pub const BOARD_TERMS: usize = KING_SQUARE + 32;

/// How many terms the evaluation has: the board terms, then each of them again times the
/// position's [`ending_share`] (the `end:` terms).
pub const TERM_COUNT: usize = 2 * BOARD_TERMS;

/// The name of term `index`: one of [`NAMED_TERMS`], or a square table's entry
/// `man@N`, `king@N` (square N as the side's own numbering, Black's:
/// its back rank is 1-4); from [`BOARD_TERMS`] on, the same names after `end:`.
pub fn term_name(index: usize) -> String {
    match index {
        i if i >= BOARD_TERMS => format!("end:{}", term_name(i - BOARD_TERMS)),
        i if i < MAN_SQUARE => NAMED_TERMS[i].to_string(),
        i if i < KING_SQUARE => format!("man@{}", i - MAN_SQUARE + 1),
        i => format!("king@{}", i - KING_SQUARE + 1),
    }
}

/// The share of the 24 starting pieces gone when `pieces` are left: 0 at the start, 1 on an
/// empty board. A board term's weight at this share is its own weight plus the share times
/// the weight of its `end:` twin, so the fitted weights may differ between the opening and
/// the ending.
pub fn ending_share(pieces: u32) -> f64 {
    f64::from(24u32.saturating_sub(pieces)) / 24.0
}

/// The index of the term named `name` (see [`term_name`]).
pub fn term_index(name: &str) -> Option<usize> {
    (0..TERM_COUNT).find(|&i| term_name(i) == name)
}

/// The terms' counts in one position, in the order of [`term_name`]:
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
///   would otherwise reward offering a piece: the forced capture leaves one move);
/// - `trapped-king`: kings with no empty square next to them;
/// - `wing-imbalance`: the difference between the side's men on the two halves of the
///   board (left and right of the long diagonal's middle);
/// - `uncontested-king`: kings while the opponent has none;
/// - `man@N`: a man on square N; `king@N`: a king on square N;
/// - `end:NAME`: the count of NAME times the position's [`ending_share`] of its pieces.
pub type Terms = [f64; TERM_COUNT];

/// Where the terms of a position go: counted one by one (fitting) or weighted and summed
/// (playing). Both run the same code, so what is fitted is what is played.
trait Sink {
    fn add(&mut self, term: usize, count: f64);
}

impl Sink for Terms {
    #[inline(always)]
    fn add(&mut self, term: usize, count: f64) {
        self[term] += count;
    }
}

/// A weighted sum of the board terms, and apart from it the sum weighted by their `end:`
/// twins (which the ending share then scales once).
struct Weighted<'a> {
    weights: &'a Terms,
    sum: f64,
    ending_sum: f64,
}

impl Sink for Weighted<'_> {
    #[inline(always)]
    fn add(&mut self, term: usize, count: f64) {
        self.sum += self.weights[term] * count;
        self.ending_sum += self.weights[BOARD_TERMS + term] * count;
    }
}

/// The evaluation: a weight per term (hundredths of a man).
#[derive(Clone, Debug)]
pub struct Knowledge {
    /// Weights in the order of [`term_name`].
    pub weights: Terms,
    /// Score difference that maps to a value of about 0.73.
    pub scale: f64,
    /// Pattern tables whose score is added to the terms' (none: the terms alone).
    pub patterns: Option<Arc<PatternTables>>,
}

/// The built-in weights, in the format [`Knowledge::parse`] reads.
const DEFAULT_WEIGHTS: &str = include_str!("checkers_knowledge.weights");

impl Default for Knowledge {
    fn default() -> Self {
        static DEFAULT: OnceLock<Knowledge> = OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                Knowledge::parse(DEFAULT_WEIGHTS).expect("the built-in weights are well formed")
            })
            .clone()
    }
}

/// The first line of a weights file.
pub const WEIGHTS_HEADER: &str = "# tmbot checkers knowledge weights, version 1";

impl Knowledge {
    /// Reads a weights file: the header line, then `NAME VALUE` lines (`scale VALUE` for
    /// the logistic scale, a term name of [`term_name`] otherwise); `#` starts a comment;
    /// terms not given weigh 0. Errors name the line and what is wrong.
    pub fn parse(text: &str) -> Result<Knowledge, String> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim() == WEIGHTS_HEADER => {}
            _ => return Err(format!("line 1: expected '{WEIGHTS_HEADER}'")),
        }
        let mut knowledge = Knowledge {
            weights: [0.0; TERM_COUNT],
            scale: 200.0,
            patterns: None,
        };
        let mut seen = [false; TERM_COUNT + 1];
        for (n, line) in lines {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = n + 1;
            let (name, value) = match line.split_whitespace().collect::<Vec<_>>()[..] {
                [name, value] => (name, value),
                _ => return Err(format!("line {at}: expected 'NAME VALUE', got '{line}'")),
            };
            let value: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| format!("line {at}: '{value}' is not a number"))?;
            let slot = if name == "scale" {
                if value <= 0.0 {
                    return Err(format!(
                        "line {at}: the scale must be positive, got {value}"
                    ));
                }
                knowledge.scale = value;
                TERM_COUNT
            } else {
                let index =
                    term_index(name).ok_or_else(|| format!("line {at}: no term '{name}'"))?;
                knowledge.weights[index] = value;
                index
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(format!("line {at}: '{name}' is given twice"));
            }
        }
        Ok(knowledge)
    }

    /// The weights in the format [`Knowledge::parse`] reads (terms of weight 0 left out).
    pub fn to_text(&self) -> String {
        let mut text = format!("{WEIGHTS_HEADER}\nscale {}\n", self.scale);
        for (i, weight) in self.weights.iter().enumerate() {
            if *weight != 0.0 {
                text.push_str(&format!("{} {}\n", term_name(i), weight));
            }
        }
        text
    }

    /// Reads a weights file from disk (errors name the file).
    pub fn load(path: &std::path::Path) -> Result<Knowledge, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Knowledge::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
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

/// Column (0-7, left to right as Black sees the board from its back rank) and row (0-7)
/// of the square on `bit`.
fn place(bit: usize) -> (usize, usize) {
    let row = bit / 4;
    (2 * (3 - bit % 4) + (row & 1), row)
}

/// Squares whose column lies in the left half (columns 0-3).
fn left_wing() -> u32 {
    static LEFT: OnceLock<u32> = OnceLock::new();
    *LEFT.get_or_init(|| (0..32).filter(|&b| place(b).0 < 4).map(|b| 1 << b).sum())
}

/// For each square, the mask of the squares `related` to it (given both squares' column and
/// row).
fn square_masks(related: impl Fn((usize, usize), (usize, usize)) -> bool) -> [u32; 32] {
    std::array::from_fn(|bit| {
        (0..32)
            .filter(|&other| related(place(bit), place(other)))
            .map(|other| 1u32 << other)
            .sum()
    })
}

/// The squares a Black man on each square could ever reach (rows below it, within its
/// diagonals' spread).
fn cones() -> &'static [u32; 32] {
    static CONES: OnceLock<[u32; 32]> = OnceLock::new();
    CONES.get_or_init(|| square_masks(|(x, y), (ox, oy)| oy > y && ox.abs_diff(x) <= oy - y))
}

/// The diagonal neighbours of each square.
fn neighbours() -> &'static [u32; 32] {
    static NEIGHBOURS: OnceLock<[u32; 32]> = OnceLock::new();
    NEIGHBOURS
        .get_or_init(|| square_masks(|(x, y), (ox, oy)| ox.abs_diff(x) == 1 && oy.abs_diff(y) == 1))
}

/// One side's pieces seen as Black (moving towards higher squares).
#[derive(Clone, Copy)]
struct Side {
    men: u32,
    kings: u32,
}

/// The terms of `position` for `color`: its counts less the opponent's.
pub fn terms(position: &Position, color: Color) -> Terms {
    let mut terms = [0.0; TERM_COUNT];
    let share = ending_share(add_terms(position, color, &mut terms));
    let (board, ending) = terms.split_at_mut(BOARD_TERMS);
    for (e, b) in ending.iter_mut().zip(board.iter()) {
        *e = share * b;
    }
    terms
}

/// Adds the board terms of `position` for `color` to `sink`; returns the pieces on the board.
fn add_terms(position: &Position, color: Color, sink: &mut impl Sink) -> u32 {
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
    let pieces = (black_men | black_kings | white_men | white_kings).count_ones();
    let view = match color {
        Color::Black => 1.0,
        Color::White => -1.0,
    };
    side_terms(black, white, pieces, view, sink);
    side_terms(white, black, pieces, -view, sink);
    let lead = f64::from((black_men | black_kings).count_ones())
        - f64::from((white_men | white_kings).count_ones());
    sink.add(TRADE, view * lead * f64::from(24u32.saturating_sub(pieces)));
    let moves = mobility(position, Color::Black) - mobility(position, Color::White);
    sink.add(MOBILITY, view * f64::from(moves));
    let pending = f64::from(pending_capture_credit(position, 1));
    let pending = match position.side_to_move() {
        Color::Black => pending,
        Color::White => -pending,
    };
    sink.add(PENDING_CAPTURE, view * pending);
    pieces
}

/// The board terms of `own` (seen as Black) against `other` (seen the same way), each
/// counted `sign` times; the terms of both sides together (trade, mobility, pending
/// capture) are left to [`add_terms`].
fn side_terms(own: Side, other: Side, pieces: u32, sign: f64, sink: &mut impl Sink) {
    // The opponent's pieces as seen from `own`'s end of the board.
    let other_men = other.men.reverse_bits();
    let other_kings = other.kings.reverse_bits();
    let occupied = own.men | own.kings | other_men | other_kings;
    let mut add = |term: usize, count: f64| sink.add(term, sign * count);
    let count = |mask: u32| f64::from(mask.count_ones());
    add(MAN, count(own.men));
    add(KING, count(own.kings));
    if other.men != 0 {
        add(BACK_RANK_GUARD, count(own.men & BACK_RANK));
        add(BRIDGE_HELD, f64::from(u8::from(own.men & BRIDGE == BRIDGE)));
    }
    add(CENTRE_MAN, count(own.men & CENTRE));
    add(CENTRE_KING, count(own.kings & KING_CENTRE));
    add(EDGE_KING, count(own.kings & EDGE));
    add(
        DOG_HOLE_MAN,
        f64::from(u8::from(
            own.men & DOG_HOLE.0 != 0 && occupied & DOG_HOLE.1 != 0,
        )),
    );
    let left = left_wing();
    add(
        WING_IMBALANCE,
        f64::from(
            (own.men & left)
                .count_ones()
                .abs_diff((own.men & !left).count_ones()),
        ),
    );
    if other.kings == 0 {
        add(UNCONTESTED_KING, count(own.kings));
    }
    let cones = cones();
    let mut men = own.men;
    while men != 0 {
        let bit = men.trailing_zeros() as usize;
        men &= men - 1;
        let rows_to_go = 7.0 - (bit / 4) as f64;
        if pieces <= 16 {
            add(ADVANCE, 7.0 - rows_to_go);
        }
        if cones[bit] & occupied == 0 {
            add(RUNAWAY, 1.0);
            add(RUNAWAY_ROWS, rows_to_go);
        }
        add(MAN_SQUARE + bit, 1.0);
    }
    let neighbours = neighbours();
    let mut kings = own.kings;
    while kings != 0 {
        let bit = kings.trailing_zeros() as usize;
        kings &= kings - 1;
        if neighbours[bit] & !occupied == 0 {
            add(TRAPPED_KING, 1.0);
        }
        add(KING_SQUARE + bit, 1.0);
    }
}

/// Men never stand on their own crowning row (squares 29-32 as the side's own numbering).
const MAN_SQUARES: usize = 28;

/// Moves the mean of each square table into the named term it refines (`man`, `king`),
/// leaving the tables as differences between squares: every score stays the same (a piece
/// counts once in its table), but the named terms then carry the pieces' worth, which the
/// tables and the named terms would otherwise share in any proportion. Men's entries for
/// the crowning row are set to 0. The `end:` tables are centred into `end:man`, `end:king`.
pub fn centre_tables(weights: &mut Terms) {
    for offset in [0, BOARD_TERMS] {
        for (named, start, squares) in [(MAN, MAN_SQUARE, MAN_SQUARES), (KING, KING_SQUARE, 32)] {
            let table = &mut weights[offset + start..offset + start + 32];
            let mean = table[..squares].iter().sum::<f64>() / squares as f64;
            table[..squares].iter_mut().for_each(|w| *w -= mean);
            table[squares..].fill(0.0);
            weights[offset + named] += mean;
        }
    }
}

impl Knowledge {
    /// The score of `position` for `color` (hundredths of a man).
    #[inline]
    pub fn score(&self, position: &Position, color: Color) -> f64 {
        self.score_and_share(position, color).0
    }

    /// [`Knowledge::score`] with the share of pieces gone that weighs its ending terms
    /// ([`ending_share`]).
    #[inline]
    pub fn score_and_share(&self, position: &Position, color: Color) -> (f64, f64) {
        let mut sum = Weighted {
            weights: &self.weights,
            sum: 0.0,
            ending_sum: 0.0,
        };
        let share = ending_share(add_terms(position, color, &mut sum));
        let patterns = self
            .patterns
            .as_ref()
            .map_or(0.0, |tables| tables.score_at(position, color, share));
        (sum.sum + share * sum.ending_sum + patterns, share)
    }
}

/// The `patterns=` argument that names the built-in tables ([`PatternTables::built_in`]).
pub const BUILT_IN_PATTERNS: &str = "built-in";

/// Builds `knowledge[:WEIGHTS][,patterns=TABLES]` for the registry: the built-in weights or
/// a weights file, with pattern tables from a patterns file, the built-in tables
/// (`patterns=built-in`) or none.
pub fn build(arg: &str) -> Result<Knowledge, String> {
    let (weights, patterns) = match arg.split_once("patterns=") {
        Some((weights, tables)) => (weights.strip_suffix(',').unwrap_or(weights), Some(tables)),
        None => (arg, None),
    };
    let mut knowledge = if weights.is_empty() {
        Knowledge::default()
    } else {
        Knowledge::load(std::path::Path::new(weights))?
    };
    knowledge.patterns = match patterns {
        Some(BUILT_IN_PATTERNS) => Some(PatternTables::built_in()),
        Some(tables) => Some(Arc::new(PatternTables::load(std::path::Path::new(tables))?)),
        None => None,
    };
    Ok(knowledge)
}

impl Evaluator<Checkers> for Knowledge {
    fn evaluate(&self, positions: &[Checkers]) -> Vec<Value> {
        evaluate_each(self, positions)
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
    use crate::search::SearchGame;
    use rand::Rng as _;

    fn terms_of(fen: &str) -> Terms {
        let game = Checkers::from_fen(fen).unwrap();
        terms(game.position(), Color::Black)
    }

    fn term(name: &str) -> usize {
        term_index(name).unwrap()
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

    /// `position` seen from the other side: every piece on the square opposite (33 - n, a
    /// reversal of the standard numbering's bits) in the other colour, the other side to move.
    fn colours_reversed(position: &Position) -> Position {
        let [black_men, black_kings, white_men, white_kings] =
            position.planes().map(u32::reverse_bits);
        Position::from_planes(
            [white_men, white_kings, black_men, black_kings],
            position.side_to_move().opponent(),
        )
        .expect("a reversed legal position is legal")
    }

    #[test]
    fn positions_of_random_games_with_colours_reversed_have_the_same_terms() {
        // Every term, its square tables and its `end:` twin included, is the same for a side
        // as for the other side of the reversed board, through whole games.
        let mut rng = crate::rng::seeded(13);
        let mut scratch = Vec::new();
        let mut checked = 0;
        for _ in 0..40 {
            let mut game = Checkers::new();
            while game.outcome().is_none() && game.ply() < 160 {
                let position = game.position();
                let reversed = colours_reversed(position);
                assert_eq!(colours_reversed(&reversed), *position);
                for color in [Color::Black, Color::White] {
                    assert_eq!(
                        terms(position, color),
                        terms(&reversed, color.opponent()),
                        "{} for {color:?}",
                        crate::game::checkers::to_fen(position)
                    );
                }
                checked += 1;
                let mv = game.random_move(&mut rng, &mut scratch).unwrap();
                game.play(mv);
            }
        }
        assert!(checked > 1000, "{checked} positions");
    }

    #[test]
    fn each_term_counts_what_it_names() {
        let difference = |a: &str, b: &str, name: &str| {
            let i = term(name);
            terms_of(a)[i] - terms_of(b)[i]
        };
        // A man ahead with 3 pieces left: 21 pieces gone.
        assert_eq!(terms_of("W:W31:B1,3")[term("trade")], 21.0);
        // The `end:` twins scale by the share of pieces gone: 21 of 24.
        assert_eq!(terms_of("W:W31:B1,3")[term("end:man")], 21.0 / 24.0);
        assert_eq!(terms_of("W:W31:B1,3")[term("end:man@3")], 21.0 / 24.0);
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
        // A king in the corner with its one neighbour taken, against one free to move.
        assert_eq!(difference("B:W6:BK1,5", "B:W7:BK1,9", "trapped-king"), 1.0);
        // Three men on one wing (squares 5, 13, 21), none on the other; one on each.
        assert_eq!(terms_of("B:WK30:B5,13,21")[term("wing-imbalance")], 3.0);
        assert_eq!(terms_of("B:WK30:B5,8")[term("wing-imbalance")], 0.0);
        // A king counts as uncontested while the opponent has no king.
        assert_eq!(terms_of("B:W30:BK15")[term("uncontested-king")], 1.0);
        assert_eq!(terms_of("B:WK30:BK15")[term("uncontested-king")], 0.0);
        // Square tables: White's man on 30 is Black's square 3.
        let two = terms_of("B:W30:B14");
        assert_eq!(two[term("man@14")], 1.0);
        assert_eq!(two[term("man@3")], -1.0);
        assert_eq!(terms_of("B:W30:BK14")[term("king@14")], 1.0);
    }

    #[test]
    fn term_names_are_unique_and_found_again() {
        for i in 0..TERM_COUNT {
            assert_eq!(term_index(&term_name(i)), Some(i), "{}", term_name(i));
        }
        assert_eq!(term_name(BOARD_TERMS - 1), "king@32");
        assert_eq!(term_name(TERM_COUNT - 1), "end:king@32");
        assert_eq!(term_index("king@33"), None);
    }

    #[test]
    fn the_score_is_the_dot_product_of_weights_and_terms() {
        // Random weights and positions from random games: the playing sum equals the
        // fitted model's dot product.
        let mut rng = crate::rng::seeded(5);
        let knowledge = Knowledge {
            weights: std::array::from_fn(|_| rng.random_range(-50.0..50.0)),
            scale: 200.0,
            patterns: None,
        };
        let mut scratch = Vec::new();
        for _ in 0..20 {
            let mut game = Checkers::new();
            while game.outcome().is_none() && game.ply() < 120 {
                for color in [Color::Black, Color::White] {
                    let dot: f64 = terms(game.position(), color)
                        .iter()
                        .zip(&knowledge.weights)
                        .map(|(t, w)| t * w)
                        .sum();
                    let score = knowledge.score(game.position(), color);
                    assert!((dot - score).abs() < 1e-9, "{dot} against {score}");
                }
                let mv = game.random_move(&mut rng, &mut scratch).unwrap();
                game.play(mv);
            }
        }
    }

    #[test]
    fn centring_the_tables_keeps_every_score() {
        let mut rng = crate::rng::seeded(9);
        let mut weights: Terms = std::array::from_fn(|_| rng.random_range(-50.0..50.0));
        for offset in [0, BOARD_TERMS] {
            let start = offset + MAN_SQUARE;
            weights[start + MAN_SQUARES..start + 32].fill(0.0);
        }
        let before = Knowledge {
            weights,
            scale: 200.0,
            patterns: None,
        };
        let mut after = before.clone();
        centre_tables(&mut after.weights);
        let table_sum = |w: &Terms, start: usize| w[start..start + 32].iter().sum::<f64>();
        for start in [MAN_SQUARE, KING_SQUARE] {
            for offset in [0, BOARD_TERMS] {
                assert!(table_sum(&after.weights, offset + start).abs() < 1e-9);
            }
        }
        let mut scratch = Vec::new();
        let mut game = Checkers::new();
        while game.outcome().is_none() && game.ply() < 150 {
            let (a, b) = (
                before.score(game.position(), Color::Black),
                after.score(game.position(), Color::Black),
            );
            assert!((a - b).abs() < 1e-9, "{a} against {b}");
            let mv = game.random_move(&mut rng, &mut scratch).unwrap();
            game.play(mv);
        }
    }

    #[test]
    fn weights_files_round_trip_and_bad_lines_are_named() {
        let knowledge = Knowledge::default();
        let again = Knowledge::parse(&knowledge.to_text()).unwrap();
        assert_eq!(again.weights, knowledge.weights);
        assert_eq!(again.scale, knowledge.scale);
        let with = |body: &str| Knowledge::parse(&format!("{WEIGHTS_HEADER}\n{body}"));
        assert_eq!(
            with("man 90 # fewer\nking@5 7").unwrap().weights[term("king@5")],
            7.0
        );
        for (body, error) in [
            ("manx 1", "line 2: no term 'manx'"),
            ("man one", "line 2: 'one' is not a number"),
            ("man 1\nman 2", "line 3: 'man' is given twice"),
            ("man", "line 2: expected 'NAME VALUE', got 'man'"),
            ("scale 0", "line 2: the scale must be positive, got 0"),
            ("man inf", "line 2: 'inf' is not a number"),
        ] {
            assert_eq!(with(body).unwrap_err(), error, "{body}");
        }
        assert_eq!(
            Knowledge::parse("man 1").unwrap_err(),
            format!("line 1: expected '{WEIGHTS_HEADER}'")
        );
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
    fn the_tables_argument_adds_the_built_in_or_a_file_s_tables() {
        let game =
            Checkers::from_fen("W:W21,22,23,24,25,26,27,28,29,30,31,32:B1-10,12,15").unwrap();
        let (position, color) = (game.position(), Color::White);
        let alone = build("").unwrap();
        assert!(alone.patterns.is_none());
        let with = build("patterns=built-in").unwrap();
        let tables = PatternTables::built_in().score(position, color);
        assert_ne!(tables, 0.0);
        let sum = alone.score(position, color) + tables;
        assert!((with.score(position, color) - sum).abs() < 1e-9);
        let missing = build("patterns=no/such/tables.txt").unwrap_err();
        assert!(
            missing.starts_with("cannot read no/such/tables.txt"),
            "{missing}"
        );
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

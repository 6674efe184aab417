//! Move generation: compulsory captures with free choice of sequence, complete multi-jumps,
//! crowning that ends the move, kings in all four directions.

use super::board::{Position, BLACK_KING_ROW, PLAYABLE, WHITE_KING_ROW};
use super::moves::Move;
use crate::game::Color;
use std::marker::PhantomData;

/// How capture sequences that differ only in their path are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureMode {
    /// One move per (origin, destination, captured set): the moves a player chooses from.
    Distinct,
    /// Every jump path is a move (king loops can give two paths to one position): the
    /// published perft numbers count these.
    Paths,
}

/// The side to move as a type, so that bitboard code is compiled once per colour with its
/// shift directions fixed.
pub(crate) trait Side {
    /// Index of the side's pieces in [`Position`].
    const US: usize;
    /// The row where the side's men are crowned.
    const KING_ROW: u64;
    /// The colour.
    const COLOR: Color;
    /// The opponent.
    type Other: Side;

    /// Shifts toward the opponent (a man's forward step).
    fn ahead(bits: u64, n: u32) -> u64;
    /// Shifts toward the own side.
    fn behind(bits: u64, n: u32) -> u64;
}

/// Black: forward is toward higher square numbers (left shifts).
pub(crate) struct BlackSide;
/// White: forward is toward lower square numbers (right shifts).
pub(crate) struct WhiteSide;

impl Side for BlackSide {
    const US: usize = 0;
    const KING_ROW: u64 = BLACK_KING_ROW;
    const COLOR: Color = Color::Black;
    type Other = WhiteSide;
    #[inline(always)]
    fn ahead(bits: u64, n: u32) -> u64 {
        bits << n
    }
    #[inline(always)]
    fn behind(bits: u64, n: u32) -> u64 {
        bits >> n
    }
}

impl Side for WhiteSide {
    const US: usize = 1;
    const KING_ROW: u64 = WHITE_KING_ROW;
    const COLOR: Color = Color::White;
    type Other = BlackSide;
    #[inline(always)]
    fn ahead(bits: u64, n: u32) -> u64 {
        bits >> n
    }
    #[inline(always)]
    fn behind(bits: u64, n: u32) -> u64 {
        bits << n
    }
}

/// The pieces of side `S` (with `own`, `opp`, `kings` and `empty` squares) that can capture.
#[inline(always)]
pub(crate) fn side_jumpers<S: Side>(own: u64, opp: u64, kings: u64, empty: u64) -> u64 {
    let forward =
        (S::behind(opp, 4) & S::behind(empty, 8)) | (S::behind(opp, 5) & S::behind(empty, 10));
    let backward =
        (S::ahead(opp, 4) & S::ahead(empty, 8)) | (S::ahead(opp, 5) & S::ahead(empty, 10));
    (own & forward) | (own & kings & backward)
}

/// Number of non-capturing steps of side `S`.
#[inline(always)]
pub(crate) fn side_step_count<S: Side>(own: u64, kings: u64, empty: u64) -> u64 {
    let k = own & kings;
    ((S::ahead(own, 4) & empty).count_ones()
        + (S::ahead(own, 5) & empty).count_ones()
        + (S::behind(k, 4) & empty).count_ones()
        + (S::behind(k, 5) & empty).count_ones()) as u64
}

/// Calls `f(from_bit, to_bit)` for every non-capturing step of side `S` by the pieces
/// `forward` (toward the opponent) and `backward` (kings: toward the own side).
#[inline(always)]
pub(crate) fn side_steps<S: Side>(
    forward: u64,
    backward: u64,
    empty: u64,
    mut f: impl FnMut(u64, u64),
) {
    // The origin of a step is its destination rotated back by the step's shift (no bit wraps
    // around: the 35 used bits leave room on both sides).
    let back = |n: u32, forward: bool| {
        if (S::COLOR == Color::Black) == forward {
            n
        } else {
            64 - n
        }
    };
    let sets = [
        (S::ahead(forward, 4) & empty, back(4, true)),
        (S::ahead(forward, 5) & empty, back(5, true)),
        (S::behind(backward, 4) & empty, back(4, false)),
        (S::behind(backward, 5) & empty, back(5, false)),
    ];
    // One loop body for all four directions keeps `f` small enough to be inlined.
    for (mut targets, rotation) in sets {
        while targets != 0 {
            let to = targets & targets.wrapping_neg();
            targets ^= to;
            f(to.rotate_right(rotation), to);
        }
    }
}

/// Calls `$f::<S>(args)` with `S` the side to move of `$pos`.
macro_rules! for_side {
    ($pos:expr, $f:ident ( $($arg:expr),* )) => {
        match $pos.side {
            Color::Black => $f::<BlackSide>($($arg),*),
            Color::White => $f::<WhiteSide>($($arg),*),
        }
    };
}

/// The pieces of the side to move that can capture.
#[inline]
pub(crate) fn jumpers(pos: &Position) -> u64 {
    fn of<S: Side>(pos: &Position) -> u64 {
        let empty = pos.empty_squares();
        side_jumpers::<S>(pos.pieces[S::US], pos.pieces[1 - S::US], pos.kings, empty)
    }
    for_side!(pos, of(pos))
}

/// Receives the moves found by the generator.
trait Sink {
    fn push(&mut self, mv: Move);
}

impl Sink for Vec<Move> {
    #[inline(always)]
    fn push(&mut self, mv: Move) {
        Vec::push(self, mv)
    }
}

/// A sink that only counts.
struct Counter(u64);

impl Sink for Counter {
    #[inline(always)]
    fn push(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

/// One king's capture search for side `S`: follows every jump continuation and pushes each
/// complete sequence into the sink.
struct KingCaptureSearch<'a, S: Side, K: Sink> {
    from: u8,
    opponents: u64,
    /// Empty squares, including the origin (a jumping piece leaves it).
    empty: u64,
    sink: &'a mut K,
    side: PhantomData<S>,
}

/// Direction code (see `moves::STEPS`) of a step toward the opponent by `n` for side `S`
/// (`backward`: toward the own side).
#[inline(always)]
fn code<S: Side>(n: u32, backward: bool) -> u32 {
    let base = (n - 4) | if backward { 2 } else { 0 };
    match S::COLOR {
        Color::Black => base,
        Color::White => base ^ 2,
    }
}

impl<S: Side, K: Sink> KingCaptureSearch<'_, S, K> {
    /// Continues a king's sequence from the single bit `at`, in all four directions.
    fn extend(&mut self, at: u64, captured: u64, jumps: u8, path: u32) {
        let mut extended = false;
        let capturable = self.opponents & !captured;
        for (n, backward) in [(4, false), (5, false), (4, true), (5, true)] {
            let step = |bits: u64| {
                if backward {
                    S::behind(bits, n)
                } else {
                    S::ahead(bits, n)
                }
            };
            let middle = step(at) & capturable;
            let landing = step(middle) & self.empty;
            if landing != 0 {
                extended = true;
                let path = path | code::<S>(n, backward) << (2 * jumps);
                self.extend(landing, captured | middle, jumps + 1, path);
            }
        }
        if !extended && jumps > 0 {
            self.push(at, captured, jumps, path);
        }
    }

    #[inline(always)]
    fn push(&mut self, at: u64, captured: u64, jumps: u8, path: u32) {
        self.sink.push(Move {
            from: self.from,
            to: at.trailing_zeros() as u8,
            jumps,
            path,
            captured,
        });
    }
}

/// Pushes every capture sequence of side `S` (`jumpers`: its pieces that can capture).
fn side_captures<S: Side>(pos: &Position, jumpers: u64, sink: &mut impl Sink) {
    let opponents = pos.pieces[1 - S::US];
    let empty = pos.empty_squares();
    side_man_captures::<S>(
        jumpers & !pos.kings,
        opponents,
        empty,
        |from, to, captured, path| {
            sink.push(Move {
                from: from.trailing_zeros() as u8,
                to: to.trailing_zeros() as u8,
                jumps: path.len() as u8,
                path: (0..path.len()).fold(0, |codes, k| {
                    codes | code::<S>(path.step(k), false) << (2 * k)
                }),
                captured,
            })
        },
    );
    let mut kings = jumpers & pos.kings;
    while kings != 0 {
        let bit = kings & kings.wrapping_neg();
        kings ^= bit;
        let mut search = KingCaptureSearch::<S, _> {
            from: bit.trailing_zeros() as u8,
            opponents,
            empty: empty | bit,
            sink: &mut *sink,
            side: PhantomData,
        };
        search.extend(bit, 0, 0, 0);
    }
}

/// Appends the capture moves of side `S` to move in `pos` (`jumpers`: its pieces that can
/// capture).
#[inline(always)]
pub(crate) fn side_capture_moves<S: Side>(
    pos: &Position,
    jumpers: u64,
    mode: CaptureMode,
    out: &mut Vec<Move>,
) {
    side_captures::<S>(pos, jumpers, out);
    // Only a king can capture along two paths with one effect.
    if mode == CaptureMode::Distinct && jumpers & pos.kings != 0 {
        remove_duplicate_paths(out);
    }
}

/// Pushes every non-capturing step of the side to move.
fn steps(pos: &Position, out: &mut Vec<Move>) {
    fn of<S: Side>(pos: &Position, out: &mut Vec<Move>) {
        let own = pos.pieces[S::US];
        side_steps::<S>(own, own & pos.kings, pos.empty_squares(), |from, to| {
            out.push(Move::step(
                from.trailing_zeros() as u8,
                to.trailing_zeros() as u8,
            ))
        })
    }
    for_side!(pos, of(pos, out))
}

/// Number of non-capturing steps of the side to move.
#[inline]
fn count_steps(pos: &Position) -> u64 {
    fn of<S: Side>(pos: &Position) -> u64 {
        side_step_count::<S>(pos.pieces[S::US], pos.kings, pos.empty_squares())
    }
    for_side!(pos, of(pos))
}

/// The directions of a man's jump sequence: at most 3 jumps (a man crosses at most 7 rows,
/// two per jump), each a shift by 4 or 5 toward the opponent.
#[derive(Clone, Copy)]
pub(crate) struct ManPath(u32);

impl ManPath {
    const EMPTY: ManPath = ManPath(0);

    /// Number of jumps.
    #[inline(always)]
    pub(crate) fn len(self) -> u32 {
        self.0 & 3
    }

    /// The shift (4 or 5) of jump `k`.
    #[inline(always)]
    pub(crate) fn step(self, k: u32) -> u32 {
        4 + ((self.0 >> (2 + k)) & 1)
    }

    #[inline(always)]
    fn then(self, n: u32) -> ManPath {
        ManPath((self.0 + 1) | ((n - 4) << (2 + self.len())))
    }
}

/// Calls `f(ends, path)` for the complete capture sequences of side `S`'s men on `men`, in
/// bulk: `ends` holds the final squares of all sequences that follow the same directions
/// `path`. Men only jump forward, so a sequence never meets its own captured pieces or
/// vacated squares again, and for one sequence of directions the squares reached stay
/// distinct.
#[inline(always)]
fn side_man_sequences<S: Side>(men: u64, opp: u64, empty: u64, mut f: impl FnMut(u64, ManPath)) {
    // Depth-first over direction sequences: the stack never holds more than 4 of them.
    let mut pending = [(0u64, ManPath::EMPTY); 4];
    pending[0].0 = men;
    let mut len = usize::from(men != 0);
    while len > 0 {
        len -= 1;
        let (set, path) = pending[len];
        for n in [4, 5] {
            let landings = S::ahead(S::ahead(set, n) & opp, n) & empty;
            let going_on = side_jumpers::<S>(landings & !S::KING_ROW, opp, 0, empty);
            let path = path.then(n);
            if landings & !going_on != 0 {
                f(landings & !going_on, path);
            }
            if going_on != 0 {
                pending[len] = (going_on, path);
                len += 1;
            }
        }
    }
}

/// Calls `f(from, to, captured, path)` (single bits and a set) for every capture sequence of
/// side `S`'s men on `men`.
#[inline(always)]
pub(crate) fn side_man_captures<S: Side>(
    men: u64,
    opp: u64,
    empty: u64,
    mut f: impl FnMut(u64, u64, u64, ManPath),
) {
    side_man_sequences::<S>(men, opp, empty, |mut ends, path| {
        while ends != 0 {
            let to = ends & ends.wrapping_neg();
            ends ^= to;
            let (mut at, mut captured) = (to, 0);
            for k in (0..path.len()).rev() {
                let middle = S::behind(at, path.step(k));
                captured |= middle;
                at = S::behind(middle, path.step(k));
            }
            f(at, to, captured, path);
        }
    });
}

/// Number of capture sequences of side `S`'s men on `men`.
#[inline(always)]
fn side_man_capture_count<S: Side>(men: u64, opp: u64, empty: u64) -> u64 {
    // Fast path: single jumps only (the common case).
    let near = S::ahead(S::ahead(men, 4) & opp, 4) & empty;
    let far = S::ahead(S::ahead(men, 5) & opp, 5) & empty;
    if side_jumpers::<S>((near | far) & !S::KING_ROW, opp, 0, empty) == 0 {
        return (near.count_ones() + far.count_ones()) as u64;
    }
    let mut total = 0;
    side_man_sequences::<S>(men, opp, empty, |ends, _| total += ends.count_ones() as u64);
    total
}

/// The position with side `S` to move holding `own` against `opp`.
#[inline(always)]
pub(crate) fn side_position<S: Side>(own: u64, opp: u64, kings: u64) -> Position {
    let mut pos = Position::empty(S::COLOR);
    pos.pieces[S::US] = own;
    pos.pieces[1 - S::US] = opp;
    pos.kings = kings;
    pos
}

/// Number of capture sequences of side `S` to move with `own` against `opp` (`jumpers`: its
/// pieces that can capture, non-zero). Men are counted in bulk; only kings are searched one
/// by one.
#[inline(always)]
pub(crate) fn side_capture_count<S: Side>(
    own: u64,
    opp: u64,
    kings: u64,
    jumpers: u64,
    mode: CaptureMode,
    scratch: &mut Vec<Move>,
) -> u64 {
    let empty = PLAYABLE & !(own | opp);
    let mut total = side_man_capture_count::<S>(jumpers & !kings, opp, empty);
    let king_jumpers = jumpers & kings;
    if king_jumpers != 0 {
        let pos = side_position::<S>(own, opp, kings);
        total += match mode {
            CaptureMode::Paths => {
                let mut counter = Counter(0);
                side_captures::<S>(&pos, king_jumpers, &mut counter);
                counter.0
            }
            CaptureMode::Distinct => {
                scratch.clear();
                side_captures::<S>(&pos, king_jumpers, scratch);
                remove_duplicate_paths(scratch);
                scratch.len() as u64
            }
        };
    }
    total
}

/// Removes capture sequences with the same effect as an earlier one (king loops only: two
/// paths with one captured set need at least four jumps).
fn remove_duplicate_paths(moves: &mut Vec<Move>) {
    let mut kept = 0;
    for i in 0..moves.len() {
        let mv = moves[i];
        let duplicate = mv.jumps >= 4 && moves[..kept].iter().any(|m| m.same_effect(&mv));
        if !duplicate {
            moves[kept] = mv;
            kept += 1;
        }
    }
    moves.truncate(kept);
}

impl Position {
    /// Clears `out` and fills it with the legal moves (captures only when one exists).
    pub fn generate_moves(&self, mode: CaptureMode, out: &mut Vec<Move>) {
        out.clear();
        let jumpers = jumpers(self);
        if jumpers != 0 {
            for_side!(self, side_capture_moves(self, jumpers, mode, out));
        } else {
            steps(self, out);
        }
    }

    /// The legal moves (distinct effects), as a new vector.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.generate_moves(CaptureMode::Distinct, &mut out);
        out
    }

    /// Number of legal moves, counted without building them where possible (`scratch` is
    /// used only for distinct captures).
    pub fn count_moves(&self, mode: CaptureMode, scratch: &mut Vec<Move>) -> u64 {
        let jumpers = jumpers(self);
        if jumpers == 0 {
            return count_steps(self);
        }
        let [black, white] = self.pieces;
        match self.side {
            Color::Black => {
                side_capture_count::<BlackSide>(black, white, self.kings, jumpers, mode, scratch)
            }
            Color::White => {
                side_capture_count::<WhiteSide>(white, black, self.kings, jumpers, mode, scratch)
            }
        }
    }

    /// Whether the side to move has a legal move.
    pub fn has_moves(&self) -> bool {
        jumpers(self) != 0 || count_steps(self) != 0
    }

    /// Whether the side to move must capture.
    pub fn must_capture(&self) -> bool {
        jumpers(self) != 0
    }
}

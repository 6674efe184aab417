//! Move generation: compulsory captures with free choice of sequence, complete multi-jumps,
//! crowning that ends the move, kings in all four directions.

use super::board::{king_row, Position};
use super::moves::{Move, STEPS};
use crate::game::Color;

/// How capture sequences that differ only in their path are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureMode {
    /// One move per (origin, destination, captured set): the moves a player chooses from.
    Distinct,
    /// Every jump path is a move (king loops can give two paths to one position): the
    /// published perft numbers count these.
    Paths,
}

/// Shifts `bits` by a signed step of the padded layout.
#[inline(always)]
fn shift(bits: u64, step: i8) -> u64 {
    if step > 0 {
        bits << step
    } else {
        bits >> -step
    }
}

/// The direction codes a man of `color` may use (toward the opponent's side).
#[inline(always)]
fn man_codes(color: Color) -> [usize; 2] {
    match color {
        Color::Black => [0, 1],
        Color::White => [2, 3],
    }
}

/// The pieces allowed to step or jump in direction `code`: all own pieces forward, kings only
/// backward.
#[inline(always)]
fn movers(pos: &Position, code: usize) -> u64 {
    let own = pos.pieces[pos.side.index()];
    if man_codes(pos.side).contains(&code) {
        own
    } else {
        own & pos.kings
    }
}

/// The pieces of the side to move that can capture.
#[inline]
pub(crate) fn jumpers(pos: &Position) -> u64 {
    let opp = pos.pieces[pos.side.opponent().index()];
    let empty = pos.empty_squares();
    let mut found = 0;
    for (code, &step) in STEPS.iter().enumerate() {
        found |= movers(pos, code) & shift(opp, -step) & shift(empty, -2 * step);
    }
    found
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

/// The fixed data of one piece's capture search.
struct CaptureSearch {
    from: u8,
    king: bool,
    opponents: u64,
    /// Empty squares, including the origin (a jumping piece leaves it).
    empty: u64,
    king_row: u64,
    codes: [usize; 4],
    code_count: usize,
}

impl CaptureSearch {
    /// Follows every continuation from `at`, pushing each complete sequence.
    fn extend<S: Sink>(&self, at: u8, captured: u64, jumps: u8, path: u32, sink: &mut S) {
        let mut extended = false;
        for &code in &self.codes[..self.code_count] {
            let step = STEPS[code] as i32;
            let land = at as i32 + 2 * step;
            if !(0..64).contains(&land) {
                continue;
            }
            let middle = 1u64 << (at as i32 + step);
            let landing = 1u64 << land;
            if self.opponents & middle & !captured == 0 || self.empty & landing == 0 {
                continue;
            }
            extended = true;
            let path = path | (code as u32) << (2 * jumps);
            let captured = captured | middle;
            if !self.king && landing & self.king_row != 0 {
                sink.push(self.finish(land as u8, captured, jumps + 1, path));
            } else {
                self.extend(land as u8, captured, jumps + 1, path, sink);
            }
        }
        if !extended && jumps > 0 {
            sink.push(self.finish(at, captured, jumps, path));
        }
    }

    #[inline(always)]
    fn finish(&self, to: u8, captured: u64, jumps: u8, path: u32) -> Move {
        Move {
            from: self.from,
            to,
            jumps,
            path,
            captured,
        }
    }
}

/// Pushes every capture sequence of the side to move (`jumpers` non-zero).
fn captures<S: Sink>(pos: &Position, mut jumpers: u64, sink: &mut S) {
    let side = pos.side;
    let opponents = pos.pieces[side.opponent().index()];
    let empty = pos.empty_squares();
    while jumpers != 0 {
        let from = jumpers.trailing_zeros() as u8;
        jumpers &= jumpers - 1;
        let bit = 1u64 << from;
        let king = pos.kings & bit != 0;
        let [a, b] = man_codes(side);
        let search = CaptureSearch {
            from,
            king,
            opponents,
            empty: empty | bit,
            king_row: king_row(side),
            codes: [a, b, a ^ 2, b ^ 2],
            code_count: if king { 4 } else { 2 },
        };
        search.extend(from, 0, 0, 0, sink);
    }
}

/// Pushes every non-capturing step of the side to move.
fn steps(pos: &Position, out: &mut Vec<Move>) {
    let empty = pos.empty_squares();
    for (code, &step) in STEPS.iter().enumerate() {
        let mut targets = shift(movers(pos, code), step) & empty;
        while targets != 0 {
            let to = targets.trailing_zeros() as i8;
            targets &= targets - 1;
            out.push(Move::step((to - step) as u8, to as u8));
        }
    }
}

/// Number of non-capturing steps of the side to move.
#[inline]
fn count_steps(pos: &Position) -> u64 {
    let empty = pos.empty_squares();
    STEPS
        .iter()
        .enumerate()
        .map(|(code, &step)| (shift(movers(pos, code), step) & empty).count_ones() as u64)
        .sum()
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
            captures(self, jumpers, out);
            if mode == CaptureMode::Distinct {
                remove_duplicate_paths(out);
            }
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
        match mode {
            CaptureMode::Paths => {
                let mut counter = Counter(0);
                captures(self, jumpers, &mut counter);
                counter.0
            }
            CaptureMode::Distinct => {
                self.generate_moves(mode, scratch);
                scratch.len() as u64
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

//! The six sides around a cell, in cyclic order: what local patterns (dead cells, move
//! patterns) read.

use super::state::Hex;
use crate::game::Color;

/// The offsets (dx, dy) of the six neighbours in cyclic order: sides `k` and `k + 2` are a
/// bridge apart, with the cell and side `k + 1` between them; side `k + 3` is opposite side
/// `k`; the reflection (x, y) -> (y, x) maps side `k` to side `5 - k`.
pub const CYCLE: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// What lies on one side of a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// An empty cell.
    Empty,
    /// A stone, or an edge (Black above and below, White left and right).
    Owned(Color),
    /// Off the board past an obtuse corner (neither colour's edge).
    Corner,
}

/// What lies at (x, y), which may be off the board.
pub fn side(game: &Hex, x: i32, y: i32) -> Side {
    let (w, h) = (game.width() as i32, game.height() as i32);
    let off_rows = y < 0 || y >= h;
    let off_cols = x < 0 || x >= w;
    match (off_rows, off_cols) {
        (true, true) => Side::Corner,
        (true, false) => Side::Owned(Color::Black),
        (false, true) => Side::Owned(Color::White),
        (false, false) => match game.stone(game.cell(x as usize, y as usize)) {
            Some(c) => Side::Owned(c),
            None => Side::Empty,
        },
    }
}

/// The on-board neighbours of `cell` with their side index, in the order of [`CYCLE`].
pub fn ring_neighbours(game: &Hex, cell: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (x, y) = game.xy(cell);
    let (w, h) = (game.width() as i32, game.height() as i32);
    CYCLE.iter().enumerate().filter_map(move |(k, &(dx, dy))| {
        let (nx, ny) = (x as i32 + dx, y as i32 + dy);
        (nx >= 0 && ny >= 0 && nx < w && ny < h).then(|| (k, game.cell(nx as usize, ny as usize)))
    })
}

/// The six sides of `cell` in the order of [`CYCLE`].
pub fn sides(game: &Hex, cell: usize) -> [Side; 6] {
    let (x, y) = game.xy(cell);
    CYCLE.map(|(dx, dy)| side(game, x as i32 + dx, y as i32 + dy))
}

//! The pattern playout: moves in random order, except that a stone played into one of the
//! other side's bridges (two stones, or a stone and its edge, with two empty common
//! neighbours) is answered at once in the bridge's other cell. Uniform fill playouts let
//! every bridge be cut half the time; a player who keeps its bridges makes the playout's
//! winner a much better estimate of who is ahead. Weighted, the playout also plays next to
//! the opponent's last move by the move patterns' local weights (the ring of six sides the
//! playout keeps for every cell), as strong players' replies so often are.

use super::move_patterns::MovePatterns;
use super::ring::{Side, CYCLE};
use super::state::{Hex, HexMove};
use super::{CellSet, MAX_CELLS};
use crate::game::{Color, Game};
use crate::rng::Rng;
use rand::Rng as _;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::OnceLock;

/// A side that is not a cell of the board.
const OFF_BOARD: u16 = u16::MAX;

/// A side of a ring pattern (two bits) that is an empty cell; a stone or edge of a colour
/// is [`code`] of the colour.
const EMPTY: u16 = 0;
/// A side of a ring pattern beyond a corner of the board: no one's.
const CORNER: u16 = 3;

/// The two-bit code of `color`'s stones and edges.
const fn code(color: Color) -> u16 {
    match color {
        Color::Black => 1,
        Color::White => 2,
    }
}

/// What side `k` (taken modulo 6) of a ring pattern holds.
const fn side(pattern: u16, k: usize) -> u16 {
    (pattern >> (2 * (k % 6))) & 3
}

/// For each ring pattern (two bits a side, side `k` at bits `2k`), the sides `k + 1` that are
/// empty between two sides `k` and `k + 2` holding `own`: the cells that restore a bridge
/// of `own` cut at the pattern's centre (bit `k + 1` of the answer).
const fn bridge_replies(own: u16) -> [u8; 4096] {
    let mut table = [0u8; 4096];
    let mut pattern: u16 = 0;
    while pattern < 4096 {
        let mut k = 0;
        while k < 6 {
            if side(pattern, k) == own
                && side(pattern, k + 2) == own
                && side(pattern, k + 1) == EMPTY
            {
                table[pattern as usize] |= 1 << ((k + 1) % 6);
            }
            k += 1;
        }
        pattern += 1;
    }
    table
}

/// [`bridge_replies`] of each colour, by [`Color::index`].
static BRIDGE_REPLIES: [[u8; 4096]; 2] = [
    bridge_replies(code(Color::Black)),
    bridge_replies(code(Color::White)),
];

/// Local weights by ring pattern: for each colour to move ([`Color::index`]), the move
/// patterns' weight of an empty cell next to the last move ([`MovePatterns::local_weight`]).
type LocalWeights = [[f32; 4096]; 2];

/// The built-in move patterns' [`LocalWeights`], made once.
fn local_weights() -> &'static LocalWeights {
    static TABLE: OnceLock<Box<LocalWeights>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let model = MovePatterns::built_in();
        let mut table = Box::new([[0f32; 4096]; 2]);
        for color in Color::BOTH {
            for (pattern, weight) in table[color.index()].iter_mut().enumerate() {
                let around: [Side; 6] = std::array::from_fn(|k| match side(pattern as u16, k) {
                    EMPTY => Side::Empty,
                    CORNER => Side::Corner,
                    held if held == code(Color::Black) => Side::Owned(Color::Black),
                    _ => Side::Owned(Color::White),
                });
                *weight = model.local_weight(&around, color) as f32;
            }
        }
        table
    })
}

/// The rings of one board size: each cell's six sides, and each cell's ring pattern on
/// the empty board (edges and corners only).
struct Rings {
    width: usize,
    height: usize,
    sides: Vec<[u16; 6]>,
    empty_board: Vec<u16>,
}

impl Rings {
    fn new(width: usize, height: usize) -> Rings {
        let (w, h) = (width as i32, height as i32);
        let mut sides = Vec::with_capacity(width * height);
        let mut empty_board = Vec::with_capacity(width * height);
        for y in 0..h {
            for x in 0..w {
                let mut ring = [OFF_BOARD; 6];
                let mut pattern = 0;
                for (k, &(dx, dy)) in CYCLE.iter().enumerate() {
                    let (nx, ny) = (x + dx, y + dy);
                    let held = match (ny < 0 || ny >= h, nx < 0 || nx >= w) {
                        (true, true) => CORNER,
                        (true, false) => code(Color::Black),
                        (false, true) => code(Color::White),
                        (false, false) => {
                            ring[k] = (ny * w + nx) as u16;
                            EMPTY
                        }
                    };
                    pattern |= held << (2 * k);
                }
                sides.push(ring);
                empty_board.push(pattern);
            }
        }
        Rings {
            width,
            height,
            sides,
            empty_board,
        }
    }

    /// The tables of a `width` x `height` board, made once per thread and size.
    fn of(width: usize, height: usize) -> Rc<Rings> {
        thread_local! {
            static LAST: RefCell<Option<Rc<Rings>>> = const { RefCell::new(None) };
        }
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            match &*last {
                Some(rings) if rings.width == width && rings.height == height => rings.clone(),
                _ => {
                    let rings = Rc::new(Rings::new(width, height));
                    *last = Some(rings.clone());
                    rings
                }
            }
        })
    }

    /// Records a stone of `color` on `cell` in its neighbours' patterns.
    #[inline]
    fn place(&self, patterns: &mut [u16], cell: usize, color: Color) {
        for (k, &neighbour) in self.sides[cell].iter().enumerate() {
            if neighbour != OFF_BOARD {
                patterns[neighbour as usize] |= code(color) << (2 * ((k + 3) % 6));
            }
        }
    }

    /// The cell that restores one of `mover`'s bridges after the opponent played
    /// `intruder` (one at random when several were cut at once), if any.
    #[inline]
    fn bridge_reply(
        &self,
        patterns: &[u16],
        mover: Color,
        intruder: usize,
        rng: &mut Rng,
    ) -> Option<usize> {
        let mut replies = BRIDGE_REPLIES[mover.index()][patterns[intruder] as usize];
        if replies == 0 {
            return None;
        }
        let count = replies.count_ones();
        if count > 1 {
            for _ in 0..rng.random_range(0..count) {
                replies &= replies - 1;
            }
        }
        Some(self.sides[intruder][replies.trailing_zeros() as usize] as usize)
    }

    /// A cell next to `last` drawn by `weights` (of each ring pattern), every other empty
    /// cell weighing 1; `None` when the draw falls outside `last`'s empty neighbours (or
    /// it has none). `empty` lists the empty cells, `slot` where each sits in it.
    #[inline]
    fn local_move(
        &self,
        patterns: &[u16],
        weights: &[f32; 4096],
        last: usize,
        empty: &[u16],
        slot: &[u16],
        rng: &mut Rng,
    ) -> Option<usize> {
        let mut cells = [0usize; 6];
        let mut cell_weights = [0f32; 6];
        let mut near = 0;
        let mut total = 0f32;
        for &neighbour in &self.sides[last] {
            let cell = neighbour as usize;
            let at = match slot.get(cell) {
                Some(&at) if neighbour != OFF_BOARD => at as usize,
                _ => continue,
            };
            if at < empty.len() && usize::from(empty[at]) == cell {
                let weight = weights[patterns[cell] as usize];
                cells[near] = cell;
                cell_weights[near] = weight;
                total += weight;
                near += 1;
            }
        }
        if near == 0 {
            return None;
        }
        let mut draw = rng.random::<f32>() * (total + (empty.len() - near) as f32);
        for k in 0..near {
            if draw < cell_weights[k] {
                return Some(cells[k]);
            }
            draw -= cell_weights[k];
        }
        None
    }
}

/// Fills every empty cell of `game` by the pattern playout (`weighted`: with the local
/// weights too), the side to move first, the game's last move counting as an intrusion;
/// returns the winner and Black's final stones.
pub fn bridge_playout(game: &Hex, rng: &mut Rng, weighted: bool) -> (Color, CellSet) {
    let weights = weighted.then(local_weights);
    let rings = Rings::of(game.width(), game.height());
    let count = game.cell_count();
    let mut patterns = [0u16; MAX_CELLS];
    patterns[..count].copy_from_slice(&rings.empty_board);
    // The empty cells, and where each sits in that list (for removal in constant time).
    let mut empty = [0u16; MAX_CELLS];
    let mut slot = [0u16; MAX_CELLS];
    let mut empties = 0;
    for (cell, position) in slot.iter_mut().enumerate().take(count) {
        match game.stone(cell) {
            Some(color) => rings.place(&mut patterns, cell, color),
            None => {
                empty[empties] = cell as u16;
                *position = empties as u16;
                empties += 1;
            }
        }
    }
    let mut black = game.board().stones(Color::Black);
    let mut mover = game.side_to_move();
    let mut last = match game.last_move() {
        Some((_, HexMove::Cell(cell))) => Some(cell as usize),
        _ => None,
    };
    while empties > 0 {
        let reply = last.and_then(|p| {
            rings.bridge_reply(&patterns, mover, p, rng).or_else(|| {
                let weights = &weights?[mover.index()];
                rings.local_move(&patterns, weights, p, &empty[..empties], &slot, rng)
            })
        });
        let i = match reply {
            Some(cell) => slot[cell] as usize,
            None => rng.random_range(0..empties as u32) as usize,
        };
        let cell = empty[i] as usize;
        empties -= 1;
        empty[i] = empty[empties];
        slot[empty[i] as usize] = i as u16;
        rings.place(&mut patterns, cell, mover);
        if mover == Color::Black {
            black.insert(cell);
        }
        last = Some(cell);
        mover = mover.opponent();
    }
    (game.board().fill_winner(&black), black)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hex::played;
    use crate::rng::seeded;

    #[test]
    fn an_intruded_bridge_is_always_restored() {
        // Black c2 and d3 are a bridge over c3 and d2, and White has just played d2: the
        // playout's first move (Black's) is c3. Black b2 reaches the top edge over b1 and
        // c1, and White has just played c1: Black answers b1.
        let cases: [(usize, &[&str], (usize, usize)); 2] = [
            (5, &["c2", "a5", "d3", "d2"], (2, 2)),
            (4, &["b2", "c1"], (1, 0)),
        ];
        for (size, moves, (x, y)) in cases {
            let g = played(size, moves);
            for (seed, weighted) in (0..50).zip([false, true].into_iter().cycle()) {
                let (_, black) = bridge_playout(&g, &mut seeded(seed), weighted);
                assert!(black.contains(g.cell(x, y)), "{moves:?} seed {seed}");
            }
        }
    }

    #[test]
    fn a_chain_of_bridges_wins_every_playout() {
        // Black b2, c3, d4: bridges b2-c3 and c3-d4, and edge bridges from b2 to the top
        // (over b1, c1) and from d4 to the bottom (over c5, d5), all carriers disjoint. A
        // player who answers every intrusion keeps the chain: Black wins every playout.
        let g = played(5, &["b2", "a3", "c3", "a4", "d4", "e1"]);
        for seed in 0..200 {
            let (winner, _) = bridge_playout(&g, &mut seeded(seed), false);
            assert_eq!(winner, Color::Black, "seed {seed}");
        }
        // Uniform fill playouts lose some of these games.
        let losses = (0..200)
            .filter(|&s| g.fill_playout(&mut seeded(s)).0 == Color::White)
            .count();
        assert!(losses > 0);
    }

    /// Who holds (x, y), board or beyond: a stone, an edge's colour, or nothing.
    fn holder(game: &Hex, x: i32, y: i32) -> Option<Color> {
        let (w, h) = (game.width() as i32, game.height() as i32);
        match (y < 0 || y >= h, x < 0 || x >= w) {
            (true, true) => None,
            (true, false) => Some(Color::Black),
            (false, true) => Some(Color::White),
            (false, false) => game.stone(game.cell(x as usize, y as usize)),
        }
    }

    #[test]
    fn ring_patterns_find_exactly_the_cut_bridges() {
        use crate::game::hex::geometry::NEIGHBOUR_OFFSETS;
        let mut rng = seeded(7);
        for (w, h) in [(6, 6), (5, 7), (1, 4), (9, 9)] {
            let rings = Rings::new(w, h);
            for _ in 0..40 {
                let mut game = Hex::new(w, h).unwrap();
                let mut patterns = rings.empty_board.clone();
                for cell in 0..w * h {
                    let stone = match rng.random_range(0..3) {
                        0 => Some(Color::Black),
                        1 => Some(Color::White),
                        _ => None,
                    };
                    game.set_stone(cell, stone);
                    if let Some(color) = stone {
                        rings.place(&mut patterns, cell, color);
                    }
                }
                for p in 0..w * h {
                    let (px, py) = game.xy(p);
                    let (px, py) = (px as i32, py as i32);
                    for mover in [Color::Black, Color::White] {
                        // By geometry: an empty neighbour q of p whose two common
                        // neighbours with p are both the mover's.
                        let mut want: Vec<usize> = NEIGHBOUR_OFFSETS
                            .iter()
                            .map(|&(dx, dy)| (px + dx, py + dy))
                            .filter(|&(qx, qy)| {
                                qx >= 0 && qy >= 0 && qx < w as i32 && qy < h as i32
                            })
                            .filter(|&(qx, qy)| holder(&game, qx, qy).is_none())
                            .filter(|&(qx, qy)| {
                                NEIGHBOUR_OFFSETS
                                    .iter()
                                    .map(|&(dx, dy)| (px + dx, py + dy))
                                    .filter(|&(cx, cy)| {
                                        NEIGHBOUR_OFFSETS.contains(&(cx - qx, cy - qy))
                                    })
                                    .all(|(cx, cy)| holder(&game, cx, cy) == Some(mover))
                            })
                            .map(|(qx, qy)| game.cell(qx as usize, qy as usize))
                            .collect();
                        want.sort_unstable();
                        let mask = BRIDGE_REPLIES[mover.index()][patterns[p] as usize];
                        let mut got: Vec<usize> = (0..6)
                            .filter(|k| mask >> k & 1 == 1)
                            .map(|k| rings.sides[p][k] as usize)
                            .collect();
                        got.sort_unstable();
                        assert_eq!(got, want, "{w}x{h} cell {p} {mover}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_cell_is_filled_in_turn() {
        let g = played(7, &["d4", "c5"]);
        for (seed, weighted) in (0..20).zip([false, true].into_iter().cycle()) {
            let (winner, black) = bridge_playout(&g, &mut seeded(seed), weighted);
            // Black to move takes ceil(47 / 2) of the empty cells, plus its d4.
            assert_eq!(black.len(), 24 + 1);
            let mut filled = g.clone();
            for cell in 0..49 {
                if g.stone(cell).is_none() {
                    let color = if black.contains(cell) {
                        Color::Black
                    } else {
                        Color::White
                    };
                    filled.set_stone(cell, Some(color));
                }
            }
            assert!(filled.board().connects(winner));
        }
    }

    #[test]
    fn local_weights_see_white_as_black_reflected() {
        // The reflection that shows White's position as Black's reverses the order of the
        // sides and swaps the colours.
        let swapped = |held: u16| match held {
            1 => 2,
            2 => 1,
            other => other,
        };
        let weights = local_weights();
        let mut differ = false;
        for pattern in 0..4096u16 {
            let mirrored = (0..6).fold(0u16, |m, k| m | swapped(side(pattern, 5 - k)) << (2 * k));
            assert_eq!(
                weights[0][pattern as usize], weights[1][mirrored as usize],
                "{pattern:012b}"
            );
            differ |= weights[0][pattern as usize] != weights[0][mirrored as usize];
        }
        assert!(differ, "the colours never matter: the test proves nothing");
    }

    #[test]
    fn local_moves_are_drawn_in_proportion_to_their_weights() {
        // White has just played d4 on an empty 7x7 board but for Black's c4: Black draws
        // among d4's six empty neighbours (by weight) and the 41 other empty cells (1 each).
        let g = played(7, &["c4", "d4"]);
        let rings = Rings::new(7, 7);
        let mut patterns = rings.empty_board.clone();
        let mut empty = Vec::new();
        let mut slot = vec![0u16; 49];
        for (cell, position) in slot.iter_mut().enumerate() {
            match g.stone(cell) {
                Some(color) => rings.place(&mut patterns, cell, color),
                None => {
                    *position = empty.len() as u16;
                    empty.push(cell as u16);
                }
            }
        }
        let last = g.parse_cell("d4").unwrap();
        let weights = &local_weights()[Color::Black.index()];
        let near: Vec<usize> = rings.sides[last]
            .iter()
            .map(|&n| n as usize)
            .filter(|&n| g.stone(n).is_none())
            .collect();
        assert_eq!(near.len(), 5, "c4 is one of d4's neighbours");
        let total: f64 = near
            .iter()
            .map(|&n| f64::from(weights[patterns[n] as usize]))
            .sum();
        let mut rng = seeded(3);
        let draws = 20_000;
        let mut counts = vec![0usize; 49];
        let mut outside = 0;
        for _ in 0..draws {
            match rings.local_move(&patterns, weights, last, &empty, &slot, &mut rng) {
                Some(cell) => counts[cell] += 1,
                None => outside += 1,
            }
        }
        let whole = total + (empty.len() - near.len()) as f64;
        for &n in &near {
            let expected = f64::from(weights[patterns[n] as usize]) / whole;
            let seen = counts[n] as f64 / draws as f64;
            assert!(
                (seen - expected).abs() < 0.015,
                "cell {n}: {seen} against {expected}"
            );
        }
        let expected = 1.0 - total / whole;
        let seen = outside as f64 / draws as f64;
        assert!((seen - expected).abs() < 0.015, "{seen} against {expected}");
        assert!(
            total > 5.0,
            "the local weights favour replies next to the last move"
        );
    }
}

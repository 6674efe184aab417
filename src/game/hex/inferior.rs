//! Inferior cells read from local patterns: dead cells, whose colour never matters, and
//! captured pairs, which one colour can fill without changing the game's value.
//!
//! The patterns read the six sides around a cell ([`ring::sides`]), an edge counting as a
//! stone of its colour:
//! - **dead**, four consecutive sides of one colour: the other two sides touch each other,
//!   so no connection needs the cell;
//! - **dead**, three consecutive sides of one colour and, opposite the middle one, a side of
//!   the other colour: each of the two sides left touches a side of either colour, so a stone
//!   on the cell joins nothing that is not joined already, for either colour;
//! - **captured pair** of colour X: two neighbouring empty cells, each dead once the other
//!   holds an X stone. When the opponent plays one, X answers in the other and the
//!   opponent's stone is dead, so X may fill both at once: the position keeps its value.
//!
//! Filling every dead cell (in either colour) and a set of captured pairs that share no cell
//! keeps the game's value: each pattern needs only stones and its own empty cells, so
//! filling other cells leaves it standing. A move on such a cell is therefore never the only
//! winning move ([`Inferior::cells`]).
//!
//! A cell is **vulnerable** when a stone of the opponent on a neighbour (its killer) would
//! leave it dead; the killer then wins for the side to move whenever the vulnerable cell
//! does ([`dominated_by_killers`]).

use super::ring::{ring_neighbours, sides, Side};
use super::state::Hex;
use crate::game::{Color, Game};

/// Whether six sides in cyclic order make their cell dead (see the module's introduction).
fn dead_ring(ring: &[Side; 6]) -> bool {
    (0..6).any(|start| {
        let Side::Owned(color) = ring[start] else {
            return false;
        };
        let at = |k: usize| ring[(start + k) % 6];
        let other = Side::Owned(color.opponent());
        at(1) == ring[start] && at(2) == ring[start] && (at(3) == ring[start] || at(4) == other)
    })
}

/// How many of the six sides `ring` hold a stone or an edge.
fn owned_sides(ring: &[Side; 6]) -> usize {
    ring.iter()
        .filter(|side| matches!(side, Side::Owned(_)))
        .count()
}

/// Whether the empty `cell` is dead.
pub fn is_dead(game: &Hex, cell: usize) -> bool {
    dead_ring(&sides(game, cell))
}

/// Whether a cell whose sides are `ring` is dead once its side `k` holds a `color` stone.
fn dead_with(mut ring: [Side; 6], k: usize, color: Color) -> bool {
    ring[k] = Side::Owned(color);
    dead_ring(&ring)
}

/// The empty neighbours of the empty `cell`, whose sides are `ring`, where a stone of
/// `color` leaves it dead.
fn killers_of(
    game: &Hex,
    cell: usize,
    ring: [Side; 6],
    color: Color,
) -> impl Iterator<Item = usize> + '_ {
    // Both dead patterns own four sides, so a cell with fewer than three owned has no killer.
    let crowded = owned_sides(&ring) >= 3;
    ring_neighbours(game, cell)
        .filter(move |&(k, _)| crowded && ring[k] == Side::Empty && dead_with(ring, k, color))
        .map(|(_, neighbour)| neighbour)
}

/// The empty neighbours of the empty `cell` where a stone of `color` leaves it dead.
pub fn killers(game: &Hex, cell: usize, color: Color) -> Vec<usize> {
    killers_of(game, cell, sides(game, cell), color).collect()
}

/// The moves among `moves` (empty cells, for the side to move) that another of them
/// dominates: a cell the opponent kills with a stone on a neighbour (its killer, which
/// leaves it dead) that is one of `moves` and is not killed by one of them itself. A
/// killer wins whenever the cell it kills wins, so a search may leave these out.
pub fn dominated_by_killers(game: &Hex, moves: &[u16]) -> Vec<u16> {
    let mut is_move = vec![false; game.cell_count()];
    for &m in moves {
        is_move[m as usize] = true;
    }
    let rings = moves.iter().map(|&m| (m as usize, sides(game, m as usize)));
    dominated_among(game, rings, |cell| is_move[cell])
        .into_iter()
        .map(|cell| cell as u16)
        .collect()
}

/// [`dominated_by_killers`] over the empty cells of `rings` (each with its sides) that
/// `is_move` accepts, every cell with a killer among them being one of `rings`.
fn dominated_among(
    game: &Hex,
    rings: impl Iterator<Item = (usize, [Side; 6])>,
    is_move: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let opponent = game.side_to_move().opponent();
    // The moves with a killer among the moves, each with those killers.
    let killed: Vec<(usize, Vec<usize>)> = rings
        .filter(|&(cell, _)| is_move(cell))
        .map(|(cell, ring)| {
            let killers = killers_of(game, cell, ring, opponent).filter(|&k| is_move(k));
            (cell, killers.collect::<Vec<usize>>())
        })
        .filter(|(_, killers)| !killers.is_empty())
        .collect();
    let is_killed = |cell: usize| killed.iter().any(|&(c, _)| c == cell);
    killed
        .iter()
        .filter(|(_, killers)| killers.iter().any(|&k| !is_killed(k)))
        .map(|&(cell, _)| cell)
        .collect()
}

/// The colour, if any, for which two neighbouring empty cells with sides `ring_a` and
/// `ring_b`, the second on side `k` of the first, are a captured pair (Black is asked first).
fn pair_owner(ring_a: [Side; 6], ring_b: [Side; 6], k: usize) -> Option<Color> {
    [Color::Black, Color::White]
        .into_iter()
        .find(|&color| dead_with(ring_a, k, color) && dead_with(ring_b, (k + 3) % 6, color))
}

/// The colour, if any, for which the neighbouring empty cells `a` and `b` are a captured
/// pair (Black is asked first).
pub fn captured_pair(game: &Hex, a: usize, b: usize) -> Option<Color> {
    let (k, _) = ring_neighbours(game, a).find(|&(_, n)| n == b)?;
    pair_owner(sides(game, a), sides(game, b), k)
}

/// Inferior cells of a position: its dead cells, and captured pairs that share no cell,
/// chosen in cell order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inferior {
    /// The empty cells that are dead.
    pub dead: Vec<usize>,
    /// Disjoint captured pairs with the colour that owns each.
    pub captured: Vec<(usize, usize, Color)>,
    /// The empty cells that are not dead and own at least three sides, with their sides:
    /// the cells of captured pairs and every cell with a killer are among them.
    crowded: Vec<(usize, [Side; 6])>,
}

impl Inferior {
    /// Every cell named: the dead cells and both cells of each captured pair. When one of
    /// them is a winning move for the side to move, so is some other empty cell, unless
    /// every empty cell is named (then the board's value is already settled by filling).
    pub fn cells(&self) -> impl Iterator<Item = usize> + '_ {
        self.dead
            .iter()
            .copied()
            .chain(self.captured.iter().flat_map(|&(a, b, _)| [a, b]))
    }

    /// [`dominated_by_killers`] on the position analysed, over the empty cells that
    /// `is_move` accepts, from the sides [`analyse`] read.
    pub fn dominated(&self, game: &Hex, is_move: impl Fn(usize) -> bool) -> Vec<usize> {
        dominated_among(game, self.crowded.iter().copied(), is_move)
    }
}

/// Finds the dead cells and a set of disjoint captured pairs of `game`'s empty cells.
pub fn analyse(game: &Hex) -> Inferior {
    let empty = game.board().empty_cells();
    let mut inferior = Inferior::default();
    let mut taken = vec![false; game.cell_count()];
    // A cell of a captured pair has at least three owned sides besides its partner.
    let mut crowded = vec![None; game.cell_count()];
    for cell in empty.iter() {
        let ring = sides(game, cell);
        if dead_ring(&ring) {
            inferior.dead.push(cell);
            taken[cell] = true;
        } else if owned_sides(&ring) >= 3 {
            crowded[cell] = Some(ring);
            inferior.crowded.push((cell, ring));
        }
    }
    for &(a, ring_a) in &inferior.crowded {
        if taken[a] {
            continue;
        }
        for (k, b) in ring_neighbours(game, a) {
            let Some(ring_b) = crowded[b] else {
                continue;
            };
            if b <= a || taken[b] {
                continue;
            }
            if let Some(color) = pair_owner(ring_a, ring_b, k) {
                inferior.captured.push((a, b, color));
                taken[a] = true;
                taken[b] = true;
                break;
            }
        }
    }
    inferior
}

/// `game` with its inferior cells filled, round after round (a filling can make new ones)
/// until none is left or the game is decided: dead cells get `dead_color`, captured pairs
/// their owner's colour; the side to move stays (the position alone, [`Hex::position`]).
/// `None` when no cell is inferior.
pub fn filled(game: &Hex, dead_color: Color) -> Option<Hex> {
    let me = game.side_to_move();
    let mut filled: Option<Hex> = None;
    loop {
        let inferior = {
            let board = filled.as_ref().unwrap_or(game);
            if board.outcome().is_some() {
                break;
            }
            analyse(board)
        };
        if inferior.dead.is_empty() && inferior.captured.is_empty() {
            break;
        }
        let next = filled.get_or_insert_with(|| game.position());
        let fills = inferior.dead.iter().map(|&cell| (cell, dead_color)).chain(
            inferior
                .captured
                .iter()
                .flat_map(|&(a, b, color)| [(a, color), (b, color)]),
        );
        for (cell, color) in fills {
            if next.outcome().is_some() {
                break;
            }
            next.place(color, cell).expect("an inferior cell is empty");
        }
        next.set_side_to_move(me);
    }
    filled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hex::played;

    #[test]
    fn four_sides_of_one_colour_make_a_dead_cell() {
        // Around b2: c2, c1, b1, a2, a3, b3. Black on c2, c1, b1 is three sides; b3 makes four.
        let g = played(5, &["b1", "e5", "c1", "e4", "c2", "e3"]);
        assert!(!is_dead(&g, g.cell(1, 1)));
        let g = played(5, &["b1", "e5", "c1", "e4", "c2", "e3", "b3"]);
        assert!(is_dead(&g, g.cell(1, 1)));
    }

    #[test]
    fn three_sides_and_the_opposite_side_of_the_other_colour_make_a_dead_cell() {
        // Around c3: d3, d2, c2, b3, b4, c4. Black on d3, d2, c2; White on b4, opposite d2.
        let g = played(5, &["c2", "b4", "d2", "e5", "d3"]);
        assert!(is_dead(&g, g.cell(2, 2)));
        // White on b3 instead: a White stone on c3 would join b3 to c4.
        let g = played(5, &["c2", "b3", "d2", "e5", "d3"]);
        assert!(!is_dead(&g, g.cell(2, 2)));
    }

    #[test]
    fn no_cell_of_an_empty_board_is_inferior() {
        let g = Hex::new(5, 5).unwrap();
        let inferior = analyse(&g);
        assert!(inferior.dead.is_empty() && inferior.captured.is_empty());
    }

    #[test]
    fn a_bridge_to_the_edge_is_captured() {
        // Black b2: b1 and c1, between it and the top edge, are each dead once the other
        // holds a Black stone.
        let g = played(5, &["b2", "e5"]);
        let (b1, c1) = (g.cell(1, 0), g.cell(2, 0));
        assert_eq!(captured_pair(&g, b1, c1), Some(Color::Black));
        assert!(analyse(&g).captured.contains(&(b1, c1, Color::Black)));
        // Black b3 is not next to them: nothing is captured.
        let g = played(5, &["b3", "e5"]);
        assert_eq!(captured_pair(&g, b1, c1), None);
    }
}

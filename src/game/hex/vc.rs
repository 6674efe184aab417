//! Virtual connections found by H-search (Anshelevich 2002), for one colour.
//!
//! The nodes are the colour's two edges, its groups of stones and the empty cells. A *full*
//! connection between two nodes with carrier C (a set of empty cells) holds whatever the
//! opponent does: every intrusion into C can be answered inside C. A *semi* connection needs
//! one more move of the colour, at its key (the key is part of its carrier). Built from:
//! - adjacency: neighbouring nodes are fully connected with an empty carrier;
//! - the AND rule: full connections x-z (carrier A) and z-y (carrier B) with A and B
//!   disjoint and neither holding the other's far end give x-y: a full connection with
//!   carrier A+B when z is a group of stones, a semi connection with key z and carrier
//!   A+B+z when z is an empty cell (not through the edges);
//! - the OR rule: semi connections between the same two nodes whose carriers have an empty
//!   common part give a full connection whose carrier is their union.
//!
//! Lists are kept bounded (eight full and sixteen semi carriers per pair, the smallest found
//! so far, the OR rule combining at most four semi connections) so that a search can afford
//! one H-search per node (with four and eight carriers, the first found, the solver expanded
//! four times as many positions of the 6x6 table and took twice the time). Boards of up to
//! [`MAX_CELLS`] cells (11x11) are supported: a carrier is one `u128`.

use super::state::Hex;
use crate::game::Color;
use std::collections::VecDeque;

/// The largest board (in cells) H-search handles.
pub const MAX_CELLS: usize = 128;

/// A set of cells (bit `c` = cell `c`).
pub type Carrier = u128;

/// Full connections kept per pair of nodes.
const FULL_PER_PAIR: usize = 8;
/// Semi connections kept per pair of nodes.
const SEMI_PER_PAIR: usize = 16;
/// Semi connections the OR rule combines at most.
const OR_DEPTH: usize = 4;

/// At most `N` carriers, kept inline (H-search makes thousands of lists a position).
#[derive(Clone, Copy)]
struct Carriers<const N: usize> {
    items: [Carrier; N],
    len: u8,
}

impl<const N: usize> Default for Carriers<N> {
    fn default() -> Self {
        Carriers {
            items: [0; N],
            len: 0,
        }
    }
}

impl<const N: usize> Carriers<N> {
    fn as_slice(&self) -> &[Carrier] {
        &self.items[..usize::from(self.len)]
    }

    /// Whether one of the carriers is a subset of `carrier`.
    fn any_within(&self, carrier: Carrier) -> bool {
        self.as_slice().iter().any(|&old| old & !carrier == 0)
    }

    /// Takes `carrier` unless one of the list lies within it: at the end while there is
    /// room, otherwise in place of the largest carrier when it is smaller. The index it
    /// took, if any.
    fn offer(&mut self, carrier: Carrier) -> Option<usize> {
        if self.any_within(carrier) {
            return None;
        }
        let len = usize::from(self.len);
        if len < N {
            self.items[len] = carrier;
            self.len += 1;
            return Some(len);
        }
        let (largest, size) = self
            .as_slice()
            .iter()
            .map(|c| c.count_ones())
            .enumerate()
            .max_by_key(|&(_, size)| size)?;
        (carrier.count_ones() < size).then(|| {
            self.items[largest] = carrier;
            largest
        })
    }
}

/// Node 0 and 1 are the colour's near and far edges.
const NEAR: u16 = 0;
const FAR: u16 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Edge,
    Group,
    Empty(u16),
}

/// The virtual connections of one colour in one position.
#[derive(Default)]
pub struct VirtualConnections {
    kinds: Vec<Kind>,
    /// Full connections of each node: (the other end, carrier).
    full_of: Vec<Vec<(u16, Carrier)>>,
    /// For each pair of nodes (`a * nodes + b`, `a < b`), its slot in `pairs`.
    slot_of: Vec<u32>,
    pairs: Vec<Pair>,
    queue: VecDeque<(u16, u16, Carrier)>,
    /// Unions the OR rule found (scratch).
    found: Vec<Carrier>,
    /// Whether the two edges are fully connected (the search then stops).
    connected: bool,
}

/// The connections known between one pair of nodes.
#[derive(Default)]
struct Pair {
    full: Carriers<FULL_PER_PAIR>,
    semi: Carriers<SEMI_PER_PAIR>,
    /// The key of each semi connection, in the order of `semi`.
    keys: [u16; SEMI_PER_PAIR],
}

const NO_SLOT: u32 = u32::MAX;

impl VirtualConnections {
    /// H-search for `color` on `game`; `None` on boards of more than [`MAX_CELLS`] cells.
    pub fn compute(game: &Hex, color: Color) -> Option<Self> {
        let mut vcs = VirtualConnections::default();
        vcs.search(game, color).then_some(vcs)
    }

    /// H-search for `color` on `game` into `self`, reusing its memory (a search makes
    /// thousands of pair lists); false on boards of more than [`MAX_CELLS`] cells.
    pub fn search(&mut self, game: &Hex, color: Color) -> bool {
        let cells = game.cell_count();
        if cells > MAX_CELLS {
            return false;
        }
        let (w, h) = (game.width(), game.height());
        let kinds = &mut self.kinds;
        kinds.clear();
        kinds.extend([Kind::Edge, Kind::Edge]);
        let mut node_of = [u16::MAX; MAX_CELLS];
        let mut stack = Vec::new();
        // Groups of the colour's stones, then the empty cells.
        for start in 0..cells {
            if game.stone(start) != Some(color) || node_of[start] != u16::MAX {
                continue;
            }
            let id = kinds.len() as u16;
            kinds.push(Kind::Group);
            stack.push(start);
            node_of[start] = id;
            while let Some(c) = stack.pop() {
                for n in game.neighbour_cells(c) {
                    if game.stone(n) == Some(color) && node_of[n] == u16::MAX {
                        node_of[n] = id;
                        stack.push(n);
                    }
                }
            }
        }
        for (cell, node) in node_of[..cells].iter_mut().enumerate() {
            if game.stone(cell).is_none() {
                *node = kinds.len() as u16;
                kinds.push(Kind::Empty(cell as u16));
            }
        }
        let nodes = kinds.len();
        self.full_of.iter_mut().for_each(Vec::clear);
        self.full_of.resize_with(nodes, Vec::new);
        self.slot_of.clear();
        self.slot_of.resize(nodes * nodes, NO_SLOT);
        self.pairs.clear();
        self.queue.clear();
        self.connected = false;
        let vcs = self;
        // Adjacency: cell to cell, and cells on the colour's edge rows to that edge.
        let rank = |x: usize, y: usize| if color == Color::Black { y } else { x };
        let last = if color == Color::Black { h - 1 } else { w - 1 };
        for cell in 0..cells {
            let a = node_of[cell];
            if a == u16::MAX {
                continue;
            }
            let (x, y) = game.xy(cell);
            for n in game.neighbour_cells(cell) {
                let b = node_of[n];
                if b != u16::MAX && b != a {
                    vcs.add_full(a, b, 0);
                }
            }
            if rank(x, y) == 0 {
                vcs.add_full(a, NEAR, 0);
            }
            if rank(x, y) == last {
                vcs.add_full(a, FAR, 0);
            }
        }
        vcs.run();
        true
    }

    /// The smallest carrier of a full connection between the two edges (the colour has won
    /// whatever the opponent plays), if one was found.
    pub fn edge_to_edge(&self) -> Option<Carrier> {
        self.pair(NEAR, FAR).and_then(|pair| {
            pair.full
                .as_slice()
                .iter()
                .copied()
                .min_by_key(|c| c.count_ones())
        })
    }

    /// The carriers (keys included) of the semi connections between the two edges: each is
    /// a move that would connect, with the cells that connection then needs.
    pub fn edge_to_edge_semis(&self) -> &[Carrier] {
        self.pair(NEAR, FAR)
            .map_or(&[], |pair| pair.semi.as_slice())
    }

    /// The key of a semi connection between the edges: a move that connects.
    pub fn winning_key(&self) -> Option<usize> {
        self.pair(NEAR, FAR)
            .filter(|pair| pair.semi.len > 0)
            .map(|pair| pair.keys[0] as usize)
    }

    fn pair(&self, a: u16, b: u16) -> Option<&Pair> {
        let slot = self.slot_of[self.pair_index(a, b)];
        (slot != NO_SLOT).then(|| &self.pairs[slot as usize])
    }

    fn pair_index(&self, a: u16, b: u16) -> usize {
        let (low, high) = (a.min(b) as usize, a.max(b) as usize);
        low * self.kinds.len() + high
    }

    fn pair_mut(&mut self, a: u16, b: u16) -> &mut Pair {
        let index = self.pair_index(a, b);
        if self.slot_of[index] == NO_SLOT {
            self.slot_of[index] = self.pairs.len() as u32;
            self.pairs.push(Pair::default());
        }
        &mut self.pairs[self.slot_of[index] as usize]
    }

    fn cell_bit(&self, node: u16) -> Carrier {
        match self.kinds[node as usize] {
            Kind::Empty(cell) => 1u128 << cell,
            _ => 0,
        }
    }

    fn add_full(&mut self, a: u16, b: u16, carrier: Carrier) {
        if self.pair_mut(a, b).full.offer(carrier).is_none() {
            return;
        }
        self.full_of[a as usize].push((b, carrier));
        self.full_of[b as usize].push((a, carrier));
        self.queue.push_back((a, b, carrier));
        if (a.min(b), a.max(b)) == (NEAR, FAR) {
            self.connected = true;
        }
    }

    fn add_semi(&mut self, a: u16, b: u16, carrier: Carrier, key: u16) {
        let pair = self.pair_mut(a, b);
        if pair.full.any_within(carrier) {
            return;
        }
        let Some(taken) = pair.semi.offer(carrier) else {
            return;
        };
        // The OR rule combines the newest carrier, kept last, with those before it.
        let last = usize::from(pair.semi.len) - 1;
        pair.semi.items.swap(taken, last);
        pair.keys[taken] = pair.keys[last];
        pair.keys[last] = key;
        let semis = pair.semi;
        let mut found = std::mem::take(&mut self.found);
        or_rule(
            semis.as_slice(),
            last,
            carrier,
            carrier,
            0,
            OR_DEPTH,
            &mut found,
        );
        for &union in &found {
            self.add_full(a, b, union);
        }
        found.clear();
        self.found = found;
    }

    /// Applies the AND rule to every new full connection until none is new.
    fn run(&mut self) {
        while let Some((x, y, carrier)) = self.queue.pop_front() {
            if self.connected {
                return;
            }
            for (mid, other) in [(x, y), (y, x)] {
                let through = self.kinds[mid as usize];
                if through == Kind::Edge {
                    continue;
                }
                let other_bit = self.cell_bit(other);
                for i in 0..self.full_of[mid as usize].len() {
                    let (end, next) = self.full_of[mid as usize][i];
                    if end == other
                        || carrier & next != 0
                        || next & other_bit != 0
                        || carrier & self.cell_bit(end) != 0
                    {
                        continue;
                    }
                    match through {
                        Kind::Group => self.add_full(other, end, carrier | next),
                        Kind::Empty(cell) => {
                            self.add_semi(other, end, carrier | next | 1u128 << cell, cell)
                        }
                        Kind::Edge => unreachable!("no AND rule through an edge"),
                    }
                }
            }
        }
    }
}

/// Searches for sets of semi carriers (`semis[..last]` added to the one at `last`) whose
/// common part is empty; each union found goes to `found`.
fn or_rule(
    semis: &[Carrier],
    last: usize,
    common: Carrier,
    union: Carrier,
    from: usize,
    depth: usize,
    found: &mut Vec<Carrier>,
) {
    if depth <= 1 {
        return;
    }
    for (j, &other) in semis.iter().enumerate().take(last).skip(from) {
        let narrowed = common & other;
        if narrowed == common {
            continue;
        }
        if narrowed == 0 {
            found.push(union | other);
        } else {
            or_rule(
                semis,
                last,
                narrowed,
                union | other,
                j + 1,
                depth - 1,
                found,
            );
        }
    }
}

/// The cells of a carrier in increasing order.
pub fn ones(carrier: Carrier) -> impl Iterator<Item = usize> {
    let mut rest = carrier;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let cell = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            cell
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hex::played;

    fn names(game: &Hex, carrier: Carrier) -> Vec<String> {
        ones(carrier).map(|c| game.cell_name(c)).collect()
    }

    fn vcs(game: &Hex, color: Color) -> VirtualConnections {
        VirtualConnections::compute(game, color).unwrap()
    }

    #[test]
    fn a_bridge_chain_with_edge_templates_is_a_full_connection() {
        let game = played(5, &["b2", "a5", "c3", "e1", "d4"]);
        let carrier = vcs(&game, Color::Black).edge_to_edge().unwrap();
        assert_eq!(carrier.count_ones(), 8, "{:?}", names(&game, carrier));
        assert!(vcs(&game, Color::White).edge_to_edge().is_none());
    }

    #[test]
    fn the_ziggurat_is_found() {
        // A black stone on the third row from the bottom of an empty 5x5 board, centre
        // column: the ziggurat (template IIIa) joins it to the bottom edge.
        let game = played(5, &["c3"]);
        let v = vcs(&game, Color::Black);
        let stone = v.kinds.iter().position(|&k| k == Kind::Group).unwrap() as u16;
        let to_far = v.pair(FAR, stone).expect("a full connection to the bottom");
        assert!(to_far.full.as_slice().iter().any(|c| c.count_ones() <= 8));
    }

    #[test]
    fn the_centre_of_3x3_is_one_move_from_winning() {
        let game = played(3, &["b2"]);
        let black = vcs(&game, Color::Black);
        assert!(black.edge_to_edge().is_some(), "b2 holds both edges on 3x3");
        let mut white_first = Hex::new(3, 3).unwrap();
        white_first.set_side_to_move(Color::White);
        let white = vcs(&white_first, Color::White);
        assert!(white.edge_to_edge().is_none());
        let key = white
            .winning_key()
            .expect("White's semi connection has a key");
        assert_eq!(game.cell_name(key), "b2");
    }

    #[test]
    fn a_full_list_keeps_its_smallest_carriers() {
        let mut list = Carriers::<2>::default();
        assert_eq!(list.offer(0b0111), Some(0));
        assert_eq!(list.offer(0b1_1000), Some(1));
        // A carrier holding one of the list is refused, full list or not.
        assert_eq!(list.offer(0b1111), None);
        // Full: a larger carrier is refused, a smaller one replaces the largest.
        assert_eq!(list.offer(0b1110_0000_0000), None);
        assert_eq!(list.offer(0b1_0000_0000), Some(0));
        assert_eq!(list.as_slice(), &[0b1_0000_0000, 0b1_1000]);
    }

    #[test]
    fn a_reused_search_finds_what_a_fresh_one_does() {
        // One object searched again and again (both colours, boards of two sizes, the
        // larger first) answers as a new object on each position.
        let mut reused = VirtualConnections::default();
        let mut rng = crate::rng::seeded(3);
        let mut found = 0;
        for round in 0..60 {
            let size = if round % 3 == 0 { 9 } else { 5 };
            let mut game = Hex::new(size, size).unwrap();
            crate::game::play_random_plies(&mut game, &mut rng, 4 + round % 12, |_, _| {});
            for color in Color::BOTH {
                assert!(reused.search(&game, color));
                let fresh = vcs(&game, color);
                assert_eq!(reused.edge_to_edge(), fresh.edge_to_edge());
                assert_eq!(reused.edge_to_edge_semis(), fresh.edge_to_edge_semis());
                assert_eq!(reused.winning_key(), fresh.winning_key());
                found +=
                    usize::from(fresh.edge_to_edge().is_some()) + fresh.edge_to_edge_semis().len();
            }
        }
        assert!(
            found >= 20,
            "only {found} edge-to-edge connections compared"
        );
        let too_large = Hex::new(12, 12).unwrap();
        assert!(!reused.search(&too_large, Color::Black));
        assert!(VirtualConnections::compute(&too_large, Color::White).is_none());
    }

    #[test]
    fn the_or_rule_needs_an_empty_common_part() {
        // Pairwise the three carriers meet; all three together have nothing in common.
        let semis = [0b011u128, 0b101, 0b110];
        let mut found = Vec::new();
        or_rule(&semis, 2, semis[2], semis[2], 0, 3, &mut found);
        assert_eq!(found, vec![0b111]);
        found.clear();
        or_rule(&semis, 2, semis[2], semis[2], 0, 2, &mut found);
        assert!(found.is_empty(), "two of them always share a cell");
        or_rule(&[0b0011, 0b1100], 1, 0b1100, 0b1100, 0, 2, &mut found);
        assert_eq!(found, vec![0b1111]);
    }
}

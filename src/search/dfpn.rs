//! A Hex solver: depth-first proof-number search (DFPN, Nagai 2002) with a transposition
//! table, the 1+epsilon threshold rule of Pawlewicz and Lew, and Hex knowledge at every
//! node from H-search ([`VirtualConnections`]): a side whose edges are joined by a full
//! connection has won, and so has the side to move when a semi connection joins them (its
//! key wins); the side to move must play inside the must-play region, the intersection over
//! the opponent's semi connections between its edges (found by H-search) of their carriers:
//! any other move lets the opponent connect. Inferior cells
//! ([`crate::game::hex::inferior`]: dead cells and captured pairs) are left out too: filling
//! them keeps the position's value, so another move is as good; so is a move that a killer
//! in the region dominates (a neighbour where the opponent's stone would leave it dead).
//!
//! The solver sees stones and the side to move only (no swap, no history), so its answers
//! are about the position on the board under the plain rules.

use crate::game::hex::inferior;
use crate::game::hex::vc::{ones, Carrier, VirtualConnections, MAX_CELLS};
use crate::game::hex::{Hex, HexMove};
use crate::game::{Color, Game};
use crate::search::{Deadline, Limits};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Proof and disproof numbers at or above this stand for infinity.
const INFINITE: u32 = 1 << 30;

/// Positions the table holds by default before it drops what is not proven.
pub const DEFAULT_TABLE_ENTRIES: usize = 4 << 20;

/// What the table knows of one position, from the side to move's view: `phi` is the proof
/// number of "the side to move wins", `delta` its disproof number.
#[derive(Clone, Debug)]
struct Entry {
    phi: u32,
    delta: u32,
    /// The moves worth trying (the must-play region, ordered), once the node was expanded.
    moves: Option<Rc<[u16]>>,
    /// A move that wins at once (it completes a chain), when there is one.
    winning: Option<u16>,
}

/// A position's status found when it is expanded.
enum Expansion {
    /// The side to move has won or wins with this move (`None`: already connected).
    Won(Option<u16>),
    /// The side to move has lost, or cannot stop every threat.
    Lost,
    /// Undecided: these are the moves to try.
    Open(Vec<u16>),
}

/// The answer of a solve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The winner under best play; `None` when the limits ended the search first.
    pub winner: Option<Color>,
    /// A winning move of the side to move, when it wins and has to move to do so.
    pub winning_move: Option<usize>,
    /// Nodes expanded by this solve.
    pub expansions: u64,
}

/// A DFPN solver for Hex; its table persists across solves (clear it with
/// [`Dfpn::clear`]), so related positions are solved faster one after another.
pub struct Dfpn {
    table: HashMap<u64, Entry>,
    max_entries: usize,
    expansions: u64,
    deadline: Deadline,
    node_limit: Option<u64>,
    stopped: bool,
}

impl Default for Dfpn {
    fn default() -> Self {
        Dfpn::new(DEFAULT_TABLE_ENTRIES)
    }
}

impl Dfpn {
    /// A solver whose table keeps at most about `max_entries` positions.
    pub fn new(max_entries: usize) -> Dfpn {
        Dfpn {
            table: HashMap::new(),
            max_entries: max_entries.max(1024),
            expansions: 0,
            deadline: Deadline::default(),
            node_limit: None,
            stopped: false,
        }
    }

    /// Whether the solver handles `game`'s board (at most 128 cells: up to 11x11); the
    /// error names the board otherwise.
    pub fn check_board(game: &Hex) -> Result<(), String> {
        if game.cell_count() <= MAX_CELLS {
            Ok(())
        } else {
            Err(format!(
                "the solver handles boards of up to {MAX_CELLS} cells, not {}x{}",
                game.width(),
                game.height()
            ))
        }
    }

    /// Forgets every position.
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// The number of positions in the table.
    pub fn table_entries(&self) -> usize {
        self.table.len()
    }

    /// Solves `game` for the side to move within `limits` (time, `nodes` = expansions,
    /// stop flag; none set means until solved).
    ///
    /// # Panics
    /// On boards of more than 128 cells (see [`Dfpn::check_board`]).
    pub fn solve(&mut self, game: &Hex, limits: &Limits) -> Proof {
        if let Err(error) = Dfpn::check_board(game) {
            panic!("{error}");
        }
        if let Some(outcome) = game.outcome() {
            return Proof {
                winner: outcome.winner,
                winning_move: None,
                expansions: 0,
            };
        }
        self.deadline = Deadline::of(limits);
        self.node_limit = limits.nodes;
        self.stopped = false;
        self.expansions = 0;
        let mut position = game.position();
        let me = position.side_to_move();
        let (phi, delta) = self.mid(&mut position, INFINITE - 1, INFINITE - 1);
        let winner = if phi == 0 {
            Some(me)
        } else if delta == 0 {
            Some(me.opponent())
        } else {
            None
        };
        let winning_move = if winner == Some(me) {
            self.winning_move(&mut position)
        } else {
            None
        };
        Proof {
            winner,
            winning_move,
            expansions: self.expansions,
        }
    }

    /// Each move of the side to move with its result for the mover (`Some(true)`: wins,
    /// `Some(false)`: loses, `None`: not solved within `limits`, which apply to each move).
    pub fn solve_moves(&mut self, game: &Hex, limits: &Limits) -> Vec<(usize, Option<bool>)> {
        let mut position = game.position();
        if position.outcome().is_some() {
            return Vec::new();
        }
        let me = position.side_to_move();
        let cells: Vec<usize> = position.board().empty_cells().iter().collect();
        cells
            .into_iter()
            .map(|cell| {
                position.place(me, cell).expect("an empty cell");
                let proof = self.solve(&position, limits);
                position.undo();
                (cell, proof.winner.map(|w| w == me))
            })
            .collect()
    }

    /// The moves of the side to move that the last [`Dfpn::solve`] of `game` did not prove
    /// to lose, among the must-play region (empty when every move loses or the root was
    /// not expanded).
    pub fn surviving_moves(&mut self, game: &Hex) -> Vec<usize> {
        let mut position = game.position();
        let Some(moves) = self
            .table
            .get(&position.hash())
            .and_then(|e| e.moves.clone())
        else {
            return Vec::new();
        };
        moves
            .iter()
            .filter(|&&cell| {
                position.play(HexMove::Cell(cell));
                let child_wins = self.table.get(&position.hash()).is_some_and(|e| e.phi == 0);
                position.undo();
                !child_wins
            })
            .map(|&c| c as usize)
            .collect()
    }

    /// The winning move at a proven win: the immediate one, or a child proven lost.
    fn winning_move(&mut self, game: &mut Hex) -> Option<usize> {
        let entry = self.table.get(&game.hash())?;
        if let Some(cell) = entry.winning {
            return Some(cell as usize);
        }
        let moves = entry.moves.clone()?;
        moves.iter().map(|&c| c as usize).find(|&cell| {
            game.play(HexMove::Cell(cell as u16));
            let lost = self.table.get(&game.hash()).is_some_and(|e| e.delta == 0);
            game.undo();
            lost
        })
    }

    /// Whether a limit is reached (an expansion costs far more than these checks).
    fn out_of_time(&mut self) -> bool {
        if !self.stopped {
            let spent = self.node_limit.is_some_and(|n| self.expansions >= n);
            self.stopped = spent || self.deadline.passed();
        }
        self.stopped
    }

    /// Multiple iterative deepening at one node: works below it until its proof number
    /// reaches `phi_limit` or its disproof number `delta_limit`; returns both numbers.
    fn mid(&mut self, game: &mut Hex, phi_limit: u32, delta_limit: u32) -> (u32, u32) {
        let hash = game.hash();
        let moves = match self.table.get(&hash).and_then(|e| e.moves.clone()) {
            Some(moves) => moves,
            None => {
                let (phi, delta) = self.table.get(&hash).map_or((1, 1), |e| (e.phi, e.delta));
                if phi == 0 || delta == 0 {
                    return (phi, delta);
                }
                self.expansions += 1;
                let (entry, moves) = match expand(game) {
                    Expansion::Won(winning) => (proven(true, winning), None),
                    Expansion::Lost => (proven(false, None), None),
                    Expansion::Open(moves) => {
                        let moves: Rc<[u16]> = moves.into();
                        let entry = Entry {
                            phi: 1,
                            delta: moves.len() as u32,
                            moves: Some(moves.clone()),
                            winning: None,
                        };
                        (entry, Some(moves))
                    }
                };
                let numbers = (entry.phi, entry.delta);
                self.store(hash, entry);
                match moves {
                    Some(moves) => moves,
                    None => return numbers,
                }
            }
        };
        loop {
            // phi = min over children of their delta; delta = sum of their phi.
            let mut phi = INFINITE;
            let mut delta = 0u32;
            let mut best = 0;
            let mut best_delta = INFINITE;
            let mut second_delta = INFINITE;
            let mut best_phi = 0;
            for (i, &cell) in moves.iter().enumerate() {
                let (c_phi, c_delta) = self.child_numbers(game, cell);
                if c_delta < best_delta {
                    second_delta = best_delta;
                    best_delta = c_delta;
                    best = i;
                    best_phi = c_phi;
                } else if c_delta < second_delta {
                    second_delta = c_delta;
                }
                phi = phi.min(c_delta);
                delta = (delta + c_phi).min(INFINITE);
            }
            if phi >= phi_limit || delta >= delta_limit || phi == 0 || delta == 0 {
                self.update(hash, phi, delta);
                return (phi, delta);
            }
            if self.out_of_time() {
                self.update(hash, phi, delta);
                return (phi, delta);
            }
            // The child's proof number may grow until the parent's disproof number reaches
            // its limit; its disproof number until it passes the second-best child (by a
            // factor 1 + 1/4, so the search does not flip between two children).
            let child_phi_limit = delta_limit - (delta - best_phi);
            let widened = second_delta.saturating_add(second_delta / 4 + 1);
            let child_delta_limit = phi_limit.min(widened).min(INFINITE - 1);
            game.play(HexMove::Cell(moves[best]));
            self.mid(game, child_phi_limit, child_delta_limit);
            game.undo();
        }
    }

    fn child_numbers(&mut self, game: &mut Hex, cell: u16) -> (u32, u32) {
        game.play(HexMove::Cell(cell));
        let numbers = self
            .table
            .get(&game.hash())
            .map_or((1, 1), |e| (e.phi, e.delta));
        game.undo();
        numbers
    }

    fn update(&mut self, hash: u64, phi: u32, delta: u32) {
        if let Some(entry) = self.table.get_mut(&hash) {
            entry.phi = phi;
            entry.delta = delta;
            if phi == 0 || delta == 0 {
                entry.moves = entry.moves.take().filter(|_| phi == 0);
            }
        }
    }

    fn store(&mut self, hash: u64, entry: Entry) {
        if self.table.len() >= self.max_entries {
            // Keep the proven results; the rest is cheap to find again.
            self.table.retain(|_, e| e.phi == 0 || e.delta == 0);
            if self.table.len() >= self.max_entries / 2 {
                self.table.clear();
            }
        }
        self.table.insert(hash, entry);
    }
}

fn proven(won: bool, winning: Option<u16>) -> Entry {
    Entry {
        phi: if won { 0 } else { INFINITE },
        delta: if won { INFINITE } else { 0 },
        moves: None,
        winning,
    }
}

/// What H-search proves about a position for the side to move (see the module's
/// introduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// The side to move has won or wins with this move (`None`: already connected).
    Won(Option<u16>),
    /// The side to move has lost, or cannot stop every threat.
    Lost,
    /// Undecided: every move outside this must-play region (empty cells) loses.
    MustPlay(Carrier),
}

thread_local! {
    /// H-search's memory for the side to move and its opponent, kept between positions.
    static SEARCHES: RefCell<[VirtualConnections; 2]> = RefCell::default();
}

/// Classifies `game` for the side to move by H-search for both colours (boards of up to
/// [`MAX_CELLS`] cells; the swap and the history are not seen), on the board with its
/// inferior cells filled ([`inferior::filled`]: dead cells for the opponent of the side to
/// move, captured pairs for their owner), which has the position's value: the must-play
/// region and a winning move found there hold for `game` too.
pub fn classify(game: &Hex) -> Status {
    classify_filled(game).0
}

/// [`classify`], with the filled board it read when `game` has inferior cells.
fn classify_filled(game: &Hex) -> (Status, Option<Hex>) {
    let me = game.side_to_move();
    if game.outcome().is_some() {
        return (Status::Lost, None);
    }
    let Some(filled) = inferior::filled(game, me.opponent()) else {
        return (classify_stones(game), None);
    };
    let status = match filled.outcome().map(|outcome| outcome.winner) {
        // Every move of the side to move keeps a won filling won.
        Some(Some(winner)) if winner == me => {
            let open = filled.board().empty_cells();
            let any = open
                .iter()
                .next()
                .or_else(|| game.board().empty_cells().iter().next());
            Status::Won(any.map(|c| c as u16))
        }
        Some(_) => Status::Lost,
        None => classify_stones(&filled),
    };
    (status, Some(filled))
}

/// [`classify`] on the stones as they are.
fn classify_stones(game: &Hex) -> Status {
    let me = game.side_to_move();
    SEARCHES.with_borrow_mut(|[mine, theirs]| {
        assert!(mine.search(game, me), "a supported board");
        if let Some(carrier) = mine.edge_to_edge() {
            // Any move keeps a full connection; one inside its carrier makes it more solid.
            let cell = ones(carrier)
                .next()
                .or_else(|| game.board().empty_cells().iter().next());
            return Status::Won(cell.map(|c| c as u16));
        }
        if let Some(key) = mine.winning_key() {
            return Status::Won(Some(key as u16));
        }
        assert!(theirs.search(game, me.opponent()), "a supported board");
        if theirs.edge_to_edge().is_some() {
            return Status::Lost;
        }
        let region = theirs
            .edge_to_edge_semis()
            .iter()
            .fold(Carrier::MAX, |region, &carrier| region & carrier);
        let empty = game
            .board()
            .empty_cells()
            .iter()
            .fold(0, |set: Carrier, c| set | 1 << c);
        match region & empty {
            0 => Status::Lost,
            region => Status::MustPlay(region),
        }
    })
}

/// Classifies the position for the side to move ([`classify`]) and orders the moves left:
/// centre first.
fn expand(game: &Hex) -> Expansion {
    // The region is found on the board with its inferior cells filled, so it holds none.
    let (status, filled) = classify_filled(game);
    let mut moves: Vec<u16> = match status {
        Status::Won(winning) => return Expansion::Won(winning),
        Status::Lost => return Expansion::Lost,
        Status::MustPlay(region) => ones(region).map(|c| c as u16).collect(),
    };
    // A move a killer inside the region dominates needs no search of its own: the killer
    // wins whenever it does. The filled board has the position's value after each move
    // of the region too (no pattern needs a cell of it), so its killers are the game's.
    let dominated = inferior::dominated_by_killers(filled.as_ref().unwrap_or(game), &moves);
    moves.retain(|c| !dominated.contains(c));
    let (w, h) = (game.width() as i32, game.height() as i32);
    moves.sort_by_key(|&c| {
        let (x, y) = game.xy(c as usize);
        let (dx, dy) = (2 * x as i32 - (w - 1), 2 * y as i32 - (h - 1));
        dx.abs() + dy.abs() + (dx + dy).abs()
    });
    Expansion::Open(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hex::played;

    #[test]
    fn a_won_position_names_its_winning_move() {
        // Black a1, a2 on 3x3, Black to move again after White's c1: a3 wins at once.
        let game = played(3, &["a1", "c1", "a2", "c2"]);
        let proof = Dfpn::default().solve(&game, &Limits::default());
        assert_eq!(proof.winner, Some(Color::Black));
        assert_eq!(
            proof.winning_move.map(|c| game.cell_name(c)),
            Some("a3".into())
        );
    }

    #[test]
    fn the_centre_wins_3x3_and_a_corner_loses() {
        let mut solver = Dfpn::default();
        let centre = played(3, &["b2"]);
        assert_eq!(
            solver.solve(&centre, &Limits::default()).winner,
            Some(Color::Black)
        );
        let corner = played(3, &["a1"]);
        assert_eq!(
            solver.solve(&corner, &Limits::default()).winner,
            Some(Color::White)
        );
    }

    #[test]
    fn a_node_limit_leaves_the_result_open() {
        let game = Hex::new(7, 7).unwrap();
        let limits = Limits {
            nodes: Some(10),
            ..Limits::default()
        };
        let proof = Dfpn::default().solve(&game, &limits);
        assert_eq!(proof.winner, None);
        assert_eq!(proof.expansions, 10);
    }
}

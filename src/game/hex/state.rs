//! The Hex game state: board, side to move, history for undo, swap rule, Zobrist hash, and
//! the incremental union-find that knows the winner after every stone.

use super::board::{Board, CellSet, MAX_CELLS};
use super::geometry::{self, MAX_SIDE};
use super::union_find::UnionFind;
use crate::game::{Color, Game, IllegalMove, MoveError, Outcome, ParseError, Reason};
use crate::rng::{self, Rng};
use rand::RngCore;
use std::sync::OnceLock;
use thiserror::Error;

/// Which swap rule is played (the pie rule; off by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SwapRule {
    /// No swap.
    #[default]
    Off,
    /// Benzene/MoHex: White may answer Black's first stone with [`HexMove::SwapPieces`]; the
    /// board does not change, the players exchange colours and White moves again.
    Benzene,
    /// HexGui 0.10: as move 2 White may play [`HexMove::SwapPieces`] (the stone is reflected
    /// (x,y)->(y,x) and turns white, then Black moves) or [`HexMove::SwapSides`] (the players
    /// exchange colours; board and side to move unchanged).
    HexGui,
}

/// Stone counts that no game reaches with the side to move given: each move adds one stone
/// of the mover's colour, so the side to move has as many stones as the other side, or one
/// fewer after HexGui's reflecting `swap-pieces` turned Black's first stone white.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "{black} black and {white} white stones with {to_move} to move: no game reaches that \
     (the side to move has as many stones as the other side, or one fewer after a swap)"
)]
pub struct UnreachableCounts {
    /// Black stones on the board.
    pub black: usize,
    /// White stones on the board.
    pub white: usize,
    /// The side to move.
    pub to_move: Color,
}

impl SwapRule {
    /// Every rule, in the order `param_game` lists them.
    pub const ALL: [SwapRule; 3] = [SwapRule::Off, SwapRule::Benzene, SwapRule::HexGui];

    /// The rule's name in `param_game swap_rule` and in records: `off`, `benzene`, `hexgui`.
    pub fn name(self) -> &'static str {
        match self {
            SwapRule::Off => "off",
            SwapRule::Benzene => "benzene",
            SwapRule::HexGui => "hexgui",
        }
    }

    /// The rule called `name` (any case).
    pub fn from_name(name: &str) -> Option<SwapRule> {
        SwapRule::ALL
            .into_iter()
            .find(|rule| rule.name().eq_ignore_ascii_case(name))
    }
}

/// A Hex move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HexMove {
    /// A stone on the cell with index `y * width + x`.
    Cell(u16),
    /// `swap-pieces` (meaning set by the [`SwapRule`]).
    SwapPieces,
    /// `swap-sides` (HexGui only).
    SwapSides,
    /// The side to move resigns.
    Resign,
}

/// One entry of the history: enough to take the move back exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    mover: Color,
    mv: HexMove,
    to_move_before: Color,
    /// Union-find unions made by the stone this step put down.
    unions: u16,
    /// A HexGui swap-pieces: the first stone was reflected and recoloured.
    reflected: bool,
}

/// A Hex game: a `width` x `height` board (Black joins top and bottom, White left and right,
/// Black moves first), the side to move, the move history and the swap rule.
#[derive(Clone, Debug)]
pub struct Hex {
    width: u8,
    height: u8,
    swap: SwapRule,
    board: Board,
    to_move: Color,
    history: Vec<Step>,
    /// Nodes `0..cells` are cells; then the four edges (see [`Hex::edge_node`]).
    groups: UnionFind,
    hash: u64,
}

/// Zobrist keys: one per (colour, cell), then one for White to move.
fn zobrist() -> &'static [u64] {
    static KEYS: OnceLock<Vec<u64>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = rng::seeded(0x4845_585a_4f42_5249);
        (0..2 * MAX_CELLS + 1).map(|_| rng.next_u64()).collect()
    })
}

fn stone_key(color: Color, cell: usize) -> u64 {
    zobrist()[color.index() * MAX_CELLS + cell]
}

fn white_to_move_key() -> u64 {
    zobrist()[2 * MAX_CELLS]
}

impl Hex {
    /// An empty `width` x `height` board, Black to move, swap off. Sides go from 1 to 63
    /// with at most [`MAX_CELLS`] cells (every board up to 19x19).
    pub fn new(width: usize, height: usize) -> Result<Hex, ParseError> {
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(ParseError::new(
                "board size",
                format!("{width}x{height}"),
                format!("each side must be 1 to {MAX_SIDE}"),
            ));
        }
        if width * height > MAX_CELLS {
            return Err(ParseError::new(
                "board size",
                format!("{width}x{height}"),
                format!("at most {MAX_CELLS} cells are supported"),
            ));
        }
        let cells = width * height;
        Ok(Hex {
            width: width as u8,
            height: height as u8,
            swap: SwapRule::Off,
            board: Board::new(width, height),
            to_move: Color::Black,
            history: Vec::new(),
            groups: UnionFind::new(cells + 4),
            hash: 0,
        })
    }

    /// The same game with swap rule `swap`.
    pub fn with_swap(mut self, swap: SwapRule) -> Hex {
        self.swap = swap;
        self
    }

    /// The swap rule in force.
    pub fn swap_rule(&self) -> SwapRule {
        self.swap
    }

    /// Changes the swap rule (a swap already played keeps its meaning for undo).
    pub fn set_swap_rule(&mut self, swap: SwapRule) {
        self.swap = swap;
    }

    /// Columns.
    pub fn width(&self) -> usize {
        self.width as usize
    }

    /// Rows.
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// `width * height`.
    pub fn cell_count(&self) -> usize {
        self.width() * self.height()
    }

    /// The index of cell (x, y).
    pub fn cell(&self, x: usize, y: usize) -> usize {
        y * self.width() + x
    }

    /// The (x, y) of a cell index.
    pub fn xy(&self, cell: usize) -> (usize, usize) {
        (cell % self.width(), cell / self.width())
    }

    /// The cells next to `cell` on the board.
    pub fn neighbour_cells(&self, cell: usize) -> impl Iterator<Item = usize> {
        let (x, y) = self.xy(cell);
        let w = self.width();
        geometry::neighbours(x, y, w, self.height()).map(move |(nx, ny)| ny * w + nx)
    }

    /// The lowercase name of a cell (`a1` top-left).
    pub fn cell_name(&self, cell: usize) -> String {
        let (x, y) = self.xy(cell);
        geometry::cell_name(x, y)
    }

    /// Parses a cell name (any case) on this board into its index.
    pub fn parse_cell(&self, text: &str) -> Result<usize, ParseError> {
        let (x, y) = geometry::parse_cell(text, self.width(), self.height())?;
        Ok(self.cell(x, y))
    }

    /// The stone on `cell`, if any.
    pub fn stone(&self, cell: usize) -> Option<Color> {
        self.board.get(cell)
    }

    /// The stones as bitsets.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The moves played since the start (or the last setup), with who played each.
    pub fn moves(&self) -> impl Iterator<Item = (Color, HexMove)> + '_ {
        self.history.iter().map(|s| (s.mover, s.mv))
    }

    /// The last move of the record and its colour (`None` at the record's start).
    pub fn last_move(&self) -> Option<(Color, HexMove)> {
        self.nth_last_move(0)
    }

    /// The move `n` steps before the last one (0: the last) and its colour.
    pub fn nth_last_move(&self, n: usize) -> Option<(Color, HexMove)> {
        let step = self.history.len().checked_sub(n + 1)?;
        let s = &self.history[step];
        Some((s.mover, s.mv))
    }

    /// The colour that has joined its edges, if any (from the union-find: O(log n)).
    pub fn winner(&self) -> Option<Color> {
        let cells = self.cell_count() as u16;
        Color::BOTH.into_iter().find(|&c| {
            let base = cells + 2 * c.index() as u16;
            self.groups.connected(base, base + 1)
        })
    }

    /// Whether `cell` holds a stone of `color` whose group touches the colour's first edge
    /// (`far` false: Black's top row, White's left column) or its second.
    pub fn group_touches_edge(&self, cell: usize, color: Color, far: bool) -> bool {
        self.stone(cell) == Some(color)
            && self
                .groups
                .connected(cell as u16, self.edge_node(color, far))
    }

    /// The maker-breaker fill test (see [`Board::has_lost`]): whether `color` has lost
    /// whatever is played, because even every empty cell would not connect it.
    pub fn has_lost(&self, color: Color) -> bool {
        self.board.has_lost(color)
    }

    /// A uniform random playout from here: fills every empty cell, the side to move getting
    /// ceil(e/2) of the `e` empty cells, each assignment equally likely (the same distribution
    /// as playing uniformly random moves to a full board). Returns the winner of the full
    /// board and Black's stones on it (for AMAF/RAVE statistics). Ignores resignations.
    pub fn fill_playout(&self, rng: &mut Rng) -> (Color, CellSet) {
        self.board.fill_playout(self.to_move, rng)
    }

    /// Puts a stone of `color` on `cell` without a turn-order check (protocol `play`: White
    /// may move first, a colour may move twice); the opponent of `color` moves next.
    pub fn place(&mut self, color: Color, cell: usize) -> Result<(), IllegalMove> {
        let illegal = |reason: &str| IllegalMove {
            mv: format!("{} {}", color, self.cell_name(cell)),
            reason: reason.to_string(),
        };
        if cell >= self.cell_count() {
            return Err(IllegalMove {
                mv: format!("{color} #{cell}"),
                reason: "off the board".into(),
            });
        }
        if self.outcome().is_some() {
            return Err(illegal("the game is over"));
        }
        if self.stone(cell).is_some() {
            return Err(illegal("occupied"));
        }
        let before = self.to_move;
        let unions = self.add_stone(cell, color);
        self.history.push(Step {
            mover: color,
            mv: HexMove::Cell(cell as u16),
            to_move_before: before,
            unions,
            reflected: false,
        });
        self.set_to_move(color.opponent());
        Ok(())
    }

    /// `color` resigns (whoever is to move).
    pub fn resign(&mut self, color: Color) -> Result<(), IllegalMove> {
        if self.outcome().is_some() {
            return Err(IllegalMove {
                mv: format!("{color} resign"),
                reason: "the game is over".into(),
            });
        }
        self.history.push(Step {
            mover: color,
            mv: HexMove::Resign,
            to_move_before: self.to_move,
            unions: 0,
            reflected: false,
        });
        Ok(())
    }

    /// Setup: puts `stone` (or nothing) on `cell` (which must be on the board) directly. The edited position becomes the
    /// new start of the record: the history is cleared, so undo stops here.
    pub fn set_stone(&mut self, cell: usize, stone: Option<Color>) {
        self.put_stone(cell, stone);
        self.rebuild_groups();
    }

    /// The position alone: the same stones and side to move, with no history and the swap
    /// off (a search's starting point, cheaper than a clone of the game).
    pub fn position(&self) -> Hex {
        Hex {
            width: self.width,
            height: self.height,
            swap: SwapRule::Off,
            board: self.board.clone(),
            to_move: self.to_move,
            history: Vec::new(),
            groups: self.groups.without_log(),
            hash: self.hash,
        }
    }

    /// Setup of the whole board at once: `stones[cell]` on every cell (one per cell of the
    /// board), as [`Hex::set_stone`] does one by one.
    pub fn set_stones(&mut self, stones: &[Option<Color>]) {
        assert_eq!(
            stones.len(),
            self.cell_count(),
            "one stone or none per cell"
        );
        for (cell, &stone) in stones.iter().enumerate() {
            self.put_stone(cell, stone);
        }
        self.rebuild_groups();
    }

    fn put_stone(&mut self, cell: usize, stone: Option<Color>) {
        if let Some(old) = self.stone(cell) {
            self.board.clear(cell);
            self.hash ^= stone_key(old, cell);
        }
        if let Some(color) = stone {
            self.board.put(cell, color);
            self.hash ^= stone_key(color, cell);
        }
    }

    /// Forgets the history and joins the groups of the stones on the board anew.
    fn rebuild_groups(&mut self) {
        self.history.clear();
        self.groups = UnionFind::new(self.cell_count() + 4);
        for color in Color::BOTH {
            for c in self.board.stones(color).iter().collect::<Vec<_>>() {
                self.join_groups(c, color);
            }
        }
        self.groups.forget_log();
    }

    /// Checks that a set-up position has stone counts some game reaches
    /// ([`UnreachableCounts`]).
    pub fn validate(&self) -> Result<(), UnreachableCounts> {
        let black = self.board.stones(Color::Black).len();
        let white = self.board.stones(Color::White).len();
        let (mover, other) = match self.to_move {
            Color::Black => (black, white),
            Color::White => (white, black),
        };
        if mover == other || mover + 1 == other {
            Ok(())
        } else {
            Err(UnreachableCounts {
                black,
                white,
                to_move: self.to_move,
            })
        }
    }

    /// Sets the side to move (setup).
    pub fn set_side_to_move(&mut self, color: Color) {
        self.set_to_move(color);
    }

    /// Whether the first-stone swap is open: move 2, White to move after one black stone.
    pub(crate) fn swap_open(&self) -> bool {
        self.swap != SwapRule::Off
            && self.to_move == Color::White
            && self.outcome().is_none()
            && matches!(
                self.history.as_slice(),
                [Step {
                    mover: Color::Black,
                    mv: HexMove::Cell(_),
                    ..
                }]
            )
    }

    /// The first stone's cell reflected in the long diagonal, when it lies on the board.
    fn reflected_first_stone(&self) -> Option<(usize, usize)> {
        let HexMove::Cell(cell) = self.history.first()?.mv else {
            return None;
        };
        let (x, y) = self.xy(cell as usize);
        (y < self.width() && x < self.height()).then(|| (cell as usize, self.cell(y, x)))
    }

    fn swap_moves(&self) -> impl Iterator<Item = HexMove> {
        let open = self.swap_open();
        let (pieces, sides) = match self.swap {
            SwapRule::Off => (false, false),
            SwapRule::Benzene => (open, false),
            SwapRule::HexGui => (open && self.reflected_first_stone().is_some(), open),
        };
        [
            pieces.then_some(HexMove::SwapPieces),
            sides.then_some(HexMove::SwapSides),
        ]
        .into_iter()
        .flatten()
    }

    fn edge_node(&self, color: Color, far: bool) -> u16 {
        (self.cell_count() + 2 * color.index() + far as usize) as u16
    }

    /// Unions `cell` (holding a `color` stone) with its same-coloured neighbours and edges;
    /// returns how many unions were made.
    fn join_groups(&mut self, cell: usize, color: Color) -> u16 {
        let (x, y) = self.xy(cell);
        let (w, h) = (self.width(), self.height());
        let (along, size) = match color {
            Color::Black => (y, h),
            Color::White => (x, w),
        };
        let mut unions = 0;
        for (edge, touches) in [(false, along == 0), (true, along + 1 == size)] {
            if touches {
                unions += self.groups.union(cell as u16, self.edge_node(color, edge)) as u16;
            }
        }
        for (nx, ny) in geometry::neighbours(x, y, w, h) {
            let n = ny * w + nx;
            if self.board.get(n) == Some(color) {
                unions += self.groups.union(cell as u16, n as u16) as u16;
            }
        }
        unions
    }

    fn add_stone(&mut self, cell: usize, color: Color) -> u16 {
        self.board.put(cell, color);
        self.hash ^= stone_key(color, cell);
        self.join_groups(cell, color)
    }

    fn remove_stone(&mut self, cell: usize, color: Color, unions: u16) {
        self.groups.rollback(unions as usize);
        self.board.clear(cell);
        self.hash ^= stone_key(color, cell);
    }

    fn set_to_move(&mut self, color: Color) {
        if self.to_move != color {
            self.hash ^= white_to_move_key();
            self.to_move = color;
        }
    }

    /// The hash recomputed from scratch (for checks).
    pub fn recompute_hash(&self) -> u64 {
        let mut hash = match self.to_move {
            Color::Black => 0,
            Color::White => white_to_move_key(),
        };
        for color in Color::BOTH {
            for cell in self.board.stones(color).iter() {
                hash ^= stone_key(color, cell);
            }
        }
        hash
    }

    fn illegal(&self, mv: HexMove, reason: &str) -> MoveError {
        MoveError::Illegal(IllegalMove {
            mv: self.move_to_text(mv),
            reason: reason.to_string(),
        })
    }
}

impl Game for Hex {
    type Move = HexMove;

    fn side_to_move(&self) -> Color {
        self.to_move
    }

    /// Empty cells, then the swap moves when open; resigning is legal but not listed.
    fn legal_moves(&self, moves: &mut Vec<HexMove>) {
        moves.clear();
        if self.outcome().is_some() {
            return;
        }
        moves.extend(
            self.board
                .empty_cells()
                .iter()
                .map(|c| HexMove::Cell(c as u16)),
        );
        moves.extend(self.swap_moves());
    }

    fn play(&mut self, mv: HexMove) {
        debug_assert!(
            self.outcome().is_none()
                && match mv {
                    HexMove::Cell(c) => self.stone(c as usize).is_none(),
                    HexMove::Resign => true,
                    swap => self.swap_moves().any(|m| m == swap),
                },
            "illegal move {mv:?}"
        );
        let mover = self.to_move;
        let mut step = Step {
            mover,
            mv,
            to_move_before: mover,
            unions: 0,
            reflected: false,
        };
        match mv {
            HexMove::Cell(cell) => {
                step.unions = self.add_stone(cell as usize, mover);
                self.set_to_move(mover.opponent());
            }
            HexMove::SwapPieces if self.swap == SwapRule::HexGui => {
                let (from, to) = self
                    .reflected_first_stone()
                    .expect("swap-pieces needs a reflectable first stone");
                let first_unions = self.history[0].unions;
                self.remove_stone(from, Color::Black, first_unions);
                self.history[0].unions = 0;
                step.unions = self.add_stone(to, Color::White);
                step.reflected = true;
                self.set_to_move(Color::Black);
            }
            HexMove::SwapPieces | HexMove::SwapSides | HexMove::Resign => {}
        }
        self.history.push(step);
    }

    fn undo(&mut self) -> Option<HexMove> {
        let step = self.history.pop()?;
        match step.mv {
            HexMove::Cell(cell) => self.remove_stone(cell as usize, step.mover, step.unions),
            HexMove::SwapPieces if step.reflected => {
                let (from, to) = self
                    .reflected_first_stone()
                    .expect("a reflected swap follows the first stone");
                self.remove_stone(to, Color::White, step.unions);
                self.history[0].unions = self.add_stone(from, Color::Black);
            }
            HexMove::SwapPieces | HexMove::SwapSides | HexMove::Resign => {}
        }
        self.set_to_move(step.to_move_before);
        Some(step.mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(Step {
            mv: HexMove::Resign,
            mover,
            ..
        }) = self.history.last()
        {
            return Some(Outcome::win(mover.opponent(), Reason::Resignation));
        }
        self.winner()
            .map(|winner| Outcome::win(winner, Reason::Connection))
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn move_to_text(&self, mv: HexMove) -> String {
        match mv {
            HexMove::Cell(cell) => self.cell_name(cell as usize),
            HexMove::SwapPieces => "swap-pieces".into(),
            HexMove::SwapSides => "swap-sides".into(),
            HexMove::Resign => "resign".into(),
        }
    }

    /// Accepts a cell name, `resign`, `swap-pieces`, `swap-sides`, and `swap` (the swap move
    /// the rule offers: swap-pieces for Benzene, swap-sides for HexGui).
    fn parse_move(&self, text: &str) -> Result<HexMove, MoveError> {
        let mv = match text.trim().to_ascii_lowercase().as_str() {
            "resign" => HexMove::Resign,
            "swap-pieces" => HexMove::SwapPieces,
            "swap-sides" => HexMove::SwapSides,
            "swap" if self.swap == SwapRule::HexGui => HexMove::SwapSides,
            "swap" => HexMove::SwapPieces,
            _ => HexMove::Cell(self.parse_cell(text)? as u16),
        };
        if self.outcome().is_some() {
            return Err(self.illegal(mv, "the game is over"));
        }
        match mv {
            HexMove::Cell(cell) if self.stone(cell as usize).is_some() => {
                Err(self.illegal(mv, "occupied"))
            }
            HexMove::SwapPieces | HexMove::SwapSides if !self.swap_moves().any(|m| m == mv) => {
                Err(self.illegal(
                    mv,
                    "swap is only for White as move 2, when the swap rule allows it",
                ))
            }
            _ => Ok(mv),
        }
    }

    fn position_text(&self) -> String {
        super::notation::position_text(self)
    }

    /// A side joined to both its edges by links with disjoint carriers (adjacent stones,
    /// bridges, edge templates) has won whatever is played
    /// ([`super::decided::virtually_connected`]).
    fn decided_winner(&self) -> Option<Color> {
        if self.outcome().is_some() {
            return None;
        }
        Color::BOTH
            .into_iter()
            .find(|&color| super::decided::virtually_connected(self, color))
    }

    fn from_position_text(text: &str) -> Result<Hex, ParseError> {
        super::notation::parse_position_text(text)
    }

    /// Hex playouts always end (no draws), so this fills the board at once with
    /// [`Hex::fill_playout`]; `None` only when `max_plies` is 0 and the game is not over.
    fn random_playout(&self, rng: &mut Rng, max_plies: usize) -> Option<Outcome> {
        if let Some(outcome) = self.outcome() {
            return Some(outcome);
        }
        if max_plies == 0 {
            return None;
        }
        let (winner, _) = self.fill_playout(rng);
        Some(Outcome::win(winner, Reason::Connection))
    }
}

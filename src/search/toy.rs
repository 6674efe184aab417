//! Tiny games for testing the searches before (and besides) the real games: tic-tac-toe
//! and an explicit game tree with fixed evaluator values.

use crate::eval::{EvalGame, Evaluator, Value};
use crate::game::{Color, Game, MoveError, Outcome, ParseError, Reason};
use crate::search::SearchGame;
use std::sync::Arc;

/// Tic-tac-toe; Black (X) moves first. Cells 0..9 row by row.
#[derive(Clone, Debug, Default)]
pub struct TicTacToe {
    cells: [Option<Color>; 9],
    history: Vec<u8>,
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl TicTacToe {
    /// The position after playing `cells` in order.
    pub fn from_moves(cells: &[u8]) -> TicTacToe {
        let mut game = TicTacToe::default();
        for &c in cells {
            game.play(c);
        }
        game
    }
}

impl Game for TicTacToe {
    type Move = u8;

    fn side_to_move(&self) -> Color {
        if self.history.len().is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }

    fn legal_moves(&self, moves: &mut Vec<u8>) {
        moves.clear();
        if self.outcome().is_none() {
            moves.extend((0..9).filter(|&c| self.cells[c as usize].is_none()));
        }
    }

    fn play(&mut self, mv: u8) {
        self.cells[mv as usize] = Some(self.side_to_move());
        self.history.push(mv);
    }

    fn undo(&mut self) -> Option<u8> {
        let mv = self.history.pop()?;
        self.cells[mv as usize] = None;
        Some(mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        for line in LINES {
            if let Some(c) = self.cells[line[0]] {
                if self.cells[line[1]] == Some(c) && self.cells[line[2]] == Some(c) {
                    return Some(Outcome::win(c, Reason::Connection));
                }
            }
        }
        (self.history.len() == 9).then(|| Outcome::draw(Reason::NoLegalMove))
    }

    fn hash(&self) -> u64 {
        self.cells
            .iter()
            .fold(self.history.len() as u64 % 2, |h, c| {
                h * 3
                    + match c {
                        None => 0,
                        Some(Color::Black) => 1,
                        Some(Color::White) => 2,
                    }
            })
    }

    fn move_to_text(&self, mv: u8) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<u8, MoveError> {
        text.parse()
            .ok()
            .filter(|&c: &u8| c < 9)
            .ok_or_else(|| ParseError::new("cell", text, "expected 0..8").into())
    }

    fn position_text(&self) -> String {
        format!("{:?}", self.history)
    }

    fn from_position_text(text: &str) -> Result<TicTacToe, ParseError> {
        let error = || ParseError::new("tic-tac-toe position", text, "expected [cell, ...]");
        let inner = text
            .trim()
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
            .ok_or_else(error)?;
        let cells: Vec<u8> = inner
            .split(',')
            .filter(|c| !c.trim().is_empty())
            .map(|c| c.trim().parse::<u8>().ok().filter(|&c| c < 9))
            .collect::<Option<_>>()
            .ok_or_else(error)?;
        Ok(TicTacToe::from_moves(&cells))
    }
}

impl EvalGame for TicTacToe {}
/// Moves are numbered by their cell (so RAVE keeps them in an array).
impl SearchGame for TicTacToe {
    fn move_slots(&self) -> usize {
        9
    }

    fn hash_after(&self, mv: u8) -> Option<u64> {
        let mut after = self.clone();
        after.play(mv);
        Some(after.hash())
    }

    fn move_slot(&self, mv: u8) -> Option<usize> {
        Some(usize::from(mv))
    }
}

/// A node of an explicit game tree: its children, or a result, and the evaluator's value
/// of the node for the side to move there.
#[derive(Clone, Debug)]
pub struct TreeNode {
    /// Child node ids (the moves).
    pub children: Vec<usize>,
    /// The finished game's winner (`Some(None)` a draw); `None` while not finished.
    pub result: Option<Option<Color>>,
    /// What the evaluator says for the side to move.
    pub value: f64,
}

/// A walk down an explicit tree; Black moves at even depths.
#[derive(Clone, Debug)]
pub struct TreeGame {
    tree: Arc<Vec<TreeNode>>,
    path: Vec<usize>,
    /// Nodes whose side to move is threatened ([`SearchGame::is_threatened`]).
    threatened: Arc<Vec<usize>>,
}

impl TreeGame {
    /// The game at the root (node 0) of `tree`.
    pub fn new(tree: Vec<TreeNode>) -> TreeGame {
        TreeGame {
            tree: Arc::new(tree),
            path: vec![0],
            threatened: Arc::new(Vec::new()),
        }
    }

    /// The same game where the side to move at the nodes `threatened` is threatened.
    pub fn with_threatened(mut self, threatened: Vec<usize>) -> TreeGame {
        self.threatened = Arc::new(threatened);
        self
    }

    fn node_id(&self) -> usize {
        *self.path.last().expect("the path holds the root")
    }

    fn node(&self) -> &TreeNode {
        &self.tree[self.node_id()]
    }
}

impl Game for TreeGame {
    type Move = usize;

    fn side_to_move(&self) -> Color {
        if self.path.len() % 2 == 1 {
            Color::Black
        } else {
            Color::White
        }
    }

    fn legal_moves(&self, moves: &mut Vec<usize>) {
        moves.clear();
        moves.extend(&self.node().children);
    }

    fn play(&mut self, mv: usize) {
        self.path.push(mv);
    }

    fn undo(&mut self) -> Option<usize> {
        (self.path.len() > 1).then(|| self.path.pop().expect("non-empty"))
    }

    fn outcome(&self) -> Option<Outcome> {
        self.node().result.map(|winner| Outcome {
            winner,
            reason: Reason::NoLegalMove,
        })
    }

    fn hash(&self) -> u64 {
        self.node_id() as u64
    }

    fn move_to_text(&self, mv: usize) -> String {
        mv.to_string()
    }

    fn parse_move(&self, text: &str) -> Result<usize, MoveError> {
        text.parse()
            .map_err(|_| ParseError::new("node", text, "expected a node id").into())
    }

    fn position_text(&self) -> String {
        format!("{:?}", self.path)
    }

    fn from_position_text(text: &str) -> Result<TreeGame, ParseError> {
        Err(ParseError::new(
            "tree position",
            text,
            "a path means nothing without its tree",
        ))
    }
}

impl EvalGame for TreeGame {}
impl SearchGame for TreeGame {
    fn is_threatened(&self) -> bool {
        self.threatened.contains(&self.node_id())
    }
}

/// Returns each tree node's fixed value.
pub struct TreeEval;

impl Evaluator<TreeGame> for TreeEval {
    fn evaluate(&self, positions: &[TreeGame]) -> Vec<Value> {
        positions
            .iter()
            .map(|p| Value::new(p.node().value))
            .collect()
    }
}

/// Scores tic-tac-toe positions as unclear (0.5) so only forced results count.
pub struct Neutral;

impl<G: Game> Evaluator<G> for Neutral {
    fn evaluate(&self, positions: &[G]) -> Vec<Value> {
        vec![Value::new(0.5); positions.len()]
    }
}

//! The game state [`Checkers`]: a position with its history (undo, repetition) and the
//! draw adjudication rules [`DrawRules`].

use super::board::Position;
use super::fen::{parse_fen, to_fen};
use super::movegen::CaptureMode;
use super::moves::Move;
use super::zobrist;
use crate::game::{Color, Game, IllegalMove, MoveError, Outcome, ParseError, Reason};
use crate::rng::Rng;
use rand::Rng as _;

/// CheckerBoard's adjudication limit: a draw after 79 consecutive plies without a capture or
/// a man move (crowning is a man move).
pub const CHECKERBOARD_NO_PROGRESS_PLIES: u32 = 79;

/// When a game is adjudicated a draw.
///
/// The default follows CheckerBoard: threefold repetition (same position, same side to move)
/// and [`CHECKERBOARD_NO_PROGRESS_PLIES`] plies without a capture or a man move. The rules'
/// "40 moves each" claim is `no_progress_plies: Some(80)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRules {
    /// Draw on the third occurrence of a position with the same side to move.
    pub threefold_repetition: bool,
    /// Draw once this many consecutive plies had no capture and no man move (`None`: never).
    pub no_progress_plies: Option<u32>,
}

impl Default for DrawRules {
    fn default() -> DrawRules {
        DrawRules {
            threefold_repetition: true,
            no_progress_plies: Some(CHECKERBOARD_NO_PROGRESS_PLIES),
        }
    }
}

impl DrawRules {
    /// No adjudication at all (games end only when a side cannot move).
    pub const NONE: DrawRules = DrawRules {
        threefold_repetition: false,
        no_progress_plies: None,
    };

    /// The draw declared after `no_progress` plies without a capture or a man move, with the
    /// current position seen `repetitions()` times (counted only when needed).
    pub fn adjudicate(
        &self,
        no_progress: u32,
        repetitions: impl FnOnce() -> usize,
    ) -> Option<Reason> {
        if self
            .no_progress_plies
            .is_some_and(|limit| no_progress >= limit)
        {
            Some(Reason::NoProgress)
        } else if self.threefold_repetition && repetitions() >= 3 {
            Some(Reason::Repetition)
        } else {
            None
        }
    }
}

/// The outcome in `position` given the draw adjudicated there: a side without moves loses.
fn outcome_in(position: &Position, draw: Option<Reason>) -> Option<Outcome> {
    if !position.has_moves() {
        let winner = position.side_to_move().opponent();
        return Some(Outcome::win(winner, Reason::NoLegalMove));
    }
    draw.map(Outcome::draw)
}

/// What is needed to take a move back.
#[derive(Clone, Debug)]
struct Played {
    before: Position,
    hash_before: u64,
    no_progress_before: u32,
    mv: Move,
}

/// An English checkers game: the position, the moves played, and draw adjudication.
#[derive(Clone, Debug)]
pub struct Checkers {
    position: Position,
    hash: u64,
    /// Consecutive plies without a capture or a man move.
    no_progress: u32,
    rules: DrawRules,
    history: Vec<Played>,
    /// The draw reached by adjudication in the current position, if any.
    draw: Option<Reason>,
}

impl Default for Checkers {
    fn default() -> Checkers {
        Checkers::new()
    }
}

impl Checkers {
    /// The standard start, Black to move, default draw rules.
    pub fn new() -> Checkers {
        Checkers::from_position(Position::start())
    }

    /// A game starting from `position` with default draw rules.
    pub fn from_position(position: Position) -> Checkers {
        Checkers {
            position,
            hash: zobrist::hash(&position),
            no_progress: 0,
            rules: DrawRules::default(),
            history: Vec::new(),
            draw: None,
        }
    }

    /// A game starting from a FEN.
    pub fn from_fen(fen: &str) -> Result<Checkers, ParseError> {
        parse_fen(fen).map(Checkers::from_position)
    }

    /// The same game under other draw rules.
    pub fn with_rules(mut self, rules: DrawRules) -> Checkers {
        self.rules = rules;
        self.draw = self.adjudicate();
        self
    }

    /// The draw rules in force.
    pub fn rules(&self) -> DrawRules {
        self.rules
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The position the game started from.
    pub fn start_position(&self) -> &Position {
        self.history.first().map_or(&self.position, |p| &p.before)
    }

    /// The moves played so far, in order.
    pub fn moves(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|p| p.mv)
    }

    /// Number of moves played so far.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// Consecutive plies without a capture or a man move.
    pub fn no_progress_plies(&self) -> u32 {
        self.no_progress
    }

    /// How often the current position (same side to move) occurred, this time included.
    pub fn repetitions(&self) -> usize {
        let n = self.history.len();
        let window = (self.no_progress as usize).min(n);
        1 + (2..=window)
            .step_by(2)
            .filter(|back| {
                let earlier = &self.history[n - back];
                earlier.hash_before == self.hash && earlier.before == self.position
            })
            .count()
    }

    fn adjudicate(&self) -> Option<Reason> {
        self.rules
            .adjudicate(self.no_progress, || self.repetitions())
    }

    fn is_legal(&self, mv: &Move) -> bool {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        moves.contains(mv)
    }
}

impl Game for Checkers {
    type Move = Move;

    fn side_to_move(&self) -> Color {
        self.position.side_to_move()
    }

    fn legal_moves(&self, moves: &mut Vec<Move>) {
        if self.draw.is_some() {
            moves.clear();
        } else {
            self.position.generate_moves(CaptureMode::Distinct, moves);
        }
    }

    fn play(&mut self, mv: Move) {
        debug_assert!(
            self.is_legal(&mv),
            "illegal move {mv:#} in {}",
            self.position
        );
        self.history.push(Played {
            before: self.position,
            hash_before: self.hash,
            no_progress_before: self.no_progress,
            mv,
        });
        self.hash ^= zobrist::move_delta(&self.position, &mv);
        self.no_progress = if self.position.is_progress(&mv) {
            0
        } else {
            self.no_progress + 1
        };
        self.position.apply(&mv);
        self.draw = self.adjudicate();
    }

    fn undo(&mut self) -> Option<Move> {
        let played = self.history.pop()?;
        self.position = played.before;
        self.hash = played.hash_before;
        self.no_progress = played.no_progress_before;
        self.draw = self.adjudicate();
        Some(played.mv)
    }

    fn outcome(&self) -> Option<Outcome> {
        outcome_in(&self.position, self.draw)
    }

    /// The same playout as the trait's default (same moves for the same generator state), on
    /// bare positions: no hashing and no history bookkeeping.
    fn random_playout(&self, rng: &mut Rng, max_plies: usize) -> Option<Outcome> {
        let mut position = self.position;
        let mut no_progress = self.no_progress;
        let mut draw = self.draw;
        // The positions since the last capture or man move, the current one last.
        let window = (self.no_progress as usize).min(self.history.len());
        let mut recent: Vec<Position> = self.history[self.history.len() - window..]
            .iter()
            .map(|p| p.before)
            .collect();
        recent.push(position);
        let mut moves = Vec::with_capacity(32);
        for _ in 0..max_plies {
            if draw.is_some() {
                break;
            }
            position.generate_moves(CaptureMode::Distinct, &mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            if position.is_progress(&mv) {
                no_progress = 0;
                recent.clear();
            } else {
                no_progress += 1;
            }
            position.apply(&mv);
            recent.push(position);
            draw = self.rules.adjudicate(no_progress, || {
                recent.iter().filter(|&&p| p == position).count()
            });
        }
        outcome_in(&position, draw)
    }

    fn hash(&self) -> u64 {
        self.hash
    }

    fn move_to_text(&self, mv: Move) -> String {
        self.position.move_text(&mv)
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        if let Some(reason) = self.draw {
            return Err(MoveError::Illegal(IllegalMove {
                mv: text.trim().to_string(),
                reason: format!("the game is over ({reason:?})"),
            }));
        }
        self.position.parse_move(text)
    }

    fn position_text(&self) -> String {
        to_fen(&self.position)
    }

    fn from_position_text(text: &str) -> Result<Checkers, ParseError> {
        Checkers::from_fen(text)
    }
}

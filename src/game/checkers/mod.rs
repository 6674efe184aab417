//! English checkers (American checkers, English draughts): rules, notation, records.
//!
//! - [`board`]: the bitboard [`Position`] and [`Piece`]s, squares numbered 1..32 as in
//!   CheckerBoard (Black on 1..12 moves first, toward higher numbers);
//! - [`movegen`]: legal moves ([`CaptureMode`] chooses distinct effects or every jump path);
//! - [`moves`]: the [`Move`] type; [`pdn`]: move text in and out;
//! - [`fen`] and [`digits`]: position strings; [`zobrist`]: hashing;
//! - [`state`]: the game state [`Checkers`] with [`DrawRules`];
//! - [`record`]: PDN game files; [`mod@perft`]: fast leaf counting.

pub mod board;
pub mod diagram;
pub mod digits;
pub mod endgame;
pub mod fen;
pub mod movegen;
pub mod moves;
pub mod pdn;
pub mod perft;
pub mod record;
pub mod state;
pub mod zobrist;

pub use board::{IllegalPosition, Piece, Position, MAX_PIECES};
pub use digits::{parse_digits, to_digits};
pub use fen::{parse_fen, to_fen};
pub use movegen::CaptureMode;
pub use moves::Move;
pub use perft::{perft, perft_divide, perft_parallel};
pub use record::{
    parse_pdn, read_pdn_file, save_pdn, write_pdn, GameError, PdnGame, PdnResult, ReplayError,
};
pub use state::{Checkers, DrawRules, CHECKERBOARD_NO_PROGRESS_PLIES};

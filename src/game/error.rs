//! Errors of the game layer: text that does not parse, and moves that are not legal.

use thiserror::Error;

/// Text that could not be parsed: what was being read, the offending part, and why.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad {what} '{part}': {message}")]
pub struct ParseError {
    /// What was being parsed (`FEN`, `cell`, `PDN move`, ...).
    pub what: &'static str,
    /// The offending part of the input (or a location such as `line 3`).
    pub part: String,
    /// Why it was rejected.
    pub message: String,
}

impl ParseError {
    /// A parse error about `part` of a `what`.
    pub fn new(what: &'static str, part: impl Into<String>, message: impl Into<String>) -> Self {
        ParseError {
            what,
            part: part.into(),
            message: message.into(),
        }
    }
}

/// A well-formed move that is not legal in the position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("illegal move {mv}: {reason}")]
pub struct IllegalMove {
    /// The move as given.
    pub mv: String,
    /// Why it is illegal (`occupied`, `a capture is compulsory`, ...).
    pub reason: String,
}

/// Either kind of move error.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MoveError {
    /// The text is not a move.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The move is not legal here.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
}

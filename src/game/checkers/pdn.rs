//! PDN move text: writing `11-15`, `22x15` (or the full path `24x15x6` when needed) and
//! reading move text against the legal moves of a position.

use super::board::Position;
use super::movegen::CaptureMode;
use super::moves::Move;
use crate::game::{IllegalMove, MoveError, ParseError};

/// The squares of a move text (`11-15`, `22x15`, `24x15x6`; `-` and `x` alike, any case).
pub fn parse_squares(text: &str) -> Result<Vec<u8>, ParseError> {
    let trimmed = text.trim();
    let squares = trimmed
        .split(['-', 'x', 'X'])
        .map(|part| match part.trim().parse::<u8>() {
            Ok(n) if (1..=32).contains(&n) => Ok(n),
            _ => Err(ParseError::new(
                "PDN move",
                trimmed,
                format!("'{part}' is not a square number 1..32"),
            )),
        })
        .collect::<Result<Vec<u8>, ParseError>>()?;
    if squares.len() < 2 {
        return Err(ParseError::new(
            "PDN move",
            trimmed,
            "expected at least two squares like 11-15 or 22x15",
        ));
    }
    Ok(squares)
}

/// Whether the move's path starts and ends on the given squares and passes through the
/// others in order.
fn path_contains(mv: &Move, given: &[u8]) -> bool {
    let path = mv.squares();
    let (first, last) = (given[0], given[given.len() - 1]);
    if path[0] != first || path[path.len() - 1] != last {
        return false;
    }
    let mut inner = path[1..path.len() - 1].iter();
    given[1..given.len() - 1]
        .iter()
        .all(|square| inner.any(|s| s == square))
}

impl Position {
    /// The PDN text of `mv` (a legal move): from and to, with the full path only when another
    /// legal move has the same origin and destination.
    pub fn move_text(&self, mv: &Move) -> String {
        let ambiguous = self
            .legal_moves()
            .iter()
            .any(|m| m.from == mv.from && m.to == mv.to && !m.same_effect(mv));
        if ambiguous {
            format!("{mv:#}")
        } else {
            mv.to_string()
        }
    }

    /// Reads PDN move text and finds the legal move it names: the one whose path contains
    /// every given square in order (paths with the same effect count as one move), or, among
    /// several, the one whose whole path is exactly the text.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let given = parse_squares(text)?;
        let illegal = |reason: String| {
            MoveError::Illegal(IllegalMove {
                mv: text.trim().to_string(),
                reason,
            })
        };
        let mut paths = Vec::new();
        self.generate_moves(CaptureMode::Paths, &mut paths);
        let legal = self.legal_moves();
        let mut matched: Vec<Move> = Vec::new();
        for mv in paths.iter().filter(|m| path_contains(m, &given)) {
            if !matched.iter().any(|m| m.same_effect(mv)) {
                matched.push(*mv);
            }
        }
        // A text that is some move's whole path names that move, even when a longer path
        // (a king's loop back through the same squares) also contains it.
        if matched.len() > 1 {
            if let Some(exact) = matched.iter().find(|m| m.squares() == given) {
                matched = vec![*exact];
            }
        }
        match matched.as_slice() {
            [one] => Ok(*legal
                .iter()
                .find(|m| m.same_effect(one))
                .expect("every path has a distinct representative")),
            [] if legal.is_empty() => Err(illegal("the side to move has no legal move".into())),
            [] if self.must_capture() => Err(illegal(format!(
                "a capture is compulsory ({})",
                legal
                    .iter()
                    .map(|m| self.move_text(m))
                    .collect::<Vec<_>>()
                    .join(" ")
            ))),
            [] => Err(illegal("no legal move goes that way".into())),
            several => Err(illegal(format!(
                "ambiguous: {}; give the full path",
                several
                    .iter()
                    .map(|m| format!("{m:#}"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ))),
        }
    }
}

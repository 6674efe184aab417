//! Seed 001's console board format: 8 lines of 4 digits, the top line squares 1..4;
//! `0` empty, `1` black man, `2` black king, `3` white man, `4` white king.

use super::board::{Piece, Position};
use crate::game::{Color, ParseError};

const WHAT: &str = "digit board";

/// The board as 8 lines of 4 digits (lines joined by `\n`, no trailing newline).
pub fn to_digits(pos: &Position) -> String {
    let lines: Vec<String> = (0..8u8)
        .map(|row| {
            (1..=4u8)
                .map(|col| {
                    let code = pos.piece_at(4 * row + col).map_or(0, |p| p.index() + 1);
                    char::from(b'0' + code as u8)
                })
                .collect()
        })
        .collect();
    lines.join("\n")
}

/// Reads 32 digits (8 lines of 4, or all on one line; whitespace between digits is ignored)
/// with `side` to move; a board no game reaches is refused as by [`Position::from_squares`].
pub fn parse_digits(text: &str, side: Color) -> Result<Position, ParseError> {
    let mut pieces = Vec::new();
    let mut square = 0u8;
    for (line_number, line) in text.lines().enumerate() {
        for (column, c) in line.chars().enumerate() {
            if c.is_whitespace() {
                continue;
            }
            let at = format!("line {}, column {}", line_number + 1, column + 1);
            let piece = match c.to_digit(10) {
                Some(0) => None,
                Some(d @ 1..=4) => Piece::from_index(d as usize - 1),
                _ => {
                    let message = format!("expected a digit 0..4 ({at})");
                    return Err(ParseError::new(WHAT, c.to_string(), message));
                }
            };
            if square == 32 {
                return Err(ParseError::new(
                    WHAT,
                    c.to_string(),
                    format!("more than 32 squares ({at})"),
                ));
            }
            square += 1;
            pieces.extend(piece.map(|p| (square, p)));
        }
    }
    if square != 32 {
        return Err(ParseError::new(
            WHAT,
            text.trim(),
            format!("expected 32 squares, found {square}"),
        ));
    }
    Position::from_squares(side, pieces).map_err(|e| e.in_text(WHAT, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_in_digits() {
        let digits = to_digits(&Position::start());
        assert_eq!(digits, "1111\n1111\n1111\n0000\n0000\n3333\n3333\n3333");
        assert_eq!(parse_digits(&digits, Color::Black), Ok(Position::start()));
        let one_line = digits.replace('\n', "");
        assert_eq!(parse_digits(&one_line, Color::Black), Ok(Position::start()));
    }

    #[test]
    fn kings_and_errors() {
        let pos = parse_digits("2000 0000 0000 0000 0000 0000 0000 0004", Color::White).unwrap();
        assert_eq!(pos.piece_at(1), Some(Piece::King(Color::Black)));
        assert_eq!(pos.piece_at(32), Some(Piece::King(Color::White)));
        assert_eq!(pos.side_to_move(), Color::White);
        assert!(parse_digits("1111", Color::Black)
            .unwrap_err()
            .message
            .contains("found 4"));
        let err = parse_digits("1115\n", Color::Black).unwrap_err();
        assert_eq!(err.part, "5");
        assert!(err.message.contains("line 1, column 4"), "{err}");
        assert!(parse_digits(&"0".repeat(33), Color::Black).is_err());
    }
}

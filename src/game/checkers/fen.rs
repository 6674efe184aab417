//! Position strings in CheckerBoard's PDN FEN style: `B:W21,22,...,32:B1,...,12`.
//!
//! The writer gives the side to move, then White's list, then Black's, squares ascending,
//! `K` before a king, no trailing dot. The reader is tolerant: any case, surrounding quotes,
//! junk before the side letter that precedes the first `:` (so a pasted `[FEN "..."]` tag
//! line reads too), lists in either order, ranges (`B1-12`, `WK1-3`), spaces after commas, a
//! trailing dot.

use super::board::{Piece, Position};
use crate::game::{Color, ParseError};
use std::fmt::Write as _;

const WHAT: &str = "FEN";

/// The FEN of `pos` as CheckerBoard writes it.
pub fn to_fen(pos: &Position) -> String {
    let side = match pos.side_to_move() {
        Color::Black => 'B',
        Color::White => 'W',
    };
    let mut out = String::new();
    out.push(side);
    for color in [Color::White, Color::Black] {
        out.push(':');
        out.push(if color == Color::White { 'W' } else { 'B' });
        let mut first = true;
        for square in 1..=32u8 {
            if let Some(piece) = pos.piece_at(square) {
                if piece.color() == color {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    let king = if piece.is_king() { "K" } else { "" };
                    let _ = write!(out, "{king}{square}");
                }
            }
        }
    }
    out
}

/// Reads a FEN (tolerantly, see the module documentation).
pub fn parse_fen(text: &str) -> Result<Position, ParseError> {
    // Quotes, a trailing dot and the end of a pasted tag line (`"]`) are not part of it.
    let trimmed = text
        .trim()
        .trim_start_matches(['"', '\''])
        .trim_end_matches(|c: char| "\"'].".contains(c) || c.is_whitespace());
    let Some((head, lists)) = trimmed.split_once(':') else {
        return Err(ParseError::new(
            WHAT,
            text,
            "no ':' after the side to move (expected like B:W21,...,32:B1,...,12)",
        ));
    };
    let side = match head
        .trim_end()
        .chars()
        .last()
        .map(|c| c.to_ascii_uppercase())
    {
        Some('B') => Color::Black,
        Some('W') => Color::White,
        _ => {
            return Err(ParseError::new(
                WHAT,
                head,
                "the side to move before the first ':' must be B or W",
            ))
        }
    };
    let mut pieces = Vec::new();
    let mut seen = [false; 2];
    for section in lists.split(':').map(str::trim).filter(|s| !s.is_empty()) {
        let color = match section.chars().next().map(|c| c.to_ascii_uppercase()) {
            Some('W') => Color::White,
            Some('B') => Color::Black,
            _ => {
                return Err(ParseError::new(
                    WHAT,
                    section,
                    "a piece list must start with W or B",
                ))
            }
        };
        if std::mem::replace(&mut seen[color.index()], true) {
            return Err(ParseError::new(
                WHAT,
                section,
                format!("the {color} list is given twice"),
            ));
        }
        for item in section[1..].split(',').map(str::trim) {
            if !item.is_empty() {
                list_item(&mut pieces, color, item)?;
            }
        }
    }
    Position::from_squares(side, pieces).map_err(|e| e.in_text(WHAT, text))
}

/// Adds the pieces of one list item (`12`, `K12`, `1-12`, `K1-4`) of `color` to `pieces`.
fn list_item(pieces: &mut Vec<(u8, Piece)>, color: Color, item: &str) -> Result<(), ParseError> {
    let (king, squares) = match item.strip_prefix(['K', 'k']) {
        Some(rest) => (true, rest.trim_start()),
        None => (false, item),
    };
    let (first, last) = match squares.split_once('-') {
        Some((a, b)) => (parse_square(a, item)?, parse_square(b, item)?),
        None => {
            let s = parse_square(squares, item)?;
            (s, s)
        }
    };
    if first > last {
        return Err(ParseError::new(WHAT, item, "a range must be ascending"));
    }
    let piece = if king {
        Piece::King(color)
    } else {
        Piece::Man(color)
    };
    pieces.extend((first..=last).map(|square| (square, piece)));
    Ok(())
}

/// A square number (whether it is on the board is checked with the whole position).
fn parse_square(text: &str, item: &str) -> Result<u8, ParseError> {
    text.trim().parse::<u8>().map_err(|_| {
        ParseError::new(
            WHAT,
            item,
            format!("'{}' is not a square number 1..32", text.trim()),
        )
    })
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&to_fen(self))
    }
}

impl std::str::FromStr for Position {
    type Err = ParseError;

    fn from_str(text: &str) -> Result<Position, ParseError> {
        parse_fen(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";

    #[test]
    fn start_position_writes_as_checkerboard() {
        assert_eq!(to_fen(&Position::start()), START);
        assert_eq!(parse_fen(START).unwrap(), Position::start());
    }

    #[test]
    fn kings_and_order_round_trip() {
        let fen = "B:WK12,K27,30,32:B21,K24,28,K31";
        let pos = parse_fen(fen).unwrap();
        assert_eq!(pos.piece_at(12), Some(Piece::King(Color::White)));
        assert_eq!(pos.piece_at(21), Some(Piece::Man(Color::Black)));
        assert_eq!(to_fen(&pos), fen);
    }

    #[test]
    fn tolerant_variants_read_the_same() {
        let start = Position::start();
        for text in [
            "b:w21,22,23,24,25,26,27,28,29,30,31,32:b1,2,3,4,5,6,7,8,9,10,11,12",
            "\"B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12\"",
            "[FEN \"B:B1-12:W21-32\"]",
            "position B:B1-12:W21-32.",
            "B:W21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32:B1, 2,3,4,5,6,7,8,9,10,11,12",
            "  B : B 1-12 : W 21-32 ",
        ] {
            assert_eq!(parse_fen(text), Ok(start), "{text}");
        }
        assert_eq!(
            to_fen(&parse_fen("W:BK1-3:W32").unwrap()),
            "W:W32:BK1,K2,K3"
        );
    }

    #[test]
    fn bad_fens_name_the_part() {
        let cases = [
            ("B W21 B1", "B W21 B1"),
            ("X:W21:B1", "X"),
            ("B:W21:Q1", "Q1"),
            ("B:W21,33:B1", "33"),
            ("B:W21,x:B1", "x"),
            ("B:W21:B21", "21"),
            ("B:W21:B1:W22", "W22"),
            ("B:W22:B30", "30"),
            ("B:W21-20:B1", "21-20"),
        ];
        for (text, part) in cases {
            let err = parse_fen(text).unwrap_err();
            assert!(err.part.contains(part), "{text}: {err}");
            assert_eq!(err.what, "FEN");
        }
    }
}

//! A text diagram of a checkers position (`showboard`): Black's side (squares 1-4) on top,
//! `b`/`B` black man/king, `w`/`W` white man/king, `.` an empty dark square, with the square
//! numbers of each row beside it.

use super::board::{Piece, Position};
use crate::game::Color;

/// The diagram, one board row per line, then the side to move.
pub fn diagram(position: &Position) -> String {
    let mut out = String::from("  +-----------------+\n");
    for row in 0..8u8 {
        out.push_str("  |");
        for column in 0..8u8 {
            // Rows 0, 2, 4, 6 have their dark squares in odd columns, the others in even ones.
            let dark = (column + row) % 2 == 1;
            let symbol = if dark {
                let square = row * 4 + column / 2 + 1;
                match position.piece_at(square) {
                    Some(Piece::Man(Color::Black)) => 'b',
                    Some(Piece::King(Color::Black)) => 'B',
                    Some(Piece::Man(Color::White)) => 'w',
                    Some(Piece::King(Color::White)) => 'W',
                    None => '.',
                }
            } else {
                ' '
            };
            out.push(' ');
            out.push(symbol);
        }
        let first = row * 4 + 1;
        out.push_str(&format!(
            " |  {:>2} {:>2} {:>2} {:>2}\n",
            first,
            first + 1,
            first + 2,
            first + 3
        ));
    }
    out.push_str("  +-----------------+\n");
    out.push_str(&format!("  {} to move", position.side_to_move()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_diagram() {
        let text = diagram(&Position::start());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "  |   b   b   b   b |   1  2  3  4");
        assert_eq!(lines[2], "  | b   b   b   b   |   5  6  7  8");
        assert_eq!(lines[4], "  | .   .   .   .   |  13 14 15 16");
        assert_eq!(lines[8], "  | w   w   w   w   |  29 30 31 32");
        assert_eq!(lines[10], "  black to move");
    }
}

//! CheckerBoard's `int board[8][8]` and `struct CBmove`, and their translation to and from
//! tmbot's checkers types.

use std::ffi::c_int;
use tmbot::game::checkers::{Move, Piece, Position};
use tmbot::game::{Color, ParseError};

/// Piece code bits of CheckerBoard's board array.
pub const CB_WHITE: c_int = 1;
/// Black (the side that moves first).
pub const CB_BLACK: c_int = 2;
/// A man.
pub const CB_MAN: c_int = 4;
/// A king.
pub const CB_KING: c_int = 8;

/// CheckerBoard's board: `board[x][y]`, piece codes as above, 0 for an empty square.
pub type CbBoard = [[c_int; 8]; 8];

/// A square's coordinates in CheckerBoard's 8x8 notation.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coor {
    /// Column, 0..8.
    pub x: c_int,
    /// Row, 0..8.
    pub y: c_int,
}

/// CheckerBoard's description of a move (layout as in its engine API header).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CbMove {
    /// Number of pieces captured.
    pub jumps: c_int,
    /// The piece that stands on `to` after the move.
    pub newpiece: c_int,
    /// The piece that left `from`.
    pub oldpiece: c_int,
    /// Origin.
    pub from: Coor,
    /// Destination.
    pub to: Coor,
    /// The squares landed on, in order (`path[1..=jumps]` for a capture).
    pub path: [Coor; 12],
    /// The captured squares.
    pub del: [Coor; 12],
    /// The captured pieces.
    pub delpiece: [c_int; 12],
}

/// Coordinates of square `n` (1..32): n' = n - 1, y = n' / 4, x = 2 (3 - n' mod 4) + (y odd).
pub fn coor(square: u8) -> Coor {
    let m = c_int::from(square) - 1;
    let y = m / 4;
    Coor {
        x: 2 * (3 - m % 4) + (y & 1),
        y,
    }
}

/// The square (1..32) at CheckerBoard coordinates `c`; `None` off the board or on a light
/// square.
pub fn square_at(c: Coor) -> Option<u8> {
    (1..=32u8).find(|&square| coor(square) == c)
}

/// The piece code of `piece`.
pub fn code(piece: Piece) -> c_int {
    let colour = match piece.color() {
        Color::Black => CB_BLACK,
        Color::White => CB_WHITE,
    };
    colour | if piece.is_king() { CB_KING } else { CB_MAN }
}

fn piece_of(value: c_int, square: u8) -> Result<Option<Piece>, ParseError> {
    let colour = match value & (CB_WHITE | CB_BLACK) {
        0 if value == 0 => return Ok(None),
        CB_BLACK => Color::Black,
        CB_WHITE => Color::White,
        _ => {
            return Err(ParseError::new(
                "CheckerBoard board",
                format!("square {square} = {value}"),
                "not a piece code",
            ))
        }
    };
    match value & (CB_MAN | CB_KING) {
        CB_MAN => Ok(Some(Piece::Man(colour))),
        CB_KING => Ok(Some(Piece::King(colour))),
        _ => Err(ParseError::new(
            "CheckerBoard board",
            format!("square {square} = {value}"),
            "not a piece code",
        )),
    }
}

/// Reads a CheckerBoard board with `side` to move; a board no game reaches is refused as by
/// [`Position::from_squares`].
pub fn read_board(board: &CbBoard, side: Color) -> Result<Position, ParseError> {
    let mut pieces = Vec::new();
    for square in 1..=32u8 {
        let c = coor(square);
        pieces.extend(piece_of(board[c.x as usize][c.y as usize], square)?.map(|p| (square, p)));
    }
    Position::from_squares(side, pieces).map_err(|e| e.in_text("CheckerBoard board", "board"))
}

/// Writes `position` into a CheckerBoard board (light squares are cleared too).
pub fn write_board(position: &Position, board: &mut CbBoard) {
    *board = [[0; 8]; 8];
    for square in 1..=32u8 {
        if let Some(piece) = position.piece_at(square) {
            let c = coor(square);
            board[c.x as usize][c.y as usize] = code(piece);
        }
    }
}

/// Describes `mv`, played in `before`, as a `CbMove`.
pub fn describe_move(before: &Position, mv: &Move) -> CbMove {
    let after = before.after(mv);
    let squares = mv.squares();
    let mut out = CbMove {
        jumps: mv.capture_count() as c_int,
        oldpiece: before.piece_at(mv.from()).map_or(0, code),
        newpiece: after.piece_at(mv.to()).map_or(0, code),
        from: coor(mv.from()),
        to: coor(mv.to()),
        ..CbMove::default()
    };
    for (slot, &square) in out.path.iter_mut().zip(squares.iter()) {
        *slot = coor(square);
    }
    let captured = (1..=32u8).filter(|s| mv.captured() & (1 << (s - 1)) != 0);
    for (k, square) in captured.take(12).enumerate() {
        out.del[k] = coor(square);
        out.delpiece[k] = before.piece_at(square).map_or(0, code);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_coordinates_match_checkerboard() {
        assert_eq!(coor(1), Coor { x: 6, y: 0 });
        assert_eq!(coor(4), Coor { x: 0, y: 0 });
        assert_eq!(coor(5), Coor { x: 7, y: 1 });
        assert_eq!(coor(32), Coor { x: 1, y: 7 });
        // Every square is a distinct dark square.
        let mut seen = std::collections::HashSet::new();
        for n in 1..=32 {
            let c = coor(n);
            assert!((0..8).contains(&c.x) && (0..8).contains(&c.y));
            assert_eq!((c.x + c.y) % 2, 0, "square {n} on a dark square");
            assert!(seen.insert((c.x, c.y)));
            assert_eq!(square_at(c), Some(n));
        }
        assert_eq!(square_at(Coor { x: 0, y: 1 }), None, "a light square");
        assert_eq!(square_at(Coor { x: 8, y: 0 }), None, "off the board");
    }

    #[test]
    fn boards_round_trip() {
        let start = Position::start();
        let mut board = [[0; 8]; 8];
        write_board(&start, &mut board);
        assert_eq!(board[6][0], CB_BLACK | CB_MAN, "square 1 holds a black man");
        assert_eq!(read_board(&board, Color::Black).unwrap(), start);
        board[6][0] = 3;
        let err = read_board(&board, Color::Black).unwrap_err();
        assert!(err.to_string().contains("square 1 = 3"), "{err}");
        board[6][0] = CB_BLACK | CB_MAN;
        let c = coor(30);
        board[c.x as usize][c.y as usize] = CB_BLACK | CB_MAN;
        let err = read_board(&board, Color::Black).unwrap_err();
        assert!(err.to_string().contains("square 30"), "{err}");
    }
}

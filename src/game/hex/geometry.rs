//! Hex board geometry: cells, neighbours and cell names, for boards of any width and height.
//!
//! Cell (x, y): x is the column (letter, `a` = left), y the row (number, 1 = top). Black joins
//! the top row to the bottom row; White joins the left column to the right column.

use crate::game::ParseError;

/// Largest supported width or height (HexGui boards go to 63 columns; names past `z` use two
/// letters, `aa`, `ab`, ...).
pub const MAX_SIDE: usize = 63;

/// The six neighbour offsets (dx, dy) of a cell.
pub const NEIGHBOUR_OFFSETS: [(i32, i32); 6] = [(1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (-1, 1)];

/// The on-board neighbours of (x, y) on a `width` x `height` board.
pub fn neighbours(
    x: usize,
    y: usize,
    width: usize,
    height: usize,
) -> impl Iterator<Item = (usize, usize)> {
    NEIGHBOUR_OFFSETS.iter().filter_map(move |&(dx, dy)| {
        let nx = x as i32 + dx;
        let ny = y as i32 + dy;
        (nx >= 0 && ny >= 0 && (nx as usize) < width && (ny as usize) < height)
            .then_some((nx as usize, ny as usize))
    })
}

/// The column letters of column `x`: `a`..`z`, then `aa`, `ab`, ...
pub fn column_name(x: usize) -> String {
    if x < 26 {
        ((b'a' + x as u8) as char).to_string()
    } else {
        let hi = x / 26 - 1;
        let lo = x % 26;
        format!("{}{}", (b'a' + hi as u8) as char, (b'a' + lo as u8) as char)
    }
}

/// The name of cell (x, y), lowercase: `a1` is the top-left cell.
pub fn cell_name(x: usize, y: usize) -> String {
    format!("{}{}", column_name(x), y + 1)
}

/// Parses a cell name (any case) on a `width` x `height` board into (x, y).
pub fn parse_cell(text: &str, width: usize, height: usize) -> Result<(usize, usize), ParseError> {
    let t = text.trim();
    let letters = t.bytes().take_while(|b| b.is_ascii_alphabetic()).count();
    if letters == 0 || letters > 2 || letters == t.len() {
        return Err(ParseError::new(
            "cell",
            text,
            "expected a column letter then a row number, like c3",
        ));
    }
    let (col, row) = t.split_at(letters);
    let col = col.to_ascii_lowercase();
    let cb = col.as_bytes();
    let x = if cb.len() == 1 {
        (cb[0] - b'a') as usize
    } else {
        (cb[0] - b'a' + 1) as usize * 26 + (cb[1] - b'a') as usize
    };
    if !row.bytes().all(|b| b.is_ascii_digit()) || row.len() > 3 {
        return Err(ParseError::new("cell", text, "the row must be a number"));
    }
    let y: usize = row
        .parse()
        .map_err(|_| ParseError::new("cell", text, "the row must be a number"))?;
    if x >= width || y == 0 || y > height {
        return Err(ParseError::new(
            "cell",
            text,
            format!("off the {width}x{height} board"),
        ));
    }
    Ok((x, y - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for w in [1, 5, 11, 19, 30, 63] {
            for x in 0..w {
                for y in 0..w {
                    let name = cell_name(x, y);
                    assert_eq!(parse_cell(&name, w, w), Ok((x, y)), "{name}");
                    assert_eq!(parse_cell(&name.to_uppercase(), w, w), Ok((x, y)));
                }
            }
        }
    }

    #[test]
    fn bad_cells_are_errors() {
        for bad in ["", "a", "1", "a0", "l1", "a12", "a-1", "é1", "aaa1", "a1x"] {
            assert!(parse_cell(bad, 11, 11).is_err(), "{bad}");
        }
    }

    #[test]
    fn corner_degrees() {
        let n = 5;
        let deg = |x, y| neighbours(x, y, n, n).count();
        assert_eq!(deg(0, 0), 2, "a1 is acute");
        assert_eq!(deg(n - 1, n - 1), 2, "bottom-right is acute");
        assert_eq!(deg(n - 1, 0), 3, "top-right is obtuse");
        assert_eq!(deg(0, n - 1), 3, "bottom-left is obtuse");
        assert_eq!(deg(2, 2), 6);
    }
}

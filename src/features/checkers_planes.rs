//! Seed 001's checkers encoding: 4 planes x 32 squares (standard numbering 1..32): black
//! men, black kings, white men, white kings — the 128 columns of the thesis datasets.
//!
//! Seen as a board, each plane is 4 x 8 cells: square `i` (counted from 0) is at
//! `x = i % 4`, `y = i / 4`, so the columns are exactly a [`PatchGrid`]'s input features.

use crate::tm::patches::PatchGrid;

/// The plane prefixes, in column order.
pub const PLANES: [&str; 4] = ["BM", "BK", "WM", "WK"];

/// Number of features.
pub const FEATURES: usize = 128;

/// Cells per row of a plane seen as a board (the playable squares of a row).
pub const WIDTH: usize = 4;

/// Rows of a plane seen as a board.
pub const HEIGHT: usize = 8;

/// The convolution geometry of these planes: a [`WIDTH`] x [`HEIGHT`] board of 4 planes cut
/// into `window` x `window` patches (an error when the window does not fit).
pub fn patch_grid(window: usize) -> Result<PatchGrid, String> {
    PatchGrid::new(WIDTH, HEIGHT, PLANES.len(), window)
}

/// The feature names `BM_1` .. `WK_32`.
pub fn feature_names() -> Vec<String> {
    PLANES
        .iter()
        .flat_map(|p| (1..=32).map(move |sq| format!("{p}_{sq}")))
        .collect()
}

/// Appends the features of a board given as its planes (black men, black kings, white
/// men, white kings; bit i is square i+1) to `out`.
pub fn encode_planes(planes: [u32; 4], out: &mut Vec<u8>) {
    for plane in planes {
        out.extend((0..32).map(|s| ((plane >> s) & 1) as u8));
    }
}

/// The features of a board given as 32 squares in seed 001's console codes: 0 empty,
/// 1 black man, 2 black king, 3 white man, 4 white king.
pub fn encode(squares: &[u8]) -> Result<Vec<u8>, String> {
    if squares.len() != 32 {
        return Err(format!("expected 32 squares, got {}", squares.len()));
    }
    let mut planes = [0u32; 4];
    for (i, &code) in squares.iter().enumerate() {
        match code {
            0 => {}
            1..=4 => planes[code as usize - 1] |= 1 << i,
            other => return Err(format!("square {}: code {other} is not 0..4", i + 1)),
        }
    }
    let mut out = Vec::with_capacity(FEATURES);
    encode_planes(planes, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_planes_line_up() {
        let names = feature_names();
        assert_eq!(names.len(), 128);
        assert_eq!(names[0], "BM_1");
        assert_eq!(names[33], "BK_2");
        assert_eq!(names[127], "WK_32");
        let mut squares = [0u8; 32];
        squares[0] = 1;
        squares[1] = 2;
        squares[31] = 4;
        let f = encode(&squares).unwrap();
        assert_eq!(f.iter().filter(|&&b| b == 1).count(), 3);
        assert!(f[0] == 1 && f[33] == 1 && f[127] == 1);
        assert!(encode(&[5; 32]).is_err());
        assert!(encode(&[0; 31]).is_err());
    }

    #[test]
    fn the_planes_fill_a_patch_grid() {
        let g = patch_grid(2).unwrap();
        assert_eq!(g.input_features(), FEATURES);
        assert_eq!(g.patches(), 3 * 7);
        assert_eq!(g.patch_features(), 16 + 2 + 6);
        assert!(patch_grid(5).is_err());
        assert!(patch_grid(0).is_err());
    }
}

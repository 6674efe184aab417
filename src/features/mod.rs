//! Booleanizers: game positions to bit vectors (with feature names) for learning.
//!
//! [`encoder`] is the registry: every encoder by name, version and options, as the command
//! line and model files name them. The encodings themselves:
//! - [`hex_connection`]: seed 000's Hex symbols: cell occupancy `B_x_y` / `R_x_y` and
//!   same-group pairs `CB_x0_y0_x1_y1` / `CR_...` (N^2(N^2+1) features), optionally the
//!   two "has connected its edges" symbols;
//! - [`hex_compact`]: 20 features a cell (groups on edges, two-distance bins, best paths),
//!   for the boards where the connection pairs do not scale;
//! - [`checkers_planes`]: seed 001's 4 planes x 32 squares of English checkers, and their
//!   convolution geometry (a [`crate::tm::patches::PatchGrid`]);
//! - [`checkers_meta`]: seed 001's seven metadata attributes as thermometers;
//! - [`hypervector`]: many symbols folded into fewer bits, as seed 000 fed its machine.

pub mod checkers_meta;
pub mod checkers_planes;
pub mod encoder;
pub mod hex_compact;
pub mod hex_connection;
pub mod hypervector;

use crate::game::hex::Hex;
use crate::game::Color;
use crate::tm::data::{DataError, Dataset};
pub use encoder::Encoder;
use encoder::Sample;
use std::path::Path;

/// Reads a dataset file through `encoder`, streaming it line by line:
/// - `csv`: 0/1 columns, label last (see [`Dataset::read_csv`]);
/// - Hex encoders: a square board's cells in {-1, 0, 1} (row-major, seed 000's `cell_r_c`
///   columns: -1 Black, who joins top and bottom, 1 White), then the winner (-1 Black ->
///   class 0, 1 White -> class 1); the side to move follows from the stone counts;
/// - checkers encoders: the 128 plane columns (seed 001), optionally `black_to_move` (1 or
///   0, as `arena dataset` writes it), then the label from Black's view (0 loss, 1 win,
///   2 draw).
pub fn read_dataset(path: &Path, encoder: &Encoder) -> Result<Dataset, DataError> {
    use encoder::GameOf;
    match encoder.game() {
        GameOf::Any => Dataset::read_csv(path),
        GameOf::Hex => read_boards(path, encoder, hex_row),
        GameOf::Checkers => read_boards(path, encoder, checkers_row),
    }
}

/// A dataset row read as a position: the position and its dataset class.
enum Board {
    Hex(Box<Hex>),
    Checkers {
        planes: [u32; 4],
        to_move: Option<Color>,
    },
}

impl Board {
    fn sample(&self) -> Sample<'_> {
        match self {
            Board::Hex(game) => Sample::Hex(game),
            Board::Checkers { planes, to_move } => Sample::Checkers {
                planes: *planes,
                to_move: *to_move,
            },
        }
    }
}

/// A row's cell values and class, or what is wrong with it (and in which column).
type RowResult = Result<(Board, u32), (Option<usize>, String)>;

fn hex_row(fields: &[&str]) -> RowResult {
    let (winner, values) = fields.split_last().expect("a row has a field");
    let side = (values.len() as f64).sqrt().round() as usize;
    if side * side != values.len() || side == 0 {
        return Err((
            None,
            format!("{} cell columns is not a square board", values.len()),
        ));
    }
    let mut stones = Vec::with_capacity(values.len());
    for (c, v) in values.iter().enumerate() {
        stones.push(match *v {
            "-1" => Some(Color::Black),
            "1" => Some(Color::White),
            "0" => None,
            _ => return Err((Some(c + 1), format!("expected -1, 0 or 1, got '{v}'"))),
        });
    }
    let class = match *winner {
        "-1" => 0,
        "1" => 1,
        other => {
            return Err((
                Some(fields.len()),
                format!("winner must be 1 or -1, got '{other}'"),
            ))
        }
    };
    let mut game = Hex::new(side, side).map_err(|e| (None, e.to_string()))?;
    let black = stones.iter().filter(|s| **s == Some(Color::Black)).count();
    let white = stones.iter().filter(|s| **s == Some(Color::White)).count();
    game.set_stones(&stones);
    game.set_side_to_move(if black > white {
        Color::White
    } else {
        Color::Black
    });
    Ok((Board::Hex(Box::new(game)), class))
}

fn checkers_row(fields: &[&str]) -> RowResult {
    let (label, values) = fields.split_last().expect("a row has a field");
    let (squares, to_move) = match values.len() {
        n if n == checkers_planes::FEATURES => (values, None),
        n if n == checkers_planes::FEATURES + 1 => {
            let side = match values[n - 1] {
                "1" => Color::Black,
                "0" => Color::White,
                other => {
                    return Err((
                        Some(n),
                        format!("black_to_move must be 1 or 0, got '{other}'"),
                    ))
                }
            };
            (&values[..n - 1], Some(side))
        }
        n => {
            return Err((
                None,
                format!("{n} feature columns, expected the 128 planes (and black_to_move at most)"),
            ))
        }
    };
    let mut planes = [0u32; 4];
    for (i, v) in squares.iter().enumerate() {
        match *v {
            "0" => {}
            "1" => planes[i / 32] |= 1 << (i % 32),
            _ => return Err((Some(i + 1), format!("expected 0 or 1, got '{v}'"))),
        }
    }
    let class = match *label {
        "0" => 0,
        "1" => 1,
        "2" => 2,
        other => {
            return Err((
                Some(fields.len()),
                format!("label must be 0, 1 or 2, got '{other}'"),
            ))
        }
    };
    Ok((Board::Checkers { planes, to_move }, class))
}

/// Reads board rows (a header line is skipped) and encodes each through `encoder`.
fn read_boards(
    path: &Path,
    encoder: &Encoder,
    parse: fn(&[&str]) -> RowResult,
) -> Result<Dataset, DataError> {
    use std::io::BufRead as _;
    let source = path.display().to_string();
    let err = |location: String, message: String| DataError {
        path: source.clone(),
        location,
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| err("file".into(), e.to_string()))?;
    let mut data: Option<Dataset> = None;
    let mut bits = Vec::new();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        let n = index + 1;
        let line = line.map_err(|e| err(format!("line {n}"), e.to_string()))?;
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let is_header = index == 0 && fields[0].parse::<i8>().is_err();
        if line.trim().is_empty() || is_header {
            continue;
        }
        let (board, class) = parse(&fields).map_err(|(column, message)| {
            let location = match column {
                Some(c) => format!("line {n}, column {c}"),
                None => format!("line {n}"),
            };
            err(location, message)
        })?;
        let mut rows = vec![(board, class)];
        if let (Board::Checkers { planes, to_move }, true) = (&rows[0].0, encoder.fold) {
            let exchanged = Board::Checkers {
                planes: encoder::turned(*planes),
                to_move: to_move.map(Color::opponent),
            };
            rows.push((exchanged, encoder::swap_win_loss(class)));
        }
        if let Board::Hex(game) = &rows[0].0 {
            if encoder.rotate {
                let turned = Board::Hex(Box::new(encoder::hex_half_turn(game)));
                rows.push((turned, class));
            }
            if encoder.fold {
                for at in 0..rows.len() {
                    let Board::Hex(game) = &rows[at].0 else {
                        unreachable!("every copy of a Hex row is a Hex board")
                    };
                    let mirror = Board::Hex(Box::new(encoder::hex_mirror(game)));
                    rows.push((mirror, 1 - class));
                }
            }
        }
        for (board, class) in rows {
            let sample = board.sample();
            let at = |m: String| err(format!("line {n}"), m);
            let ds = match &mut data {
                Some(ds) => ds,
                None => data.insert(Dataset::with_names(
                    encoder.feature_names(sample).map_err(at)?,
                )),
            };
            bits.clear();
            encoder.encode(sample, &mut bits).map_err(at)?;
            if bits.len() != ds.features() {
                return Err(at(format!(
                    "{} features, the rows before gave {} (a board of another size?)",
                    bits.len(),
                    ds.features()
                )));
            }
            ds.push(&bits, encoder.class_of(sample, class).map_err(at)?);
        }
    }
    data.ok_or_else(|| err("file".into(), "no samples".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With `fold=on` a checkers row is followed by its colour-exchanged copy: White's men
    /// where Black's stood, turned round, and the outcome exchanged; the plain encoder
    /// reads the rows alone.
    #[test]
    fn folded_checkers_rows_exchange_colours_and_outcomes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.csv");
        // Row 1: a black man on square 1 and a white king on square 32, Black won (1);
        // row 2: the same board, a draw (2).
        let mut row = vec!["0"; 128];
        row[0] = "1";
        row[3 * 32 + 31] = "1";
        let board = row.join(",");
        std::fs::write(&path, format!("{board},1\n{board},2\n")).unwrap();
        let folded = Encoder::parse("checkers-planes:fold=on").unwrap();
        let data = read_dataset(&path, &folded).unwrap();
        assert_eq!(data.len(), 4);
        assert_eq!(data.labels(), [1, 0, 2, 2]);
        // The copy: the white king turned round to a black king on square 1, the black man
        // to a white man on square 32.
        let set = |i: usize| (0..128).filter(|&f| data.value(i, f)).collect::<Vec<_>>();
        assert_eq!(set(0), [0, 127]);
        assert_eq!(set(1), [32, 2 * 32 + 31]);
        assert_eq!(read_dataset(&path, &folded.plain()).unwrap().len(), 2);
    }
}

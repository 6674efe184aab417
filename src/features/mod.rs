//! Booleanizers: game positions to bit vectors (with feature names) for learning.
//!
//! Encoders work on plain arrays, not on the game types, so that datasets and evaluators
//! share one definition:
//! - [`hex_connection`]: seed 000's Hex symbols: cell occupancy `B_x_y` / `R_x_y` and
//!   same-group pairs `CB_x0_y0_x1_y1` / `CR_...` (N^2(N^2+1) features);
//!   with [`Encoder::HexConnectionEdges`], two "has connected its edges" symbols more;
//! - [`checkers_planes`]: seed 001's 4 planes x 32 squares of English checkers, and their
//!   convolution geometry (a [`crate::tm::patches::PatchGrid`]).
//!
//! [`Encoder`] names them for the command line and for model files.

pub mod checkers_planes;
pub mod hex_connection;

/// The feature encoders a dataset or a model can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoder {
    /// Raw 0/1 columns, named by the CSV header (or `x0`, `x1`, ...).
    Csv,
    /// [`hex_connection`] features from a CSV of cells in {-1, 0, 1} and a winner column.
    HexConnection,
    /// [`hex_connection`] features and the two "has connected its edges" symbols.
    HexConnectionEdges,
    /// [`checkers_planes`]: the 128 plane columns with their square names.
    CheckersPlanes,
}

impl Encoder {
    /// Every encoder.
    pub const ALL: [Encoder; 4] = [
        Encoder::Csv,
        Encoder::HexConnection,
        Encoder::HexConnectionEdges,
        Encoder::CheckersPlanes,
    ];

    /// The name used on the command line and in model files.
    pub fn name(self) -> &'static str {
        match self {
            Encoder::Csv => "csv",
            Encoder::HexConnection => "hex-connection",
            Encoder::HexConnectionEdges => "hex-connection-edges",
            Encoder::CheckersPlanes => "checkers-planes",
        }
    }

    /// The encoder called `name`.
    pub fn parse(name: &str) -> Result<Encoder, String> {
        Encoder::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Encoder::ALL.iter().map(|e| e.name()).collect();
                format!("unknown encoder '{name}' (known: {})", names.join(", "))
            })
    }
}

use crate::tm::data::{DataError, Dataset};
use std::path::Path;

/// Reads a dataset file through `encoder`:
/// - [`Encoder::Csv`]: 0/1 columns, label last (see [`Dataset::read_csv`]);
/// - [`Encoder::HexConnection`]: a square board's cells in {-1, 0, 1} (row-major, seed 000's
///   `cell_r_c` columns), then the winner (1 blue -> class 1, -1 red -> class 0);
/// - [`Encoder::HexConnectionEdges`]: the same cells, with the two edge symbols;
/// - [`Encoder::CheckersPlanes`]: the 128 plane columns then the label, named by square.
pub fn read_dataset(path: &Path, encoder: Encoder) -> Result<Dataset, DataError> {
    match encoder {
        Encoder::Csv => Dataset::read_csv(path),
        Encoder::CheckersPlanes => {
            let mut data = Dataset::read_csv(path)?;
            if data.features() != checkers_planes::FEATURES {
                return Err(DataError {
                    path: path.display().to_string(),
                    location: "file".into(),
                    message: format!("{} feature columns, expected 128", data.features()),
                });
            }
            data.feature_names = checkers_planes::feature_names();
            Ok(data)
        }
        Encoder::HexConnection => read_hex_cells(path, false),
        Encoder::HexConnectionEdges => read_hex_cells(path, true),
    }
}

fn read_hex_cells(path: &Path, edges: bool) -> Result<Dataset, DataError> {
    let source = path.display().to_string();
    let err = |location: String, message: String| DataError {
        path: source.clone(),
        location,
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err("file".into(), e.to_string()))?;
    let mut data: Option<(hex_connection::HexConnection, Dataset)> = None;
    let mut cells = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let n = index + 1;
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if line.trim().is_empty() || (index == 0 && fields[0].parse::<i8>().is_err()) {
            continue;
        }
        let (winner, values) = fields.split_last().expect("split gives one field");
        let side = (values.len() as f64).sqrt().round() as usize;
        if side * side != values.len() || side == 0 {
            return Err(err(
                format!("line {n}"),
                format!("{} cell columns is not a square board", values.len()),
            ));
        }
        cells.clear();
        for (c, v) in values.iter().enumerate() {
            match v.parse::<i8>() {
                Ok(x) if (-1..=1).contains(&x) => cells.push(x),
                _ => {
                    return Err(err(
                        format!("line {n}, column {}", c + 1),
                        format!("expected -1, 0 or 1, got '{v}'"),
                    ))
                }
            }
        }
        let label = match *winner {
            "1" => 1,
            "-1" => 0,
            other => {
                return Err(err(
                    format!("line {n}, last column"),
                    format!("winner must be 1 or -1, got '{other}'"),
                ))
            }
        };
        let (enc, ds) = data.get_or_insert_with(|| {
            let enc = if edges {
                hex_connection::HexConnection::with_edges(side, side)
            } else {
                hex_connection::HexConnection::new(side, side)
            };
            let ds = Dataset::with_names(enc.feature_names());
            (enc, ds)
        });
        if enc.cells() != cells.len() {
            return Err(err(
                format!("line {n}"),
                format!("{} cells, expected {}", cells.len(), enc.cells()),
            ));
        }
        let features = enc
            .encode(&cells)
            .map_err(|m| err(format!("line {n}"), m))?;
        ds.push(&features, label);
    }
    data.map(|(_, ds)| ds)
        .ok_or_else(|| err("file".into(), "no samples".into()))
}

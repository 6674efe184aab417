//! Hex position text: the compact position string and the `showboard` diagram.

use super::geometry::column_name;
use super::state::Hex;
use crate::game::{Color, Game, ParseError};

fn stone_letter(stone: Option<Color>) -> char {
    match stone {
        None => '.',
        Some(Color::Black) => 'b',
        Some(Color::White) => 'w',
    }
}

/// The compact position string: rows top to bottom separated by `/`, `b` and `w` for stones,
/// a number for a run of empty cells, then a space and the side to move (`b` or `w`).
/// The empty 3x3 board with Black to move is `3/3/3 b`.
pub fn position_text(game: &Hex) -> String {
    let mut rows = Vec::with_capacity(game.height());
    for y in 0..game.height() {
        let mut row = String::new();
        let mut run = 0;
        for x in 0..game.width() {
            match game.stone(game.cell(x, y)) {
                None => run += 1,
                stone => {
                    if run > 0 {
                        row += &run.to_string();
                        run = 0;
                    }
                    row.push(stone_letter(stone));
                }
            }
        }
        if run > 0 {
            row += &run.to_string();
        }
        rows.push(row);
    }
    let side = stone_letter(Some(game.side_to_move()));
    format!("{} {side}", rows.join("/"))
}

/// Parses a [`position_text`] string into a game with that position as its start; stone
/// counts no game reaches are refused ([`Hex::validate`]).
pub fn parse_position_text(text: &str) -> Result<Hex, ParseError> {
    let error = |part: &str, message: String| ParseError::new("Hex position", part, message);
    let mut fields = text.split_whitespace();
    let (Some(board), Some(side), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(error(text, "expected rows then the side to move".into()));
    };
    let to_move = Color::parse(side).map_err(|_| error(side, "side must be b or w".into()))?;
    let mut rows: Vec<Vec<Option<Color>>> = Vec::new();
    for (index, row_text) in board.split('/').enumerate() {
        let mut row = Vec::new();
        let mut digits = String::new();
        let flush = |digits: &mut String, row: &mut Vec<Option<Color>>| {
            if !digits.is_empty() {
                let run: usize = digits.parse().unwrap_or(usize::MAX);
                if run > super::geometry::MAX_SIDE {
                    return Err(error(row_text, format!("row {}: run too long", index + 1)));
                }
                row.extend(std::iter::repeat_n(None, run));
                digits.clear();
            }
            Ok(())
        };
        for ch in row_text.chars() {
            match ch {
                '0'..='9' => digits.push(ch),
                'b' | 'B' | 'w' | 'W' => {
                    flush(&mut digits, &mut row)?;
                    let color = if ch.eq_ignore_ascii_case(&'b') {
                        Color::Black
                    } else {
                        Color::White
                    };
                    row.push(Some(color));
                }
                _ => {
                    return Err(error(
                        row_text,
                        format!("row {}: unexpected '{ch}'", index + 1),
                    ))
                }
            }
            if row.len() > super::geometry::MAX_SIDE {
                return Err(error(row_text, format!("row {} is too long", index + 1)));
            }
        }
        flush(&mut digits, &mut row)?;
        if let Some(first) = rows.first() {
            if first.len() != row.len() {
                return Err(error(
                    row_text,
                    format!(
                        "row {} has {} cells, row 1 has {}",
                        index + 1,
                        row.len(),
                        first.len()
                    ),
                ));
            }
        }
        rows.push(row);
    }
    let width = rows[0].len();
    let mut game = Hex::new(width, rows.len()).map_err(|e| error(board, e.message))?;
    for (y, row) in rows.iter().enumerate() {
        for (x, &stone) in row.iter().enumerate() {
            if stone.is_some() {
                game.set_stone(game.cell(x, y), stone);
            }
        }
    }
    game.set_side_to_move(to_move);
    game.validate().map_err(|e| error(text, e.to_string()))?;
    Ok(game)
}

/// A text diagram as `showboard` prints it: column letters on top and bottom, row numbers
/// on both sides, each row shifted one step further right than the row above; `.` empty,
/// `B` black, `W` white.
pub fn diagram(game: &Hex) -> String {
    let names: Vec<String> = (0..game.width()).map(column_name).collect();
    let cell_width = names.iter().map(String::len).max().unwrap_or(1) + 1;
    let label_width = game.height().to_string().len();
    let letters: String = names
        .iter()
        .map(|n| format!("{n:<cell_width$}"))
        .collect::<String>()
        .trim_end()
        .to_string();
    let mut out = format!("{}{letters}\n", " ".repeat(label_width + 2));
    for y in 0..game.height() {
        let cells: String = (0..game.width())
            .map(|x| {
                let mark = stone_letter(game.stone(game.cell(x, y))).to_ascii_uppercase();
                format!("{mark:<cell_width$}")
            })
            .collect();
        out += &format!(
            "{}{:>label_width$}  {} {}\n",
            " ".repeat(y),
            y + 1,
            cells.trim_end(),
            y + 1
        );
    }
    out += &format!(
        "{}{letters}\n",
        " ".repeat(game.height() - 1 + label_width + 2)
    );
    out
}

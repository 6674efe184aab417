//! Pattern tables for the checkers knowledge evaluation: the men in each of nine 4x4 windows
//! of the board, read as one of 3^8 patterns, each worth a learned score (after the region
//! tables of pattern-based draughts evaluations). The windows start on rows and columns 0,
//! 2 and 4, so they overlap by two rows or columns and cover the board; each holds eight
//! playable squares. A side's men are read from its own end of the board (White's turned
//! round, as [`super::checkers_knowledge`] reads them), its patterns counted for it and the
//! opponent's against it, so a position and its colour-reversed twin score the same for
//! their sides. Each entry has an opening and an ending score, mixed by the share of the 24
//! pieces gone ([`ending_share`]), as the knowledge terms' `end:` twins are. Kings are left
//! to the knowledge terms: a window sees men only.
//!
//! The tables are fitted on top of the knowledge weights to the values of self-play searches
//! (`arena tune-patterns`) and read from a text file: a header line, then `WINDOW PATTERN
//! OPENING ENDING` lines (window 0-8, row-major from Black's back rank; pattern 0-6560, the base-3
//! number whose digit k is the k-th square of the window in square order: 0 empty, 1 the
//! side's own man, 2 the opponent's), entries not given worth 0.

use super::checkers_knowledge::ending_share;
use crate::game::checkers::Position;
use crate::game::Color;
use std::sync::{Arc, OnceLock};

/// Windows on the board.
pub const WINDOWS: usize = 9;

/// Patterns of one window: three states on each of its eight squares.
pub const PATTERNS: usize = 6561;

/// Entries of the tables: a pattern of a window.
pub const ENTRIES: usize = WINDOWS * PATTERNS;

/// The built-in tables (fitted by `arena tune-patterns` to the values of 6- and 8-ply
/// self-play searches; tournaments/models/README.md has the commands), in the format
/// [`PatternTables::parse`] reads.
const BUILT_IN_TABLES: &str = include_str!("checkers_patterns.tables");

/// The first line of a patterns file.
pub const PATTERNS_HEADER: &str = "# tmbot checkers patterns, version 1";

/// For each of the three window columns (columns 0-3, 2-5, 4-7), each byte of a side's
/// men (two rows of the board), the base-3 number whose digits are 1 on the window's
/// squares the byte holds men on (the window's four squares in those rows in square order).
fn digits() -> &'static [[u16; 256]; 3] {
    static DIGITS: OnceLock<[[u16; 256]; 3]> = OnceLock::new();
    DIGITS.get_or_init(|| {
        std::array::from_fn(|window_column| {
            let first = 2 * window_column;
            // The bits of a byte (rows 2j and 2j + 1) in the window's columns, in order.
            let inside: Vec<usize> = (0..8)
                .filter(|&bit| {
                    let row = bit / 4;
                    let column = 2 * (3 - bit % 4) + (row & 1);
                    (first..first + 4).contains(&column)
                })
                .collect();
            debug_assert_eq!(inside.len(), 4);
            std::array::from_fn(|byte| {
                inside
                    .iter()
                    .enumerate()
                    .filter(|&(_, &bit)| byte >> bit & 1 == 1)
                    .map(|(k, _)| 3u16.pow(k as u32))
                    .sum()
            })
        })
    })
}

/// The pattern of each window for a side whose men are `own`, against men `other`, both
/// seen from the side's end of the board (its back rank on squares 1-4).
pub fn window_patterns(own: u32, other: u32) -> [usize; WINDOWS] {
    let digits = digits();
    // Per window column and byte: the byte's digits, own men 1 and the opponent's 2.
    let parts: [[usize; 4]; 3] = std::array::from_fn(|column| {
        std::array::from_fn(|byte| {
            let of = |men: u32| usize::from(digits[column][(men >> (8 * byte)) as usize & 0xFF]);
            of(own) + 2 * of(other)
        })
    });
    std::array::from_fn(|window| {
        let (row, column) = (window / 3, window % 3);
        parts[column][row] + 81 * parts[column][row + 1]
    })
}

/// The windows' patterns of both sides of `position`: Black's, then White's (each seen from
/// its own end).
pub fn both_sides(position: &Position) -> [[usize; WINDOWS]; 2] {
    let [black_men, _, white_men, _] = position.planes();
    [
        window_patterns(black_men, white_men),
        window_patterns(white_men.reverse_bits(), black_men.reverse_bits()),
    ]
}

/// The learned scores of every window's patterns (hundredths of a man): an opening and an
/// ending score per entry.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternTables {
    /// `entries[window * PATTERNS + pattern]`: the opening and ending scores.
    pub entries: Vec<[f32; 2]>,
}

impl Default for PatternTables {
    fn default() -> Self {
        PatternTables {
            entries: vec![[0.0; 2]; ENTRIES],
        }
    }
}

/// The table entries (`window * PATTERNS + pattern`) of `color`'s men in `position`, then
/// those of its opponent's.
pub fn entries_of(position: &Position, color: Color) -> [[u32; WINDOWS]; 2] {
    let [black, white] = both_sides(position);
    let entries = |patterns: [usize; WINDOWS]| -> [u32; WINDOWS] {
        std::array::from_fn(|window| (window * PATTERNS + patterns[window]) as u32)
    };
    match color {
        Color::Black => [entries(black), entries(white)],
        Color::White => [entries(white), entries(black)],
    }
}

impl PatternTables {
    /// The worth of one side's `entries` (as [`entries_of`] gives them) when `share` of the
    /// pieces are gone: each entry's opening score plus `share` times its ending score.
    pub fn worth(&self, entries: &[u32; WINDOWS], share: f32) -> f32 {
        entries
            .iter()
            .map(|&entry| {
                let [opening, ending] = self.entries[entry as usize];
                opening + share * ending
            })
            .sum()
    }

    /// The tables' score of `position` for `color` (hundredths of a man) when `share` of the
    /// pieces are gone (the position's [`ending_share`], which the caller may have at hand):
    /// its patterns' worth less its opponent's.
    pub fn score_at(&self, position: &Position, color: Color, share: f64) -> f64 {
        let [own, other] = entries_of(position, color);
        let share = share as f32;
        f64::from(self.worth(&own, share) - self.worth(&other, share))
    }

    /// The tables' score of `position` for `color` at its own share of pieces gone.
    pub fn score(&self, position: &Position, color: Color) -> f64 {
        let pieces = position.planes().iter().map(|p| p.count_ones()).sum();
        self.score_at(position, color, ending_share(pieces))
    }

    /// Reads a patterns file (see the module docs); errors name the line and what is wrong.
    pub fn parse(text: &str) -> Result<PatternTables, String> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim() == PATTERNS_HEADER => {}
            _ => return Err(format!("line 1: expected '{PATTERNS_HEADER}'")),
        }
        let mut tables = PatternTables::default();
        let mut seen = vec![false; ENTRIES];
        for (n, line) in lines {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = n + 1;
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [window, pattern, opening, ending] = fields[..] else {
                return Err(format!(
                    "line {at}: expected 'WINDOW PATTERN OPENING ENDING', got '{line}'"
                ));
            };
            let index = |text: &str, what: &str, below: usize| {
                text.parse::<usize>()
                    .ok()
                    .filter(|&v| v < below)
                    .ok_or_else(|| format!("line {at}: {what} '{text}' is not 0 to {}", below - 1))
            };
            let score = |text: &str| {
                text.parse::<f32>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| format!("line {at}: '{text}' is not a number"))
            };
            let entry =
                index(window, "window", WINDOWS)? * PATTERNS + index(pattern, "pattern", PATTERNS)?;
            if std::mem::replace(&mut seen[entry], true) {
                return Err(format!(
                    "line {at}: window {window} pattern {pattern} is given twice"
                ));
            }
            tables.entries[entry] = [score(opening)?, score(ending)?];
        }
        Ok(tables)
    }

    /// The tables in the format [`PatternTables::parse`] reads (entries worth 0 left out),
    /// after `comment` lines.
    pub fn to_text(&self, comment: &str) -> String {
        let mut text = format!("{PATTERNS_HEADER}\n");
        for line in comment.lines() {
            text.push_str(&format!("# {line}\n"));
        }
        for (entry, &[opening, ending]) in self.entries.iter().enumerate() {
            if opening != 0.0 || ending != 0.0 {
                text.push_str(&format!(
                    "{} {} {opening} {ending}\n",
                    entry / PATTERNS,
                    entry % PATTERNS
                ));
            }
        }
        text
    }

    /// The built-in tables, fitted on top of the built-in knowledge weights (shared: parsed
    /// once).
    pub fn built_in() -> Arc<PatternTables> {
        static BUILT_IN: OnceLock<Arc<PatternTables>> = OnceLock::new();
        BUILT_IN
            .get_or_init(|| {
                let tables = PatternTables::parse(BUILT_IN_TABLES)
                    .expect("the built-in pattern tables are well formed");
                Arc::new(tables)
            })
            .clone()
    }

    /// Reads a patterns file from disk (errors name the file).
    pub fn load(path: &std::path::Path) -> Result<PatternTables, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        PatternTables::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::checkers::Checkers;
    use crate::game::Game;
    use crate::search::SearchGame as _;
    use rand::Rng as _;

    /// The patterns of a side read square by square from the board's geometry: square n's
    /// row and column as the side sees the board, each window's squares in square order.
    fn patterns_by_squares(own: u32, other: u32) -> [usize; WINDOWS] {
        std::array::from_fn(|window| {
            let (first_row, first_column) = (2 * (window / 3), 2 * (window % 3));
            let mut pattern = 0;
            let mut digit = 1;
            for bit in 0..32 {
                let row = bit / 4;
                let column = 2 * (3 - bit % 4) + (row & 1);
                if (first_row..first_row + 4).contains(&row)
                    && (first_column..first_column + 4).contains(&column)
                {
                    pattern += digit * (own >> bit & 1) as usize;
                    pattern += 2 * digit * (other >> bit & 1) as usize;
                    digit *= 3;
                }
            }
            assert_eq!(digit, PATTERNS, "eight squares in window {window}");
            pattern
        })
    }

    fn random_tables(seed: u64) -> PatternTables {
        let mut rng = crate::rng::seeded(seed);
        PatternTables {
            entries: (0..ENTRIES)
                .map(|_| [rng.random_range(-9.0..9.0), rng.random_range(-9.0..9.0)])
                .collect(),
        }
    }

    #[test]
    fn windows_read_the_squares_of_the_board() {
        // The start: Black's men fill rows 0-2, White's rows 5-7, the same from either end.
        let start = Checkers::new();
        let [black, white] = both_sides(start.position());
        assert_eq!(black, white);
        // Window 0 (rows 0-3, columns 0-3): six own men, two empty squares in row 3.
        assert_eq!(black[0], 1 + 3 + 9 + 27 + 81 + 243);
        // Window 3 (rows 2-5): own men in row 2, opponent's in row 5.
        assert_eq!(black[3], 1 + 3 + 2 * (729 + 2187));
        let mut rng = crate::rng::seeded(3);
        for _ in 0..2000 {
            let own: u32 = rng.random();
            let other = rng.random::<u32>() & !own;
            assert_eq!(window_patterns(own, other), patterns_by_squares(own, other));
        }
    }

    #[test]
    fn reversed_colours_score_the_same_for_their_side() {
        let tables = random_tables(7);
        let mut rng = crate::rng::seeded(9);
        let mut scratch = Vec::new();
        for _ in 0..30 {
            let mut game = Checkers::new();
            while game.outcome().is_none() && game.ply() < 120 {
                let position = game.position();
                let [black_men, black_kings, white_men, white_kings] =
                    position.planes().map(u32::reverse_bits);
                let reversed = Position::from_planes(
                    [white_men, white_kings, black_men, black_kings],
                    position.side_to_move().opponent(),
                )
                .unwrap();
                let score = tables.score(position, Color::Black);
                assert!((score + tables.score(position, Color::White)).abs() < 1e-3);
                assert!((score - tables.score(&reversed, Color::White)).abs() < 1e-3);
                let mv = game.random_move(&mut rng, &mut scratch).unwrap();
                game.play(mv);
            }
        }
    }

    #[test]
    fn tables_are_written_and_read_back() {
        let mut tables = PatternTables::default();
        tables.entries[5] = [1.5, -2.25];
        tables.entries[ENTRIES - 1] = [0.0, 3.0];
        let text = tables.to_text("a test\nof two lines");
        assert!(text.starts_with(&format!("{PATTERNS_HEADER}\n# a test\n# of two lines\n")));
        assert_eq!(PatternTables::parse(&text).unwrap(), tables);
        for (bad, error) in [
            ("9 0 1 2", "line 2: window '9' is not 0 to 8"),
            ("0 6561 1 2", "line 2: pattern '6561' is not 0 to 6560"),
            ("0 1 x 2", "line 2: 'x' is not a number"),
            (
                "0 1 2",
                "line 2: expected 'WINDOW PATTERN OPENING ENDING', got '0 1 2'",
            ),
            (
                "0 1 2 3\n0 1 2 3",
                "line 3: window 0 pattern 1 is given twice",
            ),
        ] {
            let text = format!("{PATTERNS_HEADER}\n{bad}\n");
            assert_eq!(PatternTables::parse(&text).unwrap_err(), error);
        }
        assert!(PatternTables::parse("0 1 2 3")
            .unwrap_err()
            .starts_with("line 1: expected"));
    }

    #[test]
    fn the_built_in_tables_load_and_leave_the_start_balanced() {
        let tables = PatternTables::built_in();
        let used = tables.entries.iter().filter(|e| **e != [0.0; 2]).count();
        assert_eq!(used, 9480);
        let start = Checkers::new();
        assert_eq!(tables.score(start.position(), Color::Black), 0.0);
        let after = Checkers::from_fen(
            "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15",
        )
        .unwrap();
        assert_ne!(tables.score(after.position(), Color::Black), 0.0);
    }
}

//! Move books: positions with the move a player plays there without searching (an opening
//! book in the engine sense; [`crate::play::openings`] holds the start positions of
//! tournament games instead). `arena book` builds one from the player's own deep searches.
//!
//! The file is text, one position per line, tab-separated:
//!
//! ```text
//! # comment
//! POSITION<TAB>MOVE<TAB>SCORE<TAB>DEPTH
//! W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15<TAB>23-19<TAB>-4<TAB>19
//! ```
//!
//! POSITION is [`Game::position_text`] (a FEN for checkers), MOVE the move in the game's
//! notation, SCORE the search's centi-score for the side to move and DEPTH its depth (both
//! for the reader; the player uses the move only).

use crate::game::Game;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::marker::PhantomData;
use std::path::Path;

/// One book move with the search figures it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move in the game's notation.
    pub mv: String,
    /// The search's score for the side to move (centi-scores).
    pub score: i32,
    /// The depth searched.
    pub depth: u32,
}

/// A move book for games of type `G`.
#[derive(Clone, Debug)]
pub struct MoveBook<G: Game> {
    entries: HashMap<String, BookMove>,
    game: PhantomData<fn() -> G>,
}

impl<G: Game> Default for MoveBook<G> {
    fn default() -> MoveBook<G> {
        MoveBook {
            entries: HashMap::new(),
            game: PhantomData,
        }
    }
}

impl<G: Game> MoveBook<G> {
    /// Reads a book file; every position and move is checked, and an error names the file,
    /// the line and what is wrong.
    pub fn load(path: &Path) -> Result<MoveBook<G>, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        MoveBook::parse(&text).map_err(|err| format!("{}:{err}", path.display()))
    }

    /// Reads a book from its text ([`MoveBook::load`] without the file); errors start with
    /// the line number.
    pub fn parse(text: &str) -> Result<MoveBook<G>, String> {
        let mut book = MoveBook::default();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |what: String| format!("{}: {what}", number + 1);
            let fields: Vec<&str> = line.split('\t').collect();
            let [position, mv, score, depth] = fields.as_slice() else {
                return Err(at(format!(
                    "expected POSITION, MOVE, SCORE and DEPTH separated by tabs, found {} field(s)",
                    fields.len()
                )));
            };
            let game = G::from_position_text(position).map_err(|e| at(e.to_string()))?;
            let parsed = game
                .parse_move(mv)
                .map_err(|e| at(format!("move '{mv}': {e}")))?;
            let score = score
                .parse()
                .map_err(|_| at(format!("score '{score}' is not a whole number")))?;
            let depth = depth
                .parse()
                .map_err(|_| at(format!("depth '{depth}' is not a whole number")))?;
            let entry = BookMove {
                mv: game.move_to_text(parsed),
                score,
                depth,
            };
            if book.entries.insert(game.position_text(), entry).is_some() {
                return Err(at(format!("position {position} is in the book twice")));
            }
        }
        Ok(book)
    }

    /// The book as text, positions sorted (the file format above).
    pub fn to_text(&self) -> String {
        let mut positions: Vec<&String> = self.entries.keys().collect();
        positions.sort();
        let mut text = String::from("# tmbot move book: POSITION, MOVE, SCORE, DEPTH\n");
        for position in positions {
            let entry = &self.entries[position];
            let _ = writeln!(
                text,
                "{position}\t{}\t{}\t{}",
                entry.mv, entry.score, entry.depth
            );
        }
        text
    }

    /// Records `entry` for the position of `game` (replacing what was there).
    pub fn insert(&mut self, game: &G, entry: BookMove) {
        self.entries.insert(game.position_text(), entry);
    }

    /// The book's entry for the position of `game`.
    pub fn entry(&self, game: &G) -> Option<&BookMove> {
        self.entries.get(&game.position_text())
    }

    /// The book move for the position of `game`, when the book has one that is legal there.
    pub fn probe(&self, game: &G) -> Option<G::Move> {
        self.entry(game)
            .and_then(|entry| game.parse_move(&entry.mv).ok())
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the book has no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::checkers::Checkers;

    #[test]
    fn books_round_trip_and_answer_their_positions() {
        let mut book = MoveBook::<Checkers>::default();
        let mut game = Checkers::new();
        book.insert(
            &game,
            BookMove {
                mv: "11-15".into(),
                score: 3,
                depth: 19,
            },
        );
        game.try_play("11-15").unwrap();
        book.insert(
            &game,
            BookMove {
                mv: "23-19".into(),
                score: -3,
                depth: 18,
            },
        );
        let text = book.to_text();
        let read = MoveBook::<Checkers>::parse(&text).unwrap();
        assert_eq!(read.len(), 2);
        assert_eq!(read.to_text(), text);
        assert_eq!(
            read.probe(&game).map(|mv| game.move_to_text(mv)),
            Some("23-19".to_string())
        );
        game.try_play("23-19").unwrap();
        assert_eq!(read.probe(&game), None);
    }

    #[test]
    fn bad_lines_are_named_with_what_is_wrong() {
        let start = Checkers::new().position_text();
        let cases = [
            (format!("{start}\t11-15\t0"), "1: expected POSITION"),
            (format!("# c\n{start}\t11-20\t0\t5"), "2: move '11-20'"),
            (format!("{start}\t11-15\tx\t5"), "1: score 'x'"),
            (format!("{start}\t11-15\t0\t-5"), "1: depth '-5'"),
            ("B:W1:B1\t1-5\t0\t1".to_string(), "1: "),
            (
                format!("{start}\t11-15\t0\t5\n{start}\t9-13\t0\t5"),
                "2: position",
            ),
        ];
        for (text, expected) in cases {
            let err = MoveBook::<Checkers>::parse(&text).unwrap_err();
            assert!(err.starts_with(expected), "{text:?}: {err}");
        }
    }
}

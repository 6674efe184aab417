//! Opening books: where each game of a series starts, and in which order.
//!
//! A book is a plain text file with one opening per line: moves separated by spaces, in the
//! game's own notation (`e5` for Hex, `11-15` / `22x15` for checkers). A `#` starts a
//! comment; a line that is only a comment (or blank) is skipped, and a comment after the
//! moves becomes the opening's [`Opening::label`] (the checkers deck writes the ACF ballot
//! number there). The book itself knows no game: [`Book::check`] and [`Book::apply`] replay
//! the moves on a start position of any [`Game`].
//!
//! The shipped books in `openings/` are made by the generators here ([`hex_book_text`],
//! [`acf_deck`] with [`acf_deck_text`]); tests check that the files equal their output.

use crate::game::checkers::Checkers;
use crate::game::hex::geometry::cell_name;
use crate::game::{Game, MoveError, ParseError};
use crate::rng::substream;
use rand::Rng as _;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// One opening: the moves to play from the start position, and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The moves in the game's notation, first move first.
    pub moves: Vec<String>,
    /// The 1-based line of the book the opening was read from.
    pub line: usize,
    /// The comment after the moves on that line, trimmed (`None` when there is none).
    pub label: Option<String>,
}

/// A named list of openings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    /// The book's name in messages: the file path for a loaded book.
    pub name: String,
    /// The openings in file order.
    pub openings: Vec<Opening>,
}

/// Why a book could not be read or replayed. Every variant names the book; line errors
/// also name the line and the move.
#[derive(Debug, Error)]
pub enum BookError {
    /// The file could not be read.
    #[error("cannot read opening book {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The book holds no opening.
    #[error("opening book {book} has no openings")]
    Empty {
        /// The book's name.
        book: String,
    },
    /// A move of an opening does not parse or is not legal where it is played.
    #[error("{book}:{line}: move {ply} '{text}': {source}")]
    Move {
        /// The book's name.
        book: String,
        /// The 1-based line of the opening.
        line: usize,
        /// The 1-based position of the move in the opening.
        ply: usize,
        /// The move as written.
        text: String,
        /// Why it was rejected.
        source: Box<MoveError>,
    },
    /// An opening index past the end of the book.
    #[error("opening book {book} has {len} openings, there is no opening {index}")]
    NoSuchOpening {
        /// The book's name.
        book: String,
        /// The index asked for (0-based).
        index: usize,
        /// The number of openings.
        len: usize,
    },
}

/// The order in which a series of games walks through a book.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// File order, starting again at the top after the last opening.
    Sequential,
    /// A seeded random permutation of the book, a fresh one for each pass.
    Shuffled,
}

impl Book {
    /// Reads a book file; its name is the path.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let text = std::fs::read_to_string(path).map_err(|source| BookError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Book::parse(path.display().to_string(), &text)
    }

    /// Parses book text (see the module documentation for the format). The moves are not
    /// checked against any game here; see [`Book::check`].
    pub fn parse(name: impl Into<String>, text: &str) -> Result<Book, BookError> {
        let name = name.into();
        let openings: Vec<Opening> = text
            .lines()
            .enumerate()
            .filter_map(|(index, raw)| {
                let (body, comment) = match raw.split_once('#') {
                    Some((body, comment)) => (body, Some(comment.trim())),
                    None => (raw, None),
                };
                let moves: Vec<String> = body.split_whitespace().map(str::to_string).collect();
                (!moves.is_empty()).then(|| Opening {
                    moves,
                    line: index + 1,
                    label: comment.filter(|c| !c.is_empty()).map(str::to_string),
                })
            })
            .collect();
        if openings.is_empty() {
            return Err(BookError::Empty { book: name });
        }
        Ok(Book { name, openings })
    }

    /// The number of openings.
    pub fn len(&self) -> usize {
        self.openings.len()
    }

    /// Whether the book holds no opening (a parsed book never is).
    pub fn is_empty(&self) -> bool {
        self.openings.is_empty()
    }

    /// Checks that every opening replays legally from `start`; the first failure is
    /// returned, naming its line and move.
    pub fn check<G: Game>(&self, start: &G) -> Result<(), BookError> {
        (0..self.len()).try_for_each(|index| self.apply(index, start).map(|_| ()))
    }

    /// Plays opening `index` (0-based) from `start`, returning the position reached and the
    /// moves played.
    pub fn apply<G: Game>(&self, index: usize, start: &G) -> Result<(G, Vec<G::Move>), BookError> {
        let opening = self
            .openings
            .get(index)
            .ok_or_else(|| BookError::NoSuchOpening {
                book: self.name.clone(),
                index,
                len: self.len(),
            })?;
        let mut game = start.clone();
        let mut moves = Vec::with_capacity(opening.moves.len());
        for (ply, text) in opening.moves.iter().enumerate() {
            let mv = game.try_play(text).map_err(|source| BookError::Move {
                book: self.name.clone(),
                line: opening.line,
                ply: ply + 1,
                text: text.clone(),
                source: Box::new(source),
            })?;
            moves.push(mv);
        }
        Ok((game, moves))
    }

    /// The opening index for each of `count` opening slots of a series.
    ///
    /// [`Order::Sequential`] takes the book in file order and wraps around. [`Order::Shuffled`]
    /// deals the book in passes: pass `p` is a Fisher-Yates shuffle of every index drawn from
    /// [`substream`]`(seed, p)`, so each full pass uses every opening once and the schedule
    /// depends only on the book's length, `count` and `seed`. Empty for an empty book.
    pub fn schedule(&self, count: usize, order: Order, seed: u64) -> Vec<usize> {
        let len = self.len();
        if len == 0 {
            return Vec::new();
        }
        match order {
            Order::Sequential => (0..count).map(|slot| slot % len).collect(),
            Order::Shuffled => {
                let mut slots = Vec::with_capacity(count);
                let mut pass = 0u64;
                while slots.len() < count {
                    let mut rng = substream(seed, pass);
                    let mut deck: Vec<usize> = (0..len).collect();
                    for i in (1..len).rev() {
                        deck.swap(i, rng.random_range(0..=i));
                    }
                    let take = (count - slots.len()).min(len);
                    slots.extend_from_slice(&deck[..take]);
                    pass += 1;
                }
                slots
            }
        }
    }
}

/// Every 1-ply opening of a `size` x `size` Hex board: each cell's name, row by row (`a1`,
/// `b1`, ..., then `a2`, ...), as [`crate::game::hex::Hex`] names cells.
pub fn hex_first_moves(size: usize) -> Vec<String> {
    (0..size)
        .flat_map(|y| (0..size).map(move |x| cell_name(x, y)))
        .collect()
}

/// The text of the shipped book `openings/hex-<size>.txt`: a header comment, then one
/// opening per line from [`hex_first_moves`].
pub fn hex_book_text(size: usize) -> String {
    let moves = hex_first_moves(size);
    let mut text = format!(
        "# Hex {size}x{size}: every 1-ply opening, Black's first stone on each of the {} cells.\n\
         # Cells are column letter + row number, a1 top-left, listed row by row.\n\
         # Made by tmbot::play::openings::hex_book_text({size}); regenerate, do not edit.\n",
        moves.len()
    );
    for mv in moves {
        text.push_str(&mv);
        text.push('\n');
    }
    text
}

/// The ACF numbers of the 18 barred 3-move ballots (out of 174): the official deck is the
/// other 156. The list agrees with CheckerBoard's 3-move table.
pub const ACF_BARRED: [u16; 18] = [
    3, 13, 26, 35, 44, 45, 48, 52, 77, 88, 94, 109, 114, 137, 145, 156, 168, 171,
];

/// One ballot of the ACF 3-move deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ballot {
    /// The ACF ballot number (1..174).
    pub number: u16,
    /// The three moves as the project writes them (`9-13`, `13x22`).
    pub moves: Vec<String>,
}

/// Why the ballot file could not be turned into a deck.
#[derive(Debug, Error)]
pub enum DeckError {
    /// The file is not JSON with an `all` object of key -> FEN.
    #[error("ballot file: {0}")]
    Json(#[from] serde_json::Error),
    /// A key is not a ballot number followed by moves.
    #[error("ballot key '{0}' is not a number followed by moves")]
    Key(String),
    /// A move of a ballot is not legal.
    #[error("ballot '{key}': move '{text}': {source}")]
    Move {
        /// The ballot's key in the file.
        key: String,
        /// The move as written there.
        text: String,
        /// Why it was rejected.
        source: MoveError,
    },
    /// A ballot's FEN does not parse.
    #[error("ballot '{key}': {source}")]
    Fen {
        /// The ballot's key in the file.
        key: String,
        /// The parse error.
        source: ParseError,
    },
    /// The moves do not reach the position the file gives.
    #[error("ballot '{key}': the moves reach {reached}, the file gives {expected}")]
    Position {
        /// The ballot's key in the file.
        key: String,
        /// The FEN the moves reach.
        reached: String,
        /// The FEN in the file.
        expected: String,
    },
}

/// The part of pydraughts' `ballots_3move_english.json` the deck is built from.
#[derive(Deserialize)]
struct BallotFile {
    /// `"001 09-13 21-17 05-09"` -> FEN after the moves.
    all: BTreeMap<String, String>,
}

/// The official ACF 3-move deck from pydraughts' ballot file: every ballot of its `all`
/// list except [`ACF_BARRED`], in ballot-number order, with the moves rewritten in the
/// project's notation. Each ballot is replayed from the start position and must reach
/// exactly the file's position (compared as positions, not as FEN strings).
pub fn acf_deck(json: &str) -> Result<Vec<Ballot>, DeckError> {
    let file: BallotFile = serde_json::from_str(json)?;
    let mut deck = Vec::new();
    for (key, fen) in &file.all {
        let mut words = key.split_whitespace();
        let number: u16 = words
            .next()
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| DeckError::Key(key.clone()))?;
        let given: Vec<&str> = words.collect();
        if given.is_empty() {
            return Err(DeckError::Key(key.clone()));
        }
        let mut game = Checkers::new();
        let mut moves = Vec::with_capacity(given.len());
        for text in given {
            let mv = game.parse_move(text).map_err(|source| DeckError::Move {
                key: key.clone(),
                text: text.to_string(),
                source,
            })?;
            moves.push(game.move_to_text(mv));
            game.play(mv);
        }
        let expected = Checkers::from_fen(fen).map_err(|source| DeckError::Fen {
            key: key.clone(),
            source,
        })?;
        if game.position() != expected.position() {
            return Err(DeckError::Position {
                key: key.clone(),
                reached: game.position_text(),
                expected: fen.clone(),
            });
        }
        if !ACF_BARRED.contains(&number) {
            deck.push(Ballot { number, moves });
        }
    }
    deck.sort_by_key(|ballot| ballot.number);
    Ok(deck)
}

/// The text of the shipped book `openings/checkers-3move.txt`: a header comment, then one
/// ballot per line with its ACF number as a trailing comment (`9-13 21-17 5-9  # ACF 1`).
pub fn acf_deck_text(deck: &[Ballot]) -> String {
    let barred: Vec<String> = ACF_BARRED.iter().map(u16::to_string).collect();
    let mut text = format!(
        "# English checkers: the ACF 3-move deck, {} ballots, each to be played with both colours.\n\
         # The 174 three-move sequences less the 18 barred ones ({}).\n\
         # Moves in PDN; the comment is the ACF ballot number. Source: pydraughts'\n\
         # ballots_3move_english.json; every ballot replays to the file's position.\n\
         # Made by tmbot::play::openings::acf_deck_text; regenerate, do not edit.\n",
        deck.len(),
        barred.join(" ")
    );
    for ballot in deck {
        writeln!(text, "{}  # ACF {}", ballot.moves.join(" "), ballot.number)
            .expect("writing to a String cannot fail");
    }
    text
}

/// Openings that go on from each opening of `book` (replayed from `start`) by `plies`
/// uniformly random legal moves, `per_opening` of them an opening: varied starts for
/// self-play that must not repeat itself (data for fitting an evaluation), as a book's text,
/// each line labelled with the opening it extends. Extension `k` of opening `i` draws from
/// [`substream`]`(seed, i x per_opening + k)`; an extension that ends the game or repeats an
/// earlier one is left out.
pub fn random_extensions_text<G: Game>(
    book: &Book,
    start: &G,
    per_opening: usize,
    plies: usize,
    seed: u64,
) -> Result<String, BookError> {
    let mut text = format!(
        "# The {} openings of {}, each extended {per_opening} times by {plies} random legal\n\
         # moves (seed {seed}). Made by tmbot::play::openings::random_extensions_text;\n\
         # regenerate, do not edit.\n",
        book.len(),
        book.name
    );
    let mut legal = Vec::new();
    for (index, opening) in book.openings.iter().enumerate() {
        let (opened, _) = book.apply(index, start)?;
        let mut seen = std::collections::BTreeSet::new();
        'extension: for k in 0..per_opening {
            let mut rng = substream(seed, (index * per_opening + k) as u64);
            let mut game = opened.clone();
            let mut moves = opening.moves.clone();
            for _ in 0..plies {
                game.legal_moves(&mut legal);
                if legal.is_empty() {
                    continue 'extension;
                }
                let mv = legal[rng.random_range(0..legal.len())];
                moves.push(game.move_to_text(mv));
                game.play(mv);
            }
            if game.outcome().is_some() || !seen.insert(moves.clone()) {
                continue;
            }
            let label = opening.label.as_deref().unwrap_or("");
            writeln!(text, "{}  # {label}", moves.join(" "))
                .expect("writing to a String cannot fail");
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::hex::{Hex, HexMove};
    use std::collections::BTreeSet;

    const OPENINGS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openings");
    const SHARED_DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data");

    fn hex(size: usize) -> Hex {
        Hex::new(size, size).unwrap()
    }

    /// Compares a shipped file with the generator's text, or rewrites the file when
    /// `TMBOT_WRITE_OPENINGS` is set.
    fn shipped_matches(file: &str, expected: &str) {
        let path = Path::new(OPENINGS_DIR).join(file);
        if std::env::var_os("TMBOT_WRITE_OPENINGS").is_some() {
            std::fs::write(&path, expected).unwrap();
            return;
        }
        let shipped = std::fs::read_to_string(&path).unwrap();
        assert!(
            shipped == expected,
            "{} differs from its generator (rerun with TMBOT_WRITE_OPENINGS=1)",
            path.display()
        );
    }

    /// The ballot file, or `None` (with a message) when the shared data folder is absent and
    /// `TMBOT_REQUIRE_SHARED_DATA` is not set.
    fn ballot_file() -> Option<String> {
        let data = Path::new(SHARED_DATA);
        if !data.is_dir() {
            assert!(
                std::env::var_os("TMBOT_REQUIRE_SHARED_DATA").is_none(),
                "TMBOT_REQUIRE_SHARED_DATA is set but {} is missing",
                data.display()
            );
            println!("skipped: {} is missing", data.display());
            return None;
        }
        let path = data.join("checkers/ballots_3move_english.json");
        Some(std::fs::read_to_string(&path).unwrap())
    }

    #[test]
    fn parse_skips_comments_and_keeps_lines_and_labels() {
        let text = "# header\n\n  a1 b2  \n# c3\nc3 d4 # second one\ne5 #\n";
        let book = Book::parse("t", text).unwrap();
        assert_eq!(book.name, "t");
        assert_eq!(
            book.openings,
            vec![
                Opening {
                    moves: vec!["a1".into(), "b2".into()],
                    line: 3,
                    label: None
                },
                Opening {
                    moves: vec!["c3".into(), "d4".into()],
                    line: 5,
                    label: Some("second one".into())
                },
                Opening {
                    moves: vec!["e5".into()],
                    line: 6,
                    label: None
                },
            ]
        );
    }

    #[test]
    fn a_book_without_openings_is_an_error() {
        let err = Book::parse("blank", "# only a header\n\n").unwrap_err();
        assert!(matches!(err, BookError::Empty { .. }));
        assert!(err.to_string().contains("blank"));
    }

    #[test]
    fn load_names_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("none.txt");
        let err = Book::load(&path).unwrap_err();
        assert!(matches!(err, BookError::Io { .. }));
        assert!(err.to_string().contains("none.txt"), "{err}");
    }

    #[test]
    fn load_names_the_book_after_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.txt");
        std::fs::write(&path, "a1\n").unwrap();
        let book = Book::load(&path).unwrap();
        assert_eq!(book.name, path.display().to_string());
        assert_eq!(book.len(), 1);
    }

    #[test]
    fn a_bad_line_names_the_file_line_and_move() {
        let book = Book::parse("bad.txt", "a1\n# comment\nb2 zz9 c3\n").unwrap();
        let err = book.check(&hex(5)).unwrap_err();
        match &err {
            BookError::Move {
                line,
                ply,
                text,
                source,
                ..
            } => {
                assert_eq!((*line, *ply, text.as_str()), (3, 2, "zz9"));
                assert!(matches!(**source, MoveError::Parse(_)));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(
            err.to_string().starts_with("bad.txt:3: move 2 'zz9'"),
            "{err}"
        );
    }

    #[test]
    fn an_illegal_move_names_the_line_and_move() {
        let book = Book::parse("dup", "a1 b1\nc2 c2\n").unwrap();
        let err = book.check(&hex(3)).unwrap_err();
        match err {
            BookError::Move {
                line, ply, source, ..
            } => {
                assert_eq!((line, ply), (2, 2));
                assert!(matches!(*source, MoveError::Illegal(_)));
            }
            other => panic!("unexpected {other:?}"),
        }
        let checkers = Book::parse("ck", "11-15 22-18 9-13\n").unwrap();
        let err = checkers.check(&Checkers::new()).unwrap_err();
        assert!(err.to_string().starts_with("ck:1: move 3 '9-13'"), "{err}");
    }

    #[test]
    fn apply_plays_the_opening_from_the_start_given() {
        let book = Book::parse("ck", "11-15 23-19 8-11\n9-13 22-17 13-22\n").unwrap();
        let start = Checkers::new();
        let (game, moves) = book.apply(1, &start).unwrap();
        assert_eq!(moves.len(), 3);
        assert_eq!(game.ply(), 3);
        assert_eq!(start.ply(), 0);
        let mut replay = Checkers::new();
        let texts: Vec<String> = moves
            .iter()
            .map(|&mv| {
                let text = replay.move_to_text(mv);
                replay.play(mv);
                text
            })
            .collect();
        assert_eq!(texts, ["9-13", "22-17", "13x22"]);
        assert!(matches!(
            book.apply(2, &start),
            Err(BookError::NoSuchOpening {
                index: 2,
                len: 2,
                ..
            })
        ));
    }

    /// A book of `len` (at most 25) one-move openings.
    fn book_of(len: usize) -> Book {
        let text: String = hex_first_moves(5)
            .into_iter()
            .take(len)
            .map(|mv| mv + "\n")
            .collect();
        Book::parse("b", &text).unwrap()
    }

    #[test]
    fn sequential_schedule_wraps_around() {
        let book = book_of(3);
        assert_eq!(
            book.schedule(7, Order::Sequential, 99),
            [0, 1, 2, 0, 1, 2, 0]
        );
        assert!(book.schedule(0, Order::Sequential, 0).is_empty());
    }

    #[test]
    fn shuffled_schedule_is_deterministic_and_each_pass_is_a_permutation() {
        let book = book_of(10);
        let schedule = book.schedule(35, Order::Shuffled, 7);
        assert_eq!(schedule.len(), 35);
        assert_eq!(schedule, book.schedule(35, Order::Shuffled, 7));
        assert_ne!(schedule, book.schedule(35, Order::Shuffled, 8));
        let passes: Vec<&[usize]> = schedule.chunks(10).collect();
        for pass in &passes[..3] {
            let mut sorted = pass.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        }
        // Passes are reshuffled, and a shorter schedule is a prefix of a longer one.
        assert_ne!(passes[0], passes[1]);
        assert_eq!(schedule[..12], book.schedule(12, Order::Shuffled, 7)[..]);
        // The last, partial pass has no repeats.
        let last: BTreeSet<usize> = passes[3].iter().copied().collect();
        assert_eq!(last.len(), 5);
    }

    #[test]
    fn shuffled_schedule_of_one_opening() {
        assert_eq!(book_of(1).schedule(3, Order::Shuffled, 1), [0, 0, 0]);
    }

    #[test]
    fn hex_first_moves_go_row_by_row() {
        assert_eq!(
            hex_first_moves(3),
            ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
        );
        let book = Book::parse("hex-7", &hex_book_text(7)).unwrap();
        assert_eq!(book.len(), 49);
        assert_eq!(book.openings[0].line, 4);
        book.check(&hex(7)).unwrap();
        let cells: BTreeSet<u16> = (0..book.len())
            .map(|i| {
                let (_, moves) = book.apply(i, &hex(7)).unwrap();
                match moves[..] {
                    [HexMove::Cell(cell)] => cell,
                    _ => panic!("opening {i} is not one stone"),
                }
            })
            .collect();
        assert_eq!(cells.len(), 49);
    }

    #[test]
    fn shipped_hex_books_are_the_generators_output() {
        for size in [7, 9, 11, 13] {
            let file = format!("hex-{size}.txt");
            shipped_matches(&file, &hex_book_text(size));
            let book = Book::load(&Path::new(OPENINGS_DIR).join(&file)).unwrap();
            assert_eq!(book.len(), size * size);
            book.check(&hex(size)).unwrap();
        }
    }

    #[test]
    fn shipped_checkers_deck_replays_and_skips_the_barred_ballots() {
        let book = Book::load(&Path::new(OPENINGS_DIR).join("checkers-3move.txt")).unwrap();
        assert_eq!(book.len(), 156);
        book.check(&Checkers::new()).unwrap();
        let numbers: Vec<u16> = book
            .openings
            .iter()
            .map(|o| {
                assert_eq!(o.moves.len(), 3);
                let label = o.label.as_deref().unwrap();
                label.strip_prefix("ACF ").unwrap().parse().unwrap()
            })
            .collect();
        let expected: Vec<u16> = (1..=174).filter(|n| !ACF_BARRED.contains(n)).collect();
        assert_eq!(numbers, expected);
    }

    #[test]
    fn random_extensions_of_the_deck_are_shipped_and_replay() {
        let deck_file = Path::new(OPENINGS_DIR).join("checkers-3move.txt");
        let deck = Book::parse(
            "checkers-3move.txt",
            &std::fs::read_to_string(deck_file).unwrap(),
        )
        .unwrap();
        let text = random_extensions_text(&deck, &Checkers::new(), 64, 3, 1).unwrap();
        shipped_matches("checkers-3move-random3.txt", &text);
        let extended = Book::parse("extended", &text).unwrap();
        extended.check(&Checkers::new()).unwrap();
        // Most draws give a new line, every line is another, each starts with its ballot.
        assert!(extended.len() > 156 * 64 / 3, "{}", extended.len());
        let distinct: BTreeSet<&Vec<String>> = extended.openings.iter().map(|o| &o.moves).collect();
        assert_eq!(distinct.len(), extended.len());
        for opening in &extended.openings {
            assert_eq!(opening.moves.len(), 6);
            let ballot = deck
                .openings
                .iter()
                .find(|b| Some(b.label.as_deref().unwrap()) == opening.label.as_deref())
                .unwrap();
            assert_eq!(opening.moves[..3], ballot.moves[..]);
        }
    }

    #[test]
    fn acf_deck_is_built_from_the_ballot_file() {
        let Some(json) = ballot_file() else {
            return;
        };
        let deck = acf_deck(&json).unwrap();
        assert_eq!(deck.len(), 156);
        assert_eq!(deck[0].moves, ["9-13", "21-17", "5-9"]);
        assert_eq!(deck[2].moves, ["9-13", "22-17", "13x22"]);
        shipped_matches("checkers-3move.txt", &acf_deck_text(&deck));

        // Reconcile the file's own lists with the barred set: every `lost` ballot is barred,
        // and the one barred ballot missing from `lost` (which names ballot 13 twice) is 26,
        // listed in `standard` by mistake.
        let lists: serde_json::Value = serde_json::from_str(&json).unwrap();
        let numbers = |list: &str| -> Vec<u16> {
            lists[list]
                .as_array()
                .unwrap()
                .iter()
                .map(|key| key.as_str().unwrap()[..3].parse().unwrap())
                .collect()
        };
        let lost = numbers("lost");
        let standard = numbers("standard");
        assert_eq!(lost.len(), 18);
        let lost: BTreeSet<u16> = lost.into_iter().collect();
        let barred: BTreeSet<u16> = ACF_BARRED.into_iter().collect();
        assert_eq!(barred.difference(&lost).copied().collect::<Vec<_>>(), [26]);
        assert!(lost.is_subset(&barred));
        assert_eq!(standard.len(), 157);
        let official: Vec<u16> = standard
            .into_iter()
            .filter(|n| !barred.contains(n))
            .collect();
        assert_eq!(official, deck.iter().map(|b| b.number).collect::<Vec<_>>());
    }

    #[test]
    fn acf_deck_rejects_a_wrong_position() {
        let json = r#"{"all": {"001 09-13 21-17 05-09": "B:W17,22:B1"}}"#;
        assert!(matches!(acf_deck(json), Err(DeckError::Position { .. })));
        let json = r#"{"all": {"x 09-13": "B:W17:B1"}}"#;
        assert!(matches!(acf_deck(json), Err(DeckError::Key(_))));
    }
}

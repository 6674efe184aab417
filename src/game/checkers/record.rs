//! PDN game files in CheckerBoard's dialect: reading (tolerant of real-world mess), replaying
//! and writing.
//!
//! Reading accepts tags (`[Event "..."]`, trailing spaces allowed), move numbers `1.` and
//! `1...`, comments `{...}` and `;` to the end of the line, variations `(...)` (skipped), NAGs
//! `$n`, text glued to a move (`8-11Redoverstepped...`, taken as a comment), and the result
//! tokens `1-0` (Black, the first player, won), `0-1`, `1/2-1/2`, `*`. A game ends at its
//! result token, at the next tag after its moves, or at the end of the file. A game that does
//! not parse is reported with its line and reading resumes at the next tag line.

use super::board::Position;
use super::fen::{parse_fen, to_fen};
use super::state::{Checkers, DrawRules};
use crate::game::{Color, Game, MoveError, Outcome, ParseError};
use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while, take_while1};
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{map, recognize};
use nom::multi::many1;
use nom::sequence::{delimited, pair, preceded, tuple};
use nom::IResult;
use std::fmt::Write as _;
use std::path::Path;
use thiserror::Error;

/// The result of a game as PDN writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PdnResult {
    /// `1-0`: Black (the first player) won.
    BlackWins,
    /// `0-1`: White won.
    WhiteWins,
    /// `1/2-1/2`.
    Draw,
    /// `*`: unknown or unfinished.
    Unknown,
}

impl PdnResult {
    /// The PDN token.
    pub fn as_str(self) -> &'static str {
        match self {
            PdnResult::BlackWins => "1-0",
            PdnResult::WhiteWins => "0-1",
            PdnResult::Draw => "1/2-1/2",
            PdnResult::Unknown => "*",
        }
    }

    /// Reads a PDN result token.
    pub fn parse(text: &str) -> Option<PdnResult> {
        Some(match text.trim() {
            "1-0" => PdnResult::BlackWins,
            "0-1" => PdnResult::WhiteWins,
            "1/2-1/2" => PdnResult::Draw,
            "*" => PdnResult::Unknown,
            _ => return None,
        })
    }

    /// The result of a finished game (`None`: unfinished).
    pub fn from_outcome(outcome: Option<Outcome>) -> PdnResult {
        outcome.map_or(PdnResult::Unknown, |o| PdnResult::from_winner(o.winner))
    }

    /// The result of a decided game won by `winner` (`None`: a draw).
    pub fn from_winner(winner: Option<Color>) -> PdnResult {
        match winner {
            None => PdnResult::Draw,
            Some(Color::Black) => PdnResult::BlackWins,
            Some(Color::White) => PdnResult::WhiteWins,
        }
    }
}

/// One game of a PDN file: its tags in file order, its moves as text, its result token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PdnGame {
    /// Tag pairs, e.g. `("Event", "US National 1946")`.
    pub tags: Vec<(String, String)>,
    /// The moves in PDN text (`11-15`, `22x15`, `24x15x6`), without move numbers.
    pub moves: Vec<String>,
    /// The result token that ends the movetext (the `Result` tag's when the token is missing).
    pub result: PdnResult,
}

/// A move of a PDN game that could not be played.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("move {number} ({color}) '{text}' in {fen}: {error}")]
pub struct ReplayError {
    /// The move number as PDN counts it (`1.` is Black's and White's first moves).
    pub number: usize,
    /// The colour that was to move.
    pub color: Color,
    /// The move text as written in the file.
    pub text: String,
    /// The position (FEN) in which the move was tried.
    pub fen: String,
    /// Why it failed.
    pub error: MoveError,
}

/// Why a game of a PDN file was rejected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GameError {
    /// The text of the game does not parse.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line in the file.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The game's `FEN` tag is bad.
    #[error("FEN tag: {0}")]
    Fen(#[from] ParseError),
    /// A move is not legal.
    #[error(transparent)]
    Replay(Box<ReplayError>),
}

impl PdnGame {
    /// The value of tag `name` (case-sensitive, as PDN writes tag names).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The position the game starts from: its `FEN` tag, or the standard start.
    pub fn start_position(&self) -> Result<Position, ParseError> {
        self.tag("FEN").map_or(Ok(Position::start()), parse_fen)
    }

    /// Plays the moves from the start position. Replay applies no draw adjudication (players
    /// may play on in drawn positions); set rules on the result with [`Checkers::with_rules`].
    pub fn replay(&self) -> Result<Checkers, GameError> {
        let mut game = Checkers::from_position(self.start_position()?).with_rules(DrawRules::NONE);
        let white_first = usize::from(game.side_to_move() == Color::White);
        for (ply, text) in self.moves.iter().enumerate() {
            if let Err(error) = game.try_play(text) {
                return Err(GameError::Replay(Box::new(ReplayError {
                    number: (ply + white_first) / 2 + 1,
                    color: game.side_to_move(),
                    text: text.clone(),
                    fen: game.position_text(),
                    error,
                })));
            }
        }
        Ok(game)
    }

    /// The record of a played game with the given tags. The result is the game's outcome
    /// when it is over, else the `Result` tag's (a resignation or an agreed draw), else `*`;
    /// a missing `Result` tag is added, and a `FEN` tag when the game did not start from the
    /// standard position.
    pub fn from_game(game: &Checkers, mut tags: Vec<(String, String)>) -> PdnGame {
        let tagged = tags
            .iter()
            .find(|(n, _)| n == "Result")
            .and_then(|(_, v)| PdnResult::parse(v));
        let result = match game.outcome() {
            Some(outcome) => PdnResult::from_outcome(Some(outcome)),
            None => tagged.unwrap_or(PdnResult::Unknown),
        };
        if tagged.is_none() {
            tags.retain(|(n, _)| n != "Result");
            tags.push(("Result".into(), result.as_str().into()));
        }
        let start = *game.start_position();
        if start != Position::start() && !tags.iter().any(|(n, _)| n == "FEN") {
            tags.push(("FEN".into(), to_fen(&start)));
        }
        let mut position = start;
        let moves = game
            .moves()
            .map(|mv| {
                let text = position.move_text(&mv);
                position.apply(&mv);
                text
            })
            .collect();
        PdnGame {
            tags,
            moves,
            result,
        }
    }
}

/// Reads every game of a PDN text; entry `k` is game `k + 1`.
pub fn parse_pdn(text: &str) -> Vec<Result<PdnGame, GameError>> {
    let mut games = Vec::new();
    let mut rest = skip_separators(text);
    while !rest.is_empty() {
        match parse_game(rest) {
            Ok((after, game)) => {
                games.push(Ok(game));
                rest = after;
            }
            Err((at, message)) => {
                let offset = text.len() - at.len();
                let line = text[..offset].matches('\n').count() + 1;
                games.push(Err(GameError::Syntax { line, message }));
                rest = at.find("\n[").map_or("", |i| &at[i + 1..]);
            }
        }
        rest = skip_separators(rest);
    }
    games
}

/// Reads a PDN file (see [`parse_pdn`]).
pub fn read_pdn_file(path: &Path) -> std::io::Result<Vec<Result<PdnGame, GameError>>> {
    let bytes = std::fs::read(path)?;
    Ok(parse_pdn(&String::from_utf8_lossy(&bytes)))
}

/// The games as CheckerBoard writes them: tags, movetext with move numbers wrapped at 79
/// columns, the result token, a blank line after each game.
pub fn write_pdn(games: &[PdnGame]) -> String {
    let mut out = String::new();
    for game in games {
        for (name, value) in &game.tags {
            let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(out, "[{name} \"{escaped}\"]");
        }
        let white_first = game
            .start_position()
            .is_ok_and(|p| p.side_to_move() == Color::White);
        let offset = usize::from(white_first);
        let mut words = Vec::new();
        for (ply, text) in game.moves.iter().enumerate() {
            let number = (ply + offset) / 2 + 1;
            if (ply + offset) % 2 == 0 {
                words.push(format!("{number}."));
            } else if ply == 0 {
                words.push(format!("{number}. ..."));
            }
            words.push(text.clone());
        }
        words.push(game.result.as_str().to_string());
        let mut line = String::new();
        for word in words {
            if !line.is_empty() && line.len() + 1 + word.len() > 79 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        out.push_str(&line);
        out.push_str("\n\n");
    }
    out
}

/// Writes the games to `path` (through a temporary file renamed into place).
pub fn save_pdn(path: &Path, games: &[PdnGame]) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    std::fs::write(&temporary, write_pdn(games))?;
    std::fs::rename(&temporary, path)
}

/// A lexical element of PDN text.
enum Token {
    Tag(String, String),
    MoveNumber,
    Move(String),
    Result(PdnResult),
    /// Comments, variations, NAGs.
    Skipped,
}

/// Where a parse failed (the remaining input) and why.
type Failure<'a> = (&'a str, String);

/// Whitespace, comments and other text that may separate games.
fn skip_separators(mut input: &str) -> &str {
    loop {
        input = input.trim_start();
        match comment(input) {
            Ok((rest, _)) => input = rest,
            Err(_) => return input,
        }
    }
}

fn comment(input: &str) -> IResult<&str, Token> {
    map(
        alt((
            delimited(char('{'), take_till(|c| c == '}'), char('}')),
            preceded(char(';'), take_till(|c| c == '\n')),
            recognize(pair(char('$'), digit1)),
        )),
        |_| Token::Skipped,
    )(input)
}

/// A variation `(...)`, possibly nested; skipped.
fn variation(input: &str) -> IResult<&str, Token> {
    let (mut rest, _) = char('(')(input)?;
    loop {
        rest = skip_separators(rest);
        if let Ok((after, _)) = char::<&str, nom::error::Error<&str>>(')')(rest) {
            return Ok((after, Token::Skipped));
        }
        if rest.starts_with('(') {
            rest = variation(rest)?.0;
        } else {
            let (after, _) = take_till(|c: char| "(){};".contains(c) || c.is_whitespace())(rest)?;
            if after.len() == rest.len() {
                return Err(nom::Err::Error(nom::error::Error::new(
                    rest,
                    nom::error::ErrorKind::Char,
                )));
            }
            rest = after;
        }
    }
}

fn tag_pair(input: &str) -> IResult<&str, Token> {
    let (rest, (_, _, name, _, _, value, _, _, _)) = tuple((
        char('['),
        take_while(char::is_whitespace),
        take_while1(|c: char| c.is_alphanumeric() || c == '_'),
        take_while(char::is_whitespace),
        char('"'),
        recognize(many_escaped),
        char('"'),
        take_while(|c: char| c.is_whitespace() && c != '\n'),
        char(']'),
    ))(input)?;
    let value = value.replace("\\\"", "\"").replace("\\\\", "\\");
    Ok((rest, Token::Tag(name.to_string(), value)))
}

/// A tag value: any characters but an unescaped `"`.
fn many_escaped(input: &str) -> IResult<&str, ()> {
    let mut chars = input.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' | '\n' => return Ok((&input[i..], ())),
            '\\' => {
                chars.next();
            }
            _ => {}
        }
    }
    // The rest must be a slice of the input (nom's `recognize` measures the consumed part).
    Ok((&input[input.len()..], ()))
}

fn result_token(input: &str) -> IResult<&str, Token> {
    let (rest, text) = alt((tag("1/2-1/2"), tag("1-0"), tag("0-1"), tag("*")))(input)?;
    if rest.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Tag,
        )));
    }
    let result = PdnResult::parse(text).expect("the four tokens parse");
    Ok((rest, Token::Result(result)))
}

fn move_number(input: &str) -> IResult<&str, Token> {
    map(
        alt((
            recognize(pair(digit1, many1(char('.')))),
            recognize(tag("...")),
        )),
        |_| Token::MoveNumber,
    )(input)
}

/// A move (`11-15`, `22x15`, `24x15x6`); text glued to its end is dropped as a comment.
fn move_text(input: &str) -> IResult<&str, Token> {
    let (rest, text) = recognize(pair(digit1, many1(pair(one_of("-xX:"), digit1))))(input)?;
    let (rest, _) = take_till(|c: char| c.is_whitespace() || "{};([".contains(c))(rest)?;
    Ok((rest, Token::Move(text.to_string())))
}

fn token(input: &str) -> IResult<&str, Token> {
    alt((
        comment,
        variation,
        tag_pair,
        result_token,
        move_number,
        move_text,
    ))(input)
}

/// Reads one game from the start of `input` (which is not blank).
fn parse_game(input: &str) -> Result<(&str, PdnGame), Failure<'_>> {
    let mut tags = Vec::new();
    let mut moves = Vec::new();
    let mut in_movetext = false;
    let mut rest = input;
    let result = loop {
        rest = rest.trim_start();
        if rest.is_empty() || (in_movetext && rest.starts_with('[')) {
            break None;
        }
        let (after, token) = token(rest).map_err(|_| {
            let word: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(40)
                .collect();
            (rest, format!("unexpected '{word}'"))
        })?;
        match token {
            // Only before the moves: a tag after them ends the game above.
            Token::Tag(name, value) => tags.push((name, value)),
            Token::MoveNumber => in_movetext = true,
            Token::Move(text) => {
                in_movetext = true;
                moves.push(text);
            }
            Token::Result(result) => {
                rest = after;
                break Some(result);
            }
            Token::Skipped => {}
        }
        rest = after;
    };
    let result = result.unwrap_or_else(|| {
        tags.iter()
            .find(|(n, _)| n == "Result")
            .and_then(|(_, v)| PdnResult::parse(v))
            .unwrap_or(PdnResult::Unknown)
    });
    Ok((
        rest,
        PdnGame {
            tags,
            moves,
            result,
        },
    ))
}

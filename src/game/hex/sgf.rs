//! SGF records of Hex games in HexGui's dialect.
//!
//! `(;FF[4]AP[tmbot:0.1.0]GM[11]SZ[11];B[f6];W[e7])`: `SZ[W:H]` for non-square boards,
//! moves `B[cell]`/`W[cell]`, `W[swap-pieces]`, `W[swap-sides]`, `B[resign]`, setup
//! `AB`/`AW`/`AE` (several values each), `PL` (side to move) and comments `C[...]`. The
//! reader requires `GM[11]`, follows the main line of variations, ignores unknown
//! properties, and reports bad input with its line and column.

use super::geometry;
use super::state::{Hex, HexMove, SwapRule};
use crate::game::{Color, Game, ParseError};
use std::io;
use std::path::Path;

/// The root game-info properties a record keeps (players, result, event, round, date, game
/// name, comment, time, rules).
const GAME_INFO: [&str; 10] = ["PB", "PW", "RE", "EV", "RO", "DT", "GN", "GC", "TM", "RU"];

/// How an `RU` value names a swap rule: `RU[swap:benzene]`, `RU[swap:hexgui]`.
const SWAP_RULE_PREFIX: &str = "swap:";

/// Deepest nesting of variations the reader accepts.
const MAX_NESTING: usize = 256;

/// One node of a record: setup first, then the move, with an optional comment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SgfNode {
    /// Setup edits in order: a stone (`AB`, `AW`) or an emptied cell (`AE`).
    pub setup: Vec<(usize, Option<Color>)>,
    /// `PL`: the side to move after the setup.
    pub player: Option<Color>,
    /// The move of this node and who made it.
    pub mv: Option<(Color, HexMove)>,
    /// `C`: the comment, unescaped.
    pub comment: Option<String>,
}

/// A Hex game record: board size, the writing application and the main line of nodes
/// (`nodes[0]` is the root node).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfRecord {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// `AP`: the application that wrote the record, if given.
    pub application: Option<String>,
    /// Game-info properties of the root in order (`PB`, `PW`, `RE`, `EV`, `RO`, `DT`, `GN`,
    /// `GC`, `TM`, `RU`), unescaped.
    pub info: Vec<(String, String)>,
    /// The nodes of the main line, root first.
    pub nodes: Vec<SgfNode>,
}

/// A property as read: its name, its raw values, and where its name starts.
struct Property {
    name: String,
    values: Vec<String>,
    at: usize,
}

/// A recursive-descent reader over the SGF text.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Reader<'a> {
    fn error_at(&self, at: usize, message: impl Into<String>) -> ParseError {
        let before = &self.text[..at.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.chars().rev().take_while(|&c| c != '\n').count() + 1;
        ParseError::new("SGF", format!("line {line}, column {column}"), message)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek().filter(|c| c.is_whitespace()) {
            self.pos += c.len_utf8();
        }
    }

    fn expect(&mut self, wanted: char) -> Result<(), ParseError> {
        self.skip_space();
        match self.peek() {
            Some(c) if c == wanted => {
                self.pos += 1;
                Ok(())
            }
            Some(c) => Err(self.error_at(self.pos, format!("expected '{wanted}', found '{c}'"))),
            None => Err(self.error_at(self.pos, format!("expected '{wanted}', found the end"))),
        }
    }

    /// A game tree: `(` nodes, subtrees `)`. Appends the main line's nodes to `main`.
    fn game_tree(
        &mut self,
        depth: usize,
        main: &mut Option<&mut Vec<Vec<Property>>>,
    ) -> Result<(), ParseError> {
        if depth > MAX_NESTING {
            return Err(self.error_at(self.pos, "variations nested too deeply"));
        }
        self.expect('(')?;
        self.skip_space();
        if self.peek() != Some(';') {
            return Err(self.error_at(self.pos, "a game tree must start with a node ';'"));
        }
        while self.peek() == Some(';') {
            self.pos += 1;
            let node = self.properties()?;
            if let Some(main) = main.as_deref_mut() {
                main.push(node);
            }
            self.skip_space();
        }
        let mut first = true;
        while self.peek() == Some('(') {
            let mut branch = if first { main.take() } else { None };
            self.game_tree(depth + 1, &mut branch)?;
            first = false;
            self.skip_space();
        }
        self.expect(')')
    }

    fn properties(&mut self) -> Result<Vec<Property>, ParseError> {
        let mut props = Vec::new();
        loop {
            self.skip_space();
            let at = self.pos;
            let name: String = self.text[self.pos..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            if name.is_empty() {
                return Ok(props);
            }
            self.pos += name.len();
            let mut values = Vec::new();
            loop {
                self.skip_space();
                if self.peek() != Some('[') {
                    break;
                }
                self.pos += 1;
                values.push(self.value()?);
            }
            if values.is_empty() {
                return Err(self.error_at(at, format!("property {name} has no value")));
            }
            props.push(Property { name, values, at });
        }
    }

    /// A bracketed value after its `[`, unescaped (a backslash-newline is removed).
    fn value(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        let mut out = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                ']' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, '\n')) => {}
                    Some((_, escaped)) => out.push(escaped),
                    None => break,
                },
                _ => out.push(c),
            }
        }
        Err(self.error_at(start - 1, "value not closed by ']'"))
    }
}

/// Parses `SZ`: `N` or `W:H`.
fn board_size(value: &str) -> Option<(usize, usize)> {
    let (w, h) = value.split_once(':').unwrap_or((value, value));
    Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
}

impl SgfRecord {
    /// Reads the first game of an SGF text.
    pub fn parse(text: &str) -> Result<SgfRecord, ParseError> {
        let mut reader = Reader { text, pos: 0 };
        let mut raw = Vec::new();
        reader.game_tree(0, &mut Some(&mut raw))?;
        let root = &raw[0];
        let find = |name: &str| root.iter().find(|p| p.name == name);
        match find("GM") {
            Some(p) if p.values[0].trim() == "11" => {}
            Some(p) => {
                return Err(
                    reader.error_at(p.at, format!("GM[{}] is not Hex (GM[11])", p.values[0]))
                )
            }
            None => return Err(reader.error_at(0, "missing GM[11]: not a Hex record")),
        }
        let (width, height) = match find("SZ") {
            None => (11, 11),
            Some(p) => board_size(&p.values[0])
                .filter(|&(w, h)| Hex::new(w, h).is_ok())
                .ok_or_else(|| {
                    reader.error_at(p.at, format!("unsupported board size SZ[{}]", p.values[0]))
                })?,
        };
        let application = find("AP").map(|p| p.values[0].clone());
        let info = root
            .iter()
            .filter(|p| GAME_INFO.contains(&p.name.as_str()))
            .map(|p| (p.name.clone(), p.values[0].clone()))
            .collect();
        let cell = |p: &Property, value: &str| {
            geometry::parse_cell(value, width, height)
                .map(|(x, y)| y * width + x)
                .map_err(|e| reader.error_at(p.at, format!("{}[{value}]: {}", p.name, e.message)))
        };
        let mut nodes = Vec::with_capacity(raw.len());
        for props in &raw {
            let mut node = SgfNode::default();
            for p in props {
                match p.name.as_str() {
                    "AB" | "AW" | "AE" => {
                        let stone = match p.name.as_str() {
                            "AB" => Some(Color::Black),
                            "AW" => Some(Color::White),
                            _ => None,
                        };
                        for value in &p.values {
                            node.setup.push((cell(p, value)?, stone));
                        }
                    }
                    "B" | "W" => {
                        if node.mv.is_some() {
                            return Err(reader.error_at(p.at, "two moves in one node"));
                        }
                        let color = if p.name == "B" {
                            Color::Black
                        } else {
                            Color::White
                        };
                        let mv = match p.values[0].trim().to_ascii_lowercase().as_str() {
                            "swap-pieces" => HexMove::SwapPieces,
                            "swap-sides" | "swap" => HexMove::SwapSides,
                            "resign" => HexMove::Resign,
                            value => HexMove::Cell(cell(p, value)? as u16),
                        };
                        node.mv = Some((color, mv));
                    }
                    "PL" => {
                        node.player = Some(Color::parse(p.values[0].trim()).map_err(|_| {
                            reader.error_at(p.at, format!("PL[{}] is not B or W", p.values[0]))
                        })?);
                    }
                    "C" => node.comment = Some(p.values[0].clone()),
                    _ => {}
                }
            }
            nodes.push(node);
        }
        Ok(SgfRecord {
            width,
            height,
            application,
            info,
            nodes,
        })
    }

    /// Writes the record in HexGui's dialect.
    pub fn to_sgf(&self) -> String {
        let size = if self.width == self.height {
            self.width.to_string()
        } else {
            format!("{}:{}", self.width, self.height)
        };
        let mut out = "(;FF[4]".to_string();
        if let Some(app) = &self.application {
            out += &format!("AP[{}]", escape(app, false));
        }
        out += &format!("GM[11]SZ[{size}]");
        for (name, value) in &self.info {
            out += &format!("{name}[{}]", escape(value, false));
        }
        for (index, node) in self.nodes.iter().enumerate() {
            if index > 0 {
                out.push(';');
            }
            self.write_node(node, &mut out);
        }
        out += ")\n";
        out
    }

    fn write_node(&self, node: &SgfNode, out: &mut String) {
        for (name, stone) in [
            ("AB", Some(Color::Black)),
            ("AW", Some(Color::White)),
            ("AE", None),
        ] {
            let cells: Vec<usize> = node
                .setup
                .iter()
                .filter(|(_, s)| *s == stone)
                .map(|&(c, _)| c)
                .collect();
            if !cells.is_empty() {
                out.push_str(name);
                for c in cells {
                    out.push_str(&format!(
                        "[{}]",
                        geometry::cell_name(c % self.width, c / self.width)
                    ));
                }
            }
        }
        if let Some(color) = node.player {
            out.push_str(if color == Color::Black {
                "PL[B]"
            } else {
                "PL[W]"
            });
        }
        if let Some((color, mv)) = node.mv {
            let value = match mv {
                HexMove::Cell(c) => {
                    let c = c as usize;
                    geometry::cell_name(c % self.width, c / self.width)
                }
                HexMove::SwapPieces => "swap-pieces".into(),
                HexMove::SwapSides => "swap-sides".into(),
                HexMove::Resign => "resign".into(),
            };
            let name = if color == Color::Black { "B" } else { "W" };
            out.push_str(&format!("{name}[{value}]"));
        }
        if let Some(comment) = &node.comment {
            out.push_str(&format!("C[{}]", escape(comment, true)));
        }
    }

    /// The swap rule the record was played under: the one its `RU[swap:NAME]` names, else
    /// the one its swap moves imply (`swap-sides` exists under HexGui's rule only; after
    /// `swap-pieces` Benzene's rule has White move again and HexGui's has Black move; with
    /// no move after it, the writing application decides: HexGui's meaning for a record by
    /// HexGui, Benzene's otherwise). `None` when the record says nothing about swap.
    pub fn swap_rule(&self) -> Option<SwapRule> {
        let named = self
            .info
            .iter()
            .find(|(name, _)| name == "RU")
            .and_then(|(_, value)| value.strip_prefix(SWAP_RULE_PREFIX))
            .and_then(SwapRule::from_name);
        if named.is_some() {
            return named;
        }
        let mut moves = self.nodes.iter().filter_map(|node| node.mv);
        let swap = moves.find(|(_, mv)| matches!(mv, HexMove::SwapPieces | HexMove::SwapSides))?;
        let by_hexgui = self
            .application
            .as_deref()
            .is_some_and(|app| app.to_ascii_lowercase().starts_with("hexgui"));
        Some(match (swap.1, moves.next()) {
            (HexMove::SwapSides, _) => SwapRule::HexGui,
            (_, Some((Color::White, _))) => SwapRule::Benzene,
            (_, Some((Color::Black, _))) => SwapRule::HexGui,
            (_, None) if by_hexgui => SwapRule::HexGui,
            (_, None) => SwapRule::Benzene,
        })
    }

    /// The `RU` game-info value that names swap rule `rule` (`swap:hexgui`; `None` when
    /// swap is off).
    pub fn swap_rule_info(rule: SwapRule) -> Option<String> {
        (rule != SwapRule::Off).then(|| format!("{SWAP_RULE_PREFIX}{}", rule.name()))
    }

    /// Replays the record under swap rule `swap`; a setup after moves starts the history
    /// afresh (see [`Hex::set_stone`]). Illegal moves, and set-ups with a side to move (`PL`)
    /// whose stone counts no game reaches ([`Hex::validate`]), are errors naming the node.
    pub fn replay(&self, swap: SwapRule) -> Result<Hex, ParseError> {
        let mut game = Hex::new(self.width, self.height)?.with_swap(swap);
        for (index, node) in self.nodes.iter().enumerate() {
            let error = |message: String| {
                ParseError::new("SGF move", format!("node {}", index + 1), message)
            };
            for &(cell, stone) in &node.setup {
                if cell >= game.cell_count() {
                    return Err(error(format!("setup cell #{cell} is off the board")));
                }
                game.set_stone(cell, stone);
            }
            if let Some(color) = node.player {
                // With the side to move given, the stone counts must be ones a game reaches.
                game.set_side_to_move(color);
                game.validate().map_err(|e| error(e.to_string()))?;
            }
            match node.mv {
                None => {}
                Some((color, HexMove::Cell(cell))) => game
                    .place(color, cell as usize)
                    .map_err(|e| error(e.to_string()))?,
                Some((color, HexMove::Resign)) => {
                    game.resign(color).map_err(|e| error(e.to_string()))?
                }
                Some((color, swap_move)) => {
                    let text = game.move_to_text(swap_move);
                    if color != game.side_to_move() {
                        return Err(error(format!(
                            "{text} by {color}, but it is not {color}'s turn"
                        )));
                    }
                    let mv = game.parse_move(&text).map_err(|e| error(e.to_string()))?;
                    game.play(mv);
                }
            }
        }
        Ok(game)
    }

    /// The record of a game written by this program (`AP[tmbot:version]`): the start
    /// position as root setup, then one node per move.
    pub fn from_game(game: &Hex) -> SgfRecord {
        let mut start = game.clone();
        while start.undo().is_some() {}
        let mut root = SgfNode::default();
        for color in Color::BOTH {
            root.setup
                .extend(start.board().stones(color).iter().map(|c| (c, Some(color))));
        }
        if start.side_to_move() == Color::White {
            root.player = Some(Color::White);
        }
        let mut nodes = vec![root];
        nodes.extend(game.moves().map(|mv| SgfNode {
            mv: Some(mv),
            ..SgfNode::default()
        }));
        SgfRecord {
            width: game.width(),
            height: game.height(),
            application: Some(format!("tmbot:{}", env!("CARGO_PKG_VERSION"))),
            info: SgfRecord::swap_rule_info(game.swap_rule())
                .map(|rule| ("RU".to_string(), rule))
                .into_iter()
                .collect(),
            nodes,
        }
    }
}

impl SgfRecord {
    /// Reads the record in the file at `path`.
    pub fn load(path: &Path) -> io::Result<SgfRecord> {
        let text = std::fs::read_to_string(path)?;
        SgfRecord::parse(&text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// Writes the record to `path` through a temporary file renamed into place, so a
    /// reader never sees half a record.
    pub fn save(&self, path: &Path) -> io::Result<()> {
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        std::fs::write(&temporary, self.to_sgf())?;
        std::fs::rename(&temporary, path)
    }
}

/// Escapes `\` and `]` for a property value, and `:` too when `colon` (text values; `AP`
/// keeps its `name:version` separator as is).
fn escape(text: &str, colon: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | ']') || (colon && c == ':') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_swap_rule_is_inferred_from_the_record() {
        let rule = |text: &str| SgfRecord::parse(text).unwrap().swap_rule();
        assert_eq!(rule("(;GM[11]SZ[5];B[c2];W[d4])"), None);
        assert_eq!(
            rule("(;GM[11]SZ[5];B[b2];W[swap-pieces];W[d4])"),
            Some(SwapRule::Benzene)
        );
        assert_eq!(
            rule("(;GM[11]SZ[5];B[b2];W[swap-pieces];B[d4])"),
            Some(SwapRule::HexGui)
        );
        assert_eq!(
            rule("(;AP[HexGui:0.10]GM[11]SZ[5];B[b2];W[swap-pieces])"),
            Some(SwapRule::HexGui)
        );
        assert_eq!(
            rule("(;GM[11]SZ[5];B[b2];W[swap-pieces])"),
            Some(SwapRule::Benzene)
        );
        assert_eq!(
            rule("(;GM[11]SZ[5];B[b2];W[swap-sides];W[c3])"),
            Some(SwapRule::HexGui)
        );
        assert_eq!(
            rule("(;GM[11]SZ[5]RU[swap\\:hexgui];B[b2];W[swap-pieces];W[c3])"),
            Some(SwapRule::HexGui),
            "RU wins over the moves"
        );
        let mut game = Hex::new(5, 5).unwrap().with_swap(SwapRule::HexGui);
        game.play(game.parse_move("b2").unwrap());
        game.play(HexMove::SwapPieces);
        let written = SgfRecord::from_game(&game).to_sgf();
        assert!(written.contains("RU[swap:hexgui]"), "{written}");
        let read = SgfRecord::parse(&written).unwrap();
        assert_eq!(read.swap_rule(), Some(SwapRule::HexGui));
        assert_eq!(
            read.replay(SwapRule::HexGui).unwrap().position_text(),
            game.position_text()
        );
    }

    #[test]
    fn reads_a_hexgui_record() {
        let text = "(;FF[4]AP[HexGui:0.10]GM[11]SZ[11]\n;B[f6];W[E7]C[good \\] move\\: yes])";
        let record = SgfRecord::parse(text).unwrap();
        assert_eq!((record.width, record.height), (11, 11));
        assert_eq!(record.nodes.len(), 3);
        assert_eq!(record.nodes[2].comment.as_deref(), Some("good ] move: yes"));
        let game = record.replay(SwapRule::Off).unwrap();
        assert_eq!(game.stone(game.cell(5, 5)), Some(Color::Black));
        assert_eq!(game.stone(game.cell(4, 6)), Some(Color::White));
    }

    #[test]
    fn errors_name_the_place() {
        let err = SgfRecord::parse("(;FF[4]GM[1]SZ[11])").unwrap_err();
        assert_eq!(err.part, "line 1, column 8");
        let err = SgfRecord::parse("(;GM[11]SZ[5]\n;B[f6])").unwrap_err();
        assert_eq!(err.part, "line 2, column 2");
        assert!(SgfRecord::parse("(;GM[11]SZ[5];B[a1").is_err());
        assert!(SgfRecord::parse("(;GM[11]SZ[0])").is_err());
    }
}

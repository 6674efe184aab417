//! The encoder registry: every way a position becomes a Tsetlin Machine's input, by name,
//! with its version and options, and what the classes of a model trained through it mean.
//!
//! An encoder is written `name[@version][:option=value,...]`, e.g. `hex-connection`,
//! `hex-connection:edges=on,to-move=on`, `checkers-planes:view=mover`; model files keep the
//! canonical form (version always, options only where they differ from the default), so
//! `eval=tm:PATH` needs nothing more. [`Encoder::LIST`] documents every name and option.
//!
//! Labels: datasets give Hex classes as seed 000 does (0: Black, who joins top and bottom,
//! wins; 1: White wins) and checkers classes from Black's view as seed 001 does (0 loss,
//! 1 win, 2 draw). An encoder may train its model on another view ([`Perspective`]):
//! `labels=white` swaps win and loss (the thesis's White model), `view=mover` turns board
//! and labels to the side to move.

use super::hypervector::Hypervector;
use super::{checkers_meta, checkers_planes, hex_compact, hex_connection::HexConnection};
use crate::game::hex::Hex;
use crate::game::{Color, Game};

/// An encoder family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Raw 0/1 columns, named by the CSV header.
    Csv,
    /// Seed 000's Hex cells and same-group pairs.
    HexConnection,
    /// Per-cell groups, two-distances and potentials ([`hex_compact`]).
    HexCompact,
    /// Seed 001's 4 planes x 32 squares.
    CheckersPlanes,
    /// Seed 001's seven metadata attributes as thermometers ([`checkers_meta`]).
    CheckersMeta,
}

/// Which game an encoder reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameOf {
    /// Any 0/1 table.
    Any,
    /// Hex boards.
    Hex,
    /// English checkers boards.
    Checkers,
}

/// Whose outcome a model's classes give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perspective {
    /// Black's (seed 000's Hex classes: 0 Black wins, 1 White wins; checkers: 0 loss,
    /// 1 win, 2 draw for Black).
    Black,
    /// White's (checkers 0 loss, 1 win, 2 draw for White).
    White,
    /// The side to move's.
    Mover,
}

/// One entry of the registry: family, name, version and documented options.
pub struct Entry {
    /// The family.
    pub kind: Kind,
    /// The name on the command line.
    pub name: &'static str,
    /// The current version (a model of a newer one is refused).
    pub version: u32,
    /// What it encodes.
    pub doc: &'static str,
    /// `(option, doc)` pairs.
    pub options: &'static [(&'static str, &'static str)],
}

const FOLD_DOC: &str = "on: training sets also hold each position's colour-swapped transpose, \
                        with the winner swapped (default off)";
const CHECKERS_FOLD_DOC: &str = "on: training sets also hold each position with the colours \
                                 exchanged (the board turned round), the outcome exchanged and \
                                 the other side to move (default off)";
const ROTATE_DOC: &str = "on: training sets also hold each position turned half a turn, with the \
                          same winner (default off)";
const VIEW_DOC: &str = "black: board and labels as Black sees them; mover: turned so the side \
                        to move plays Black (needs the side to move in the data) (default black)";
const LABELS_DOC: &str = "black or white: whose win the classes give (white swaps win and loss, \
                          the thesis's White model) (default black)";

/// Every encoder.
pub const LIST: &[Entry] = &[
    Entry {
        kind: Kind::Csv,
        name: "csv",
        version: 1,
        doc: "the 0/1 columns of a CSV as they are, label last",
        options: &[],
    },
    Entry {
        kind: Kind::HexConnection,
        name: "hex-connection",
        version: 1,
        doc: "seed 000: cell occupancy and same-group pairs, N(N+1) features for N cells",
        options: &[
            (
                "edges",
                "on: one 'has connected its edges' symbol per colour (default off)",
            ),
            (
                "to-move",
                "on: a symbol true when Black is to move (default off)",
            ),
            ("fold", FOLD_DOC),
            ("rotate", ROTATE_DOC),
            (
                "hv",
                "N: the symbols folded into a hypervector of N bits, as seed 000 trained \
                 (default off: one feature per symbol)",
            ),
            (
                "hv-bits",
                "B: positions per symbol in the hypervector (default 1)",
            ),
            (
                "hv-seed",
                "K: which positions the symbols own, one mapping per K (default 0); seed 000 \
                 drew a new mapping for every run",
            ),
        ],
    },
    Entry {
        kind: Kind::HexCompact,
        name: "hex-compact",
        version: 1,
        doc: "per cell: stones, groups on edges, two-distance bins, best-path cells; \
              potentials and the side to move (20 features a cell)",
        options: &[("fold", FOLD_DOC), ("rotate", ROTATE_DOC)],
    },
    Entry {
        kind: Kind::CheckersPlanes,
        name: "checkers-planes",
        version: 1,
        doc: "seed 001: black men, black kings, white men, white kings on 32 squares",
        options: &[
            ("view", VIEW_DOC),
            ("labels", LABELS_DOC),
            ("fold", CHECKERS_FOLD_DOC),
            (
                "meta",
                "on: seed 001's metadata appended (the 70 bits of checkers-meta, in the same \
                 view) (default off)",
            ),
            (
                "balance",
                "on: the material balance appended: own pieces minus the opponent's, and own \
                 kings minus the opponent's, as thermometers from -11 to 12 (48 bits) \
                 (default off)",
            ),
        ],
    },
    Entry {
        kind: Kind::CheckersMeta,
        name: "checkers-meta",
        version: 1,
        doc: "seed 001's metadata: men, kings, edge pieces, centres of mass (70 thermometer bits)",
        options: &[
            ("view", VIEW_DOC),
            ("labels", LABELS_DOC),
            ("fold", CHECKERS_FOLD_DOC),
        ],
    },
];

/// A readable list of every encoder, its version and options.
pub fn listing() -> String {
    let mut text = String::from("encoders (NAME[@VERSION][:OPTION=VALUE,...]):\n");
    for entry in LIST {
        text += &format!(
            "  {} (version {}): {}\n",
            entry.name, entry.version, entry.doc
        );
        for (option, doc) in entry.options {
            text += &format!("      {option}: {doc}\n");
        }
    }
    text
}

impl Kind {
    fn entry(self) -> &'static Entry {
        LIST.iter()
            .find(|e| e.kind == self)
            .expect("every kind is listed")
    }

    /// The game it reads.
    pub fn game(self) -> GameOf {
        match self {
            Kind::Csv => GameOf::Any,
            Kind::HexConnection | Kind::HexCompact => GameOf::Hex,
            Kind::CheckersPlanes | Kind::CheckersMeta => GameOf::Checkers,
        }
    }
}

/// A position handed to an encoder.
#[derive(Clone, Copy, Debug)]
pub enum Sample<'a> {
    /// A Hex position (its side to move included).
    Hex(&'a Hex),
    /// A checkers board as planes (black men, black kings, white men, white kings; bit i is
    /// square i+1) and its side to move where known (seed 001's files do not give it).
    Checkers {
        /// The four planes.
        planes: [u32; 4],
        /// The side to move, if known.
        to_move: Option<Color>,
    },
}

/// A configured encoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoder {
    /// The family.
    pub kind: Kind,
    /// Hex connection: the two "has connected its edges" symbols.
    pub edges: bool,
    /// Hex connection: the Black-to-move symbol.
    pub to_move: bool,
    /// Hex and checkers: training sets also hold each position with the colours exchanged.
    pub fold: bool,
    /// Hex: training sets also hold each position turned half a turn.
    pub rotate: bool,
    /// Checkers: turn board and labels to the side to move.
    pub mover_view: bool,
    /// Checkers: classes give White's outcome (with Black's view of the board).
    pub white_labels: bool,
    /// Checkers planes: seed 001's metadata appended.
    pub meta: bool,
    /// Checkers planes: the material balance appended.
    pub balance: bool,
    /// Hex connection: the symbols folded into a hypervector.
    pub hypervector: Option<Hypervector>,
}

impl Encoder {
    /// The plain encoder of a family.
    pub fn of(kind: Kind) -> Encoder {
        Encoder {
            kind,
            edges: false,
            to_move: false,
            fold: false,
            rotate: false,
            mover_view: false,
            white_labels: false,
            meta: false,
            balance: false,
            hypervector: None,
        }
    }

    /// Parses `name[@version][:option=value,...]`; `hex-connection-edges` (the name of
    /// older model files) is `hex-connection:edges=on`.
    pub fn parse(text: &str) -> Result<Encoder, String> {
        let text = text.trim();
        let (head, options) = match text.split_once(':') {
            Some((head, options)) => (head, Some(options)),
            None => (text, None),
        };
        let (name, version) = match head.split_once('@') {
            Some((name, v)) => (
                name,
                Some(
                    v.parse::<u32>()
                        .map_err(|_| format!("encoder '{text}': version '{v}' is not a number"))?,
                ),
            ),
            None => (head, None),
        };
        let (entry, mut encoder) = if name == "hex-connection-edges" {
            let mut e = Encoder::of(Kind::HexConnection);
            e.edges = true;
            (Kind::HexConnection.entry(), e)
        } else {
            let entry = LIST.iter().find(|e| e.name == name).ok_or_else(|| {
                let names: Vec<&str> = LIST.iter().map(|e| e.name).collect();
                format!("unknown encoder '{name}' (known: {})", names.join(", "))
            })?;
            (entry, Encoder::of(entry.kind))
        };
        if let Some(v) = version {
            if v == 0 || v > entry.version {
                return Err(format!(
                    "encoder '{text}': version {v} of {} is not known to this program \
                     (it reads versions 1 to {})",
                    entry.name, entry.version
                ));
            }
        }
        let mut hv_bits = None;
        let mut hv_seed = None;
        for option in options.into_iter().flat_map(|o| o.split(',')) {
            let (key, value) = option
                .split_once('=')
                .ok_or_else(|| format!("encoder '{text}': option '{option}' is not key=value"))?;
            if !entry.options.iter().any(|(k, _)| *k == key) {
                let known: Vec<&str> = entry.options.iter().map(|(k, _)| *k).collect();
                return Err(format!(
                    "encoder '{text}': {} has no option '{key}'{}",
                    entry.name,
                    if known.is_empty() {
                        String::new()
                    } else {
                        format!(" (options: {})", known.join(", "))
                    }
                ));
            }
            let bad = || format!("encoder '{text}': {key}={value} is not allowed");
            let switch = || match value {
                "on" => Ok(true),
                "off" => Ok(false),
                _ => Err(bad()),
            };
            match key {
                "edges" => encoder.edges = switch()?,
                "to-move" => encoder.to_move = switch()?,
                "fold" => encoder.fold = switch()?,
                "rotate" => encoder.rotate = switch()?,
                "meta" => encoder.meta = switch()?,
                "balance" => encoder.balance = switch()?,
                "view" => {
                    encoder.mover_view = match value {
                        "black" => false,
                        "mover" => true,
                        _ => return Err(bad()),
                    }
                }
                "labels" => {
                    encoder.white_labels = match value {
                        "black" => false,
                        "white" => true,
                        _ => return Err(bad()),
                    }
                }
                "hv" => {
                    let size = value
                        .parse()
                        .ok()
                        .filter(|&n: &usize| n >= 1)
                        .ok_or_else(bad)?;
                    encoder.hypervector = Some(Hypervector {
                        size,
                        bits: 1,
                        seed: 0,
                    });
                }
                "hv-bits" => {
                    hv_bits = Some(
                        value
                            .parse()
                            .ok()
                            .filter(|&n: &usize| n >= 1)
                            .ok_or_else(bad)?,
                    )
                }
                "hv-seed" => hv_seed = Some(value.parse().map_err(|_| bad())?),
                _ => unreachable!("every listed option is handled"),
            }
        }
        // The hypervector's own options, whatever their order among the others.
        match &mut encoder.hypervector {
            Some(hv) => {
                if let Some(bits) = hv_bits {
                    if bits > hv.size {
                        return Err(format!(
                            "encoder '{text}': hv-bits={bits} is more than the hv={} positions",
                            hv.size
                        ));
                    }
                    hv.bits = bits;
                }
                if let Some(seed) = hv_seed {
                    hv.seed = seed;
                }
            }
            None if hv_bits.is_some() => {
                return Err(format!("encoder '{text}': hv-bits needs hv=N"));
            }
            None if hv_seed.is_some() => {
                return Err(format!("encoder '{text}': hv-seed needs hv=N"));
            }
            None => {}
        }
        if encoder.mover_view && encoder.white_labels {
            return Err(format!(
                "encoder '{text}': view=mover gives the side to move's outcome; labels=white \
                 applies to view=black only"
            ));
        }
        Ok(encoder)
    }

    /// The canonical text: name, version and every option that is not the default.
    pub fn name(&self) -> String {
        let entry = self.kind.entry();
        let mut options = Vec::new();
        for (flag, text) in [
            (self.edges, "edges=on"),
            (self.to_move, "to-move=on"),
            (self.fold, "fold=on"),
            (self.rotate, "rotate=on"),
            (self.mover_view, "view=mover"),
            (self.white_labels, "labels=white"),
            (self.meta, "meta=on"),
            (self.balance, "balance=on"),
        ] {
            if flag {
                options.push(text);
            }
        }
        let mut options: Vec<String> = options.into_iter().map(String::from).collect();
        if let Some(hv) = self.hypervector {
            options.push(format!("hv={}", hv.size));
            if hv.bits != 1 {
                options.push(format!("hv-bits={}", hv.bits));
            }
            if hv.seed != 0 {
                options.push(format!("hv-seed={}", hv.seed));
            }
        }
        let mut text = format!("{}@{}", entry.name, entry.version);
        if !options.is_empty() {
            text = format!("{text}:{}", options.join(","));
        }
        text
    }

    /// The game it reads.
    pub fn game(&self) -> GameOf {
        self.kind.game()
    }

    /// The same encoder without the training copies (`fold`, `rotate`): test sets are read
    /// through it, as they are.
    pub fn plain(&self) -> Encoder {
        Encoder {
            fold: false,
            rotate: false,
            ..*self
        }
    }

    /// Rows a training set holds for each row of its file: the position itself, and its
    /// mirror (colour-exchanged) and half-turn copies where `fold` and `rotate` ask for them.
    pub fn copies(&self) -> usize {
        (1 + usize::from(self.fold)) * (1 + usize::from(self.rotate))
    }

    /// Whose outcome the model's classes give.
    pub fn perspective(&self) -> Perspective {
        if self.mover_view {
            Perspective::Mover
        } else if self.white_labels {
            Perspective::White
        } else {
            Perspective::Black
        }
    }

    /// The class names of a model of `classes` classes (empty where they have no meaning).
    pub fn class_names(&self, classes: usize) -> Vec<String> {
        let side = match self.perspective() {
            Perspective::Black => "Black",
            Perspective::White => "White",
            Perspective::Mover => "the side to move",
        };
        match (self.game(), classes) {
            (GameOf::Hex, 2) => vec!["Black wins".into(), "White wins".into()],
            (GameOf::Checkers, 2 | 3) => {
                let mut names = vec![format!("loss for {side}"), format!("win for {side}")];
                if classes == 3 {
                    names.push("draw".into());
                }
                names
            }
            _ => Vec::new(),
        }
    }

    fn wrong_sample(&self) -> String {
        format!(
            "the {} encoder cannot read this game's positions",
            self.name()
        )
    }

    /// The side whose view the board is encoded from.
    fn viewer(&self, to_move: Option<Color>) -> Result<Color, String> {
        match (self.mover_view, to_move) {
            (false, _) => Ok(Color::Black),
            (true, Some(color)) => Ok(color),
            (true, None) => Err(format!(
                "{} needs the side to move, which these positions do not give (seed 001's \
                 files have none; arena dataset writes it)",
                self.name()
            )),
        }
    }

    fn connection(&self, game: &Hex) -> HexConnection {
        if self.edges {
            HexConnection::with_edges(game.width(), game.height())
        } else {
            HexConnection::new(game.width(), game.height())
        }
    }

    /// Number of features for positions like `sample`.
    pub fn feature_count(&self, sample: Sample) -> Result<usize, String> {
        match (self.kind, sample) {
            (Kind::HexConnection, Sample::Hex(game)) => Ok(match self.hypervector {
                Some(hv) => hv.size,
                None => self.connection(game).feature_count() + usize::from(self.to_move),
            }),
            (Kind::HexCompact, Sample::Hex(game)) => {
                Ok(hex_compact::feature_count(game.width(), game.height()))
            }
            (Kind::CheckersPlanes, Sample::Checkers { .. }) => Ok(checkers_planes::FEATURES
                + usize::from(self.meta) * checkers_meta::FEATURES
                + usize::from(self.balance) * checkers_meta::BALANCE_FEATURES),
            (Kind::CheckersMeta, Sample::Checkers { .. }) => Ok(checkers_meta::FEATURES),
            _ => Err(self.wrong_sample()),
        }
    }

    /// The feature names for positions like `sample`.
    pub fn feature_names(&self, sample: Sample) -> Result<Vec<String>, String> {
        match (self.kind, sample) {
            (Kind::HexConnection, Sample::Hex(game)) => {
                if let Some(hv) = self.hypervector {
                    return Ok(hv.names());
                }
                let mut names = self.connection(game).feature_names();
                if self.to_move {
                    names.push("TURN_R".into());
                }
                Ok(names)
            }
            (Kind::HexCompact, Sample::Hex(game)) => Ok(hex_compact::feature_names(game)),
            (Kind::CheckersPlanes, Sample::Checkers { .. }) => {
                let mut names = checkers_planes::feature_names();
                if self.meta {
                    names.extend(checkers_meta::feature_names());
                }
                if self.balance {
                    names.extend(checkers_meta::balance_names());
                }
                Ok(names)
            }
            (Kind::CheckersMeta, Sample::Checkers { .. }) => Ok(checkers_meta::feature_names()),
            _ => Err(self.wrong_sample()),
        }
    }

    /// Appends the 0/1 features of `sample` to `out`.
    pub fn encode(&self, sample: Sample, out: &mut Vec<u8>) -> Result<(), String> {
        match (self.kind, sample) {
            (Kind::HexConnection, Sample::Hex(game)) => {
                let stones: Vec<Option<Color>> =
                    (0..game.cell_count()).map(|c| game.stone(c)).collect();
                let mut symbols = self.connection(game).encode_stones(&stones)?;
                if self.to_move {
                    symbols.push(u8::from(game.side_to_move() == Color::Black));
                }
                match self.hypervector {
                    Some(hv) => hv.fold(&symbols, out),
                    None => out.extend(symbols),
                }
                Ok(())
            }
            (Kind::HexCompact, Sample::Hex(game)) => {
                hex_compact::encode(game, out);
                Ok(())
            }
            (Kind::CheckersPlanes, Sample::Checkers { planes, to_move }) => {
                let viewer = self.viewer(to_move)?;
                let seen = match viewer {
                    Color::Black => planes,
                    Color::White => turned(planes),
                };
                checkers_planes::encode_planes(seen, out);
                if self.meta {
                    checkers_meta::encode(planes, viewer, out);
                }
                if self.balance {
                    checkers_meta::encode_balance(planes, viewer, out);
                }
                Ok(())
            }
            (Kind::CheckersMeta, Sample::Checkers { planes, to_move }) => {
                checkers_meta::encode(planes, self.viewer(to_move)?, out);
                Ok(())
            }
            _ => Err(self.wrong_sample()),
        }
    }

    /// The class a model trained through this encoder learns for `sample`, given its
    /// dataset class (seed 000's Hex winner classes, seed 001's outcome for Black).
    pub fn class_of(&self, sample: Sample, class: u32) -> Result<u32, String> {
        let swap = match sample {
            Sample::Hex(_) => false,
            Sample::Checkers { to_move, .. } => {
                self.white_labels || self.viewer(to_move)? == Color::White
            }
        };
        Ok(if swap { swap_win_loss(class) } else { class })
    }
}

/// Win and loss (classes 0 and 1) exchanged; a draw (2) stays.
pub fn swap_win_loss(class: u32) -> u32 {
    match class {
        0 => 1,
        1 => 0,
        other => other,
    }
}

/// The board turned half a circle with colours exchanged, so White's pieces stand where
/// Black's would: square s (0-based) goes to 31 - s.
pub fn turned(planes: [u32; 4]) -> [u32; 4] {
    let [bm, bk, wm, wk] = planes;
    [
        wm.reverse_bits(),
        wk.reverse_bits(),
        bm.reverse_bits(),
        bk.reverse_bits(),
    ]
}

/// The Hex position transposed with colours exchanged (Black's stone on (x, y) becomes
/// White's on (y, x)) and the other side to move: the same game seen by the other player.
pub fn hex_mirror(game: &Hex) -> Hex {
    let mut mirror = Hex::new(game.height(), game.width()).expect("a transposed board fits");
    let stones: Vec<Option<Color>> = (0..mirror.cell_count())
        .map(|cell| {
            let (x, y) = mirror.xy(cell);
            game.stone(game.cell(y, x)).map(Color::opponent)
        })
        .collect();
    mirror.set_stones(&stones);
    mirror.set_side_to_move(game.side_to_move().opponent());
    mirror
}

/// The Hex position turned half a turn: the stone on cell (x, y) moves to (w-1-x, h-1-y),
/// which reverses the row-major cell order. Each player still joins their own two edges, so
/// the winner and the side to move stay.
pub fn hex_half_turn(game: &Hex) -> Hex {
    let mut turned = Hex::new(game.width(), game.height()).expect("the same board fits");
    let last = game.cell_count() - 1;
    let stones: Vec<Option<Color>> = (0..=last).map(|cell| game.stone(last - cell)).collect();
    turned.set_stones(&stones);
    turned.set_side_to_move(game.side_to_move());
    turned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::checkers::Position;

    #[test]
    fn names_round_trip_with_versions_and_options() {
        for text in [
            "csv@1",
            "hex-connection@1",
            "hex-connection@1:edges=on,to-move=on,fold=on",
            "hex-connection@1:fold=on,rotate=on",
            "hex-connection@1:hv=2048",
            "hex-connection@1:fold=on,hv=1024,hv-bits=2",
            "hex-connection@1:hv=1024,hv-bits=2,hv-seed=7",
            "hex-compact@1:fold=on",
            "checkers-planes@1:view=mover",
            "checkers-planes@1:meta=on,balance=on",
            "checkers-meta@1:labels=white",
        ] {
            assert_eq!(Encoder::parse(text).unwrap().name(), text);
        }
        assert_eq!(
            Encoder::parse("hex-connection-edges").unwrap().name(),
            "hex-connection@1:edges=on"
        );
        assert_eq!(
            Encoder::parse("checkers-planes").unwrap(),
            Encoder::of(Kind::CheckersPlanes)
        );
        assert_eq!(
            Encoder::parse("hex-connection:hv=64,hv-seed=0")
                .unwrap()
                .name(),
            "hex-connection@1:hv=64"
        );
        for bad in [
            "hex-conection",
            "hex-compact@2",
            "hex-compact@x",
            "hex-compact:edges=on",
            "hex-connection:edges=maybe",
            "checkers-planes:view",
            "checkers-planes:view=mover,labels=white",
            "hex-connection:hv=0",
            "hex-connection:hv-bits=2",
            "hex-connection:hv=4,hv-bits=5",
            "hex-connection:hv-seed=3",
            "hex-connection:hv=64,hv-seed=-1",
            "hex-connection:hv=64,hv-seed=x",
            "hex-compact:hv=64",
        ] {
            assert!(Encoder::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_hypervector_folds_the_connection_symbols() {
        let mut game = Hex::new(4, 4).unwrap();
        game.place(Color::Black, 5).unwrap();
        game.place(Color::White, 6).unwrap();
        let plain = Encoder::parse("hex-connection").unwrap();
        let folded = Encoder::parse("hex-connection:hv=32,hv-bits=2").unwrap();
        let (mut symbols, mut bits) = (Vec::new(), Vec::new());
        plain.encode(Sample::Hex(&game), &mut symbols).unwrap();
        folded.encode(Sample::Hex(&game), &mut bits).unwrap();
        let hv = folded.hypervector.unwrap();
        let mut expected = vec![0u8; 32];
        for (s, _) in symbols.iter().enumerate().filter(|(_, &v)| v == 1) {
            for p in hv.positions(s) {
                expected[p] = 1;
            }
        }
        assert_eq!(bits, expected);
        assert!(bits.contains(&1));
    }

    #[test]
    fn counts_and_names_agree_with_the_encoding() {
        let mut game = Hex::new(4, 4).unwrap();
        game.place(Color::Black, 5).unwrap();
        let position = Position::start();
        let samples = [
            Sample::Hex(&game),
            Sample::Checkers {
                planes: position.planes(),
                to_move: Some(Color::White),
            },
        ];
        for entry in LIST.iter().filter(|e| e.kind != Kind::Csv) {
            for options in [
                "",
                ":edges=on,to-move=on",
                ":view=mover",
                ":view=mover,meta=on,balance=on",
                ":hv=100,hv-bits=3",
            ] {
                let Ok(encoder) = Encoder::parse(&format!("{}{options}", entry.name)) else {
                    continue;
                };
                for sample in samples {
                    let mut out = Vec::new();
                    match encoder.encode(sample, &mut out) {
                        Ok(()) => {
                            assert_eq!(out.len(), encoder.feature_count(sample).unwrap());
                            assert_eq!(out.len(), encoder.feature_names(sample).unwrap().len());
                        }
                        Err(_) => assert!(encoder.feature_count(sample).is_err()),
                    }
                }
            }
        }
    }

    #[test]
    fn the_mover_view_turns_the_board_and_the_labels() {
        let start = Position::start().planes();
        let planes = Encoder::parse("checkers-planes:view=mover").unwrap();
        let sample = |to_move| Sample::Checkers {
            planes: start,
            to_move,
        };
        let (mut black, mut white) = (Vec::new(), Vec::new());
        planes
            .encode(sample(Some(Color::Black)), &mut black)
            .unwrap();
        planes
            .encode(sample(Some(Color::White)), &mut white)
            .unwrap();
        // The start position is symmetric: turned, it is the same board.
        assert_eq!(black, white);
        assert_eq!(planes.class_of(sample(Some(Color::White)), 1), Ok(0));
        assert_eq!(planes.class_of(sample(Some(Color::White)), 2), Ok(2));
        assert_eq!(planes.class_of(sample(Some(Color::Black)), 1), Ok(1));
        assert!(planes.encode(sample(None), &mut black).is_err());
        // With the metadata and the balance, the planes come first, then 70 + 48 bits.
        let rich = Encoder::parse("checkers-planes:view=mover,meta=on,balance=on").unwrap();
        let mut out = Vec::new();
        rich.encode(sample(Some(Color::White)), &mut out).unwrap();
        assert_eq!(out.len(), 128 + 70 + 48);
        assert_eq!(out[..128], white[..]);
        let names = rich.feature_names(sample(Some(Color::White))).unwrap();
        let bit = |name: &str| out[names.iter().position(|n| n == name).unwrap()];
        assert_eq!((bit("own-men>=12"), bit("piece-balance>=0")), (1, 1));
        assert_eq!(bit("piece-balance>=1"), 0);
        let white_labels = Encoder::parse("checkers-planes:labels=white").unwrap();
        assert_eq!(white_labels.class_of(sample(None), 0), Ok(1));
        assert_eq!(white_labels.perspective(), Perspective::White);
    }

    #[test]
    fn the_hex_mirror_exchanges_the_winner() {
        let mut game = Hex::new(3, 3).unwrap();
        for (color, cell) in [
            (Color::Black, "a1"),
            (Color::White, "b1"),
            (Color::Black, "a2"),
            (Color::White, "b2"),
            (Color::Black, "a3"),
        ] {
            game.place(color, game.parse_cell(cell).unwrap()).unwrap();
        }
        assert_eq!(game.winner(), Some(Color::Black));
        let mirror = hex_mirror(&game);
        assert_eq!(mirror.winner(), Some(Color::White));
        assert_eq!(mirror.side_to_move(), Color::Black);
        assert_eq!(
            mirror.stone(mirror.parse_cell("c1").unwrap()),
            Some(Color::White)
        );
        assert_eq!(hex_mirror(&mirror).stone(5), game.stone(5));
    }

    /// Random games played out on 5x7 boards: turned half a turn, each keeps its winner,
    /// stone counts and side to move, and a second half turn gives the game back.
    #[test]
    fn the_half_turn_keeps_the_winner() {
        use rand::seq::IndexedRandom as _;
        let mut rng = crate::rng::seeded(5);
        for _ in 0..200 {
            let mut game = Hex::new(5, 7).unwrap();
            while game.winner().is_none() {
                let empty: Vec<usize> = (0..game.cell_count())
                    .filter(|&c| game.stone(c).is_none())
                    .collect();
                let cell = *empty.choose(&mut rng).unwrap();
                game.place(game.side_to_move(), cell).unwrap();
                let turned = hex_half_turn(&game);
                assert_eq!(turned.winner(), game.winner());
                assert_eq!(turned.side_to_move(), game.side_to_move());
                let (x, y) = game.xy(cell);
                assert_eq!(turned.stone(turned.cell(4 - x, 6 - y)), game.stone(cell));
                let back = hex_half_turn(&turned);
                assert!((0..game.cell_count()).all(|c| back.stone(c) == game.stone(c)));
            }
        }
    }

    #[test]
    fn training_copies_are_counted_and_left_out_of_the_plain_encoder() {
        let both = Encoder::parse("hex-connection:fold=on,rotate=on").unwrap();
        assert_eq!(both.copies(), 4);
        assert_eq!(Encoder::parse("hex-compact:rotate=on").unwrap().copies(), 2);
        assert_eq!(both.plain().copies(), 1);
        assert_eq!(both.plain().name(), "hex-connection@1");
        assert!(Encoder::parse("checkers-planes:rotate=on").is_err());
    }
}

//! `arena dataset POSITIONS.csv... | ARCHIVE.pdn... | RECORDS.sgf...`: from the positions
//! of played games (`arena selfplay`'s positions.csv, the games of checkers PDN archives or
//! of Hex SGF records, each replayed; games without a result or that do not replay are
//! counted and left out) to the seeds' training
//! files, which `arena train`/`arena cv` read with their encoders:
//! - Hex: seed 000's format, one column per cell `cell_R_C` in {-1, 0, 1} (-1 Black/red,
//!   who joins top and bottom; 1 White/blue), then `winner` (-1 or 1): read it with
//!   `--encoder hex-connection`;
//! - checkers: seed 001's format, the 128 plane columns `BM_1` .. `WK_32`, then
//!   `black_to_move` (1 or 0: seed 001's files lack it), then the label from Black's view
//!   (0 loss, 1 win, 2 draw): `--encoder checkers-planes` or `checkers-meta`.
//!
//! `--select` picks the positions: `end` (the final position of each game), `before:N`
//! (N plies before the end: seed 000's 2 and 5; several as `before:0,2,4`), `all`, or seed
//! 001's compositions `standard-end`, `end-second-third` (the end and one and two whole
//! turns before it) and `end-to-eight` (the end and one to eight turns before); its
//! `StandardPureMetaData` is `standard-end` read with `--encoder checkers-meta`; `--dedupe` keeps the first of
//! identical rows; `--folds K` deals whole games into K files (no game on both sides of a
//! split), shuffled by `--seed`.

use crate::selfplay::HEADER;
use anyhow::{bail, Context};
use std::collections::{BTreeMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use tmbot::features::checkers_planes;
use tmbot::game::checkers::record::{parse_pdn, PdnResult};
use tmbot::game::checkers::{Checkers, DrawRules};
use tmbot::game::hex::sgf::SgfRecord;
use tmbot::game::hex::{Hex, SwapRule};
use tmbot::game::{Color, Game};

/// Arguments of `arena dataset`.
#[derive(clap::Args)]
pub struct Args {
    /// positions.csv files written by `arena selfplay`, checkers PDN archives (.pdn), or Hex
    /// SGF records (.sgf files, or folders of them such as a tournament's records/EVENT).
    #[arg(required = true)]
    positions: Vec<PathBuf>,
    /// The game of the positions.
    #[arg(long, value_enum)]
    game: crate::matches::GameKind,
    /// Which positions: end, before:N[,M...] (plies before the end), all, standard-end,
    /// end-second-third or end-to-eight.
    #[arg(long, default_value = "end")]
    select: String,
    /// Keep only the first of identical rows (features and label).
    #[arg(long)]
    dedupe: bool,
    /// Deal whole games into this many fold files (OUT/fold0.csv ...).
    #[arg(long)]
    folds: Option<usize>,
    /// Seed of the deal into folds.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The output file, or folder with --folds.
    #[arg(long, short)]
    out: PathBuf,
}

/// Which positions to keep: every one, or those a given number of plies before the end.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Selection {
    All,
    BeforeEnd(Vec<usize>),
}

impl Selection {
    fn keeps(&self, plies_to_end: usize) -> bool {
        match self {
            Selection::All => true,
            Selection::BeforeEnd(list) => list.contains(&plies_to_end),
        }
    }
}

/// Seed 001's compositions: the final position, and the positions one to eight whole
/// turns (two plies each) before it.
const COMPOSITIONS: [(&str, &[usize]); 3] = [
    ("standard-end", &[0]),
    ("end-second-third", &[0, 2, 4]),
    ("end-to-eight", &[0, 2, 4, 6, 8, 10, 12, 14, 16]),
];

fn parse_selection(text: &str) -> anyhow::Result<Selection> {
    if let Some((_, plies)) = COMPOSITIONS.iter().find(|(name, _)| *name == text) {
        return Ok(Selection::BeforeEnd(plies.to_vec()));
    }
    match text {
        "all" => Ok(Selection::All),
        "end" => Ok(Selection::BeforeEnd(vec![0])),
        _ => match text.strip_prefix("before:").map(|list| {
            list.split(',')
                .map(str::parse::<usize>)
                .collect::<Result<Vec<_>, _>>()
        }) {
            Some(Ok(plies)) => Ok(Selection::BeforeEnd(plies)),
            _ => bail!(
                "--select '{text}': expected end, before:N[,M...], all, standard-end, \
                 end-second-third or end-to-eight"
            ),
        },
    }
}

/// One selected position: its game and its row of the seed's format.
struct Row {
    game: (String, u64),
    line: String,
}

/// The seed format's row of a position of `game` whose Black scored `black`.
trait SeedFormat: Game {
    fn header(&self) -> String;
    fn row(&self, black: f64) -> Result<String, String>;
}

impl SeedFormat for Hex {
    fn header(&self) -> String {
        let mut cols: Vec<String> = (0..self.height())
            .flat_map(|r| (0..self.width()).map(move |c| format!("cell_{r}_{c}")))
            .collect();
        cols.push("winner".into());
        cols.join(",")
    }

    fn row(&self, black: f64) -> Result<String, String> {
        let winner = if black == 1.0 {
            "-1"
        } else if black == 0.0 {
            "1"
        } else {
            return Err("a Hex game has a winner; this one is drawn".into());
        };
        let mut fields: Vec<&str> = (0..self.cell_count())
            .map(|c| match self.stone(c) {
                Some(Color::Black) => "-1",
                Some(Color::White) => "1",
                None => "0",
            })
            .collect();
        fields.push(winner);
        Ok(fields.join(","))
    }
}

impl SeedFormat for Checkers {
    fn header(&self) -> String {
        let mut cols = checkers_planes::feature_names();
        cols.push("black_to_move".into());
        cols.push("label".into());
        cols.join(",")
    }

    fn row(&self, black: f64) -> Result<String, String> {
        let mut bits = Vec::with_capacity(checkers_planes::FEATURES);
        checkers_planes::encode_planes(self.position().planes(), &mut bits);
        let mut line = String::with_capacity(2 * checkers_planes::FEATURES + 4);
        for bit in bits {
            line.push(if bit == 1 { '1' } else { '0' });
            line.push(',');
        }
        line.push(if self.side_to_move() == Color::Black {
            '1'
        } else {
            '0'
        });
        line.push(',');
        line.push(if black == 1.0 {
            '1'
        } else if black == 0.0 {
            '0'
        } else {
            '2'
        });
        Ok(line)
    }
}

/// Splits a positions line into its fields (the position is the one quoted field).
fn fields(line: &str) -> Option<Vec<&str>> {
    let (head, rest) = line.split_once(",\"")?;
    let (position, tail) = rest.split_once("\",")?;
    let mut out: Vec<&str> = head.split(',').collect();
    out.push(position);
    out.extend(tail.split(','));
    (out.len() == 10).then_some(out)
}

/// One row of a positions file (`arena selfplay`).
pub struct PositionRow<'a> {
    /// The event.
    pub event: &'a str,
    /// The game's index in its event.
    pub game: u64,
    /// Plies from this position to the end of its game.
    pub plies_to_end: usize,
    /// The position text.
    pub position: &'a str,
    /// Black's score in the game (1, 0.5 or 0).
    pub outcome_black: f64,
    /// The value the search of the player to move gave its move here, for the side to move
    /// (0 to 1), when it gave one.
    pub value: Option<f64>,
}

/// Calls `each` with every row of the positions file `path` (its header checked) and a
/// description of where the row is, for errors.
pub fn for_each_position(
    path: &Path,
    mut each: impl FnMut(&PositionRow, &dyn Fn() -> String) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim() == HEADER => {}
        _ => bail!(
            "{}: not a positions file (expected the header '{HEADER}')",
            path.display()
        ),
    }
    for (n, line) in lines {
        let at = || format!("{} line {}", path.display(), n + 1);
        let f = fields(line).with_context(|| format!("{}: expected 10 fields", at()))?;
        let row = PositionRow {
            event: f[0],
            game: f[1].parse().with_context(|| format!("{}: game", at()))?,
            plies_to_end: f[3]
                .parse()
                .with_context(|| format!("{}: plies_to_end", at()))?,
            position: f[5],
            outcome_black: f[7]
                .parse()
                .with_context(|| format!("{}: outcome_black", at()))?,
            value: match f[8] {
                "" => None,
                text => Some(
                    text.parse()
                        .ok()
                        .filter(|v| (0.0..=1.0).contains(v))
                        .with_context(|| format!("{}: value '{text}' is not in [0, 1]", at()))?,
                ),
            },
        };
        each(&row, &at)?;
    }
    Ok(())
}

/// Reads the selected rows of `path`, and the header of its positions.
fn read_rows<G: SeedFormat>(
    path: &Path,
    selection: &Selection,
    rows: &mut Vec<Row>,
    header: &mut Option<String>,
) -> anyhow::Result<()> {
    for_each_position(path, |row, at| {
        if !selection.keeps(row.plies_to_end) {
            return Ok(());
        }
        let game =
            G::from_position_text(row.position).map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
        header.get_or_insert_with(|| game.header());
        let line = game
            .row(row.outcome_black)
            .map_err(|e| anyhow::anyhow!("{}: {e}", at()))?;
        rows.push(Row {
            game: (row.event.to_string(), row.game),
            line,
        });
        Ok(())
    })
}

/// The SGF files named by `path`: the file itself, or the `.sgf` files of a folder (a
/// tournament's `records/EVENT/`), in name order.
fn sgf_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf")))
        .collect();
    files.sort();
    Ok(files)
}

/// Reads the selected positions of the Hex games recorded in SGF at `path` (a file or a
/// folder of them); returns the number of games left out (unreadable, illegal, or without
/// a winner on the board or in `RE`).
fn read_sgf(
    path: &Path,
    selection: &Selection,
    rows: &mut Vec<Row>,
    header: &mut Option<String>,
) -> anyhow::Result<usize> {
    let mut skipped = 0;
    for file in sgf_files(path)? {
        let name = file.display().to_string();
        let Ok(record) = std::fs::read_to_string(&file)
            .map_err(|e| e.to_string())
            .and_then(|text| SgfRecord::parse(&text).map_err(|e| e.to_string()))
        else {
            skipped += 1;
            continue;
        };
        let Ok(mut game) = record.replay(SwapRule::Off) else {
            skipped += 1;
            continue;
        };
        let result = record.info.iter().find(|(key, _)| key == "RE");
        let winner = game.winner().or(match result.map(|(_, v)| v.as_str()) {
            Some(v) if v.starts_with("B+") => Some(Color::Black),
            Some(v) if v.starts_with("W+") => Some(Color::White),
            _ => None,
        });
        let Some(winner) = winner else {
            skipped += 1;
            continue;
        };
        let black = if winner == Color::Black { 1.0 } else { 0.0 };
        let mut to_end = 0;
        loop {
            if selection.keeps(to_end) {
                header.get_or_insert_with(|| game.header());
                rows.push(Row {
                    game: (name.clone(), 0),
                    line: game.row(black).map_err(anyhow::Error::msg)?,
                });
            }
            if game.undo().is_none() {
                break;
            }
            to_end += 1;
        }
    }
    Ok(skipped)
}

/// Reads the selected positions of every finished game of the PDN archive at `path`;
/// returns the number of games left out (no result, or a move that does not replay).
fn read_pdn(
    path: &Path,
    selection: &Selection,
    rows: &mut Vec<Row>,
    header: &mut Option<String>,
) -> anyhow::Result<usize> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.display().to_string();
    let mut skipped = 0;
    for (index, parsed) in parse_pdn(&text).into_iter().enumerate() {
        let Ok(pdn) = parsed else {
            skipped += 1;
            continue;
        };
        let black = match pdn.result {
            PdnResult::BlackWins => 1.0,
            PdnResult::WhiteWins => 0.0,
            PdnResult::Draw => 0.5,
            PdnResult::Unknown => {
                skipped += 1;
                continue;
            }
        };
        let Ok(start) = pdn.start_position() else {
            skipped += 1;
            continue;
        };
        let mut game = Checkers::from_position(start).with_rules(DrawRules::NONE);
        let mut selected = Vec::new();
        let total = pdn.moves.len();
        let mut legal = true;
        for ply in 0..=total {
            if selection.keeps(total - ply) {
                header.get_or_insert_with(|| game.header());
                selected.push(game.row(black).map_err(anyhow::Error::msg)?);
            }
            if ply < total && game.try_play(&pdn.moves[ply]).is_err() {
                legal = false;
                break;
            }
        }
        if !legal {
            skipped += 1;
            continue;
        }
        rows.extend(selected.into_iter().map(|line| Row {
            game: (name.clone(), index as u64),
            line,
        }));
    }
    Ok(skipped)
}

fn write_file(path: &Path, header: &str, rows: &[&Row]) -> anyhow::Result<()> {
    tmbot::tm::persist::write_atomically_with(path, |w| {
        writeln!(w, "{header}")?;
        for row in rows {
            writeln!(w, "{}", row.line)?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot write {}", path.display()))
}

/// A file of game records: which game it holds, how it is read, and what its errors say.
struct Archive {
    game: crate::matches::GameKind,
    read: ArchiveReader,
    wrong_game: &'static str,
    left_out: &'static str,
}

/// Reads an archive's selected rows; returns the number of games left out.
type ArchiveReader =
    fn(&Path, &Selection, &mut Vec<Row>, &mut Option<String>) -> anyhow::Result<usize>;

impl Archive {
    /// The archive `path` is (by its extension, or a folder of SGF records), if any.
    fn of(path: &Path) -> Option<Archive> {
        let is = |ext: &str| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(ext))
        };
        if is("pdn") {
            Some(Archive {
                game: crate::matches::GameKind::Checkers,
                read: read_pdn,
                wrong_game: "PDN archives hold checkers games (use --game checkers)",
                left_out: "no result, or a move that does not replay",
            })
        } else if is("sgf") || path.is_dir() {
            Some(Archive {
                game: crate::matches::GameKind::Hex,
                read: read_sgf,
                wrong_game: "SGF records hold Hex games (use --game hex)",
                left_out: "unreadable, illegal, or without a winner",
            })
        } else {
            None
        }
    }
}

/// Runs `arena dataset`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let selection = parse_selection(&args.select)?;
    let mut rows = Vec::new();
    let mut header = None;
    for path in &args.positions {
        if let Some(archive) = Archive::of(path) {
            if archive.game != args.game {
                bail!("{}: {}", path.display(), archive.wrong_game);
            }
            let skipped = (archive.read)(path, &selection, &mut rows, &mut header)?;
            if skipped > 0 {
                eprintln!(
                    "{}: {skipped} games left out ({})",
                    path.display(),
                    archive.left_out
                );
            }
            continue;
        }
        match args.game {
            crate::matches::GameKind::Hex => {
                read_rows::<Hex>(path, &selection, &mut rows, &mut header)?
            }
            crate::matches::GameKind::Checkers => {
                read_rows::<Checkers>(path, &selection, &mut rows, &mut header)?
            }
        }
    }
    let header = header.with_context(|| format!("no position matches --select {}", args.select))?;
    if args.dedupe {
        let mut seen = HashSet::new();
        rows.retain(|r| seen.insert(r.line.clone()));
    }
    let games: BTreeMap<&(String, u64), usize> = rows
        .iter()
        .map(|r| &r.game)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .enumerate()
        .map(|(i, g)| (g, i))
        .collect();
    match args.folds {
        None => {
            let all: Vec<&Row> = rows.iter().collect();
            write_file(&args.out, &header, &all)?;
            println!(
                "{} rows from {} games written to {}",
                rows.len(),
                games.len(),
                args.out.display()
            );
        }
        Some(k) => {
            if k < 2 || k > games.len() {
                bail!(
                    "--folds {k}: need 2 to {} (the number of games)",
                    games.len()
                );
            }
            let order = crate::train::shuffled(games.len(), args.seed);
            let mut fold_of = vec![0; games.len()];
            for (position, &game) in order.iter().enumerate() {
                fold_of[game] = position % k;
            }
            std::fs::create_dir_all(&args.out)
                .with_context(|| format!("cannot create {}", args.out.display()))?;
            for fold in 0..k {
                let part: Vec<&Row> = rows
                    .iter()
                    .filter(|r| fold_of[games[&r.game]] == fold)
                    .collect();
                let path = args.out.join(format!("fold{fold}.csv"));
                write_file(&path, &header, &part)?;
                println!(
                    "fold {fold}: {} rows written to {}",
                    part.len(),
                    path.display()
                );
            }
        }
    }
    Ok(())
}

//! `arena selfplay FILE.toml`: plays a tournament file (any players; openings, colour
//! swaps, shards, journal and `--resume` exactly as `arena tournament`) and writes, beside
//! its game records, `positions.csv`: every position of every finished game, one row each,
//! for `arena dataset` and for analysis.
//!
//! Columns: `event`, `game` (the game's index in its event), `ply` (moves played before the
//! position, book moves included), `plies_to_end`, `side_to_move` (`b`/`w`), `position` (the
//! position text: Hex board string or checkers FEN, quoted), `outcome_stm` and
//! `outcome_black` (1 won, 0.5 drawn, 0 lost), then `value` and `visits`: what the search of
//! the player to move reported for the move it made here (empty when it reported nothing,
//! for book moves and for the final position). A Hex game ends at the winning move, so its
//! last row is a completed board (seed 000's "completed games").

use crate::tournament::config::{GameName, TournamentFile};
use crate::tournament::{self, journal};
use anyhow::Context;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::Path;
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::game::{Color, Game};
use tmbot::play::record::{GameResult, TextRecord};

/// The positions file written into the output folder.
pub const POSITIONS: &str = "positions.csv";

/// The header of the positions file.
pub const HEADER: &str =
    "event,game,ply,plies_to_end,side_to_move,position,outcome_stm,outcome_black,value,visits";

/// Arguments of `arena selfplay`: those of `arena tournament`.
pub use crate::tournament::Args;

/// Runs `arena selfplay`: the games, then the positions of every finished game (also when
/// the run was interrupted, so a resumed run rewrites them whole).
pub fn run(args: Args) -> anyhow::Result<()> {
    let file = args.file.clone();
    let out = args.out.clone();
    let played = tournament::run(args);
    let rows = write_positions(&file, &out)?;
    eprintln!(
        "{rows} positions written to {}",
        out.join(POSITIONS).display()
    );
    played
}

/// Writes `out/positions.csv` from the journal of the tournament `file` played into `out`;
/// returns the number of rows.
pub fn write_positions(file: &Path, out: &Path) -> anyhow::Result<u64> {
    let (tournament, _) = TournamentFile::load(file)?;
    let base = file.parent().unwrap_or(Path::new("."));
    let events = tournament.resolve(base)?;
    let games: HashMap<&str, (usize, GameName)> = events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.config.name.as_str(), (i, e.config.game)))
        .collect();
    let (mut entries, _) = journal::read(&out.join(tournament::JOURNAL))?;
    entries.retain(|e| games.contains_key(e.event.as_str()));
    entries.sort_by_key(|e| (games[e.event.as_str()].0, e.index));
    let mut rows = 0;
    tmbot::tm::persist::write_atomically_with(&out.join(POSITIONS), |w| {
        writeln!(w, "{HEADER}")?;
        for entry in &entries {
            let written = match games[entry.event.as_str()].1 {
                GameName::Hex => game_rows::<Hex>(&entry.event, entry.index, &entry.record, w),
                GameName::Checkers => {
                    game_rows::<Checkers>(&entry.event, entry.index, &entry.record, w)
                }
            };
            rows += written?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot write {}", out.join(POSITIONS).display()))?;
    Ok(rows)
}

fn score_text(score: f64) -> &'static str {
    if score == 1.0 {
        "1"
    } else if score == 0.0 {
        "0"
    } else {
        "0.5"
    }
}

/// The rows of one game (none for an unfinished one).
fn game_rows<G: Game>(
    event: &str,
    index: u64,
    record: &TextRecord,
    w: &mut impl std::io::Write,
) -> std::io::Result<u64> {
    let bad = |e: String| std::io::Error::new(std::io::ErrorKind::InvalidData, e);
    if record.result == GameResult::Unfinished {
        return Ok(0);
    }
    let mut game = G::from_position_text(&record.start)
        .map_err(|e| bad(format!("event {event} game {index}: {e}")))?;
    let moves: Vec<(&str, Option<f64>, Option<u64>)> = record
        .opening
        .iter()
        .map(|m| (m.as_str(), None, None))
        .chain(
            record
                .moves
                .iter()
                .map(|m| (m.mv.as_str(), m.value, m.visits)),
        )
        .collect();
    let total = moves.len();
    let black = record.result.score_for(Color::Black).unwrap_or(0.5);
    for ply in 0..=total {
        let side = game.side_to_move();
        let stm = if side == Color::Black {
            black
        } else {
            1.0 - black
        };
        let (value, visits) = moves
            .get(ply)
            .map_or((None, None), |&(_, value, visits)| (value, visits));
        writeln!(
            w,
            "{event},{index},{ply},{},{},\"{}\",{},{},{},{}",
            total - ply,
            if side == Color::Black { 'b' } else { 'w' },
            game.position_text(),
            score_text(stm),
            score_text(black),
            value.map_or(String::new(), |v| format!("{v:.4}")),
            visits.map_or(String::new(), |v| v.to_string()),
        )?;
        if let Some(&(text, _, _)) = moves.get(ply) {
            game.try_play(text)
                .map_err(|e| bad(format!("event {event} game {index} ply {}: {e}", ply + 1)))?;
        }
    }
    Ok(total as u64 + 1)
}

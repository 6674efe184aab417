//! Results from the journal: crosstables, joint ratings, per-pairing statistics, the results
//! CSV, the JSON summary, game records and charts. Everything here is a function of the
//! configuration and the journal's entries, so a resumed run, a merged set of shards and an
//! uninterrupted run write the same files.

use super::config::{Event, GameName};
use super::journal::{write_atomically, Entry};
use crate::plot;
use crate::stats::{self, Estimate, Penta, Ratings, Wdl};
use anyhow::Context;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use tmbot::game::checkers::record::{save_pdn, PdnGame};
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::sgf::SgfRecord;
use tmbot::game::hex::Hex;
use tmbot::game::Color;
use tmbot::play::record::{Termination, TextRecord};

/// One player's line in an event's table.
#[derive(Clone, Debug, Serialize)]
pub struct Standing {
    /// The player's name.
    pub name: String,
    /// Points (1 a win, 0.5 a draw).
    pub points: f64,
    /// Games played.
    pub games: u64,
    /// Joint Bradley-Terry rating (mean 0).
    pub elo: f64,
    /// Its 95% error bar.
    pub error95: f64,
    /// Mean wall time of its moves in milliseconds (forced and book moves included); not
    /// in `summary.json`, which stays the same for the same games however they were timed.
    #[serde(skip)]
    pub ms_per_move: f64,
}

/// A pairing's statistics from its first player's side.
#[derive(Clone, Debug, Serialize)]
pub struct PairingStats {
    /// First player.
    pub a: String,
    /// Second player.
    pub b: String,
    /// A's wins, draws and losses.
    pub wdl: Wdl,
    /// A's results as Black (the first player).
    pub first_as_black: Wdl,
    /// A's results as White.
    pub first_as_white: Wdl,
    /// Colour-swapped pairs of games (both played).
    pub penta: Penta,
    /// Per-game estimate of A's score and Elo.
    pub trinomial: Estimate,
    /// Per-pair estimate (when pairs were played).
    pub pentanomial: Option<Estimate>,
}

/// An event's results.
#[derive(Clone, Debug, Serialize)]
pub struct EventSummary {
    /// The event's name.
    pub name: String,
    /// Games in the journal.
    pub games: usize,
    /// Games scheduled.
    pub scheduled: u64,
    /// Players in table order (points, then rating).
    pub standings: Vec<Standing>,
    /// `crosstable[i][j]`: points of player `i` against player `j` (list order).
    pub crosstable: Vec<Vec<f64>>,
    /// Player names in list order (the crosstable's order).
    pub players: Vec<String>,
    /// Every pairing.
    pub pairings: Vec<PairingStats>,
    /// Games per termination class.
    pub terminations: BTreeMap<String, u64>,
}

/// Computes an event's results from its entries (any order).
pub fn summarize(event: &Event, entries: &[&Entry]) -> EventSummary {
    let players: Vec<String> = event
        .config
        .players
        .iter()
        .map(|p| p.name().to_string())
        .collect();
    let n = players.len();
    let mut sorted: Vec<&Entry> = entries.to_vec();
    sorted.sort_by_key(|e| e.index);
    let mut crosstable = vec![vec![0.0; n]; n];
    let mut games_of = vec![0u64; n];
    // Milliseconds and moves of each player: tournament games start with Black to move,
    // so the first agent move after the book is Black's when the book has an even length.
    let mut thinking = vec![(0.0, 0u64); n];
    let mut terminations = BTreeMap::new();
    let mut bt_games = Vec::new();
    for entry in &sorted {
        let score = entry.record.result.score_for(Color::Black).unwrap_or(0.5);
        crosstable[entry.black][entry.white] += score;
        crosstable[entry.white][entry.black] += 1.0 - score;
        games_of[entry.black] += 1;
        games_of[entry.white] += 1;
        bt_games.push((entry.black, entry.white, score));
        for (k, mv) in entry.record.moves.iter().enumerate() {
            let black_moves = (entry.record.opening.len() + k) % 2 == 0;
            let player = if black_moves {
                entry.black
            } else {
                entry.white
            };
            thinking[player].0 += mv.ms;
            thinking[player].1 += 1;
        }
        *terminations
            .entry(entry.record.termination.name().to_string())
            .or_insert(0) += 1;
    }
    let Ratings { elo, error95 } = stats::bradley_terry(n, &bt_games);
    let games_per_pairing = event.config.games;
    let pairings = event
        .pairings()
        .into_iter()
        .enumerate()
        .map(|(p, (a, b))| {
            let first = p as u64 * games_per_pairing;
            let mut wdl = Wdl::default();
            let mut by_colour = [Wdl::default(); 2];
            let mut penta = Penta::default();
            let mut pending: Option<(u64, f64)> = None;
            for entry in sorted
                .iter()
                .filter(|e| e.index >= first && e.index < first + games_per_pairing)
            {
                let a_color = if entry.black == a {
                    Color::Black
                } else {
                    Color::White
                };
                let score = entry.record.result.score_for(a_color).unwrap_or(0.5);
                wdl.add(score);
                by_colour[a_color.index()].add(score);
                let pair = (entry.index - first) / 2;
                match pending {
                    Some((q, s)) if q == pair => {
                        penta.add_pair(s, score);
                        pending = None;
                    }
                    _ => pending = Some((pair, score)),
                }
            }
            PairingStats {
                a: players[a].clone(),
                b: players[b].clone(),
                wdl,
                first_as_black: by_colour[0],
                first_as_white: by_colour[1],
                penta,
                trinomial: stats::trinomial(&wdl),
                pentanomial: (penta.pairs() > 0).then(|| stats::pentanomial(&penta)),
            }
        })
        .collect();
    let mut standings: Vec<Standing> = (0..n)
        .map(|i| Standing {
            name: players[i].clone(),
            points: crosstable[i].iter().sum(),
            games: games_of[i],
            elo: elo[i],
            error95: error95[i],
            ms_per_move: thinking[i].0 / thinking[i].1.max(1) as f64,
        })
        .collect();
    standings.sort_by(|x, y| y.points.total_cmp(&x.points).then(y.elo.total_cmp(&x.elo)));
    EventSummary {
        name: event.config.name.clone(),
        games: sorted.len(),
        scheduled: event.pairings().len() as u64 * games_per_pairing,
        standings,
        crosstable,
        players,
        pairings,
        terminations,
    }
}

/// The crosstable, ratings and pairing statistics as text.
pub fn table_text(summary: &EventSummary) -> String {
    let mut out = String::new();
    let n = summary.players.len();
    let width = summary
        .players
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "\n{}: {} of {}",
        summary.name,
        summary.games,
        crate::plural::games(summary.scheduled)
    );
    let header: String = (1..=n).map(|i| format!("{i:>6}")).collect();
    let _ = writeln!(
        out,
        "  #  {:<width$}{header}   points  games   score     Elo   +-95%  ms/move",
        "player"
    );
    for (rank, s) in summary.standings.iter().enumerate() {
        let i = summary
            .players
            .iter()
            .position(|p| *p == s.name)
            .unwrap_or(0);
        let row: String = (0..n)
            .map(|j| {
                if i == j {
                    format!("{:>6}", "-")
                } else {
                    format!("{:>6.1}", summary.crosstable[i][j])
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "{:>3}  {:<width$}{row}   {:>6.1}  {:>5}  {:>5.1}%  {:>+6.0}  {:>6.0}  {:>7.1}",
            rank + 1,
            s.name,
            s.points,
            s.games,
            100.0 * s.points / s.games.max(1) as f64,
            s.elo,
            s.error95,
            s.ms_per_move
        );
    }
    let _ = writeln!(out, "  (columns follow the player list order: {})", {
        let names: Vec<String> = summary
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{} {p}", i + 1))
            .collect();
        names.join(", ")
    });
    for p in &summary.pairings {
        let e = p.pentanomial.unwrap_or(p.trinomial);
        let _ = writeln!(
            out,
            "  {} vs {}: +{} ={} -{}  score {:.3} [{:.3}, {:.3}]  {}  LOS {}  penta [{} {} {} {} {}]",
            p.a,
            p.b,
            p.wdl.wins,
            p.wdl.draws,
            p.wdl.losses,
            e.score,
            e.score_low,
            e.score_high,
            e.elo_text(),
            e.los.map_or("-".into(), |l| format!("{:.1}%", 100.0 * l)),
            p.penta.ll,
            p.penta.ld,
            p.penta.wl_dd,
            p.penta.wd,
            p.penta.ww
        );
    }
    let classes: Vec<String> = summary
        .terminations
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let _ = writeln!(out, "  terminations: {}", classes.join(", "));
    out
}

/// SGF `RE` of a Hex game: `B+`, `W+`, with `R` for a resignation, `T` for time and `F` for
/// another fault.
fn sgf_result(record: &TextRecord) -> String {
    let Some(winner) = record.result.winner() else {
        return "?".into();
    };
    let side = if winner == Color::Black { "B+" } else { "W+" };
    let how = match record.termination {
        Termination::Timeout => "T",
        t if t.is_fault() => "F",
        _ if record.detail.ends_with("resigns") => "R",
        _ => "",
    };
    format!("{side}{how}")
}

/// Writes the results CSV, the JSON summary, the records and the charts into `dir`, and
/// returns the summaries.
pub fn write_outputs(
    dir: &Path,
    events: &[Event],
    entries: &[Entry],
) -> anyhow::Result<Vec<EventSummary>> {
    let mut csv =
        String::from("event,index,black,white,result,termination,plies,opening,seed,detail\n");
    let mut summaries = Vec::new();
    for event in events {
        let mine: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.event == event.config.name)
            .collect();
        let mut sorted = mine.clone();
        sorted.sort_by_key(|e| e.index);
        let name = |i: usize| event.config.players[i].name().to_string();
        for e in &sorted {
            let _ = writeln!(
                csv,
                "{},{},{},{},{},{},{},{},{},{}",
                csv_field(&event.config.name),
                e.index,
                csv_field(&name(e.black)),
                csv_field(&name(e.white)),
                e.record.result.as_str(),
                e.record.termination.name(),
                e.record.opening.len() + e.record.moves.len(),
                csv_field(&e.record.opening.join(" ")),
                e.record.seed,
                csv_field(&e.record.detail)
            );
        }
        write_records(dir, event, &sorted)?;
        let summary = summarize(event, &mine);
        let rows: Vec<(String, f64, f64)> = summary
            .standings
            .iter()
            .map(|s| (s.name.clone(), s.elo, s.error95))
            .collect();
        let title = format!("{}: ratings (95% error bars)", event.config.name);
        write_atomically(
            &dir.join(format!("{}-ratings.svg", event.config.name)),
            &plot::rating_chart(&title, &rows),
        )?;
        write_atomically(
            &dir.join(format!("{}-scores.svg", event.config.name)),
            &plot::score_chart(
                &format!("{}: score over games", event.config.name),
                &running_scores(event, &sorted),
                "score %",
            ),
        )?;
        summaries.push(summary);
    }
    write_atomically(&dir.join("results.csv"), &csv)?;
    write_atomically(
        &dir.join("summary.json"),
        &serde_json::to_string_pretty(&serde_json::json!({ "events": summaries }))?,
    )?;
    Ok(summaries)
}

/// Each player's running score (percent) after each of its games, in schedule order.
fn running_scores(event: &Event, sorted: &[&Entry]) -> Vec<(String, Vec<(f64, f64)>)> {
    let n = event.config.players.len();
    let mut totals = vec![(0.0, 0u64); n];
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    for e in sorted {
        let black = e.record.result.score_for(Color::Black).unwrap_or(0.5);
        for (player, score) in [(e.black, black), (e.white, 1.0 - black)] {
            totals[player].0 += score;
            totals[player].1 += 1;
            let (points, games) = totals[player];
            series[player].push((games as f64, 100.0 * points / games as f64));
        }
    }
    event
        .config
        .players
        .iter()
        .zip(series)
        .map(|(p, s)| (p.name().to_string(), s))
        .collect()
}

/// Quotes a CSV field when it needs it.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// SGF files (one per Hex game, in `records/EVENT/`) or one PDN file per checkers event.
fn write_records(dir: &Path, event: &Event, sorted: &[&Entry]) -> anyhow::Result<()> {
    let records = dir.join("records");
    std::fs::create_dir_all(&records)
        .with_context(|| format!("cannot create {}", records.display()))?;
    let name = |i: usize| event.config.players[i].name().to_string();
    match event.config.game {
        GameName::Hex => {
            let folder = records.join(&event.config.name);
            std::fs::create_dir_all(&folder)?;
            for e in sorted {
                let game: Hex = e
                    .record
                    .replay()
                    .with_context(|| format!("journal game {}", e.index))?;
                let mut sgf = SgfRecord::from_game(&game);
                sgf.info = vec![
                    ("PB".into(), name(e.black)),
                    ("PW".into(), name(e.white)),
                    ("RE".into(), sgf_result(&e.record)),
                    ("EV".into(), event.config.name.clone()),
                    ("GN".into(), e.index.to_string()),
                    (
                        "GC".into(),
                        format!(
                            "{} {}; seed {}",
                            e.record.termination, e.record.detail, e.record.seed
                        ),
                    ),
                ];
                write_atomically(&folder.join(format!("{:05}.sgf", e.index)), &sgf.to_sgf())?;
            }
        }
        GameName::Checkers => {
            let mut games = Vec::new();
            for e in sorted {
                let game: Checkers = e
                    .record
                    .replay()
                    .with_context(|| format!("journal game {}", e.index))?;
                let tags = vec![
                    ("Event".into(), event.config.name.clone()),
                    ("Round".into(), e.index.to_string()),
                    ("Black".into(), name(e.black)),
                    ("White".into(), name(e.white)),
                    ("Result".into(), e.record.result.as_str().into()),
                    ("GameType".into(), "21".into()),
                    ("Termination".into(), e.record.termination.name().into()),
                ];
                games.push(PdnGame::from_game(&game, tags));
            }
            save_pdn(&records.join(format!("{}.pdn", event.config.name)), &games)
                .with_context(|| format!("cannot write the PDN of '{}'", event.config.name))?;
        }
    }
    Ok(())
}

//! `arena replay FILE.pdn`: reads and replays every game of a PDN file and reports each game
//! that fails with its location (file, game number, move number and text). A game whose
//! `GameType` tag names another draughts variant than English checkers (21) fails without
//! being replayed. The exit status is non-zero when the file holds no game or any game
//! fails.

use anyhow::Context;
use std::path::PathBuf;
use tmbot::game::checkers::{read_pdn_file, PdnGame};

/// The PDN `GameType` of English checkers.
const ENGLISH_CHECKERS: &str = "21";

/// Arguments of `arena replay`.
#[derive(clap::Args)]
pub struct Args {
    /// The PDN file.
    file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// `text` with control characters and undecodable bytes (read as U+FFFD) escaped, so that a
/// damaged or binary file cannot garble the terminal.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let escape = c.is_control() || c == char::REPLACEMENT_CHARACTER;
            let shown: Vec<char> = if escape {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            shown
        })
        .collect()
}

/// Why `game` is not English checkers, judged by its `GameType` tag (absent: English).
fn variant_error(game: &PdnGame) -> Option<String> {
    let tag = game.tag("GameType")?;
    let number = tag.split(',').next().unwrap_or("").trim();
    (number != ENGLISH_CHECKERS).then(|| {
        format!("GameType \"{tag}\" is not English checkers ({ENGLISH_CHECKERS}); not replayed")
    })
}

/// Runs `arena replay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let name = args.file.display().to_string();
    let games = read_pdn_file(&args.file).with_context(|| format!("cannot read {name}"))?;
    let mut parsed = 0;
    let mut replayed = 0;
    let mut failures = Vec::new();
    for (index, game) in games.iter().enumerate() {
        let outcome = match game {
            Err(error) => Err(error.to_string()),
            Ok(game) => {
                parsed += 1;
                match variant_error(game) {
                    Some(message) => Err(message),
                    None => game.replay().map(drop).map_err(|e| e.to_string()),
                }
            }
        };
        match outcome {
            Ok(()) => replayed += 1,
            Err(error) => failures.push((index + 1, printable(&error))),
        }
    }
    if args.json {
        let failures: Vec<_> = failures
            .iter()
            .map(|(game, error)| serde_json::json!({ "game": game, "error": error }))
            .collect();
        let summary = serde_json::json!({
            "file": name, "games": games.len(), "parsed": parsed, "replayed": replayed,
            "failures": failures,
        });
        println!("{summary}");
    } else {
        println!(
            "{name}: {}, {parsed} parsed, {replayed} replayed legally",
            crate::plural::games(games.len() as u64)
        );
        for (game, error) in &failures {
            println!("{name}: game {game}: {error}");
        }
    }
    anyhow::ensure!(!games.is_empty(), "{name}: no game found");
    anyhow::ensure!(
        failures.is_empty(),
        "{name}: {} of {} games failed",
        failures.len(),
        games.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_bad_bytes_are_escaped() {
        assert_eq!(printable("12-16\u{1b}[2J"), "12-16\\u{1b}[2J");
        assert_eq!(printable("a\u{FFFD}b"), "a\\u{fffd}b");
        assert_eq!(printable("11-15 plain"), "11-15 plain");
    }
}

//! `arena replay FILE.pdn`: reads and replays every game of a PDN file and reports each game
//! that fails with its location (file, game number, move number and text).

use anyhow::Context;
use std::path::PathBuf;
use tmbot::game::checkers::read_pdn_file;

/// Arguments of `arena replay`.
#[derive(clap::Args)]
pub struct Args {
    /// The PDN file.
    file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `arena replay`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let name = args.file.display().to_string();
    let games = read_pdn_file(&args.file).with_context(|| format!("cannot read {name}"))?;
    let mut parsed = 0;
    let mut replayed = 0;
    let mut failures = Vec::new();
    for (index, game) in games.iter().enumerate() {
        let outcome = game.as_ref().map_err(Clone::clone).and_then(|g| {
            parsed += 1;
            g.replay()
        });
        match outcome {
            Ok(_) => replayed += 1,
            Err(error) => failures.push((index + 1, error.to_string())),
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
    Ok(())
}

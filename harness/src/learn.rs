//! `arena learn FILE.toml --out DIR`: the iterated learning loop. Each generation
//! 1. plays self-play games (`arena selfplay`) between the file's players and the best
//!    Tsetlin Machine player so far,
//! 2. turns the positions of the last `window` generations into a dataset (`arena dataset`),
//! 3. trains a model on it (`arena train`, then `arena export`),
//! 4. plays a gauntlet (`arena tournament`): the new model's player against the best player
//!    so far and the ladder,
//! 5. keeps the new player when it scores above 50% against the best so far (the first one
//!    is kept).
//!
//! Every step runs this program's own command in `DIR/gen-K/` and is skipped on `--resume`
//! when its output is there; `DIR/generations.csv` (rewritten atomically after each
//! generation) holds each generation's score against the best, its rating against the
//! ladder with its 95% margin, and whether it was kept.
//!
//! ```toml
//! seed = 1
//! game = "hex"                    # hex | checkers
//! size = 9
//! generations = 3
//! player = "alphabeta:depth=2,eval=tm-votes:{model}"   # {model}: the generation's model
//! [selfplay]
//! games = 40                      # per pairing
//! openings = "../../openings/hex-9.txt"
//! players = ["mcts:playouts=300", "greedy:eval=twodistance"]
//! [dataset]
//! select = "all"
//! dedupe = true
//! window = 2                      # generations whose positions are learned from
//! [train]
//! encoder = "hex-compact:fold=on"
//! options = ["--weighted", "--clauses", "1000", "--T", "2000", "--s", "9", "--epochs", "8"]
//! [gauntlet]
//! games = 40                      # per opponent
//! openings = "../../openings/hex-9.txt"
//! ladder = ["random", "mcts:playouts=300"]
//! ```

use anyhow::{bail, Context};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Arguments of `arena learn`.
#[derive(clap::Args)]
pub struct Args {
    /// The loop's file (TOML).
    file: PathBuf,
    /// Output folder: one gen-K folder per generation and generations.csv.
    #[arg(long, default_value = "learn-out")]
    out: PathBuf,
    /// Continue an interrupted loop in --out, skipping the steps already done.
    #[arg(long)]
    resume: bool,
    /// Games played at once in self-play and gauntlets (default: the number of cores).
    #[arg(long)]
    concurrency: Option<usize>,
}

/// The loop's file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Config {
    #[serde(default = "one")]
    seed: u64,
    game: String,
    size: Option<usize>,
    generations: usize,
    /// The learned player's spec, `{model}` standing for the model file.
    player: String,
    selfplay: Selfplay,
    dataset: DatasetStage,
    train: Train,
    gauntlet: Gauntlet,
}

fn one() -> u64 {
    1
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Selfplay {
    games: u64,
    openings: Option<PathBuf>,
    max_plies: Option<usize>,
    players: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct DatasetStage {
    #[serde(default = "all")]
    select: String,
    #[serde(default)]
    dedupe: bool,
    #[serde(default = "window")]
    window: usize,
}

fn all() -> String {
    "all".into()
}

fn window() -> usize {
    1
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Train {
    encoder: String,
    #[serde(default)]
    options: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Gauntlet {
    games: u64,
    openings: Option<PathBuf>,
    max_plies: Option<usize>,
    time_control: Option<String>,
    #[serde(default)]
    ladder: Vec<String>,
}

/// One generation's result.
struct Generation {
    index: usize,
    model: PathBuf,
    /// Score against the best player before it (none for the first).
    against_best: Option<f64>,
    elo: f64,
    error95: f64,
    kept: bool,
}

/// The learned player of `model`.
fn player_spec(template: &str, model: &Path) -> String {
    template.replace("{model}", &model.display().to_string())
}

/// A TOML string literal.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// Runs this program's `args`, failing with the step's name when it fails.
fn arena(step: &str, args: &[String]) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find this program")?;
    eprintln!("[{step}] arena {}", args.join(" "));
    let status = Command::new(exe)
        .args(args)
        .status()
        .with_context(|| format!("cannot run the {step} step"))?;
    if !status.success() {
        bail!("the {step} step failed ({status})");
    }
    Ok(())
}

/// The event lines shared by the self-play and gauntlet files.
fn event_head(config: &Config, name: &str, games: u64, openings: &Option<PathBuf>) -> String {
    let mut text = format!(
        "[[event]]\nname = {}\ngame = {}\ngames = {games}\n",
        quoted(name),
        quoted(&config.game)
    );
    if let Some(size) = config.size {
        text += &format!("size = {size}\n");
    }
    if let Some(path) = openings {
        text += &format!("openings = {}\n", quoted(&path.display().to_string()));
    }
    text
}

fn players_line(players: &[(String, String)]) -> String {
    let list: Vec<String> = players
        .iter()
        .map(|(name, spec)| format!("{{ name = {}, spec = {} }}", quoted(name), quoted(spec)))
        .collect();
    format!("players = [\n    {},\n]\n", list.join(",\n    "))
}

/// Reads the candidate's score against `best` and its rating from a gauntlet's summary.
fn gauntlet_result(summary: &Path, best: Option<&str>) -> anyhow::Result<(Option<f64>, f64, f64)> {
    let text = std::fs::read_to_string(summary)
        .with_context(|| format!("cannot read {}", summary.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a tournament summary", summary.display()))?;
    let event = &json["events"][0];
    let standing = event["standings"]
        .as_array()
        .and_then(|s| s.iter().find(|p| p["name"] == "candidate"))
        .with_context(|| format!("{}: no standing of the candidate", summary.display()))?;
    let number = |v: &serde_json::Value, what: &str| {
        v.as_f64()
            .with_context(|| format!("{}: no {what}", summary.display()))
    };
    let elo = number(&standing["elo"], "Elo")?;
    let error = number(&standing["error95"], "Elo margin")?;
    let against = match best {
        None => None,
        Some(best) => {
            let pairing = event["pairings"]
                .as_array()
                .and_then(|p| p.iter().find(|p| p["a"] == "candidate" && p["b"] == best))
                .with_context(|| format!("{}: no candidate-best pairing", summary.display()))?;
            Some(number(&pairing["trinomial"]["score"], "score")?)
        }
    };
    Ok((against, elo, error))
}

fn write_table(path: &Path, rows: &[Generation]) -> anyhow::Result<()> {
    use std::io::Write as _;
    tmbot::tm::persist::write_atomically_with(path, |w| {
        writeln!(w, "generation,model,score_vs_best,elo,elo_error95,kept")?;
        for g in rows {
            writeln!(
                w,
                "{},{},{},{:.1},{:.1},{}",
                g.index,
                g.model.display(),
                g.against_best.map_or(String::new(), |s| format!("{s:.4}")),
                g.elo,
                g.error95,
                g.kept
            )?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot write {}", path.display()))
}

/// Writes the tournament `file` to `dir/NAME.toml` and plays it with `command` (selfplay or
/// tournament) into `dir/NAME`, resuming what an interrupted run left there.
fn play(
    dir: &Path,
    command: &str,
    name: &str,
    file: &str,
    concurrency: &[String],
) -> anyhow::Result<()> {
    let toml = dir.join(format!("{name}.toml"));
    std::fs::write(&toml, file).with_context(|| format!("cannot write {}", toml.display()))?;
    let out = dir.join(name);
    let mut step = vec![
        command.to_string(),
        toml.display().to_string(),
        "--out".into(),
        out.display().to_string(),
    ];
    if out.exists() {
        step.push("--resume".into());
    }
    step.extend(concurrency.iter().cloned());
    arena(name, &step)
}

/// Makes a path from the loop's file absolute (it is written into files elsewhere).
fn beside(file: &Path, path: &Option<PathBuf>) -> anyhow::Result<Option<PathBuf>> {
    let Some(path) = path else { return Ok(None) };
    let base = file.parent().unwrap_or(Path::new("."));
    let joined = base.join(path);
    std::fs::canonicalize(&joined)
        .map(Some)
        .with_context(|| format!("cannot find {}", joined.display()))
}

/// Runs `arena learn`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let mut config: Config =
        toml::from_str(&text).with_context(|| format!("{}", args.file.display()))?;
    if !matches!(config.game.as_str(), "hex" | "checkers") {
        bail!("{}: game must be hex or checkers", args.file.display());
    }
    if !config.player.contains("{model}") {
        bail!("{}: player must name {{model}}", args.file.display());
    }
    if config.generations == 0 || config.dataset.window == 0 {
        bail!(
            "{}: generations and window must be at least 1",
            args.file.display()
        );
    }
    config.selfplay.openings = beside(&args.file, &config.selfplay.openings)?;
    config.gauntlet.openings = beside(&args.file, &config.gauntlet.openings)?;
    if args.out.exists() && !args.resume && args.out.read_dir()?.next().is_some() {
        bail!(
            "{} is not empty: give another --out, or --resume to continue",
            args.out.display()
        );
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let out = std::fs::canonicalize(&args.out)?;
    let concurrency: Vec<String> = args
        .concurrency
        .map(|c| vec!["--concurrency".into(), c.to_string()])
        .unwrap_or_default();
    let mut rows: Vec<Generation> = Vec::new();
    let mut best: Option<PathBuf> = None;
    for index in 1..=config.generations {
        let dir = out.join(format!("gen-{index}"));
        std::fs::create_dir_all(&dir)?;
        let path = |name: &str| dir.join(name).display().to_string();

        // 1. Self-play.
        let mut players: Vec<(String, String)> = config
            .selfplay
            .players
            .iter()
            .enumerate()
            .map(|(i, spec)| (format!("p{}", i + 1), spec.clone()))
            .collect();
        if let Some(model) = &best {
            players.push(("best".into(), player_spec(&config.player, model)));
        }
        if players.len() < 2 {
            players.push(("p1-again".into(), players[0].1.clone()));
        }
        let mut file = format!("seed = {}\n", config.seed + index as u64);
        file += &event_head(
            &config,
            "selfplay",
            config.selfplay.games,
            &config.selfplay.openings,
        );
        if let Some(plies) = config.selfplay.max_plies {
            file += &format!("max_plies = {plies}\n");
        }
        file += &players_line(&players);
        let positions = dir.join("selfplay/positions.csv");
        if !positions.exists() {
            play(&dir, "selfplay", "selfplay", &file, &concurrency)?;
        }

        // 2. Dataset from the last `window` generations.
        let data = dir.join("data.csv");
        if !data.exists() {
            let first = index.saturating_sub(config.dataset.window - 1).max(1);
            let mut step: Vec<String> = vec!["dataset".into()];
            step.extend((first..=index).map(|g| {
                out.join(format!("gen-{g}/selfplay/positions.csv"))
                    .display()
                    .to_string()
            }));
            step.extend([
                "--game".into(),
                config.game.clone(),
                "--select".into(),
                config.dataset.select.clone(),
                "-o".into(),
                data.display().to_string(),
            ]);
            if config.dataset.dedupe {
                step.push("--dedupe".into());
            }
            arena("dataset", &step)?;
        }

        // 3. Train and export.
        let model = dir.join("model.tmi");
        if !model.exists() {
            let mut step: Vec<String> = vec![
                "train".into(),
                data.display().to_string(),
                "--encoder".into(),
                config.train.encoder.clone(),
                "--seed".into(),
                (config.seed + index as u64).to_string(),
                "-o".into(),
                path("model.tm"),
            ];
            step.extend(config.train.options.iter().cloned());
            arena("train", &step)?;
            arena(
                "export",
                &[
                    "export".into(),
                    path("model.tm"),
                    "-o".into(),
                    path("model.tmi"),
                ],
            )?;
        }

        // 4. Gauntlet: the candidate against the best so far and the ladder.
        let mut players = vec![("candidate".to_string(), player_spec(&config.player, &model))];
        if let Some(model) = &best {
            players.push(("best".into(), player_spec(&config.player, model)));
        }
        players.extend(
            config
                .gauntlet
                .ladder
                .iter()
                .enumerate()
                .map(|(i, spec)| (format!("ladder{}", i + 1), spec.clone())),
        );
        let summary = dir.join("gauntlet/summary.json");
        if !summary.exists() {
            let mut file = format!("seed = {}\n", config.seed + 1000 + index as u64);
            file += &event_head(
                &config,
                "gauntlet",
                config.gauntlet.games,
                &config.gauntlet.openings,
            );
            file += "format = \"gauntlet\"\n";
            if let Some(plies) = config.gauntlet.max_plies {
                file += &format!("max_plies = {plies}\n");
            }
            if let Some(tc) = &config.gauntlet.time_control {
                file += &format!("time_control = {}\n", quoted(tc));
            }
            file += &players_line(&players);
            play(&dir, "tournament", "gauntlet", &file, &concurrency)?;
        }

        // 5. Keep the better.
        let (against_best, elo, error95) =
            gauntlet_result(&summary, best.as_ref().map(|_| "best"))?;
        let kept = against_best.is_none_or(|s| s > 0.5);
        if kept {
            best = Some(model.clone());
        }
        rows.push(Generation {
            index,
            model,
            against_best,
            elo,
            error95,
            kept,
        });
        write_table(&out.join("generations.csv"), &rows)?;
    }
    println!("generation  score vs best   Elo (gauntlet)  kept");
    for g in &rows {
        println!(
            "{:>10}  {:>13}  {:>+8.0} +- {:<4.0}  {}",
            g.index,
            g.against_best
                .map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s)),
            g.elo,
            g.error95,
            if g.kept { "yes" } else { "no" }
        );
    }
    if let Some(model) = best {
        println!("best model: {}", model.display());
    }
    println!("generations.csv in {}", out.display());
    Ok(())
}

//! `arena tournament FILE.toml`: round robins and gauntlets of in-process players and external
//! engines, with openings, colour-swapped pairs, clocks, adjudication, a results journal
//! that `--resume` continues exactly, deterministic shards joined by `arena merge`, records,
//! ratings and charts.

pub mod config;
pub mod journal;
pub mod report;
pub mod runner;

use anyhow::{bail, Context};
use config::{Event, GameName, TournamentFile};
use indicatif::{ProgressBar, ProgressStyle};
use journal::{Entry, Journal};
use report::EventSummary;
use runner::{run_event, schedule, Job, Plan, RunContext};
use std::path::{Path, PathBuf};
use tmbot::game::checkers::Checkers;
use tmbot::game::hex::Hex;
use tmbot::play::openings::Book;
use tmbot::player::spec::Spec;
use tmbot::stop::StopFlag;

/// Name of the copy of the tournament file kept in the output folder.
const CONFIG_COPY: &str = "tournament.toml";
/// Name of the results journal.
pub const JOURNAL: &str = "journal.jsonl";
/// Name of the journal of void games.
const VOID_JOURNAL: &str = "void.jsonl";

/// A shard `K/N` (1-based): the games whose position in the whole schedule is K-1 mod N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("shard '{text}': expected K/N with 1 <= K <= N, e.g. 2/8");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Arguments of `arena tournament`.
#[derive(clap::Args)]
pub struct Args {
    /// The tournament file (TOML).
    pub file: PathBuf,
    /// Output folder: journal, records, results, charts.
    #[arg(long, default_value = "tournament-out")]
    pub out: PathBuf,
    /// Continue the interrupted tournament in --out.
    #[arg(long)]
    pub resume: bool,
    /// Games played at once (default: the file's, else the number of cores).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Play only shard K of N (1-based) of the schedule; join the shards with `arena merge`.
    #[arg(long)]
    pub shard: Option<Shard>,
    /// Print the summary as JSON instead of tables (no progress bar).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `arena merge`.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// Output folders of the shards.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Folder for the merged results.
    #[arg(long)]
    pub out: PathBuf,
    /// Merge even when games are missing (shards still running).
    #[arg(long)]
    pub partial: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The most threads any in-process player of `event` runs (`mcts:threads=N`).
fn threads_per_game(event: &Event) -> usize {
    event
        .config
        .players
        .iter()
        .filter_map(|p| Spec::parse(p.spec()).ok())
        .filter_map(|s| {
            s.options
                .iter()
                .find(|(k, _)| k == "threads")
                .and_then(|(_, v)| v.parse::<usize>().ok())
        })
        .max()
        .unwrap_or(1)
}

/// Checks every player spec of `event` before anything starts.
fn check_players(event: &Event) -> anyhow::Result<()> {
    for player in &event.config.players {
        let checked = match event.config.game {
            GameName::Hex => tmbot::play::spec::check_spec::<Hex>(player.spec()),
            GameName::Checkers => tmbot::play::spec::check_spec::<Checkers>(player.spec()),
        };
        checked.with_context(|| {
            format!("event '{}', player '{}'", event.config.name, player.name())
        })?;
    }
    Ok(())
}

/// Replays every opening of `book` on `event`'s start position before anything is written.
fn check_book(event: &Event, book: &Book) -> anyhow::Result<()> {
    let checked = match event.config.game {
        GameName::Hex => {
            let size = event.config.size.unwrap_or(11);
            let start = Hex::new(size, size).map_err(|e| anyhow::anyhow!("size: {e}"))?;
            book.check(&start)
        }
        GameName::Checkers => book.check(&Checkers::new()),
    };
    checked.map_err(|e| anyhow::anyhow!("event '{}': {e}", event.config.name))
}

/// The progress bar: drawn on a terminal (standard error), hidden under `--json`.
pub fn progress_bar(total: u64, json: bool) -> ProgressBar {
    if json {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{bar:30}} {{pos}}/{{len}} {}  {{elapsed}} ETA {{eta}}  {{msg}}",
            crate::plural::game_word(total)
        ))
        .expect("the template is valid"),
    );
    bar
}

/// Runs `arena tournament`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (file, text) = TournamentFile::load(&args.file)?;
    let base = args.file.parent().unwrap_or(Path::new("."));
    let (summaries, interrupted) = run_file(&file, &text, base, &args)?;
    print_summaries(&summaries, &args.out, args.json)?;
    if interrupted {
        bail!("interrupted: the games played are in the journal; continue with --resume");
    }
    Ok(())
}

/// Plays the tournament `file` (whose text is `text`, paths relative to `base`) with the
/// command line's `args` (its `file` is not read); returns the summaries and whether Ctrl-C
/// interrupted the run.
pub fn run_file(
    file: &TournamentFile,
    text: &str,
    base: &Path,
    args: &Args,
) -> anyhow::Result<(Vec<EventSummary>, bool)> {
    let events = file.resolve(base)?;
    let mut books = Vec::new();
    for event in &events {
        check_players(event)?;
        let book = match &event.openings {
            Some(path) => {
                let book = Book::load(path)
                    .map_err(|e| anyhow::anyhow!("event '{}': {e}", event.config.name))?;
                check_book(event, &book)?;
                Some(book)
            }
            None => None,
        };
        books.push(book);
    }
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let copy = args.out.join(CONFIG_COPY);
    let run_header = format!(
        "# shard {}\n",
        args.shard
            .map_or("1/1".to_string(), |s| format!("{}/{}", s.index, s.count))
    );
    let saved = std::fs::read_to_string(&copy).ok();
    match (saved, args.resume) {
        (Some(saved), true) => {
            if saved != run_header.clone() + text {
                bail!(
                    "{} holds another tournament (or another shard); resume needs the same \
                     file and --shard",
                    args.out.display()
                );
            }
        }
        (Some(_), false) => bail!(
            "{} already holds a tournament: add --resume to continue it, or choose another --out",
            args.out.display()
        ),
        (None, _) => journal::write_atomically(&copy, &(run_header + text))?,
    }
    let (mut journal, done) = Journal::open(&args.out.join(JOURNAL))?;
    let (mut voids, _) = Journal::open(&args.out.join(VOID_JOURNAL))?;
    let done_keys: std::collections::HashSet<(String, u64)> =
        done.iter().map(|e| (e.event.clone(), e.index)).collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let concurrency = args
        .concurrency
        .or(file.concurrency)
        .unwrap_or(cores)
        .max(1);
    let stop = StopFlag::default();
    // One handler per process: a second tournament in the same process keeps the first's.
    let _ = tmbot::play::external::install_interrupt_handler(stop.clone());

    let mut plans: Vec<Vec<Job>> = Vec::new();
    let mut offset = 0u64;
    for (event, book) in events.iter().zip(&books) {
        let all = schedule(event, book.as_ref(), file.seed);
        let count = all.len() as u64;
        let mine: Vec<Job> = all
            .into_iter()
            .filter(|job| {
                args.shard
                    .is_none_or(|s| (offset + job.index) % s.count == s.index - 1)
            })
            .filter(|job| !done_keys.contains(&(event.config.name.clone(), job.index)))
            .collect();
        offset += count;
        plans.push(mine);
    }
    let total: u64 = plans.iter().map(|p| p.len() as u64).sum();
    let progress = progress_bar(total, args.json);
    if !done.is_empty() && !args.json {
        progress.suspend(|| {
            eprintln!(
                "resuming: {} in the journal, {total} to play",
                crate::plural::games(done.len() as u64)
            )
        });
    }
    let mut interrupted = false;
    for ((event, book), jobs) in events.iter().zip(&books).zip(plans) {
        if interrupted || jobs.is_empty() {
            continue;
        }
        let threads = threads_per_game(event);
        let mut games_at_once = concurrency;
        if args.concurrency.is_none() && concurrency * threads > cores {
            games_at_once = (cores / threads).max(1);
            progress.suspend(|| {
                eprintln!(
                    "event '{}': players run {threads} threads each; {games_at_once} game(s) \
                     at once on {cores} cores",
                    event.config.name
                )
            });
        }
        let mut context = RunContext {
            concurrency: games_at_once,
            stop: stop.clone(),
            progress: &progress,
            journal: &mut journal,
            voids: &mut voids,
        };
        let plan = Plan {
            event,
            book: book.as_ref(),
            jobs,
        };
        let run = match event.config.game {
            GameName::Hex => {
                let size = event.config.size.unwrap_or(11);
                let start = Hex::new(size, size).map_err(|e| anyhow::anyhow!("size: {e}"))?;
                run_event(&start, plan, &mut context)
            }
            GameName::Checkers => run_event(&Checkers::new(), plan, &mut context),
        }
        .with_context(|| format!("event '{}'", event.config.name))?;
        interrupted |= run.interrupted;
    }
    progress.finish_and_clear();
    let (entries, _) = journal::read(&args.out.join(JOURNAL))?;
    let summaries = report::write_outputs(&args.out, &events, &entries)?;
    Ok((summaries, interrupted))
}

fn print_summaries(summaries: &[EventSummary], out: &Path, json: bool) -> anyhow::Result<()> {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "events": summaries }))?
        );
    } else {
        for summary in summaries {
            print!("{}", report::table_text(summary));
        }
        println!(
            "\nrecords, results.csv, summary.json and charts in {}",
            out.display()
        );
    }
    Ok(())
}

/// Runs `arena merge`: joins the journals of shards of one tournament.
pub fn merge(args: MergeArgs) -> anyhow::Result<()> {
    let mut config: Option<String> = None;
    let mut entries: Vec<Entry> = Vec::new();
    for dir in &args.shards {
        let text = std::fs::read_to_string(dir.join(CONFIG_COPY))
            .with_context(|| format!("{} is not a tournament output folder", dir.display()))?;
        let body = text
            .split_once('\n')
            .map_or("", |(_, rest)| rest)
            .to_string();
        match &config {
            Some(first) if *first != body => bail!(
                "{} holds another tournament than {}",
                dir.display(),
                args.shards[0].display()
            ),
            Some(_) => {}
            None => config = Some(body),
        }
        let (mine, _) = journal::read(&dir.join(JOURNAL))?;
        entries.extend(mine);
    }
    let config = config.expect("at least one shard");
    journal::check_unique(&entries)?;
    let file = TournamentFile::parse(&config)?;
    let events = file.resolve(Path::new("."))?;
    let order = |e: &Entry| {
        (
            events
                .iter()
                .position(|ev| ev.config.name == e.event)
                .unwrap_or(usize::MAX),
            e.index,
        )
    };
    entries.sort_by_key(order);
    let scheduled: u64 = events
        .iter()
        .map(|e| e.pairings().len() as u64 * e.config.games)
        .sum();
    let missing = scheduled - entries.len() as u64;
    if missing > 0 && !args.partial {
        bail!(
            "{missing} of {} {} missing (a shard not given or not finished); \
             add --partial to merge what is there",
            crate::plural::games(scheduled),
            if missing == 1 { "is" } else { "are" }
        );
    }
    std::fs::create_dir_all(&args.out)?;
    journal::write_atomically(
        &args.out.join(CONFIG_COPY),
        &format!("# shard 1/1\n{config}"),
    )?;
    journal::write_all(&args.out.join(JOURNAL), &entries)?;
    let summaries = report::write_outputs(&args.out, &events, &entries)?;
    print_summaries(&summaries, &args.out, args.json)
}

//! Plays the games of an event: a deterministic schedule, worker threads that keep their
//! agents (and external engines) alive between games, and one writer that journals every
//! finished game as it arrives.

use super::config::{Event, OnFault, OpeningOrder};
use super::journal::{Entry, Journal};
use anyhow::{anyhow, bail};
use indicatif::ProgressBar;
use rand::Rng as _;
use std::collections::HashMap;
use tmbot::game::Color;
use tmbot::play::openings::{Book, Order};
use tmbot::play::record::{GameRecord, Termination};
use tmbot::play::{agent_from_spec, play_game, Agent, AgentGame, AgentOptions, GameSettings};
use tmbot::rng::substream;
use tmbot::search::Limits;
use tmbot::stop::StopFlag;

/// One scheduled game of an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    /// The game's index in the event.
    pub index: u64,
    /// Black's player index.
    pub black: usize,
    /// White's player index.
    pub white: usize,
    /// The book opening, if the event has a book.
    pub opening: Option<usize>,
    /// The game's seed.
    pub seed: u64,
}

/// A stable hash of an event's name (FNV-1a), so a game's seed depends on its event and
/// index only, not on the events before it.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every game of `event` in schedule order: pairing by pairing, each pair of games on the
/// same opening with colours swapped (the pairing's first player is Black in even games).
/// Pair `k` of every pairing plays the same opening.
pub fn schedule(event: &Event, book: Option<&Book>, seed: u64) -> Vec<Job> {
    let games = event.config.games;
    let pairs = games.div_ceil(2) as usize;
    let order = match event.config.opening_order {
        OpeningOrder::Sequential => Order::Sequential,
        OpeningOrder::Shuffled => Order::Shuffled,
    };
    let openings = book.map(|b| b.schedule(pairs, order, seed ^ name_hash(&event.config.name)));
    let mut jobs = Vec::new();
    for (a, b) in event.pairings() {
        for g in 0..games {
            let index = jobs.len() as u64;
            let (black, white) = if g % 2 == 0 { (a, b) } else { (b, a) };
            jobs.push(Job {
                index,
                black,
                white,
                opening: openings.as_ref().map(|o| o[(g / 2) as usize]),
                seed: substream(seed ^ name_hash(&event.config.name), index).random(),
            });
        }
    }
    jobs
}

/// How an event is run and where its games go.
pub struct RunContext<'a> {
    /// Games at once.
    pub concurrency: usize,
    /// Raised by Ctrl-C.
    pub stop: StopFlag,
    /// Progress display.
    pub progress: &'a ProgressBar,
    /// The results journal.
    pub journal: &'a mut Journal,
    /// The journal of void games.
    pub voids: &'a mut Journal,
}

/// The games of an event to play now.
pub struct Plan<'a> {
    /// The event.
    pub event: &'a Event,
    /// Its opening book.
    pub book: Option<&'a Book>,
    /// The games (those of this shard not in the journal yet).
    pub jobs: Vec<Job>,
}

/// What a worker hands back for a job.
enum Outcome<M> {
    Played(Job, GameRecord<M>),
    Skipped,
    Failed(String),
}

/// What running an event's jobs came to.
pub struct EventRun {
    /// Games journaled.
    pub played: usize,
    /// True when Ctrl-C stopped the run.
    pub interrupted: bool,
}

/// Plays the games of `plan` from `start`, journaling each finished game.
pub fn run_event<G: AgentGame>(
    start: &G,
    plan: Plan<'_>,
    context: &mut RunContext<'_>,
) -> anyhow::Result<EventRun> {
    let Plan { event, book, jobs } = plan;
    let openings: Vec<Vec<G::Move>> = match book {
        Some(book) => (0..book.len())
            .map(|i| book.apply(i, start).map(|(_, moves)| moves))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow!("{e}"))?,
        None => Vec::new(),
    };
    let settings = GameSettings {
        time_control: event.time_control,
        margin: event.margin,
        stall: event.stall,
        max_plies: event.config.max_plies,
        adjudicate_decided: event.config.adjudicate_decided,
        stop: Some(context.stop.clone()),
    };
    let options = AgentOptions {
        limits: Limits {
            playouts: event.config.playouts,
            nodes: event.config.nodes,
            depth: event.config.depth,
            ..Limits::default()
        },
        stop: Some(context.stop.clone()),
    };
    let workers = context.concurrency.min(jobs.len()).max(1);
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded::<Outcome<G::Move>>();
    let mut run = EventRun {
        played: 0,
        interrupted: false,
    };
    let mut void_count: HashMap<u64, u32> = HashMap::new();
    // Running points and games of every player, for the progress line.
    let mut standing = vec![(0.0f64, 0u64); event.config.players.len()];
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..workers {
            let (job_rx, result_tx) = (job_rx.clone(), result_tx.clone());
            let (settings, options, openings) = (&settings, &options, &openings);
            let stop = &context.stop;
            scope.spawn(move || {
                let mut agents: HashMap<usize, Box<dyn Agent<G>>> = HashMap::new();
                for job in job_rx {
                    let outcome = if stop.is_raised() {
                        Outcome::Skipped
                    } else {
                        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            play_job(start, event, &mut agents, options, settings, openings, job)
                        }));
                        match played {
                            Ok(Ok(record)) => Outcome::Played(job, record),
                            Ok(Err(message)) => Outcome::Failed(message),
                            Err(_) => Outcome::Failed(format!("game {} panicked", job.index)),
                        }
                    };
                    if result_tx.send(outcome).is_err() {
                        break;
                    }
                }
            });
        }
        drop(result_tx);
        let mut pending = jobs.len();
        for job in jobs {
            job_tx.send(job).expect("workers are alive");
        }
        let mut failure = None;
        while pending > 0 {
            let outcome = result_rx
                .recv()
                .map_err(|_| anyhow!("every worker stopped"))?;
            pending -= 1;
            match outcome {
                Outcome::Skipped => run.interrupted = true,
                Outcome::Failed(message) => {
                    context.stop.raise();
                    failure.get_or_insert(message);
                }
                Outcome::Played(job, record) => {
                    if record.termination == Termination::Interrupt {
                        run.interrupted = true;
                        continue;
                    }
                    let entry = Entry {
                        event: event.config.name.clone(),
                        index: job.index,
                        black: job.black,
                        white: job.white,
                        record: record.to_text(start),
                    };
                    let void = event.config.on_fault == OnFault::Void
                        && matches!(
                            record.termination,
                            Termination::Disconnect | Termination::Stall
                        );
                    if void {
                        context.voids.append(&entry)?;
                        let count = void_count.entry(job.index).or_default();
                        *count += 1;
                        if *count >= 2 {
                            context.stop.raise();
                            failure.get_or_insert(format!(
                                "game {} of event '{}' was void twice ({}); stopping",
                                job.index, event.config.name, record.detail
                            ));
                        } else {
                            pending += 1;
                            job_tx.send(job).expect("workers are alive");
                        }
                        continue;
                    }
                    context.journal.append(&entry)?;
                    run.played += 1;
                    let black = record.result.score_for(Color::Black).unwrap_or(0.5);
                    for (player, score) in [(job.black, black), (job.white, 1.0 - black)] {
                        standing[player].0 += score;
                        standing[player].1 += 1;
                    }
                    let leader = (0..standing.len())
                        .max_by(|&a, &b| {
                            let rate = |p: usize| standing[p].0 / standing[p].1.max(1) as f64;
                            rate(a).total_cmp(&rate(b))
                        })
                        .unwrap_or(0);
                    context.progress.inc(1);
                    context.progress.set_message(format!(
                        "{}: {} leads with {}/{} (this run)",
                        event.config.name,
                        event.config.players[leader].name(),
                        standing[leader].0,
                        standing[leader].1
                    ));
                }
            }
        }
        drop(job_tx);
        match failure {
            Some(message) => bail!(message),
            None => Ok(()),
        }
    })?;
    Ok(run)
}

/// Plays one job with the worker's agents (made on first use and kept between games: every
/// agent starts each game afresh, so a game's moves do not depend on which worker played it).
fn play_job<G: AgentGame>(
    start: &G,
    event: &Event,
    agents: &mut HashMap<usize, Box<dyn Agent<G>>>,
    options: &AgentOptions,
    settings: &GameSettings,
    openings: &[Vec<G::Move>],
    job: Job,
) -> Result<GameRecord<G::Move>, String> {
    for seat in [job.black, job.white] {
        if let std::collections::hash_map::Entry::Vacant(slot) = agents.entry(seat) {
            let entry = &event.config.players[seat];
            // An engine that cannot start for its first game stops the run: its games would
            // all be forfeits of a mistyped path or a bad `init`, not results.
            let named = |e: &dyn std::fmt::Display| format!("player '{}': {e}", entry.name());
            let mut agent = agent_from_spec::<G>(entry.spec(), options).map_err(|e| named(&e))?;
            agent.start().map_err(|e| named(&e))?;
            slot.insert(agent);
        }
    }
    let mut black = agents.remove(&job.black).expect("made above");
    let mut white = agents.remove(&job.white).expect("made above");
    let opening = job.opening.map_or(&[][..], |i| &openings[i][..]);
    let mut record = play_game(
        start,
        opening,
        [black.as_mut(), white.as_mut()],
        settings,
        job.seed,
    );
    record.players = [
        event.config.players[job.black].name().to_string(),
        event.config.players[job.white].name().to_string(),
    ];
    agents.insert(job.black, black);
    agents.insert(job.white, white);
    Ok(record)
}

//! Worker threads that train one machine a sample at a time, sharing its clause blocks.
//!
//! Training is a sequence of rounds. In round r every block first applies the feedback of
//! sample r - 1 (from the decision made at the end of round r - 1), then evaluates its
//! clauses on sample r and leaves its part of the class sums. A worker adds up the parts of
//! the blocks it did and publishes the sum, with their count, once it has no block in hand;
//! the worker whose count completes the round adds the workers' sums up, makes the round's
//! decision (clamped sums, negative class) and opens the next round; it goes straight on to
//! it while the others join as they come.
//!
//! Blocks are handed out one at a time: each worker first takes the blocks of its own share
//! (so a block stays on one core and in its cache), then those of workers that are away
//! (asleep or resting) or have not started on the round, and, after waiting [`PATIENCE`]
//! for them, those of workers at work that have not reached them yet: a block moved to
//! another core's cache and back costs more than the wait of a block or two that an uneven
//! round asks, while a worker slowed down by other programs holds up a round by no more than
//! the wait and the one block it is working on. A worker that waited out its patience takes
//! without waiting until its [`WINDOW`] ends (the machine is busy). A worker that finds
//! nothing left to take spins for a moment, then sleeps until the round is over: no core is
//! burnt in waiting.
//!
//! A worker may also bring work of its own that no other worker touches (a class of a
//! per-class machine that it trains alone): it does a piece of it whenever the open round
//! has nothing left for it instead of waiting, and finishes it after the last round, so
//! the waits of the shared rounds are filled and not slept through. While it has such work
//! it leaves the blocks of a worker not yet started on the round to that worker (busy with
//! its own work aside, most likely) unless that worker is away.
//!
//! On a machine busier than it has cores, some worker is always off its core holding a
//! block, and the others would spend their turns asleep waiting for it. A worker that slept
//! or waited for others for more than a quarter of the last [`WINDOW`] therefore rests: it leaves the blocks to the
//! others for a while (twice as long each time, from [`FIRST_REST`]) and then tries again.
//! At least one worker always keeps working, so a busy machine makes training no slower than
//! on one thread, and a quiet one gets every worker back.
//!
//! Parts are integers, each block keeps its own random streams and decisions are made in
//! round order by one thread at a time, so a seed gives the same model for any number of
//! workers.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How often a worker with nothing to do checks the round before it sleeps.
const SPINS_BEFORE_SLEEP: u32 = 256;

/// How long a worker whose own blocks are done waits for a worker at work to finish its
/// share before it takes the blocks left there ([`Shared::take`]): a few blocks' time.
const PATIENCE: Duration = Duration::from_micros(20);

/// The span over which a worker weighs its sleep against its time.
const WINDOW: Duration = Duration::from_millis(25);

/// A worker's first rest; each further one is twice as long, up to [`LONGEST_REST`].
const FIRST_REST: Duration = Duration::from_millis(100);

/// The longest rest.
const LONGEST_REST: Duration = Duration::from_secs(5);

/// One round's outcome: made by [`run`]'s `decide` from the summed parts, read by every
/// block in the next round.
pub(crate) trait Decision: Clone + Send + Sync {}

impl<D: Clone + Send + Sync> Decision for D {}

/// A cursor over one worker's share: the round in the high half, the next position in the
/// low half, so a stale round can never take a block of the next one.
struct Cursor(AtomicU64);

impl Cursor {
    fn word(round: usize, position: usize) -> u64 {
        ((round as u64) << 32) | position as u64
    }

    /// Opens `round` at the share's first position.
    fn open(&self, round: usize) {
        self.0.store(Cursor::word(round, 0), Ordering::Release);
    }

    /// How many positions of `share` are left in `round`.
    fn left(&self, round: usize, share: &[usize]) -> usize {
        let word = self.0.load(Ordering::Acquire);
        if word >> 32 != round as u64 {
            return 0;
        }
        share
            .len()
            .saturating_sub((word & u32::MAX as u64) as usize)
    }

    /// Takes the next position of `share` in `round`, if any is left.
    fn take(&self, round: usize, share: &[usize]) -> Option<usize> {
        let mut word = self.0.load(Ordering::Acquire);
        loop {
            let position = (word & u32::MAX as u64) as usize;
            if word >> 32 != round as u64 || position >= share.len() {
                return None;
            }
            match self
                .0
                .compare_exchange_weak(word, word + 1, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Some(share[position]),
                Err(now) => word = now,
            }
        }
    }
}

/// A value alone on its cache lines, so that workers writing their own values do not
/// slow down each other's reads (two lines, as some processors fetch lines in pairs).
#[repr(align(128))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// What the workers share.
struct Shared<'b, B, D, F> {
    blocks: Vec<Mutex<&'b mut B>>,
    shares: Vec<Vec<usize>>,
    cursors: Vec<Padded<Cursor>>,
    /// `parts[worker * stride + k]`: the sum of the parts of the blocks each worker did
    /// in the open round.
    parts: Vec<AtomicI64>,
    width: usize,
    stride: usize,
    /// Blocks finished in the open round.
    done: Padded<AtomicUsize>,
    /// The open round.
    round: Padded<AtomicUsize>,
    /// The decisions of even rounds, then of odd ones.
    decisions: [Mutex<Option<(usize, D)>>; 2],
    /// The decision maker, with the buffer the closing worker adds the workers' sums up in.
    decide: Mutex<(F, Vec<i64>)>,
    /// Workers asleep until the round closes.
    sleepers: AtomicUsize,
    /// Workers resting.
    resting: AtomicUsize,
    /// Per worker: whether it is away (asleep or resting), so that its blocks are taken
    /// at once rather than left to it.
    away: Vec<Padded<AtomicBool>>,
    bell: (Mutex<()>, Condvar),
    /// Set when a worker panicked, so the others stop waiting for it.
    abandoned: AtomicBool,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|_| panic!("another training worker panicked"))
}

impl<B, D: Decision, F: FnMut(usize, &[i64]) -> D> Shared<'_, B, D, F> {
    /// The decision of `round`, once it is made.
    fn decision(&self, round: usize) -> D {
        let slot = lock(&self.decisions[round % 2]);
        match &*slot {
            Some((r, d)) if *r == round => d.clone(),
            _ => unreachable!("decision of round {round} read before it was made"),
        }
    }

    /// Publishes `worker`'s sum of its parts in `round` and counts its `finished` blocks
    /// not yet counted; the last block closes the round.
    fn publish(&self, worker: usize, sums: &[i64], finished: usize, round: usize, rounds: usize) {
        let slot = &self.parts[worker * self.stride..][..self.width];
        for (part, &value) in slot.iter().zip(sums) {
            part.store(value, Ordering::Relaxed);
        }
        if self.done.fetch_add(finished, Ordering::AcqRel) + finished < self.blocks.len() {
            return;
        }
        self.done.store(0, Ordering::Relaxed);
        if round + 1 < rounds {
            let mut decide = lock(&self.decide);
            let (decide, totals) = &mut *decide;
            totals.fill(0);
            for slot in self.parts.chunks(self.stride) {
                for (total, value) in totals.iter_mut().zip(slot) {
                    *total += value.swap(0, Ordering::Relaxed);
                }
            }
            let decision = decide(round, totals);
            *lock(&self.decisions[round % 2]) = Some((round, decision));
            for cursor in &self.cursors {
                cursor.open(round + 1);
            }
        }
        self.round.store(round + 1, Ordering::SeqCst);
        // Resting workers only need the bell when the run is over.
        if round + 1 == rounds || self.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = lock(&self.bell.0);
            self.bell.1.notify_all();
        }
    }

    /// Waits until `round` is closed; returns the open round. Time asleep is added to
    /// `slept`.
    fn wait_past(&self, worker: usize, round: usize, slept: &mut Duration) -> usize {
        for _ in 0..SPINS_BEFORE_SLEEP {
            let now = self.round.load(Ordering::Acquire);
            if now > round {
                return now;
            }
            std::hint::spin_loop();
        }
        let start = Instant::now();
        let mut guard = lock(&self.bell.0);
        self.sleepers.fetch_add(1, Ordering::SeqCst);
        self.away[worker].store(true, Ordering::Relaxed);
        let now = loop {
            let now = self.round.load(Ordering::SeqCst);
            if now > round {
                break now;
            }
            if self.abandoned.load(Ordering::Relaxed) {
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
                panic!("another training worker panicked");
            }
            guard = self.bell.1.wait(guard).unwrap_or_else(|e| e.into_inner());
        };
        self.sleepers.fetch_sub(1, Ordering::SeqCst);
        self.away[worker].store(false, Ordering::Relaxed);
        *slept += start.elapsed();
        now
    }

    /// Rests for `span` (or until the last round closes) unless every other worker rests;
    /// returns the open round, or `None` when the worker did not rest.
    fn rest(&self, worker: usize, span: Duration, rounds: usize) -> Option<usize> {
        let others = self.shares.len() - 1;
        self.resting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < others).then_some(n + 1)
            })
            .ok()?;
        self.away[worker].store(true, Ordering::Relaxed);
        let deadline = Instant::now() + span;
        let mut guard = lock(&self.bell.0);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.round.load(Ordering::SeqCst) >= rounds
                || left.is_zero()
                || self.abandoned.load(Ordering::Relaxed)
            {
                break;
            }
            guard = match self.bell.1.wait_timeout(guard, left) {
                Ok((guard, _)) => guard,
                Err(e) => e.into_inner().0,
            };
        }
        drop(guard);
        self.away[worker].store(false, Ordering::Relaxed);
        self.resting.fetch_sub(1, Ordering::AcqRel);
        Some(self.round.load(Ordering::SeqCst))
    }

    /// The next block of `round` for `worker`: its own share first, then those of workers
    /// away or not yet started on the round (off their cores, most likely), then, once the
    /// worker is `impatient`, those of the others. A block taken from a worker at work moves
    /// to another core's cache and back, which costs more than a wait of a block or two; a
    /// worker kept off its core by other programs is waited for only that long. A worker
    /// with work `aside` leaves the blocks of a worker not yet started on the round to it
    /// as well, unless that worker is away: it is most likely busy with its own work aside,
    /// and both keep their caches.
    fn take(&self, worker: usize, round: usize, impatient: bool, aside: bool) -> Take {
        let n = self.shares.len();
        let mut later = false;
        for k in 0..n {
            let w = (worker + k) % n;
            let share = &self.shares[w];
            let left = self.cursors[w].left(round, share);
            if left == 0 {
                continue;
            }
            let unstarted = left == share.len() && !aside;
            if k == 0 || impatient || unstarted || self.away[w].load(Ordering::Relaxed) {
                if let Some(b) = self.cursors[w].take(round, share) {
                    return Take::Block(b);
                }
            } else {
                later = true;
            }
        }
        if later {
            Take::Later
        } else {
            Take::Nothing
        }
    }
}

/// What [`Shared::take`] found.
enum Take {
    Block(usize),
    /// Blocks are left only with workers at work: worth waiting for a little.
    Later,
    Nothing,
}

/// What one worker brings to [`run`]: the blocks it takes first, and its work aside: a
/// piece of its own work per call, returning whether any is left.
pub(crate) struct Seat<A> {
    pub(crate) share: Vec<usize>,
    pub(crate) aside: A,
}

/// Seats with the given shares and no work aside.
pub(crate) fn seats(shares: Vec<Vec<usize>>) -> Vec<Seat<fn() -> bool>> {
    fn nothing() -> bool {
        false
    }
    shares
        .into_iter()
        .map(|share| Seat {
            share,
            aside: nothing as fn() -> bool,
        })
        .collect()
}

/// Runs `rounds` rounds over `blocks` on `seats.len()` workers (the first on the calling
/// thread); `seats[w].share` lists the blocks worker w takes first, and every block is in
/// one share. A worker that finds nothing left to take in an open round does a piece of its
/// work aside, and it finishes that work after the last round.
///
/// In each round every block is passed once to `work(state, round, decision, index,
/// block, parts)` with the decision of the previous round (none in round 0) and its `width`
/// parts to fill (they start at zero each time); `state` is the worker's own, made by
/// `state()`. At the end of every round but the last, `decide(round, totals)` turns the
/// summed parts into the round's decision.
pub(crate) fn run<B: Send, D: Decision, S, A: FnMut() -> bool + Send>(
    blocks: Vec<&mut B>,
    seats: Vec<Seat<A>>,
    width: usize,
    rounds: usize,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize, Option<&D>, usize, &mut B, &mut [i64]) + Sync,
    decide: impl FnMut(usize, &[i64]) -> D + Send,
) {
    assert!(rounds < 1 << 32, "too many rounds");
    let (shares, asides): (Vec<_>, Vec<_>) = seats.into_iter().map(|s| (s.share, s.aside)).unzip();
    debug_assert_eq!(
        shares.iter().map(Vec::len).sum::<usize>(),
        blocks.len(),
        "every block in one share"
    );
    let count = blocks.len();
    let workers = shares.len();
    // Each worker's sums on cache lines of their own.
    let stride = width.max(1).next_multiple_of(16);
    let shared = Shared {
        blocks: blocks.into_iter().map(Mutex::new).collect(),
        cursors: shares
            .iter()
            .map(|_| Padded(Cursor(AtomicU64::new(0))))
            .collect(),
        away: shares
            .iter()
            .map(|_| Padded(AtomicBool::new(false)))
            .collect(),
        shares,
        parts: (0..workers * stride).map(|_| AtomicI64::new(0)).collect(),
        width,
        stride,
        done: Padded(AtomicUsize::new(0)),
        round: Padded(AtomicUsize::new(0)),
        decisions: [Mutex::new(None), Mutex::new(None)],
        decide: Mutex::new((decide, vec![0i64; width])),
        sleepers: AtomicUsize::new(0),
        resting: AtomicUsize::new(0),
        bell: (Mutex::new(()), Condvar::new()),
        abandoned: AtomicBool::new(false),
    };
    // Without blocks there are no rounds, only the work aside.
    let rounds = if count == 0 { 0 } else { rounds };
    let worker = |w: usize, mut aside: A| {
        let guard = AbandonOnPanic(&shared);
        let mut own = state();
        let mut values = vec![0i64; width];
        // The worker's sum of its blocks' parts in the open round; published (with the
        // count of blocks not yet counted) whenever it has no block in hand.
        let mut totals = vec![0i64; width];
        let mut round = 0;
        let mut watch = Watch::new();
        let mut aside_left = true;
        while round < rounds {
            let mut decision: Option<D> = None;
            let mut waiting: Option<Instant> = None;
            let mut impatient = watch.hurried;
            let mut unpublished = 0;
            // A new round, or the same one again after a piece of work aside: then nothing
            // was left to take in it, so the sums published for it are complete.
            totals.fill(0);
            loop {
                let taken = shared.take(w, round, impatient, aside_left);
                if !matches!(taken, Take::Block(_)) && unpublished > 0 {
                    shared.publish(w, &totals, unpublished, round, rounds);
                    unpublished = 0;
                }
                if !matches!(taken, Take::Later) {
                    // A wait for another worker counts as sleep toward a rest.
                    if let Some(since) = waiting.take() {
                        watch.slept += since.elapsed();
                    }
                }
                let b = match taken {
                    Take::Block(b) => b,
                    Take::Later => {
                        // Work aside fills the wait and moves no block between caches.
                        if aside_left {
                            aside_left = aside();
                        } else {
                            std::hint::spin_loop();
                            impatient =
                                waiting.get_or_insert_with(Instant::now).elapsed() >= PATIENCE;
                            watch.hurried |= impatient;
                        }
                        continue;
                    }
                    Take::Nothing => break,
                };
                if round > 0 && decision.is_none() {
                    decision = Some(shared.decision(round - 1));
                }
                values.fill(0);
                let mut block = lock(&shared.blocks[b]);
                work(
                    &mut own,
                    round,
                    decision.as_ref(),
                    b,
                    &mut block,
                    &mut values,
                );
                drop(block);
                for (total, value) in totals.iter_mut().zip(&values) {
                    *total += value;
                }
                unpublished += 1;
            }
            if aside_left && shared.round.load(Ordering::Acquire) == round {
                aside_left = aside();
                round = shared.round.load(Ordering::Acquire);
                continue;
            }
            round = shared.wait_past(w, round, &mut watch.slept);
            if watch.too_sleepy() {
                if let Some(now) = shared.rest(w, watch.rest, rounds) {
                    round = now;
                    watch.rested();
                }
            }
        }
        while aside_left {
            aside_left = aside();
        }
        std::mem::forget(guard);
    };
    let mut asides = asides.into_iter();
    let first = asides.next().expect("at least one worker");
    std::thread::scope(|scope| {
        let worker = &worker;
        let others: Vec<_> = asides
            .enumerate()
            .map(|(w, aside)| scope.spawn(move || worker(w + 1, aside)))
            .collect();
        worker(0, first);
        for handle in others {
            if let Err(panic) = handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// A worker's record of its sleep.
struct Watch {
    since: Instant,
    slept: Duration,
    /// Whether the worker waited out its patience with another worker in the window: the
    /// machine is busy, and until the window ends the worker takes blocks without waiting.
    hurried: bool,
    /// The next rest.
    rest: Duration,
}

impl Watch {
    fn new() -> Watch {
        Watch {
            since: Instant::now(),
            slept: Duration::ZERO,
            hurried: false,
            rest: FIRST_REST,
        }
    }

    /// Whether the last window is over and the worker slept through more than a quarter of
    /// it (a new window starts when one is over).
    fn too_sleepy(&mut self) -> bool {
        let elapsed = self.since.elapsed();
        if elapsed < WINDOW {
            return false;
        }
        let sleepy = self.slept * 4 > elapsed;
        self.since = Instant::now();
        self.slept = Duration::ZERO;
        self.hurried = false;
        sleepy
    }

    /// Starts a new window after a rest; the next rest is twice as long.
    fn rested(&mut self) {
        self.since = Instant::now();
        self.slept = Duration::ZERO;
        self.rest = (self.rest * 2).min(LONGEST_REST);
    }
}

/// Splits `0..count` into `workers` shares of consecutive indices (each a run of
/// `count / workers` or one more).
pub(crate) fn spans(count: usize, workers: usize) -> Vec<Vec<usize>> {
    (0..workers)
        .map(|w| (w * count / workers..(w + 1) * count / workers).collect())
        .collect()
}

/// Marks the round abandoned and wakes the sleepers when dropped during a panic.
struct AbandonOnPanic<'s, 'b, B, D, F>(&'s Shared<'b, B, D, F>);

impl<B, D, F> Drop for AbandonOnPanic<'_, '_, B, D, F> {
    fn drop(&mut self) {
        self.0.abandoned.store(true, Ordering::Relaxed);
        if let Ok(_guard) = self.0.bell.0.lock() {
            self.0.bell.1.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each block adds (its value x round) to part 0 and 1 to part 1; the decision of a
    /// round is its totals, checked against the expected sums by every block of the next.
    fn rounds_on(workers: usize) -> Vec<Vec<i64>> {
        let mut values: Vec<i64> = (1..=7).collect();
        let rounds = 300;
        let mut seen = Vec::new();
        run(
            values.iter_mut().collect(),
            seats(spans(7, workers)),
            2,
            rounds,
            || (),
            |_, round, decision: Option<&Vec<i64>>, _, value, parts| {
                if let Some(d) = decision {
                    assert_eq!(d, &vec![28 * (round as i64 - 1), 7], "round {round}");
                }
                parts[0] = *value * round as i64;
                parts[1] = 1;
            },
            |_, totals| {
                seen.push(totals.to_vec());
                totals.to_vec()
            },
        );
        seen
    }

    #[test]
    fn every_round_sums_every_block_once() {
        let one = rounds_on(1);
        assert_eq!(one.len(), 299);
        for (round, totals) in one.iter().enumerate() {
            assert_eq!(totals, &vec![28 * round as i64, 7]);
        }
        assert_eq!(rounds_on(2), one);
        assert_eq!(rounds_on(3), one);
    }

    #[test]
    fn a_panicking_worker_releases_the_others() {
        let result = std::panic::catch_unwind(|| {
            let mut blocks = [0u8; 4];
            run(
                blocks.iter_mut().collect(),
                seats(spans(4, 2)),
                1,
                50,
                || (),
                |_, round, _: Option<&()>, _, _, _| {
                    if round == 10 {
                        panic!("a worker fails");
                    }
                },
                |_, _| (),
            )
        });
        assert!(result.is_err());
    }

    #[test]
    fn every_worker_finishes_its_work_aside() {
        // Worker w has 40 * (w + 1) pieces aside; with blocks they fill the rounds' waits,
        // without blocks they are all there is.
        for (workers, count) in [(1, 7), (2, 7), (3, 7), (2, 0)] {
            let mut values: Vec<i64> = (1..=count).collect();
            let done: Vec<AtomicUsize> = (0..workers).map(|_| AtomicUsize::new(0)).collect();
            let mut closed = 0;
            let seats = spans(count as usize, workers)
                .into_iter()
                .enumerate()
                .map(|(w, share)| {
                    let done = &done[w];
                    Seat {
                        share,
                        aside: move || done.fetch_add(1, Ordering::Relaxed) + 1 < 40 * (w + 1),
                    }
                })
                .collect();
            run(
                values.iter_mut().collect(),
                seats,
                1,
                100,
                || (),
                |_, round, _: Option<&()>, _, value, parts| parts[0] = *value * round as i64,
                |_, _| closed += 1,
            );
            let pieces: Vec<usize> = done.iter().map(|d| d.load(Ordering::Relaxed)).collect();
            let wanted: Vec<usize> = (0..workers).map(|w| 40 * (w + 1)).collect();
            assert_eq!(pieces, wanted, "{workers} workers, {count} blocks");
            assert_eq!(closed, if count == 0 { 0 } else { 99 });
        }
    }

    #[test]
    fn shares_cover_every_block_once() {
        assert_eq!(spans(5, 2), vec![vec![0, 1], vec![2, 3, 4]]);
        assert_eq!(spans(1, 2), vec![vec![], vec![0]]);
    }
}

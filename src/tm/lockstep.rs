//! Worker threads that train one machine in lockstep, one round per sample.
//!
//! Every worker owns a fixed share of the clause blocks for the whole epoch. In each round a
//! worker evaluates its clauses, publishes its partial class sums, waits until every worker
//! has published the same round, adds them up and updates its own clauses. That is one
//! synchronisation per sample, a few cache lines wide, instead of a fork and a join per
//! phase; the waits spin briefly, then yield the core.
//!
//! Partial sums are integers, so the totals do not depend on how the blocks are shared out,
//! and each block keeps its own random streams: a seed gives the same model for any number
//! of workers.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};

/// Values per cache-line pair.
const LINE: usize = 16;

/// Sixteen values alone on their cache lines.
#[repr(align(128))]
struct Line([AtomicI64; LINE]);

/// A round counter alone on its cache lines.
#[repr(align(128))]
struct Counter(AtomicUsize);

/// One worker's published round and its values.
struct Slot {
    /// Rounds this worker has published.
    published: Counter,
    /// The values of even rounds, then of odd ones: a worker can only publish round r + 2
    /// once every worker has published r + 1, that is once all have read round r.
    values: Box<[Line]>,
}

impl Slot {
    fn value(&self, index: usize) -> &AtomicI64 {
        &self.values[index / LINE].0[index % LINE]
    }
}

/// The meeting point of the workers.
pub(crate) struct Lockstep {
    slots: Vec<Slot>,
    width: usize,
    /// Set when a worker panicked, so the others stop waiting for it.
    abandoned: AtomicBool,
}

impl Lockstep {
    fn new(workers: usize, width: usize) -> Lockstep {
        let line = || Line(std::array::from_fn(|_| AtomicI64::new(0)));
        Lockstep {
            slots: (0..workers)
                .map(|_| Slot {
                    published: Counter(AtomicUsize::new(0)),
                    values: (0..(2 * width).div_ceil(LINE)).map(|_| line()).collect(),
                })
                .collect(),
            width,
            abandoned: AtomicBool::new(false),
        }
    }

    /// Publishes `worker`'s `values` (the width given to [`run`]) for `round` (rounds count
    /// 0, 1, 2, ... for every worker), waits for the other workers' values of that round
    /// and writes their sums to `totals`.
    pub(crate) fn exchange(&self, worker: usize, round: usize, values: &[i64], totals: &mut [i64]) {
        let first = (round % 2) * self.width;
        let mine = &self.slots[worker];
        for (k, &value) in values[..self.width].iter().enumerate() {
            mine.value(first + k).store(value, Ordering::Relaxed);
        }
        mine.published.0.store(round + 1, Ordering::Release);
        let totals = &mut totals[..self.width];
        totals.fill(0);
        for slot in &self.slots {
            let mut spins = 0u32;
            while slot.published.0.load(Ordering::Acquire) <= round {
                if self.abandoned.load(Ordering::Relaxed) {
                    panic!("another training worker panicked");
                }
                spins += 1;
                if spins < 1 << 12 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
            for (k, total) in totals.iter_mut().enumerate() {
                *total += slot.value(first + k).load(Ordering::Relaxed);
            }
        }
    }
}

/// Deals `items` round-robin into `workers` shares (item i to share i mod `workers`).
pub(crate) fn deal<T>(items: impl IntoIterator<Item = T>, workers: usize) -> Vec<Vec<T>> {
    let mut shares: Vec<Vec<T>> = (0..workers).map(|_| Vec::new()).collect();
    for (i, item) in items.into_iter().enumerate() {
        shares[i % workers].push(item);
    }
    shares
}

/// Runs `work(worker, share, lockstep)` for every share on its own thread (the first on the
/// calling thread), with a [`Lockstep`] of `width` values per round, and returns what each
/// worker returned, in share order.
pub(crate) fn run<S: Send, R: Send>(
    shares: Vec<S>,
    width: usize,
    work: impl Fn(usize, S, &Lockstep) -> R + Sync,
) -> Vec<R> {
    let lockstep = Lockstep::new(shares.len(), width);
    let work = |worker: usize, share: S| {
        let guard = AbandonOnPanic(&lockstep.abandoned);
        let result = work(worker, share, &lockstep);
        std::mem::forget(guard);
        result
    };
    std::thread::scope(|scope| {
        let mut shares = shares.into_iter().enumerate();
        let first = shares.next();
        let others: Vec<_> = shares
            .map(|(worker, share)| {
                let work = &work;
                scope.spawn(move || work(worker, share))
            })
            .collect();
        let mut results: Vec<R> = first.map(|(w, share)| work(w, share)).into_iter().collect();
        for handle in others {
            match handle.join() {
                Ok(result) => results.push(result),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        results
    })
}

/// Marks the lockstep abandoned when dropped during a panic.
struct AbandonOnPanic<'a>(&'a AtomicBool);

impl Drop for AbandonOnPanic<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_round_sums_every_workers_values() {
        let rounds = 2000;
        let sums = run((0..3).collect(), 2, |worker, share: i64, lockstep| {
            let mut seen = Vec::new();
            let mut totals = [0; 2];
            for round in 0..rounds {
                let r = round as i64;
                lockstep.exchange(worker, round, &[share * r, 1], &mut totals);
                seen.push((totals[0], totals[1]));
            }
            seen
        });
        assert_eq!(sums.len(), 3);
        for seen in sums {
            for (round, &(total, count)) in seen.iter().enumerate() {
                // Shares 0, 1 and 2 published share x round.
                assert_eq!(total, 3 * round as i64, "round {round}");
                assert_eq!(count, 3);
            }
        }
    }

    #[test]
    fn a_panicking_worker_releases_the_others() {
        let result = std::panic::catch_unwind(|| {
            run(vec![0, 1], 1, |worker, _: i32, lockstep| {
                if worker == 1 {
                    panic!("worker 1 fails");
                }
                for round in 0..10 {
                    lockstep.exchange(worker, round, &[1], &mut [0]);
                }
            })
        });
        assert!(result.is_err());
    }
}

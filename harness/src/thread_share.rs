//! Training threads shared by the folds that train at the same time: each epoch runs on the
//! machine's threads divided by the folds then training, so the fold left alone at the end
//! of a cross-validation gets every thread instead of leaving cores idle. Models do not
//! depend on the number of threads, so the share changes the time only.

use anyhow::Context as _;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The threads of the machine and how many runs train on them now.
#[derive(Debug)]
pub struct ThreadShare {
    total: usize,
    training: AtomicUsize,
}

impl ThreadShare {
    /// A share of `total` threads (at least one) among no runs yet.
    pub fn new(total: usize) -> ThreadShare {
        ThreadShare {
            total: total.max(1),
            training: AtomicUsize::new(0),
        }
    }

    /// Counts one more run as training until the returned guard is dropped.
    pub fn enter(&self) -> Training<'_> {
        self.training.fetch_add(1, Ordering::SeqCst);
        Training { share: self }
    }

    /// The threads for the next epoch of one of the runs now training.
    pub fn threads_now(&self) -> usize {
        (self.total / self.training.load(Ordering::SeqCst).max(1)).max(1)
    }
}

/// A run counted by [`ThreadShare::enter`]; dropping it counts the run out.
#[derive(Debug)]
pub struct Training<'a> {
    share: &'a ThreadShare,
}

impl Drop for Training<'_> {
    fn drop(&mut self) {
        self.share.training.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One run's thread pools, each size built on first use.
#[derive(Default)]
pub struct EpochPools {
    pools: HashMap<usize, rayon::ThreadPool>,
}

impl EpochPools {
    /// The pool of `threads` threads.
    pub fn get(&mut self, threads: usize) -> anyhow::Result<&rayon::ThreadPool> {
        use std::collections::hash_map::Entry;
        Ok(match self.pools.entry(threads) {
            Entry::Occupied(pool) => pool.into_mut(),
            Entry::Vacant(slot) => slot.insert(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .context("cannot start the training threads")?,
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_divided_among_the_runs_training_now() {
        let share = ThreadShare::new(4);
        assert_eq!(share.threads_now(), 4, "nobody training yet");
        let first = share.enter();
        assert_eq!(share.threads_now(), 4);
        let second = share.enter();
        let third = share.enter();
        assert_eq!(share.threads_now(), 1, "4 threads among 3 runs");
        drop(second);
        assert_eq!(share.threads_now(), 2);
        drop(third);
        assert_eq!(share.threads_now(), 4, "the last run gets every thread");
        drop(first);
        assert_eq!(ThreadShare::new(0).threads_now(), 1, "at least one thread");
    }

    #[test]
    fn pools_have_the_size_asked_for_and_are_kept() {
        let mut pools = EpochPools::default();
        assert_eq!(pools.get(2).unwrap().current_num_threads(), 2);
        assert_eq!(pools.get(1).unwrap().current_num_threads(), 1);
        let first = pools.get(2).unwrap() as *const rayon::ThreadPool;
        assert_eq!(pools.get(2).unwrap() as *const _, first, "built once");
    }
}

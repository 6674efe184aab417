//! A flag that asks a running search to stop early (the controller's `# interrupt`,
//! CheckerBoard's `playnow`). Cheap to clone and to poll.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared stop request.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// Asks the search to stop.
    pub fn raise(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Clears the request (before the next command).
    pub fn lower(&self) {
        self.0.store(false, Ordering::Release);
    }

    /// True once a stop was requested.
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Two flags are equal when they are the same shared flag.
impl PartialEq for StopFlag {
    fn eq(&self, other: &StopFlag) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for StopFlag {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let flag = StopFlag::default();
        let other = flag.clone();
        assert!(!other.is_raised());
        flag.raise();
        assert!(other.is_raised());
        other.lower();
        assert!(!flag.is_raised());
        assert_eq!(flag, other);
        assert_ne!(flag, StopFlag::default());
    }
}

//! The bytes of bodies the proxy holds at once, across all its connections: requests while
//! they are read and forwarded, answers while they are taken down for a case. Each connection
//! holds its share in a [`Held`], which gives it back when dropped.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The pool: how many bytes may be held at once, and how many are.
#[derive(Debug)]
pub(super) struct Budget {
    total: usize,
    used: AtomicUsize,
}

impl Budget {
    pub(super) fn new(total: usize) -> Arc<Budget> {
        Arc::new(Budget {
            total,
            used: AtomicUsize::new(0),
        })
    }

    /// A share of nothing yet.
    pub(super) fn hold(self: &Arc<Self>) -> Held {
        Held {
            budget: self.clone(),
            bytes: 0,
        }
    }

    /// Takes `more` bytes from the pool, if that many are left.
    fn take(&self, more: usize) -> bool {
        self.used
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
                used.checked_add(more).filter(|total| *total <= self.total)
            })
            .is_ok()
    }
}

/// One connection's share of the pool.
#[derive(Debug)]
pub(super) struct Held {
    budget: Arc<Budget>,
    bytes: usize,
}

impl Held {
    /// Grows the share by `more` bytes; `false` (and no change) when the pool has no room.
    pub(super) fn grow(&mut self, more: usize) -> bool {
        let taken = self.budget.take(more);
        if taken {
            self.bytes += more;
        }
        taken
    }

    /// Grows the share to at least `total` bytes (see [`Held::grow`]).
    pub(super) fn grow_to(&mut self, total: usize) -> bool {
        self.grow(total.saturating_sub(self.bytes))
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.budget.used.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_total_and_come_back_when_dropped() {
        let budget = Budget::new(100);
        let mut a = budget.hold();
        let mut b = budget.hold();
        assert!(a.grow_to(60));
        assert!(!b.grow(41), "60 + 41 is past 100");
        assert!(b.grow(40));
        assert!(a.grow_to(60), "already held");
        assert!(!a.grow_to(61));
        drop(a);
        assert!(b.grow(60));
        assert_eq!(budget.used.load(Ordering::SeqCst), 100);
        drop(b);
        assert_eq!(budget.used.load(Ordering::SeqCst), 0);
    }
}

//! The one deadline of an adapter call, shared by every request it makes: what an exchange and
//! an answer to the server's request both wait under.

use crate::classify::Classification;
use std::time::Duration;
use tokio::time::Instant;

/// The one deadline of an adapter call, shared by every request it makes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    /// A deadline `budget` from now.
    pub(super) fn after(budget: Duration) -> Self {
        Deadline {
            // A budget past what an Instant can hold is as good as none: a far deadline.
            at: far_from_now(budget),
            budget,
        }
    }

    /// The instant it passes.
    pub(super) fn at(&self) -> Instant {
        self.at
    }

    /// Whether waiting `wait` from now still ends before the deadline.
    pub(super) fn leaves(&self, wait: Duration) -> bool {
        // Checked: `wait` can come from a peer's Retry-After; one past what an Instant can
        // hold passes any deadline.
        Instant::now()
            .checked_add(wait)
            .is_some_and(|end| end < self.at)
    }

    /// What a deadline that passed before any response head says.
    pub(super) fn headless_timeout(&self, waiting_for: &str) -> Classification {
        Classification::timeout(format!(
            "no {waiting_for} within the client timeout of {} ms",
            self.budget.as_millis()
        ))
    }
}

/// `budget` from now, or the furthest instant that is certainly representable (a year on).
fn far_from_now(budget: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(budget)
        .or_else(|| now.checked_add(Duration::from_secs(365 * 24 * 3600)))
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_past_what_an_instant_holds_leaves_no_room_instead_of_panicking() {
        let deadline = Deadline::after(Duration::from_secs(5));
        assert!(deadline.leaves(Duration::from_millis(1)));
        assert!(!deadline.leaves(Duration::from_secs(10_000_000_000_000_000_000)));
        assert!(!deadline.leaves(Duration::MAX));
    }

    #[test]
    fn a_budget_past_what_an_instant_holds_is_a_far_deadline() {
        let deadline = Deadline::after(Duration::MAX);
        assert!(deadline.at() > Instant::now() + Duration::from_secs(3600));
    }
}

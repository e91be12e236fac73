//! The bounds of a wire server (documented in `docs/wire-server.md`): what its record keeps,
//! how long a connection may take to send a request, how it waits after a failed accept.

use std::time::Duration;

/// The bounds one wire server keeps, so that no client, however it behaves, makes the server
/// grow, spin or hold a connection without end. [`Limits::default`] is what the runner and
/// `serve` use; tests shrink them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most of one request body the record keeps: 1 MiB. The server still reads (up to
    /// 16 MiB) and answers the whole body; the record keeps its start and counts the rest in
    /// [`Exchange::dropped`](super::Exchange::dropped).
    pub body_bytes: usize,
    /// The most the record keeps in all, of request headers, bodies and reply bytes: 32 MiB.
    /// Past it, an exchange keeps its method, target, status and ending, and counts its
    /// headers, body and reply bytes as dropped. Counts that pick replies stay exact.
    pub record_bytes: usize,
    /// How long a connection may take to send a complete request, counted from when the server
    /// starts waiting for one (the accept, or the end of the previous response): 60 s. A
    /// connection that sent nothing is then closed; one that sent part of a request gets a 408
    /// first (recorded like a bad request).
    pub request_within: Duration,
}

impl Limits {
    /// The bounds of [`Limits::default`].
    pub const DEFAULT: Limits = Limits {
        body_bytes: 1024 * 1024,
        record_bytes: 32 * 1024 * 1024,
        request_within: Duration::from_secs(60),
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// How the accept loop waits after a failed accept. An error such as `EMFILE` leaves the
/// connection in the backlog, so the listener stays ready and retrying at once spins; the wait
/// doubles from [`Backoff::FIRST`] to [`Backoff::MOST`] and starts over after an accept succeeds.
#[derive(Debug)]
pub(crate) struct Backoff {
    next: Duration,
}

impl Backoff {
    pub(crate) const FIRST: Duration = Duration::from_millis(5);
    pub(crate) const MOST: Duration = Duration::from_millis(250);

    /// The wait after one more failure in a row.
    pub(crate) fn failed(&mut self) -> Duration {
        let wait = self.next;
        self.next = self.next.saturating_mul(2).min(Self::MOST);
        wait
    }

    /// An accept succeeded: the next failure waits [`Backoff::FIRST`] again.
    pub(crate) fn succeeded(&mut self) {
        self.next = Self::FIRST;
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next: Self::FIRST }
    }
}

/// Whether an accept error belongs to one connection (it was aborted or reset before the
/// accept), so that the next accept can go ahead at once; any other error (out of descriptors,
/// of memory, of buffers) is the process's and waits.
pub(crate) fn one_connections_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset, Interrupted};
    matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset | Interrupted
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    #[test]
    fn the_backoff_doubles_to_its_ceiling_and_starts_over_after_a_success() {
        let mut backoff = Backoff::default();
        let waits: Vec<u64> = (0..9)
            .map(|_| u64::try_from(backoff.failed().as_millis()).unwrap())
            .collect();
        assert_eq!(waits, [5, 10, 20, 40, 80, 160, 250, 250, 250]);
        backoff.succeeded();
        assert_eq!(backoff.failed(), Backoff::FIRST);
    }

    #[test]
    fn only_descriptor_and_memory_errors_wait() {
        assert!(one_connections_error(&Error::from(
            ErrorKind::ConnectionAborted
        )));
        assert!(!one_connections_error(&Error::from_raw_os_error(24))); // EMFILE
        assert!(!one_connections_error(&Error::from_raw_os_error(23))); // ENFILE
        assert!(!one_connections_error(&Error::from(ErrorKind::OutOfMemory)));
    }
}

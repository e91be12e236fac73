//! Records what the server writes into the exchange it answers, as it writes it, so that a
//! response that stalls or is cut still shows what went out.

use super::record::Exchange;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How much of a response is kept for the record.
const KEEP_BYTES: usize = 16 * 1024;

/// A handle on one exchange of the shared record.
#[derive(Debug, Clone)]
pub struct Tap {
    record: Arc<Mutex<Vec<Exchange>>>,
    index: usize,
    started: Instant,
}

impl Tap {
    /// A tap on exchange `index` of `record`.
    pub fn new(record: Arc<Mutex<Vec<Exchange>>>, index: usize, started: Instant) -> Self {
        Tap {
            record,
            index,
            started,
        }
    }

    /// Notes who answers and with which status.
    pub fn answered_by(&self, by: &'static str, status: Option<u16>) {
        self.with(|e| {
            e.reply.by = by;
            e.reply.status = status;
        });
    }

    /// Notes bytes written.
    pub fn wrote(&self, bytes: &[u8]) {
        self.with(|e| {
            let room = KEEP_BYTES.saturating_sub(e.reply.bytes.len());
            let kept = &bytes[..bytes.len().min(room)];
            e.reply.bytes.push_str(&String::from_utf8_lossy(kept));
        });
    }

    /// Notes how the exchange ended.
    pub fn end(&self, how: &'static str) {
        let at = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.with(|e| {
            e.reply.end = how;
            e.reply.ended_ms = Some(at);
        });
    }

    fn with(&self, f: impl FnOnce(&mut Exchange)) {
        // A poisoned lock only means another connection task panicked mid-update; the record is
        // still the best evidence there is.
        let mut record = self.record.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(exchange) = record.get_mut(self.index) {
            f(exchange);
        }
    }
}

//! Records the reply the server writes into the exchange it answers, as it writes it, so that
//! a response that stalls or is cut still shows what went out.

use super::record::{Answerer, Awaited, Ended, Recorder};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Records one reply: a handle on one exchange of the shared record, for whoever writes the
/// answer to it.
#[derive(Debug, Clone)]
pub struct ReplyRecorder {
    recorder: Arc<Recorder>,
    number: usize,
}

impl ReplyRecorder {
    /// Records the reply of exchange `number` of `recorder`'s record.
    pub(crate) fn new(recorder: Arc<Recorder>, number: usize) -> Self {
        ReplyRecorder { recorder, number }
    }

    /// Notes who answers and with which status.
    pub fn answered_by(&self, by: Answerer, status: Option<u16>) {
        self.recorder.update(|r| {
            r.reply(self.number, |reply| {
                reply.by = by;
                reply.status = status;
            });
        });
    }

    /// Notes bytes written (the record keeps what its limits allow and counts the rest).
    pub fn wrote(&self, bytes: &[u8]) {
        self.recorder.update(|r| r.wrote(self.number, bytes));
    }

    /// Notes how the exchange ended.
    pub fn end(&self, how: Ended) {
        let at = self.recorder.elapsed_ms();
        self.recorder.update(|r| {
            r.reply(self.number, |reply| {
                reply.end = Some(how);
                reply.ended_ms = Some(at);
            });
        });
    }

    /// Notes that the client closed the connection while the reply stalled.
    pub fn client_closed(&self) {
        let at = self.recorder.elapsed_ms();
        self.recorder
            .update(|r| r.reply(self.number, |reply| reply.client_closed_ms = Some(at)));
    }

    /// Where the exchanges that arrive from now on begin: taken before a request goes out, it
    /// tells the answer to that request from an answer to an earlier one with the same id.
    pub fn mark(&self) -> usize {
        self.recorder.read(|r| r.next_number())
    }

    /// Waits up to `within` for the client to POST its answer to the request with `id` that
    /// this reply sent, among the exchanges from `mark` on; notes and returns whether it came.
    pub async fn await_answer(&self, id: &Value, within: Duration, mark: usize) -> bool {
        // Subscribed before the first look, so that an answer between the two is not missed.
        let mut changes = self.recorder.subscribe();
        let arrived = async {
            let mut from = mark;
            while let Err(next) = self.recorder.read(|r| r.answered_since(id, from)) {
                from = next;
                if changes.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        };
        let answered = tokio::time::timeout(within, arrived).await.is_ok();
        let awaited = Awaited {
            id: id.clone(),
            answered,
        };
        self.recorder
            .update(|r| r.reply(self.number, |reply| reply.awaited.push(awaited)));
        answered
    }
}

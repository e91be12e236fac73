//! SSE resumption (2025 era): a stream that ended before the response, after events with ids,
//! is resumed with a GET carrying `Last-Event-ID`, no sooner than the stream's `retry` asked
//! (2025-11-25 makes that a MUST). 2026-07-28 streams are not resumable; `retry::reissues`
//! re-sends those instead.

use super::exchange::{Reply, exchange};
use super::session::Session;
use super::{Run, prefixed};
use crate::classify::sse::SseReader;
use crate::outcome::Outcome;
use reqwest::header::ACCEPT;
use serde_json::Value;
use std::time::Duration;

/// At most this many GETs for one request.
const MAX_RESUMES: u32 = 2;
/// The wait when a stream with event ids gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);

impl Run<'_> {
    /// `reply`, or what resuming its stream brought, when it ended early after event ids.
    pub(super) async fn resume(
        &mut self,
        mut reply: Reply,
        id: &Value,
        session: &Session,
    ) -> Reply {
        let mut last_id: Option<String> = None;
        let mut retry = None;
        for _ in 0..MAX_RESUMES {
            if reply.classification.outcome != Outcome::StreamIncomplete {
                break;
            }
            let mut reader = SseReader::new();
            reader.feed(&reply.body);
            last_id = reader.last_event_id().map(str::to_owned).or(last_id);
            retry = reader
                .reconnection_time()
                .map(Duration::from_millis)
                .or(retry);
            let Some(last) = last_id.clone() else {
                break; // no event ids: nothing to resume from
            };
            let wait = retry.unwrap_or(DEFAULT_RETRY);
            if !self.deadline.leaves(wait) {
                break;
            }
            tokio::time::sleep(wait).await;
            let mut resumed = self.resume_once(id, session, &last).await;
            // A token that expired while the stream was open: a new one, and the GET again.
            if resumed.classification.status == Some(401) && self.auth.is_some() {
                let challenge = super::auth::take().unwrap_or(super::auth::Challenge {
                    status: 401,
                    ..super::auth::Challenge::default()
                });
                if self.recover(&challenge).await.is_ok() {
                    resumed = self.resume_once(id, session, &last).await;
                }
            }
            if !carries_on(&resumed) {
                let note = format!(
                    "resuming after event {last:?} failed ({})",
                    resumed.classification.reason
                );
                return Reply {
                    classification: prefixed(reply.classification, &note),
                    ..reply
                };
            }
            reply = resumed;
        }
        reply
    }
}

impl Run<'_> {
    /// One GET that resumes the stream of request `id` after event `last`.
    async fn resume_once(&self, id: &Value, session: &Session, last: &str) -> Reply {
        let get = self
            .options
            .client
            .get(&self.ctx.endpoint)
            .header(ACCEPT, "text/event-stream")
            .header("Last-Event-ID", last);
        let answers = self.answers_in(session);
        let get = self.authorized(self.in_session(get, session));
        exchange(get, id, &self.deadline, Some(&answers)).await
    }
}

/// Whether a resumption answer is the stream going on (a 2xx event stream, whatever it then
/// held), rather than a server that cannot resume (405, an error, nothing).
fn carries_on(resumed: &Reply) -> bool {
    let success = resumed
        .classification
        .status
        .is_some_and(|s| (200..300).contains(&s));
    let headless = matches!(
        resumed.classification.outcome,
        Outcome::ConnectionError | Outcome::UnexpectedContentType
    );
    success && !headless
}

//! The retry policy: when the reference client sends a `tools/call` again on its own.
//!
//! Following the retry table of the article this project starts from: only a tool declared
//! read-only or idempotent (`readOnlyHint` / `idempotentHint` in its annotations) is repeated,
//! only after `503`, `429` or a connection error (no response at all: refused, reset, closed
//! before a status line), at most twice, after 200 ms and then 400 ms (each plus up to a
//! quarter of jitter), or after what `Retry-After` asks (seconds or an HTTP-date) when the
//! answer has one. A JSON-RPC error, `isError`, an invalid response or a timeout is never
//! retried: repeating it cannot help, or could do twice what was asked once. A wait that would
//! pass the call's deadline is not started: the answer is reported as it is.

use super::exchange::Reply;
use super::{Mode, Run, prefixed};
use crate::outcome::Outcome;
use reqwest::header::RETRY_AFTER;
use serde_json::{Map, Value};
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, SystemTime};

/// When the reference client repeats a `tools/call` by itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RetryPolicy {
    /// Never: every call is one request (plus what the protocol itself asks for: MRTR rounds,
    /// a new session, a re-issued broken stream).
    Never,
    /// Read-only or idempotent tools, after 503, 429 or a connection error (module docs).
    #[default]
    RepeatableTools,
}

impl RetryPolicy {
    /// The name observations report: `never` or `repeatable-tools`.
    pub fn name(self) -> &'static str {
        match self {
            RetryPolicy::Never => "never",
            RetryPolicy::RepeatableTools => "repeatable-tools",
        }
    }
}

/// At most this many retries of one request.
pub const MAX_RETRIES: u32 = 2;
/// The first backoff; each retry doubles it.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(200);

impl Run<'_> {
    /// One request and its retries (and, in 2026-07-28, its re-issue after a broken stream).
    pub(super) async fn with_retries(
        &mut self,
        mode: Mode<'_>,
        extra: &Map<String, Value>,
    ) -> Reply {
        let mut retries = 0;
        let mut reissued = false;
        loop {
            let reply = self.send_tool_call(mode, extra).await;
            if !reissued && reissues(mode, &reply) {
                reissued = true;
                continue;
            }
            let Some(wait) = self.retry_wait(&reply, retries) else {
                return reply;
            };
            if !self.deadline.leaves(wait) {
                let note = format!(
                    "not retried: waiting {} ms would pass the client timeout",
                    wait.as_millis()
                );
                return Reply {
                    classification: prefixed(reply.classification, &note),
                    ..reply
                };
            }
            tokio::time::sleep(wait).await;
            retries += 1;
        }
    }

    /// How long to wait before retrying `reply`, if the policy retries it.
    fn retry_wait(&self, reply: &Reply, retries: u32) -> Option<Duration> {
        let policy = self.options.retry;
        if policy == RetryPolicy::Never || retries >= MAX_RETRIES || !self.ctx.is_repeatable() {
            return None;
        }
        let answer = &reply.classification;
        match (answer.outcome, answer.status) {
            (Outcome::HttpError, Some(503 | 429)) => {
                let asked = reply.headers.as_ref().and_then(|h| h.get(RETRY_AFTER));
                let asked = asked.and_then(|v| v.to_str().ok());
                Some(
                    asked
                        .and_then(|v| retry_after(v, SystemTime::now()))
                        .unwrap_or_else(|| backoff(retries)),
                )
            }
            (Outcome::ConnectionError, _) => Some(backoff(retries)),
            _ => None,
        }
    }
}

/// A 2026-07-28 stream that broke before the response loses the request: the client re-issues
/// it as a new request with a new id (changelog of 2026-07-28), once.
fn reissues(mode: Mode<'_>, reply: &Reply) -> bool {
    matches!(mode, Mode::Stateless) && reply.classification.outcome == Outcome::StreamIncomplete
}

/// `FIRST_BACKOFF` doubled per earlier retry, plus up to a quarter of itself at random.
fn backoff(retries: u32) -> Duration {
    let base = FIRST_BACKOFF * 2u32.saturating_pow(retries);
    let quarter = u64::try_from(base.as_millis() / 4).unwrap_or(0);
    base + Duration::from_millis(random() % (quarter + 1))
}

/// A random number good enough for jitter, without a crate for it: the standard library seeds
/// every `RandomState` afresh.
fn random() -> u64 {
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

/// The wait a `Retry-After` value asks for: delay-seconds, or an HTTP-date (a date in the past
/// asks for none).
fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(retry_after("1", now), Some(Duration::from_secs(1)));
        assert_eq!(retry_after(" 120 ", now), Some(Duration::from_secs(120)));
        let later = "Sun, 06 Nov 1994 08:49:40 GMT";
        assert_eq!(retry_after(later, now), Some(Duration::from_secs(3)));
        let earlier = "Sun, 06 Nov 1994 08:49:30 GMT";
        assert_eq!(retry_after(earlier, now), Some(Duration::ZERO));
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-1", now), None);
    }

    #[test]
    fn backoff_doubles_and_jitters_by_at_most_a_quarter() {
        for (retries, base) in [(0, 200), (1, 400)] {
            for _ in 0..50 {
                let wait = backoff(retries).as_millis();
                assert!((base..=base + base / 4).contains(&wait), "{wait}");
            }
        }
    }
}

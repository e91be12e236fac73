//! The reference classifier: turns what came back for one `tools/call` into one outcome.
//!
//! It applies the layers of the outcome table (README.md, "Outcomes") in order, and the first that fails decides:
//!
//! 1. **HTTP status.** A non-2xx status is [`Outcome::HttpError`], whatever the Content-Type.
//!    The first [`MAX_ERROR_BODY_BYTES`] of the body are kept: if they parse as JSON with an
//!    integer `error.code`, that code is reported too.
//! 2. **No body.** A 2xx whose body ended cleanly with zero bytes (`202`, `204`, an empty `200`)
//!    is [`Outcome::NoResult`]; `204` is decided as soon as the head arrives.
//! 3. **Content-Type.** A 2xx whose media type is neither `application/json` nor
//!    `text/event-stream` is [`Outcome::UnexpectedContentType`], decided at its first body byte.
//! 4. **`application/json`** needs the whole body: a cut body is
//!    [`Outcome::StreamIncomplete`] (transport before protocol), a body that is not JSON is
//!    [`Outcome::MalformedJson`], anything else goes to the message rules ([`classify_message`]).
//! 5. **`text/event-stream`** is read incrementally with [`sse::SseReader`]: events with empty
//!    data (priming events) and JSON objects with a `method` (requests, notifications) are
//!    skipped; the first other event decides, by [`Outcome::MalformedJson`] or the message
//!    rules. A stream that ends first is [`Outcome::StreamIncomplete`].
//!
//! Memory is bounded: a JSON body or a single SSE event larger than [`MAX_MESSAGE_BYTES`] is
//! decided as [`Outcome::MalformedJson`] at the byte that crosses the limit (no JSON text that
//! large is a plausible `tools/call` response, and the classifier will not buffer it).
//!
//! Decisions depend only on the bytes, never on how they were split into chunks:
//! [`Classifier`] fed any chunking gives the same [`Classification`] as [`classify`].
//!
//! Where the rules leave room, the classifier chooses:
//! - A non-2xx response is decided when its body ends or reaches [`MAX_ERROR_BODY_BYTES`],
//!   so that the code never depends on when a caller stopped reading.
//! - SSE events are read whatever their `event` type: the spec names no types, and a response
//!   hidden behind an unusual type is still the response.
//! - SSE data is decoded as UTF-8 with replacement characters (the WHATWG rule), while an
//!   `application/json` body with invalid UTF-8 is [`Outcome::MalformedJson`] (RFC 8259).
//! - A deadline on a 2xx response is [`Outcome::Timeout`] even when its Content-Type was wrong:
//!   until a byte arrives, the empty body that would make it [`Outcome::NoResult`] is possible.

use crate::observation::Observation;
use crate::outcome::Outcome;
use serde_json::Value;

pub mod capture;
mod message;
pub mod sse;
pub(crate) mod task;
#[cfg(test)]
mod tests;
pub(crate) mod text;

pub use message::classify_message;
use sse::{SseEvent, SseReader};
use text::{TEXT_CHARS, one_line};

/// How much of a non-2xx body the classifier reads to find a JSON-RPC error code: 64 KiB.
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// The largest JSON body or single SSE event the classifier buffers: 16 MiB. Past it the
/// response is [`Outcome::MalformedJson`].
pub const MAX_MESSAGE_BYTES: usize = sse::DEFAULT_EVENT_LIMIT;

/// The most server requests one SSE response queues for its client to answer; the rest are
/// skipped like notifications, so that a stream of requests cannot grow the queue without end.
const MAX_SERVER_REQUESTS: usize = 64;

/// How a response body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEnd {
    /// The body was read to its proper end (Content-Length reached, last chunk, clean EOF for
    /// close-delimited bodies).
    Complete,
    /// The body stopped early: the connection closed or reset mid-body, or the framing was cut.
    Cut,
}

/// The classifier's verdict on one response: one outcome plus the fields and reason behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classification {
    /// The outcome.
    pub outcome: Outcome,
    /// The HTTP status, when a response arrived.
    pub status: Option<u16>,
    /// The JSON-RPC error code, when there was one.
    pub code: Option<i64>,
    /// Why, in one line: which rule decided.
    pub reason: String,
}

impl Classification {
    /// The observation a client built on this classifier reports.
    pub fn into_observation(self) -> Observation {
        Observation {
            status: self.status,
            code: self.code,
            detail: self.reason,
            ..Observation::new(self.outcome)
        }
    }

    /// No HTTP response arrived at all.
    pub fn connection_error(detail: impl Into<String>) -> Self {
        Self::headless(Outcome::ConnectionError, detail.into())
    }

    /// The client's deadline passed before any response head arrived.
    pub fn timeout(detail: impl Into<String>) -> Self {
        Self::headless(Outcome::Timeout, detail.into())
    }

    fn headless(outcome: Outcome, reason: String) -> Self {
        Classification {
            outcome,
            status: None,
            code: None,
            reason,
        }
    }

    /// A decision about a response with this status.
    fn of(status: u16, outcome: Outcome, reason: impl Into<String>) -> Self {
        Classification {
            outcome,
            status: Some(status),
            code: None,
            reason: reason.into(),
        }
    }
}

/// Classifies a whole response at once.
pub fn classify(
    status: u16,
    content_type: Option<&str>,
    body: &[u8],
    end: BodyEnd,
    request_id: &Value,
) -> Classification {
    let mut classifier = Classifier::new(request_id.clone(), status, content_type);
    classifier.feed(body);
    classifier.finish(end)
}

/// An incremental classifier for one response: feed it the head, then body chunks as they
/// arrive; it decides as soon as the bytes so far decide (for SSE: the first JSON-RPC response).
#[derive(Debug)]
pub struct Classifier {
    request_id: Value,
    status: u16,
    /// Body bytes fed before the decision.
    bytes: u64,
    state: State,
}

/// What the classifier is waiting for.
#[derive(Debug)]
enum State {
    Decided(Classification),
    /// Non-2xx: collecting the start of the body for a JSON-RPC error code.
    HttpError(Vec<u8>),
    /// 2xx with a Content-Type we do not read (the header as received, if any). The first body
    /// byte decides; only an empty body could still make it `NO_RESULT`.
    WrongType(Option<String>),
    /// 2xx `application/json`: collecting the whole body.
    Json(Vec<u8>),
    /// 2xx `text/event-stream`: reading events until a response.
    Sse(Box<SseState>),
}

#[derive(Debug)]
struct SseState {
    reader: SseReader,
    /// Events dispatched so far (priming events and notifications included).
    events: usize,
    /// Requests from the server read so far and not yet taken, oldest first.
    requests: Vec<Value>,
    /// How many requests were queued in all (at most [`MAX_SERVER_REQUESTS`]).
    queued: usize,
}

impl Classifier {
    /// Starts classifying a response with this status and Content-Type to the request with `request_id`.
    pub fn new(request_id: Value, status: u16, content_type: Option<&str>) -> Self {
        Classifier {
            request_id,
            status,
            bytes: 0,
            state: initial_state(status, content_type),
        }
    }

    /// The decision, if the bytes so far already decide.
    pub fn decided(&self) -> Option<&Classification> {
        match &self.state {
            State::Decided(decision) => Some(decision),
            _ => None,
        }
    }

    /// Feeds the next body chunk; returns the decision once there is one.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<&Classification> {
        if !chunk.is_empty() && self.decided().is_none() {
            let len = u64::try_from(chunk.len()).unwrap_or(u64::MAX);
            self.bytes = self.bytes.saturating_add(len);
            if let Some(decision) = self.step(chunk) {
                self.state = State::Decided(decision);
            }
        }
        self.decided()
    }

    /// The JSON-RPC requests (a `method` and an `id`) the server sent on an SSE stream since the
    /// last call, oldest first, for a client that answers them (in 2025 sessions: `ping`,
    /// `elicitation/create`, `roots/list`, `sampling/createMessage`). A server may hold its
    /// response back until they are answered, so take them after every [`Classifier::feed`].
    /// At most 64 are queued per response; later ones are skipped like notifications.
    pub fn take_server_requests(&mut self) -> Vec<Value> {
        match &mut self.state {
            State::Sse(sse) => std::mem::take(&mut sse.requests),
            _ => Vec::new(),
        }
    }

    /// The body ended (`Complete` or `Cut`): the final decision.
    pub fn finish(self, end: BodyEnd) -> Classification {
        let status = self.status;
        match self.state {
            State::Decided(decision) => decision,
            State::HttpError(body) => http_error(status, &body),
            _ if self.bytes == 0 => empty_body(status, end),
            State::WrongType(content_type) => wrong_type(status, content_type.as_deref()),
            State::Json(body) => json_body(status, &body, end, &self.request_id),
            State::Sse(sse) => sse_incomplete(status, sse.events, end),
        }
    }

    /// The client's deadline passed while the body was still arriving.
    pub fn deadline(self) -> Classification {
        let status = self.status;
        let reason = match self.state {
            State::Decided(decision) => return decision,
            State::HttpError(body) => return http_error(status, &body),
            State::Sse(sse) => format!(
                "deadline passed after {} without the response",
                sse_events(sse.events)
            ),
            _ => format!(
                "deadline passed after HTTP {status} and {} body bytes",
                self.bytes
            ),
        };
        Classification::of(status, Outcome::Timeout, reason)
    }

    /// Takes one non-empty chunk in an undecided state; returns the decision it makes, if any.
    fn step(&mut self, chunk: &[u8]) -> Option<Classification> {
        let status = self.status;
        match &mut self.state {
            State::Decided(_) => None,
            State::HttpError(body) => {
                let room = MAX_ERROR_BODY_BYTES.saturating_sub(body.len());
                body.extend_from_slice(chunk.get(..room).unwrap_or(chunk));
                // Deciding at the cap (not at the end) keeps memory bounded; the decision only
                // depends on the first MAX_ERROR_BODY_BYTES, whatever the chunking.
                (body.len() >= MAX_ERROR_BODY_BYTES).then(|| http_error(status, body))
            }
            State::WrongType(content_type) => Some(wrong_type(status, content_type.as_deref())),
            State::Json(body) => {
                if body.len().saturating_add(chunk.len()) > MAX_MESSAGE_BYTES {
                    return Some(too_large(status, "JSON body"));
                }
                body.extend_from_slice(chunk);
                None
            }
            State::Sse(sse) => sse_step(sse, chunk, &self.request_id, status),
        }
    }
}

fn initial_state(status: u16, content_type: Option<&str>) -> State {
    if !(200..=299).contains(&status) {
        return State::HttpError(Vec::new());
    }
    // 204 never has a body (RFC 9110 §15.3.5), so there are no bytes to wait for.
    if status == 204 {
        let reason = "HTTP 204 has no body: no response can follow";
        return State::Decided(Classification::of(status, Outcome::NoResult, reason));
    }
    match content_type.map(media_type).as_deref() {
        Some("application/json") => State::Json(Vec::new()),
        Some("text/event-stream") => State::Sse(Box::new(SseState {
            reader: SseReader::with_limit(MAX_MESSAGE_BYTES),
            events: 0,
            requests: Vec::new(),
            queued: 0,
        })),
        _ => State::WrongType(content_type.map(shown_content_type)),
    }
}

/// A Content-Type for a reason. A control character in it is shown escaped and said: as a
/// space (what `one_line` makes of it) `application/\0json` would read as nearly right.
fn shown_content_type(content_type: &str) -> String {
    if !content_type.chars().any(|c| c.is_control() && c != '\t') {
        return one_line(content_type, TEXT_CHARS);
    }
    let head: String = content_type.chars().take(TEXT_CHARS).collect();
    format!("{head:?}, which holds a control character")
}

/// The media type of a Content-Type value: parameters dropped, trimmed, lowercased (media
/// types are case-insensitive, RFC 9110 §8.3.1).
fn media_type(content_type: &str) -> String {
    let essence = content_type.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

fn http_error(status: u16, body: &[u8]) -> Classification {
    let Some((code, message)) = jsonrpc_error_code(body) else {
        return Classification::of(status, Outcome::HttpError, format!("HTTP {status}"));
    };
    let reason = match message {
        Some(message) => format!(
            "HTTP {status} with JSON-RPC error {code}: {}",
            one_line(&message, TEXT_CHARS)
        ),
        None => format!("HTTP {status} with JSON-RPC error {code}"),
    };
    Classification {
        code: Some(code),
        ..Classification::of(status, Outcome::HttpError, reason)
    }
}

/// `error.code` (an integer) and `error.message` (if a string) of a JSON body, if it has them.
fn jsonrpc_error_code(body: &[u8]) -> Option<(i64, Option<String>)> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let error = value.get("error")?;
    let code = error.get("code")?.as_i64()?;
    let message = error.get("message").and_then(Value::as_str);
    Some((code, message.map(str::to_owned)))
}

fn empty_body(status: u16, end: BodyEnd) -> Classification {
    match end {
        BodyEnd::Complete => Classification::of(
            status,
            Outcome::NoResult,
            format!("HTTP {status} with an empty body: no response can follow"),
        ),
        BodyEnd::Cut => Classification::of(
            status,
            Outcome::StreamIncomplete,
            format!("HTTP {status} body cut before its first byte"),
        ),
    }
}

fn wrong_type(status: u16, content_type: Option<&str>) -> Classification {
    let reason = match content_type {
        Some(content_type) => format!("HTTP {status} with Content-Type {content_type}"),
        None => format!("HTTP {status} with a body but no Content-Type"),
    };
    Classification::of(status, Outcome::UnexpectedContentType, reason)
}

fn too_large(status: u16, what: &str) -> Classification {
    let reason = format!(
        "{what} exceeds the {} MiB limit",
        MAX_MESSAGE_BYTES / (1024 * 1024)
    );
    Classification::of(status, Outcome::MalformedJson, reason)
}

fn json_body(status: u16, body: &[u8], end: BodyEnd, request_id: &Value) -> Classification {
    if end == BodyEnd::Cut {
        let reason = format!("JSON body cut after {} bytes", body.len());
        return Classification::of(status, Outcome::StreamIncomplete, reason);
    }
    match serde_json::from_slice::<Value>(body) {
        Err(error) => {
            let reason = format!("body is not JSON: {error}");
            Classification::of(status, Outcome::MalformedJson, reason)
        }
        Ok(message) => Classification {
            status: Some(status),
            ..classify_message(&message, request_id)
        },
    }
}

/// Reads one chunk of an SSE stream; the first event that is a response (or not JSON) decides.
fn sse_step(
    sse: &mut SseState,
    chunk: &[u8],
    request_id: &Value,
    status: u16,
) -> Option<Classification> {
    for event in sse.reader.feed(chunk) {
        sse.events = sse.events.saturating_add(1);
        let decision = sse_event(&event, sse.events, request_id, &mut |request| {
            if sse.queued < MAX_SERVER_REQUESTS {
                sse.queued += 1;
                sse.requests.push(request);
            }
        });
        if let Some(decision) = decision {
            return Some(Classification {
                status: Some(status),
                ..decision
            });
        }
    }
    sse.reader
        .overflowed()
        .then(|| too_large(status, "an SSE event"))
}

/// One dispatched event: `None` to skip it, or the decision it makes. A request from the
/// server goes to `request`.
fn sse_event(
    event: &SseEvent,
    number: usize,
    request_id: &Value,
    request: &mut dyn FnMut(Value),
) -> Option<Classification> {
    // Priming events (2025-11-25) carry only an id and empty data.
    if event.data.is_empty() {
        return None;
    }
    let message: Value = match serde_json::from_str(&event.data) {
        Ok(message) => message,
        Err(error) => {
            let reason = format!("SSE event {number}: data is not JSON: {error}");
            return Some(Classification::headless(Outcome::MalformedJson, reason));
        }
    };
    // Requests and notifications on the stream come before the response; they do not decide.
    if message.get("method").is_some() {
        if message.get("id").is_some() {
            request(message);
        }
        return None;
    }
    let decision = classify_message(&message, request_id);
    Some(Classification {
        reason: format!("SSE event {number}: {}", decision.reason),
        ..decision
    })
}

fn sse_incomplete(status: u16, events: usize, end: BodyEnd) -> Classification {
    let how = match end {
        BodyEnd::Complete => "ended",
        BodyEnd::Cut => "was cut",
    };
    let events = sse_events(events);
    let reason = format!("SSE stream {how} after {events} without the response");
    Classification::of(status, Outcome::StreamIncomplete, reason)
}

/// `1 SSE event`, `2 SSE events`.
fn sse_events(count: usize) -> String {
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} SSE event{plural}")
}

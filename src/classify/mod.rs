//! The reference classifier: turns what came back for one `tools/call` into one outcome.
//!
//! STUB — the API below is fixed; the bodies are being written.

use crate::observation::Observation;
use crate::outcome::Outcome;
use serde_json::Value;

pub mod sse;

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
            outcome: self.outcome,
            status: self.status,
            code: self.code,
            detail: self.reason,
        }
    }

    /// No HTTP response arrived at all.
    pub fn connection_error(detail: impl Into<String>) -> Self {
        todo!()
    }

    /// The client's deadline passed before any response head arrived.
    pub fn timeout(detail: impl Into<String>) -> Self {
        todo!()
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
    todo!()
}

/// An incremental classifier for one response: feed it the head, then body chunks as they
/// arrive; it decides as soon as the bytes so far decide (for SSE: the first JSON-RPC response).
#[derive(Debug)]
pub struct Classifier {}

impl Classifier {
    /// Starts classifying a response with this status and Content-Type to the request with `request_id`.
    pub fn new(request_id: Value, status: u16, content_type: Option<&str>) -> Self {
        todo!()
    }

    /// The decision, if the bytes so far already decide.
    pub fn decided(&self) -> Option<&Classification> {
        todo!()
    }

    /// Feeds the next body chunk; returns the decision once there is one.
    pub fn feed(&mut self, chunk: &[u8]) -> Option<&Classification> {
        todo!()
    }

    /// The body ended (`Complete` or `Cut`): the final decision.
    pub fn finish(self, end: BodyEnd) -> Classification {
        todo!()
    }

    /// The client's deadline passed while the body was still arriving.
    pub fn deadline(self) -> Classification {
        todo!()
    }
}

//! One scripted HTTP answer of a case file (`[[call.reply]]`, `[[call.resume]]`, the task
//! answers, an `[auth]` table's `unauthorized`): its status, body, SSE events, headers and how
//! it ends.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One scripted HTTP answer.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// The status code; absent means no status line at all.
    #[serde(default)]
    pub status: Option<u16>,
    /// A JSON body, checked at load time and sent compactly.
    #[serde(default)]
    pub json: Option<String>,
    /// A body sent byte for byte.
    #[serde(default)]
    pub raw: Option<String>,
    /// An SSE body.
    #[serde(default)]
    pub event: Vec<Event>,
    /// Extra response headers.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Overrides the Content-Type the body form implies.
    #[serde(default)]
    pub content_type: Option<String>,
    /// Wait before the status line.
    #[serde(default)]
    pub delay_ms: u64,
    /// Wait between SSE events.
    #[serde(default)]
    pub event_gap_ms: u64,
    /// How the body ends.
    #[serde(default)]
    pub end: End,
    /// Send only the first N bytes of the body, then close.
    #[serde(default)]
    pub cut_after: Option<usize>,
}

/// How a reply's body ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum End {
    /// The body is finished and the connection stays usable.
    #[default]
    Complete,
    /// The connection closes without finishing the body.
    Close,
    /// The connection is reset (TCP RST).
    Reset,
    /// The connection stays open and nothing more is sent.
    Stall,
}

/// One SSE event (or comment).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// A JSON text sent as the event's `data`.
    #[serde(default)]
    pub data: Option<String>,
    /// Text sent as the event's `data` as written.
    #[serde(default)]
    pub data_raw: Option<String>,
    /// The `event:` field.
    #[serde(default)]
    pub event: Option<String>,
    /// The `id:` field.
    #[serde(default)]
    pub id: Option<String>,
    /// The `retry:` field.
    #[serde(default)]
    pub retry: Option<u64>,
    /// A comment line (`: text`); an event with only a comment sends just that.
    #[serde(default)]
    pub comment: Option<String>,
    /// How many times the event is sent in a row (1 to [`MAX_REPEAT`]), `event_gap_ms` apart:
    /// a stream that goes on sending, such as progress that never ends.
    #[serde(default)]
    pub repeat: Option<u32>,
    /// For an event whose `data` is a JSON-RPC request from the server (`ping`,
    /// `elicitation/create`, ...): after sending it, wait up to this many milliseconds for the
    /// client to POST its answer (a response with the same id) before the stream goes on.
    #[serde(default)]
    pub await_answer_ms: Option<u64>,
}

/// The most times one event may be sent in a row: with the largest gap that is hours of stream,
/// and a bound on what the server renders for one reply.
pub const MAX_REPEAT: u32 = 1000;

impl Event {
    /// How many times it goes out: `repeat`, once without it.
    pub fn times(&self) -> u32 {
        self.repeat.unwrap_or(1)
    }

    /// The event's data when it is a JSON-RPC request from the server: an object with a string
    /// `method` and an `id` (a notification has none).
    pub fn server_request(&self) -> Option<serde_json::Value> {
        let message: serde_json::Value = serde_json::from_str(self.data.as_deref()?).ok()?;
        let is_request = message
            .get("method")
            .is_some_and(serde_json::Value::is_string)
            && message.get("id").is_some();
        is_request.then_some(message)
    }
}

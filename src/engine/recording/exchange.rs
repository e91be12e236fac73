//! One recorded `tools/call` exchange: the request a client sent and everything the server
//! answered, with when the pieces of the answer arrived.

use crate::classify::BodyEnd;
use serde_json::Value;

/// The most response body one exchange keeps: 16 MiB, the classifier's own limit
/// ([`crate::classify::MAX_MESSAGE_BYTES`]). A longer answer is still forwarded to the client,
/// but not written as a case.
pub const MAX_RECORDED_BODY: usize = crate::classify::MAX_MESSAGE_BYTES;

/// The longest wait a written case keeps (`delay_ms`, `event_gap_ms`): 10 s. A recording of a
/// slow server replays no slower than this, so a family of cases stays quick to run.
pub const MAX_RECORDED_WAIT_MS: u64 = 10_000;

/// One `tools/call` request and its answer, as recorded.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// Where it came from, for the case's summary (`http://127.0.0.1:8000/mcp`, `capture.har`).
    pub origin: String,
    /// The request body (a JSON-RPC `tools/call` request with an `id`).
    pub request: Value,
    /// The request's `MCP-Protocol-Version` header, when it had one.
    pub protocol_version: Option<String>,
    /// The status.
    pub status: u16,
    /// The response headers, names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: Vec<u8>,
    /// When the body's pieces arrived: (body length so far, milliseconds after the head). Empty
    /// when unknown (a HAR file); then the events have no gaps.
    pub arrivals: Vec<(usize, u64)>,
    /// Milliseconds from the request leaving to the response head arriving.
    pub head_ms: u64,
    /// Whether the body ended properly.
    pub end: BodyEnd,
    /// When the client closed its connection with the answer unfinished: milliseconds after the
    /// request went upstream. The answer is then what the server had sent by then, a stall.
    pub client_left_ms: Option<u64>,
}

impl Exchange {
    /// The first response header with this (lowercase) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The request's id (`null` when it has none).
    pub fn request_id(&self) -> Value {
        self.request.get("id").cloned().unwrap_or(Value::Null)
    }

    /// The called tool's name, when the request names one.
    pub fn tool_name(&self) -> Option<&str> {
        self.request.pointer("/params/name").and_then(Value::as_str)
    }

    /// Why the request cannot be replayed as a case, if it cannot: its id is not one a
    /// client's id can stand in for (a string, or an integer within 64 bits; `null` or a
    /// fraction matches no request), it names no tool, or its `arguments` are not an object
    /// (MCP's are).
    pub fn unusable(&self) -> Option<String> {
        let id = self.request_id();
        let id_ok = id.is_string() || id.is_i64() || id.is_u64();
        if !id_ok {
            return Some(format!(
                "the request's id {id} is not a string or an integer within 64 bits, so no \
                 client's request can stand for it"
            ));
        }
        if self.tool_name().is_none_or(str::is_empty) {
            return Some(
                "the request names no tool (params.name is missing, empty or not a string)"
                    .to_owned(),
            );
        }
        match self.request.pointer("/params/arguments") {
            None | Some(Value::Object(_)) => None,
            Some(other) => Some(format!(
                "the request's params.arguments is {}, not an object as MCP's tools/call \
                 arguments are",
                crate::classify::text::kind(other)
            )),
        }
    }

    /// When the body's first `len` bytes had all arrived, in milliseconds after the head.
    pub fn arrived_by(&self, len: usize) -> Option<u64> {
        self.arrivals
            .iter()
            .find(|(end, _)| *end >= len)
            .map(|(_, ms)| *ms)
    }
}

/// Whether a JSON-RPC message is a `tools/call` request (with an id: a notification is not
/// answered).
pub fn is_tool_call(message: &Value) -> bool {
    message.get("method").and_then(Value::as_str) == Some("tools/call")
        && message.get("id").is_some()
}

/// Milliseconds, bounded by [`MAX_RECORDED_WAIT_MS`].
pub fn bounded_ms(ms: u64) -> u64 {
    ms.min(MAX_RECORDED_WAIT_MS)
}

/// A `tools/call` exchange with id 3 answered 200 with `body` of `content_type`, for tests.
#[cfg(test)]
pub fn sample(content_type: &str, body: &str) -> Exchange {
    Exchange {
        origin: "test".into(),
        request: serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"}),
        protocol_version: None,
        status: 200,
        headers: vec![
            ("content-type".into(), content_type.into()),
            ("date".into(), "Fri, 04 Dec 2026 18:00:00 GMT".into()),
            ("x-kept".into(), "yes".into()),
        ],
        body: body.as_bytes().to_vec(),
        arrivals: Vec::new(),
        head_ms: 7,
        end: BodyEnd::Complete,
        client_left_ms: None,
    }
}

//! What the wire server saw and sent: one exchange per request.

use serde::Serialize;

/// One request and what the server did about it.
#[derive(Debug, Clone, Serialize)]
pub struct Exchange {
    /// Milliseconds since the server started.
    pub at_ms: u64,
    /// Which call of the case was current (0-based).
    pub call: usize,
    /// The HTTP method.
    pub http_method: String,
    /// The request target.
    pub path: String,
    /// The JSON-RPC method, when the body had one.
    pub jsonrpc_method: Option<String>,
    /// The headers as received (names lowercased).
    pub headers: Vec<(String, String)>,
    /// The body as text (lossy UTF-8).
    pub body: String,
    /// What the server answered.
    pub reply: Sent,
}

/// What the server wrote back.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Sent {
    /// Who answered: `script` (a case reply), `resume` (a case's answer to a GET), `prelude`
    /// or `error`.
    pub by: &'static str,
    /// The status, when a status line went out.
    pub status: Option<u16>,
    /// How the exchange ended: `complete`, `close`, `reset`, `stall` or `cut`.
    pub end: &'static str,
    /// The bytes written (head and body as text, capped).
    pub bytes: String,
    /// When the exchange ended, in milliseconds since the server started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_ms: Option<u64>,
    /// Which scripted reply answered (`call.reply[i]`, or `call.resume[i]` for a GET).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_index: Option<usize>,
    /// The session id an `initialize` answer minted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl Exchange {
    /// Whether this is a `tools/call` POST.
    pub fn is_tool_call(&self) -> bool {
        self.http_method == "POST" && self.jsonrpc_method.as_deref() == Some("tools/call")
    }

    /// Whether this is a GET that resumes an SSE stream (it names a `Last-Event-ID`).
    pub fn is_resumption(&self) -> bool {
        self.http_method == "GET" && self.header("last-event-id").is_some()
    }

    /// The first header with this lowercase name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

//! The 2025 session era: `initialize`, `notifications/initialized`, then `tools/call`.

use super::exchange::{Reply, exchange, read, send_failure};
use super::{ReferenceAdapter, Run, wire};
use crate::classify::Classification;
use crate::outcome::Outcome;
use reqwest::header::{CONTENT_TYPE, HeaderValue};
use serde_json::Value;
use tokio::time::timeout_at;

/// What `initialize` settled: the version to speak and the session to name.
#[derive(Debug)]
struct Session {
    version: String,
    id: Option<HeaderValue>,
}

impl Run<'_> {
    /// The session-era call: the handshake, then one `tools/call` inside the session.
    pub(super) async fn session_call(&mut self) -> Classification {
        let prelude = match self.initialize().await {
            Ok(session) => self.initialized(&session).await.map(|()| session),
            Err(failure) => Err(failure),
        };
        match prelude {
            Ok(session) => self.call_in(&session).await,
            Err(mut failure) => {
                failure.reason = format!("initialize: {}", failure.reason);
                failure
            }
        }
    }

    /// `initialize`: offers the preferred version, takes the server's version and session id.
    async fn initialize(&mut self) -> Result<Session, Classification> {
        let id = self.next_id();
        let body = wire::initialize(&id, &self.ctx.protocol_version);
        let reply = exchange(self.post(&body), &id, &self.deadline).await;
        if !is_result(reply.classification.outcome) {
            return Err(reply.classification);
        }
        let version = negotiated_version(&reply, &id)?;
        let session_id = reply.headers.as_ref().and_then(|h| h.get(wire::SESSION_ID));
        Ok(Session {
            version,
            id: session_id.cloned(),
        })
    }

    /// `notifications/initialized`: any 2xx is acceptance (the spec says 202, with no body).
    async fn initialized(&self, session: &Session) -> Result<(), Classification> {
        let request = self.in_session(self.post(&wire::initialized()), session);
        let response = match timeout_at(self.deadline.at(), request.send()).await {
            Err(_elapsed) => {
                return Err(self.deadline.headless_timeout("answer to the notification"));
            }
            Ok(Err(err)) => return Err(send_failure(err)),
            Ok(Ok(response)) => response,
        };
        if response.status().is_success() {
            return Ok(());
        }
        // A notification has no id: the classifier reads the error status and any error body.
        let mut failure = read(response, &Value::Null, &self.deadline)
            .await
            .classification;
        failure.reason = format!("notifications/initialized: {}", failure.reason);
        Err(failure)
    }

    /// `tools/call` inside the session: the negotiated version in the header, no `_meta`
    /// protocol fields (those belong to 2026-07-28).
    async fn call_in(&mut self, session: &Session) -> Classification {
        let id = self.next_id();
        let body = wire::tools_call(
            &id,
            &self.ctx.tool,
            &self.ctx.arguments,
            wire::session_meta(&id),
        );
        let request = self.in_session(self.post(&body), session);
        exchange(request, &id, &self.deadline).await.classification
    }

    /// Adds the headers every request after `initialize` carries.
    fn in_session(
        &self,
        request: reqwest::RequestBuilder,
        session: &Session,
    ) -> reqwest::RequestBuilder {
        let request = request.header(wire::PROTOCOL_VERSION, &session.version);
        match &session.id {
            Some(id) => request.header(wire::SESSION_ID, id.clone()),
            None => request,
        }
    }
}

/// Whether the classifier saw a well-formed JSON-RPC `result` for the request.
///
/// The classifier judges every result as a `CallToolResult`; an `InitializeResult` has no
/// `content`, so it comes out as `INVALID_TOOL_RESULT`. Every outcome from that layer on means
/// the envelope was a result; everything before it is a failure of the handshake.
fn is_result(outcome: Outcome) -> bool {
    matches!(
        outcome,
        Outcome::InvalidToolResult
            | Outcome::InputRequired
            | Outcome::ToolError
            | Outcome::ToolSuccess
    )
}

/// The protocol version in the `InitializeResult`, if this client speaks it.
fn negotiated_version(reply: &Reply, id: &Value) -> Result<String, Classification> {
    let content_type = reply
        .headers
        .as_ref()
        .and_then(|h| h.get(CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let result = find_result(&reply.body, content_type, id);
    let version = result
        .as_ref()
        .and_then(|r| r.get("protocolVersion"))
        .and_then(Value::as_str);
    match version {
        Some(v) if ReferenceAdapter::SESSION_VERSIONS.contains(&v) => Ok(v.to_owned()),
        Some(v) => Err(bad_result(
            reply,
            format!("the server chose protocol version {v:?}, which this client does not speak"),
        )),
        None => Err(bad_result(
            reply,
            "the result has no string protocolVersion".into(),
        )),
    }
}

/// A well-formed result that is no usable `InitializeResult`.
///
/// The vocabulary has no word for "invalid initialize result"; `INVALID_TOOL_RESULT` is the
/// nearest: a protocol-layer result that does not have the shape its request requires.
fn bad_result(reply: &Reply, reason: String) -> Classification {
    Classification {
        outcome: Outcome::InvalidToolResult,
        status: reply.classification.status,
        code: None,
        reason,
    }
}

/// The `result` of the response to `id` in a JSON or SSE body.
fn find_result(body: &[u8], content_type: &str, id: &Value) -> Option<Value> {
    let text = String::from_utf8_lossy(body);
    let is_sse = content_type
        .trim_start()
        .to_ascii_lowercase()
        .starts_with("text/event-stream");
    let messages: Vec<String> = if is_sse {
        sse_data(&text)
    } else {
        vec![text.into_owned()]
    };
    messages
        .iter()
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|message| message.get("id") == Some(id))
        .and_then(|mut message| message.get_mut("result").map(Value::take))
}

/// The `data` of each SSE event in `text` (the classifier already vouched for the framing; this
/// only needs to find the response again).
fn sse_data(text: &str) -> Vec<String> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    normalized
        .split("\n\n")
        .map(|event| {
            event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|data| !data.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_the_result_in_an_sse_body_after_a_notification() {
        let body = b": keep-alive\r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{\"protocolVersion\":\"2025-06-18\"}}\r\n\r\n";
        let result = find_result(body, "text/event-stream", &json!(1));
        assert_eq!(result, Some(json!({"protocolVersion": "2025-06-18"})));
    }

    #[test]
    fn finds_the_result_in_a_json_body_and_checks_the_id() {
        let body = br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#;
        let found = find_result(body, "application/json; charset=utf-8", &json!(1));
        assert_eq!(found, Some(json!({"protocolVersion": "2025-11-25"})));
        assert_eq!(find_result(body, "application/json", &json!(2)), None);
    }
}

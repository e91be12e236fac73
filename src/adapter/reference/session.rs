//! The 2025 session handshake: `initialize`, then `notifications/initialized`.

use super::exchange::{exchange, read, send_failure};
use super::{Run, body, prefixed, wire};
use crate::classify::Classification;
use crate::outcome::Outcome;
use reqwest::header::HeaderValue;
use serde_json::Value;
use tokio::time::timeout_at;

/// How long a cancel notice may take once the call's deadline has passed.
const CANCEL_WITHIN: std::time::Duration = std::time::Duration::from_millis(500);

/// What `initialize` settled: the version to speak and the session to name.
#[derive(Debug, Clone)]
pub(super) struct Session {
    pub(super) version: String,
    pub(super) id: Option<HeaderValue>,
    /// Whether the server declared task-augmented `tools/call` (`tasks.requests.tools.call`).
    pub(super) tasks: bool,
}

impl Run<'_> {
    /// The handshake: `initialize` offering `version`, then the notification.
    pub(super) async fn open_session(&mut self, version: &str) -> Result<Session, Classification> {
        let session = self
            .initialize(version)
            .await
            .map_err(|failure| prefixed(failure, "initialize"))?;
        self.initialized(&session).await?;
        Ok(session)
    }

    /// `initialize`: offers `version`, takes the server's version and session id.
    async fn initialize(&mut self, version: &str) -> Result<Session, Classification> {
        let id = self.next_id();
        let request = wire::initialize(&id, version);
        let reply = exchange(self.post(&request), &id, &self.deadline, None).await;
        if !is_result(reply.classification.outcome) {
            return Err(reply.classification);
        }
        let result = body::result(&reply, &id);
        let version = negotiated_version(result.as_ref(), &reply.classification)?;
        let session_id = reply.headers.as_ref().and_then(|h| h.get(wire::SESSION_ID));
        let tasks = result
            .as_ref()
            .and_then(|r| r.pointer("/capabilities/tasks/requests/tools/call"))
            .is_some();
        Ok(Session {
            version,
            id: session_id.cloned(),
            tasks,
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
        let failure = read(response, &Value::Null, &self.deadline, None).await;
        Err(prefixed(
            failure.classification,
            "notifications/initialized",
        ))
    }

    /// `notifications/cancelled` for a `tools/call` this client gave up on (2025-11-25
    /// basic/utilities/cancellation: it SHOULD say so, so the server can stop the work; never
    /// for `initialize`), saying `why`. The call's deadline may have passed, so the notice has
    /// a short bound of its own, and its answer does not matter.
    pub(super) async fn cancel(&self, id: &Value, session: &Session, why: &str) {
        let notice = wire::cancelled(id, why);
        let request = self.in_session(self.post(&notice), session);
        let _ = tokio::time::timeout(CANCEL_WITHIN, request.send()).await;
    }

    /// How this client POSTs its answers to what the server asks on a stream in `session`
    /// (`server_requests`): with the session's headers.
    pub(super) fn answers_in<'s>(
        &'s self,
        session: &'s Session,
    ) -> impl Fn(&Value) -> reqwest::RequestBuilder + Sync + 's {
        move |body| self.in_session(self.post(body), session)
    }

    /// Adds the headers every request after `initialize` carries.
    pub(super) fn in_session(
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
fn negotiated_version(
    result: Option<&Value>,
    classification: &Classification,
) -> Result<String, Classification> {
    let version = result
        .and_then(|r| r.get("protocolVersion"))
        .and_then(Value::as_str);
    match version {
        Some(v) if crate::era::SESSION_VERSIONS.contains(&v) => Ok(v.to_owned()),
        Some(v) => Err(bad_result(
            classification,
            format!("the server chose protocol version {v:?}, which this client does not speak"),
        )),
        None => Err(bad_result(
            classification,
            "the result has no string protocolVersion".into(),
        )),
    }
}

/// A well-formed result that is no usable `InitializeResult`.
///
/// The vocabulary has no word for "invalid initialize result"; `INVALID_TOOL_RESULT` is the
/// nearest: a protocol-layer result that does not have the shape its request requires.
fn bad_result(classification: &Classification, reason: String) -> Classification {
    Classification {
        outcome: Outcome::InvalidToolResult,
        status: classification.status,
        code: None,
        reason,
    }
}

//! The reference adapter: this project's own MCP client (docs/adapters.md).
//!
//! It speaks 2026-07-28 (stateless `tools/call` POSTs with the `_meta` protocol fields) and the
//! 2025 session era (`initialize`, `notifications/initialized`, then `tools/call` with the
//! session id), and reports what the reference classifier makes of the last answer. Around the
//! single request it does what the spec asks of a client, each in its own module:
//! - `retry` ([`RetryPolicy`]): repeats a call after 503, 429 or a connection error, only for
//!   tools declared read-only or idempotent, at most twice, with backoff or `Retry-After`; and
//!   re-issues a 2026-07-28 request whose stream broke, once, with a new id;
//! - `mrtr`: answers `input_required` with a new request (2026-07-28), a bounded number of
//!   rounds;
//! - `resume`: resumes a 2025 SSE stream that ended early with GET and `Last-Event-ID`;
//! - `lifecycle`: a new session after a 404 (2025), another version after -32022, and a
//!   fallback to `initialize` when a modern request gets a legacy 4xx;
//! - `output_schema`: lists the tools first when asked and judges a structured result against
//!   the tool's `outputSchema`;
//! - `server_requests`: answers what a 2025 server asks on a response stream;
//! - `tasks`: runs a call the application asked for as a task, polls it to its end and cancels
//!   it with `tasks/cancel` when it gives up;
//! - `auth`: holds the client's tokens, sends them on every request, and on a 401 or 403
//!   refreshes, steps up or asks for an interactive authorization, a bounded number of times.

mod auth;
mod body;
mod deadline;
mod exchange;
mod kept;
mod lifecycle;
mod mrtr;
mod output_schema;
mod resume;
mod retry;
mod sent;
mod server_requests;
mod session;
mod stdio;
mod tasks;
mod wire;

pub use retry::RetryPolicy;

use crate::adapter::{Adapter, CallContext};
use crate::classify::Classification;
use crate::era::{Era, MODERN_VERSION};
use crate::observation::AdapterReport;
use crate::outcome::Outcome;
use deadline::Deadline;
use exchange::Reply;
use reqwest::Client;
use serde_json::{Map, Value, json};
use session::Session;
use std::sync::Arc;
use std::time::Duration;

/// This project's own Streamable HTTP client, built on reqwest and the reference classifier.
///
/// One value holds one HTTP client; build it once and reuse it for many calls. The calls of a
/// case share one MCP client ([`CallContext::client`]): its session and request ids carry over
/// from call to call.
#[derive(Debug, Clone)]
pub struct ReferenceAdapter {
    client: Client,
    retry: RetryPolicy,
    mrtr: bool,
    clients: Arc<kept::Clients>,
    stdio: Arc<stdio::Connections>,
}

impl ReferenceAdapter {
    /// A reference client: plain HTTP/1.1, no proxy, no redirects, no transport retries; the
    /// [default retry policy](RetryPolicy::RepeatableTools) and MRTR on.
    pub fn new() -> Self {
        ReferenceAdapter {
            client: build_client(),
            retry: RetryPolicy::default(),
            mrtr: true,
            clients: Arc::default(),
            stdio: Arc::default(),
        }
    }

    /// Runs with this retry policy.
    pub fn with_retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Does not answer `input_required` (a client without MRTR): reports `INPUT_REQUIRED`.
    pub fn without_mrtr(mut self) -> Self {
        self.mrtr = false;
        self
    }
}

impl ReferenceAdapter {
    /// Whether the stdio server of client `id` (kept after its calls: the client was told of
    /// one call more than it made) still answers `tools/list` within `timeout`; the connection
    /// is closed after. A bridge row's `hop-survives` ([`crate::hop`]).
    pub(crate) async fn probe_stdio(&self, id: u64, timeout: Duration) -> Result<(), String> {
        self.stdio.probe(id, timeout).await
    }

    /// Starts the stdio server of `call`'s client and initializes it, within `timeout`, keeping
    /// the connection for the call (a bridge row starts its bridge before the call's clock).
    pub(crate) async fn connect_stdio(
        &self,
        call: &CallContext,
        timeout: Duration,
    ) -> Result<(), String> {
        let era = Era::of(&call.protocol_version)
            .ok_or_else(|| format!("no protocol version {:?}", call.protocol_version))?;
        self.stdio.connect(call, era, timeout).await
    }
}

impl Default for ReferenceAdapter {
    fn default() -> Self {
        ReferenceAdapter::new()
    }
}

impl Adapter for ReferenceAdapter {
    fn speaks_stdio(&self) -> bool {
        true
    }

    fn takes_credentials(&self) -> bool {
        true
    }

    async fn call(&self, call: CallContext) -> AdapterReport {
        let Some(era) = Era::of(&call.protocol_version) else {
            return AdapterReport::Unsupported {
                unsupported: format!(
                    "the reference client does not speak protocol version {:?}",
                    call.protocol_version
                ),
            };
        };
        if call.transport == crate::case::Transport::Stdio {
            let answer = self.stdio.call(&call, era).await;
            let observation = answer.classification.into_observation();
            return observation.with_attempts(answer.attempts).into();
        }
        let mut run = Run::new(self, &call, self.clients.take(&call.client));
        let classification = auth::scope(run.authorized_call(era)).await;
        let attempts = run.attempts;
        self.clients.keep(&call.client, run.kept());
        let observation = classification
            .into_observation()
            .with_retry(self.retry.name())
            .with_attempts(attempts);
        observation.into()
    }
}

/// The client's HTTP settings, each chosen so that what the server sees is exactly what this
/// client sent.
fn build_client() -> Client {
    Client::builder()
        // The endpoint is loopback: a proxy from the environment would answer in its place.
        .no_proxy()
        // A 307/308 would re-send the POST: a second tools/call the client did not decide on.
        .redirect(reqwest::redirect::Policy::none())
        // Repeating a request is this client's decision (see `retry`), never the transport's.
        .retry(reqwest::retry::never())
        // A pooled connection the server already closed makes the next request fail (or, if
        // unsent, be retried by hyper): a fresh connection per request keeps outcomes exact.
        .pool_max_idle_per_host(0)
        .user_agent(concat!(
            "mcp-error-layers-reference/",
            env!("CARGO_PKG_VERSION")
        ))
        .build()
        .expect("a plain-HTTP reqwest client with no TLS always builds")
}

/// How a `tools/call` is sent: statelessly, or inside a session.
#[derive(Debug, Clone, Copy)]
enum Mode<'s> {
    Stateless,
    Session(&'s Session),
}

/// The state of one adapter call: its request ids, its one deadline for everything and how many
/// `tools/call` requests it sent.
struct Run<'a> {
    options: &'a ReferenceAdapter,
    ctx: &'a CallContext,
    deadline: Deadline,
    last_id: u64,
    attempts: u32,
    /// Whether this call's `tools/call` goes out as a task (`tasks`).
    task_augmented: bool,
    /// The latest task answer's result: a 2026-07-28 task carries its end in it.
    last_task_answer: Option<Value>,
    /// The session the client is in: the one the case's calls before left (taken by the
    /// first `session_call` that speaks its version), then the last one this call used.
    session: Option<Session>,
    /// The client's token store, in an authorization case.
    auth: Option<auth::Tokens>,
    /// What this call has done about authorization so far.
    rounds: auth::Rounds,
}

impl<'a> Run<'a> {
    fn new(options: &'a ReferenceAdapter, ctx: &'a CallContext, kept: kept::Kept) -> Self {
        Run {
            options,
            ctx,
            deadline: Deadline::after(ctx.timeout),
            last_id: kept.last_id,
            attempts: 0,
            task_augmented: false,
            last_task_answer: None,
            session: kept.session,
            // Seeded when the client is created (the case's first call), the client's own after.
            auth: kept
                .auth
                .or_else(|| ctx.auth.as_ref().map(auth::Tokens::seeded)),
            rounds: auth::Rounds::default(),
        }
    }

    /// The call in its era, again once the client holds a token worth trying after a refusal
    /// (`auth`).
    async fn authorized_call(&mut self, era: Era) -> Classification {
        if self.auth.is_some() {
            self.refresh_if_stale().await;
        }
        loop {
            let _ = auth::take();
            let answer = match era {
                Era::Stateless => self.modern_call().await,
                Era::Session => self.session_call(&self.ctx.protocol_version).await,
            };
            let refused =
                answer.outcome == Outcome::HttpError && matches!(answer.status, Some(401 | 403));
            let challenge = auth::take();
            if !refused || self.auth.is_none() {
                return answer;
            }
            let status = answer.status.unwrap_or_default();
            let challenge = challenge.unwrap_or(auth::Challenge {
                status,
                ..auth::Challenge::default()
            });
            match self.recover(&challenge).await {
                Ok(()) => continue,
                Err(auth::Failure::Timeout(timeout)) => return timeout,
                Err(auth::Failure::GaveUp(why)) => return prefixed(answer, &why),
            }
        }
    }

    /// What the client keeps for the case's next call.
    fn kept(self) -> kept::Kept {
        kept::Kept {
            session: self.session,
            last_id: self.last_id,
            auth: self.auth,
        }
    }

    /// The next request id: integers from 1 within one client, never reused.
    fn next_id(&mut self) -> Value {
        self.last_id += 1;
        json!(self.last_id)
    }

    /// A POST of `body` with the headers every request carries.
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.post_body(body.to_string().into())
    }

    /// A POST of this body with the headers every request carries.
    fn post_body(&self, body: reqwest::Body) -> reqwest::RequestBuilder {
        let post = self.options.client.post(&self.ctx.endpoint);
        self.authorized(post)
            .header(reqwest::header::ACCEPT, wire::ACCEPT)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
    }

    /// Sends one `tools/call` (a new id) with `extra` params (MRTR's answers) and reads its
    /// answer, resuming or re-issuing a broken stream as the era says.
    async fn send_tool_call(&mut self, mode: Mode<'_>, extra: &Map<String, Value>) -> Reply {
        let id = self.next_id();
        let meta = match mode {
            Mode::Stateless => wire::stateless_meta(&id, self.options.mrtr),
            Mode::Session(_) => wire::session_meta(&id),
        };
        let mut body = wire::tools_call(&id, &self.ctx.tool, &self.ctx.arguments, meta, extra);
        self.augment(mode, &mut body["params"]);
        let (body, sent) = sent::body(body.to_string());
        let request = match mode {
            Mode::Stateless => self
                .post_body(body)
                .header(wire::PROTOCOL_VERSION, MODERN_VERSION)
                .header(wire::METHOD, "tools/call")
                .header(wire::NAME, wire::header_safe(&self.ctx.tool)),
            Mode::Session(session) => self.in_session(self.post_body(body), session),
        };
        // A 2025 server may ask the client things on the stream; a 2026-07-28 client answers
        // nothing there (it must not send responses).
        let reply = match mode {
            Mode::Session(session) => {
                let answers = self.answers_in(session);
                exchange::exchange(request, &id, &self.deadline, Some(&answers)).await
            }
            Mode::Stateless => exchange::exchange(request, &id, &self.deadline, None).await,
        };
        // What went out, not what was meant to: a request whose connection never came up, or
        // that the deadline stopped before it was written, did not reach the server.
        if sent.went_out() {
            self.attempts += 1;
        }
        match mode {
            Mode::Session(session) => {
                let reply = self.resume(reply, &id, session).await;
                if sent.went_out()
                    && let Some(why) = gave_up_on(&reply)
                {
                    self.cancel(&id, session, why).await;
                }
                reply
            }
            // Dropping the response closes its stream: that is the 2026-07-28 cancel.
            Mode::Stateless => reply,
        }
    }
}

/// Why this client stops waiting for a 2025 `tools/call` whose response never came, so that
/// the server, which may still be working on it, hears so (2025-11-25 basic/transports:
/// "Disconnection SHOULD NOT be interpreted as the client cancelling its request"): its own
/// timeout passed, or the answer ended without a response to it.
fn gave_up_on(reply: &Reply) -> Option<&'static str> {
    match reply.classification.outcome {
        Outcome::Timeout => Some("the client's timeout passed"),
        Outcome::NoResult => Some("the answer had no body"),
        Outcome::StreamIncomplete => Some("the stream ended without the response"),
        Outcome::InvalidEnvelope if !answers(&reply.body, &reply.id) => {
            Some("the answer was a response to another id")
        }
        _ => None,
    }
}

/// Whether `body` (JSON, or SSE `data:` lines) holds a JSON-RPC message with the id `id`.
fn answers(body: &[u8], id: &Value) -> bool {
    let text = String::from_utf8_lossy(body);
    let has_id =
        |t: &str| serde_json::from_str::<Value>(t.trim()).is_ok_and(|m| m.get("id") == Some(id));
    has_id(&text)
        || text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .any(has_id)
}

/// What a classification says, with `prefix: ` before its reason.
fn prefixed(mut classification: Classification, prefix: &str) -> Classification {
    classification.reason = format!("{prefix}: {}", classification.reason);
    classification
}

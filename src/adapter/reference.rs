//! The reference adapter: this project's own MCP client (design §6).
//!
//! It speaks 2026-07-28 (one stateless `tools/call` POST with the `_meta` protocol fields) and the
//! 2025 session era (`initialize`, `notifications/initialized`, then `tools/call` with the
//! session id), and reports what the reference classifier makes of the `tools/call` response.
//! It never retries a request by itself: the runner counts `tools/call` POSTs.

mod exchange;
mod session;
mod wire;

use crate::adapter::{Adapter, CallContext};
use crate::classify::Classification;
use crate::observation::AdapterReport;
use exchange::{Deadline, exchange};
use reqwest::Client;
use serde_json::{Value, json};

/// This project's own Streamable HTTP client, built on reqwest and the reference classifier.
///
/// One value holds one HTTP client; build it once and reuse it for many calls.
#[derive(Debug, Clone)]
pub struct ReferenceAdapter {
    client: Client,
}

impl ReferenceAdapter {
    /// The stateless protocol version (no `initialize`, `_meta` on every request).
    pub const STATELESS_VERSION: &'static str = "2026-07-28";
    /// The session-era protocol versions (`initialize` handshake and `Mcp-Session-Id`).
    pub const SESSION_VERSIONS: [&'static str; 2] = ["2025-06-18", "2025-11-25"];

    /// A reference client: plain HTTP/1.1, no proxy, no redirects, no retries.
    pub fn new() -> Self {
        ReferenceAdapter {
            client: build_client(),
        }
    }
}

impl Default for ReferenceAdapter {
    fn default() -> Self {
        ReferenceAdapter::new()
    }
}

impl Adapter for ReferenceAdapter {
    async fn call(&self, call: CallContext) -> AdapterReport {
        let Some(era) = Era::of(&call.protocol_version) else {
            return AdapterReport::Unsupported {
                unsupported: format!(
                    "the reference client does not speak protocol version {:?}",
                    call.protocol_version
                ),
            };
        };
        let mut run = Run::new(&self.client, &call);
        let classification = match era {
            Era::Stateless => run.stateless_call().await,
            Era::Session => run.session_call().await,
        };
        classification.into_observation().into()
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

/// Which protocol era a version belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Era {
    Stateless,
    Session,
}

impl Era {
    fn of(version: &str) -> Option<Era> {
        if version == ReferenceAdapter::STATELESS_VERSION {
            Some(Era::Stateless)
        } else if ReferenceAdapter::SESSION_VERSIONS.contains(&version) {
            Some(Era::Session)
        } else {
            None
        }
    }
}

/// The state of one adapter call: its request ids and its one deadline for everything.
struct Run<'a> {
    client: &'a Client,
    ctx: &'a CallContext,
    deadline: Deadline,
    last_id: u64,
}

impl<'a> Run<'a> {
    fn new(client: &'a Client, ctx: &'a CallContext) -> Self {
        Run {
            client,
            ctx,
            deadline: Deadline::after(ctx.timeout),
            last_id: 0,
        }
    }

    /// The next request id: integers from 1 within one adapter call.
    fn next_id(&mut self) -> Value {
        self.last_id += 1;
        json!(self.last_id)
    }

    /// A POST of `body` with the headers every request carries.
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.client
            .post(&self.ctx.endpoint)
            .header(reqwest::header::ACCEPT, wire::ACCEPT)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
    }

    /// 2026-07-28: one `tools/call` that carries its protocol version itself.
    async fn stateless_call(&mut self) -> Classification {
        let id = self.next_id();
        let meta = wire::stateless_meta(&id);
        let body = wire::tools_call(&id, &self.ctx.tool, &self.ctx.arguments, meta);
        let request = self
            .post(&body)
            .header(wire::PROTOCOL_VERSION, ReferenceAdapter::STATELESS_VERSION)
            .header(wire::METHOD, "tools/call")
            .header(wire::NAME, wire::header_safe(&self.ctx.tool));
        exchange(request, &id, &self.deadline).await.classification
    }
}

//! `mcp-error-layers`: a conformance test harness for how MCP clients handle errors.
//!
//! An MCP client that calls a tool over Streamable HTTP can fail in three layers: the HTTP
//! transport (503, 429, a reset), the JSON-RPC envelope (HTTP 200 carrying an `error`, a wrong
//! `id`, bad JSON) and the tool result (`isError: true`, `resultType: "input_required"`). This
//! crate serves synthetic wire responses described by case files on loopback, drives a client
//! against each, and judges what the client reported: one word per call from a closed
//! vocabulary ([`Outcome`]), compared with what a correct client reports.
//!
//! For a Rust client project it is one dev-dependency and one test file: every case becomes a
//! test of your `cargo test`.
//!
//! - [Tutorial: your client in `cargo test`](#tutorial-your-client-in-cargo-test)
//! - [Writing an adapter](#writing-an-adapter) ([what a request must
//!   carry](#what-a-request-must-carry); for a [reqwest](#a-reqwest-based-client) or an
//!   [rmcp](#an-rmcp-client) client)
//! - [Configuration](#configuration)
//! - [Your own cases](#your-own-cases)
//! - [Snapshots](#snapshots)
//! - [The baseline: accepted deviations](#the-baseline-accepted-deviations)
//! - [Reports](#reports)
//! - [Implicit (and possibly surprising) behavior](#implicit-and-possibly-surprising-behavior)
//! - [Known limitations](#known-limitations)
//! - [The public API](#the-public-api)
//!
//! # Tutorial: your client in `cargo test`
//!
//! **1. A test target.** In your client crate's `Cargo.toml`:
//!
//! ```toml
//! [dev-dependencies]
//! mcp-error-layers = "0.1"
//!
//! [[test]]
//! name = "mcp_errors"
//! harness = false        # the harness brings its own main
//! ```
//!
//! The default feature `reference-client` builds this crate's own reference client on reqwest.
//! Your tests drive *your* client, so they can leave it out, which saves about 50 crates
//! (129 dependencies to 75 for the tutorial's crate): `mcp-error-layers = { version = "0.1",
//! default-features = false }`.
//!
//! **2. An adapter.** The adapter makes the call each case asks for with *your* client and says
//! what your client made of it. Here `my_client` stands for your client; its `Error` tells
//! a timeout, a connection failure, an HTTP status, a JSON-RPC error and a body that is not JSON
//! apart. `tests/mcp_errors.rs`:
//!
//! ```no_run
//! # mod my_client {
//! #     pub struct Client;
//! #     pub struct ToolResult { pub is_error: bool }
//! #     pub enum Error { Timeout, Connection(String), Status(u16), Rpc(i64), NotJson(String) }
//! #     impl Client {
//! #         pub fn new(_: &str, _: std::time::Duration) -> Self { Client }
//! #         pub async fn call_tool(&self, _: &str, _: serde_json::Value) -> Result<ToolResult, Error> {
//! #             Ok(ToolResult { is_error: false })
//! #         }
//! #     }
//! # }
//! use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};
//! use my_client::Error;
//!
//! async fn adapter(call: CallContext) -> AdapterReport {
//!     let client = my_client::Client::new(&call.endpoint, call.timeout);
//!     AdapterReport::from(match client.call_tool(&call.tool, call.arguments).await {
//!         Ok(result) if result.is_error => Observation::new(Outcome::ToolError),
//!         Ok(_) => Observation::new(Outcome::ToolSuccess),
//!         Err(Error::Timeout) => Observation::new(Outcome::Timeout),
//!         Err(Error::Connection(why)) => Observation::new(Outcome::ConnectionError).with_detail(why),
//!         Err(Error::Status(status)) => Observation::new(Outcome::HttpError).with_status(status),
//!         Err(Error::Rpc(code)) => Observation::new(Outcome::JsonrpcError).with_code(code),
//!         Err(Error::NotJson(why)) => Observation::new(Outcome::MalformedJson).with_detail(why),
//!     })
//! }
//!
//! mcp_error_layers::main!(adapter);
//! ```
//!
//! [`main!`] expands to the test binary's `main`. The adapter can be an `async fn` like this
//! one, an async closure (`|call: CallContext| async move { … }`), or a value of your own type
//! that implements [`Adapter`].
//!
//! **3. Run it.** `cargo test --test mcp_errors` runs one test per case, named after the case
//! and tagged with its grade. The very first run fails every test with `snapshot
//! tests/snapshots/mcp-error-layers/….snap is new`: each case's observed behaviour is kept as an
//! [insta](https://insta.rs) snapshot, and there are none yet. Look at them with
//! `cargo insta review` (from `cargo install cargo-insta`), or accept them all with
//! `INSTA_UPDATE=always cargo test --test mcp_errors`, and commit the folder. From then on a
//! snapshot fails a test only when the client's behaviour changes, and the verdicts speak.
//! `examples/tutorial.rs` (in this crate's source) is this tutorial runnable, with a small
//! reqwest client as `my_client` and step 4 below; `cargo run --example tutorial` prints:
//!
//! ```text
//! running 195 tests
//! test [must]   accepted/empty-200                               ... FAILED
//! …
//! test [must]   jsonrpc/invalid-params                           ... ok
//! …
//! test [must]   sse/final-result                                 ... FAILED
//! …
//! test result: FAILED. 54 passed; 36 failed; 105 ignored; 0 measured; 0 filtered out; finished in 7.55s
//!
//! mcp-error-layers: my-client: 195 cases: 24 passed, 0 accepted, 30 warnings, 36 failed, 105 skipped; hangs 0, adapter errors 0; 0 snapshots changed
//! ```
//!
//! The warnings are SHOULD-grade mismatches: they pass with a `warning:` on stderr unless the
//! run is strict. Filters work as for any test: `cargo test --test mcp_errors -- sse/`
//! runs the SSE cases, `-- --exact tool/success` one case, `-- --list` lists them;
//! cargo-nextest runs them too.
//!
//! **4. Say what the client cannot do.** A client that speaks only some protocol versions, or
//! has no way to express a case, returns [`AdapterReport::Unsupported`]; the case is then
//! reported as ignored with that reason, never as a pass:
//!
//! ```
//! # use mcp_error_layers::{AdapterReport, CallContext};
//! # fn check(call: &CallContext) -> Option<AdapterReport> {
//! if call.protocol_version != "2026-07-28" {
//!     let why = "my_client speaks only 2026-07-28".to_owned();
//!     return Some(AdapterReport::Unsupported { unsupported: why });
//! }
//! # None }
//! ```
//!
//! **5. Read a failure.** A failing test says what a correct client reports, what yours
//! reported, and what the server received and sent. The tutorial's client reads every body as
//! JSON, so an answer that comes as an SSE stream fails:
//!
//! ```text
//! ---- sse/final-result ----
//! fail (must): HTTP 200 text/event-stream with one event: the final result
//! call 0: fail
//!   expected: TOOL_SUCCESS tool_posts=1
//!   observed: MALFORMED_JSON tool_posts=1 ("expected value at line 1 column 1")
//!   - outcome: expected TOOL_SUCCESS, observed MALFORMED_JSON
//! transcript:
//! → POST /mcp tools/call (call 0, +0 ms)
//!     accept: application/json, text/event-stream
//!     content-type: application/json
//!     mcp-protocol-version: 2026-07-28
//!     mcp-method: tools/call
//!     mcp-name: synthetic
//!     {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"synthetic",…
//! ← 200 by script, ended: complete
//!     HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n…
//! ```
//!
//! Then fix the client, or, while a fix is pending, list the case in the
//! [baseline](#the-baseline-accepted-deviations) with the reason.
//!
//! # Writing an adapter
//!
//! An adapter gets a [`CallContext`] per call: the endpoint URL (a fresh `127.0.0.1` port per
//! case), the tool name and arguments, the protocol version to prefer, and a timeout the client
//! should apply to the whole call. It makes that call with the client under test and returns
//! what the client reported as an [`Observation`]: the outcome word, the HTTP status and
//! JSON-RPC code when the client knows them, and a free-text `detail`. It is never told the
//! case's id or expectation, and it must not guess them: the point is what *the client*
//! surfaces.
//!
//! | what your client surfaces | report |
//! |---|---|
//! | a result, `isError` absent or false | [`Outcome::ToolSuccess`] |
//! | a result with `isError: true` | [`Outcome::ToolError`] |
//! | "needs input" (`resultType: "input_required"`) | [`Outcome::InputRequired`] |
//! | a JSON-RPC error object (with its code) | [`Outcome::JsonrpcError`] + `with_code` |
//! | a non-2xx status (with the body's JSON-RPC code, if read) | [`Outcome::HttpError`] + `with_status` |
//! | no response at all (refused, reset) | [`Outcome::ConnectionError`] |
//! | its own timeout | [`Outcome::Timeout`] |
//! | a body or stream that ended early | [`Outcome::StreamIncomplete`] |
//! | an error that does not say which layer | [`Outcome::UnclassifiedError`] |
//!
//! The full vocabulary, with the layer each word belongs to, is [`Outcome`]; `NO_RESULT`,
//! `UNEXPECTED_CONTENT_TYPE`, `MALFORMED_JSON`, `INVALID_ENVELOPE` and `INVALID_TOOL_RESULT` are
//! for clients that tell those apart. When the client's error type hides the layer, report
//! [`Outcome::UnclassifiedError`] rather than a guess: a guess that happens to match would pass
//! a case the client does not really handle.
//!
//! Besides the outcome, every call is judged on what the client *sent*: see
//! [What a request must carry](#what-a-request-must-carry). The context's `annotations` say
//! whether the tool is read-only or idempotent ([`CallContext::is_repeatable`]), for a client
//! whose retry policy rests on them; an observation may name that policy (`with_retry`) and
//! count its requests (`with_attempts`, held against what the server received).
//!
//! A call with [`CallContext::task`] set asks for a task (cases/README.md, "Tasks"): a client
//! with a task API calls the tool through it and reports the outcome of the call the task
//! stands for (a `failed` task's error as [`Outcome::JsonrpcError`], a task the server
//! cancelled as [`Outcome::TaskCancelled`]); one without reports `AdapterReport::Unsupported`
//! with why. `task` is `None` for every other call.
//!
//! The future is polled on a tokio runtime (current-thread, one per case, time and I/O
//! enabled), under a deadline of the call's timeout plus a margin; when the deadline passes the
//! future is dropped and the call is a `hang`. A panic inside it is an `adapter-error`. It must
//! be `Send`.
//!
//! ## What a request must carry
//!
//! The server judges each request the client sends by named checks. A failed check fails the
//! call and is named in the failure (`check meta-fields (must): request 1 (tools/call): …`); a
//! `must` check then fails the run, a `should` check gives a warning unless the run is strict,
//! and a [baseline](#the-baseline-accepted-deviations) can accept a check by name (`[checks]`).
//! What is required depends on the era of [`CallContext::protocol_version`]: 2026-07-28 is
//! stateless, every request carrying its own version and capabilities; 2025-11-25 and 2025-06-18
//! open a session with `initialize` (a 2026-07-28 call that falls back to `initialize` is judged
//! by the session rules from there).
//!
//! | era | the client sends | check | grade |
//! |---|---|---|---|
//! | all | `Accept` listing `application/json` and `text/event-stream`, on every POST | `accept-header` | must |
//! | 2026-07-28 | `params._meta` with `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities` (`{}` for none) | `meta-fields` | must |
//! | 2026-07-28 | `params._meta` with `io.modelcontextprotocol/clientInfo` (`name`, `version`) | `client-info` | should |
//! | 2026-07-28 | `MCP-Protocol-Version` equal to the `_meta` version | `version-header` | must |
//! | 2026-07-28 | `Mcp-Method` equal to the JSON-RPC method | `method-header` | must |
//! | 2026-07-28 | `Mcp-Name` equal to the tool name on `tools/call` (or `=?base64?…?=`) | `name-header` | must |
//! | 2026-07-28 | after a modern `400`/`404` error: no fall back to `initialize` | `no-legacy-fallback` | should |
//! | 2026-07-28 | after -32022 listing supported versions: a retry in a listed one | `supported-version-retry` | should |
//! | 2026-07-28 | after a `400`/`404`/`405` without a modern error: `initialize` | `legacy-fallback` | should |
//! | 2026-07-28 | after `400` with -32020 (HeaderMismatch): `tools/list`, then the request again | `header-mismatch-refresh` | should |
//! | 2025 | `initialize` first | `initialize-first` | must |
//! | 2025 | `notifications/initialized` before the next request | `initialized-notification` | must |
//! | 2025 | the session's `Mcp-Session-Id` on every later POST | `session-id` | must |
//! | 2025 | the negotiated `MCP-Protocol-Version` on every later POST | `session-version-header` | must |
//! | 2025 | after a `404` to a request in a session: a new `initialize` | `session-expiry-reinitialize` | must |
//! | 2025 | after that `404`: never the expired session id again | `session-expiry-stale-id` | must |
//! | 2025 | after the new `initialize`: the request the `404` answered, again | `session-expiry-resend` | should |
//! | 2025 | a resuming GET's `Last-Event-ID`: the stream's last event id | `resume-last-event-id` | should |
//! | 2025 | a resuming GET: no sooner than the stream's `retry` | `resume-waits-retry` | must |
//! | 2025 | after giving up on a `tools/call` that got no response (a timeout, no body, another id, a stream that ended): `notifications/cancelled` naming it | `cancel-after-timeout` | should |
//! | 2025 | never a `notifications/cancelled` for `initialize` | `no-cancel-initialize` | must |
//! | 2025 | to a `ping` on a `tools/call` stream: an empty result with its id, before the result | `ping-answered` | must |
//! | 2025 | to an `elicitation/create` in an undeclared mode: error -32602 with its id | `elicitation-answered` | must |
//! | 2025 | to a `roots/list` without `roots`: error -32601 with its id | `roots-answered` | should |
//! | 2025 | to a `sampling/createMessage` without `sampling`: an error with its id | `sampling-answered` | should |
//! | stdio | read the server's stderr: a 1 MiB flood must not block it | `stdio-stderr-drained` | must |
//! | stdio | report the server's exit, kill or closed stdout within 2 s, not at the timeout | `stdio-exit-reported` | should |
//! | stdio | after the server died: the next call starts a new one, or fails within 2 s | `stdio-next-call-after-exit` | must |
//! | 2026-07-28 | no JSON-RPC response, even to a request on the stream | `no-modern-response` | must |
//! | 2026-07-28 | after giving up on a stalled response stream: close it | `timeout-closes-stream` | should |
//! | all | each `tools/call` after the first in a call: a new `id` | `new-request-id` | must |
//! | 2026-07-28 | after `input_required`: `requestState` echoed exactly (or none) | `mrtr-request-state` | must |
//! | 2026-07-28 | after `input_required` with `inputRequests`: an answer per key | `mrtr-input-responses` | must |
//! | 2025-11-25, 2026-07-28 | a task's polls: no sooner than its `pollInterval(Ms)`, 50 ms apart when it asks for 0 or nothing | `task-poll-interval` | should |
//! | 2025-11-25, 2026-07-28 | a task's polls: until a terminal status (or an error answer, a `tasks/result` answer, a cancel) | `task-polls-to-terminal` | should |
//! | 2025-11-25, 2026-07-28 | after giving up on a task: `tasks/cancel`, never `notifications/cancelled` | `task-cancel-not-notification` | should |
//! | 2026-07-28 | `Mcp-Name` equal to `params.taskId` on `tasks/get`, `tasks/update`, `tasks/cancel` | `task-name-header` | must |
//! | 2026-07-28 | never `tasks/result` (the tasks extension removed it) | `no-tasks-result-2026` | must |
//! | all, with `[auth]` | `Authorization: Bearer` on every MCP request while it holds a token | `auth-header` | must |
//! | all, with `[auth]` | never the token in the query string | `auth-not-in-query` | must |
//! | all, with `[auth]` | `resource` (the MCP endpoint) in every token and authorization request | `auth-token-resource` | must |
//! | all, with `[auth]` | on a 401 with a refresh token held: the refresh grant before any interactive authorization | `auth-refresh-first` | must |
//! | all, with `[auth]` | never a refresh token that rotation replaced | `auth-rotated-refresh` | must |
//! | all, with `[auth]` | per call at most 3 refused requests, 3 token requests, 1 interactive authorization | `auth-attempts-bounded` | must |
//! | all, with `[auth]` | after a 403 `insufficient_scope`: a token or authorization request | `auth-step-up-attempted` | should |
//! | all, with `[auth]` | each token or authorization request after it names the challenged scopes | `auth-step-up-scope` | must |
//! | all, with `[auth]` | nothing sent to endpoints of metadata whose `issuer` is not the server's | `auth-issuer-checked` | must |
//! | all, with `[auth]` | after a 401 or 403, no GET outside a session (legacy HTTP+SSE) | `auth-no-legacy-fallback` | should |
//!
//! `docs/adapters.md` of this crate has the same per era, with a minimal request, and
//! `cases/README.md` the exact rule of each check. The client in `examples/tutorial.rs` and the
//! adapter below send what 2026-07-28 asks for.
//!
//! ## A reqwest-based client
//!
//! Build the client so that what the server sees is what your client decided: a proxy from the
//! environment would answer for the loopback endpoint, and automatic redirects or retries send
//! `tools/call` POSTs your code never asked for (the cases count them: `tool_posts`). A value
//! of your own type keeps one `reqwest::Client` for every call:
//!
//! ```no_run
//! use mcp_error_layers::{Adapter, AdapterReport, CallContext, Observation, Outcome};
//!
//! struct MyAdapter {
//!     http: reqwest::Client,
//! }
//!
//! impl Adapter for MyAdapter {
//!     async fn call(&self, call: CallContext) -> AdapterReport {
//!         // A 2026-07-28 request; `Mcp-Name` as is works for printable ASCII tool names.
//!         let meta = serde_json::json!({
//!             "io.modelcontextprotocol/protocolVersion": "2026-07-28",
//!             "io.modelcontextprotocol/clientCapabilities": {},
//!             "io.modelcontextprotocol/clientInfo": {"name": "my-client", "version": "1.0.0"},
//!         });
//!         let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
//!             "params": {"name": call.tool, "arguments": call.arguments, "_meta": meta}});
//!         let sent = self.http.post(&call.endpoint)
//!             .header("accept", "application/json, text/event-stream")
//!             .header("content-type", "application/json")
//!             .header("mcp-protocol-version", "2026-07-28")
//!             .header("mcp-method", "tools/call")
//!             .header("mcp-name", &call.tool)
//!             .body(body.to_string())
//!             .timeout(call.timeout)
//!             .send()
//!             .await;
//!         let observation = match sent {
//!             Err(e) if e.is_timeout() => Observation::new(Outcome::Timeout),
//!             Err(e) => Observation::new(Outcome::ConnectionError).with_detail(e.to_string()),
//!             Ok(r) if !r.status().is_success() => {
//!                 Observation::new(Outcome::HttpError).with_status(r.status().as_u16())
//!             }
//!             // Hand the response to your client's own reading and map its result here.
//!             Ok(_) => Observation::new(Outcome::UnclassifiedError),
//!         };
//!         observation.into()
//!     }
//! }
//!
//! mcp_error_layers::main!(MyAdapter {
//!     http: reqwest::Client::builder()
//!         .no_proxy()
//!         .redirect(reqwest::redirect::Policy::none())
//!         .build()
//!         .unwrap(),
//! });
//! ```
//!
//! Two reqwest habits show up as failures: `response.text()` (or `.json()`) waits for the body
//! to end, and an SSE stream that stays open after the response never ends (`sse/open-after-response`
//! hangs); and `error_for_status()` drops the body, so the JSON-RPC code of a 4xx/5xx answer is
//! lost (`transport/http-404-method-not-found`). Reading an SSE body as it arrives and deciding
//! at the first JSON-RPC response fixes the first. A client that wants the spec's rules without
//! writing them can feed response chunks to [`classify::Classifier`], the reference classifier,
//! as this crate's own reference client does.
//!
//! ## An rmcp client
//!
//! An adapter for a client built on rmcp (the official Rust SDK) drives rmcp's public client
//! API and maps what it surfaces. The names below follow rmcp's recent releases; check them
//! against the version you use:
//!
//! 1. Connect with `StreamableHttpClientTransport::from_uri(call.endpoint)` and start the client
//!    service on it (`().serve(transport)`, or your `ClientHandler`), which runs the
//!    `initialize` handshake. rmcp negotiates its own protocol version: for a case whose
//!    `call.protocol_version` rmcp cannot speak, return `AdapterReport::Unsupported`.
//! 2. Call `call_tool` with the tool name and `call.arguments` (a JSON object), inside
//!    `tokio::time::timeout(call.timeout, …)`, so that a stalled stream ends as `TIMEOUT`
//!    instead of a `hang`. Count the handshake in the same deadline.
//! 3. Map the result: `Ok(result)` is `TOOL_ERROR` when `result.is_error == Some(true)`, else
//!    `TOOL_SUCCESS` (or `INPUT_REQUIRED` where rmcp exposes it); `Err(ServiceError::McpError(e))`
//!    is `JSONRPC_ERROR` with `e.code.0`; an elapsed timeout is `TIMEOUT`; a transport error
//!    whose source chain carries an HTTP status (rmcp's streamable-HTTP error type) is
//!    `HTTP_ERROR` with it; anything else is `UNCLASSIFIED_ERROR` with the error chain as
//!    detail.
//!
//! rmcp spawns tasks with `tokio::spawn`; that works on the runner's current-thread runtime,
//! which ends with the case, so close the service at the end of the call (`cancel().await`).
//! This crate's repository keeps a complete rmcp adapter, pinned and out of process, under
//! `harness/adapters/rmcp/`; its mapping is a good starting point.
//!
//! # Configuration
//!
//! The second argument of [`main!`] is a [`Config`]; every part of it is optional:
//!
//! ```no_run
//! # use mcp_error_layers::{AdapterReport, CallContext, Observation, Outcome};
//! # async fn adapter(_: CallContext) -> AdapterReport { Observation::new(Outcome::ToolSuccess).into() }
//! use mcp_error_layers::Config;
//! use std::time::Duration;
//!
//! mcp_error_layers::main!(
//!     adapter,
//!     Config::new()
//!         .cases("tests/mcp-cases")                       // your own cases, next to the built-in ones
//!         .skip("sse/keepalive-forever")                  // a built-in case, or a folder: "sse/"
//!         .baseline("tests/mcp-error-layers.baseline.toml")
//!         .snapshots("tests/snapshots/mcp-error-layers")
//!         .deadline_margin(Duration::from_millis(300))  // past the call's timeout: a hang
//!         .strict(true)                                   // SHOULD-grade mismatches fail too
//!         .adapter_name("my-client")                      // the name in reports
//! );
//! ```
//!
//! Relative paths resolve against your crate's manifest folder. The defaults, and the
//! environment variables that set them:
//!
//! | setting | default |
//! |---|---|
//! | [`Config::cases`] | only the built-in cases (compiled into this crate) |
//! | [`Config::skip`] | nothing skipped |
//! | [`Config::snapshots`] | `tests/snapshots/mcp-error-layers/`; [`Config::no_snapshots`] turns them off |
//! | [`Config::baseline`] | `tests/mcp-error-layers.baseline.toml`, if it exists |
//! | [`Config::strict`] | `MCP_ERROR_LAYERS_STRICT` set to anything but `0` |
//! | [`Config::reports`] | `MCP_ERROR_LAYERS_TAP`, `_JUNIT`, `_JSON`, `_HTML`, `_REPORT_DIR` ([`report::ReportPaths::from_env`]) |
//! | [`Config::deadline_margin`] | one second |
//! | [`Config::default_timeout`] | 5 s, for calls whose case names no timeout |
//! | [`Config::test_threads`] | libtest's (`--test-threads`, else the number of cores) |
//! | [`Config::unavailable`] | the client runs; with a reason, every case is ignored with it |
//! | [`Config::adapter_name`], [`Config::adapter_version`] | your package's name and version |
//!
//! # Your own cases
//!
//! A case is one TOML file: the replies a fake server sends to `tools/call`, and the outcome a
//! correct client reports. The format is the built-in cases' (see `cases/README.md` in this
//! crate's source). Put yours in a folder of your crate and name it with [`Config::cases`]:
//!
//! ```toml
//! # tests/mcp-cases/gateway/slow-503.toml: runs as the test `gateway/slow-503`
//! summary = "Our gateway's 503 after a pause: the client reports the status, and does not retry"
//! grade = "must"
//!
//! [[call]]
//! timeout_ms = 500
//! expect = { outcome = "HTTP_ERROR", status = 503, tool_posts = 1 }
//!
//! [[call.reply]]
//! status = 503
//! delay_ms = 100
//! headers = { "retry-after" = "1" }
//! ```
//!
//! The path under the folder, without `.toml`, is the case's id and test name. An id that is
//! also a built-in case's fails the run; name your folders after your product to avoid it. A
//! file that does not load fails its own test with the key and what is wrong.
//!
//! # Snapshots
//!
//! Each case's record is snapshotted with insta as `<id with / as __>.snap` (`sse/final-result`
//! → `sse__final-result.snap`): each call's verdict and observation (ports redacted), its
//! `tool_posts`, and the requests the server received with their protocol headers
//! (the `SnapshotView` type). A failing or ignored case is snapshotted too, so a change in
//! how the client fails shows up as well. insta's usual rules apply:
//!
//! - `cargo insta review` walks through new and changed snapshots; `cargo insta accept` takes
//!   them all.
//! - `INSTA_UPDATE=always` writes them in place, `new` (the default outside CI) writes
//!   `.snap.new` files for review, `no` (the default on CI) writes nothing; a mismatch fails the
//!   test in every mode but `always`.
//! - `INSTA_FORCE_PASS=1` reports mismatches without failing.
//! - `INSTA_OUTPUT=minimal` (or `none`) shortens what insta prints per new or changed snapshot;
//!   by default it shows each one whole, which on a first run is every case.
//!
//! insta reports a mismatch by panicking; the harness catches that panic and makes it the
//! test's failure, so it prints no `panicked at` line or backtrace (a panic of your adapter
//! still does). A snapshot that passes or is written in place takes its `.snap.new`, now
//! obsolete, with it.
//!
//! # The baseline: accepted deviations
//!
//! A client rarely gets everything right at once. The baseline, a TOML file in your crate
//! (`tests/mcp-error-layers.baseline.toml` by default), lists the cases it may get wrong for
//! now, each with the reason:
//!
//! ```toml
//! # Deviations we accept for now: case id = "why".
//! [accepted]
//! "transport/http-404-method-not-found" = "we drop error bodies, so the JSON-RPC code is lost (#12)"
//! "sse/keepalive-forever" = "no read timeout until the transport rewrite (#31)"
//! ```
//!
//! | the case's verdict | listed | its test |
//! |---|---|---|
//! | pass | no | ok |
//! | pass | yes | **fails**: `… passes now: remove it from the baseline` (unless its reason starts with `racy: `: a case whose verdict differs from run to run, docs/adapters.md) |
//! | fail, hang, adapter-error | yes | ok, with a note on stderr |
//! | fail, hang, adapter-error | no | fails on a MUST case (or any case when strict); a warning otherwise |
//! | unsupported | either | ignored, with the adapter's reason |
//! | the case file does not load | either | fails |
//!
//! A request check your client fails everywhere (it does not send `Mcp-Name` yet, say) is
//! accepted by name, for every case, in a second table; a case whose only failures are
//! accepted checks passes with a note:
//!
//! ```toml
//! [checks]
//! "name-header" = "Mcp-Name comes with the 2026 transport rewrite (#40)"
//! ```
//!
//! Entries are whole case ids (or check names), each with a non-empty reason. The baseline has
//! a test of its own, `mcp-error-layers::baseline`, which runs last: an entry that names no case
//! (a typo, a removed case), an unknown check name, a missing reason, an unknown key or an
//! unreadable file fail it, each named with the fix, and only that entry is lost: the rest of the
//! file still accepts what it lists. On a run of every case it also fails for a `[checks]` entry
//! that no case failed ("remove the entry"). When a fix lands, its case's test fails until you
//! delete the entry, so the baseline only ever shrinks by decision.
//!
//! # Reports
//!
//! After the tests, the run prints its verdict counts:
//!
//! ```text
//! mcp-error-layers: careless-client: 195 cases: 0 passed, 2 accepted, 0 warnings, 88 failed, 105 skipped; hangs 3, adapter errors 3; 0 snapshots changed
//! mcp-error-layers: accepted by the baseline: transport/http-404-method-not-found, transport/http-500-success-body
//! ```
//!
//! Its counts are the words of every summary (`docs/reports.md`, "How a case counts"): passed,
//! accepted and warnings are what libtest counts as passed, failed what it counts as failed,
//! skipped what it ignores; hangs and adapter errors count the cases whose adapter hung or
//! failed, whatever their grade made of it. Every report
//! agrees with it case by case: an accepted deviation is a passing JUnit test case with the
//! reason, and a `# TODO accepted: reason` point in TAP, so that CI reporters show it green with
//! the note.
//!
//! and, when any report path is set, writes TAP, JUnit, JSON and HTML reports of every case
//! that ran (libtest rejects flags it does not know, so the paths come from environment
//! variables, or from [`Config::reports`]):
//!
//! ```text
//! MCP_ERROR_LAYERS_REPORT_DIR=target/mcp cargo test --test mcp_errors
//! MCP_ERROR_LAYERS_JUNIT=target/mcp.xml cargo test --test mcp_errors
//! ```
//!
//! # Implicit (and possibly surprising) behavior
//!
//! - Relative paths in the [`Config`] resolve against your crate's manifest folder, wherever
//!   `cargo test` runs from; the macro captures it at compile time.
//! - A test's name is the case id; the listed name also carries the grade (`[must] tool/success`),
//!   so `cargo test -- should` selects the SHOULD cases.
//! - A SHOULD-grade mismatch passes with a `warning:` on stderr unless the run is strict; INFO
//!   never fails.
//! - Skipped built-in cases are listed as ignored; `cargo test -- --ignored` runs them anyway.
//! - The test `mcp-error-layers::config` exists when the configuration names folders or skips;
//!   it fails with every problem found in them. `mcp-error-layers::baseline` exists when there is
//!   a baseline file, runs after every case and fails with the baseline's problems.
//! - A test can fail for two reasons at once, its verdict and its snapshot; the message has both.
//! - With `--list` nothing runs and no report is written; with a filter the reports hold only
//!   the cases that ran.
//!
//! # Known limitations
//!
//! - An in-process adapter must do its waiting asynchronously: the runner ends a hanging call by
//!   dropping its future, and cannot interrupt a blocking call (`std::thread::sleep`, blocking
//!   I/O). Such an adapter hangs the test instead of producing a `hang` verdict.
//! - Each case runs on a current-thread tokio runtime of its own: `block_in_place` panics, and
//!   anything that outlives the call (a spawned task, a pooled connection) dies with the case.
//! - libtest-mimic does not capture output: what an adapter prints shows up between the test
//!   lines, and `--nocapture` changes nothing.
//! - Under cargo-nextest each test is a process of its own, so no report is written there; use
//!   nextest's own JUnit output. nextest also shows an unsupported case as passed (its output
//!   says it was ignored): libtest has no way to ignore a test once it runs.
//! - insta's failure text says "Stopped on the first failure"; every case still runs.
//! - Baseline entries cover whole cases (not single calls) or a check everywhere. A `[checks]`
//!   entry that no case needs is only told on a run of every case: a filtered run (or one under
//!   cargo-nextest, a process per test) cannot know.
//!
//! # The public API
//!
//! What this documentation shows is the whole of what this crate promises (semver), and
//! `tests/public_api.rs` keeps it as a reviewed snapshot, one line per item, so that a change
//! to it is a diff in review. At the root:
//! - for a client crate: [`main!`], [`Config`], and the adapter contract: [`Adapter`],
//!   [`CallContext`], [`AdapterReport`], [`Observation`], [`Outcome`] and its [`Layer`].
//!
//! Nine modules, in the order a case flows through them:
//! - [`case`]: case files ([`case::builtin`], [`case::discover`], [`case::CaseSource`]);
//! - [`wire`]: the wire server that serves a case on `127.0.0.1:0`, writing raw HTTP/1.1, and
//!   its record of every exchange (the command line's `serve`);
//! - [`stdio`]: the harness as a stdio MCP server for the stdio cases (docs/stdio.md): the
//!   process a client starts relays what it reads to the case's wire server
//!   ([`stdio::intercept`] for a test binary with its own `main`);
//! - [`adapter`]: the client under test ([`adapter::Driver`], an adapter program's
//!   [`adapter::process::ProcessAdapter`], a coding agent's
//!   [`adapter::process::agent::AgentAdapter`], our reference client
//!   `adapter::reference::ReferenceAdapter`);
//! - [`model`]: the scripted model an agent talks to on loopback, and what its model was told
//!   ([`model::told`]: the tool result read from the agent's next request, judged);
//! - [`hop`]: a bridge between a client and a server, judged by what arrives downstream: the
//!   faithful-hop table ([`hop::delivers`]) and the bridge checks (docs/bridges.md); a bridge is
//!   driven by `adapter::process::bridge::BridgeAdapter`;
//! - [`engine`]: a run ([`engine::Run`], a builder: cases, adapter, jobs, strictness,
//!   baseline, shard) that tells an [`engine::EventSink`] as cases end and returns the run's
//!   records: verdicts, standings, request checks, and how a person reads them;
//! - [`report`]: the report writers (TAP, JUnit, JSON, HTML), the JSON report's schema
//!   ([`report::json`], for tools that read reports), `diff`, `report merge` and the history
//!   pages;
//! - [`classify`]: the reference classifier, for a gateway or a client that wants the spec's
//!   rules; it needs nothing else of the crate;
//! - [`input`]: the one bounded reader of every file the harness reads on a user's word (a
//!   regular file only, up to a bound per kind of input; docs/inputs.md).
//!
//! [`main!`], the command line (`cli/`, a package of its own), this repository's SDK rows and
//! its benches drive the same [`engine::Run`]. The one hidden module, `__private`, is what
//! [`main!`]'s expansion names in your crate; it is not an API.

#![warn(missing_docs)]

// The documented API: what a client crate, a gateway, the command line and a reader of JSON
// reports use. Ten modules; everything else is the engine's inside.
pub mod adapter;
pub mod case;
pub mod classify;
pub mod engine;
pub mod hop;
pub mod input;
pub mod model;
pub mod report;
pub mod stdio;
pub mod wire;

pub use adapter::{Adapter, CallContext};
pub use libtest::Config;
pub use observation::{AdapterReport, Observation};
pub use outcome::{Layer, Outcome};

mod baseline;
mod challenge;
mod checks;
mod coarse;
mod credential;
mod era;
mod explain;
mod fidelity;
mod fresh;
mod json_text;
mod libtest;
mod observation;
mod outcome;
mod record;
mod rules;
mod runner;
mod snapshot;
mod standing;
mod transcript;
mod verdict;

/// What [`main!`] expands to needs: not an API (no semver promise), public only because a
/// macro's expansion lives in the caller's crate.
#[doc(hidden)]
pub mod __private {
    pub use crate::libtest::{__insta, __run, Caller};
}

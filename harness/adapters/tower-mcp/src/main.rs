//! mcp-error-layers adapter for tower-mcp's MCP client (pinned in Cargo.toml / Cargo.lock).
//!
//! The calls come, and the observations go, as the adapter contract says (docs/adapters.md): one
//! process per call, or persistent with calls at once, read and answered by the contract crate
//! (`../contract-rs`), which keeps one client per case: the row ([`TowerMcp`]) says how to open
//! it, make a call on it, map what tower-mcp raised, and close it.
//!
//! The adapter drives tower-mcp's documented client API with its defaults:
//! `HttpClientTransport::new(url)` (tower-mcp's own reqwest-based Streamable HTTP client; in an
//! authorization case with tower-mcp's `OAuthAuthorizationFlow` as its token provider, the flow's
//! token store seeded with the start credentials: see [`authorized_transport`]), or over
//! stdio `StdioClientTransport::spawn(program, args)` (tower-mcp's child-process client: the
//! server's stdin and stdout piped, its stderr inherited), then
//! `McpClient::connect(transport)` (no handler), then `discover` for 2026-07-28 or `initialize`
//! for the 2025 era: the `McpClient` an application keeps. Then, for each call of the case,
//! `call_tool(name, arguments)`, which follows `input_required` rounds
//! and server-created tasks itself. It maps what tower-mcp surfaces (`CallToolResult`, its
//! `Error` enum, `HttpStatusDetails`) to an outcome. It never sees the case.
//!
//! `--tasks` (the row tower-mcp+tasks) runs a call that asks for a task (docs/adapters.md,
//! "Tasks") through tower-mcp's task API, as it documents it: a client built with
//! `McpClient::builder().with_tasks()` (the 2026-07-28 tasks extension declared), then
//! `call_tool_as_task(name, arguments, ttl)` (a task-augmented call in 2025-11-25), then
//! `task_wait(task_id)`, which polls `tasks/get` at the server's interval until a terminal status.
//! Without it such a call is `unsupported`.

use std::process::ExitCode;

use contract::{Call, Credentials, Observation, Transport};
use serde_json::Value;
use tower_mcp::client::{
    HttpClientTransport, HttpStatusDetails, McpClient, MemoryOAuthTokenStore,
    OAuthAuthorizationAction, OAuthAuthorizationFlow, OAuthAuthorizationHandler,
    OAuthAuthorizationRequest, OAuthClientError, OAuthHttpBody, OAuthHttpClient as _,
    OAuthHttpMethod, OAuthHttpRequest, OAuthRedirectPolicy, OAuthScopeEscalationConfig,
    OAuthStoredToken, OAuthTokenBinding, OAuthTokenStore as _, ReqwestOAuthHttpClient,
    StdioClientTransport,
};
use tower_mcp::protocol::{TaskObject, TaskStatus};
use tower_mcp::{CallToolResult, Error, JsonRpcError};

/// The pinned tower-mcp version (Cargo.toml says `=0.25.0`; keep the two in step).
const TOWER_MCP_VERSION: &str = "0.25.0";
const CLIENT_NAME: &str = "mcp-error-layers-adapter";
/// The one protocol version `McpClient::discover` speaks.
const DISCOVER_VERSION: &str = tower_mcp::protocol::PROTOCOL_VERSION_2026_07_28;

/// A JSON-RPC error as tower-mcp returned it: its code, message and `data`.
fn jsonrpc_text(error: &JsonRpcError) -> String {
    match &error.data {
        Some(data) => format!(
            "JSON-RPC error {}: {} (data: {data})",
            error.code, error.message
        ),
        None => format!("JSON-RPC error {}: {}", error.code, error.message),
    }
}

/// Maps tower-mcp's `Error` by its variant and fields.
///
/// - `Error::JsonRpc` whose `data` tower-mcp's own `HttpStatusDetails::from_error` reads as a
///   non-success HTTP status (a status without a JSON-RPC body; a 401, 403 or 429 with one):
///   `HTTP_ERROR` with that status (and the JSON-RPC code, when the server sent one).
/// - Any other `Error::JsonRpc`: `JSONRPC_ERROR` with its code. tower-mcp's HTTP transport turns
///   most transport failures (a connect error, a 202 to a request, an empty or unparseable body,
///   a stream that ended early) into a JSON-RPC error `-32000` of its own; that is what the caller
///   sees, so it is reported as such, with tower-mcp's words in `detail`.
/// - `Error::SessionExpired` ("a -32005 or an HTTP 404 to a request that carried a session id",
///   after tower-mcp's one re-initialize): which of the two it was is not on the surface, so it is
///   `UNCLASSIFIED_ERROR`.
/// - `Error::Serialization`, `Error::Transport(String)` (text only: also a result that did not
///   decode, an unfulfillable `input_required`, the MRTR round limit), and the rest:
///   `UNCLASSIFIED_ERROR`.
fn from_error(where_: &str, error: &Error) -> Observation {
    match error {
        Error::JsonRpc(jsonrpc) => {
            let text = format!("{where_}: {}", jsonrpc_text(jsonrpc));
            if let Some(http) = HttpStatusDetails::from_error(error) {
                let mut text = format!("{text} (HttpStatusDetails: status {}", http.status);
                if let Some(retry_after) = &http.retry_after {
                    text.push_str(&format!(", retry_after {retry_after:?}"));
                }
                text.push(')');
                let observation = Observation::new("HTTP_ERROR", text).with_status(http.status);
                // tower-mcp's own transport frames carry -32000; a server's error body keeps its code.
                return match jsonrpc.code {
                    -32000 => observation,
                    code => observation.with_code(i64::from(code)),
                };
            }
            Observation::new("JSONRPC_ERROR", text).with_code(i64::from(jsonrpc.code))
        }
        Error::SessionExpired => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("{where_}: {error} (Error::SessionExpired)"),
        ),
        Error::Transport(message) => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("{where_}: Error::Transport: {message}"),
        ),
        Error::Serialization(json) => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("{where_}: Error::Serialization: {json}"),
        ),
        other => Observation::new("UNCLASSIFIED_ERROR", format!("{where_}: {other:?}")),
    }
}

/// Maps tower-mcp's `Error` over stdio, where `connected` is `McpClient::is_connected()` right
/// after it (`None` when no client was made):
///
/// - `Error::Transport` on a client that is no longer connected: `CONNECTION_ERROR`. The
///   message loop of tower-mcp's `McpClient` stops when the stdio transport reads EOF on the
///   child's stdout (the process exited, was killed, or closed it) or fails to write to its
///   stdin; it then marks the client disconnected (`is_connected()`) and fails the calls waiting
///   and every later one with `Error::Transport("Connection closed")` / `"Transport error: ..."`.
///   tower-mcp reports no exit status.
/// - `Error::JsonRpc`: the server's JSON-RPC error, `JSONRPC_ERROR` with its code (no HTTP status
///   to read over stdio).
/// - Anything else, an `Error::Transport` on a connected client included: as over HTTP.
fn from_stdio_error(where_: &str, error: &Error, connected: Option<bool>) -> Observation {
    match error {
        Error::Transport(message) if connected == Some(false) => Observation::new(
            "CONNECTION_ERROR",
            format!(
                "{where_}: Error::Transport: {message} (McpClient::is_connected() is false: the \
                 stdio server's stdout ended or its stdin could not be written; tower-mcp \
                 reports no exit status)"
            ),
        ),
        Error::JsonRpc(jsonrpc) => Observation::new(
            "JSONRPC_ERROR",
            format!("{where_}: {}", jsonrpc_text(jsonrpc)),
        )
        .with_code(i64::from(jsonrpc.code)),
        other => from_error(where_, other),
    }
}

fn from_result(result: &CallToolResult) -> Observation {
    if result.is_error {
        Observation::new(
            "TOOL_ERROR",
            "call_tool returned a CallToolResult with is_error: true",
        )
    } else {
        Observation::new("TOOL_SUCCESS", "call_tool returned a CallToolResult")
    }
}

/// The observation for the terminal task `task_wait` returned: a completed task's result (inline in
/// 2026-07-28; tower-mcp has no method for 2025-11-25's `tasks/result`), a failed task's error, a
/// cancelled task.
fn from_task(task: &TaskObject) -> Observation {
    let statuses = format!("task_wait returned the task {}", task.status);
    match (&task.status, &task.result, &task.error) {
        (TaskStatus::Completed, Some(result), _) => {
            let outcome = if result.is_error {
                "TOOL_ERROR"
            } else {
                "TOOL_SUCCESS"
            };
            let text = format!(
                "{statuses} with its CallToolResult (is_error: {})",
                result.is_error
            );
            Observation::new(outcome, text)
        }
        (TaskStatus::Failed, _, Some(error)) => Observation::new(
            "JSONRPC_ERROR",
            format!("{statuses} with the error {}", jsonrpc_text(error)),
        )
        .with_code(i64::from(error.code)),
        (TaskStatus::Cancelled, _, _) => Observation::new("TASK_CANCELLED", statuses),
        _ => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("{statuses} without a result or an error on it"),
        ),
    }
}

/// The call as a task (`--tasks`): ask for it, then wait for its terminal status, both within the
/// call's timeout (dropping `task_wait` is how an application gives up on it).
async fn observe_task(client: &McpClient, call: &Call) -> Result<Observation, Failure> {
    let ttl = call
        .task
        .as_ref()
        .and_then(|task| task.get("ttl_ms"))
        .and_then(Value::as_u64);
    let arguments = Value::Object(call.arguments.clone());
    let work = async {
        let created = client
            .call_tool_as_task(&call.tool, arguments, ttl)
            .await
            .map_err(failed("call_tool_as_task failed"))?;
        let task = client
            .task_wait(&created.task.task_id)
            .await
            .map_err(failed("task_wait failed"))?;
        Ok(from_task(&task))
    };
    contract::within(call.timeout, "call_tool_as_task and task_wait", work)
        .await
        .unwrap_or_else(Ok)
}

/// What tower-mcp raised, after the words of the step it came from (`call_tool failed`).
struct Failure {
    step: &'static str,
    error: Raised,
    /// `McpClient::is_connected()` right after the error; `None` when no client was made.
    connected: Option<bool>,
}

/// tower-mcp's `Error`, or (in an authorization case, before the client exists) its
/// `OAuthClientError`.
enum Raised {
    Mcp(Error),
    OAuth(OAuthClientError),
}

/// The `Failure` of setting up the OAuth flow from the stored credentials (`step`).
fn oauth_failed(step: &'static str) -> impl FnOnce(OAuthClientError) -> Failure {
    move |error| Failure {
        step,
        error: Raised::OAuth(error),
        connected: None,
    }
}

/// `OAuthClientError` is a typed enum whose variants name the OAuth step that failed (discovery,
/// token request, redirect...) with text only: no HTTP status, no layer of the MCP exchange.
fn from_oauth_error(where_: &str, error: &OAuthClientError) -> Observation {
    Observation::new(
        "UNCLASSIFIED_ERROR",
        format!("{where_}: OAuthClientError: {error}"),
    )
}

/// The `Failure` of `step`, before it is known whether the client is still connected.
fn failed(step: &'static str) -> impl FnOnce(Error) -> Failure {
    move |error| Failure {
        step,
        error: Raised::Mcp(error),
        connected: None,
    }
}

impl Failure {
    /// With what `client` says about its connection after the error.
    fn seen_by(mut self, client: &McpClient) -> Self {
        self.connected = Some(client.is_connected());
        self
    }
}

/// The application's answer to an interactive authorization: it sends one GET to the URL (no
/// redirect followed), as a browser opened on it would, and nobody signs in, so the flow fails.
struct NobodySignsIn;

#[async_trait::async_trait]
impl OAuthAuthorizationHandler for NobodySignsIn {
    async fn authorize(
        &self,
        request: OAuthAuthorizationRequest,
    ) -> Result<OAuthAuthorizationAction, OAuthClientError> {
        let browser = ReqwestOAuthHttpClient::without_redirects()?;
        let answered = browser
            .execute(OAuthHttpRequest {
                method: OAuthHttpMethod::Get,
                url: request.authorization_url,
                headers: Vec::new(),
                body: OAuthHttpBody::Empty,
            })
            .await
            .map(|response| format!("answered {}", response.status))
            .unwrap_or_else(|error| format!("failed: {error}"));
        contract::note!(
            "OAuthAuthorizationHandler: one GET to the authorization URL (scopes {:?}), {answered}",
            request.scopes
        );
        Err(OAuthClientError::Redirect(format!(
            "nothing completes an interactive authorization here (one GET to the authorization \
             URL, {answered})"
        )))
    }
}

/// The token store an application that signed in earlier left: tower-mcp's
/// `MemoryOAuthTokenStore` holding an `OAuthStoredToken` under the binding tower-mcp keys it by
/// (the MCP endpoint as the resource, the issuer, the client id), its `expires_at` the store's
/// expiry (`u64::MAX`, tower-mcp's "no lifetime advertised", when it names none). A store without
/// an access token holds nothing tower-mcp can load (`OAuthStoredToken::access_token` is a
/// `String`): the refresh token is then not kept.
async fn seeded_store(
    endpoint: &str,
    credentials: &Credentials,
) -> Result<MemoryOAuthTokenStore, OAuthClientError> {
    let store = MemoryOAuthTokenStore::new();
    if let Some(access_token) = &credentials.access_token {
        let binding = OAuthTokenBinding {
            resource: endpoint.to_owned(),
            issuer: credentials.authorization_server.clone(),
            client_id: credentials.client_id.clone(),
        };
        let token = OAuthStoredToken {
            access_token: access_token.clone(),
            refresh_token: credentials.refresh_token.clone(),
            expires_at: credentials
                .expiry()
                .map_or(u64::MAX, |expiry| u64::try_from(expiry).unwrap_or(0)),
            scopes: credentials.scopes(),
        };
        store.save(&binding, &token).await?;
    }
    Ok(store)
}

/// tower-mcp's OAuth client as its OAuth guide assembles it for an interactive client, with a
/// token store that already holds the start tokens: `OAuthAuthorizationFlow::builder(endpoint)`
/// with the pre-registered client (`pre_registered_client`, its secret when confidential), the
/// seeded `token_store`, `OAuthRedirectPolicy::fixed(redirect_uri)` and an
/// `OAuthAuthorizationHandler` ([`NobodySignsIn`]), everything else its defaults; then
/// `authorize()` with no explicit scopes, which discovers the authorization server and restores
/// the stored token without redirecting when it covers the selected scopes (refreshing it first
/// when it expired); then `HttpClientTransport::new(endpoint).with_scope_aware_token_provider(flow,
/// OAuthScopeEscalationConfig::new(authorized_scopes))` (default: 2 step-ups per operation). From
/// then on tower-mcp puts the token on every request, refreshes it after a 401 Bearer challenge
/// or at its expiry, and reauthorizes on a 403 `insufficient_scope`.
async fn authorized_transport(
    endpoint: &str,
    credentials: &Credentials,
) -> Result<HttpClientTransport, Failure> {
    let store = seeded_store(endpoint, credentials)
        .await
        .map_err(oauth_failed("seeding the token store failed"))?;
    let flow = OAuthAuthorizationFlow::builder(endpoint)
        .pre_registered_client(
            credentials.client_id.clone(),
            credentials.client_secret.clone(),
        )
        .token_store(store)
        .redirect_policy(OAuthRedirectPolicy::fixed(credentials.redirect_uri.clone()))
        .authorization_handler(NobodySignsIn)
        .build()
        .map_err(oauth_failed("OAuthAuthorizationFlow::build failed"))?;
    flow.authorize(std::iter::empty::<&str>())
        .await
        .map_err(oauth_failed("OAuthAuthorizationFlow::authorize failed"))?;
    let scopes = flow.authorized_scopes().await.unwrap_or_default();
    contract::note!(
        "OAuthAuthorizationFlow authorized from the stored token: scopes {scopes:?} ({credentials:?})"
    );
    Ok(HttpClientTransport::new(endpoint)
        .with_scope_aware_token_provider(flow, OAuthScopeEscalationConfig::new(scopes)))
}

/// The tower-mcp row: one `McpClient` per case, `call_tool` (or, with `--tasks`, its task API
/// for a call that asks for a task) on it.
struct TowerMcp {
    tasks: bool,
}

impl contract::Row for TowerMcp {
    /// The client an application keeps: `McpClient` (its transport, its session, its
    /// background tasks), which makes every later request of the case.
    type Client = McpClient;
    type Error = Failure;

    fn refuse(&self, call: &Call) -> Option<String> {
        let version = call.protocol_version.as_str();
        (version != DISCOVER_VERSION && !version.starts_with("2025-")).then(|| {
            format!("tower-mcp {TOWER_MCP_VERSION} does not know protocol version {version:?}")
        })
    }

    /// `McpClient::connect(transport)` (that is, `builder().connect_simple(transport)`; with
    /// `--tasks`, `builder().with_tasks()`), then `discover` for 2026-07-28 or `initialize` for
    /// the 2025 era. The transport is `HttpClientTransport::new(endpoint)` over HTTP, and over
    /// stdio `StdioClientTransport::spawn(program, args)`, as tower-mcp's client docs start a
    /// server (stdin and stdout piped, stderr inherited: the adapter's, which the runner keeps;
    /// `McpClient::shutdown` closes the child's stdin and waits up to 5 s for it to exit, then
    /// kills it). The case's timeout is for the call: the connect keeps tower-mcp's defaults,
    /// and one that never finishes is left to the runner's deadline. A failed handshake shuts
    /// down the client it made.
    async fn open(&self, call: &Call) -> Result<McpClient, Failure> {
        let version = call.protocol_version.as_str();
        let discover = version == DISCOVER_VERSION;
        if !discover && version != tower_mcp::protocol::LATEST_PROTOCOL_VERSION {
            contract::note!(
                "note: McpClient::initialize always offers {} (no option for another); the case asked for {version}",
                tower_mcp::protocol::LATEST_PROTOCOL_VERSION
            );
        }
        let builder = McpClient::builder();
        let builder = if self.tasks {
            builder.with_tasks()
        } else {
            builder
        };
        let client = match &call.transport {
            Transport::Http { endpoint } => {
                let credentials = call.credentials().map_err(|error| {
                    oauth_failed("the call's auth")(OAuthClientError::BuildError(error))
                })?;
                let transport = match credentials {
                    None => HttpClientTransport::new(endpoint),
                    Some(credentials) => authorized_transport(endpoint, &credentials).await?,
                };
                builder.connect_simple(transport).await
            }
            Transport::Stdio { command } => {
                let (program, arguments) = command
                    .split_first()
                    .expect("the contract reads a stdio command with its program");
                let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
                let transport = StdioClientTransport::spawn(program, &arguments)
                    .await
                    .map_err(failed("StdioClientTransport::spawn failed"))?;
                contract::note!(
                    "StdioClientTransport started the stdio server (pid {:?}): {command:?}",
                    transport.child_id()
                );
                builder.connect_simple(transport).await
            }
        }
        .map_err(failed("connect failed"))?;
        let handshake = if discover {
            client
                .discover(CLIENT_NAME, TOWER_MCP_VERSION)
                .await
                .map(|_| ())
                .map_err(failed("discover failed"))
        } else {
            client
                .initialize(CLIENT_NAME, TOWER_MCP_VERSION)
                .await
                .map(|_| ())
                .map_err(failed("initialize failed"))
        };
        match handshake {
            Ok(()) => Ok(client),
            Err(failure) => {
                let failure = failure.seen_by(&client);
                let closing = client.shutdown();
                contract::teardown("tower-mcp shutdown after the failed handshake", closing).await;
                Err(failure)
            }
        }
    }

    /// One call on the client, as an application makes it.
    ///
    /// The timeout bounds `call_tool` (all its rounds) with the adapter's own deadline:
    /// `McpClient` has no per-call timeout (the transport's `HttpClientConfig::request_timeout`,
    /// 30 s by default, is per HTTP request), and dropping the call is what tower-mcp documents
    /// for abandoning one (it then sends `notifications/cancelled`).
    async fn call(&self, client: &mut McpClient, call: &Call) -> Result<Observation, Failure> {
        let made = async {
            if call.list_tools {
                // As an application does to learn the tool's schemas (MCP_ERROR_LAYERS_LIST_TOOLS).
                client
                    .list_all_tools()
                    .await
                    .map_err(failed("list_all_tools failed"))?;
            }
            if call.task.is_some() {
                return observe_task(client, call).await;
            }
            let work = client.call_tool(&call.tool, Value::Object(call.arguments.clone()));
            match contract::within(call.timeout, "call_tool", work).await {
                Ok(Ok(result)) => Ok(from_result(&result)),
                Ok(Err(error)) => Err(failed("call_tool failed")(error)),
                Err(timeout) => Ok(timeout),
            }
        };
        made.await.map_err(|failure| failure.seen_by(client))
    }

    fn error(&self, failure: Failure, call: &Call) -> Observation {
        let Failure {
            step,
            error,
            connected,
        } = failure;
        let error = match error {
            Raised::Mcp(error) => error,
            Raised::OAuth(error) => return from_oauth_error(step, &error),
        };
        match call.transport {
            Transport::Stdio { .. } => from_stdio_error(step, &error, connected),
            Transport::Http { .. } => from_error(step, &error),
        }
    }

    /// `McpClient::shutdown`, which DELETEs a 2025 session (over stdio: closes the child's stdin,
    /// waits for it to exit, kills it after 5 s).
    async fn close(&self, client: McpClient) -> Result<String, String> {
        client
            .shutdown()
            .await
            .map(|()| "tower-mcp shutdown finished".into())
            .map_err(|error| format!("tower-mcp shutdown: {error}"))
    }
}

fn main() -> ExitCode {
    let sdk = contract::Sdk {
        name: "tower-mcp",
        version: TOWER_MCP_VERSION,
    };
    let tasks = std::env::args()
        .skip(1)
        .any(|argument| argument == "--tasks");
    let prepare = |arguments: &[String]| {
        let known = arguments.iter().all(|argument| argument == "--tasks");
        known.then_some(TowerMcp { tasks })
    };
    if tasks {
        contract::main_with_tasks(sdk, "[--tasks]", prepare)
    } else {
        contract::main(sdk, "[--tasks]", prepare)
    }
}

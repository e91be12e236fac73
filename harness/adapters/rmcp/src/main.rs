//! mcp-error-layers adapter for rmcp, the official Rust MCP SDK (pinned in Cargo.toml / Cargo.lock).
//!
//! The calls come, and the observations go, as the adapter contract says (docs/adapters.md): one
//! process per call, or persistent with calls at once, read and answered by the contract crate
//! (`../contract-rs`), which keeps one client per case: the row ([`Rmcp`]) says how to open it,
//! make a call on it, map what rmcp raised, and close it.
//!
//! The adapter drives rmcp's public client API: `StreamableHttpClientTransport::from_uri` (reqwest)
//! over HTTP (in an authorization case `StreamableHttpClientTransport::with_client` over rmcp's
//! OAuth `AuthClient`, its credential store seeded with the start credentials: see
//! [`authorized_client`]), or `TokioChildProcess::new(Command)` over stdio (rmcp's child-process
//! client, with its defaults: the server's stdin and stdout piped, its stderr inherited), then
//! `serve_with_lifecycle` (`Discover` for 2026-07-28, `Initialize` offering the requested version
//! for the 2025 era), which gives the `RunningService` an application keeps and makes every later
//! request through; then, for each call of the case, `call_tool`, rmcp's high-level call: it drives `input_required` rounds
//! itself (answering input requests through the client handler, here rmcp's defaults: elicitation
//! declined, sampling refused, no roots; echoing `requestState`) up to `DEFAULT_MRTR_MAX_ROUNDS`
//! (10) and returns the final `CallToolResult`. With `--call-tool-once` (the adapter
//! `rmcp+call_tool_once`) it calls `call_tool_once` instead, which returns a final result or an
//! `input_required` one without driving further rounds. It maps what rmcp surfaces
//! (`CallToolResult`, `CallToolResponse`, `ServiceError`, `ClientInitializeError` and the
//! transport errors inside them) to an outcome. It never sees the case.

use std::error::Error as StdError;
use std::process::ExitCode;

use contract::{Call, Credentials, Observation, Transport, chain, describe};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    Implementation, ProtocolVersion,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService,
};
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, CredentialStore as _, InMemoryCredentialStore,
    OAuthClientConfig, OAuthTokenResponse, StoredCredentials,
};
use rmcp::transport::streamable_http_client::{
    HttpStatusError, StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::transport::{
    ConfigureCommandExt as _, DynamicTransportError, StreamableHttpClientTransport,
    TokioChildProcess,
};
use rmcp::{ErrorData as McpError, ServiceError};

/// rmcp's marker in the `data` of JSON-RPC errors its transport synthesizes itself.
const TRANSPORT_CLOSED_MARKER: &str = "io.modelcontextprotocol/transportClosed";
/// The pinned rmcp version (Cargo.toml says `=3.11.0`; keep the two in step), for `detail` and `clientInfo`.
const RMCP_VERSION: &str = "3.11.0";

/// Which of rmcp's tool-call methods the adapter uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `RunningService::call_tool`: the default, drives `input_required` rounds itself.
    CallTool,
    /// `RunningService::call_tool_once`: one `tools/call`, an `input_required` result returned.
    CallToolOnce,
}

impl Api {
    fn name(self) -> &'static str {
        match self {
            Self::CallTool => "call_tool",
            Self::CallToolOnce => "call_tool_once",
        }
    }

    /// The words before what the call raised.
    fn failed(self) -> &'static str {
        match self {
            Self::CallTool => "call_tool failed",
            Self::CallToolOnce => "call_tool_once failed",
        }
    }
}

/// A transport error without rmcp's wrapper (whose text is the transport's long type name), and
/// with the HTTP client's causes, which `StreamableHttpError::Client` does not link as `source()`.
fn describe_transport(error: &(dyn StdError + 'static)) -> String {
    let inner: &(dyn StdError + 'static) = match error.downcast_ref::<DynamicTransportError>() {
        Some(dynamic) => dynamic.error.as_ref(),
        None => error,
    };
    let mut text = describe(inner);
    for e in chain(inner) {
        if let Some(StreamableHttpError::Client(http)) =
            e.downcast_ref::<StreamableHttpError<reqwest::Error>>()
        {
            for cause in chain(http as &(dyn StdError + 'static)).into_iter().skip(1) {
                let cause = cause.to_string();
                if !text.contains(&cause) {
                    text = format!("{text} <- caused by {cause}");
                }
            }
        }
    }
    text
}

/// A JSON-RPC error object rmcp handed to the caller. rmcp also synthesizes some (a response
/// stream that closed before its response, a failed request stream); they are still JSON-RPC
/// errors on rmcp's surface, so they are reported as such, and the detail says when rmcp marked
/// one as its own.
fn from_jsonrpc_error(where_: &str, error: &McpError) -> Observation {
    let synthesized = error
        .data
        .as_ref()
        .and_then(|data| data.get(TRANSPORT_CLOSED_MARKER))
        .is_some();
    let note = if synthesized {
        " (rmcp marks this error as synthesized by its transport: transportClosed)"
    } else {
        ""
    };
    Observation::new(
        "JSONRPC_ERROR",
        format!(
            "{where_}: JSON-RPC error {}: {}{note}",
            error.code.0, error.message
        ),
    )
    .with_code(i64::from(error.code.0))
}

/// Maps a transport error (inside `ServiceError::TransportSend` or
/// `ClientInitializeError::TransportError`) by the typed errors in its source chain.
fn from_transport_error(where_: &str, error: &(dyn StdError + 'static)) -> Observation {
    contract::note!("transport error: {error:?}");
    let text = format!("{where_}: transport error: {}", describe_transport(error));
    for e in chain(error) {
        if let Some(status) = e.downcast_ref::<HttpStatusError>() {
            return http_status(text, status);
        }
        if let Some(e) = e.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            match e {
                StreamableHttpError::HttpStatus(status) => return http_status(text, status),
                // The variant exists for exactly this status (and says so in its text).
                StreamableHttpError::SessionExpired => {
                    return Observation::new("HTTP_ERROR", text).with_status(404);
                }
                StreamableHttpError::AuthRequired(_) => {
                    return Observation::new("HTTP_ERROR", text).with_status(401);
                }
                StreamableHttpError::InsufficientScope(_) => {
                    return Observation::new("HTTP_ERROR", text).with_status(403);
                }
                StreamableHttpError::UnexpectedContentType(_) => {
                    return Observation::new("UNEXPECTED_CONTENT_TYPE", text);
                }
                StreamableHttpError::UnexpectedEndOfStream => {
                    return Observation::new("STREAM_INCOMPLETE", text);
                }
                StreamableHttpError::Deserialize(json) => {
                    return match json.classify() {
                        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                            Observation::new("MALFORMED_JSON", text)
                        }
                        // Well-formed JSON that is no JSON-RPC message rmcp accepts.
                        serde_json::error::Category::Data => {
                            Observation::new("INVALID_ENVELOPE", text)
                        }
                        serde_json::error::Category::Io => {
                            Observation::new("UNCLASSIFIED_ERROR", text)
                        }
                    };
                }
                // The HTTP client's own error (its source() is not linked, so look inside).
                StreamableHttpError::Client(http) => {
                    if let Some(outcome) = from_reqwest_error(http) {
                        return Observation::new(outcome, text);
                    }
                }
                // UnexpectedServerResponse carries only text (a 4xx status, or a body that did not
                // parse as a JSON-RPC message, are both folded into it): unclassified.
                _ => {}
            }
        }
        if let Some(http) = e.downcast_ref::<reqwest::Error>()
            && let Some(outcome) = from_reqwest_error(http)
        {
            return Observation::new(outcome, text);
        }
    }
    Observation::new("UNCLASSIFIED_ERROR", text)
}

fn http_status(text: String, status: &HttpStatusError) -> Observation {
    let text = match &status.retry_after {
        Some(value) => format!("{text} (retry_after: {value:?})"),
        None => text,
    };
    Observation::new("HTTP_ERROR", text).with_status(status.status)
}

/// reqwest/hyper: what their error kinds say about the connection.
fn from_reqwest_error(error: &reqwest::Error) -> Option<&'static str> {
    if error.is_timeout() {
        return Some("TIMEOUT");
    }
    if error.is_connect() {
        return Some("CONNECTION_ERROR");
    }
    let causes = chain(error as &(dyn StdError + 'static));
    let reset = causes.iter().any(|e| {
        e.downcast_ref::<std::io::Error>().is_some_and(|io| {
            use std::io::ErrorKind::{
                BrokenPipe, ConnectionAborted, ConnectionRefused, ConnectionReset,
            };
            matches!(
                io.kind(),
                ConnectionRefused | ConnectionReset | ConnectionAborted | BrokenPipe
            )
        })
    });
    // hyper: the connection closed before a complete response head, or (an io UnexpectedEof,
    // "IncompleteBody") before the body it announced.
    let incomplete = causes.iter().any(|e| {
        e.downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_incomplete_message)
            || e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof)
    });
    if error.is_body() || error.is_decode() {
        // A response had started (reqwest returns it after the headers) and its body broke off.
        return (reset || incomplete).then_some("STREAM_INCOMPLETE");
    }
    if error.is_request() && (reset || incomplete) {
        // Sending the request or waiting for the status line failed: reset, or closed before
        // a complete response head ("connection closed before message completed").
        return Some("CONNECTION_ERROR");
    }
    None
}

/// What a `ServiceError` raised over stdio says: the same as over HTTP, but for the transport's
/// own errors, which over stdio say that the child's pipes are gone.
///
/// - `ServiceError::TransportClosed`: over stdio rmcp raises it when the service's worker stopped
///   because the child's stdout ended (the process exited, was killed, or closed it; rmcp's
///   `AsyncRwTransport` ends its stream only at EOF or a read error, and skips a line it cannot
///   parse), for the call that was waiting and for every later one: `CONNECTION_ERROR`. rmcp
///   does not report the child's exit status.
/// - `ServiceError::TransportSend` whose `std::io::Error` is a broken pipe, a reset or "not
///   connected" (writing to a child that is gone): `CONNECTION_ERROR`.
fn stdio_service_error(where_: &str, error: &ServiceError) -> Observation {
    match error {
        ServiceError::TransportClosed => Observation::new(
            "CONNECTION_ERROR",
            format!(
                "{where_}: {error} (ServiceError::TransportClosed: the stdio server's stdout \
                 ended; rmcp reports no exit status)"
            ),
        ),
        ServiceError::TransportSend(transport) => {
            from_stdio_transport_error(where_, transport as &(dyn StdError + 'static))
        }
        other => service_error(where_, other),
    }
}

/// A stdio transport error (writing to the child, or spawning it): `CONNECTION_ERROR` when an
/// `std::io::Error` in its chain says the pipe or the process is gone (or never came up).
fn from_stdio_transport_error(where_: &str, error: &(dyn StdError + 'static)) -> Observation {
    contract::note!("stdio transport error: {error:?}");
    let inner: &(dyn StdError + 'static) = match error.downcast_ref::<DynamicTransportError>() {
        Some(dynamic) => dynamic.error.as_ref(),
        None => error,
    };
    let text = format!("{where_}: stdio transport error: {}", describe(inner));
    let gone = chain(inner).iter().any(|e| {
        e.downcast_ref::<std::io::Error>().is_some_and(|io| {
            use std::io::ErrorKind::{
                BrokenPipe, ConnectionAborted, ConnectionReset, NotConnected, NotFound,
                PermissionDenied, UnexpectedEof,
            };
            matches!(
                io.kind(),
                BrokenPipe
                    | ConnectionReset
                    | ConnectionAborted
                    | NotConnected
                    | UnexpectedEof
                    | NotFound
                    | PermissionDenied
            )
        })
    });
    Observation::new(
        if gone {
            "CONNECTION_ERROR"
        } else {
            "UNCLASSIFIED_ERROR"
        },
        text,
    )
}

/// What a `ServiceError` says, after `where_` (the call that raised it).
fn service_error(where_: &str, error: &ServiceError) -> Observation {
    match error {
        ServiceError::McpError(data) => from_jsonrpc_error(where_, data),
        ServiceError::TransportSend(transport) => {
            from_transport_error(where_, transport as &(dyn StdError + 'static))
        }
        ServiceError::Timeout { .. } => Observation::new("TIMEOUT", format!("{where_}: {error}")),
        // rmcp's words for a tools/call answer that decodes as no CallToolResult /
        // InputRequiredResult / CreateTaskResult: the result is not a valid tool result.
        // call_tool also raises it for an input_required result with neither inputRequests nor
        // requestState, and for a task handle.
        ServiceError::UnexpectedResponse => {
            Observation::new("INVALID_TOOL_RESULT", format!("{where_}: {error}"))
        }
        // call_tool's own cap on input_required rounds: the call ended still waiting for input.
        ServiceError::InputRequiredRoundsExceeded { .. } => Observation::new(
            "INPUT_REQUIRED",
            format!("{where_}: {error} (ServiceError::InputRequiredRoundsExceeded)"),
        ),
        // rmcp raises TransportClosed when the worker stops, and also in place of the JSON-RPC
        // error its transport synthesizes when a request's response stream ends without a final
        // response (a cut stream, undecodable SSE data, an answer to another id). Which of these
        // it was is not on the surface.
        ServiceError::TransportClosed => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("{where_}: {error} (ServiceError::TransportClosed)"),
        ),
        other => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("{where_}: {}", describe(other)),
        ),
    }
}

/// What a `ClientInitializeError` raised over stdio says: `ConnectionClosed` (the child's stdout
/// ended before the handshake's answer) and a transport error that says the pipe is gone are
/// `CONNECTION_ERROR`; the rest as over HTTP.
fn stdio_initialize_error(error: &ClientInitializeError) -> Observation {
    let where_ = "connect failed";
    match error {
        ClientInitializeError::ConnectionClosed(_) => Observation::new(
            "CONNECTION_ERROR",
            format!("{where_}: {error} (ClientInitializeError::ConnectionClosed)"),
        ),
        ClientInitializeError::TransportError {
            error: transport, ..
        } => from_stdio_transport_error(where_, transport as &(dyn StdError + 'static)),
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            stdio_initialize_error(fallback)
        }
        other => from_initialize_error(other),
    }
}

fn from_initialize_error(error: &ClientInitializeError) -> Observation {
    let where_ = "connect failed";
    match error {
        ClientInitializeError::JsonRpcError(data) => from_jsonrpc_error(where_, data),
        ClientInitializeError::TransportError {
            error: transport, ..
        } => from_transport_error(where_, transport as &(dyn StdError + 'static)),
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            from_initialize_error(fallback)
        }
        other => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("{where_}: {}", describe(other)),
        ),
    }
}

/// A final `CallToolResult`; `returned` says how it came (`call_tool_once returned Complete`).
fn from_result(returned: &str, result: &CallToolResult) -> Observation {
    let result_type = result
        .result_type
        .as_ref()
        .map(|t| format!(" (resultType {:?})", t.as_str()))
        .unwrap_or_default();
    if result.is_error == Some(true) {
        Observation::new(
            "TOOL_ERROR",
            format!("{returned} with is_error: Some(true){result_type}"),
        )
    } else {
        Observation::new("TOOL_SUCCESS", format!("{returned}{result_type}"))
    }
}

fn from_response(response: CallToolResponse) -> Observation {
    match response {
        CallToolResponse::Complete(result) => {
            from_result("call_tool_once returned Complete", &result)
        }
        CallToolResponse::InputRequired(_) => {
            Observation::new("INPUT_REQUIRED", "call_tool_once returned InputRequired")
        }
        // A task handle (SEP-2663): not one of the outcomes; the adapter declares no tasks support.
        CallToolResponse::Task(task) => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("call_tool_once returned a task handle: {task:?}"),
        ),
        #[allow(unreachable_patterns)]
        other => Observation::new(
            "UNCLASSIFIED_ERROR",
            format!("call_tool_once returned {other:?}"),
        ),
    }
}

fn protocol_version(requested: &str) -> Option<ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|known| known.as_str() == requested)
        .cloned()
}

/// The store an application that signed in earlier left: rmcp's `StoredCredentials` holding the
/// start tokens as a `StandardTokenResponse` (`token_type` Bearer, the scope granted), the scopes
/// granted, the client id and the issuer they came from (what rmcp itself saves after a grant).
/// rmcp reads an expiry as `token_received_at + expires_in`: the store's expiry becomes a token
/// received now that lives until then (`expires_in` 0 when it passed). A store without an access
/// token has no token response for rmcp (`StandardTokenResponse` requires one): the refresh token
/// is then not kept.
fn stored_credentials(credentials: &Credentials) -> Result<StoredCredentials, AuthError> {
    let now = contract::unix_now();
    let token_response = match &credentials.access_token {
        None => None,
        Some(access_token) => {
            let mut response = serde_json::json!({
                "access_token": access_token,
                "token_type": "Bearer",
            });
            if let Some(refresh_token) = &credentials.refresh_token {
                response["refresh_token"] = refresh_token.as_str().into();
            }
            if let Some(expiry) = credentials.expiry() {
                response["expires_in"] = expiry.saturating_sub(now).max(0).into();
            }
            if !credentials.scope.is_empty() {
                response["scope"] = credentials.scope.as_str().into();
            }
            Some(
                serde_json::from_value::<OAuthTokenResponse>(response)
                    .map_err(|error| AuthError::InternalError(error.to_string()))?,
            )
        }
    };
    let received = u64::try_from(now).ok();
    Ok(StoredCredentials::new(
        credentials.client_id.clone(),
        token_response,
        credentials.scopes(),
        received,
    )
    .with_issuer(
        (!credentials.authorization_server.is_empty())
            .then(|| credentials.authorization_server.clone()),
    ))
}

/// rmcp's OAuth client for an application with stored tokens: `AuthorizationManager::new` for the
/// MCP endpoint (its default OAuth HTTP client), its credential store an
/// `InMemoryCredentialStore` seeded with the start credentials (`set_credential_store`), then
/// `initialize_from_store`, which discovers the authorization server's metadata and configures
/// the stored client id (for a confidential client, `configure_client` with its secret as well),
/// wrapped in `AuthClient::new(reqwest::Client::default(), manager)` as rmcp's OAuth guide does.
/// From then on rmcp puts the token on every request, refreshes it when the store says it
/// expired or when the server answers 401, and reports what it cannot recover from.
async fn authorized_client(
    endpoint: &str,
    credentials: &Credentials,
) -> Result<AuthClient<reqwest::Client>, AuthError> {
    let mut manager = AuthorizationManager::new(endpoint).await?;
    let store = InMemoryCredentialStore::new();
    store.save(stored_credentials(credentials)?).await?;
    manager.set_credential_store(store);
    let restored = manager.initialize_from_store().await?;
    contract::note!("rmcp initialize_from_store: {restored} ({credentials:?})");
    if restored && let Some(secret) = &credentials.client_secret {
        manager.configure_client(
            OAuthClientConfig::new(
                credentials.client_id.clone(),
                credentials.redirect_uri.clone(),
            )
            .with_client_secret(secret.clone()),
        )?;
    }
    Ok(AuthClient::new(reqwest::Client::default(), manager))
}

/// The rmcp client an application keeps: the `RunningService` that `serve_with_lifecycle`
/// returns (its session, its transport, its worker task), reusable for every later request.
type Client = RunningService<RoleClient, ClientConfig>;

/// What rmcp raised, and where.
enum Failure {
    /// `TokioChildProcess::new`: the stdio server's process did not start.
    Spawn(std::io::Error),
    /// The call's `auth` is no credentials object (the runner's fault, not rmcp's).
    Credentials(String),
    /// Setting up rmcp's OAuth client from the stored credentials
    /// (`AuthorizationManager::new`, `initialize_from_store`, `configure_client`).
    Authorization(AuthError),
    /// `serve_with_lifecycle` (connect: the transport, then `initialize` or `server/discover`).
    Connect(Box<ClientInitializeError>),
    /// A request on the running client: `list_all_tools`, `call_tool`, `call_tool_once`.
    Service(&'static str, ServiceError),
}

/// The rmcp row: one `RunningService` per case, `call_tool` (or `call_tool_once`) on it.
struct Rmcp {
    api: Api,
}

impl contract::Row for Rmcp {
    type Client = Client;
    type Error = Failure;

    fn refuse(&self, call: &Call) -> Option<String> {
        protocol_version(&call.protocol_version).is_none().then(|| {
            format!(
                "rmcp {RMCP_VERSION} does not know protocol version {:?}",
                call.protocol_version
            )
        })
    }

    /// Connects as the case's first call asks: 2026-07-28 has no initialize (rmcp's `Discover`
    /// lifecycle probes `server/discover` and sends per-request metadata); the 2025 era makes
    /// the initialize handshake, offering the requested version. The case's timeout is for the
    /// call: the connect has no deadline of its own here (rmcp has no option for it either), so
    /// one that never finishes is left to the runner's deadline.
    ///
    /// Over HTTP the transport is `StreamableHttpClientTransport::from_uri(endpoint)`; over stdio
    /// it is `TokioChildProcess::new(Command::new(program).configure(|cmd| cmd.args(..)))`, the
    /// stdio client rmcp's README names, started as rmcp's own examples and tests start a server:
    /// the child with its stdin and stdout piped and its stderr
    /// inherited (the adapter's stderr, which the runner keeps), killed when the transport is
    /// dropped, shut down by `RunningService::cancel` (stdin closed, then SIGTERM, then kill).
    async fn open(&self, call: &Call) -> Result<Client, Failure> {
        let version = protocol_version(&call.protocol_version)
            .expect("refuse() answers a version rmcp does not know");
        let mut info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("mcp-error-layers-adapter", RMCP_VERSION),
        );
        let lifecycle = if version.has_initialize() {
            info = info.with_protocol_version(version);
            ClientLifecycleMode::Initialize
        } else {
            ClientLifecycleMode::Discover {
                preferred_versions: vec![version],
            }
        };
        let connected = match &call.transport {
            Transport::Http { endpoint } => {
                match call.credentials().map_err(Failure::Credentials)? {
                    None => {
                        let transport = StreamableHttpClientTransport::from_uri(endpoint.clone());
                        info.serve_with_lifecycle(transport, lifecycle).await
                    }
                    Some(credentials) => {
                        let client = authorized_client(endpoint, &credentials)
                            .await
                            .map_err(Failure::Authorization)?;
                        let transport = StreamableHttpClientTransport::with_client(
                            client,
                            StreamableHttpClientTransportConfig::with_uri(endpoint.clone()),
                        );
                        info.serve_with_lifecycle(transport, lifecycle).await
                    }
                }
            }
            Transport::Stdio { command } => {
                let (program, arguments) = command
                    .split_first()
                    .expect("the contract reads a stdio command with its program");
                let child = TokioChildProcess::new(
                    tokio::process::Command::new(program).configure(|cmd| {
                        cmd.args(arguments);
                    }),
                )
                .map_err(Failure::Spawn)?;
                contract::note!(
                    "TokioChildProcess started the stdio server (pid {:?}): {command:?}",
                    child.id()
                );
                info.serve_with_lifecycle(child, lifecycle).await
            }
        };
        connected.map_err(|error| Failure::Connect(Box::new(error)))
    }

    /// One tool call on the running client.
    ///
    /// The timeout bounds the call (`call_tool`, all its rounds, or `call_tool_once`) with the
    /// adapter's own deadline: neither takes request options (rmcp's
    /// `PeerRequestOptions::timeout` exists only on the lower-level
    /// `Peer::send_request_with_option`, which would bypass their reading of the result), and
    /// the call is then dropped (abandoned), as an application with a deadline would do.
    async fn call(&self, client: &mut Client, call: &Call) -> Result<Observation, Failure> {
        let params =
            CallToolRequestParams::new(call.tool.clone()).with_arguments(call.arguments.clone());
        let api = self.api;
        let work = async {
            if call.list_tools {
                // As an application does to learn the tool's schemas (MCP_ERROR_LAYERS_LIST_TOOLS).
                client
                    .list_all_tools()
                    .await
                    .map_err(|error| Failure::Service("list_all_tools failed", error))?;
            }
            let failed = |error| Failure::Service(api.failed(), error);
            match api {
                Api::CallTool => client
                    .call_tool(params)
                    .await
                    .map(|result| from_result("call_tool returned a CallToolResult", &result))
                    .map_err(failed),
                Api::CallToolOnce => client
                    .call_tool_once(params)
                    .await
                    .map(from_response)
                    .map_err(failed),
            }
        };
        contract::within(call.timeout, api.name(), work)
            .await
            .unwrap_or_else(Ok)
    }

    fn error(&self, error: Failure, call: &Call) -> Observation {
        let stdio = matches!(call.transport, Transport::Stdio { .. });
        match error {
            Failure::Spawn(error) => from_stdio_transport_error(
                "TokioChildProcess::new failed",
                &error as &(dyn StdError + 'static),
            ),
            Failure::Credentials(error) => Observation::new(
                "UNCLASSIFIED_ERROR",
                format!("the call's auth is no credentials object: {error}"),
            ),
            // rmcp's `AuthError` carries no status: what failed is in its text only.
            Failure::Authorization(error) => Observation::new(
                "UNCLASSIFIED_ERROR",
                format!(
                    "setting up rmcp's OAuth client from the stored credentials failed: {}",
                    describe(&error)
                ),
            ),
            Failure::Connect(error) if stdio => stdio_initialize_error(&error),
            Failure::Connect(error) => from_initialize_error(&error),
            Failure::Service(where_, error) if stdio => stdio_service_error(where_, &error),
            Failure::Service(where_, error) => service_error(where_, &error),
        }
    }

    /// `RunningService::cancel`: stops the worker, which closes the transport (a 2025 session is
    /// DELETEd; a stdio server's stdin is closed, and it is sent SIGTERM after 3 s, killed after
    /// 3 s more).
    async fn close(&self, client: Client) -> Result<String, String> {
        client
            .cancel()
            .await
            .map(|reason| format!("rmcp cancel finished: {reason:?}"))
            .map_err(|error| format!("rmcp cancel: {error}"))
    }
}

fn main() -> ExitCode {
    let sdk = contract::Sdk {
        name: "rmcp",
        version: RMCP_VERSION,
    };
    contract::main(sdk, "[--call-tool-once]", |arguments| {
        let api = match arguments {
            [] => Api::CallTool,
            [flag] if flag == "--call-tool-once" => Api::CallToolOnce,
            _ => return None,
        };
        Some(Rmcp { api })
    })
}

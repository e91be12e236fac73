//! mcp-error-layers adapter for tower-mcp's MCP client (pinned in Cargo.toml / Cargo.lock).
//!
//! One-shot contract (design §6): the endpoint URL is the last argument; the call comes in
//! `MCP_ERROR_LAYERS_TOOL`, `MCP_ERROR_LAYERS_ARGUMENTS`, `MCP_ERROR_LAYERS_PROTOCOL_VERSION` and
//! `MCP_ERROR_LAYERS_TIMEOUT_MS`; with `MCP_ERROR_LAYERS_LIST_TOOLS=1` it lists the tools first.
//! Exactly one JSON line goes to stdout; everything else to stderr.
//!
//! The adapter drives tower-mcp's documented client API with its defaults:
//! `HttpClientTransport::new(url)` (tower-mcp's own reqwest-based Streamable HTTP client),
//! `McpClient::connect(transport)` (no handler), then `discover` for 2026-07-28 or `initialize`
//! for the 2025 era, then `call_tool(name, arguments)`, which follows `input_required` rounds
//! and server-created tasks itself. It maps what tower-mcp surfaces (`CallToolResult`, its
//! `Error` enum, `HttpStatusDetails`) to an outcome. It never sees the case.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};
use tower_mcp::client::{HttpClientTransport, HttpStatusDetails, McpClient};
use tower_mcp::{CallToolResult, Error, JsonRpcError};

const MAX_DETAIL: usize = 600;
/// How long tower-mcp's own teardown (`shutdown`, which DELETEs a 2025 session) may take.
const TEARDOWN: Duration = Duration::from_secs(2);
/// The pinned tower-mcp version (Cargo.toml says `=0.25.0`; keep the two in step).
const TOWER_MCP_VERSION: &str = "0.25.0";
const CLIENT_NAME: &str = "mcp-error-layers-adapter";
/// The one protocol version `McpClient::discover` speaks.
const DISCOVER_VERSION: &str = tower_mcp::protocol::PROTOCOL_VERSION_2026_07_28;

/// One observation, as the contract prints it.
#[derive(Debug, Clone)]
pub enum Observation {
    Outcome {
        outcome: &'static str,
        status: Option<u16>,
        code: Option<i64>,
        detail: String,
    },
    Unsupported(String),
}

impl Observation {
    fn new(outcome: &'static str, detail: impl Into<String>) -> Self {
        Self::Outcome {
            outcome,
            status: None,
            code: None,
            detail: tidy(&detail.into()),
        }
    }

    fn with_status(mut self, value: u16) -> Self {
        if let Self::Outcome { status, .. } = &mut self {
            *status = Some(value);
        }
        self
    }

    fn with_code(mut self, value: i64) -> Self {
        if let Self::Outcome { code, .. } = &mut self {
            *code = Some(value);
        }
        self
    }

    /// The contract's JSON line, keys in the contract's order.
    #[must_use]
    pub fn to_json_line(&self) -> String {
        match self {
            Self::Outcome {
                outcome,
                status,
                code,
                detail,
            } => format!(
                "{{\"outcome\": {}, \"status\": {}, \"code\": {}, \"detail\": {}}}",
                Value::from(*outcome),
                json!(status),
                json!(code),
                Value::from(detail.as_str())
            ),
            Self::Unsupported(why) => json!({"unsupported": why}).to_string(),
        }
    }
}

fn tidy(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > MAX_DETAIL {
        let cut: String = text.chars().take(MAX_DETAIL).collect();
        format!("{cut}…")
    } else {
        text
    }
}

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

/// Makes one tool call with tower-mcp and returns the observation.
///
/// The timeout bounds `call_tool` (all its rounds) with `tokio::time::timeout`: `McpClient` has
/// no per-call timeout (the transport's `HttpClientConfig::request_timeout`, 30 s by default, is
/// per HTTP request), and dropping the call is what tower-mcp documents for abandoning one (it
/// then sends `notifications/cancelled`).
pub async fn observe(
    endpoint: &str,
    tool: &str,
    args: serde_json::Map<String, Value>,
    version: &str,
    timeout: Duration,
    list_tools: bool,
) -> Observation {
    let discover = version == DISCOVER_VERSION;
    if !discover && !version.starts_with("2025-") {
        return Observation::Unsupported(format!(
            "tower-mcp {TOWER_MCP_VERSION} does not know protocol version {version:?}"
        ));
    }
    if !discover && version != tower_mcp::protocol::LATEST_PROTOCOL_VERSION {
        eprintln!(
            "note: McpClient::initialize always offers {} (no option for another); the case asked for {version}",
            tower_mcp::protocol::LATEST_PROTOCOL_VERSION
        );
    }
    let transport = HttpClientTransport::new(endpoint);
    let client = match McpClient::connect(transport).await {
        Ok(client) => client,
        Err(error) => return from_error("connect failed", &error),
    };
    // The case's timeout is for the call. The connect keeps tower-mcp's defaults: a connect that
    // never finishes is left to the runner's deadline.
    let connected = if discover {
        client
            .discover(CLIENT_NAME, TOWER_MCP_VERSION)
            .await
            .map(|_| ())
    } else {
        client
            .initialize(CLIENT_NAME, TOWER_MCP_VERSION)
            .await
            .map(|_| ())
    };
    let observation = match connected {
        Err(error) => {
            let how = if discover { "discover" } else { "initialize" };
            from_error(&format!("{how} failed"), &error)
        }
        // As an application does to learn the tool's schemas (MCP_ERROR_LAYERS_LIST_TOOLS).
        Ok(()) if list_tools && let Err(error) = client.list_all_tools().await => {
            from_error("list_all_tools failed", &error)
        }
        Ok(()) => {
            let call = client.call_tool(tool, Value::Object(args));
            match tokio::time::timeout(timeout, call).await {
                Ok(Ok(result)) => from_result(&result),
                Ok(Err(error)) => from_error("call_tool failed", &error),
                Err(_) => Observation::new(
                    "TIMEOUT",
                    format!(
                        "call_tool did not finish within {timeout:?} (the adapter's deadline around it)"
                    ),
                ),
            }
        }
    };
    match tokio::time::timeout(TEARDOWN, client.shutdown()).await {
        Ok(Ok(())) => eprintln!("tower-mcp client shut down"),
        Ok(Err(error)) => eprintln!("tower-mcp shutdown failed: {error}"),
        Err(_) => eprintln!("tower-mcp shutdown took longer than {TEARDOWN:?}; abandoned"),
    }
    observation
}

fn env(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(error) => Err(format!("{name}: {error}")),
    }
}

type Call = (
    String,
    String,
    serde_json::Map<String, Value>,
    String,
    Duration,
);

fn read_call() -> Result<Call, String> {
    let endpoint = std::env::args()
        .skip(1)
        .next_back()
        .filter(|a| a.starts_with("http://") || a.starts_with("https://"))
        .ok_or("usage: mcp-error-layers-adapter-tower-mcp <endpoint-url> (the call comes in MCP_ERROR_LAYERS_* variables)")?;
    let tool = env("MCP_ERROR_LAYERS_TOOL")?.ok_or("MCP_ERROR_LAYERS_TOOL is not set")?;
    let args = env("MCP_ERROR_LAYERS_ARGUMENTS")?.unwrap_or_else(|| "{}".into());
    let args: serde_json::Map<String, Value> = serde_json::from_str(&args)
        .map_err(|e| format!("MCP_ERROR_LAYERS_ARGUMENTS is not a JSON object: {e}"))?;
    let version = env("MCP_ERROR_LAYERS_PROTOCOL_VERSION")?.unwrap_or_else(|| "2026-07-28".into());
    let timeout_ms: u64 = env("MCP_ERROR_LAYERS_TIMEOUT_MS")?
        .unwrap_or_else(|| "5000".into())
        .parse()
        .map_err(|e| format!("MCP_ERROR_LAYERS_TIMEOUT_MS: {e}"))?;
    Ok((
        endpoint,
        tool,
        args,
        version,
        Duration::from_millis(timeout_ms.max(1)),
    ))
}

fn main() -> ExitCode {
    let (endpoint, tool, args, version, timeout) = match read_call() {
        Ok(call) => call,
        Err(message) => {
            eprintln!("adapter error: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("adapter error: cannot start a runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let list_tools = std::env::var("MCP_ERROR_LAYERS_LIST_TOOLS").is_ok_and(|v| v == "1");
    let observation = runtime.block_on(observe(
        &endpoint, &tool, args, &version, timeout, list_tools,
    ));
    println!("{}", observation.to_json_line());
    // Do not wait for tasks tower-mcp may have left behind.
    runtime.shutdown_background();
    ExitCode::SUCCESS
}

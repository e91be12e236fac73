//! The crate docs' tutorial, runnable: a small reqwest-based MCP client (`my_client`, standing
//! in for yours) and the test file that runs every built-in case against it.
//!
//! ```text
//! cargo run --example tutorial               # every case
//! cargo run --example tutorial -- tool/      # the cases under tool/
//! cargo run --example tutorial -- --list
//! ```
//!
//! The client is deliberately simple. It sends what every 2026-07-28 request must carry (the
//! `Accept`, `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, and `_meta` with the
//! protocol version, the client capabilities and the client info), so the request checks pass,
//! and it reads a JSON body properly; but it does not read SSE streams, check the response's `id`
//! or validate the tool result, so those cases fail, which is what a failure looks like. In a client project the `main!` line lives in
//! `tests/mcp_errors.rs` and keeps its snapshots; here they are off, so that running the example
//! writes nothing into this repository.

use mcp_error_layers::{AdapterReport, CallContext, Config, Observation, Outcome};
use my_client::Error;

// `pub(crate)`, as is `config`: `tests/client_crate.rs` runs this tutorial as a client crate
// would, to keep the crate docs' sample of its output true.
pub(crate) async fn adapter(call: CallContext) -> AdapterReport {
    // Step 4 of the tutorial: say which cases the client cannot be asked about.
    if call.protocol_version != "2026-07-28" {
        let why = "my_client speaks only 2026-07-28".to_owned();
        return AdapterReport::Unsupported { unsupported: why };
    }
    let client = my_client::Client::new(&call.endpoint, call.timeout);
    AdapterReport::from(match client.call_tool(&call.tool, call.arguments).await {
        Ok(result) if result.is_error => Observation::new(Outcome::ToolError),
        Ok(_) => Observation::new(Outcome::ToolSuccess),
        Err(Error::Timeout) => Observation::new(Outcome::Timeout),
        Err(Error::Connection(why)) => Observation::new(Outcome::ConnectionError).with_detail(why),
        Err(Error::Status(status)) => Observation::new(Outcome::HttpError).with_status(status),
        Err(Error::Rpc(code)) => Observation::new(Outcome::JsonrpcError).with_code(code),
        Err(Error::NotJson(why)) => Observation::new(Outcome::MalformedJson).with_detail(why),
    })
}

mcp_error_layers::main!(adapter, config());

/// Snapshots off, so that running the example writes nothing into this repository.
pub(crate) fn config() -> Config {
    Config::new().no_snapshots().adapter_name("my-client")
}

/// A stand-in for your client: one stateless 2026-07-28 `tools/call` over reqwest.
mod my_client {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde_json::{Value, json};
    use std::time::Duration;

    /// The one protocol version this client speaks.
    const VERSION: &str = "2026-07-28";

    /// A tool result.
    pub struct ToolResult {
        /// `isError` of the result.
        pub is_error: bool,
    }

    /// Why a call failed.
    pub enum Error {
        /// The client's own timeout passed.
        Timeout,
        /// No HTTP response, or the body broke off.
        Connection(String),
        /// A non-2xx status.
        Status(u16),
        /// A JSON-RPC error response, with its code.
        Rpc(i64),
        /// A body that is not JSON.
        NotJson(String),
    }

    /// A client of one MCP endpoint.
    pub struct Client {
        http: reqwest::Client,
        endpoint: String,
    }

    impl Client {
        /// A client for `endpoint` whose calls give up after `timeout`.
        pub fn new(endpoint: &str, timeout: Duration) -> Self {
            let http = reqwest::Client::builder()
                .no_proxy()
                .timeout(timeout)
                .build();
            Client {
                http: http.expect("a plain-HTTP client builds"),
                endpoint: endpoint.to_owned(),
            }
        }

        /// Calls `tool` with `arguments`.
        pub async fn call_tool(&self, tool: &str, arguments: Value) -> Result<ToolResult, Error> {
            // 2026-07-28 has no session: every request says which version it speaks and what
            // the client can do, in `_meta` and (for the routing) in headers.
            let meta = json!({
                "io.modelcontextprotocol/protocolVersion": VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "my-client", "version": "0.1.0"},
            });
            let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                 "params": {"name": tool, "arguments": arguments, "_meta": meta}});
            let response = self
                .http
                .post(&self.endpoint)
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .header("mcp-protocol-version", VERSION)
                .header("mcp-method", "tools/call")
                .header("mcp-name", header_value(tool))
                .body(request.to_string())
                .send()
                .await
                .map_err(failure)?;
            if !response.status().is_success() {
                return Err(Error::Status(response.status().as_u16()));
            }
            let body = response.bytes().await.map_err(failure)?;
            let message: Value =
                serde_json::from_slice(&body).map_err(|e| Error::NotJson(e.to_string()))?;
            if let Some(code) = message.pointer("/error/code").and_then(Value::as_i64) {
                return Err(Error::Rpc(code));
            }
            let is_error = message.pointer("/result/isError").and_then(Value::as_bool);
            Ok(ToolResult {
                is_error: is_error.unwrap_or(false),
            })
        }
    }

    /// `text` as a header value: as is when it is printable ASCII without spaces at its ends,
    /// else in the spec's `=?base64?…?=` form (a tool name may be `wetter_für_köln`).
    fn header_value(text: &str) -> String {
        let safe = text.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
        if safe && text.trim() == text {
            text.to_owned()
        } else {
            format!("=?base64?{}?=", STANDARD.encode(text))
        }
    }

    fn failure(e: reqwest::Error) -> Error {
        if e.is_timeout() {
            Error::Timeout
        } else {
            Error::Connection(e.without_url().to_string())
        }
    }
}

//! What the reference client puts on the wire: header names and JSON-RPC bodies.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

/// The `Accept` value every POST carries: the spec requires both types.
pub(super) const ACCEPT: &str = "application/json, text/event-stream";
/// Protocol version header: 2026-07-28 on every POST, session era after `initialize`.
pub(super) const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// 2026-07-28: the JSON-RPC method, mirrored into a header.
pub(super) const METHOD: &str = "Mcp-Method";
/// 2026-07-28: the tool name of a `tools/call`, mirrored into a header.
pub(super) const NAME: &str = "Mcp-Name";
/// Session era: the session id the server gave at `initialize`.
pub(super) const SESSION_ID: &str = "Mcp-Session-Id";

/// `clientInfo`, the same in both eras.
fn client_info() -> Value {
    json!({"name": "mcp-error-layers-reference", "version": env!("CARGO_PKG_VERSION")})
}

/// A `tools/call` request with this `_meta` and `extra` params (MRTR's `inputResponses` and
/// `requestState`).
pub(super) fn tools_call(
    id: &Value,
    tool: &str,
    arguments: &Value,
    meta: Map<String, Value>,
    extra: &Map<String, Value>,
) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments, "_meta": meta});
    for (key, value) in extra {
        params[key] = value.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// 2026-07-28 `_meta`: the required protocol fields, plus a progress token. A client that
/// answers MRTR input requests declares the kinds it answers (elicitations and roots).
pub(super) fn stateless_meta(id: &Value, mrtr: bool) -> Map<String, Value> {
    let capabilities = if mrtr {
        json!({"elicitation": {}, "roots": {}})
    } else {
        json!({})
    };
    let mut meta = session_meta(id);
    meta.insert(
        "io.modelcontextprotocol/protocolVersion".into(),
        json!(crate::era::MODERN_VERSION),
    );
    meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        capabilities,
    );
    meta.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
    meta
}

/// Session-era `_meta`: only a progress token, which lets the server send progress
/// notifications (the cases' `$progress_token`).
pub(super) fn session_meta(id: &Value) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert("progressToken".into(), id.clone());
    meta
}

/// The `initialize` request offering `version`.
pub(super) fn initialize(id: &Value, version: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": client_info()},
    })
}

/// The `notifications/initialized` notification.
pub(super) fn initialized() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}

/// `notifications/cancelled` for the request `id`, with why.
pub(super) fn cancelled(id: &Value, reason: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id, "reason": reason}})
}

/// A header value for `text`: as is when it is printable ASCII, else the spec's
/// `=?base64?…?=` sentinel around the base64 of its UTF-8.
pub(super) fn header_safe(text: &str) -> String {
    let printable = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    if printable && !padded && !text.starts_with("=?") {
        text.to_owned()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_safe_keeps_plain_names_and_encodes_the_rest() {
        assert_eq!(header_safe("get_weather"), "get_weather");
        assert_eq!(header_safe("wetter_für"), "=?base64?d2V0dGVyX2bDvHI=?=");
        assert_eq!(header_safe("a\nb"), "=?base64?YQpi?=");
    }
}

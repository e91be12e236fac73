//! The headers and `_meta` fields every POST must carry.

use super::{Request, Requests, Tally};
use crate::case::Grade;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    for request in requests.list.iter().filter(|r| r.is_post()) {
        tally.record("accept-header", Grade::Must, accept(request));
        if request.modern && request.expects_answer() {
            tally.record("meta-fields", Grade::Must, meta_fields(request));
            tally.record("client-info", Grade::Should, client_info(request));
            tally.record("version-header", Grade::Must, modern_version(request));
            tally.record("method-header", Grade::Must, method_header(request));
            if request.method() == Some("tools/call") {
                tally.record("name-header", Grade::Must, name_header(request));
            }
        }
    }
}

/// Every POST lists both `application/json` and `text/event-stream` (all eras).
fn accept(request: &Request) -> Result<(), String> {
    let value = request.header("accept").unwrap_or("");
    let listed = |wanted: &str| {
        value.split(',').any(|range| {
            let media = range.split(';').next().unwrap_or("").trim();
            media.eq_ignore_ascii_case(wanted)
        })
    };
    if listed("application/json") && listed("text/event-stream") {
        Ok(())
    } else {
        Err(format!(
            "{}: Accept is {value:?}, which does not list both application/json and \
             text/event-stream",
            request.label
        ))
    }
}

fn meta<'a>(request: &'a Request, key: &str) -> Option<&'a Value> {
    request
        .message
        .pointer("/params/_meta")
        .and_then(|meta| meta.get(format!("io.modelcontextprotocol/{key}")))
}

/// 2026-07-28: `_meta` carries the protocol version and the client capabilities.
fn meta_fields(request: &Request) -> Result<(), String> {
    let version = meta(request, "protocolVersion").and_then(Value::as_str);
    let capabilities = meta(request, "clientCapabilities").filter(|c| c.is_object());
    match (version, capabilities) {
        (Some(_), Some(_)) => Ok(()),
        (None, _) => Err(format!(
            "{}: params._meta has no string io.modelcontextprotocol/protocolVersion",
            request.label
        )),
        (_, None) => Err(format!(
            "{}: params._meta has no io.modelcontextprotocol/clientCapabilities object",
            request.label
        )),
    }
}

/// 2026-07-28: `_meta` should say who the client is.
fn client_info(request: &Request) -> Result<(), String> {
    let info = meta(request, "clientInfo");
    let named = |key: &str| info.and_then(|i| i.get(key)).is_some_and(Value::is_string);
    if named("name") && named("version") {
        Ok(())
    } else {
        Err(format!(
            "{}: params._meta has no io.modelcontextprotocol/clientInfo with name and version",
            request.label
        ))
    }
}

/// 2026-07-28: `MCP-Protocol-Version` on every POST, equal to the `_meta` version.
fn modern_version(request: &Request) -> Result<(), String> {
    let header = request.header("mcp-protocol-version");
    let in_meta = meta(request, "protocolVersion").and_then(Value::as_str);
    match (header, in_meta) {
        (None, _) => Err(format!("{}: no MCP-Protocol-Version header", request.label)),
        (Some(h), Some(m)) if h != m => Err(format!(
            "{}: MCP-Protocol-Version is {h:?} but _meta says {m:?}",
            request.label
        )),
        _ => Ok(()),
    }
}

/// 2026-07-28: `Mcp-Method` mirrors the JSON-RPC method.
fn method_header(request: &Request) -> Result<(), String> {
    let header = request.header("mcp-method");
    match (header, request.method()) {
        (Some(h), Some(m)) if h == m => Ok(()),
        (None, _) => Err(format!("{}: no Mcp-Method header", request.label)),
        (Some(h), m) => Err(format!(
            "{}: Mcp-Method is {h:?} but the body's method is {m:?}",
            request.label
        )),
    }
}

/// 2026-07-28: `Mcp-Name` mirrors the tool name of a `tools/call`, as is or in the
/// `=?base64?…?=` form.
fn name_header(request: &Request) -> Result<(), String> {
    let name = request
        .message
        .pointer("/params/name")
        .and_then(Value::as_str);
    let header = request.header("mcp-name");
    let decoded = header.map(|h| decode_sentinel(h).unwrap_or_else(|| h.to_owned()));
    match (decoded, name) {
        (Some(h), Some(n)) if h == n => Ok(()),
        (None, _) => Err(format!("{}: no Mcp-Name header", request.label)),
        (Some(h), n) => Err(format!(
            "{}: Mcp-Name says {h:?} but the tool is {n:?}",
            request.label
        )),
    }
}

/// The text inside `=?base64?…?=`, when `value` is that form.
fn decode_sentinel(value: &str) -> Option<String> {
    let inner = value.strip_prefix("=?base64?")?.strip_suffix("?=")?;
    String::from_utf8(STANDARD.decode(inner).ok()?).ok()
}

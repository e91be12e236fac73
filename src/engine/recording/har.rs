//! Reading a HAR file (HTTP Archive 1.2: what browser devtools, mitmproxy and the MCP
//! inspectors export): its `tools/call` exchanges, and the `initialize` and `tools/list`
//! exchanges around them.
//!
//! A HAR keeps each response body whole (`content.text`, base64 when `content.encoding` says
//! so) and the time to its first byte (`timings.wait`), not when each SSE event arrived: an
//! imported stream has no gaps between events.

use super::exchange::{Exchange, MAX_RECORDED_BODY, bounded_ms, is_tool_call};
use super::session::Session;
use crate::classify::BodyEnd;
use base64::Engine;
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

/// Why a HAR file could not be read: the file, and where in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct HarError {
    /// The file.
    pub file: String,
    /// What is wrong, with the JSON path (`log.entries[3].response.status`) when one is to blame.
    pub message: String,
}

#[derive(Debug, Deserialize)]
struct Har {
    log: Log,
}

#[derive(Debug, Deserialize)]
struct Log {
    entries: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
struct Entry {
    request: HarRequest,
    response: HarResponse,
    #[serde(default)]
    timings: Option<Timings>,
}

#[derive(Debug, Deserialize)]
struct HarRequest {
    method: String,
    url: String,
    #[serde(default)]
    headers: Vec<Header>,
    #[serde(default, rename = "postData")]
    post_data: Option<PostData>,
}

#[derive(Debug, Deserialize)]
struct PostData {
    #[serde(default)]
    text: Option<String>,
}

#[derive(Debug, Deserialize)]
struct HarResponse {
    status: i64,
    #[serde(default)]
    headers: Vec<Header>,
    content: Content,
}

#[derive(Debug, Deserialize)]
struct Content {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Header {
    name: String,
    value: String,
}

#[derive(Debug, Deserialize)]
struct Timings {
    #[serde(default)]
    wait: Option<f64>,
}

/// What a HAR file holds for cases.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Its `tools/call` exchanges, in order, each with the session as it stood when the call
    /// was made.
    pub exchanges: Vec<(Exchange, Session)>,
    /// One line for each `tools/call` entry that could not be used.
    pub notes: Vec<String>,
}

/// Reads the HAR file at `path` (`-`: standard input): at most 256 MiB
/// ([`Kind::Har`](crate::input::Kind::Har)'s bound), counted as they are read, so that no
/// input can grow memory past the bound. A path that is not a regular file (a device, a FIFO)
/// is refused by name: [`crate::input`].
pub fn read_har(path: &Path) -> Result<Imported, HarError> {
    let stdin = path == Path::new("-");
    let file = match stdin {
        true => "standard input".to_owned(),
        false => path.display().to_string(),
    };
    let error = |message: String| HarError {
        file: file.clone(),
        message,
    };
    let bytes = match stdin {
        true => crate::input::read_stdin(crate::input::Kind::Har),
        false => crate::input::read(path, crate::input::Kind::Har),
    };
    let bytes = bytes.map_err(|e| error(e.why()))?;
    let mut json = serde_json::Deserializer::from_slice(&bytes);
    let har: Har = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let at = e.path().to_string();
        let inner = e.into_inner();
        match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                error(format!("not JSON: {inner}"))
            }
            _ => error(format!(
                "at {at}: {inner} (a HAR 1.2 file: log.entries[].request and .response)"
            )),
        }
    })?;
    let mut session = Session::default();
    let mut exchanges = Vec::new();
    let mut notes = Vec::new();
    for (index, entry) in har.log.entries.iter().enumerate() {
        let at = format!("log.entries[{index}]");
        match exchange(entry, &file) {
            Ok(Some(exchange)) => exchanges.push((exchange, session.clone())),
            Ok(None) => observe(&mut session, entry),
            Err(why) => notes.push(format!("{file}: {at}: {why}")),
        }
    }
    Ok(Imported { exchanges, notes })
}

/// The entry's JSON-RPC request, when it is a POST with a JSON body.
fn request_message(entry: &Entry) -> Option<Value> {
    if !entry.request.method.eq_ignore_ascii_case("POST") {
        return None;
    }
    let text = entry.request.post_data.as_ref()?.text.as_deref()?;
    serde_json::from_str(text).ok()
}

/// Why a POST body that names `tools/call` could not be read as JSON, if so: such an entry is
/// noted, not passed over in silence (a body nested deeper than the JSON reader's 128 levels).
fn unread_call(entry: &Entry) -> Option<String> {
    let text = entry.request.post_data.as_ref()?.text.as_deref()?;
    if !entry.request.method.eq_ignore_ascii_case("POST") || !text.contains("tools/call") {
        return None;
    }
    let error = serde_json::from_str::<Value>(text).err()?;
    Some(format!(
        "request.postData.text names tools/call but is not JSON that can be read: {error}"
    ))
}

fn observe(session: &mut Session, entry: &Entry) {
    let Some(request) = request_message(entry) else {
        return;
    };
    let status = u16::try_from(entry.response.status).unwrap_or(0);
    let body = body(&entry.response.content, status).unwrap_or_default();
    session.observe(
        &request,
        header(&entry.response.headers, "content-type"),
        &body,
    );
}

/// The entry as a `tools/call` exchange; `None` when it is another request.
fn exchange(entry: &Entry, file: &str) -> Result<Option<Exchange>, String> {
    let Some(request) = request_message(entry).filter(is_tool_call) else {
        return unread_call(entry).map_or(Ok(None), Err);
    };
    let status = u16::try_from(entry.response.status)
        .ok()
        .filter(|s| (100..=599).contains(s))
        .ok_or_else(|| {
            format!(
                "response.status {} is no HTTP status (the exporter saw no response)",
                entry.response.status
            )
        })?;
    let body = body(&entry.response.content, status)?;
    if body.len() > MAX_RECORDED_BODY {
        return Err(format!(
            "the response body is larger than {MAX_RECORDED_BODY} bytes"
        ));
    }
    let wait = entry.timings.as_ref().and_then(|t| t.wait).unwrap_or(0.0);
    Ok(Some(Exchange {
        origin: format!("{file} ({})", entry.request.url),
        protocol_version: header(&entry.request.headers, "mcp-protocol-version").map(str::to_owned),
        request,
        status,
        headers: entry
            .response
            .headers
            .iter()
            .map(|h| (h.name.to_ascii_lowercase(), h.value.clone()))
            .collect(),
        body,
        arrivals: Vec::new(),
        head_ms: bounded_ms(whole_ms(wait)),
        end: BodyEnd::Complete,
        client_left_ms: None,
    }))
}

/// A HAR time (milliseconds, -1 when unknown) as whole milliseconds.
fn whole_ms(ms: f64) -> u64 {
    match ms.is_finite() && ms > 0.0 {
        // Bounded by MAX_RECORDED_WAIT_MS before the cast, so it cannot truncate.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        true => ms.min(1e9).round() as u64,
        false => 0,
    }
}

/// The response body: `content.text`, decoded when `content.encoding` says base64. No text
/// is an empty body only where the status carries none (204, 304, 1xx); otherwise the exporter
/// kept no body, and a case made of it would be wrong.
fn body(content: &Content, status: u16) -> Result<Vec<u8>, String> {
    let Some(text) = content.text.as_deref() else {
        return match crate::case::http::has_body(status) {
            false => Ok(Vec::new()),
            true => Err("response.content has no text: the exporter kept no body".to_owned()),
        };
    };
    match content.encoding.as_deref() {
        Some("base64") => base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| format!("response.content.text is not base64: {e}")),
        None | Some("") => Ok(text.as_bytes().to_vec()),
        Some(other) => Err(format!(
            "response.content.encoding {other:?} is not one a HAR body has (base64, or none)"
        )),
    }
}

fn header<'a>(headers: &'a [Header], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case(name))
        .map(|h| h.value.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
    use serde_json::json;

    fn entry(request: Value, status: i64, content: Value) -> Value {
        json!({
            "request": {"method": "POST", "url": "http://127.0.0.1:1/mcp",
                        "headers": [{"name": "MCP-Protocol-Version", "value": "2025-11-25"}],
                        "postData": {"mimeType": "application/json", "text": request.to_string()}},
            "response": {"status": status, "headers": [{"name": "Content-Type", "value": "application/json"}],
                         "content": content},
            "timings": {"wait": 12.6}
        })
    }

    fn read(entries: Vec<Value>) -> Imported {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("capture.har");
        std::fs::write(&path, json!({"log": {"entries": entries}}).to_string()).unwrap();
        read_har(&path).unwrap()
    }

    #[test]
    fn calls_come_with_the_session_before_them_and_base64_bodies_decoded() {
        let call =
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "t"}});
        let list = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"});
        let listed = json!({"jsonrpc": "2.0", "id": 4, "result": {"tools": [{"name": "t"}]}});
        let answer = r#"{"jsonrpc":"2.0","id":5,"result":{"content":[]}}"#;
        let encoded = base64::engine::general_purpose::STANDARD.encode(answer);
        let imported = read(vec![
            entry(list, 200, json!({"text": listed.to_string()})),
            entry(call, 200, json!({"text": encoded, "encoding": "base64"})),
        ]);
        assert!(imported.notes.is_empty(), "{:?}", imported.notes);
        let [(exchange, session)] = &imported.exchanges[..] else {
            panic!("{:?}", imported.exchanges)
        };
        assert_eq!(exchange.body, answer.as_bytes());
        assert_eq!(exchange.head_ms, 13);
        assert_eq!(exchange.protocol_version.as_deref(), Some("2025-11-25"));
        assert_eq!(session.tools, [json!({"name": "t"})]);
    }

    #[test]
    fn a_call_without_a_response_is_a_note_naming_the_entry() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call"});
        let imported = read(vec![entry(call, 0, json!({}))]);
        assert!(imported.exchanges.is_empty());
        let [note] = &imported.notes[..] else {
            panic!("{:?}", imported.notes)
        };
        assert!(
            note.contains("capture.har: log.entries[0]: response.status 0 is no HTTP status"),
            "{note}"
        );
    }
}

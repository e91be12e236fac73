//! A recorded answer as a case's reply that reproduces it byte for byte.
//!
//! The body form is the most readable one that renders to the same bytes, checked by rendering
//! it as the wire server will (`wire::script::response`) with the recorded request's
//! placeholders: `json` (pretty in the file, sent compactly) when the server sent compact JSON,
//! SSE `event` tables (with the mean gap between events) when the stream's events render as
//! written (LF line ends, fields in the usual order), `raw` otherwise (CRLF streams, JSON with
//! spaces). The echoed id becomes `"$id"` in all of them.

use super::blocks::{self, Block};
use super::exchange::{Exchange, bounded_ms};
use super::id_span::mark_id;
use super::sse_form::{events_form, mark_progress, mark_sse};
use crate::case::http::has_body;
use crate::case::{End, Event, Reply, header_problem};
use crate::classify::BodyEnd;
use crate::wire::Placeholders;
use crate::wire::response::Body;
use crate::wire::script;
use serde_json::Value;
use std::collections::BTreeMap;

/// Response headers a reply does not carry: the wire server writes the framing ones itself,
/// and a recorded date, server name or session id belongs to the recorded run, not the replay.
const DROPPED_HEADERS: [&str; 9] = [
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "date",
    "server",
    "mcp-session-id",
    "content-encoding",
];

/// A recorded answer, ready to be written or faulted.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The status.
    pub status: u16,
    /// The headers a reply keeps.
    pub headers: BTreeMap<String, String>,
    /// The Content-Type as received.
    pub content_type: Option<String>,
    /// The body.
    pub form: Form,
    /// Milliseconds before the status line.
    pub delay_ms: u64,
    /// Milliseconds between SSE events (the recorded mean).
    pub event_gap_ms: u64,
    /// How the body ended.
    pub end: End,
    /// What of the answer the case cannot hold as it came, and what it holds instead.
    pub notes: Vec<String>,
}

/// A recorded body, with the echoed id as a placeholder.
#[derive(Debug, Clone)]
pub enum Form {
    /// No body.
    Empty,
    /// Compact JSON, kept pretty (the wire server sends `json` compactly).
    Json(String),
    /// Bytes as sent.
    Raw(String),
    /// SSE events that render as sent.
    Events(Vec<Event>),
    /// SSE events as sent (sent as one `raw` body).
    SseRaw(Vec<Block>),
}

impl Recorded {
    /// The reply of `exchange`, or why it cannot be one (a body that is not UTF-8 text).
    pub fn of(exchange: &Exchange) -> Result<Recorded, String> {
        let text = std::str::from_utf8(&exchange.body)
            .map_err(|_| "its body is not UTF-8 text, which a case file cannot hold".to_owned())?;
        let mut notes = Vec::new();
        let text = match has_body(exchange.status) || text.is_empty() {
            true => text,
            false => {
                notes.push(format!(
                    "the {} bytes that came after the head of this {} are left out: HTTP {} \
                     carries no body, so a client reads them as the start of the next response",
                    text.len(),
                    exchange.status,
                    exchange.status
                ));
                ""
            }
        };
        let content_type = exchange.header("content-type").map(str::to_owned);
        let form = form(exchange, text, content_type.as_deref());
        let event_gap_ms = match &form {
            Form::Events(_) => mean_gap(exchange, text),
            _ => 0,
        };
        let end = match (exchange.client_left_ms, exchange.end) {
            (Some(after), _) => {
                notes.push(format!(
                    "the client closed its connection {after} ms after the request, with the \
                     answer unfinished: the case sends what the server had sent by then, then \
                     nothing (a stall)"
                ));
                End::Stall
            }
            (None, BodyEnd::Complete) => End::Complete,
            (None, BodyEnd::Cut) => End::Close,
        };
        Ok(Recorded {
            status: exchange.status,
            headers: kept_headers(&exchange.headers, &mut notes),
            content_type,
            form,
            delay_ms: bounded_ms(exchange.head_ms),
            event_gap_ms,
            end,
            notes,
        })
    }

    /// The same answer with the echoed id changed to `"$other_id"` (another id of the same
    /// type), or `None` when it echoes none.
    pub fn with_other_id(&self) -> Option<Recorded> {
        let placeholder = Value::from("$id");
        let other = "\"$other_id\"";
        let form = match &self.form {
            Form::Json(text) => Form::Json(pretty(&mark_id(text, &placeholder, other)?)?),
            Form::Raw(text) => Form::Raw(mark_id(text, &placeholder, other)?),
            Form::Events(events) => {
                let mut events = events.clone();
                let changed = events.iter_mut().any(|event| {
                    let marked = event.data_raw.as_deref().and_then(|data| {
                        mark_id(data, &placeholder, other) // the response is one event
                    });
                    marked.map(|data| event.data_raw = Some(data)).is_some()
                });
                changed.then_some(Form::Events(events))?
            }
            Form::SseRaw(blocks) => {
                let text: String = blocks.iter().map(|b| b.text.as_str()).collect();
                let marked = mark_sse(&text, &placeholder, other);
                (marked != text).then(|| Form::SseRaw(blocks::split(&marked)))?
            }
            Form::Empty => return None,
        };
        Some(Recorded {
            form,
            ..self.clone()
        })
    }

    /// The index of the event that carries the response (the first data that is a JSON
    /// object without `method`: requests and notifications come before it), for SSE forms.
    pub fn response_event(&self) -> Option<usize> {
        let data: Vec<Option<&str>> = match &self.form {
            Form::Events(events) => events.iter().map(|e| e.data_raw.as_deref()).collect(),
            Form::SseRaw(blocks) => blocks.iter().map(|b| b.data.as_deref()).collect(),
            _ => return None,
        };
        data.iter().position(|data| {
            data.and_then(|d| serde_json::from_str::<Value>(d).ok())
                .is_some_and(|m| m.is_object() && m.get("method").is_none())
        })
    }

    /// How many SSE events it has (0 for other bodies).
    pub fn events(&self) -> usize {
        match &self.form {
            Form::Events(events) => events.len(),
            Form::SseRaw(blocks) => blocks.len(),
            _ => 0,
        }
    }

    /// Keeps only the first `n` SSE events.
    pub fn truncate_events(&mut self, n: usize) {
        match &mut self.form {
            Form::Events(events) => events.truncate(n),
            Form::SseRaw(blocks) => blocks.truncate(n),
            _ => {}
        }
    }

    /// The case reply.
    pub fn reply(&self) -> Reply {
        let mut reply = Reply {
            status: Some(self.status),
            headers: self.headers.clone(),
            delay_ms: self.delay_ms,
            event_gap_ms: self.event_gap_ms,
            end: self.end,
            ..Reply::default()
        };
        // The Content-Type the body form implies; the received one is written when it differs.
        // An SSE answer stalled or cut before its first event has no body form, and keeps it.
        let implied = match &self.form {
            Form::Empty => return reply,
            Form::Json(text) => {
                reply.json = Some(text.clone());
                Some("application/json")
            }
            Form::Raw(text) => {
                reply.raw = Some(text.clone());
                Some("application/json")
            }
            Form::Events(events) if events.is_empty() => None,
            Form::Events(events) => {
                reply.event = events.clone();
                Some("text/event-stream")
            }
            Form::SseRaw(blocks) if blocks.is_empty() => None,
            Form::SseRaw(blocks) => {
                reply.raw = Some(blocks.iter().map(|b| b.text.as_str()).collect());
                Some("application/json")
            }
        };
        if self.content_type.as_deref() != implied {
            reply.content_type = self.content_type.clone();
        }
        reply
    }
}

/// The most readable body form that renders as `text` came, with the echoed id as `"$id"`
/// (in a JSON body whatever its Content-Type says, none included).
fn form(exchange: &Exchange, text: &str, content_type: Option<&str>) -> Form {
    let id = exchange.request_id();
    match media_type(content_type).as_str() {
        _ if text.is_empty() => Form::Empty,
        "application/json" => {
            let marked = mark_id(text, &id, "\"$id\"").unwrap_or_else(|| text.to_owned());
            json_form(&marked)
                .filter(|form| renders_as(form, exchange))
                .unwrap_or(Form::Raw(marked))
        }
        "text/event-stream" => {
            let marked = mark_progress(&mark_sse(text, &id, "\"$id\""), &exchange.request);
            let blocks = blocks::split(&marked);
            events_form(&blocks)
                .map(Form::Events)
                .filter(|form| renders_as(form, exchange))
                .unwrap_or(Form::SseRaw(blocks))
        }
        _ => Form::Raw(mark_id(text, &id, "\"$id\"").unwrap_or_else(|| text.to_owned())),
    }
}

/// The media type of a Content-Type, lowercased, without parameters.
pub fn media_type(content_type: Option<&str>) -> String {
    let value = content_type.unwrap_or_default();
    let media = value.split(';').next().unwrap_or_default();
    media.trim().to_ascii_lowercase()
}

/// A JSON text, pretty.
fn pretty(text: &str) -> Option<String> {
    let value: Value = serde_json::from_str(text).ok()?;
    serde_json::to_string_pretty(&value).ok()
}

fn json_form(marked: &str) -> Option<Form> {
    pretty(marked).map(Form::Json)
}

/// Whether `form` (as a reply of `exchange`'s status) renders to the recorded body, with the
/// recorded request's placeholders.
fn renders_as(form: &Form, exchange: &Exchange) -> bool {
    let recorded = Recorded {
        status: exchange.status,
        headers: BTreeMap::new(),
        content_type: None,
        form: form.clone(),
        delay_ms: 0,
        event_gap_ms: 0,
        end: End::Complete,
        notes: Vec::new(),
    };
    let placeholders = Placeholders::from_request(&exchange.request);
    body_bytes(&script::response(&as_loaded(recorded.reply()), &placeholders).body) == exchange.body
}

/// `reply` as loading a case file leaves it: a `json` text compact, as the wire server sends it.
pub fn as_loaded(mut reply: Reply) -> Reply {
    if let Some(json) = &reply.json {
        let compact = serde_json::from_str::<Value>(json).map(|v| v.to_string());
        reply.json = compact.ok().or(reply.json);
    }
    reply
}

/// A rendered body's bytes.
pub fn body_bytes(body: &Body) -> Vec<u8> {
    match body {
        Body::Empty => Vec::new(),
        Body::Fixed(bytes) => bytes.clone(),
        Body::Events(events) => events.concat(),
    }
}

/// The mean gap between the arrivals of consecutive events, in whole milliseconds.
fn mean_gap(exchange: &Exchange, body: &str) -> u64 {
    let mut end = 0;
    let times: Vec<u64> = blocks::split(body)
        .iter()
        .filter_map(|block| {
            end += block.text.len();
            exchange.arrived_by(end)
        })
        .collect();
    let gaps = times.len().saturating_sub(1) as u64;
    let spread = match (times.first(), times.last()) {
        (Some(first), Some(last)) => last.saturating_sub(*first),
        _ => 0,
    };
    bounded_ms(spread.checked_div(gaps).unwrap_or(0))
}

/// The headers a reply keeps: not the dropped ones, and not one a case cannot carry (a note
/// says which and why).
fn kept_headers(headers: &[(String, String)], notes: &mut Vec<String>) -> BTreeMap<String, String> {
    let mut kept = BTreeMap::new();
    for (name, value) in headers {
        if DROPPED_HEADERS.contains(&name.as_str()) {
            continue;
        }
        match header_problem(name, value) {
            Some(why) => notes.push(format!("the header {name:?} is left out: {why}")),
            None => {
                kept.insert(name.clone(), value.clone());
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn exchange(content_type: &str, body: &str, arrivals: Vec<(usize, u64)>) -> Exchange {
        Exchange {
            arrivals,
            ..super::super::exchange::sample(content_type, body)
        }
    }

    /// The body the reply sends to a request with id `id`.
    fn sent(recorded: &Recorded, id: Value) -> String {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"});
        let reply = as_loaded(recorded.reply());
        let response = script::response(&reply, &Placeholders::from_request(&request));
        String::from_utf8(body_bytes(&response.body)).unwrap()
    }

    #[test]
    fn each_body_replays_byte_for_byte_with_the_replays_id() {
        let crlf = "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\r\n\r\n";
        let lf = ": hi\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
        let compact = r#"{"jsonrpc":"2.0","id":3,"result":{"isError":false}}"#;
        let spaced = r#"{"jsonrpc": "2.0", "id": 3, "result": {}}"#;
        for (content_type, body, form) in [
            ("text/event-stream", crlf, "SseRaw"),
            ("text/event-stream", lf, "Events"),
            ("application/json", compact, "Json"),
            ("application/json", spaced, "Raw"),
            ("text/html", "<p>3</p>", "Raw"),
        ] {
            let recorded = Recorded::of(&exchange(content_type, body, Vec::new())).unwrap();
            assert!(
                format!("{:?}", recorded.form).starts_with(form),
                "{body:?}: {recorded:?}"
            );
            assert_eq!(sent(&recorded, json!(3)), body);
            let replayed = body.replace("\"id\":3", "\"id\":\"abc\"");
            let replayed = replayed.replace("\"id\": 3", "\"id\": \"abc\"");
            assert_eq!(sent(&recorded, json!("abc")), replayed, "{body:?}");
        }
    }

    #[test]
    fn headers_timing_and_the_content_type_are_kept_as_the_case_format_needs() {
        let body = "data: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
        let first = body.find("\n\n").unwrap() + 2;
        let arrivals = vec![(first, 0), (body.len(), 40)];
        let recorded = Recorded::of(&exchange("text/event-stream", body, arrivals)).unwrap();
        let reply = recorded.reply();
        assert_eq!((reply.delay_ms, reply.event_gap_ms), (7, 40));
        assert_eq!(reply.content_type, None, "implied by the events");
        assert_eq!(reply.headers.keys().collect::<Vec<_>>(), ["x-kept"]);
        assert_eq!(recorded.response_event(), Some(1));
        let wrong = recorded.with_other_id().unwrap();
        assert!(sent(&wrong, json!(3)).contains("\"id\":1003"));
    }

    #[test]
    fn progress_goes_out_with_the_replaying_clients_token() {
        let body = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":9,\"progress\":1}}\n\n";
        let mut exchange = exchange("text/event-stream", body, Vec::new());
        exchange.request["params"] = json!({"_meta": {"progressToken": 9}});
        let recorded = Recorded::of(&exchange).unwrap();
        let request = json!({"id": 1, "params": {"_meta": {"progressToken": "p"}}});
        let reply = as_loaded(recorded.reply());
        let response = script::response(&reply, &Placeholders::from_request(&request));
        let sent = String::from_utf8(body_bytes(&response.body)).unwrap();
        assert_eq!(sent, body.replace(":9,", ":\"p\","));
    }

    #[test]
    fn a_body_that_is_not_text_cannot_be_a_case() {
        let mut exchange = exchange("application/json", "", Vec::new());
        exchange.body = vec![0xff, 0xfe];
        assert!(Recorded::of(&exchange).unwrap_err().contains("not UTF-8"));
    }
}

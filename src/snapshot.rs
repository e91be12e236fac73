//! The snapshot view of a case record: what a client observed and what the server saw, with
//! everything that changes between runs (ports, times, session ids) left out or redacted, so
//! that a snapshot changes only when behaviour does.

use crate::observation::{AdapterReport, Observation};
use crate::record::CaseRecord;
use crate::verdict::Verdict;
use crate::wire::Exchange;
use serde::Serialize;
use std::collections::BTreeMap;

/// Request headers that carry the protocol; the snapshot shows these, as the client sent them.
const PROTOCOL_HEADERS: [&str; 6] = [
    "accept",
    "content-type",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
];

/// A case record as it is snapshotted.
#[derive(Debug, Serialize)]
pub struct SnapshotView {
    /// The case id.
    pub case: String,
    /// One entry per call.
    pub calls: Vec<CallView>,
    /// What the server saw.
    pub server: ServerView,
}

/// One call in a snapshot.
#[derive(Debug, Serialize)]
pub struct CallView {
    /// The verdict.
    pub verdict: Verdict,
    /// The observation, redacted; absent for hangs and crashes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observed: Option<Observation>,
    /// Why the adapter could not run the call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
    /// `tools/call` POSTs during this call.
    pub tool_posts: u32,
    /// Each request check that applied: `pass`, or `fail (grade)`. The details stay out: they
    /// can name times, which change between runs.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<&'static str, String>,
}

/// What the server saw during the case.
#[derive(Debug, Serialize)]
pub struct ServerView {
    /// Request counts by `HTTP-method JSON-RPC-method` (`POST tools/call`, `GET`). GETs
    /// without `Last-Event-ID` (a standalone stream, a probe) count once however many came:
    /// clients retry it on their own clock (mcp 1.x: again a second after a 405), so how many
    /// came depends on how long the session lived, not on what the client does with errors.
    pub requests: BTreeMap<String, u32>,
    /// The protocol headers of the first request of each kind.
    pub headers: BTreeMap<String, BTreeMap<String, String>>,
}

impl SnapshotView {
    /// The view of `record`.
    pub fn of(record: &CaseRecord) -> Self {
        let calls = record.calls.iter().map(|call| CallView {
            verdict: call.verdict,
            observed: match &call.report {
                Some(AdapterReport::Observed(o)) => Some(redacted(o)),
                _ => None,
            },
            unsupported: match &call.report {
                Some(AdapterReport::Unsupported { unsupported }) => Some(unsupported.clone()),
                _ => None,
            },
            tool_posts: call.tool_posts,
            checks: call
                .checks
                .iter()
                .map(|c| (c.name, check_word(c)))
                .collect(),
        });
        SnapshotView {
            case: record.id.clone(),
            calls: calls.collect(),
            server: server_view(&record.exchanges),
        }
    }
}

fn check_word(check: &crate::checks::Check) -> String {
    if check.passed {
        "pass".to_owned()
    } else {
        format!("fail ({})", check.grade)
    }
}

fn server_view(exchanges: &[Exchange]) -> ServerView {
    let mut requests = BTreeMap::new();
    let mut headers = BTreeMap::new();
    // Whether a standalone GET was counted: the first is, the others are not.
    let mut standalone = false;
    for exchange in exchanges {
        if let Some(kind) = stdio_kind(exchange) {
            // Whether a client's close reached the server before the case ended is timing.
            if kind == "server event stdin_closed" {
                continue;
            }
            let count: &mut u32 = requests.entry(kind).or_insert(0);
            *count = count.saturating_add(1);
            continue;
        }
        let kind = match &exchange.jsonrpc_method {
            Some(method) => format!("{} {method}", exchange.http_method),
            None => exchange.http_method.to_string(),
        };
        let count: &mut u32 = requests.entry(kind.clone()).or_insert(0);
        if !is_standalone_get(exchange) {
            *count = count.saturating_add(1);
        } else if !standalone {
            standalone = true;
            *count = count.saturating_add(1);
        }
        headers
            .entry(kind)
            .or_insert_with(|| protocol_headers(exchange));
    }
    ServerView { requests, headers }
}

/// What a stdio server process relayed, in the words of a stdio case (`stdin tools/call`,
/// `stdin not JSON`, `server started`, `server event exit`); `None` for an HTTP request.
fn stdio_kind(exchange: &Exchange) -> Option<String> {
    use crate::stdio::action::paths;
    let path = exchange.path.as_str();
    if path.starts_with(paths::HOLD) {
        return Some("server started".to_owned());
    }
    if path == paths::EVENT {
        let event: serde_json::Value = serde_json::from_str(&exchange.body).unwrap_or_default();
        let name = event
            .get("event")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?");
        return Some(format!("server event {name}"));
    }
    if path != paths::LINE {
        return None;
    }
    let message: Option<serde_json::Value> = crate::json_text::value(&exchange.body);
    Some(match (&exchange.jsonrpc_method, message) {
        (Some(method), _) => format!("stdin {method}"),
        (None, Some(m)) if m.get("id").is_some() => "stdin response".to_owned(),
        (None, Some(_)) => "stdin other".to_owned(),
        (None, None) => "stdin not JSON".to_owned(),
    })
}

/// A GET that resumes nothing: the standalone stream a client opens (or probes for) itself.
fn is_standalone_get(exchange: &Exchange) -> bool {
    exchange.http_method.as_str() == "GET" && exchange.header("last-event-id").is_none()
}

fn protocol_headers(exchange: &Exchange) -> BTreeMap<String, String> {
    let mut shown = BTreeMap::new();
    for name in PROTOCOL_HEADERS {
        if let Some(value) = exchange.header(name) {
            // Session ids are minted per connection; whether one was sent is the behaviour.
            let value = if name == "mcp-session-id" {
                "[session]"
            } else {
                value
            };
            shown.insert(name.to_owned(), value.to_owned());
        }
    }
    shown
}

fn redacted(observation: &Observation) -> Observation {
    Observation {
        detail: redact_http_dates(&redact_ports(&observation.detail)),
        ..observation.clone()
    }
}

/// `Wed, 02 Dec 2026 13:44:39 GMT` → `[date]`: the `Retry-After` dates the server makes up,
/// which a client may quote.
pub fn redact_http_dates(text: &str) -> String {
    const DAYS: [&str; 7] = [
        "Mon, ", "Tue, ", "Wed, ", "Thu, ", "Fri, ", "Sat, ", "Sun, ",
    ];
    const LEN: usize = "Wed, 02 Dec 2026 13:44:39 GMT".len();
    let mut out = text.to_owned();
    for day in DAYS {
        let mut from = 0;
        while let Some(at) = out[from..].find(day).map(|i| i + from) {
            let date = out.get(at..at + LEN);
            if date.is_some_and(|d| d.ends_with(" GMT") && httpdate::parse_http_date(d).is_ok()) {
                out.replace_range(at..at + LEN, "[date]");
            }
            from = at + 1;
        }
    }
    out
}

/// `127.0.0.1:43117` → `127.0.0.1:[port]`.
pub fn redact_ports(text: &str) -> String {
    const HOST: &str = "127.0.0.1:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(HOST) {
        let after = &rest[at + HOST.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&rest[..at + HOST.len()]);
        out.push_str(if digits > 0 { "[port]" } else { "" });
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_http_dates_and_leaves_other_text() {
        let text = "retry_after: \"Wed, 02 Dec 2026 13:53:59 GMT\", Wed, later GMT";
        assert_eq!(
            redact_http_dates(text),
            "retry_after: \"[date]\", Wed, later GMT"
        );
    }

    fn request(method: &str, jsonrpc: Option<&str>, headers: &[(&str, &str)]) -> Exchange {
        Exchange {
            at_ms: 0,
            call: 0,
            http_method: method.into(),
            path: "/mcp".into(),
            jsonrpc_method: jsonrpc.map(str::to_owned),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: String::new(),
            dropped: 0,
            reply: crate::wire::Sent::default(),
        }
    }

    #[test]
    fn standalone_gets_count_once_and_resuming_gets_and_posts_each() {
        let standalone = request("GET", None, &[]);
        let resume = request("GET", None, &[("last-event-id", "e-1")]);
        let call = request("POST", Some("tools/call"), &[]);
        let record = [
            standalone.clone(),
            call.clone(),
            standalone,
            resume.clone(),
            resume,
            call,
        ];
        let requests = server_view(&record).requests;
        let counts: Vec<(&str, u32)> = requests.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        // Two resuming GETs, and the standalone ones once.
        assert_eq!(counts, [("GET", 3), ("POST tools/call", 2)]);
    }

    #[test]
    fn redacts_every_loopback_port_and_nothing_else() {
        let text = "GET http://127.0.0.1:4431/mcp then 127.0.0.1:9 and 127.0.0.1:x";
        assert_eq!(
            redact_ports(text),
            "GET http://127.0.0.1:[port]/mcp then 127.0.0.1:[port] and 127.0.0.1:x"
        );
    }
}

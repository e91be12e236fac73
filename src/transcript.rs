//! The transcript: what the server received and sent during a case, as text for a person
//! reading a failure.

use crate::wire::Exchange;
use std::fmt::Write;

/// How much of each body a transcript shows.
const BODY_PREVIEW: usize = 600;

/// The request and response headers a reader of an MCP failure needs; the rest is noise.
const SHOWN_HEADERS: [&str; 7] = [
    "accept",
    "content-type",
    "mcp-protocol-version",
    "mcp-session-id",
    "mcp-method",
    "mcp-name",
    "last-event-id",
];

/// Renders every exchange: `→` what arrived, `←` what went back.
pub fn render(exchanges: &[Exchange]) -> String {
    let mut out = String::new();
    for exchange in exchanges {
        render_exchange(&mut out, exchange);
    }
    if out.is_empty() {
        out.push_str("(the server received no request)\n");
    }
    out
}

fn render_exchange(out: &mut String, e: &Exchange) {
    let method = e
        .jsonrpc_method
        .as_deref()
        .map(|m| format!(" {m}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "→ {} {}{} (call {}, +{} ms)",
        e.http_method, e.path, method, e.call, e.at_ms
    );
    for (name, value) in &e.headers {
        if SHOWN_HEADERS.contains(&name.as_str()) {
            let _ = writeln!(out, "    {name}: {value}");
        }
    }
    if !e.body.is_empty() {
        let _ = writeln!(out, "    {}", preview(&e.body, e.dropped));
    }
    if e.dropped > 0 {
        let _ = writeln!(
            out,
            "    ({} bytes of this request not kept{BOUNDS})",
            e.dropped
        );
    }
    let status = e
        .reply
        .status
        .map_or_else(|| "no status line".to_owned(), |s| s.to_string());
    let end = e.reply.end.map_or("in progress", Into::into);
    let _ = writeln!(out, "← {status} by {}, ended: {end}", e.reply.by);
    if !e.reply.bytes.is_empty() {
        let _ = writeln!(out, "    {}", preview(&e.reply.bytes, e.reply.dropped));
    }
    if e.reply.dropped > 0 {
        let _ = writeln!(
            out,
            "    ({} bytes of this reply not kept{BOUNDS})",
            e.reply.dropped
        );
    }
    for waited in &e.reply.awaited {
        let how = if waited.answered {
            "answered"
        } else {
            "no answer: went on without it"
        };
        let _ = writeln!(
            out,
            "    (waited for the answer to request {}: {how})",
            waited.id
        );
    }
}

/// Where a note on bytes not kept sends the reader.
const BOUNDS: &str = ": the record's bounds, docs/wire-server.md";

/// One line: control characters escaped so the transcript shows CR/LF framing, capped. Quotes
/// stay as they are, so a JSON body reads as JSON. The record kept `text` and left out
/// `dropped` more bytes.
fn preview(text: &str, dropped: usize) -> String {
    let escaped: String = text
        .chars()
        .flat_map(|c| -> Box<dyn Iterator<Item = char>> {
            match c {
                '\r' => Box::new("\\r".chars()),
                '\n' => Box::new("\\n".chars()),
                '\t' => Box::new("\\t".chars()),
                c if c.is_control() => Box::new(c.escape_unicode()),
                c => Box::new(std::iter::once(c)),
            }
        })
        .collect();
    let all = text.len().saturating_add(dropped);
    match escaped.char_indices().nth(BODY_PREVIEW) {
        Some((cut, _)) => format!("{}… ({all} bytes in all)", &escaped[..cut]),
        None if dropped > 0 => format!("{escaped}… ({all} bytes in all)"),
        None => escaped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Answerer, Ended, Sent};

    fn exchange() -> Exchange {
        Exchange {
            at_ms: 3,
            call: 0,
            http_method: "POST".into(),
            path: "/mcp".into(),
            jsonrpc_method: Some("tools/call".into()),
            headers: vec![
                ("mcp-method".into(), "tools/call".into()),
                ("host".into(), "x".into()),
            ],
            body: "{\"id\":1}".into(),
            dropped: 0,
            reply: Sent {
                by: Answerer::Script,
                status: Some(503),
                end: Some(Ended::Complete),
                bytes: "HTTP/1.1 503 x\r\n\r\n".into(),
                ..Sent::default()
            },
        }
    }

    #[test]
    fn shows_both_directions_with_escaped_framing_and_only_mcp_headers() {
        let text = render(&[exchange()]);
        assert_eq!(
            text,
            "→ POST /mcp tools/call (call 0, +3 ms)\n    mcp-method: tools/call\n    {\"id\":1}\n\
             ← 503 by script, ended: complete\n    HTTP/1.1 503 x\\r\\n\\r\\n\n"
        );
    }

    #[test]
    fn escapes_control_characters_but_not_quotes() {
        assert_eq!(preview("a\"b\u{0}\t", 0), "a\"b\\u{0}\\t");
    }

    #[test]
    fn caps_long_bodies_and_says_so() {
        let mut long = exchange();
        long.body = "x".repeat(5_000);
        assert!(render(&[long]).contains("… (5000 bytes in all)"));
        assert_eq!(render(&[]), "(the server received no request)\n");
    }
}

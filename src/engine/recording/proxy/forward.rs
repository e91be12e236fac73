//! Forwarding one request: the upstream's answer streams back to the client as it arrives,
//! and is taken down (bounded) for the case it becomes.

use super::super::exchange::{Exchange, MAX_RECORDED_BODY, is_tool_call};
use super::super::writer::{Report, stem, write_family};
use super::{Shared, UPSTREAM_HEAD_TIMEOUT};
use crate::classify::BodyEnd;
use crate::wire::http::Request;
use serde_json::Value;
use std::time::{Duration, Instant};
use tokio::io::AsyncWriteExt;

/// Request headers that belong to one hop, not to the request.
const HOP_HEADERS: [&str; 7] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "te",
    "upgrade",
];

/// Forwards one request and streams its answer back; whether the connection stays usable.
pub(super) async fn forward<W: AsyncWriteExt + Unpin>(
    shared: &Shared,
    request: Request,
    out: &mut W,
) -> bool {
    let message: Option<Value> = serde_json::from_slice(&request.body).ok();
    let builder = upstream_request(shared, &request);
    let sent = Instant::now();
    let response = match tokio::time::timeout(UPSTREAM_HEAD_TIMEOUT, builder.send()).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => return bad_gateway(out, &format!("upstream failed: {e}")).await,
        Err(_) => return bad_gateway(out, "upstream sent no status line within 60 s").await,
    };
    let head_ms = millis(sent.elapsed());
    let mut taken = Taken::new(&response, head_ms);
    if write_head(out, &response).await.is_err() {
        return false;
    }
    let started = Instant::now();
    let mut response = response;
    let chunked = crate::case::http::has_body(taken.status);
    // Whether the client still reads, and how the upstream's body ended.
    let mut client_ok = true;
    let end = loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                // Only a JSON-RPC request's answer can become or inform a case: a GET's
                // stream passes through untaken.
                if message.is_some() {
                    taken.add(&chunk, millis(started.elapsed()));
                }
                let framed =
                    [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
                if chunked && client_ok && out.write_all(&framed).await.is_err() {
                    // Keep taking the answer down: it is the server's, whoever stopped reading.
                    client_ok = false;
                }
            }
            Ok(None) => break BodyEnd::Complete,
            Err(_) => break BodyEnd::Cut,
        }
    };
    if chunked && client_ok && end == BodyEnd::Complete {
        client_ok = out.write_all(b"0\r\n\r\n").await.is_ok();
    }
    let _ = out.flush().await;
    if let Some(message) = message {
        keep(shared, message, &request, taken, end);
    }
    client_ok && end == BodyEnd::Complete
}

fn upstream_request(shared: &Shared, request: &Request) -> reqwest::RequestBuilder {
    let method = reqwest::Method::from_bytes(request.method.as_str().as_bytes())
        .unwrap_or(reqwest::Method::POST);
    let mut builder = shared.client.request(method, &shared.options.upstream);
    for (name, value) in &request.headers {
        if !HOP_HEADERS.contains(&name.as_str()) {
            builder = builder.header(name, value);
        }
    }
    builder.body(request.body.clone())
}

async fn write_head<W: AsyncWriteExt + Unpin>(
    out: &mut W,
    response: &reqwest::Response,
) -> std::io::Result<()> {
    let status = response.status();
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    for (name, value) in response.headers() {
        if !HOP_HEADERS.contains(&name.as_str()) {
            head.push_str(&format!(
                "{name}: {}\r\n",
                String::from_utf8_lossy(value.as_bytes())
            ));
        }
    }
    if crate::case::http::has_body(status.as_u16()) {
        head.push_str("transfer-encoding: chunked\r\n");
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes()).await?;
    out.flush().await
}

async fn bad_gateway<W: AsyncWriteExt + Unpin>(out: &mut W, why: &str) -> bool {
    let head = format!(
        "HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{why}",
        why.len()
    );
    let _ = out.write_all(head.as_bytes()).await;
    false
}

/// An answer as it is taken down.
struct Taken {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    arrivals: Vec<(usize, u64)>,
    head_ms: u64,
    overflowed: bool,
}

/// The most arrival times one answer keeps (one per chunk); later chunks count as the last.
const MAX_ARRIVALS: usize = 100_000;

impl Taken {
    fn new(response: &reqwest::Response, head_ms: u64) -> Self {
        Taken {
            status: response.status().as_u16(),
            headers: response
                .headers()
                .iter()
                .map(|(n, v)| {
                    (
                        n.as_str().to_owned(),
                        String::from_utf8_lossy(v.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: Vec::new(),
            arrivals: Vec::new(),
            head_ms,
            overflowed: false,
        }
    }

    fn add(&mut self, chunk: &[u8], ms: u64) {
        if self.overflowed || self.body.len().saturating_add(chunk.len()) > MAX_RECORDED_BODY {
            self.overflowed = true;
            return;
        }
        self.body.extend_from_slice(chunk);
        if self.arrivals.len() < MAX_ARRIVALS {
            self.arrivals.push((self.body.len(), ms));
        }
    }
}

/// Learns from a finished exchange, and writes it when it was a `tools/call`.
fn keep(shared: &Shared, message: Value, request: &Request, taken: Taken, end: BodyEnd) {
    let content_type = taken
        .headers
        .iter()
        .find(|(n, _)| n == "content-type")
        .map(|(_, v)| v.clone());
    let Ok(mut state) = shared.state.lock() else {
        return;
    };
    if !is_tool_call(&message) {
        state
            .session
            .observe(&message, content_type.as_deref(), &taken.body);
        return;
    }
    if state.taken >= shared.options.max_exchanges {
        return;
    }
    state.taken += 1;
    let tool = message
        .pointer("/params/name")
        .and_then(Value::as_str)
        .unwrap_or("call");
    let stem = stem(state.taken, tool);
    let reports = match taken.overflowed {
        true => vec![Report::Skipped {
            path: shared.options.out.join(format!("{stem}.toml")),
            why: format!("the answer is larger than {MAX_RECORDED_BODY} bytes"),
        }],
        false => {
            let exchange = Exchange {
                origin: shared.options.upstream.clone(),
                protocol_version: request.header("mcp-protocol-version").map(str::to_owned),
                request: message,
                status: taken.status,
                headers: taken.headers,
                body: taken.body,
                arrivals: taken.arrivals,
                head_ms: taken.head_ms,
                end,
            };
            write_family(
                &shared.options.out,
                &stem,
                &exchange,
                &state.session,
                &shared.options.faults,
            )
        }
    };
    for report in reports {
        let _ = shared.reports.send(report);
    }
    if state.taken >= shared.options.max_exchanges {
        let _ = shared.stop.send(true);
    }
}

fn millis(elapsed: Duration) -> u64 {
    u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
}

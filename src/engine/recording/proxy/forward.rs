//! Forwarding one request: the upstream's answer streams back to the client as it arrives,
//! and is taken down (bounded) for the case it becomes. A client that goes away while it
//! waits ends the forwarding at once: the upstream request is dropped (closing its
//! connection), and what the server had sent by then is kept as a stall.

use super::budget::Held;
use super::keep::{Ended, Finished, Taken, millis};
use super::upstream::{Body, Piece};
use super::{Shared, refuse, upload};
use crate::wire::http::Request;
use serde_json::Value;
use std::time::Instant;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt};

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

/// Once the client has left, how long the upstream still has to end its answer before the
/// exchange is kept as one the client left (a stall): 100 ms. A client that reads the last
/// event and closes does so as the upstream ends the stream, whose end comes by way of the
/// upstream's thread; its answer is complete, not a stall.
const CLIENT_LEFT_GRACE: std::time::Duration = std::time::Duration::from_millis(100);

/// Forwards one request and streams its answer back; whether the connection stays usable.
/// `held` is this request's share of the shared budget; the answer taken down grows it.
pub(super) async fn forward<R, W>(
    shared: &Shared,
    mut request: Request,
    held: Held,
    client: &mut R,
    out: &mut W,
) -> bool
where
    R: AsyncBufRead + Unpin,
    W: AsyncWriteExt + Unpin,
{
    let message: Option<Value> = serde_json::from_slice(&request.body).ok();
    let (body, uploaded) = upload::body(std::mem::take(&mut request.body).into());
    let sent = Instant::now();
    let sending = shared
        .upstream
        .send(upstream_request(shared, &request, body));
    #[cfg(test)]
    if !shared.busy.is_zero() {
        // A busy proxy: its thread does something else from when the request is on its way
        // until well after the upstream has answered.
        while !uploaded.done() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        std::thread::sleep(shared.busy);
    }
    let body = tokio::select! {
        answered = sending => match answered {
            Ok(body) => body,
            Err(why) => return bad_gateway(out, &why).await,
        },
        () = gone(client) => {
            if let Some(message) = message {
                shared.keep(Finished::new(message, &request, None, Ended::ClientLeft(sent.elapsed())));
            }
            return false;
        }
    };
    let Body {
        answered: mut answer,
        task,
    } = body;
    // The wait is the upstream's: from the request's last byte taken to be written to its
    // answer's head, both seen on the upstream's runtime (not when this task got to it).
    let head_at = answer.at;
    let head_ms = millis(head_at.saturating_duration_since(uploaded.at_or(sent)));
    let mut taken = Taken::new(answer.status, &answer.headers, head_ms, held);
    if write_head(out, answer.status, &answer.headers)
        .await
        .is_err()
    {
        return false;
    }
    let chunked = crate::case::http::has_body(taken.status);
    let _answering = shared.answering();
    // Once the client has left: until when the upstream may still end its answer.
    let mut client_left: Option<tokio::time::Instant> = None;
    let end = loop {
        let piece = match client_left {
            None => tokio::select! {
                biased;
                piece = answer.pieces.recv() => piece,
                () = gone(client) => {
                    client_left = Some(tokio::time::Instant::now() + CLIENT_LEFT_GRACE);
                    continue;
                }
            },
            Some(until) => match tokio::time::timeout_at(until, answer.pieces.recv()).await {
                Ok(piece) => piece,
                Err(_) => break Ended::ClientLeft(sent.elapsed()),
            },
        };
        match piece.unwrap_or(Piece::Cut) {
            Piece::Chunk(chunk, at) => {
                // Only a JSON-RPC request's answer can become or inform a case: a GET's
                // stream passes through untaken.
                if message.is_some() {
                    taken.add(&chunk, millis(at.saturating_duration_since(head_at)));
                }
                if client_left.is_none() && chunked {
                    let framed =
                        [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
                    if out.write_all(&framed).await.is_err() {
                        client_left = Some(tokio::time::Instant::now() + CLIENT_LEFT_GRACE);
                    }
                }
            }
            Piece::End => break Ended::Complete,
            Piece::Cut => break Ended::Cut,
        }
    };
    // Dropping the answer closes the upstream connection when its body did not end.
    drop(answer);
    drop(task);
    let mut client_ok = client_left.is_none();
    if client_ok && chunked && end == Ended::Complete {
        client_ok = out.write_all(b"0\r\n\r\n").await.is_ok();
    }
    let _ = out.flush().await;
    if let Some(message) = message {
        shared.keep(Finished::new(message, &request, Some(taken), end));
    }
    client_ok && end == Ended::Complete
}

/// Resolves when the client has closed its side of the connection (or it failed). Bytes it
/// sends meanwhile (a pipelined request) stay buffered for the next read, and the watch ends.
async fn gone<R: AsyncBufRead + Unpin>(client: &mut R) {
    match client.fill_buf().await {
        Ok([]) | Err(_) => {}
        Ok(_) => std::future::pending().await,
    }
}

fn upstream_request(
    shared: &Shared,
    request: &Request,
    body: reqwest::Body,
) -> reqwest::RequestBuilder {
    let method = reqwest::Method::from_bytes(request.method.as_str().as_bytes())
        .unwrap_or(reqwest::Method::POST);
    let mut builder = shared.client.request(method, &shared.options.upstream);
    for (name, value) in &request.headers {
        if !HOP_HEADERS.contains(&name.as_str()) {
            builder = builder.header(name, value);
        }
    }
    builder.body(body)
}

async fn write_head<W: AsyncWriteExt + Unpin>(
    out: &mut W,
    status: reqwest::StatusCode,
    headers: &reqwest::header::HeaderMap,
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    for (name, value) in headers {
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
    refuse(out, 502, why).await;
    false
}

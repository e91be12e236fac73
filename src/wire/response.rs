//! Writing one response as raw bytes, including the broken ones: cut bodies, unfinished chunked
//! streams, resets and stalls. This is why the server writes HTTP itself.

use super::record::Ended;
use super::reply_recorder::ReplyRecorder;
use crate::case::End;
use crate::case::http::has_body;
use std::time::Duration;
use tokio::io::AsyncWriteExt;

/// A response ready to be written.
#[derive(Debug, Clone, Default)]
pub struct Response {
    /// The status; `None` sends no bytes at all.
    pub status: Option<u16>,
    /// Headers besides the framing ones.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
    /// How the exchange ends.
    pub end: End,
    /// Send only this many body bytes, then close.
    pub cut_after: Option<usize>,
    /// Wait before the status line.
    pub delay: Duration,
    /// Wait between SSE events.
    pub event_gap: Duration,
    /// Requests among the SSE events whose answers the server waits for before the next event.
    pub awaits: Vec<Await>,
}

/// A wait for the client's answer to a request the server sent as an SSE event.
#[derive(Debug, Clone, PartialEq)]
pub struct Await {
    /// The event (0-based, in the order sent) that carries the request.
    pub after: usize,
    /// The request's id.
    pub id: serde_json::Value,
    /// The longest wait.
    pub within: Duration,
}

/// A response body.
#[derive(Debug, Clone, Default)]
pub enum Body {
    /// No body bytes.
    #[default]
    Empty,
    /// One piece, sent with Content-Length when it ends normally.
    Fixed(Vec<u8>),
    /// SSE events, each already rendered, each sent as one chunk.
    Events(Vec<Vec<u8>>),
}

/// What the connection does after a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The response is complete; the connection may carry another request.
    KeepAlive,
    /// Close the connection (FIN).
    Close,
    /// Reset the connection (RST).
    Reset,
    /// Keep the connection open and send nothing more.
    Stall,
}

impl Response {
    /// A complete JSON response.
    pub fn json(status: u16, body: String) -> Self {
        let headers = vec![("content-type".into(), "application/json".into())];
        Response {
            status: Some(status),
            headers,
            body: Body::Fixed(body.into_bytes()),
            ..Default::default()
        }
    }

    /// A complete response with no body.
    pub fn empty(status: u16) -> Self {
        Response {
            status: Some(status),
            ..Default::default()
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Content-Length framing only for a body that ends normally; anything that must look
    /// unfinished uses chunked framing without its last chunk. A cut keeps the declared length.
    fn chunked(&self) -> bool {
        matches!(self.body, Body::Events(_))
            || (self.end != End::Complete && self.cut_after.is_none())
    }
}

/// Writes `response`; returns what the connection should do next.
///
/// The record learns how the exchange ends before the last bytes go out: a client that has
/// its whole response may return at once, and the runner then reads the record.
pub async fn send<W: AsyncWriteExt + Unpin>(
    out: &mut W,
    reply: &ReplyRecorder,
    response: &Response,
) -> std::io::Result<Ending> {
    if !response.delay.is_zero() {
        tokio::time::sleep(response.delay).await;
    }
    let Some(status) = response.status else {
        return Ok(conclude(
            reply,
            response,
            false,
            usize::MAX,
            &mut Vec::new(),
        ));
    };
    let chunked = response.chunked();
    let mut budget = response.cut_after.unwrap_or(usize::MAX);
    let mut first = head(status, response, chunked);
    match &response.body {
        Body::Empty => {}
        Body::Fixed(bytes) if chunked => push_chunk(&mut first, take(bytes, &mut budget)),
        Body::Fixed(bytes) => first.extend_from_slice(take(bytes, &mut budget)),
        Body::Events(events) => {
            write(out, reply, &first).await?;
            return send_events(out, reply, response, events, budget).await;
        }
    }
    let ending = conclude(reply, response, chunked, budget, &mut first);
    write(out, reply, &first).await?;
    Ok(ending)
}

async fn send_events<W: AsyncWriteExt + Unpin>(
    out: &mut W,
    reply: &ReplyRecorder,
    response: &Response,
    events: &[Vec<u8>],
    mut budget: usize,
) -> std::io::Result<Ending> {
    // Where the record stood before the last event that asks the client something went out.
    let mut mark = 0;
    for (k, event) in events.iter().enumerate() {
        if k > 0 {
            await_answers(reply, response, k - 1, mark).await;
        }
        if response.awaits.iter().any(|w| w.after == k) {
            mark = reply.mark();
        }
        if k > 0 && !response.event_gap.is_zero() {
            tokio::time::sleep(response.event_gap).await;
        }
        let mut chunk = Vec::new();
        push_chunk(&mut chunk, take(event, &mut budget));
        if k + 1 == events.len() || budget == 0 {
            let ending = conclude(reply, response, true, budget, &mut chunk);
            write(out, reply, &chunk).await?;
            return Ok(ending);
        }
        write(out, reply, &chunk).await?;
    }
    Ok(conclude(reply, response, true, budget, &mut Vec::new()))
}

/// Waits for the answers to the requests event `sent` carried, if any, before the stream goes on
/// (a request that is the last event has nothing after it to hold back); only exchanges from
/// `mark` on, taken before that event went out, can hold an answer to it.
async fn await_answers(reply: &ReplyRecorder, response: &Response, sent: usize, mark: usize) {
    for wait in response.awaits.iter().filter(|w| w.after == sent) {
        reply.await_answer(&wait.id, wait.within, mark).await;
    }
}

/// Decides how the exchange ends once `last` (the final bytes) is written: records it, adds
/// the terminating chunk to `last` when a chunked body completes, and tells the connection
/// what to do next. A cut ends with a close; otherwise the reply's `end` decides.
fn conclude(
    reply: &ReplyRecorder,
    response: &Response,
    chunked: bool,
    budget: usize,
    last: &mut Vec<u8>,
) -> Ending {
    let (how, ending) = match response.end {
        _ if response.cut_after.is_some() && budget == 0 => (Ended::Cut, Ending::Close),
        // A cut that reached past the body still promised `connection: close`.
        End::Complete if response.cut_after.is_some() => (Ended::Complete, Ending::Close),
        End::Complete if response.status.is_some() => (Ended::Complete, Ending::KeepAlive),
        End::Complete | End::Close => (Ended::Close, Ending::Close),
        End::Reset => (Ended::Reset, Ending::Reset),
        End::Stall => (Ended::Stall, Ending::Stall),
    };
    if chunked && how == Ended::Complete {
        last.extend_from_slice(b"0\r\n\r\n");
    }
    reply.end(how);
    ending
}

fn head(status: u16, response: &Response, chunked: bool) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if chunked {
        head.push_str("transfer-encoding: chunked\r\n");
    } else if has_body(status) {
        let length = match &response.body {
            Body::Fixed(bytes) => bytes.len(),
            _ => 0,
        };
        head.push_str(&format!("content-length: {length}\r\n"));
    }
    if response.end != End::Complete || response.cut_after.is_some() {
        head.push_str("connection: close\r\n");
    }
    head.push_str("\r\n");
    head.into_bytes()
}

fn take<'a>(bytes: &'a [u8], budget: &mut usize) -> &'a [u8] {
    let n = bytes.len().min(*budget);
    *budget -= n;
    &bytes[..n]
}

fn push_chunk(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.is_empty() {
        return; // an empty chunk would be the terminating one
    }
    out.extend_from_slice(format!("{:x}\r\n", bytes.len()).as_bytes());
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
}

async fn write<W: AsyncWriteExt + Unpin>(
    out: &mut W,
    reply: &ReplyRecorder,
    bytes: &[u8],
) -> std::io::Result<()> {
    reply.wrote(bytes);
    out.write_all(bytes).await?;
    out.flush().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

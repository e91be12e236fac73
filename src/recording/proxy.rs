//! `record`: a loopback proxy between a client and a real local server. It forwards every
//! request as it came and every answer as it comes (SSE events pass through as they arrive),
//! and writes each `tools/call` exchange as a family of cases ([`write_family`]).
//!
//! Bounds: a request is read as the wire server reads one (16 MiB body, 64 KiB head); an answer
//! body is kept up to [`MAX_RECORDED_BODY`] (a longer one is forwarded, not written); the
//! recorder stops after `max_exchanges` `tools/call` exchanges; the upstream must send its
//! status line within [`UPSTREAM_HEAD_TIMEOUT`].

use super::exchange::{Exchange, MAX_RECORDED_BODY, is_tool_call};
use super::fault::Fault;
use super::loopback::{LoopbackError, loopback_listen, loopback_upstream};
use super::session::Session;
use super::writer::{Report, stem, write_family};
use crate::classify::BodyEnd;
use crate::wire::http::{Request, read_request};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

/// How long the upstream may take to send its status line: 60 s.
pub const UPSTREAM_HEAD_TIMEOUT: Duration = Duration::from_secs(60);

/// The most `tools/call` exchanges one recording may take: 10 000.
pub const MAX_EXCHANGES: usize = 10_000;

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

/// What to record.
#[derive(Debug, Clone)]
pub struct RecorderOptions {
    /// The server's endpoint (loopback `http://`).
    pub upstream: String,
    /// Where to listen (loopback; port 0 picks one).
    pub listen: String,
    /// The folder the cases go to.
    pub out: PathBuf,
    /// The faulted variants to write of each exchange.
    pub faults: Vec<Fault>,
    /// Stop after this many `tools/call` exchanges (1 to [`MAX_EXCHANGES`]).
    pub max_exchanges: usize,
}

/// Why a recording cannot start.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// An address is not loopback or does not parse.
    #[error(transparent)]
    Address(#[from] LoopbackError),
    /// `--max-exchanges` out of bounds.
    #[error("--max-exchanges {0} must be from 1 to {MAX_EXCHANGES}")]
    MaxExchanges(usize),
    /// The listener or the runtime could not start.
    #[error("cannot listen on {0}: {1}")]
    Listen(String, std::io::Error),
}

/// A running recorder.
#[derive(Debug)]
pub struct Recorder {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    reports: mpsc::UnboundedReceiver<Report>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What the connections share.
#[derive(Debug)]
struct Shared {
    options: RecorderOptions,
    client: reqwest::Client,
    state: Mutex<State>,
    reports: mpsc::UnboundedSender<Report>,
    stop: watch::Sender<bool>,
}

#[derive(Debug, Default)]
struct State {
    session: Session,
    /// `tools/call` exchanges taken so far (the number in the next file name, less one).
    taken: usize,
}

impl Recorder {
    /// Checks the addresses, binds the listener and starts forwarding (on a thread of its own).
    pub fn start(options: RecorderOptions) -> Result<Recorder, RecordError> {
        loopback_upstream(&options.upstream)?;
        let listen = loopback_listen(&options.listen)?;
        if !(1..=MAX_EXCHANGES).contains(&options.max_exchanges) {
            return Err(RecordError::MaxExchanges(options.max_exchanges));
        }
        let listen_text = options.listen.clone();
        let listen_error = |e| RecordError::Listen(listen_text.clone(), e);
        let listener = std::net::TcpListener::bind(listen).map_err(listen_error)?;
        listener.set_nonblocking(true).map_err(listen_error)?;
        let addr = listener.local_addr().map_err(listen_error)?;
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .retry(reqwest::retry::never())
            .build()
            .map_err(|e| listen_error(std::io::Error::other(e)))?;
        let (stop, stopped) = watch::channel(false);
        let (sender, reports) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            options,
            client,
            state: Mutex::new(State::default()),
            reports: sender,
            stop: stop.clone(),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(listen_error)?;
        let thread = std::thread::spawn(move || runtime.block_on(serve(listener, shared, stopped)));
        Ok(Recorder {
            addr,
            stop,
            reports,
            thread: Some(thread),
        })
    }

    /// The address clients connect to.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint clients use: the listen address with the upstream's path.
    pub fn url(&self, upstream: &str) -> String {
        let rest = upstream.strip_prefix("http://").unwrap_or(upstream);
        let path = rest.find('/').map_or("/", |at| &rest[at..]);
        format!("http://{}{path}", self.addr)
    }

    /// The next report (a case written or skipped); `None` once the recorder has stopped and
    /// every report was taken.
    pub async fn next_report(&mut self) -> Option<Report> {
        self.reports.recv().await
    }

    /// Stops forwarding (open connections are dropped) and waits for the thread.
    pub fn stop(mut self) -> Vec<Report> {
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let mut rest = Vec::new();
        while let Ok(report) = self.reports.try_recv() {
            rest.push(report);
        }
        rest
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn serve(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    mut stopped: watch::Receiver<bool>,
) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    loop {
        tokio::select! {
            _ = stopped.wait_for(|stop| *stop) => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(connection(stream, shared.clone()));
                } else {
                    // EMFILE and the like: let the backlog drain instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
}

async fn connection(stream: TcpStream, shared: Arc<Shared>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    while let Ok(request) = read_request(&mut reader).await {
        let close = request.wants_close();
        if !forward(&shared, request, &mut write).await || close {
            return;
        }
    }
}

/// Forwards one request and streams its answer back; whether the connection stays usable.
async fn forward<W: AsyncWriteExt + Unpin>(shared: &Shared, request: Request, out: &mut W) -> bool {
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
                taken.add(&chunk, millis(started.elapsed()));
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

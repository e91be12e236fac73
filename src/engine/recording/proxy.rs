//! `record`: a loopback proxy between a client and a real local server. It forwards every
//! request as it came and every answer as it comes (SSE events pass through as they arrive),
//! and writes each `tools/call` exchange as a family of cases (`writer::write_family`).
//!
//! Bounds: a request is read as the wire server reads one (16 MiB body, 64 KiB head), and one
//! it cannot read is answered `400` as the wire server answers it; an answer body is kept up
//! to `MAX_RECORDED_BODY` (a longer one is forwarded, not written); all connections together
//! hold at most [`MAX_HELD_BYTES`] of bodies (a request past it is answered `503`, an answer
//! past it is forwarded, not written); the recorder stops after `max_exchanges` `tools/call`
//! exchanges; the upstream must send its status line within [`UPSTREAM_HEAD_TIMEOUT`]; a
//! client must send each request's head within [`REQUEST_HEAD_WITHIN`] and all of it within
//! [`REQUEST_WITHIN`], on at most [`MAX_CONNECTIONS`] connections at once. A client that closes its connection frees its slot and the upstream
//! connection of its request at once.

mod budget;
mod forward;
mod keep;
mod upload;
mod upstream;

use super::fault::Fault;
use super::loopback::{LoopbackError, Upstream, loopback_listen, loopback_upstream};
use super::session::Session;
use super::writer::Report;
use crate::wire::http::{Request, RequestReadError, read_body_with, read_head};
use budget::Budget;
use forward::forward;
use keep::{Finished, Keeper};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::timeout_at;

/// How long the upstream may take to send its status line: 60 s.
pub const UPSTREAM_HEAD_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a client connection may take to send a complete request (from its accept, or the
/// end of the previous answer) before it is closed: 60 s, as the wire server allows.
pub const REQUEST_WITHIN: Duration = Duration::from_secs(60);

/// How long a client connection may take to send a request's head (its request line and
/// headers; from its accept, or the end of the previous answer): 10 s. A connection that sent
/// nothing by then is closed without a word, one that sent part of a head is answered `408`:
/// connections that hold a slot without sending a request (half-open ones, idle keep-alive
/// ones) give it back within 10 s, so a new client waits at most that long for a slot. The
/// body has the rest of [`REQUEST_WITHIN`].
pub const REQUEST_HEAD_WITHIN: Duration = Duration::from_secs(10);

/// How long a stop waits for answers being forwarded to end: 500 ms.
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// The most client connections open at once: 256. A client that opens more waits for one to
/// close.
pub const MAX_CONNECTIONS: usize = 256;

/// The most `tools/call` exchanges one recording may take: 10 000.
pub const MAX_EXCHANGES: usize = 10_000;

/// The most bytes of bodies all connections hold at once (requests being read and forwarded,
/// answers being taken down): 256 MiB. A request that would pass it is answered `503`; an
/// answer that would is forwarded whole but not written as a case.
pub const MAX_HELD_BYTES: usize = 256 * 1024 * 1024;

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
    /// Stop after this many `tools/call` exchanges (1 to 10 000, `MAX_EXCHANGES`).
    pub max_exchanges: usize,
}

/// Why a recording cannot start.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// An address is not loopback or does not parse.
    #[error(transparent)]
    Address(#[from] LoopbackError),
    /// The upstream URL is not one an HTTP client can use.
    #[error("--upstream {0:?} is not a usable URL: {1}")]
    Url(String, String),
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
    /// The connections' thread, then the keeper's (which ends once the first has), then the
    /// upstream requests'.
    threads: Vec<std::thread::JoinHandle<()>>,
}

/// What the connections share.
#[derive(Debug)]
pub(super) struct Shared {
    options: RecorderOptions,
    client: reqwest::Client,
    budget: Arc<Budget>,
    /// Answers being forwarded now (their head has come, their end not yet).
    answering: AtomicUsize,
    /// Where the upstream requests run.
    upstream: upstream::Upstream,
    /// A busy proxy, for tests: how long its thread is held up once a request is uploaded.
    #[cfg(test)]
    busy: Duration,
    /// Finished exchanges go to the keeper's thread, in the order they ended.
    keeper: Mutex<std::sync::mpsc::Sender<Finished>>,
}

impl Shared {
    /// Counts an answer as being forwarded until dropped.
    fn answering(&self) -> Answering<'_> {
        self.answering.fetch_add(1, Ordering::SeqCst);
        Answering(&self.answering)
    }

    fn keep(&self, finished: Finished) {
        if let Ok(keeper) = self.keeper.lock() {
            let _ = keeper.send(finished);
        }
    }
}

/// One answer being forwarded, counted in [`Shared::answering`].
pub(super) struct Answering<'a>(&'a AtomicUsize);

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[derive(Debug, Default)]
pub(super) struct State {
    session: Session,
    /// `tools/call` exchanges taken so far (the number in the next file name, less one).
    taken: usize,
}

impl Recorder {
    /// Checks the addresses, binds the listener and starts forwarding (on a thread of its own).
    pub fn start(options: RecorderOptions) -> Result<Recorder, RecordError> {
        Self::start_busy(options, Duration::ZERO)
    }

    /// [`Recorder::start`], with the proxy's thread held up `busy` after each request is
    /// uploaded (in tests: a proxy busy with other clients; zero otherwise).
    fn start_busy(options: RecorderOptions, busy: Duration) -> Result<Recorder, RecordError> {
        #[cfg(not(test))]
        let _ = busy;
        let upstream = loopback_upstream(&options.upstream)?;
        let listen = loopback_listen(&options.listen)?;
        if !(1..=MAX_EXCHANGES).contains(&options.max_exchanges) {
            return Err(RecordError::MaxExchanges(options.max_exchanges));
        }
        let client = upstream_client(&upstream)?;
        let listen_text = options.listen.clone();
        let listen_error = |e| RecordError::Listen(listen_text.clone(), e);
        let listener = std::net::TcpListener::bind(listen).map_err(listen_error)?;
        listener.set_nonblocking(true).map_err(listen_error)?;
        let addr = listener.local_addr().map_err(listen_error)?;
        let (stop, stopped) = watch::channel(false);
        // The upstream's thread ends once the connections' has (it drops `upstream_stop`),
        // after the answers being forwarded had their moment to end.
        let (upstream_stop, upstream_stopped) = watch::channel(false);
        let (upstream, upstream_thread) =
            upstream::Upstream::start(upstream_stopped).map_err(listen_error)?;
        let (sender, reports) = mpsc::unbounded_channel();
        let (keeper, keeper_thread) = Keeper {
            options: options.clone(),
            state: State::default(),
            reports: sender,
            stop: stop.clone(),
        }
        .spawn();
        let shared = Arc::new(Shared {
            options,
            client,
            budget: Budget::new(MAX_HELD_BYTES),
            answering: AtomicUsize::new(0),
            upstream,
            #[cfg(test)]
            busy,
            keeper: Mutex::new(keeper),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(listen_error)?;
        let thread = std::thread::spawn(move || {
            runtime.block_on(serve(listener, shared, stopped));
            drop(upstream_stop);
        });
        Ok(Recorder {
            addr,
            stop,
            reports,
            threads: vec![thread, keeper_thread, upstream_thread],
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

    /// Stops forwarding (open connections are dropped), waits for the exchanges that had
    /// ended to be written, and returns the reports not yet taken.
    pub fn stop(mut self) -> Vec<Report> {
        self.join();
        let mut rest = Vec::new();
        while let Ok(report) = self.reports.try_recv() {
            rest.push(report);
        }
        rest
    }
}

impl Recorder {
    fn join(&mut self) {
        let _ = self.stop.send(true);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.join();
    }
}

/// The HTTP client to the upstream: it connects only to the addresses the loopback check
/// resolved (its resolver answers every name with them), follows no redirect, retries nothing.
fn upstream_client(upstream: &Upstream) -> Result<reqwest::Client, RecordError> {
    let unusable = |why: String| RecordError::Url(upstream.url.clone(), why);
    reqwest::Url::parse(&upstream.url).map_err(|e| unusable(e.to_string()))?;
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .retry(reqwest::retry::never())
        .dns_resolver(Arc::new(Pinned(upstream.addrs.clone())))
        .build()
        .map_err(|e| unusable(e.to_string()))
}

/// A resolver that knows only the checked addresses.
#[derive(Debug)]
struct Pinned(Vec<SocketAddr>);

impl reqwest::dns::Resolve for Pinned {
    fn resolve(&self, _name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let addrs = self.0.clone();
        Box::pin(async move { Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs) })
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
    accept(listener, &shared, &mut stopped).await;
    // Answers still coming get a moment to end, so that an exchange whose client has its
    // answer is written even when the stop comes at once (the end comes by way of the
    // upstream's thread); a stalled one is dropped.
    let until = tokio::time::Instant::now() + STOP_GRACE;
    while shared.answering.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Accepts connections until told to stop.
async fn accept(listener: TcpListener, shared: &Arc<Shared>, stopped: &mut watch::Receiver<bool>) {
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        // At most MAX_CONNECTIONS at once: the next accept waits for one to end. Stopping is
        // heard while waiting for a slot as well as for a connection.
        let permit = tokio::select! {
            _ = stopped.wait_for(|stop| *stop) => return,
            permit = open.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => return,
            },
        };
        tokio::select! {
            _ = stopped.wait_for(|stop| *stop) => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        connection(stream, shared).await;
                        drop(permit);
                    });
                } else {
                    // EMFILE and the like: let the backlog drain instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
}

/// Serves one client connection: requests read (bounded by the shared budget) and forwarded
/// one after another, until the client closes, asks to, or sends what cannot be read. A
/// connection that sends no request head within [`REQUEST_HEAD_WITHIN`] gives its slot back.
async fn connection(stream: TcpStream, shared: Arc<Shared>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let waiting = tokio::time::Instant::now();
        let head_by = waiting + REQUEST_HEAD_WITHIN;
        // Silence before a request's first byte closes without a word (an idle keep-alive
        // connection, or one that never spoke); a request begun but not finished in time is
        // answered 408.
        match timeout_at(head_by, reader.fill_buf()).await {
            Ok(Ok(buffered)) if !buffered.is_empty() => {}
            _ => return,
        }
        let head = match timeout_at(head_by, read_head(&mut reader)).await {
            Ok(Ok(head)) => head,
            Ok(Err(e)) => return refuse_unread(&mut write, e).await,
            Err(_) => {
                let why = format!(
                    "no complete request head within {} s",
                    REQUEST_HEAD_WITHIN.as_secs()
                );
                return refuse(&mut write, 408, &why).await;
            }
        };
        let mut held = shared.budget.hold();
        let body = read_body_with(&mut reader, &head, |total| held.grow_to(total));
        let request = match timeout_at(waiting + REQUEST_WITHIN, body).await {
            Ok(Ok(body)) => Request { body, ..head },
            Ok(Err(e)) => return refuse_unread(&mut write, e).await,
            Err(_) => {
                let why = format!("no complete request within {} s", REQUEST_WITHIN.as_secs());
                return refuse(&mut write, 408, &why).await;
            }
        };
        // RFC 9112 §6.3: after a request framed by both Transfer-Encoding and Content-Length,
        // close the connection.
        let close = request.wants_close() || request.ambiguous_framing();
        if !forward(&shared, request, held, &mut reader, &mut write).await || close {
            return;
        }
    }
}

/// Answers a request that could not be read as the wire server answers it: `400` for bytes
/// that are not a request it accepts, `503` when the shared budget has no room for the body,
/// nothing when the client closed or the socket failed.
async fn refuse_unread<W: AsyncWriteExt + Unpin>(write: &mut W, error: RequestReadError) {
    match error {
        RequestReadError::Bad(why) => refuse(write, 400, &why).await,
        too @ RequestReadError::TooLarge => refuse(write, 400, &too.to_string()).await,
        RequestReadError::NoRoom(length) => {
            let why = format!(
                "the recorder holds at most {MAX_HELD_BYTES} bytes of bodies across its \
                 connections and has no room for {length} more now; send it again later"
            );
            refuse(write, 503, &why).await;
        }
        RequestReadError::Closed | RequestReadError::Io(_) => {}
    }
}

/// Answers a request the proxy will not forward, as the wire server answers one it cannot
/// read: the status, `why` as a text body, and the connection closed.
async fn refuse<W: AsyncWriteExt + Unpin>(out: &mut W, status: u16, why: &str) {
    let reason = match status {
        400 => "Bad Request",
        408 => "Request Timeout",
        502 => "Bad Gateway",
        _ => "Service Unavailable",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{why}",
        why.len()
    );
    let _ = out.write_all(head.as_bytes()).await;
    let _ = out.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// An upstream that answers every request at once with a `tools/call` result, one request
    /// per connection.
    fn prompt_upstream() -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let mut seen = Vec::new();
                    let mut chunk = [0; 4096];
                    // The head, then the body its content-length names.
                    while let Ok(n @ 1..) = stream.read(&mut chunk) {
                        seen.extend_from_slice(&chunk[..n]);
                        let text = String::from_utf8_lossy(&seen).to_ascii_lowercase();
                        let Some(end) = text.find("\r\n\r\n") else {
                            continue;
                        };
                        let length: usize = text[..end]
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse().ok())
                            .unwrap_or(0);
                        if seen.len() >= end + 4 + length {
                            break;
                        }
                    }
                    let body =
                        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#;
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: \
                         {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(answer.as_bytes());
                });
            }
        });
        addr
    }

    /// A proxy whose thread is busy for 3 s while an upstream that answers at once answers
    /// records a wait of about nothing: the wait is measured on the upstream's runtime, from
    /// the request's upload to the answer's head (it used to be the proxy's 3 s).
    #[test]
    fn a_busy_proxy_records_the_upstreams_wait_not_its_own() {
        let out = tempfile::tempdir().unwrap();
        let busy = Duration::from_secs(3);
        let recorder = Recorder::start_busy(
            RecorderOptions {
                upstream: format!("http://{}/mcp", prompt_upstream()),
                listen: "127.0.0.1:0".into(),
                out: out.path().to_owned(),
                faults: Vec::new(),
                max_exchanges: 10,
            },
            busy,
        )
        .unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}"#;
        let request = format!(
            "POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: \
             application/json, text/event-stream\r\nconnection: close\r\ncontent-length: \
             {}\r\n\r\n{body}",
            body.len()
        );
        let mut client = std::net::TcpStream::connect(recorder.addr()).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        client.write_all(request.as_bytes()).unwrap();
        let started = std::time::Instant::now();
        let mut answer = String::new();
        let _ = client.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            started.elapsed() >= busy,
            "the proxy was busy for the test's 3 s"
        );
        let reports = recorder.stop();
        let written = reports
            .iter()
            .find_map(|r| match r {
                Report::Wrote(w) if w.variant == "recorded" => Some(w.path.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("a case is written: {reports:?}"));
        let case = std::fs::read_to_string(&written).unwrap();
        let delay_ms: u64 = case
            .lines()
            .find_map(|l| l.strip_prefix("delay_ms = "))
            .map_or(0, |ms| ms.parse().unwrap());
        eprintln!("recorded delay_ms = {delay_ms} with the proxy busy for 3000 ms");
        assert!(delay_ms < 1000, "delay_ms = {delay_ms} in {case}");
    }
}

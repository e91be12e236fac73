//! `record`: a loopback proxy between a client and a real local server. It forwards every
//! request as it came and every answer as it comes (SSE events pass through as they arrive),
//! and writes each `tools/call` exchange as a family of cases (`writer::write_family`).
//!
//! Bounds: a request is read as the wire server reads one (16 MiB body, 64 KiB head); an answer
//! body is kept up to `MAX_RECORDED_BODY` (a longer one is forwarded, not written); the
//! recorder stops after `max_exchanges` `tools/call` exchanges; the upstream must send its
//! status line within [`UPSTREAM_HEAD_TIMEOUT`]; a client must send each request within
//! [`REQUEST_WITHIN`], on at most [`MAX_CONNECTIONS`] connections at once.

mod forward;

use super::fault::Fault;
use super::loopback::{LoopbackError, loopback_listen, loopback_upstream};
use super::session::Session;
use super::writer::Report;
use crate::wire::http::read_request;
use forward::forward;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::timeout;

/// How long the upstream may take to send its status line: 60 s.
pub const UPSTREAM_HEAD_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a client connection may take to send a complete request (from its accept, or the
/// end of the previous answer) before it is closed: 60 s, as the wire server allows.
pub const REQUEST_WITHIN: Duration = Duration::from_secs(60);

/// The most client connections open at once: 256. A client that opens more waits for one to
/// close.
pub const MAX_CONNECTIONS: usize = 256;

/// The most `tools/call` exchanges one recording may take: 10 000.
pub const MAX_EXCHANGES: usize = 10_000;

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
pub(super) struct Shared {
    options: RecorderOptions,
    client: reqwest::Client,
    state: Mutex<State>,
    reports: mpsc::UnboundedSender<Report>,
    stop: watch::Sender<bool>,
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
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        // At most MAX_CONNECTIONS at once: the next accept waits for one to end.
        let Ok(permit) = open.clone().acquire_owned().await else {
            return;
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

async fn connection(stream: TcpStream, shared: Arc<Shared>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    while let Ok(Ok(request)) = timeout(REQUEST_WITHIN, read_request(&mut reader)).await {
        let close = request.wants_close();
        if !forward(&shared, request, &mut write).await || close {
            return;
        }
    }
}

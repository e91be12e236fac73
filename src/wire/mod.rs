//! The wire server (design §5): one per case, bound to 127.0.0.1 on a random port, on its own
//! thread and runtime, writing raw HTTP/1.1 so that it can cut, reset and stall.

mod date;
pub mod http;
mod placeholder;
mod prelude;
pub mod record;
pub mod response;
mod script;
mod tap;

pub use date::{HTTP_DATE, MAX_HTTP_DATE_OFFSET, http_date_offset};
pub use placeholder::Placeholders;
pub use record::{Exchange, Sent};

use crate::case::{Call, CaseFile, Target};
use http::{ReadError, Request, read_request};
use response::{Ending, Response};
use serde_json::Value;
use std::net::{Ipv4Addr, SocketAddr, TcpListener as StdListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;
use tap::Tap;
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A running wire server for one case. Dropping it stops the server and closes every
/// connection, stalled ones included (asynchronously; `stop` waits for it).
#[derive(Debug)]
pub struct WireServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Debug)]
struct Shared {
    case: Arc<CaseFile>,
    started: Instant,
    call: AtomicUsize,
    sessions: AtomicUsize,
    record: Arc<Mutex<Vec<Exchange>>>,
}

impl WireServer {
    /// Binds 127.0.0.1:0 and starts serving `case`. Only loopback is ever bound.
    pub fn start(case: Arc<CaseFile>) -> std::io::Result<WireServer> {
        let listener = StdListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            case,
            started: Instant::now(),
            call: AtomicUsize::new(0),
            sessions: AtomicUsize::new(0),
            record: Arc::default(),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (stop, stopped) = watch::channel(false);
        let serving = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name(format!("wire-{}", addr.port()))
            .spawn(move || runtime.block_on(serve(listener, serving, stopped)))?;
        Ok(WireServer {
            addr,
            shared,
            stop,
            thread: Some(thread),
        })
    }

    /// The MCP endpoint: `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Makes call `index` (0-based) of the case the one whose replies answer `tools/call`.
    pub fn begin_call(&self, index: usize) {
        self.shared.call.store(index, Ordering::SeqCst);
    }

    /// Every exchange so far, in arrival order.
    pub fn record(&self) -> Vec<Exchange> {
        self.with_record(<[Exchange]>::to_vec)
    }

    /// `f` of the exchanges so far, without copying them. The server cannot record while `f`
    /// runs, so keep it short.
    pub fn with_record<R>(&self, f: impl FnOnce(&[Exchange]) -> R) -> R {
        f(&self.shared.record.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Stops the server and waits until its runtime, connections and sockets are gone.
    pub fn stop(mut self) {
        let _ = self.stop.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// How many `tools/call` POSTs arrived while call `index` was current.
    pub fn tool_posts(&self, index: usize) -> u32 {
        let record = self.shared.record.lock().unwrap_or_else(|p| p.into_inner());
        let count = record
            .iter()
            .filter(|e| e.call == index && e.is_tool_call())
            .count();
        u32::try_from(count).unwrap_or(u32::MAX)
    }
}

impl Drop for WireServer {
    fn drop(&mut self) {
        // Signal only: the server thread drops its runtime, and with it every connection and
        // socket, within microseconds. Waiting for that here would cost two cross-thread
        // wake-ups per case, more than the case's own round trip; `stop` waits for callers
        // that need the certainty.
        let _ = self.stop.send(true);
    }
}

/// Accepts until told to stop; returning drops the runtime's tasks and so every connection.
async fn serve(listener: StdListener, shared: Arc<Shared>, mut stopped: watch::Receiver<bool>) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    loop {
        tokio::select! {
            _ = stopped.changed() => return,
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    tokio::spawn(connection(stream, Arc::clone(&shared)));
                }
            }
        }
    }
}

/// Serves requests on one connection until a response ends it.
async fn connection(mut stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    let ending = {
        let (read, mut write) = stream.split();
        let mut reader = BufReader::new(read);
        loop {
            let request = match read_request(&mut reader).await {
                Ok(request) => request,
                Err(ReadError::Closed | ReadError::Io(_)) => break Ending::Close,
                Err(ReadError::Bad(why)) => break bad_request(&shared, &mut write, &why).await,
            };
            let (tap, response) = dispatch(&shared, &request);
            match response::send(&mut write, &tap, &response).await {
                Ok(Ending::KeepAlive) if !request.wants_close() => continue,
                Ok(Ending::KeepAlive) | Err(_) => break Ending::Close,
                Ok(ending) => break ending,
            }
        }
    };
    end_connection(stream, ending).await;
}

async fn end_connection(stream: TcpStream, ending: Ending) {
    match ending {
        Ending::Reset => {
            // SO_LINGER 0 makes close send RST instead of FIN.
            let _ = stream.set_zero_linger();
        }
        Ending::Stall => std::future::pending::<()>().await,
        Ending::Close | Ending::KeepAlive => {}
    }
    drop(stream);
}

/// Records the request and picks its answer: the case's script for `tools/call` (or for every
/// POST, when the call targets them all), its resume script for GET, the prelude otherwise.
fn dispatch(shared: &Shared, request: &Request) -> (Tap, Response) {
    let message: Option<Value> = serde_json::from_slice(&request.body).ok();
    let method = message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str);
    let call = shared.call.load(Ordering::SeqCst);
    let mut record = shared.record.lock().unwrap_or_else(|p| p.into_inner());
    let earlier = Earlier::count(&record, call);
    let script = shared.case.call.get(call);
    let pick = script.and_then(|script| pick(script, request, method, &earlier));
    let placeholders = match pick {
        Some(Pick::Resume(_)) => last_tool_call(&record, call).map(placeholders_of),
        _ => message.as_ref().map(Placeholders::from_request),
    };
    let minted = (method == Some("initialize")).then(|| {
        let number = shared.sessions.fetch_add(1, Ordering::SeqCst);
        format!("mcp-error-layers-session-{number}")
    });
    record.push(Exchange {
        at_ms: u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        call,
        http_method: request.method.clone(),
        path: request.path.clone(),
        jsonrpc_method: method.map(str::to_owned),
        headers: request.headers.clone(),
        body: String::from_utf8_lossy(&request.body).into_owned(),
        reply: Sent {
            script_index: pick.map(Pick::index),
            session: minted.clone(),
            ..Sent::default()
        },
    });
    let tap = Tap::new(Arc::clone(&shared.record), record.len() - 1, shared.started);
    drop(record);
    let (by, response) = match (pick, script, placeholders) {
        (Some(Pick::Reply(i)), Some(script), Some(p)) => {
            ("script", script::response(&script.reply[i], &p))
        }
        (Some(Pick::Resume(i)), Some(script), Some(p)) => {
            ("resume", script::response(&script.resume[i], &p))
        }
        _ => {
            let session = minted.as_deref().unwrap_or_default();
            let tool = &shared.case.tool;
            (
                "prelude",
                prelude::answer(request, message.as_ref(), tool, session),
            )
        }
    };
    tap.answered_by(by, response.status);
    (tap, response)
}

/// Which scripted answer a request gets.
#[derive(Debug, Clone, Copy)]
enum Pick {
    /// `call.reply[i]`.
    Reply(usize),
    /// `call.resume[i]`.
    Resume(usize),
}

impl Pick {
    fn index(self) -> usize {
        match self {
            Pick::Reply(i) | Pick::Resume(i) => i,
        }
    }
}

/// What the current call has seen so far.
struct Earlier {
    posts: usize,
    tool_posts: usize,
    gets: usize,
}

impl Earlier {
    fn count(record: &[Exchange], call: usize) -> Self {
        let mine = || record.iter().filter(|e| e.call == call);
        Earlier {
            posts: mine().filter(|e| e.http_method == "POST").count(),
            tool_posts: mine().filter(|e| e.is_tool_call()).count(),
            gets: mine().filter(|e| e.is_resumption()).count(),
        }
    }
}

/// The body of the call's latest `tools/call`: what a resumed stream answers.
fn last_tool_call(record: &[Exchange], call: usize) -> Option<&str> {
    let mine = record.iter().filter(|e| e.call == call);
    mine.rev()
        .find(|e| e.is_tool_call())
        .map(|e| e.body.as_str())
}

/// The scripted answer for `request`, if the script has one; the last of a list repeats.
fn pick(script: &Call, request: &Request, method: Option<&str>, earlier: &Earlier) -> Option<Pick> {
    let last = |len: usize, n: usize| len.checked_sub(1).map(|end| n.min(end));
    match request.method.as_str() {
        // Every POST in order; once the replies are used up, the last one stays the answer
        // to tools/call, as when a fault server's sequence has run out.
        "POST" if script.target == Target::EveryPost => match method {
            _ if earlier.posts < script.reply.len() => Some(Pick::Reply(earlier.posts)),
            Some("tools/call") => last(script.reply.len(), usize::MAX).map(Pick::Reply),
            _ => None,
        },
        "POST" if method == Some("tools/call") => {
            last(script.reply.len(), earlier.tool_posts).map(Pick::Reply)
        }
        // A GET without Last-Event-ID opens a standalone stream: not a resumption.
        "GET" if request.header("last-event-id").is_some() => {
            last(script.resume.len(), earlier.gets).map(Pick::Resume)
        }
        _ => None,
    }
}

/// The placeholders of a resumed stream come from the `tools/call` it resumes.
fn placeholders_of(body: &str) -> Placeholders {
    let message = serde_json::from_str(body).unwrap_or(Value::Null);
    Placeholders::from_request(&message)
}

async fn bad_request<W: tokio::io::AsyncWriteExt + Unpin>(
    shared: &Shared,
    write: &mut W,
    why: &str,
) -> Ending {
    let request = Request {
        method: "?".into(),
        path: String::new(),
        headers: vec![],
        body: why.as_bytes().to_vec(),
    };
    let (tap, _) = dispatch(shared, &request);
    let response = Response::empty(400).with_header("connection", "close");
    tap.answered_by("error", Some(400));
    let _ = response::send(write, &tap, &response).await;
    Ending::Close
}

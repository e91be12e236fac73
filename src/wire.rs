//! The wire server (docs/wire-server.md): one per case, bound to 127.0.0.1 on a random port, on its own
//! thread and runtime, writing raw HTTP/1.1 so that it can cut, reset and stall.

mod auth;
mod date;
pub mod http;
mod limits;
mod placeholder;
mod prelude;
pub mod record;
mod reply_recorder;
pub mod response;
pub(crate) mod script;
mod sessions;
mod stdio;

pub use limits::Limits;
pub use placeholder::Placeholders;
pub use record::{Answerer, Awaited, Ended, Exchange, Sent};

use crate::case::{Call, CaseFile, Target};
use crate::era::Era;
use http::{HttpMethod, Request, RequestReadError, read_request};
use limits::{Backoff, one_connections_error};
use record::{Arrival, Recorder, Seen, TaskMethod};
use reply_recorder::ReplyRecorder;
use response::{Ending, Response};
use serde_json::Value;
use std::net::{Ipv4Addr, SocketAddr, TcpListener as StdListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
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
    limits: Limits,
    call: AtomicUsize,
    /// The sessions `initialize` minted, and those that expired (a 404 in them).
    sessions: sessions::Sessions,
    recorder: Arc<Recorder>,
    /// Accepts that failed (descriptors, memory), each followed by a back-off.
    accept_errors: AtomicU64,
    /// Connections open now.
    connections: AtomicUsize,
    /// The authorization server of a case with `[auth]`.
    authority: Option<auth::Authority>,
    /// `http://127.0.0.1:PORT`: the origin of every URL the authorization server hands out.
    base: String,
}

impl WireServer {
    /// Binds 127.0.0.1:0 and starts serving `case` within the default [`Limits`]. Only
    /// loopback is ever bound.
    pub fn start(case: Arc<CaseFile>) -> std::io::Result<WireServer> {
        Self::start_with(case, Limits::default())
    }

    /// [`WireServer::start`] within `limits`.
    pub fn start_with(case: Arc<CaseFile>, limits: Limits) -> std::io::Result<WireServer> {
        let listener = StdListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let authority = case.auth.as_ref().map(auth::Authority::new);
        let shared = Arc::new(Shared {
            authority,
            base: format!("http://{addr}"),
            case,
            limits,
            call: AtomicUsize::new(0),
            sessions: sessions::Sessions::default(),
            recorder: Arc::new(Recorder::new(limits)),
            accept_errors: AtomicU64::new(0),
            connections: AtomicUsize::new(0),
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

    /// The credentials a client of this case starts with, when the case asks for
    /// authorization (`[auth]`).
    pub fn credentials(&self) -> Option<crate::case::Credentials> {
        let auth = self.shared.case.auth.as_ref()?;
        Some(
            self.shared
                .authority
                .as_ref()?
                .start(auth, &self.shared.base),
        )
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// When the server started: every `at_ms` counts from here.
    pub fn started(&self) -> Instant {
        self.shared.recorder.started()
    }

    /// Makes call `index` (0-based) of the case the one whose replies answer `tools/call`.
    pub fn begin_call(&self, index: usize) {
        self.shared.call.store(index, Ordering::SeqCst);
    }

    /// Every exchange kept so far, in arrival order (a copy; see [`WireServer::with_record`]).
    pub fn record(&self) -> Vec<Exchange> {
        self.with_record(<[Exchange]>::to_vec)
    }

    /// `f` of the exchanges kept so far, without copying them. The server cannot record while
    /// `f` runs, so keep it short.
    pub fn with_record<R>(&self, f: impl FnOnce(&[Exchange]) -> R) -> R {
        self.shared.recorder.read(|record| f(record.exchanges()))
    }

    /// A receiver whose value changes after every change to the record (a request arrives,
    /// bytes go out, an exchange ends): wait on it instead of polling the record.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.recorder.subscribe()
    }

    /// Forgets the oldest `count` exchanges kept, for an owner that has read them and serves
    /// on (`serve`): their bytes no longer count against [`Limits::record_bytes`]. Which reply
    /// answers next, and [`WireServer::tool_posts`], do not change.
    pub fn forget(&self, count: usize) {
        self.shared.recorder.update(|record| record.forget(count));
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
        let count = self.shared.recorder.read(|record| record.tool_posts(index));
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// How many accepts have failed so far (out of descriptors or memory); each was followed
    /// by a back-off, and the first was logged to stderr.
    pub fn accept_errors(&self) -> u64 {
        self.shared.accept_errors.load(Ordering::SeqCst)
    }

    /// How many connections are open now.
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
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
/// A failed accept (`EMFILE`: the connection stays in the backlog and the listener ready)
/// waits a back-off instead of spinning; the first is logged.
async fn serve(listener: StdListener, shared: Arc<Shared>, mut stopped: watch::Receiver<bool>) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    let mut backoff = Backoff::default();
    loop {
        let error = tokio::select! {
            _ = stopped.changed() => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    backoff.succeeded();
                    tokio::spawn(connection(stream, Arc::clone(&shared)));
                    continue;
                }
                Err(error) if one_connections_error(&error) => continue,
                Err(error) => error,
            }
        };
        if shared.accept_errors.fetch_add(1, Ordering::SeqCst) == 0 {
            let port = listener.local_addr().map_or(0, |a| a.port());
            eprintln!(
                "wire server on port {port}: cannot accept a connection ({error}); retrying \
                 with a back-off of up to {} ms (logged once; `ulimit -n` raises the limit on \
                 open files)",
                Backoff::MOST.as_millis()
            );
        }
        let wait = backoff.failed();
        tokio::select! {
            _ = stopped.changed() => return,
            () = tokio::time::sleep(wait) => {}
        }
    }
}

/// Counts a connection as open until dropped.
struct Open<'a>(&'a AtomicUsize);

impl<'a> Open<'a> {
    fn new(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::SeqCst);
        Open(count)
    }
}

impl Drop for Open<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Serves requests on one connection until a response ends it, or until it sends no complete
/// request within [`Limits::request_within`].
async fn connection(mut stream: TcpStream, shared: Arc<Shared>) {
    let _open = Open::new(&shared.connections);
    let _ = stream.set_nodelay(true);
    let within = shared.limits.request_within;
    // The last reply, when it stalled: the server watches for the client to close it.
    let (ending, stalled) = {
        let (read, mut write) = stream.split();
        let mut reader = BufReader::new(read);
        loop {
            let deadline = tokio::time::Instant::now().checked_add(within);
            // Waiting for the first byte: silence past the bound closes without a word (an
            // idle keep-alive connection, or one that never sent anything).
            match within_deadline(deadline, reader.fill_buf()).await {
                Some(Ok(buffered)) if !buffered.is_empty() => {}
                _ => break (Ending::Close, None),
            }
            let request = match within_deadline(deadline, read_request(&mut reader)).await {
                Some(Ok(request)) => request,
                // NoRoom comes only from a reader that bounds what it holds; this one does not.
                Some(Err(
                    RequestReadError::Closed
                    | RequestReadError::Io(_)
                    | RequestReadError::NoRoom(_),
                )) => {
                    break (Ending::Close, None);
                }
                Some(Err(RequestReadError::Bad(why))) => {
                    break (refuse(&shared, &mut write, 400, &why).await, None);
                }
                Some(Err(too @ RequestReadError::TooLarge)) => {
                    let why = too.to_string();
                    break (refuse(&shared, &mut write, 400, &why).await, None);
                }
                None => {
                    let why = format!("no complete request within {} ms", within.as_millis());
                    break (refuse(&shared, &mut write, 408, &why).await, None);
                }
            };
            let (reply, response) = dispatch(&shared, &request);
            match response::send(&mut write, &reply, &response).await {
                Ok(Ending::KeepAlive) if !request.wants_close() => continue,
                Ok(Ending::KeepAlive) | Err(_) => break (Ending::Close, None),
                Ok(Ending::Stall) => break (Ending::Stall, Some(reply)),
                Ok(ending) => break (ending, None),
            }
        }
    };
    end_connection(stream, ending).await;
    if let Some(reply) = stalled {
        // Reached only when the client closed: a stopping server drops this task first.
        reply.client_closed();
    }
}

/// `future`'s output, or `None` once `deadline` passes (never without one).
async fn within_deadline<F: Future>(
    deadline: Option<tokio::time::Instant>,
    future: F,
) -> Option<F::Output> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, future).await.ok(),
        None => Some(future.await),
    }
}

async fn end_connection(mut stream: TcpStream, ending: Ending) {
    match ending {
        Ending::Reset => {
            // SO_LINGER 0 makes close send RST instead of FIN.
            let _ = stream.set_zero_linger();
        }
        Ending::Stall => {
            // Nothing more goes out, for as long as the client waits: once it closes (or the
            // server stops) the socket goes, so that clients that gave up do not pile up.
            let mut sink = [0; 1024];
            while let Ok(1..) = stream.read(&mut sink).await {}
        }
        Ending::Close | Ending::KeepAlive => {}
    }
    drop(stream);
}

/// Records the request and picks its answer: the case's script for `tools/call` (or for every
/// POST, when the call targets them all), its resume script for GET, the prelude otherwise.
fn dispatch(shared: &Shared, request: &Request) -> (ReplyRecorder, Response) {
    if crate::stdio::action::is_stdio_path(&request.path) {
        return stdio::dispatch(shared, request);
    }
    if let (Some(authority), Some(auth)) = (&shared.authority, &shared.case.auth)
        && auth::is_server_path(&request.path)
    {
        return authorization_server(shared, authority, auth, request);
    }
    let message: Option<Value> = crate::json_text::value(&request.body);
    let method = message
        .as_ref()
        .and_then(|m| m.get("method"))
        .and_then(Value::as_str);
    let call = shared.call.load(Ordering::SeqCst);
    let script = shared.case.call.get(call);
    let at_ms = shared.recorder.elapsed_ms();
    let session = request.header("mcp-session-id");
    // A request in a session that expired gets the 404 again, whatever the script says next.
    let expired = session.is_some_and(|id| shared.sessions.is_expired(id));
    // A request without a token the authorization server accepts never reaches the MCP server.
    let refusal = match (&shared.authority, &shared.case.auth) {
        (Some(authority), Some(auth)) => {
            let placeholders = message.as_ref().map(Placeholders::from_request);
            let placeholders =
                placeholders.unwrap_or_else(|| Placeholders::from_request(&Value::Null));
            authority.guard(auth, request, method, &placeholders, &shared.base)
        }
        _ => None,
    };
    let (number, pick, placeholders, minted) = shared.recorder.update(|record| {
        let seen = record.seen(call);
        let pick = match expired || refusal.is_some() {
            true => None,
            false => script.and_then(|script| pick(script, request, method, &seen)),
        };
        let placeholders = match pick {
            Some(Pick::Resume(_)) => seen.last_tool_call,
            _ => message.as_ref().map(Placeholders::from_request),
        };
        let minted = (method == Some("initialize") && !expired && refusal.is_none())
            .then(|| shared.sessions.mint());
        let number = record.push(Arrival {
            at_ms,
            call,
            request,
            message: message.as_ref(),
            jsonrpc_method: method,
            admitted: refusal.is_none(),
            reply: Sent {
                script_index: pick.map(Pick::index),
                session: minted.clone(),
                ..Sent::default()
            },
        });
        (number, pick, placeholders, minted)
    });
    let reply = ReplyRecorder::new(Arc::clone(&shared.recorder), number);
    let (by, response) = match (pick, script, placeholders) {
        _ if refusal.is_some() => (Answerer::Auth, refusal.unwrap_or_default()),
        (Some(Pick::Reply(i)), Some(script), Some(p)) => {
            (Answerer::Script, script::response(&script.reply[i], &p))
        }
        (Some(Pick::Resume(i)), Some(script), Some(p)) => {
            (Answerer::Resume, script::response(&script.resume[i], &p))
        }
        (Some(Pick::Task(method, i)), Some(script), Some(p)) => {
            let replies = script.task_replies(method.name()).unwrap_or_default();
            (Answerer::Task, script::response(&replies[i], &p))
        }
        _ if expired => (Answerer::Prelude, sessions::expired_answer()),
        _ => {
            let server = prelude::Server {
                tool: &shared.case.tool,
                tasks: shared.case.call.iter().any(Call::uses_tasks),
                era: Era::of(&shared.case.protocol_version).unwrap_or(Era::Stateless),
                session: minted.as_deref().unwrap_or_default(),
            };
            (
                Answerer::Prelude,
                prelude::answer(request, message.as_ref(), server),
            )
        }
    };
    reply.answered_by(by, response.status);
    // A 404 in a session ends it: the server keeps it ended (`sessions`).
    if let (Some(id), Some(404)) = (session, response.status) {
        shared.sessions.expire(id);
    }
    (reply, response)
}

/// Records a request for the authorization server and answers it.
fn authorization_server(
    shared: &Shared,
    authority: &auth::Authority,
    auth: &crate::case::Auth,
    request: &Request,
) -> (ReplyRecorder, Response) {
    let call = shared.call.load(Ordering::SeqCst);
    let at_ms = shared.recorder.elapsed_ms();
    let number = shared.recorder.update(|record| {
        record.push(Arrival {
            at_ms,
            call,
            request,
            message: None,
            jsonrpc_method: None,
            admitted: false,
            reply: Sent::default(),
        })
    });
    let reply = ReplyRecorder::new(Arc::clone(&shared.recorder), number);
    let response = authority.answer(auth, request, &shared.base);
    reply.answered_by(Answerer::AuthServer, response.status);
    (reply, response)
}

/// Which scripted answer a request gets.
#[derive(Debug, Clone, Copy)]
enum Pick {
    /// `call.reply[i]`.
    Reply(usize),
    /// `call.resume[i]`.
    Resume(usize),
    /// The `i`th scripted answer to this task method (`call.task_get[i]`, ...).
    Task(TaskMethod, usize),
}

impl Pick {
    fn index(self) -> usize {
        match self {
            Pick::Reply(i) | Pick::Resume(i) | Pick::Task(_, i) => i,
        }
    }
}

/// The scripted answer for `request`, if the script has one; the last of a list repeats.
fn pick(script: &Call, request: &Request, method: Option<&str>, earlier: &Seen) -> Option<Pick> {
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
        "POST" => {
            let task = TaskMethod::of(method?)?;
            let replies = script.task_replies(task.name())?;
            let n = last(replies.len(), earlier.task_posts[task as usize])?;
            Some(Pick::Task(task, n))
        }
        // A GET without Last-Event-ID opens a standalone stream: not a resumption.
        "GET" if request.header("last-event-id").is_some() => {
            last(script.resume.len(), earlier.gets).map(Pick::Resume)
        }
        _ => None,
    }
}

/// Answers a request the server will not serve (`400`: it is not HTTP/1.1 we accept, with `why`
/// as a text body; `408`: it did not arrive in time) and records it, with `why` as its body.
async fn refuse<W: tokio::io::AsyncWriteExt + Unpin>(
    shared: &Shared,
    write: &mut W,
    status: u16,
    why: &str,
) -> Ending {
    let request = Request {
        method: HttpMethod::Unread,
        path: String::new(),
        headers: vec![],
        body: why.as_bytes().to_vec(),
    };
    let (reply, _) = dispatch(shared, &request);
    let mut response = Response::empty(status).with_header("connection", "close");
    if status == 400 {
        // Why, for the person reading the client's error (`transfer coding "xchunked" is not
        // supported: ...`).
        response = response.with_header("content-type", "text/plain");
        response.body = response::Body::Fixed(why.as_bytes().to_vec());
    }
    reply.answered_by(Answerer::Error, Some(status));
    let _ = response::send(write, &reply, &response).await;
    Ending::Close
}

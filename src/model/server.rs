//! The scripted model's HTTP server: bound to 127.0.0.1 on a port of its own, one per agent
//! run. Each conversation request that offers the case's tool is a [`Turn`] its driver answers
//! ([`ModelServer::next_turn`]); the rest (titles, checks, token counts, model lists) get a short
//! answer at once. Every request is kept whole, within bounds.

use super::api::{self, Api, Body, Reply, Route, ToolResult};
use crate::wire::http::{RequestReadError, read_request};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, oneshot};

/// The most requests one run's record keeps (later ones are answered, not kept).
pub const MAX_REQUESTS: usize = 512;
/// The most request bytes one run's record keeps (later requests are answered, not kept). One
/// request's body may be up to 16 MiB (the wire server's reader's bound); a larger one is
/// answered `413`.
pub const MAX_KEPT_BYTES: usize = 64 * 1024 * 1024;
/// The most connections the model serves at once: 16. The next is accepted once one ends, so
/// the bodies the model holds at once are at most 16 × 16 MiB, however many connections an
/// agent opens.
pub const MAX_CONNECTIONS: usize = 16;
/// How long a connection may take to send its request (from its accept): 60 s, after which it
/// is answered `408` and closed, so a silent connection does not hold one of the
/// [`MAX_CONNECTIONS`] for ever.
pub const REQUEST_WITHIN: Duration = Duration::from_secs(60);
/// After answering a request it did not read whole (`400`, `408`, `413`), the model reads and
/// drops what the agent still sends, up to [`MAX_DRAIN_BYTES`] and for at most this long
/// (5 s), before it closes: closing with unread bytes would reset the connection, and the
/// agent would see a reset instead of the answer.
pub const DRAIN_WITHIN: Duration = Duration::from_secs(5);
/// The most bytes read and dropped after such an answer: 64 MiB.
pub const MAX_DRAIN_BYTES: usize = 64 * 1024 * 1024;
/// The most turns a run's driver is asked about; later turns end with the final text, so an
/// agent that loops on the tool ends.
pub const MAX_TURNS: usize = 32;
/// The longest a turn waits for its driver before it ends with the final text.
pub const MAX_TURN_WAIT: Duration = Duration::from_secs(600);
/// What a side request, and a turn past the driver, is answered.
pub const FINAL_TEXT: &str = "done.";

/// One request the model received, as it came.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ModelRequest {
    /// Milliseconds since the server started.
    pub at_ms: u64,
    /// `POST`, `GET`.
    pub method: String,
    /// The request target.
    pub path: String,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as text (lossy UTF-8).
    pub body: String,
    /// `turn` (asked the driver), `side` (answered at once), `models`, `count-tokens`,
    /// `unknown`.
    pub kind: &'static str,
}

/// What the driver says to a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Say {
    /// Call the case's tool with these arguments, as the call with this id.
    Call {
        /// The call's id (the API's `tool_use_id`, `call_id`, `tool_call_id`).
        id: String,
        /// A JSON object.
        arguments: Value,
    },
    /// End the turn with this text.
    Text(String),
}

/// A conversation request that offers the case's tool, waiting for its driver's answer.
#[derive(Debug)]
pub struct Turn {
    /// Its place in the server's requests, from 0.
    pub request: usize,
    /// The API it spoke.
    pub api: Api,
    /// The agent's name for the case's tool, as this request lists it.
    pub tool: String,
    /// The tool results it carries, in order.
    pub results: Vec<ToolResult>,
    answer: oneshot::Sender<Say>,
}

impl Turn {
    /// Answers the turn (a turn whose agent has gone is answered to no one).
    pub fn answer(self, say: Say) {
        let _ = self.answer.send(say);
    }
}

/// The state the connections share.
#[derive(Debug)]
struct Shared {
    started: Instant,
    /// The case's tool, as the MCP server names it.
    tool: String,
    requests: Mutex<Kept>,
    turns: mpsc::UnboundedSender<Turn>,
    /// Connections being served now.
    connections: AtomicUsize,
}

#[derive(Debug, Default)]
struct Kept {
    requests: Vec<ModelRequest>,
    bytes: usize,
    /// Requests seen, kept or not.
    seen: usize,
    turns: usize,
}

/// A scripted model on 127.0.0.1; stops when dropped.
#[derive(Debug)]
pub struct ModelServer {
    url: String,
    shared: Arc<Shared>,
    turns: mpsc::UnboundedReceiver<Turn>,
    accept: tokio::task::JoinHandle<()>,
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

impl ModelServer {
    /// Starts a model whose turns are about `tool` (the case's tool as the MCP server names
    /// it), on the current tokio runtime.
    pub async fn start(tool: &str) -> std::io::Result<ModelServer> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let url = format!("http://{}", listener.local_addr()?);
        let (turns_tx, turns) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            started: Instant::now(),
            tool: tool.to_owned(),
            requests: Mutex::new(Kept::default()),
            turns: turns_tx,
            connections: AtomicUsize::new(0),
        });
        let accept = tokio::spawn(accept_loop(listener, Arc::clone(&shared)));
        Ok(ModelServer {
            url,
            shared,
            turns,
            accept,
        })
    }

    /// `http://127.0.0.1:PORT`, with no path: agents append their own (`/v1/messages`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The next turn; `None` once the server has stopped.
    pub async fn next_turn(&mut self) -> Option<Turn> {
        self.turns.recv().await
    }

    /// A turn that has come already, if any (without waiting).
    pub fn next_turn_now(&mut self) -> Option<Turn> {
        self.turns.try_recv().ok()
    }

    /// The requests so far, in order of arrival.
    pub fn requests(&self) -> Vec<ModelRequest> {
        lock(&self.shared.requests).requests.clone()
    }

    /// How many requests came, kept or not.
    pub fn seen(&self) -> usize {
        lock(&self.shared.requests).seen
    }

    /// How many connections are being served now: at most [`MAX_CONNECTIONS`].
    pub fn connections(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
    }
}

fn lock(kept: &Mutex<Kept>) -> std::sync::MutexGuard<'_, Kept> {
    // Plain data: still valid after a panic elsewhere.
    kept.lock().unwrap_or_else(|p| p.into_inner())
}

/// Accepts while fewer than [`MAX_CONNECTIONS`] are served; the next waits in the listen
/// backlog until one ends.
async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let open = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    while let Ok(permit) = Arc::clone(&open).acquire_owned().await {
        let Ok((stream, _)) = listener.accept().await else {
            return;
        };
        shared.connections.fetch_add(1, Ordering::SeqCst);
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            serve(stream, &shared).await;
            shared.connections.fetch_sub(1, Ordering::SeqCst);
            drop(permit);
        });
    }
}

/// One connection, one request: the answer closes it. A request not read whole is answered
/// all the same (`400`, `408`, `413`), and what the agent still sends is drained before the
/// close, so that it reads the answer.
async fn serve(stream: TcpStream, shared: &Shared) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    let refused = |status: u16, why: &str| (status, api::json(&error_body(why)), true);
    let (status, body, unread) =
        match tokio::time::timeout(REQUEST_WITHIN, read_request(&mut reader)).await {
            Ok(Ok(request)) => {
                let method = request.method.as_str().to_owned();
                let body = String::from_utf8_lossy(&request.body).into_owned();
                let (status, body) =
                    answer(shared, method, request.path, request.headers, body).await;
                (status, body, false)
            }
            Ok(Err(RequestReadError::Closed | RequestReadError::Io(_))) => return,
            Ok(Err(RequestReadError::TooLarge | RequestReadError::NoRoom(_))) => refused(
                413,
                "the request body is larger than the scripted model's bound of 16 MiB",
            ),
            Ok(Err(e @ RequestReadError::Bad(_))) => refused(400, &e.to_string()),
            Err(_) => refused(
                408,
                &format!("no complete request within {} s", REQUEST_WITHIN.as_secs()),
            ),
        };
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {}\r\ncontent-length: {}\r\ncache-control: \
         no-cache\r\nconnection: close\r\n\r\n",
        reason(status),
        body.content_type,
        body.bytes.len()
    );
    let _ = write.write_all(head.as_bytes()).await;
    let _ = write.write_all(&body.bytes).await;
    let _ = write.shutdown().await;
    if unread {
        drain(&mut reader).await;
    }
}

/// Reads and drops what the peer still sends, until it closes, [`MAX_DRAIN_BYTES`] have come,
/// or [`DRAIN_WITHIN`] has passed.
async fn drain<R: AsyncRead + Unpin>(reader: &mut R) {
    let mut sink = vec![0; 64 * 1024];
    let mut left = MAX_DRAIN_BYTES;
    let reading = async {
        while left > 0 {
            match reader.read(&mut sink).await {
                Ok(0) | Err(_) => return,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_WITHIN, reading).await;
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        404 => "Not Found",
        408 => "Request Timeout",
        413 => "Payload Too Large",
        _ => "Bad Request",
    }
}

fn error_body(message: &str) -> Value {
    serde_json::json!({"error": {"type": "invalid_request_error", "message": message}})
}

/// Keeps the request, then answers it: a turn by its driver, anything else at once.
async fn answer(
    shared: &Shared,
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: String,
) -> (u16, Body) {
    let route = api::route(&method, &path);
    let parsed: Value = crate::json_text::value(&body).unwrap_or(Value::Null);
    let turn_tool = match route {
        Route::Generate(api) => find_tool(&api.tools(&parsed), &shared.tool),
        _ => None,
    };
    let kind = match (route, &turn_tool) {
        (Route::Generate(_), Some(_)) => "turn",
        (Route::Generate(_), None) => "side",
        (Route::CountTokens(_), _) => "count-tokens",
        (Route::Models, _) => "models",
        (Route::Unknown, _) => "unknown",
    };
    let index = keep(shared, &method, &path, headers, body, kind);
    match (route, turn_tool) {
        (Route::Generate(api), Some(tool)) => {
            let framing = api.framing(&path, &parsed);
            let say = ask(shared, index, api, tool.clone(), &parsed).await;
            let reply = match &say {
                Say::Call { id, arguments } => Reply::Call {
                    id,
                    name: &tool,
                    arguments,
                },
                Say::Text(text) => Reply::Text(text),
            };
            (200, api.reply(reply, framing, &parsed))
        }
        (Route::Generate(api), None) => {
            let framing = api.framing(&path, &parsed);
            (200, api.reply(Reply::Text(FINAL_TEXT), framing, &parsed))
        }
        (Route::CountTokens(api), _) => (200, api::json(&api.count_tokens())),
        (Route::Models, _) => (200, api::json(&api::models())),
        (Route::Unknown, _) => (
            404,
            api::json(&error_body("the scripted model has no such path")),
        ),
    }
}

/// Hands the turn to the driver and waits for its answer (bounded): the final text when the
/// driver has gone, was asked [`MAX_TURNS`] times already, or says nothing in time.
async fn ask(shared: &Shared, index: usize, api: Api, tool: String, request: &Value) -> Say {
    let asked = {
        let mut kept = lock(&shared.requests);
        kept.turns += 1;
        kept.turns
    };
    let fallback = Say::Text(FINAL_TEXT.to_owned());
    if asked > MAX_TURNS {
        return fallback;
    }
    let (answer, answered) = oneshot::channel();
    let turn = Turn {
        request: index,
        api,
        tool,
        results: api.results(request),
        answer,
    };
    if shared.turns.send(turn).is_err() {
        return fallback;
    }
    match tokio::time::timeout(MAX_TURN_WAIT, answered).await {
        Ok(Ok(say)) => say,
        _ => fallback,
    }
}

/// Keeps a request (within the bounds); its index among all requests.
fn keep(
    shared: &Shared,
    method: &str,
    path: &str,
    headers: Vec<(String, String)>,
    body: String,
    kind: &'static str,
) -> usize {
    let mut kept = lock(&shared.requests);
    let index = kept.seen;
    kept.seen = kept.seen.saturating_add(1);
    let size = body.len().saturating_add(path.len());
    if kept.requests.len() < MAX_REQUESTS && kept.bytes.saturating_add(size) <= MAX_KEPT_BYTES {
        kept.bytes = kept.bytes.saturating_add(size);
        let at_ms = u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        kept.requests.push(ModelRequest {
            at_ms,
            method: method.to_owned(),
            path: path.to_owned(),
            headers,
            body,
            kind,
        });
    }
    index
}

/// The agent's name for `wanted` among `tools`: the same name, else one that ends with it
/// after a separator (`mcp__probe__synthetic`, `probe__synthetic`, `probe_synthetic`,
/// `probe/synthetic`), one naming the `probe` server first; else the same with every character
/// outside `[A-Za-z0-9_-]` read as `_` on both sides (an agent that makes a model-safe name of
/// `wetter_für_köln`: `mcp__probe__wetter_f_r_k_ln`).
pub fn find_tool(tools: &[String], wanted: &str) -> Option<String> {
    if let Some(found) = find_as_named(tools.iter().map(|t| (t, t.clone())), wanted) {
        return Some(found);
    }
    let safe = model_safe(wanted);
    find_as_named(tools.iter().map(|t| (t, model_safe(t))), &safe)
}

/// [`find_tool`]'s matching over `(tool, the name compared)` pairs.
fn find_as_named<'t>(
    tools: impl Iterator<Item = (&'t String, String)> + Clone,
    wanted: &str,
) -> Option<String> {
    if let Some((exact, _)) = tools.clone().find(|(_, name)| name == wanted) {
        return Some(exact.clone());
    }
    let ends = |name: &str| {
        name.strip_suffix(wanted)
            .and_then(|head| head.chars().last())
            .is_some_and(|c| matches!(c, '_' | '/' | '.' | '-' | ':'))
    };
    let mut matching: Vec<&String> = tools
        .filter(|(_, name)| ends(name))
        .map(|(t, _)| t)
        .collect();
    matching.sort_by_key(|name| !name.contains("probe"));
    matching.first().map(|name| (*name).clone())
}

fn model_safe(name: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    name.chars()
        .map(|c| if safe(c) { c } else { '_' })
        .collect()
}

/// The tools a side request offered, for a message: `[Bash, Read]`, or `no tools`.
pub fn offered(request: &ModelRequest) -> String {
    let body: Value = crate::json_text::value(&request.body).unwrap_or(Value::Null);
    let tools = match api::route(&request.method, &request.path) {
        Route::Generate(api) => api.tools(&body),
        _ => Vec::new(),
    };
    match tools.is_empty() {
        true => "no tools".to_owned(),
        false => format!("[{}]", tools.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_CONNECTIONS, ModelServer, find_tool};
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    /// Generous: reached only when a test is failing.
    const PATIENCE: Duration = Duration::from_secs(10);

    /// What the server sends until it closes, as text.
    async fn answer_of(stream: &mut TcpStream) -> String {
        let mut answer = Vec::new();
        let read = tokio::time::timeout(PATIENCE, stream.read_to_end(&mut answer)).await;
        read.expect("an answer within 10 s")
            .expect("the answer, not a reset");
        String::from_utf8_lossy(&answer).into_owned()
    }

    /// An agent that sends a body past the bound reads `413` (it used to get `400`, and often a
    /// reset instead, as the model closed with the body unread).
    #[tokio::test]
    async fn a_body_past_the_bound_is_answered_413_and_the_agent_reads_it() {
        let server = ModelServer::start("synthetic").await.unwrap();
        let addr = server.url().trim_start_matches("http://").to_owned();
        let stream = TcpStream::connect(&addr).await.unwrap();
        let (mut read, mut write) = stream.into_split();
        let length = 17 * 1024 * 1024;
        let sending = tokio::spawn(async move {
            let head = format!(
                "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
                 content-length: {length}\r\n\r\n"
            );
            write.write_all(head.as_bytes()).await?;
            write.write_all(&vec![b' '; length]).await
        });
        let mut answer = Vec::new();
        let read = tokio::time::timeout(PATIENCE, read.read_to_end(&mut answer)).await;
        read.expect("an answer within 10 s")
            .expect("the answer, not a reset");
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.starts_with("HTTP/1.1 413 Payload Too Large\r\n"),
            "{answer}"
        );
        assert!(answer.contains("16 MiB"), "{answer}");
        // The whole body went: the model read what it did not keep.
        let sent = tokio::time::timeout(PATIENCE, sending)
            .await
            .unwrap()
            .unwrap();
        assert!(sent.is_ok(), "{sent:?}");
    }

    /// However many connections an agent opens, at most [`MAX_CONNECTIONS`] are served at
    /// once (each holding at most one 16 MiB body); the next is served once one ends.
    #[tokio::test]
    async fn connections_past_the_bound_wait_for_one_to_end() {
        let server = ModelServer::start("synthetic").await.unwrap();
        let addr = server.url().trim_start_matches("http://").to_owned();
        // Each holder has begun a 1 MiB body and sends no more.
        let mut holders = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            let mut stream = TcpStream::connect(&addr).await.unwrap();
            let head = "POST /v1/messages HTTP/1.1\r\ncontent-length: 1048576\r\n\r\n{";
            stream.write_all(head.as_bytes()).await.unwrap();
            holders.push(stream);
        }
        let mut extra = TcpStream::connect(&addr).await.unwrap();
        let request = "GET /v1/models HTTP/1.1\r\nhost: x\r\n\r\n";
        extra.write_all(request.as_bytes()).await.unwrap();
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while server.connections() < MAX_CONNECTIONS {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the holders are served"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // The extra one waits: not accepted, not answered.
        let mut byte = [0; 1];
        let early = tokio::time::timeout(Duration::from_millis(300), extra.read(&mut byte)).await;
        assert!(
            early.is_err(),
            "answered while every slot was held: {early:?}"
        );
        assert_eq!(server.connections(), MAX_CONNECTIONS);
        drop(holders.pop());
        let answer = answer_of(&mut extra).await;
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(server.connections() <= MAX_CONNECTIONS);
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn a_tool_is_found_under_each_agents_naming() {
        for name in [
            "synthetic",
            "mcp__probe__synthetic",
            "probe_synthetic",
            "probe-synthetic",
            "mcp_probe_synthetic",
            "mcp__probe::synthetic",
        ] {
            let tools = names(&["Bash", "other_tool", name]);
            assert_eq!(find_tool(&tools, "synthetic").as_deref(), Some(name));
        }
        let tools = names(&["Read", "mcp__probe__wetter_f_r_k_ln"]);
        let found = find_tool(&tools, "wetter_für_köln");
        assert_eq!(found.as_deref(), Some("mcp__probe__wetter_f_r_k_ln"));
        assert_eq!(
            find_tool(&names(&["Bash", "notsynthetic"]), "synthetic"),
            None
        );
        // The probe server's tool before another server's of the same name.
        let tools = names(&["other__synthetic", "probe__synthetic"]);
        assert_eq!(
            find_tool(&tools, "synthetic").as_deref(),
            Some("probe__synthetic")
        );
    }
}

//! What the wire server saw and sent: one exchange per request, within the server's
//! [`Limits`], so that no client makes the record grow without end.

use super::http::{HttpMethod, Request};
use super::limits::Limits;
use super::placeholder::Placeholders;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Instant;
use tokio::sync::watch;

/// The most of a request target the record keeps; the rest is counted in `dropped`.
pub const PATH_KEEP: usize = 1024;

/// The most of a JSON-RPC method name the record keeps (no MCP method is near it, so a cut name
/// is never mistaken for one).
pub const METHOD_KEEP: usize = 128;

/// The most of one response the record keeps (head and body as written).
pub const REPLY_KEEP: usize = 16 * 1024;

/// One request and what the server did about it.
#[derive(Debug, Clone, Serialize)]
pub struct Exchange {
    /// Milliseconds since the server started.
    pub at_ms: u64,
    /// Which call of the case was current (0-based).
    pub call: usize,
    /// The HTTP method.
    pub http_method: HttpMethod,
    /// The request target (its first [`PATH_KEEP`] bytes).
    pub path: String,
    /// The JSON-RPC method, when the body had one (its first [`METHOD_KEEP`] bytes).
    pub jsonrpc_method: Option<String>,
    /// The headers as received (names lowercased); none once the record is full.
    pub headers: Vec<(String, String)>,
    /// The body as text (lossy UTF-8): its first [`Limits::body_bytes`], none once the record
    /// is full.
    pub body: String,
    /// How many bytes of the request (target, method, headers, body) the record did not keep,
    /// for its bounds; 0 when it kept all of them.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: usize,
    /// What the server answered.
    pub reply: Sent,
}

/// What the server wrote back.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Sent {
    /// Who answered.
    pub by: Answerer,
    /// The status, when a status line went out.
    pub status: Option<u16>,
    /// How the exchange ended; none while it is in progress (written as `""`).
    #[serde(serialize_with = "ended_word")]
    pub end: Option<Ended>,
    /// The bytes written (head and body as text): the first [`REPLY_KEEP`], none once the
    /// record is full.
    pub bytes: String,
    /// How many of the bytes written the record did not keep; 0 when it kept all of them.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: usize,
    /// When the exchange ended, in milliseconds since the server started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_ms: Option<u64>,
    /// When the client closed the connection of a stalled reply (one the server still held
    /// open), in milliseconds since the server started: over HTTP in 2026-07-28, closing the
    /// stream is how a client cancels. `None` while it stays open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_closed_ms: Option<u64>,
    /// Which scripted reply answered (`call.reply[i]`, `call.resume[i]` for a GET, or the task
    /// method's `call.task_get[i]` and the like).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_index: Option<usize>,
    /// The session id an `initialize` answer minted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The requests this reply sent whose answers it waited for (an event's `await_answer_ms`),
    /// in the order it sent them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub awaited: Vec<Awaited>,
}

/// A request the server sent inside a reply, and whether the client's answer came while the
/// server waited for it (before the stream went on).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Awaited {
    /// The request's id.
    pub id: Value,
    /// Whether a POSTed response with that id arrived within the wait.
    pub answered: bool,
}

/// Who answered a request; its word (`script`, `resume`, `task`, `prelude`, `error`) is what the
/// record, the transcript and the reports show.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, strum::IntoStaticStr, strum::Display,
)]
#[serde(into = "&'static str")]
#[strum(serialize_all = "lowercase")]
pub enum Answerer {
    /// A reply the case scripted for the call (`call.reply[i]`).
    Script,
    /// A case's answer to a GET that resumes a stream (`call.resume[i]`).
    Resume,
    /// A case's answer to a task method (`call.task_get[i]`, `call.task_result[i]`,
    /// `call.task_cancel[i]`: which one is the request's method).
    Task,
    /// The server's own protocol answer (`initialize`, notifications, `DELETE`, ...): what a
    /// request the case does not script gets.
    #[default]
    Prelude,
    /// The server's refusal of a request it could not read (400) or that did not arrive in
    /// time (408).
    Error,
    /// The case's authorization server, for a request to its documents and endpoints
    /// (cases/README.md, "Authorization"); written `auth-server`.
    #[strum(serialize = "auth-server")]
    AuthServer,
    /// The case's authorization server, refusing an MCP request whose token it did not accept
    /// (401) or that lacks the scope it needs (403).
    Auth,
}

impl Answerer {
    /// Whether the case's own script answered (a reply, a resumption, a task answer), not the
    /// server's protocol answers or refusals.
    pub fn is_scripted(self) -> bool {
        matches!(self, Answerer::Script | Answerer::Resume | Answerer::Task)
    }
}

/// How an exchange ended; its word (`complete`, `close`, `reset`, `stall`, `cut`) is what the
/// record, the transcript and the reports show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::Display)]
#[serde(into = "&'static str")]
#[strum(serialize_all = "lowercase")]
pub enum Ended {
    /// The response was written whole.
    Complete,
    /// The server closed the connection after what it wrote.
    Close,
    /// The server reset the connection.
    Reset,
    /// The server stopped writing and kept the connection open.
    Stall,
    /// The response was cut after the case's `cut_after` bytes.
    Cut,
}

impl Ended {
    /// The word of `end`, `""` while the exchange is in progress.
    pub fn word(end: Option<Ended>) -> &'static str {
        end.map_or("", Into::into)
    }
}

fn ended_word<S: serde::Serializer>(end: &Option<Ended>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(Ended::word(*end))
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Exchange {
    /// Whether this is a `tools/call` POST.
    pub fn is_tool_call(&self) -> bool {
        self.http_method == "POST" && self.jsonrpc_method.as_deref() == Some("tools/call")
    }

    /// Whether this is a GET that resumes an SSE stream (it names a `Last-Event-ID`).
    pub fn is_resumption(&self) -> bool {
        self.http_method == "GET" && self.header("last-event-id").is_some()
    }

    /// Whether this is a token request: a POST to the authorization server's token endpoint
    /// (cases/README.md, "Authorization").
    pub fn is_token_request(&self) -> bool {
        self.http_method == "POST"
            && self.is_for_authorization_server()
            && self.path_only() == "/token"
    }

    /// Whether this asks for an interactive authorization: a GET of the authorization server's
    /// authorization endpoint.
    pub fn is_authorization(&self) -> bool {
        self.http_method == "GET"
            && self.is_for_authorization_server()
            && self.path_only() == "/authorize"
    }

    /// Whether the request was for the case's authorization server (its metadata, token or
    /// authorization endpoint) rather than the MCP endpoint.
    pub fn is_for_authorization_server(&self) -> bool {
        self.reply.by == Answerer::AuthServer
    }

    /// The request target without its query.
    pub fn path_only(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    /// Whether this request says it is a 2026-07-28 one ([`crate::era::says_modern`]).
    pub fn says_modern(&self) -> bool {
        let message = serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null);
        crate::era::says_modern(self.header("mcp-protocol-version"), &message)
    }

    /// The first header with this lowercase name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The bytes this exchange holds against [`Limits::record_bytes`].
    fn weight(&self) -> usize {
        let headers: usize = self.headers.iter().map(|(n, v)| n.len() + v.len()).sum();
        headers + self.body.len() + self.reply.bytes.len()
    }
}

/// What one call has seen so far: the counts that pick its replies, kept apart from the
/// exchanges so that they stay exact whatever the record keeps or forgets.
#[derive(Debug, Clone, Default)]
pub(crate) struct Seen {
    /// POSTs of any method.
    pub posts: usize,
    /// `tools/call` POSTs.
    pub tool_posts: usize,
    /// GETs that resume a stream.
    pub gets: usize,
    /// `tools/call` POSTs the authorization server refused (401, 403): counted for the call,
    /// never answered by its script.
    pub refused_tool_posts: usize,
    /// POSTs of each task method, by [`TaskMethod`].
    pub task_posts: [usize; 3],
    /// The placeholders of the latest `tools/call`: what a resumed stream answers.
    pub last_tool_call: Option<Placeholders>,
}

/// A task method whose POSTs a case scripts answers for (`[[call.task_get]]` and the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskMethod {
    /// `tasks/get`.
    Get = 0,
    /// `tasks/result`.
    Result = 1,
    /// `tasks/cancel`.
    Cancel = 2,
}

impl TaskMethod {
    /// The task method `method` names, when it is one.
    pub fn of(method: &str) -> Option<TaskMethod> {
        match method {
            "tasks/get" => Some(TaskMethod::Get),
            "tasks/result" => Some(TaskMethod::Result),
            "tasks/cancel" => Some(TaskMethod::Cancel),
            _ => None,
        }
    }

    /// Its JSON-RPC method name.
    pub fn name(self) -> &'static str {
        match self {
            TaskMethod::Get => "tasks/get",
            TaskMethod::Result => "tasks/result",
            TaskMethod::Cancel => "tasks/cancel",
        }
    }
}

/// The exchanges kept so far and what each call has seen.
#[derive(Debug)]
pub(crate) struct Record {
    limits: Limits,
    /// The exchanges kept, oldest first: `exchanges[0]` is exchange number `first`.
    exchanges: Vec<Exchange>,
    first: usize,
    /// The bytes the kept exchanges hold ([`Exchange::weight`]).
    weight: usize,
    seen: BTreeMap<usize, Seen>,
}

/// What one request brings to the record.
pub(crate) struct Arrival<'a> {
    pub at_ms: u64,
    pub call: usize,
    pub request: &'a Request,
    pub message: Option<&'a Value>,
    pub jsonrpc_method: Option<&'a str>,
    /// Whether the MCP server gets the request: not one for the authorization server, nor one
    /// it refused. Only those count towards which scripted reply answers next.
    pub admitted: bool,
    pub reply: Sent,
}

impl Record {
    fn new(limits: Limits) -> Self {
        Record {
            limits,
            exchanges: Vec::new(),
            first: 0,
            weight: 0,
            seen: BTreeMap::new(),
        }
    }

    /// The exchanges kept, oldest first.
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// What call `call` has seen so far.
    pub fn seen(&self, call: usize) -> Seen {
        self.seen.get(&call).cloned().unwrap_or_default()
    }

    /// How many `tools/call` POSTs call `call` has seen, those the authorization server
    /// refused included.
    pub fn tool_posts(&self, call: usize) -> usize {
        self.seen
            .get(&call)
            .map_or(0, |s| s.tool_posts + s.refused_tool_posts)
    }

    /// Records a request, within the limits; returns its exchange number (for [`Record::get_mut`]).
    pub fn push(&mut self, arrival: Arrival<'_>) -> usize {
        let Arrival {
            at_ms,
            call,
            request,
            message,
            jsonrpc_method,
            admitted,
            reply,
        } = arrival;
        let tool_call = jsonrpc_method == Some("tools/call");
        let task_method = jsonrpc_method.and_then(TaskMethod::of);
        let mut dropped = 0;
        let path = cut(&request.path, PATH_KEEP, &mut dropped).to_owned();
        let jsonrpc_method = jsonrpc_method.map(|m| cut(m, METHOD_KEEP, &mut dropped).to_owned());
        let head: usize = request.headers.iter().map(|(n, v)| n.len() + v.len()).sum();
        // Credentials are kept by their names only (`crate::credential`).
        let headers = if head <= self.room() {
            let redacted =
                |(n, v): &(String, String)| (n.clone(), crate::credential::redact(v).into_owned());
            request.headers.iter().map(redacted).collect()
        } else {
            dropped += head;
            Vec::new()
        };
        let body_room = self.room().saturating_sub(head.min(self.room()));
        let text = String::from_utf8_lossy(&request.body);
        let text = crate::credential::redact(&text);
        let keep = self.limits.body_bytes.min(body_room);
        let body = cut(&text, keep, &mut dropped).to_owned();
        let exchange = Exchange {
            at_ms,
            call,
            http_method: request.method.clone(),
            path,
            jsonrpc_method,
            headers,
            body,
            dropped,
            reply,
        };
        // Counted from the request as it arrived, not from what the record kept of it.
        let seen = self.seen.entry(call).or_default();
        match request.method.as_str() {
            "POST" if !admitted => seen.refused_tool_posts += usize::from(tool_call),
            "POST" => {
                seen.posts += 1;
                if tool_call {
                    seen.tool_posts += 1;
                    seen.last_tool_call = message.map(Placeholders::from_request);
                }
                if let Some(method) = task_method {
                    seen.task_posts[method as usize] += 1;
                }
            }
            "GET" if admitted && request.header("last-event-id").is_some() => seen.gets += 1,
            _ => {}
        }
        self.weight += exchange.weight();
        self.exchanges.push(exchange);
        self.first + self.exchanges.len() - 1
    }

    /// The number the next exchange will get: where a reader that wants only what comes next
    /// starts ([`Record::answered_since`]).
    pub fn next_number(&self) -> usize {
        self.first + self.exchanges.len()
    }

    /// Whether a POST numbered `from` or later carried a JSON-RPC response (a `result` or an
    /// `error`) with `id` (the same JSON value: `7` and `"7"` differ). `Err` holds the number
    /// to look from next time: an exchange's body is whole when it is recorded, so each is read
    /// once however often a waiter looks.
    pub fn answered_since(&self, id: &Value, from: usize) -> Result<(), usize> {
        let skip = from.saturating_sub(self.first);
        let found = self.exchanges.iter().skip(skip).any(|e| {
            e.http_method == "POST"
                && e.jsonrpc_method.is_none()
                && crate::json_text::value(&e.body)
                    .is_some_and(|m| m.get("id") == Some(id) && is_response(&m))
        });
        if found {
            Ok(())
        } else {
            Err(self.next_number())
        }
    }

    /// Exchange number `number`, unless it has been forgotten.
    fn get_mut(&mut self, number: usize) -> Option<&mut Exchange> {
        let index = number.checked_sub(self.first)?;
        self.exchanges.get_mut(index)
    }

    /// Notes reply bytes written for exchange `number`, within the limits.
    pub fn wrote(&mut self, number: usize, bytes: &[u8]) {
        let room = self.room();
        let Some(exchange) = self.get_mut(number) else {
            return;
        };
        let keep = REPLY_KEEP
            .saturating_sub(exchange.reply.bytes.len())
            .min(room);
        let text = String::from_utf8_lossy(bytes);
        let text = crate::credential::redact(&text);
        let mut dropped = 0;
        let kept = cut(&text, keep, &mut dropped);
        exchange.reply.bytes.push_str(kept);
        exchange.reply.dropped += dropped;
        self.weight += kept.len();
    }

    /// Changes exchange `number`'s reply with `f` (who answered, how it ended).
    pub fn reply(&mut self, number: usize, f: impl FnOnce(&mut Sent)) {
        if let Some(exchange) = self.get_mut(number) {
            f(&mut exchange.reply);
        }
    }

    /// Forgets the oldest `count` exchanges kept; their bytes no longer count against the
    /// limits. What each call has seen stays.
    pub fn forget(&mut self, count: usize) {
        let count = count.min(self.exchanges.len());
        let freed: usize = self.exchanges.drain(..count).map(|e| e.weight()).sum();
        self.weight -= freed;
        self.first += count;
    }

    /// How many more bytes the record may keep.
    fn room(&self) -> usize {
        self.limits.record_bytes.saturating_sub(self.weight)
    }
}

/// Whether `message` is a JSON-RPC response: a `result` or an `error`, and no `method`.
pub(crate) fn is_response(message: &Value) -> bool {
    message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// The start of `text` of at most `most` bytes, cut at a character boundary; what it leaves
/// out is added to `dropped`.
fn cut<'a>(text: &'a str, most: usize, dropped: &mut usize) -> &'a str {
    let mut end = most.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    *dropped += text.len() - end;
    &text[..end]
}

/// The record of one server, shared by its connections and its owner. Every change is
/// announced on a watch channel, so that a reader waits for news instead of polling copies.
#[derive(Debug)]
pub(crate) struct Recorder {
    record: Mutex<Record>,
    changes: watch::Sender<u64>,
    started: Instant,
}

impl Recorder {
    pub fn new(limits: Limits) -> Self {
        Recorder {
            record: Mutex::new(Record::new(limits)),
            changes: watch::Sender::new(0),
            started: Instant::now(),
        }
    }

    /// When the server started: `at_ms` counts from here.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Milliseconds since the server started.
    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// `f` of the record, read-only.
    pub fn read<R>(&self, f: impl FnOnce(&Record) -> R) -> R {
        f(&self.lock())
    }

    /// `f` of the record; then every watcher hears of the change.
    pub fn update<R>(&self, f: impl FnOnce(&mut Record) -> R) -> R {
        let result = f(&mut self.lock());
        self.changes
            .send_modify(|generation| *generation = generation.wrapping_add(1));
        result
    }

    /// A receiver that sees a new value after every change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Record> {
        // A poisoned lock only means another connection task panicked mid-update; the record is
        // still the best evidence there is.
        self.record.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_stops_at_a_character_boundary_and_counts_the_rest() {
        let mut dropped = 0;
        assert_eq!(cut("aé", 2, &mut dropped), "a");
        assert_eq!(dropped, 2);
        assert_eq!(cut("abc", 10, &mut dropped), "abc");
        assert_eq!(dropped, 2);
    }

    fn push_post(record: &mut Record, body: &str) -> usize {
        let request = Request {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
        };
        let message: Option<Value> = serde_json::from_str(body).ok();
        let method = message
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str);
        record.push(Arrival {
            at_ms: 0,
            call: 0,
            request: &request,
            message: message.as_ref(),
            jsonrpc_method: method,
            admitted: true,
            reply: Sent::default(),
        })
    }

    #[test]
    fn an_answer_is_found_by_its_id_and_each_exchange_read_once() {
        let mut record = Record::new(Limits::default());
        let id = serde_json::json!(7);
        assert_eq!(record.answered_since(&id, 0), Err(0));
        push_post(&mut record, r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#);
        push_post(&mut record, r#"{"jsonrpc":"2.0","id":"7","result":{}}"#);
        assert_eq!(
            record.answered_since(&id, 0),
            Err(2),
            "a request and another id"
        );
        record.forget(1);
        let number = push_post(
            &mut record,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-1}}"#,
        );
        assert_eq!(number, 2);
        assert_eq!(record.answered_since(&id, 2), Ok(()));
        assert_eq!(record.answered_since(&id, 3), Err(3), "looked at already");
    }

    #[test]
    fn who_answered_and_how_it_ended_are_written_as_words() {
        let mut sent = Sent::default();
        let json = |sent: &Sent| serde_json::to_value(sent).unwrap();
        assert_eq!(
            (json(&sent)["by"].clone(), json(&sent)["end"].clone()),
            ("prelude".into(), "".into())
        );
        sent.by = Answerer::Script;
        sent.end = Some(Ended::Cut);
        assert_eq!(
            (json(&sent)["by"].clone(), json(&sent)["end"].clone()),
            ("script".into(), "cut".into())
        );
        assert_eq!(Answerer::Error.to_string(), "error");
        assert_eq!(Ended::word(Some(Ended::Stall)), "stall");
    }
}

//! The adapter contract (docs/adapters.md) for the Rust adapters here, in one place: a row keeps
//! only what is its SDK's (how to open its client, make a call on it, map what the SDK raised,
//! and close it).
//!
//! A row is a [`Row`]; [`main`] (or [`main_with_tasks`]) runs it in the mode the runner asked for:
//!
//! - **One process per call**: the [`Call`] comes in the endpoint URL (the last argument) and the
//!   `MCP_ERROR_LAYERS_*` variables; the row opens its client, makes the call, closes the client,
//!   and the [`Observation`] goes to stdout as the one JSON line.
//! - **Persistent** (`MCP_ERROR_LAYERS_MODE=persistent`): announce `{"persistent": 1,
//!   "concurrent": 16, "name": ..., "version": ...}`, then serve every request line as it comes,
//!   many at once, each answered with one line that carries its request's `id`. The calls of a
//!   case run on one client (docs/adapters.md, "One client per case"): opened at the case's
//!   first call, kept by the request's `client` id, closed after call `calls - 1`. Stdin closing
//!   means no more calls: the calls in flight finish, the clients kept between calls are closed,
//!   then the process exits.
//!
//! Each client lives on a thread of its own with a current-thread tokio runtime of its own
//! (`kept.rs`), as it did in a process of its own: what its SDK spawns (a session's worker, a GET
//! stream) runs there, between calls too, and nothing of one client's work delays another's. The
//! runtime goes when the client is closed, with whatever the SDK left running on it.
//!
//! Everything else goes to stderr. Calls at once share it: [`note!`] (and a panic) prefixes each
//! line with the id of the request its client thread is serving, `[7] ...`.

use std::cell::Cell;
use std::error::Error as StdError;
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

use serde_json::{Map, Value, json};

mod kept;
mod serve;

/// `detail` is the SDK's own text, whitespace collapsed, cut at this many characters.
const MAX_DETAIL: usize = 600;

/// One call the runner asks for.
#[derive(Debug, Clone)]
pub struct Call {
    pub endpoint: String,
    pub tool: String,
    pub arguments: Map<String, Value>,
    pub protocol_version: String,
    /// The client's own timeout for the call.
    pub timeout: Duration,
    /// The tool's annotations as `tools/list` advertises them: what a retry policy rests on.
    pub annotations: Map<String, Value>,
    /// List the tools first, as an application does to learn the tool's schemas.
    pub list_tools: bool,
    /// The application asks for the call as a task (`{}` or `{"ttl_ms": N}`); `None` for an
    /// ordinary call (docs/adapters.md, "Tasks").
    pub task: Option<Map<String, Value>>,
    /// The client the call runs on: the same for every call of a case (docs/adapters.md, "One
    /// client per case"); `None` for a call with a client of its own (one-shot mode).
    pub client: Option<u64>,
    /// This call's place among the client's calls, from 0.
    pub index: u64,
    /// How many calls the client makes: it is closed after call `calls - 1`.
    pub calls: u64,
}

impl Call {
    /// Whether the client is closed after this call.
    #[must_use]
    pub fn is_last(&self) -> bool {
        self.index + 1 >= self.calls
    }

    /// The call in the `MCP_ERROR_LAYERS_*` variables, to `endpoint`.
    fn from_env(endpoint: String) -> Result<Self, String> {
        let timeout_ms = number_env("MCP_ERROR_LAYERS_TIMEOUT_MS", 5000)?;
        Ok(Self {
            endpoint,
            tool: env("MCP_ERROR_LAYERS_TOOL")?.ok_or("MCP_ERROR_LAYERS_TOOL is not set")?,
            arguments: json_object("MCP_ERROR_LAYERS_ARGUMENTS")?,
            protocol_version: env("MCP_ERROR_LAYERS_PROTOCOL_VERSION")?
                .unwrap_or_else(|| "2026-07-28".into()),
            timeout: Duration::from_millis(timeout_ms.max(1)),
            annotations: json_object("MCP_ERROR_LAYERS_TOOL_ANNOTATIONS")?,
            list_tools: env("MCP_ERROR_LAYERS_LIST_TOOLS")?.is_some_and(|v| v == "1"),
            task: match env("MCP_ERROR_LAYERS_TASK")? {
                Some(_) => Some(json_object("MCP_ERROR_LAYERS_TASK")?),
                None => None,
            },
            client: None,
            index: number_env("MCP_ERROR_LAYERS_CALL_INDEX", 0)?,
            calls: number_env("MCP_ERROR_LAYERS_CALLS", 1)?.max(1),
        })
    }

    /// A persistent-mode request line, parsed.
    fn from_request(request: &Map<String, Value>) -> Result<Self, String> {
        let text = |key: &str| match request.get(key) {
            Some(Value::String(text)) => Ok(text.clone()),
            other => Err(format!("request key {key:?} is not a string: {other:?}")),
        };
        let object = |key: &str| match request.get(key) {
            Some(Value::Object(object)) => Ok(Some(object.clone())),
            None | Some(Value::Null) => Ok(None),
            Some(other) => Err(format!("request key {key:?} is not an object: {other}")),
        };
        let number = |key: &str, default: u64| match request.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(value) => value
                .as_u64()
                .ok_or_else(|| format!("request key {key:?} is not a count: {value}")),
        };
        Ok(Self {
            endpoint: text("endpoint")?,
            tool: text("tool")?,
            arguments: object("arguments")?.unwrap_or_default(),
            protocol_version: text("protocol_version")?,
            timeout: Duration::from_millis(number("timeout_ms", 5000)?.max(1)),
            annotations: object("annotations")?.unwrap_or_default(),
            list_tools: request.get("list_tools") == Some(&Value::Bool(true)),
            task: object("task")?,
            client: match request.get("client") {
                None | Some(Value::Null) => None,
                Some(_) => Some(number("client", 0)?),
            },
            index: number("call", 0)?,
            calls: number("calls", 1)?.max(1),
        })
    }
}

fn env(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(error) => Err(format!("{name}: {error}")),
    }
}

/// A variable holding a count; `default` when it is not set.
fn number_env(name: &str, default: u64) -> Result<u64, String> {
    match env(name)? {
        Some(text) => text.parse().map_err(|e| format!("{name}: {e}")),
        None => Ok(default),
    }
}

/// A variable holding a JSON object as text; `{}` when it is not set.
fn json_object(name: &str) -> Result<Map<String, Value>, String> {
    let text = env(name)?.unwrap_or_else(|| "{}".into());
    serde_json::from_str(&text).map_err(|e| format!("{name} is not a JSON object: {e}"))
}

/// One observation, as the contract prints it.
#[derive(Debug, Clone)]
pub enum Observation {
    Outcome {
        outcome: &'static str,
        status: Option<u16>,
        code: Option<i64>,
        detail: String,
    },
    /// The adapter cannot run this call (a skip, never a pass), and why.
    Unsupported(String),
}

impl Observation {
    #[must_use]
    pub fn new(outcome: &'static str, detail: impl Into<String>) -> Self {
        Self::Outcome {
            outcome,
            status: None,
            code: None,
            detail: tidy(&detail.into()),
        }
    }

    #[must_use]
    pub fn with_status(mut self, value: u16) -> Self {
        if let Self::Outcome { status, .. } = &mut self {
            *status = Some(value);
        }
        self
    }

    #[must_use]
    pub fn with_code(mut self, value: i64) -> Self {
        if let Self::Outcome { code, .. } = &mut self {
            *code = Some(value);
        }
        self
    }

    /// The contract's JSON line, keys in the contract's order.
    #[must_use]
    pub fn to_json_line(&self) -> String {
        self.answer_line(None)
    }

    /// The line that answers request `id` (none in one-shot mode: the line alone).
    fn answer_line(&self, id: Option<u64>) -> String {
        let id = id.map(|id| format!("\"id\": {id}, ")).unwrap_or_default();
        match self {
            Self::Outcome {
                outcome,
                status,
                code,
                detail,
            } => format!(
                "{{{id}\"outcome\": {}, \"status\": {}, \"code\": {}, \"detail\": {}}}",
                Value::from(*outcome),
                json!(status),
                json!(code),
                Value::from(detail.as_str())
            ),
            Self::Unsupported(why) => {
                format!("{{{id}\"unsupported\": {}}}", Value::from(why.as_str()))
            }
        }
    }
}

fn tidy(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > MAX_DETAIL {
        let cut: String = text.chars().take(MAX_DETAIL).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// The error and its `source()` chain as text; a cause that repeats the text before it is skipped.
#[must_use]
pub fn describe(error: &(dyn StdError + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    for e in chain(error) {
        let text = e.to_string();
        if parts.last().is_none_or(|last| !last.contains(&text)) {
            parts.push(text);
        }
        if parts.len() >= 5 {
            break;
        }
    }
    parts.join(" <- caused by ")
}

/// The errors in a `source()` chain, outermost first.
#[must_use]
pub fn chain<'a>(error: &'a (dyn StdError + 'static)) -> Vec<&'a (dyn StdError + 'static)> {
    let mut found = Vec::new();
    let mut current = Some(error);
    while let Some(e) = current {
        found.push(e);
        current = e.source();
    }
    found
}

/// `work` under the adapter's own deadline: past `timeout` it is dropped (abandoned, as an
/// application with a deadline does).
///
/// # Errors
///
/// The call's `TIMEOUT` observation, naming `what`, when `timeout` passes first.
pub async fn within<T>(
    timeout: Duration,
    what: &str,
    work: impl Future<Output = T>,
) -> Result<T, Observation> {
    tokio::time::timeout(timeout, work).await.map_err(|_| {
        Observation::new(
            "TIMEOUT",
            format!("{what} did not finish within {timeout:?} (the adapter's deadline around it)"),
        )
    })
}

/// A teardown the row makes itself (a client it made for an open that failed), for at most
/// 2 s, as the contract closes a client after its case's last call: the observation stands
/// whatever it does, and what it did goes to stderr.
pub async fn teardown<T: std::fmt::Debug, E: std::fmt::Display>(
    what: &str,
    work: impl Future<Output = Result<T, E>>,
) {
    match tokio::time::timeout(kept::TEARDOWN, work).await {
        Ok(Ok(value)) => note!("{what} finished: {value:?}"),
        Ok(Err(error)) => note!("{what} failed: {error}"),
        Err(_) => note!("{what} took longer than {:?}; abandoned", kept::TEARDOWN),
    }
}

/// A row: how its SDK's client is opened, called, read and closed. The contract keeps one client
/// per case (docs/adapters.md, "One client per case"), as an application keeps the client it
/// made:
///
/// - the case's first call opens it ([`Row::open`]); a failed open is that call's observation
///   ([`Row::error`]), nothing is kept, and the next call opens one again, as an application
///   that never got a client tries again;
/// - every call of the case goes through it ([`Row::call`]); an error the call raises is the
///   application's to catch, mapped by [`Row::error`], and the client stays: whatever state a
///   fault left it in, the next call goes through the same object, and what it then does
///   (fails, hangs, recovers) is that call's observation. The contract never reopens a client
///   on its own;
/// - after the case's last call it is closed ([`Row::close`], for at most 2 s), before that
///   call's answer goes out, so that what closing sends (a session's `DELETE`) is in the call's
///   record.
///
/// The futures run on the client's own current-thread runtime, so they need not be `Send`.
#[allow(async_fn_in_trait)]
pub trait Row: Send + Sync + 'static {
    /// The client object an application keeps between its calls.
    type Client;
    /// What the SDK raised, with the step it came from (the row's words for it in `detail`).
    type Error;

    /// `Some(why)` for a call the row cannot make (a protocol version its SDK does not know):
    /// answered `unsupported` before any client is opened for it. `None` (the default) for
    /// every call it can make.
    fn refuse(&self, _call: &Call) -> Option<String> {
        None
    }

    /// Opens the client for `call`, as an application does before its first call: connects
    /// and makes the handshake the SDK leaves to it. On failure it closes what it made.
    async fn open(&self, call: &Call) -> Result<Self::Client, Self::Error>;

    /// Makes `call` on the open client and returns its observation (the row's own deadline
    /// around it, [`within`], included).
    async fn call(
        &self,
        client: &mut Self::Client,
        call: &Call,
    ) -> Result<Observation, Self::Error>;

    /// The observation for an error the application caught, from [`Row::open`] or
    /// [`Row::call`].
    fn error(&self, error: Self::Error, call: &Call) -> Observation;

    /// Closes the client after the case's last call. `Ok`: how it ended, `Err`: what went wrong
    /// (both go to stderr; the observation stands either way).
    async fn close(&self, client: Self::Client) -> Result<String, String>;
}

/// The SDK as its registry names it and its pinned version, for the persistent announcement.
#[derive(Debug, Clone, Copy)]
pub struct Sdk {
    pub name: &'static str,
    pub version: &'static str,
}

/// What an adapter that makes no task calls says to a call that asks for a task.
pub const NO_TASKS: &str = "this adapter uses no task API of its client, so it cannot run a call \
                            as a task (docs/adapters.md, \"Tasks\")";

/// Runs an adapter in the mode the runner asked for and returns its exit status. `prepare`
/// gets the row's own arguments (one-shot: those before the endpoint URL; persistent: all of
/// them) and returns the row, or `None` for arguments it does not take; `options` is their
/// synopsis for the usage line. A call that asks for a task is answered `unsupported`
/// ([`NO_TASKS`]) without the row: an adapter that runs task calls through its client's task API
/// uses [`main_with_tasks`].
pub fn main<R: Row>(
    sdk: Sdk,
    options: &str,
    prepare: impl FnOnce(&[String]) -> Option<R>,
) -> std::process::ExitCode {
    serve::run(sdk, options, prepare, false)
}

/// [`main`] for an adapter that runs task calls itself: its row gets them too.
pub fn main_with_tasks<R: Row>(
    sdk: Sdk,
    options: &str,
    prepare: impl FnOnce(&[String]) -> Option<R>,
) -> std::process::ExitCode {
    serve::run(sdk, options, prepare, true)
}

thread_local! {
    /// The request this thread's client is serving (persistent mode), for the stderr prefix.
    static REQUEST: Cell<Option<u64>> = const { Cell::new(None) };
}

/// Makes `id` the request whose stderr lines this thread writes from now on.
fn serving_request(id: Option<u64>) {
    REQUEST.with(|request| request.set(id));
}

/// The request this thread serves; `None` in one-shot mode (and while the thread ends).
fn current_request() -> Option<u64> {
    REQUEST.try_with(Cell::get).ok().flatten()
}

/// Writes `text` to stderr, each line prefixed `[<id>] ` with the request this thread serves (in
/// persistent mode): calls at once share stderr. [`note!`] is the `eprintln!` of the rows.
pub fn note_text(text: &str) {
    let request = current_request();
    let mut prefixed = String::new();
    for line in text.lines() {
        if let Some(id) = request {
            let _ = write!(prefixed, "[{id}] ");
        }
        let _ = writeln!(prefixed, "{line}");
    }
    // One write, so that lines of calls at once do not interleave; stderr may be gone.
    let _ = std::io::stderr().lock().write_all(prefixed.as_bytes());
}

/// `eprintln!` for the rows: the line goes to stderr with the prefix of the request it belongs
/// to ([`note_text`]).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::note_text(&format!($($arg)*))
    };
}

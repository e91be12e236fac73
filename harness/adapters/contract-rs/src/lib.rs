//! The adapter contract (docs/adapters.md) for the Rust adapters here, in one place: a row keeps
//! only what is its SDK's (how to open its client, make a call on it, map what the SDK raised,
//! and close it).
//!
//! A row is a [`Row`]; [`main`] (or [`main_with_tasks`]) runs it in the mode the runner asked for:
//!
//! - **One process per call**: the [`Call`] comes in the last argument (the endpoint URL, or the
//!   word `stdio`) and the `MCP_ERROR_LAYERS_*` variables; the row opens its client, makes the
//!   call, closes the client, and the [`Observation`] goes to stdout as the one JSON line.
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
//! Each call says how its client reaches the server ([`Transport`]): Streamable HTTP at an
//! endpoint URL, or stdio, where the client starts the server's command as a child process (its
//! SDK's own stdio client) and speaks newline-delimited JSON-RPC on the child's stdin and stdout.
//!
//! Everything else goes to stderr. Calls at once share it: [`note!`] (and a panic) prefixes each
//! line with the id of the request its client thread is serving, `[7] ...`.

use std::cell::Cell;
use std::error::Error as StdError;
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

use serde_json::{Map, Value, json};

mod credentials;
mod kept;
mod serve;

pub use credentials::{Credentials, unix_now};

/// `detail` is the SDK's own text, whitespace collapsed, cut at this many characters.
const MAX_DETAIL: usize = 600;

/// How the client reaches the server (the call's `transport`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Streamable HTTP at `endpoint` (`http://127.0.0.1:PORT/mcp`).
    Http { endpoint: String },
    /// stdio: the client starts `command` (program first, an absolute path; the arguments after
    /// it) as its server's process, with its SDK's own stdio client, and speaks newline-delimited
    /// JSON-RPC on the child's stdin and stdout. The server needs no environment and exits when
    /// its stdin closes.
    Stdio { command: Vec<String> },
}

impl Transport {
    /// The contract's word for it: `http` or `stdio`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Http { .. } => "http",
            Self::Stdio { .. } => "stdio",
        }
    }

    /// The transport a one-shot call names: `MCP_ERROR_LAYERS_TRANSPORT` (`http` when unset, as
    /// before there was another) with the last argument, the endpoint URL over HTTP and the word
    /// `stdio` over stdio, where `MCP_ERROR_LAYERS_STDIO_COMMAND` holds the command.
    fn from_vars(last: &str, var: &Var<'_>) -> Result<Self, String> {
        match var("MCP_ERROR_LAYERS_TRANSPORT")?.as_deref() {
            None | Some("http") => {
                if is_url(last) {
                    Ok(Self::Http {
                        endpoint: last.to_owned(),
                    })
                } else {
                    Err(format!(
                        "the last argument {last:?} is no endpoint URL (http:// or https://)"
                    ))
                }
            }
            Some("stdio") => {
                if last != "stdio" {
                    return Err(format!(
                        "MCP_ERROR_LAYERS_TRANSPORT is stdio but the last argument is {last:?}, \
                         not the word stdio"
                    ));
                }
                let name = "MCP_ERROR_LAYERS_STDIO_COMMAND";
                let text = var(name)?.ok_or_else(|| format!("{name} is not set"))?;
                let value =
                    serde_json::from_str(&text).map_err(|e| format!("{name} is not JSON: {e}"))?;
                Ok(Self::Stdio {
                    command: command(name, &value)?,
                })
            }
            Some(other) => Err(format!(
                "MCP_ERROR_LAYERS_TRANSPORT {other:?} is neither http nor stdio"
            )),
        }
    }

    /// The transport a persistent request names: its `transport` (`http` when absent, as before
    /// there was another) with its `endpoint` (a URL) or its `command` (stdio, whose `endpoint` is
    /// `null`).
    fn from_request(request: &Map<String, Value>) -> Result<Self, String> {
        match request.get("transport") {
            None | Some(Value::Null) => Self::http_request(request),
            Some(Value::String(word)) if word == "http" => Self::http_request(request),
            Some(Value::String(word)) if word == "stdio" => {
                match request.get("endpoint") {
                    None | Some(Value::Null) => {}
                    Some(other) => {
                        return Err(format!(
                            "a stdio request has an endpoint ({other}); it should be null"
                        ));
                    }
                }
                let value = request
                    .get("command")
                    .ok_or("a stdio request has no \"command\"")?;
                Ok(Self::Stdio {
                    command: command("request key \"command\"", value)?,
                })
            }
            Some(other) => Err(format!(
                "request key \"transport\" is neither \"http\" nor \"stdio\": {other}"
            )),
        }
    }

    fn http_request(request: &Map<String, Value>) -> Result<Self, String> {
        match request.get("endpoint") {
            Some(Value::String(endpoint)) => Ok(Self::Http {
                endpoint: endpoint.clone(),
            }),
            other => Err(format!(
                "request key \"endpoint\" is not a string: {other:?}"
            )),
        }
    }
}

/// A stdio command: a JSON array of strings, the program first (not empty).
fn command(what: &str, value: &Value) -> Result<Vec<String>, String> {
    let Value::Array(words) = value else {
        return Err(format!("{what} is not a JSON array of strings: {value}"));
    };
    let words: Vec<String> = words
        .iter()
        .map(|word| word.as_str().map(str::to_owned))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{what} is not a JSON array of strings: {value}"))?;
    match words.first() {
        Some(program) if !program.is_empty() => Ok(words),
        _ => Err(format!("{what} names no program: {value}")),
    }
}

fn is_url(word: &str) -> bool {
    word.starts_with("http://") || word.starts_with("https://")
}

/// How a one-shot call's variables are read: the process environment, or a test's map.
type Var<'a> = dyn Fn(&str) -> Result<Option<String>, String> + 'a;

/// One call the runner asks for.
#[derive(Debug, Clone)]
pub struct Call {
    /// How the client reaches the server: an endpoint URL, or a command to start over stdio.
    pub transport: Transport,
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
    /// The client's start credentials in an authorization case (`access_token`,
    /// `refresh_token`, `expires_in`, `expires_at`, `scope`, `client_id`, `client_secret`,
    /// `authorization_server`, `redirect_uri`); `None` in every other case (docs/adapters.md,
    /// "Credentials").
    pub auth: Option<Map<String, Value>>,
    /// The client the call runs on: the same for every call of a case (docs/adapters.md, "One
    /// client per case"); `None` for a call with a client of its own (one-shot mode).
    pub client: Option<u64>,
    /// This call's place among the client's calls, from 0.
    pub index: u64,
    /// How many calls the client makes: it is closed after call `calls - 1`.
    pub calls: u64,
}

impl Call {
    /// The start credentials, typed ([`Credentials`]); `None` outside an authorization case.
    ///
    /// # Errors
    ///
    /// What [`Credentials::from_object`] refuses in the call's `auth`.
    pub fn credentials(&self) -> Result<Option<Credentials>, String> {
        self.auth.as_ref().map(Credentials::from_object).transpose()
    }

    /// Whether the client is closed after this call.
    #[must_use]
    pub fn is_last(&self) -> bool {
        self.index + 1 >= self.calls
    }

    /// The call in the `MCP_ERROR_LAYERS_*` variables, with `last`, the last argument (the
    /// endpoint URL, or the word `stdio`).
    fn from_env(last: &str) -> Result<Self, String> {
        Self::from_vars(last, &env)
    }

    /// [`Call::from_env`] with the variables read by `var`.
    fn from_vars(last: &str, var: &Var<'_>) -> Result<Self, String> {
        let number = |name: &str, default: u64| -> Result<u64, String> {
            match var(name)? {
                Some(text) => text.parse().map_err(|e| format!("{name}: {e}")),
                None => Ok(default),
            }
        };
        // A variable holding a JSON object as text; `{}` when it is not set.
        let object = |name: &str| -> Result<Map<String, Value>, String> {
            let text = var(name)?.unwrap_or_else(|| "{}".into());
            serde_json::from_str(&text).map_err(|e| format!("{name} is not a JSON object: {e}"))
        };
        let timeout_ms = number("MCP_ERROR_LAYERS_TIMEOUT_MS", 5000)?;
        Ok(Self {
            transport: Transport::from_vars(last, var)?,
            tool: var("MCP_ERROR_LAYERS_TOOL")?.ok_or("MCP_ERROR_LAYERS_TOOL is not set")?,
            arguments: object("MCP_ERROR_LAYERS_ARGUMENTS")?,
            protocol_version: var("MCP_ERROR_LAYERS_PROTOCOL_VERSION")?
                .unwrap_or_else(|| "2026-07-28".into()),
            timeout: Duration::from_millis(timeout_ms.max(1)),
            annotations: object("MCP_ERROR_LAYERS_TOOL_ANNOTATIONS")?,
            list_tools: var("MCP_ERROR_LAYERS_LIST_TOOLS")?.is_some_and(|v| v == "1"),
            task: match var("MCP_ERROR_LAYERS_TASK")? {
                Some(_) => Some(object("MCP_ERROR_LAYERS_TASK")?),
                None => None,
            },
            auth: match var("MCP_ERROR_LAYERS_AUTH")? {
                Some(_) => Some(object("MCP_ERROR_LAYERS_AUTH")?),
                None => None,
            },
            client: None,
            index: number("MCP_ERROR_LAYERS_CALL_INDEX", 0)?,
            calls: number("MCP_ERROR_LAYERS_CALLS", 1)?.max(1),
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
            transport: Transport::from_request(request)?,
            tool: text("tool")?,
            arguments: object("arguments")?.unwrap_or_default(),
            protocol_version: text("protocol_version")?,
            timeout: Duration::from_millis(number("timeout_ms", 5000)?.max(1)),
            annotations: object("annotations")?.unwrap_or_default(),
            list_tools: request.get("list_tools") == Some(&Value::Bool(true)),
            task: object("task")?,
            auth: object("auth")?,
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

    /// `Some(why)` for a call the row cannot make (a protocol version its SDK does not know, a
    /// [`Transport`] it has no client for): answered `unsupported` before any client is opened
    /// for it. `None` (the default) for
    /// every call it can make.
    fn refuse(&self, _call: &Call) -> Option<String> {
        None
    }

    /// Opens the client for `call`, as an application does before its first call: connects
    /// (over stdio: starts the server's command with the SDK's stdio client) and makes the
    /// handshake the SDK leaves to it. On failure it closes what it made.
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The one-shot call `vars` and the last argument `last` describe.
    fn one_shot(last: &str, vars: &[(&str, &str)]) -> Result<Call, String> {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        let var = |name: &str| Ok(vars.get(name).cloned());
        Call::from_vars(last, &var)
    }

    const TOOL: (&str, &str) = ("MCP_ERROR_LAYERS_TOOL", "synthetic");
    const SERVER: &str = r#"["/work/main/target/debug/mcp-error-layers","stdio-server","--session","/tmp/s/session.json"]"#;

    fn server() -> Vec<String> {
        [
            "/work/main/target/debug/mcp-error-layers",
            "stdio-server",
            "--session",
            "/tmp/s/session.json",
        ]
        .map(String::from)
        .to_vec()
    }

    fn request(line: &str) -> Result<Call, String> {
        let Value::Object(request) = serde_json::from_str(line).unwrap() else {
            panic!("not an object: {line}");
        };
        Call::from_request(&request)
    }

    #[test]
    fn a_one_shot_http_call_is_its_endpoint_url_with_or_without_the_transport_variable() {
        let url = "http://127.0.0.1:4100/mcp";
        let http = Transport::Http {
            endpoint: url.into(),
        };
        let call = one_shot(url, &[TOOL, ("MCP_ERROR_LAYERS_TRANSPORT", "http")]).unwrap();
        assert_eq!(call.transport, http);
        assert_eq!(call.transport.name(), "http");
        // A runner from before stdio sets no MCP_ERROR_LAYERS_TRANSPORT.
        assert_eq!(one_shot(url, &[TOOL]).unwrap().transport, http);
        let error = one_shot("stdio", &[TOOL, ("MCP_ERROR_LAYERS_TRANSPORT", "http")]);
        assert!(error.unwrap_err().contains("no endpoint URL"));
    }

    #[test]
    fn a_one_shot_stdio_call_is_the_word_stdio_and_the_command_variable() {
        let vars = [
            TOOL,
            ("MCP_ERROR_LAYERS_TRANSPORT", "stdio"),
            ("MCP_ERROR_LAYERS_STDIO_COMMAND", SERVER),
            ("MCP_ERROR_LAYERS_TIMEOUT_MS", "2500"),
            ("MCP_ERROR_LAYERS_CALL_INDEX", "1"),
            ("MCP_ERROR_LAYERS_CALLS", "2"),
        ];
        let call = one_shot("stdio", &vars).unwrap();
        assert_eq!(call.transport, Transport::Stdio { command: server() });
        assert_eq!(call.transport.name(), "stdio");
        assert_eq!(call.tool, "synthetic");
        assert_eq!(call.timeout, Duration::from_millis(2500));
        assert!(call.is_last());
    }

    #[test]
    fn a_one_shot_stdio_call_without_a_usable_command_is_refused_with_its_reason() {
        let stdio = ("MCP_ERROR_LAYERS_TRANSPORT", "stdio");
        let with = |last: &str, command: Option<&str>| {
            let mut vars = vec![TOOL, stdio];
            vars.extend(command.map(|text| ("MCP_ERROR_LAYERS_STDIO_COMMAND", text)));
            one_shot(last, &vars).unwrap_err()
        };
        assert!(with("stdio", None).contains("MCP_ERROR_LAYERS_STDIO_COMMAND is not set"));
        assert!(with("stdio", Some("/bin/server --flag")).contains("is not JSON"));
        assert!(with("stdio", Some(r#"{"command": "x"}"#)).contains("not a JSON array"));
        assert!(with("stdio", Some(r#"["/bin/server", 1]"#)).contains("not a JSON array"));
        assert!(with("stdio", Some("[]")).contains("names no program"));
        assert!(with("stdio", Some(r#"[""]"#)).contains("names no program"));
        // The last argument must be the word stdio, not a URL.
        let url = with("http://127.0.0.1:1/mcp", Some(SERVER));
        assert!(url.contains("not the word stdio"), "{url}");
        let other = one_shot(
            "stdio",
            &[TOOL, ("MCP_ERROR_LAYERS_TRANSPORT", "websocket")],
        );
        assert!(other.unwrap_err().contains("neither http nor stdio"));
    }

    #[test]
    fn a_persistent_http_request_is_its_endpoint_with_or_without_the_transport_key() {
        let http = Transport::Http {
            endpoint: "http://127.0.0.1:4100/mcp".into(),
        };
        let line = r#"{"transport": "http", "endpoint": "http://127.0.0.1:4100/mcp", "tool": "synthetic", "arguments": {}, "protocol_version": "2026-07-28", "timeout_ms": 5000, "annotations": {}, "list_tools": false, "client": 17, "call": 0, "calls": 1, "id": 3}"#;
        let call = request(line).unwrap();
        assert_eq!(call.transport, http);
        assert_eq!((call.client, call.index, call.calls), (Some(17), 0, 1));
        let old = r#"{"endpoint": "http://127.0.0.1:4100/mcp", "tool": "synthetic", "protocol_version": "2025-11-25"}"#;
        assert_eq!(request(old).unwrap().transport, http);
        let none = r#"{"transport": "http", "endpoint": null, "tool": "t", "protocol_version": "2025-11-25"}"#;
        assert!(
            request(none)
                .unwrap_err()
                .contains("\"endpoint\" is not a string")
        );
    }

    #[test]
    fn a_persistent_request_carries_its_credentials_only_in_an_authorization_case() {
        let line = r#"{"transport": "http", "endpoint": "http://127.0.0.1:4100/mcp", "tool": "synthetic", "protocol_version": "2026-07-28", "auth": {"access_token": "mel_at_1_x", "refresh_token": null, "expires_in": 3600, "expires_at": 1796650000, "scope": "mcp:tools", "client_id": "mel-client", "client_secret": null, "authorization_server": "http://127.0.0.1:4100", "redirect_uri": "http://127.0.0.1:4100/callback"}}"#;
        let credentials = request(line).unwrap().credentials().unwrap().unwrap();
        assert_eq!(credentials.access_token.as_deref(), Some("mel_at_1_x"));
        assert_eq!(credentials.refresh_token, None);
        assert_eq!(credentials.expires_at, Some(1_796_650_000));
        let without = r#"{"endpoint": "http://127.0.0.1:4100/mcp", "tool": "t", "protocol_version": "2025-11-25"}"#;
        assert_eq!(request(without).unwrap().credentials(), Ok(None));
        let wrong = r#"{"endpoint": "http://127.0.0.1:4100/mcp", "tool": "t", "protocol_version": "2025-11-25", "auth": {"access_token": "t"}}"#;
        assert!(
            request(wrong)
                .unwrap()
                .credentials()
                .unwrap_err()
                .contains("client_id")
        );
    }

    #[test]
    fn a_persistent_stdio_request_is_its_command_with_a_null_endpoint() {
        let line = format!(
            r#"{{"transport": "stdio", "command": {SERVER}, "endpoint": null, "tool": "synthetic", "arguments": {{"n": 1}}, "protocol_version": "2025-11-25", "timeout_ms": 1500, "annotations": {{}}, "list_tools": true, "client": 4, "call": 1, "calls": 3, "id": 9}}"#
        );
        let call = request(&line).unwrap();
        assert_eq!(call.transport, Transport::Stdio { command: server() });
        assert_eq!(call.arguments["n"], 1);
        assert!(call.list_tools);
        assert_eq!((call.client, call.index, call.calls), (Some(4), 1, 3));
        assert!(!call.is_last());
        // `endpoint` may also be left out.
        let without = line.replace(r#""endpoint": null, "#, "");
        assert_eq!(
            request(&without).unwrap().transport,
            Transport::Stdio { command: server() }
        );
    }

    #[test]
    fn a_persistent_stdio_request_without_a_usable_command_is_refused_with_its_reason() {
        let with = |rest: &str| {
            let line = format!(
                r#"{{"transport": "stdio", {rest} "tool": "t", "protocol_version": "2025-11-25"}}"#
            );
            request(&line).unwrap_err()
        };
        assert!(with(r#""endpoint": null,"#).contains("no \"command\""));
        assert!(with(r#""command": "/bin/server","#).contains("not a JSON array"));
        assert!(with(r#""command": [],"#).contains("names no program"));
        assert!(with(r#""command": [null],"#).contains("not a JSON array"));
        let endpoint = with(r#""command": ["/bin/server"], "endpoint": "http://127.0.0.1:1/mcp","#);
        assert!(endpoint.contains("should be null"), "{endpoint}");
        let other = r#"{"transport": "sse", "endpoint": "http://127.0.0.1:1/mcp", "tool": "t", "protocol_version": "2025-11-25"}"#;
        assert!(request(other).unwrap_err().contains("neither"));
        let number = r#"{"transport": 1, "command": ["/bin/server"], "tool": "t", "protocol_version": "2025-11-25"}"#;
        assert!(request(number).unwrap_err().contains("neither"));
    }
}

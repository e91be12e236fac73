//! The adapter contract (docs/adapters.md) for the Rust adapters here, in one place: a row keeps
//! only what is its SDK's (how to connect and call, and how the SDK's surface maps to an outcome).
//!
//! A Rust adapter runs one process per call (a native binary starts in milliseconds, so it needs
//! no persistent mode): [`main`] reads the [`Call`] from the endpoint URL (the last argument) and
//! the `MCP_ERROR_LAYERS_*` variables, runs the row's `observe` on a current-thread runtime and
//! prints its [`Observation`] as the one JSON line on stdout. Everything else goes to stderr.

use std::error::Error as StdError;
use std::fmt::{Debug, Display};
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Map, Value, json};

/// `detail` is the SDK's own text, whitespace collapsed, cut at this many characters.
const MAX_DETAIL: usize = 600;
/// How long a client's own teardown (it DELETEs a 2025 session) may take once the call is
/// observed; past that it is abandoned.
const TEARDOWN: Duration = Duration::from_secs(2);

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
}

impl Call {
    /// The call in the `MCP_ERROR_LAYERS_*` variables, to `endpoint`.
    fn from_env(endpoint: String) -> Result<Self, String> {
        let timeout_ms: u64 = env("MCP_ERROR_LAYERS_TIMEOUT_MS")?
            .unwrap_or_else(|| "5000".into())
            .parse()
            .map_err(|e| format!("MCP_ERROR_LAYERS_TIMEOUT_MS: {e}"))?;
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
        match self {
            Self::Outcome {
                outcome,
                status,
                code,
                detail,
            } => format!(
                "{{\"outcome\": {}, \"status\": {}, \"code\": {}, \"detail\": {}}}",
                Value::from(*outcome),
                json!(status),
                json!(code),
                Value::from(detail.as_str())
            ),
            Self::Unsupported(why) => json!({"unsupported": why}).to_string(),
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

/// A client's own teardown once the call is observed, for a bounded time: the observation
/// stands whatever it does, and what it did goes to stderr.
pub async fn teardown<T: Debug, E: Display>(what: &str, work: impl Future<Output = Result<T, E>>) {
    match tokio::time::timeout(TEARDOWN, work).await {
        Ok(Ok(value)) => eprintln!("{what} finished: {value:?}"),
        Ok(Err(error)) => eprintln!("{what} failed: {error}"),
        Err(_) => eprintln!("{what} took longer than {TEARDOWN:?}; abandoned"),
    }
}

/// What an adapter that makes no task calls says to a call that asks for a task.
pub const NO_TASKS: &str = "this adapter uses no task API of its client, so it cannot run a call \
                            as a task (docs/adapters.md, \"Tasks\")";

/// Runs a one-shot adapter and returns its exit status. `observe(arguments, call)` gets the
/// row's own arguments (those before the endpoint URL) and returns the work that observes the
/// call, or `None` for arguments it does not take; `options` is their synopsis for the usage line.
/// A call that asks for a task is answered `unsupported` ([`NO_TASKS`]) without `observe`: an
/// adapter that runs task calls through its client's task API uses [`main_with_tasks`].
pub fn main<F, W>(options: &str, observe: F) -> ExitCode
where
    F: FnOnce(&[String], Call) -> Option<W>,
    W: Future<Output = Observation>,
{
    run(options, observe, false)
}

/// [`main`] for an adapter that runs task calls itself: `observe` gets them too.
pub fn main_with_tasks<F, W>(options: &str, observe: F) -> ExitCode
where
    F: FnOnce(&[String], Call) -> Option<W>,
    W: Future<Output = Observation>,
{
    run(options, observe, true)
}

fn run<F, W>(options: &str, observe: F, tasks: bool) -> ExitCode
where
    F: FnOnce(&[String], Call) -> Option<W>,
    W: Future<Output = Observation>,
{
    let mut words: Vec<String> = std::env::args().collect();
    let usage = usage(words.first().map(String::as_str), options);
    let endpoint = match words.pop() {
        Some(last) if !words.is_empty() && is_url(&last) => last,
        _ => return fail(&usage),
    };
    let call = match Call::from_env(endpoint) {
        Ok(call) => call,
        Err(message) => return fail(&message),
    };
    if call.task.is_some() && !tasks {
        println!("{}", Observation::Unsupported(NO_TASKS.into()).to_json_line());
        return ExitCode::SUCCESS;
    }
    let arguments = &words[1..];
    let Some(work) = observe(arguments, call) else {
        return fail(&format!("unknown arguments {arguments:?}; {usage}"));
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start a runtime: {error}")),
    };
    let observation = runtime.block_on(work);
    println!("{}", observation.to_json_line());
    // Do not wait for tasks the SDK may have left behind.
    runtime.shutdown_background();
    ExitCode::SUCCESS
}

fn is_url(word: &str) -> bool {
    word.starts_with("http://") || word.starts_with("https://")
}

/// The usage line: the program's file name, the row's `options`, the endpoint URL.
fn usage(program: Option<&str>, options: &str) -> String {
    let program = program
        .and_then(|path| Path::new(path).file_name())
        .and_then(|name| name.to_str())
        .unwrap_or("adapter");
    let words: Vec<&str> = [program, options, "<endpoint-url>"]
        .into_iter()
        .filter(|word| !word.is_empty())
        .collect();
    format!(
        "usage: {} (the call comes in MCP_ERROR_LAYERS_* variables)",
        words.join(" ")
    )
}

fn fail(message: &str) -> ExitCode {
    eprintln!("adapter error: {message}");
    ExitCode::from(2)
}

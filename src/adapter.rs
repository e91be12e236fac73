//! Adapters: what drives a client under test (docs/adapters.md).
//!
//! An adapter is given one call (endpoint, tool, arguments, protocol version, timeout) and
//! reports one observation. It is never given the case's id or expectation.
//!
//! Two traits: [`Adapter`] is what a Rust client project implements (one method). [`Driver`]
//! is what the runner drives: every `Adapter` is one, and so is
//! [`process::ProcessAdapter`], an adapter that is a program, which can also crash, print
//! garbage or need starting before the call's deadline begins.

use crate::observation::AdapterReport;
use serde_json::Value;
use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[cfg(unix)]
pub mod process;
/// No process outlives a run: the mark every started program carries, and the sweep of what
/// is left (Linux; used by process adapters and by the reference client's stdio servers).
#[cfg(unix)]
pub mod reaper;
#[cfg(feature = "reference-client")]
pub mod reference;

/// Everything an adapter is told about one call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CallContext {
    /// The MCP endpoint URL (`http://127.0.0.1:PORT/mcp`); `stdio` for a stdio call.
    pub endpoint: String,
    /// What the call goes over: HTTP to [`CallContext::endpoint`], or stdio: the client starts
    /// [`CallContext::command`] as its server (docs/stdio.md). Only a driver that
    /// [speaks stdio](Adapter::speaks_stdio) is given stdio calls.
    pub transport: Transport,
    /// The stdio server's command line, program first (an absolute path), for a stdio call;
    /// empty over HTTP. The client starts it as an application starts a local server.
    pub command: Vec<String>,
    /// The tool to call.
    pub tool: String,
    /// The call's arguments (a JSON object).
    pub arguments: Value,
    /// The protocol version the client should prefer.
    pub protocol_version: String,
    /// The client's own timeout for this call.
    pub timeout: Duration,
    /// The tool's annotations as `tools/list` advertises them (`{"readOnlyHint": true}`), a
    /// JSON object, empty when the tool has none. A client's retry policy may rest on them.
    pub annotations: Value,
    /// Whether to list the tools (`tools/list`, the client's usual way) before the call, as an
    /// application does to learn a tool's schemas: true when the tool has an output schema, so
    /// that a client that validates `structuredContent` against it knows it.
    pub list_tools: bool,
    /// The application asks for this call as a task (cases/README.md, "Tasks"); `None` for an
    /// ordinary call. A client with a task API calls the tool through it: in 2025-11-25 with
    /// `params.task` (and `ttl` when [`TaskCall::ttl_ms`] names one), in 2026-07-28 by
    /// declaring the `io.modelcontextprotocol/tasks` extension; it then polls the task to its
    /// end and reports the outcome of the result it carries. A client without one reports
    /// `unsupported`.
    pub task: Option<TaskCall>,
    /// The client object this call runs on: the calls of one case share it, as an application
    /// keeps its client after a fault (docs/adapters.md, "One client per case").
    pub client: ClientRef,
    /// The credentials the client starts with, in an authorization case (cases/README.md,
    /// "Authorization"); `None` in every other case. An adapter seeds its client's token store
    /// with them when it creates the client (the case's first call) and leaves the store to
    /// the client after: later calls carry the same start credentials, and the client keeps
    /// what it refreshed. Only a driver that [takes credentials](Adapter::takes_credentials)
    /// is given authorization cases.
    pub auth: Option<Credentials>,
    /// What the MCP server sends for this call, as facts a text can carry: for the harness's
    /// own drivers that judge a text against them (an agent row, [`crate::model::told`]);
    /// `None` outside a case run.
    pub(crate) model_facts: Option<Arc<crate::model::ModelFacts>>,
    /// How the stdio server is started beyond its command line, when the harness starts a
    /// program of its own there (a bridge row's bridge); `None`: as it is, in this process's
    /// environment.
    #[cfg(feature = "reference-client")]
    pub(crate) launch: Option<Arc<StdioLaunch>>,
}

/// How a harness driver has the reference client start its stdio server (a bridge): the
/// environment it gets instead of this process's, and where its stderr goes. A server started
/// this way is started once per client: when it has exited, the next call is told so
/// (`CONNECTION_ERROR`) instead of starting it again, since a bridge row's calls go through one
/// bridge process (docs/bridges.md).
#[cfg(feature = "reference-client")]
#[derive(Debug, Clone, Default)]
pub(crate) struct StdioLaunch {
    /// The whole environment of the process (nothing of this process's leaks in).
    pub env: Vec<(String, String)>,
    /// Its working directory.
    pub dir: Option<std::path::PathBuf>,
    /// Where its stderr goes: the log of the call it serves at the time.
    pub stderr: LogSlot,
}

/// Where the output of a process that outlives one call goes: the log of the call it serves
/// at the time (a bridge serves every call of its case); what it wrote before the first call
/// (its start) goes to the first call's log.
#[cfg(feature = "reference-client")]
#[derive(Debug, Clone, Default)]
pub(crate) struct LogSlot(Arc<Mutex<Slot>>);

#[cfg(feature = "reference-client")]
#[derive(Debug, Default)]
struct Slot {
    log: AdapterLog,
    /// Whether `log` is still the one the slot began with (no call's yet).
    before_calls: bool,
}

#[cfg(feature = "reference-client")]
impl LogSlot {
    /// A slot that keeps what comes before the first call.
    pub(crate) fn new() -> Self {
        let slot = Slot {
            log: AdapterLog::new(),
            before_calls: true,
        };
        LogSlot(Arc::new(Mutex::new(slot)))
    }

    /// From now on, into `log` (with what came before the first call, at the first).
    pub(crate) fn set(&self, log: &AdapterLog) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if slot.before_calls
            && let Some(text) = slot.log.text()
        {
            log.append(text.as_bytes());
        }
        slot.log = log.clone();
        slot.before_calls = false;
    }

    /// Appends to the current log.
    pub(crate) fn append(&self, bytes: &[u8]) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .log
            .append(bytes);
    }
}

pub use crate::case::{Credentials, TaskCall, Transport};

/// Which client a call runs on, and where the call stands among that client's calls: the calls
/// of one case run on one client object (one session, where the era has one), created before
/// the first and closed after the last. An adapter keeps what it needs per [`ClientRef::id`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ClientRef {
    /// Names the client: the same for every call of a case run, different across case runs
    /// (unique within the process).
    pub id: u64,
    /// This call's place among the client's calls, from 0.
    pub call: usize,
    /// How many calls the client makes: after call `calls - 1` the adapter closes it.
    pub calls: usize,
}

impl ClientRef {
    /// A client of its own for one call: what [`CallContext::new`] gives.
    pub fn single() -> Self {
        ClientRef::first_of(1)
    }

    /// A new client that makes `calls` calls, at its first (`calls` of 0 counts as 1).
    pub fn first_of(calls: usize) -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        ClientRef {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            call: 0,
            calls: calls.max(1),
        }
    }

    /// The same client at call `call` (kept below `calls`).
    pub fn at(self, call: usize) -> Self {
        ClientRef {
            call: call.min(self.calls - 1),
            ..self
        }
    }

    /// Whether this call is the client's last: the adapter closes it after the call.
    pub fn is_last(&self) -> bool {
        self.call + 1 >= self.calls
    }
}

impl CallContext {
    /// A call context; fields not named here take their defaults.
    pub fn new(endpoint: impl Into<String>, tool: impl Into<String>, arguments: Value) -> Self {
        CallContext {
            endpoint: endpoint.into(),
            transport: Transport::Http,
            command: Vec::new(),
            tool: tool.into(),
            arguments,
            protocol_version: crate::era::DEFAULT_VERSION.to_owned(),
            timeout: Duration::from_millis(crate::case::model::DEFAULT_TIMEOUT_MS),
            annotations: Value::Object(Default::default()),
            list_tools: false,
            task: None,
            client: ClientRef::single(),
            auth: None,
            model_facts: None,
            #[cfg(feature = "reference-client")]
            launch: None,
        }
    }

    /// Makes it a stdio call: the client starts `command` as its server (see
    /// [`CallContext::command`]).
    pub fn with_stdio(mut self, command: Vec<String>) -> Self {
        self.transport = Transport::Stdio;
        self.endpoint = "stdio".to_owned();
        self.command = command;
        self
    }

    /// Runs the call on this client (see [`CallContext::client`]).
    pub fn with_client(mut self, client: ClientRef) -> Self {
        self.client = client;
        self
    }

    /// Hands the client these start credentials (see [`CallContext::auth`]).
    pub fn with_auth(mut self, auth: Option<Credentials>) -> Self {
        self.auth = auth;
        self
    }

    /// Asks for the call as a task (see [`CallContext::task`]).
    pub fn with_task(mut self, task: Option<TaskCall>) -> Self {
        self.task = task;
        self
    }

    /// Asks the client to list the tools before the call (see [`CallContext::list_tools`]).
    pub fn with_list_tools(mut self, list_tools: bool) -> Self {
        self.list_tools = list_tools;
        self
    }

    /// Sets the tool annotations (a JSON object).
    pub fn with_annotations(mut self, annotations: Value) -> Self {
        self.annotations = annotations;
        self
    }

    /// Whether the annotations declare the tool read-only or idempotent: the tools whose
    /// calls a client may repeat without doing twice what was asked once.
    pub fn is_repeatable(&self) -> bool {
        let hint = |name: &str| self.annotations.get(name) == Some(&Value::Bool(true));
        hint("readOnlyHint") || hint("idempotentHint")
    }

    /// Sets the protocol version to prefer.
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Self {
        self.protocol_version = version.into();
        self
    }

    /// Sets the client's timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// A client under test, driven in-process.
///
/// The runner awaits `call` under a deadline above `CallContext::timeout`; a call that does not
/// finish by then is a `hang` verdict and its future is dropped. The future must therefore yield
/// (do its waiting with async I/O and timers): a blocking call cannot be interrupted.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an adapter",
    label = "not an adapter",
    note = "an adapter is an `async fn(CallContext) -> AdapterReport`, an async closure \
            `|call: CallContext| async move {{ ... }}`, or a value of a type that implements \
            `Adapter`"
)]
pub trait Adapter: Send + Sync {
    /// Makes the call and reports what the client observed.
    fn call(&self, call: CallContext) -> impl Future<Output = AdapterReport> + Send;

    /// Whether the client can be driven over stdio ([`CallContext::transport`]): it starts
    /// [`CallContext::command`] as its server. The default, `false`: the stdio cases are
    /// `unsupported` for it without a call.
    fn speaks_stdio(&self) -> bool {
        false
    }

    /// Whether the adapter hands [`CallContext::auth`] to its client's documented auth entry
    /// point (a token store, an auth provider). The default, `false`: the authorization cases
    /// are `unsupported` for it without a call, since its client would meet the 401 without
    /// the credentials a user gives it.
    fn takes_credentials(&self) -> bool {
        false
    }
}

pub mod closure;

/// How long a call's set-up may take, from the adapter's first request of the call to its
/// `tools/call`, when the call's deadline is shorter: generous against a slow client on a busy
/// machine, short enough that a client stuck before its call is judged in seconds. A driver may
/// ask for more ([`Driver::set_up_bound`]: an agent's model turn comes between
/// its `initialize` and its call).
pub(crate) const SET_UP_BOUND: Duration = Duration::from_secs(10);

/// What the runner drives for each call: an in-process [`Adapter`] (every one is a `Driver`)
/// or an adapter that can fail in ways an `Adapter` cannot express, such as a program
/// ([`process::ProcessAdapter`]).
///
/// For each call the runner awaits [`prepare`](Driver::prepare) first, outside the call's
/// deadline, then awaits [`drive`](Driver::drive) under the deadline, dropping its future when
/// the deadline passes (a `hang` verdict).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an adapter",
    label = "not an adapter",
    note = "an adapter is an `async fn(CallContext) -> AdapterReport`, an async closure \
            `|call: CallContext| async move {{ ... }}`, a value of a type that implements \
            `Adapter`, or a `ProcessAdapter` for a client program"
)]
pub trait Driver: Send + Sync {
    /// What `prepare` hands to `drive`.
    type Prepared: Send;

    /// Gets ready for one call before its deadline starts, so that a slow start (a Node or
    /// Python process announcing its persistent mode) does not count as the call's time.
    /// It must finish in bounded time: the runner does not put a deadline on it. `call` is the
    /// call to come: a driver that keeps clients finds the one of [`CallContext::client`].
    fn prepare(&self, call: &CallContext) -> impl Future<Output = Self::Prepared> + Send;

    /// The call's start-up, when the adapter cannot act as soon as `drive` starts: a program
    /// started for this one call needs its interpreter and client library loaded first, and
    /// on a busy machine that takes long. `None` (the default): it can act at once. Called
    /// once per call, between `prepare` and `drive`; it may take what the start-up holds out
    /// of `prepared`.
    ///
    /// The runner starts the call's deadline (its timeout plus the margin) at the adapter's
    /// first request to the endpoint, or when the allowance is over if no request came
    /// before; so a `hang` means no answer within the deadline after the adapter could act.
    /// It drops the [`StartUp`] then (or when the call ends, if sooner).
    fn start_up(&self, prepared: &mut Self::Prepared) -> Option<StartUp> {
        let _ = prepared;
        None
    }

    /// The process that serves the call, when the call is that process's first: a hang then
    /// says how long after its start it came (`(new process, 2650 ms after its start)`), since
    /// a slow start shows on a process's first call. `None` (the default): the call runs on
    /// something that served before, or on no process of its own. Called once per call,
    /// between `prepare` and `drive`.
    fn new_process(&self, prepared: &Self::Prepared) -> Option<NewProcess> {
        let _ = prepared;
        None
    }

    /// How long past the call's own timeout the driver's answer may rightly come, besides the
    /// run's margin: a driver that waits for something with a timeout of its own (a bridge's
    /// upstream timeout, [`process::bridge`]) says how long. The runner's deadline for a call
    /// is its timeout plus this plus the margin. The default: nothing.
    fn extra_wait(&self) -> Duration {
        Duration::ZERO
    }

    /// How long a call's set-up may take from the driver's first request to its `tools/call`
    /// (`src/runner/clock.rs`). The default: 10 s.
    fn set_up_bound(&self) -> Duration {
        SET_UP_BOUND
    }

    /// What the reports say about the adapter besides the run's own settings: the name and
    /// version it announced, the timeouts of its start. Read after the run. The default says
    /// nothing.
    fn info(&self) -> DriverInfo {
        DriverInfo::default()
    }

    /// What this driver's observations can tell. The default, [`Observes::Outcomes`]: an
    /// outcome word with its status and code, judged in full. A conformance client
    /// ([`Observes::ExitStatus`]) changes what the runner serves and how it judges.
    fn observes(&self) -> Observes {
        Observes::Outcomes
    }

    /// Whether the driver can make stdio calls (see [`Adapter::speaks_stdio`]). The default,
    /// `false`: the runner reports the stdio cases `unsupported` without driving it.
    fn speaks_stdio(&self) -> bool {
        false
    }

    /// Whether the driver hands its client the start credentials (see
    /// [`Adapter::takes_credentials`]). The default, `false`: the runner reports the
    /// authorization cases `unsupported` without driving it.
    fn takes_credentials(&self) -> bool {
        false
    }

    /// Makes the call. `Err(reason)` is an `adapter-error` verdict with that reason.
    ///
    /// What the driver writes to `log` is kept for the report, also when the future is dropped
    /// at the deadline: an adapter program's stderr goes there as it arrives.
    fn drive(
        &self,
        prepared: Self::Prepared,
        call: CallContext,
        log: &AdapterLog,
    ) -> impl Future<Output = Result<AdapterReport, String>> + Send;
}

impl<A: Adapter> Driver for A {
    type Prepared = ();

    fn speaks_stdio(&self) -> bool {
        Adapter::speaks_stdio(self)
    }

    fn takes_credentials(&self) -> bool {
        Adapter::takes_credentials(self)
    }

    fn prepare(&self, _call: &CallContext) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }

    fn drive(
        &self,
        (): (),
        call: CallContext,
        _log: &AdapterLog,
    ) -> impl Future<Output = Result<AdapterReport, String>> + Send {
        let call = self.call(call);
        async move { Ok(call.await) }
    }
}

/// What a driver's observations can tell (see [`Driver::observes`]): the source of its
/// observations, which decides how finely the runner can judge them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Observes {
    /// An outcome word per call, with the status and code that go with it: every expectation
    /// is judged in full.
    #[default]
    Outcomes,
    /// Only whether the program succeeded (exit status 0) or failed (any other end): an SDK's
    /// *conformance client* ([`process::ProcessAdapter::conformance_client`]). The runner
    /// serves the case's tool as `add_numbers` ([`crate::coarse::served`]) and judges a call
    /// whose expectation needs a finer outcome than success or error on its request checks
    /// and server counts only, a *coarse* judgement the reports mark ([`crate::coarse`]).
    ExitStatus,
    /// What a coding agent told its model about the call (an agent row,
    /// [`process::agent::AgentAdapter`]): an outcome judged from the told text, judged in
    /// full, plus the model-side checks ([`crate::model::told::checks`]).
    ModelTold,
    /// What arrived downstream of a bridge (a bridge row, [`process::bridge::BridgeAdapter`]):
    /// the reference client's outcome on the bridge's side, judged against the case's
    /// upstream expectation by the faithful-hop table ([`crate::hop`]), plus the bridge checks.
    Downstream(crate::hop::Downstream),
}

/// A call's start-up (see [`Driver::start_up`]): how long the adapter may take before it can
/// act, and what it holds until it can (a place among the programs starting at once), released
/// when the runner sees it act, when the allowance is over, or when the call ends.
#[derive(Debug)]
pub struct StartUp {
    /// The longest the runner waits for the adapter's first request before it starts the
    /// call's deadline anyway.
    pub allowance: Duration,
    _held: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl StartUp {
    /// A start-up of at most `allowance`.
    pub fn new(allowance: Duration) -> Self {
        StartUp {
            allowance,
            _held: None,
        }
    }

    /// Holds `permit` until the start-up is over.
    pub fn holding(mut self, permit: Option<tokio::sync::OwnedSemaphorePermit>) -> Self {
        self._held = permit;
        self
    }
}

/// A persistent adapter process serving its first call (see [`Driver::new_process`]).
#[derive(Debug, Clone, Copy)]
pub struct NewProcess {
    /// When it was spawned.
    pub started: Instant,
    /// How long after that it said it was ready (its announcement).
    pub ready_after: Duration,
}

impl NewProcess {
    /// `new process, 2650 ms after its start, ready after 1830 ms`: what a hang on its first
    /// call adds.
    pub fn describe(&self) -> String {
        format!(
            "new process, {} ms after its start, ready after {} ms",
            self.started.elapsed().as_millis(),
            self.ready_after.as_millis()
        )
    }
}

/// What a driver tells the reports about itself (see [`Driver::info`]): every field is
/// optional, and the run's own settings (a name given on the command line) win over it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DriverInfo {
    /// The client's name, as the adapter announced it.
    pub name: Option<String>,
    /// The client's version, as the adapter announced it.
    pub version: Option<String>,
    /// How long a persistent adapter process had to say it was ready.
    pub announce_timeout: Option<Duration>,
    /// How long a program started for one call had before its first request.
    pub start_up_timeout: Option<Duration>,
    /// Whether the program is a conformance client ([`Observes::ExitStatus`]).
    pub conformance_client: bool,
    /// Whether the client is a coding agent observed by what it told its model
    /// ([`Observes::ModelTold`]): its layer fidelity is its *model fidelity*.
    pub agent: bool,
    /// What a bridge exposes downstream, when the client is one ([`Observes::Downstream`]):
    /// its fidelity is its *hop fidelity* ([`crate::hop::hop_fidelity`]).
    pub bridge: Option<crate::hop::Downstream>,
    /// Whether an adapter program speaks stdio ([`Driver::speaks_stdio`]): its command line
    /// needs `--transports http,stdio` to run it again.
    pub stdio: bool,
    /// Whether an adapter program takes credentials ([`Driver::takes_credentials`]): its
    /// command line needs `--auth` to run it again.
    pub auth: bool,
}

/// How much of an adapter's log a call keeps: the first and the last half of this survive,
/// the middle is counted (a traceback at the end matters as much as the start-up lines).
pub const LOG_CAP: usize = 64 * 1024;

/// The most characters of an adapter's last stderr line that an adapter error quotes.
pub const CAUSE_CHARS: usize = 200;

/// An adapter's log for one call (an adapter program's stderr), bounded by [`LOG_CAP`], plus
/// notes from the driver itself (why it stopped reading, why it fell back).
///
/// Clones share one log: a driver's reading tasks append while the runner keeps a handle, so
/// that what arrived before a deadline is not lost with the dropped future.
#[derive(Debug, Clone, Default)]
pub struct AdapterLog(Arc<Mutex<LogText>>);

#[derive(Debug, Default)]
struct LogText {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
    notes: Vec<String>,
}

impl AdapterLog {
    /// An empty log.
    pub fn new() -> Self {
        AdapterLog::default()
    }

    /// Appends bytes the adapter wrote; beyond [`LOG_CAP`] the middle is dropped.
    pub fn append(&self, bytes: &[u8]) {
        let mut log = self.lock();
        let room = (LOG_CAP / 2).saturating_sub(log.head.len());
        let (head, rest) = bytes.split_at(room.min(bytes.len()));
        log.head.extend_from_slice(head);
        log.tail.extend(rest);
        let excess = log.tail.len().saturating_sub(LOG_CAP / 2);
        log.tail.drain(..excess);
        log.dropped += excess as u64;
    }

    /// Adds a note of the driver's own, shown after the adapter's bytes.
    pub fn note(&self, note: impl Into<String>) {
        self.lock().notes.push(note.into());
    }

    /// The last non-blank line the adapter wrote (not the driver's notes), at most
    /// [`CAUSE_CHARS`] characters: for a crash, the line that says why (a traceback's last).
    pub fn last_line(&self) -> Option<String> {
        let log = self.lock();
        let (front, back) = log.tail.as_slices();
        let bytes = if log.tail.is_empty() {
            log.head.clone()
        } else {
            [front, back].concat()
        };
        let text = String::from_utf8_lossy(&bytes);
        let line = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
        let mut cause: String = line.chars().take(CAUSE_CHARS).collect();
        if line.chars().count() > CAUSE_CHARS {
            cause.push('…');
        }
        Some(cause)
    }

    /// `message`, with the adapter's last stderr line when it wrote one: an adapter error then
    /// says why on its own line, not only in the log below it.
    pub fn with_cause(&self, message: String) -> String {
        match self.last_line() {
            Some(line) => format!("{message}; its stderr ended with: {line}"),
            None => message,
        }
    }

    /// The log as text (invalid UTF-8 replaced), or `None` when nothing was written.
    pub fn text(&self) -> Option<String> {
        let log = self.lock();
        if log.head.is_empty() && log.tail.is_empty() && log.notes.is_empty() {
            return None;
        }
        let mut text = String::from_utf8_lossy(&log.head).into_owned();
        if log.dropped > 0 {
            text.push_str(&format!("\n[… {} bytes left out …]\n", log.dropped));
        }
        let (front, back) = log.tail.as_slices();
        text.push_str(&String::from_utf8_lossy(&[front, back].concat()));
        for note in &log.notes {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[mcp-error-layers] ");
            text.push_str(note);
        }
        Some(text)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LogText> {
        // A panic elsewhere while holding the lock leaves a log that is still worth showing.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cause_is_the_last_non_blank_line_and_bounded() {
        let log = AdapterLog::new();
        assert_eq!(log.with_cause("it died".into()), "it died");
        log.append(b"Traceback (most recent call last):\n  File x\nValueError: boom\n\n");
        log.note("a note of the driver's");
        assert_eq!(
            log.with_cause("it died".into()),
            "it died; its stderr ended with: ValueError: boom"
        );
        log.append("é".repeat(CAUSE_CHARS + 5).as_bytes());
        let line = log.last_line().unwrap();
        assert_eq!(line.chars().count(), CAUSE_CHARS + 1, "{line}");
        assert!(line.ends_with('…'));
    }

    #[test]
    fn a_log_keeps_its_head_and_tail_and_counts_the_middle() {
        let log = AdapterLog::new();
        assert_eq!(log.text(), None);
        log.append(&vec![b'a'; LOG_CAP]);
        log.append(b"middle");
        log.append(&vec![b'z'; LOG_CAP / 2]);
        log.note("killed");
        let text = log.text().unwrap();
        assert!(text.starts_with(&"a".repeat(LOG_CAP / 2)));
        assert!(text.contains(&format!("[… {} bytes left out …]", LOG_CAP / 2 + 6)));
        assert!(text.ends_with(&format!(
            "{}\n[mcp-error-layers] killed",
            "z".repeat(LOG_CAP / 2)
        )));
    }
}

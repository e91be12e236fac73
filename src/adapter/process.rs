//! Adapters that are programs (docs/adapters.md), in any language.
//!
//! One process per call: the runner starts `program args... ENDPOINT_URL` without a shell, in a
//! process group of its own, with stdin closed and the call in environment variables
//! ([`ENV_TOOL`], [`ENV_ARGUMENTS`], [`ENV_PROTOCOL_VERSION`], [`ENV_TIMEOUT_MS`],
//! [`ENV_ANNOTATIONS`]). The program
//! prints one JSON line on stdout: an observation or `{"unsupported": "why"}`. Its stderr is
//! kept for the report. A crash, an exit without an observation, or stdout that is not exactly
//! one observation line is an `adapter-error`; no observation by the deadline is a `hang`, and
//! the whole group is killed.
//!
//! Persistent mode, for programs that are slow to start: the runner first starts
//! `program args...` (no URL) with [`ENV_MODE`]`=persistent` and stdin open. A program that
//! supports it prints `{"persistent": 1}` as its first line, then answers one JSON request line
//! on stdin with one observation line on stdout, call after call. A program that does not
//! announce within the announce timeout is run one process per call from then on. One that
//! announces `{"persistent": 1, "concurrent": N}` (N up to 64) serves up to N calls at once:
//! each request carries an `"id"`, each answer the same one, in any order.
//!
//! The full text for adapter authors is `docs/adapters.md`.

pub mod agent;
#[cfg(feature = "reference-client")]
pub mod bridge;
mod concurrent;
pub mod conformance;
mod group;
pub mod home;
mod kept;
mod limits;
pub mod loopback;
mod oneshot;
mod output;
mod persistent;
mod pipes;
mod request;
pub mod seeding;

use crate::adapter::{AdapterLog, CallContext, Driver, DriverInfo, NewProcess, Observes, StartUp};
use crate::observation::AdapterReport;
use kept::{Kept, MAX_KEPT};
use persistent::{Pool, StartFailure, Worker};
use std::ffi::OsString;
use std::io;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The tool to call (one-shot mode).
pub const ENV_TOOL: &str = "MCP_ERROR_LAYERS_TOOL";
/// The call's arguments as a JSON text (one-shot mode).
pub const ENV_ARGUMENTS: &str = "MCP_ERROR_LAYERS_ARGUMENTS";
/// The protocol version the client should prefer (one-shot mode).
pub const ENV_PROTOCOL_VERSION: &str = "MCP_ERROR_LAYERS_PROTOCOL_VERSION";
/// The client's own timeout for the call, in milliseconds (one-shot mode).
pub const ENV_TIMEOUT_MS: &str = "MCP_ERROR_LAYERS_TIMEOUT_MS";
/// The tool's annotations as a JSON object text (one-shot mode; `{}` when none).
pub const ENV_ANNOTATIONS: &str = "MCP_ERROR_LAYERS_TOOL_ANNOTATIONS";
/// `1` when the client should list the tools before the call (the tool has an output schema),
/// `0` otherwise (one-shot mode; see [`CallContext::list_tools`]).
pub const ENV_LIST_TOOLS: &str = "MCP_ERROR_LAYERS_LIST_TOOLS";
/// The call's task, a JSON object text (`{"ttl_ms": 60000}`, `{}`), when the application asks
/// for the call as a task; unset for an ordinary call (one-shot mode; see
/// [`CallContext::task`]).
pub const ENV_TASK: &str = "MCP_ERROR_LAYERS_TASK";
/// The client's start credentials in an authorization case, a JSON object text (docs/adapters.md,
/// "Credentials"); unset in every other case (one-shot mode; see [`CallContext::auth`]).
pub const ENV_AUTH: &str = "MCP_ERROR_LAYERS_AUTH";
/// The call's place among its case's calls, from 0 (one-shot mode; see
/// [`CallContext::client`]). A process started for one call cannot keep the client of the
/// calls before it: a one-shot adapter runs each call on a new client.
pub const ENV_CALL_INDEX: &str = "MCP_ERROR_LAYERS_CALL_INDEX";
/// How many calls the case makes (one-shot mode).
pub const ENV_CALLS: &str = "MCP_ERROR_LAYERS_CALLS";
/// What the call goes over: `http` or `stdio` (one-shot mode; see [`CallContext::transport`]).
pub const ENV_TRANSPORT: &str = "MCP_ERROR_LAYERS_TRANSPORT";
/// A stdio call's server command line, a JSON array of strings, program first (one-shot mode;
/// see [`CallContext::command`]); unset over HTTP.
pub const ENV_STDIO_COMMAND: &str = "MCP_ERROR_LAYERS_STDIO_COMMAND";
/// `persistent` when the program is started to serve many calls; unset otherwise.
pub const ENV_MODE: &str = "MCP_ERROR_LAYERS_MODE";
/// How long a program started in persistent mode has to announce it, by default: as long as
/// a program started for one call has before its first request ([`DEFAULT_START_UP_TIMEOUT`]).
/// A program announces once its client library is loaded, so this is its start-up allowance;
/// one that does not know persistent mode exits or prints something else at once.
pub const DEFAULT_ANNOUNCE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a program started for one call may take before its first request, by default
/// (see [`ProcessAdapter::with_start_up_timeout`]).
pub const DEFAULT_START_UP_TIMEOUT: Duration = Duration::from_secs(10);

/// How many of an adapter's processes start at once by default: four per core. Starting an
/// interpreter is CPU work: each of `k` starts per core takes about `k` times its CPU cost, so
/// four keep a start that costs half a second of CPU (Node and an SDK) near two seconds, far
/// inside [`DEFAULT_START_UP_TIMEOUT`]; without a bound, 64 calls in flight on 2 busy cores
/// took longer than that (see [`ProcessAdapter::with_parallel_starts`]).
pub fn default_parallel_starts() -> usize {
    std::thread::available_parallelism().map_or(8, |n| n.get().saturating_mul(4))
}

/// An adapter that is a program: see the [module](self) documentation for the contract.
///
/// By default the first call probes persistent mode and the adapter keeps to whichever mode
/// the probe found; [`one_shot`](Self::one_shot) skips the probe. Idle persistent processes are
/// killed when the adapter is dropped.
pub struct ProcessAdapter {
    program: Program,
    announce_timeout: Duration,
    start_up_timeout: Duration,
    /// A place for each process starting at once (see `with_parallel_starts`).
    starts: Arc<Semaphore>,
    parallel_starts: usize,
    mode: Mutex<Mode>,
    /// Held while the first call probes, so that parallel first calls do not all probe.
    probing: tokio::sync::Mutex<()>,
    pool: Pool,
    /// The processes that hold a case's client until its next call.
    kept: Kept,
    /// Whether the program is a conformance client ([`ProcessAdapter::conformance_client`]).
    conformance: bool,
    /// Whether the program speaks stdio ([`ProcessAdapter::with_stdio`]).
    stdio: bool,
    /// Whether the program takes credentials ([`ProcessAdapter::with_credentials`]).
    credentials: bool,
}

/// How a [`ProcessAdapter`] runs its program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// Not known yet: the first call will probe persistent mode.
    Undecided,
    /// Processes that announced persistent mode serve many calls each.
    Persistent,
    /// One process per call, for this reason (the probe's finding, or it was asked for).
    OneShot(String),
}

impl std::fmt::Debug for ProcessAdapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProcessAdapter")
            .field("program", &self.program)
            .field("announce_timeout", &self.announce_timeout)
            .field("start_up_timeout", &self.start_up_timeout)
            .field("parallel_starts", &self.parallel_starts)
            .field("mode", &self.mode)
            .field("conformance", &self.conformance)
            .finish_non_exhaustive()
    }
}

/// What [`ProcessAdapter`]'s `prepare` hands to `drive`: the mode of this call, and in
/// persistent mode its process, started before the call's deadline.
pub struct Prepared(Slot);

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Prepared")
    }
}

enum Slot {
    /// One process per call; the note says why, on the call that found out. The place among
    /// the processes starting at once goes to the call's [`StartUp`].
    OneShot {
        note: Option<String>,
        place: Option<OwnedSemaphorePermit>,
    },
    /// A persistent process, with notes on idle ones that had to be replaced.
    Worker(Worker, Vec<String>),
    /// A persistent process did not start.
    Failed(StartFailure),
}

impl ProcessAdapter {
    /// The adapter program `program`, started with `args` (then, per call, the endpoint URL).
    /// The program is run directly, never through a shell: a script needs its `#!` line.
    pub fn new<I, S>(program: impl Into<OsString>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        ProcessAdapter {
            program: Program {
                program: program.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: Vec::new(),
            },
            announce_timeout: DEFAULT_ANNOUNCE_TIMEOUT,
            start_up_timeout: DEFAULT_START_UP_TIMEOUT,
            starts: Arc::new(Semaphore::new(default_parallel_starts())),
            parallel_starts: default_parallel_starts(),
            mode: Mutex::new(Mode::Undecided),
            probing: tokio::sync::Mutex::new(()),
            pool: Pool::default(),
            kept: Kept::default(),
            conformance: false,
            stdio: false,
            credentials: false,
        }
    }

    /// Runs the program as an SDK's *conformance client* (docs/conformance-clients.md): one
    /// process per call, started as the official conformance suite starts one for its
    /// `tools_call` scenario ([`conformance`]), judged on its exit status
    /// ([`Observes::ExitStatus`]): coarse where the case needs a finer outcome.
    pub fn conformance_client(mut self) -> Self {
        self.conformance = true;
        self.set_mode(Mode::OneShot(
            "a conformance client runs one process per call".into(),
        ));
        self
    }

    /// Whether the program can be started at all: it names an executable file (looked up on
    /// `PATH` when the name has no `/`, as starting it does). `Err` is the one line saying why
    /// not (`cannot start "/x": No such file or directory (os error 2)`), for a run to stop on
    /// before any case; a program that starts and then fails is each case's business.
    pub fn check_startable(&self) -> Result<(), String> {
        locate(&self.program.program)
            .map(|_| ())
            .map_err(|e| self.program.cannot_start(&e))
    }

    /// Runs one process per call without probing persistent mode.
    pub fn one_shot(self) -> Self {
        self.set_mode(Mode::OneShot("one process per call was asked for".into()));
        self
    }

    /// How long a program started in persistent mode has to announce it
    /// ([`DEFAULT_ANNOUNCE_TIMEOUT`] unless set). The wait is not counted in any call's time.
    pub fn with_announce_timeout(mut self, timeout: Duration) -> Self {
        self.announce_timeout = timeout;
        self
    }

    /// How long a program started for one call may take before it can act
    /// ([`DEFAULT_START_UP_TIMEOUT`] unless set). The call's deadline starts at its first
    /// request to the endpoint, or when this is over if it sent none before: a program that
    /// is slow to start (or merely starts on a busy machine) is not judged a `hang` for it.
    /// Persistent processes start before the call, and this does not apply to them.
    pub fn with_start_up_timeout(mut self, timeout: Duration) -> Self {
        self.start_up_timeout = timeout;
        self
    }

    /// How many of its processes may be starting at once ([`default_parallel_starts`] unless
    /// set; at least 1). A one-shot process is starting from its spawn until its first request
    /// (or its answer, or the end of its start-up allowance); a persistent one until it
    /// announces. A call waits for a place before its process is spawned, outside its
    /// deadline: many calls in flight (`--jobs`) then do not start many interpreters at once on
    /// few cores, each of them slower than the allowance.
    pub fn with_parallel_starts(mut self, starts: usize) -> Self {
        self.parallel_starts = starts.max(1);
        self.starts = Arc::new(Semaphore::new(self.parallel_starts));
        self
    }

    /// Says whether the program can make stdio calls (docs/stdio.md): given a stdio call
    /// (`MCP_ERROR_LAYERS_TRANSPORT=stdio`, the server's command line in
    /// `MCP_ERROR_LAYERS_STDIO_COMMAND`), its client starts that command as its server. Without
    /// it the stdio cases are `unsupported` and the program is never started for them.
    pub fn with_stdio(mut self, stdio: bool) -> Self {
        self.stdio = stdio;
        self
    }

    /// Says whether the program hands its client the start credentials of an authorization case
    /// (docs/adapters.md, "Credentials": `MCP_ERROR_LAYERS_AUTH`, `auth` in the request line).
    /// Without it the authorization cases are `unsupported` and the program is never started
    /// for them.
    pub fn with_credentials(mut self, credentials: bool) -> Self {
        self.credentials = credentials;
        self
    }

    /// Sets an environment variable for the program, on top of the inherited environment.
    pub fn with_env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.program.env.push((key.into(), value.into()));
        self
    }

    /// The mode the adapter is in.
    pub fn mode(&self) -> Mode {
        self.lock_mode().clone()
    }

    fn set_mode(&self, mode: Mode) {
        *self.lock_mode() = mode;
    }

    fn lock_mode(&self) -> std::sync::MutexGuard<'_, Mode> {
        // A mode is a plain value: still valid after a panic elsewhere.
        self.mode
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The slot for a call once the mode is known.
    async fn slot(&self) -> Option<Slot> {
        match self.mode() {
            Mode::Undecided => None,
            Mode::OneShot(_) => Some(self.one_shot_slot(None).await),
            Mode::Persistent => Some(self.persistent_slot().await),
        }
    }

    /// A place among the processes starting at once; `None` only if the gate is gone.
    async fn place_to_start(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.starts).acquire_owned().await.ok()
    }

    /// One process per call, once there is a place for it to start.
    async fn one_shot_slot(&self, note: Option<String>) -> Slot {
        let place = self.place_to_start().await;
        Slot::OneShot { note, place }
    }

    /// A free slot or an idle persistent process, or a new one. The program announced before,
    /// so a new one slow to announce is a busy machine: it has the start-up allowance if that
    /// is longer.
    async fn persistent_slot(&self) -> Slot {
        let (idle, mut notes) = self.pool.take();
        if let Some(worker) = idle {
            return Slot::Worker(worker, notes);
        }
        let announce = self.announce_timeout.max(self.start_up_timeout);
        let _place = self.place_to_start().await;
        let started = self.pool.start(&self.program, announce, &mut notes);
        match started.await {
            Ok(worker) => Slot::Worker(worker, notes),
            Err(failure) => Slot::Failed(failure),
        }
    }

    /// Keeps `worker`'s process for client `id`'s next call (see [`Kept`]); one that cannot be
    /// kept goes back to the pool, with a note for `log`.
    fn keep(&self, id: u64, worker: Worker, log: &AdapterLog) {
        if let Some(worker) = self.kept.keep(id, worker) {
            log.note(format!(
                "the client is not kept for the next call: {MAX_KEPT} clients are kept between \
                 calls already"
            ));
            self.pool.put(worker);
        }
    }

    /// The slot for a case's later call: the process that holds its client. `None` when the
    /// mode is not persistent; a slot on another process (a new client, as the note in the
    /// call's log says) when the holder is gone.
    async fn kept_slot(&self, call: &CallContext) -> Option<Slot> {
        let why = match self.mode() {
            Mode::Persistent => match self.kept.take(call.client.id) {
                Ok(worker) => return Some(Slot::Worker(worker, Vec::new())),
                Err(why) => why,
            },
            Mode::OneShot(_) => "one process per call cannot keep it".to_owned(),
            Mode::Undecided => return None,
        };
        let note = format!(
            "call {} of the case runs on a new client, not the one of the calls before: {why}",
            call.client.call + 1
        );
        let mut slot = self.slot().await?;
        match &mut slot {
            Slot::Worker(_, notes) => notes.insert(0, note),
            Slot::OneShot { note: first, .. } => {
                *first = Some(match first.take() {
                    Some(probe) => format!("{note}; {probe}"),
                    None => note,
                })
            }
            Slot::Failed(_) => {}
        }
        Some(slot)
    }

    /// The first call: start the program in persistent mode and see whether it announces.
    async fn probe(&self) -> Slot {
        let place = self.place_to_start().await;
        let mut none_idle = Vec::new();
        let started = self
            .pool
            .start(&self.program, self.announce_timeout, &mut none_idle);
        let started = started.await;
        drop(place);
        match started {
            Ok(worker) => {
                self.set_mode(Mode::Persistent);
                Slot::Worker(worker, Vec::new())
            }
            Err(failure) => {
                let note = format!(
                    "persistent mode was not announced ({}): one process per call from now on",
                    failure.reason
                );
                self.set_mode(Mode::OneShot(failure.reason));
                self.one_shot_slot(Some(note)).await
            }
        }
    }
}

impl Driver for ProcessAdapter {
    type Prepared = Prepared;

    fn speaks_stdio(&self) -> bool {
        self.stdio && !self.conformance
    }

    fn takes_credentials(&self) -> bool {
        self.credentials && !self.conformance
    }

    async fn prepare(&self, call: &CallContext) -> Prepared {
        if call.client.call > 0 {
            if let Some(slot) = self.kept_slot(call).await {
                return Prepared(slot);
            }
        }
        if let Some(slot) = self.slot().await {
            return Prepared(slot);
        }
        let _probing = self.probing.lock().await;
        // Another call may have decided while this one waited.
        match self.slot().await {
            Some(slot) => Prepared(slot),
            None => Prepared(self.probe().await),
        }
    }

    fn new_process(&self, prepared: &Prepared) -> Option<NewProcess> {
        match &prepared.0 {
            Slot::Worker(worker, _) => worker.new_process(),
            Slot::OneShot { .. } | Slot::Failed(_) => None,
        }
    }

    fn info(&self) -> DriverInfo {
        let identity = self.pool.identity();
        DriverInfo {
            name: identity.name,
            version: identity.version,
            // A conformance client never announces: no allowance to report (or to repeat as a
            // flag, which `run --conformance-client` refuses).
            announce_timeout: (!self.conformance).then_some(self.announce_timeout),
            start_up_timeout: Some(self.start_up_timeout),
            conformance_client: self.conformance,
            agent: false,
            bridge: None,
            stdio: self.speaks_stdio(),
            auth: self.takes_credentials(),
        }
    }

    fn observes(&self) -> Observes {
        match self.conformance {
            true => Observes::ExitStatus,
            false => Observes::Outcomes,
        }
    }

    fn start_up(&self, prepared: &mut Prepared) -> Option<StartUp> {
        match &mut prepared.0 {
            Slot::OneShot { place, .. } => {
                Some(StartUp::new(self.start_up_timeout).holding(place.take()))
            }
            Slot::Worker(..) | Slot::Failed(_) => None,
        }
    }

    async fn drive(
        &self,
        prepared: Prepared,
        call: CallContext,
        log: &AdapterLog,
    ) -> Result<AdapterReport, String> {
        match prepared.0 {
            Slot::OneShot { note, .. } => {
                if let Some(note) = note {
                    log.note(note);
                }
                match self.conformance {
                    true => conformance::run(&self.program, &call, log).await,
                    false => oneshot::run(&self.program, &call, log).await,
                }
            }
            Slot::Failed(failure) => {
                if let Some(text) = failure.log.text() {
                    log.append(text.as_bytes());
                }
                Err(format!(
                    "the persistent adapter did not start: {}",
                    failure.reason
                ))
            }
            Slot::Worker(worker, notes) => {
                notes.into_iter().for_each(|note| log.note(note));
                if !call.client.is_last() {
                    self.kept.remember(call.client.id, &worker);
                }
                let served = worker.serve(&call, log).await;
                let unsupported = matches!(served.result, Ok(AdapterReport::Unsupported { .. }));
                if unsupported {
                    // The runner ends a case at an unsupported call: no next call comes.
                    self.kept.forget(call.client.id);
                }
                match served.worker {
                    Some(worker) if !call.client.is_last() && !unsupported => {
                        self.keep(call.client.id, worker, log);
                    }
                    Some(worker) => self.pool.put(worker),
                    None => {}
                }
                served.result
            }
        }
    }
}

/// The program, its fixed arguments and extra environment.
#[derive(Debug)]
struct Program {
    program: OsString,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

impl Program {
    /// What every start has in common: no shell, stdout and stderr captured.
    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .env_remove(ENV_MODE)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    /// One call: the endpoint last, the call in the environment, stdin closed.
    fn one_shot(&self, call: &CallContext) -> Command {
        let mut command = self.command();
        command
            .arg(&call.endpoint)
            .env(ENV_TOOL, &call.tool)
            .env(ENV_ARGUMENTS, call.arguments.to_string())
            .env(ENV_PROTOCOL_VERSION, &call.protocol_version)
            .env(ENV_TIMEOUT_MS, call.timeout.as_millis().to_string())
            .env(ENV_ANNOTATIONS, call.annotations.to_string())
            .env(ENV_LIST_TOOLS, if call.list_tools { "1" } else { "0" })
            .env(ENV_CALL_INDEX, call.client.call.to_string())
            .env(ENV_CALLS, call.client.calls.to_string())
            .env(ENV_TRANSPORT, call.transport.as_str())
            .env_remove(ENV_TASK)
            .env_remove(ENV_AUTH)
            .env_remove(ENV_STDIO_COMMAND)
            .stdin(Stdio::null());
        if call.transport == crate::case::Transport::Stdio {
            command.env(
                ENV_STDIO_COMMAND,
                serde_json::json!(call.command).to_string(),
            );
        }
        if let Some(task) = &call.task {
            command.env(ENV_TASK, serde_json::json!(task).to_string());
        }
        if let Some(auth) = &call.auth {
            command.env(ENV_AUTH, auth.to_json().to_string());
        }
        command
    }

    /// Persistent mode: no endpoint (each request names its own), stdin for the requests.
    fn persistent(&self) -> Command {
        let mut command = self.command();
        command.env(ENV_MODE, "persistent").stdin(Stdio::piped());
        command
    }

    fn cannot_start(&self, error: &io::Error) -> String {
        format!("cannot start {:?}: {error}", self.program)
    }
}

/// Where `program` is, as `execvp` finds it: the path itself when it holds a `/`, else the
/// first executable file of that name on `PATH`.
fn locate(program: &std::ffi::OsStr) -> io::Result<std::path::PathBuf> {
    let path = std::path::Path::new(program);
    if program.as_encoded_bytes().contains(&b'/') {
        return executable(path);
    }
    locate_in(path, &std::env::var_os("PATH").unwrap_or_default())
}

/// [`locate`] of a name with no `/` in the folders of `dirs` (a `PATH` value).
fn locate_in(path: &std::path::Path, dirs: &std::ffi::OsStr) -> io::Result<std::path::PathBuf> {
    let mut why = io::Error::from_raw_os_error(nix::errno::Errno::ENOENT as i32);
    for dir in std::env::split_paths(dirs) {
        match executable(&dir.join(path)) {
            Ok(found) => return Ok(found),
            // A file that is there but cannot run says more than the ones that are missing.
            Err(e) if e.kind() != io::ErrorKind::NotFound => why = e,
            Err(_) => {}
        }
    }
    Err(why)
}

/// `path` when it is a file someone may execute; else the error `execve` would give.
fn executable(path: &std::path::Path) -> io::Result<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = std::fs::metadata(path)?;
    if metadata.is_dir() || metadata.permissions().mode() & 0o111 == 0 {
        return Err(io::Error::from_raw_os_error(
            nix::errno::Errno::EACCES as i32,
        ));
    }
    Ok(path.to_owned())
}

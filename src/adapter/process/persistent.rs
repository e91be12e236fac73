//! Persistent mode: one adapter process serves many calls, one JSON line each way, after
//! announcing `{"persistent": 1}` as its first stdout line.
//!
//! A process that announces `"concurrent": N` (N > 1) serves up to N calls at once: see
//! [`concurrent`](super::concurrent). Any other serves one call at a time, here: between calls
//! its pipes are plain non-blocking descriptors, registered with the runtime of each call only
//! while the call runs: the runner gives every case a runtime of its own, and one process
//! serves the cases of many runtimes.

use super::Program;
use super::concurrent::{Lease, Shared};
use super::group::ProcessGroup;
use super::oneshot::OUTPUT_GRACE;
use super::output::{CHUNK, STDOUT_CAP, is_blank, parse_report, read_available, shown, take_line};
use super::pipes::{Attached, Pipes};
use super::request::request_line;
use crate::adapter::{AdapterLog, CallContext, LOG_CAP, NewProcess};
use crate::observation::AdapterReport;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The version of the persistent protocol this runner speaks (`{"persistent": 1}`).
pub(super) const PROTOCOL: u64 = 1;
/// The most calls one process may announce to serve at once (`"concurrent": N`).
pub(super) const MAX_CONCURRENT: u64 = 64;
/// The longest `"name"` or `"version"` an announcement may carry, in characters: a label for
/// reports, not a document.
pub(super) const MAX_LABEL_CHARS: usize = 200;

/// The client an adapter names in its announcement (`"name"`, `"version"`), for reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Identity {
    pub(super) name: Option<String>,
    pub(super) version: Option<String>,
}

/// What a process announced: how many calls it serves at once, and the client it drives.
struct Announcement {
    concurrent: usize,
    identity: Identity,
}

/// A persistent process for one call: one that serves one call at a time, taken out of the
/// pool for the call, or a slot in one that serves calls at once.
pub(super) enum Worker {
    /// Serves one call at a time; back into the pool after a clean answer.
    Single(Single),
    /// A slot in a process that serves up to N calls at once; it stays in the pool.
    Shared(Lease),
}

/// A persistent adapter process that serves one call at a time, idle between calls. Dropping
/// it kills its process group.
pub(super) struct Single {
    group: ProcessGroup,
    pipes: Pipes,
    /// Stdout read past the last line.
    pending: Vec<u8>,
    /// What it wrote on stderr while starting; shown in its first call's log.
    startup: Option<AdapterLog>,
    /// When it started and how long it took to announce.
    birth: NewProcess,
    /// Whether it answered a call before.
    served: bool,
}

/// Why a persistent process did not start, with what it wrote on stderr meanwhile.
pub(super) struct StartFailure {
    pub(super) reason: String,
    pub(super) log: AdapterLog,
}

/// How one call on a worker went, and the worker when it may serve again.
pub(super) struct Served {
    pub(super) result: Result<AdapterReport, String>,
    pub(super) worker: Option<Worker>,
}

/// A process that announced, as the kind it announced, with what it said about itself.
enum Started {
    Single(Single, Identity),
    Shared(Shared, Identity),
}

impl Worker {
    /// Sends `call` and reads the answer; a one-at-a-time worker comes back only when it
    /// answered with exactly one observation line.
    pub(super) async fn serve(self, call: &CallContext, log: &AdapterLog) -> Served {
        match self {
            Worker::Single(single) => single.serve(call, log).await,
            Worker::Shared(mut lease) => {
                let result = lease.serve(call, log).await;
                // Back only after an answer: dropped while it waits, it retires its process.
                let worker = result.is_ok().then_some(Worker::Shared(lease));
                Served { result, worker }
            }
        }
    }

    /// Its process, when it has answered no call yet.
    pub(super) fn new_process(&self) -> Option<NewProcess> {
        match self {
            Worker::Single(single) => (!single.served).then_some(single.birth),
            Worker::Shared(lease) => lease.new_process(),
        }
    }
}

/// Starts `program` in persistent mode and waits up to `announce` for its announcement.
async fn start(program: &Program, announce: Duration) -> Result<Started, StartFailure> {
    let startup = AdapterLog::new();
    let fail = |reason: String| StartFailure {
        reason,
        log: startup.clone(),
    };
    let started = Instant::now();
    let (mut group, mut child) = ProcessGroup::spawn(&mut program.persistent())
        .map_err(|e| fail(program.cannot_start(&e)))?;
    let pipes = Pipes::of(&mut child).ok_or_else(|| fail("its pipes were not captured".into()))?;
    let mut io = pipes
        .attach()
        .map_err(|e| fail(format!("cannot read its output: {e}")))?;
    let mut pending = Vec::new();
    let announced = announcement(&mut io, &mut group, &mut pending, &startup);
    let announced = match tokio::time::timeout(announce, announced).await {
        Ok(Ok(announced)) => announced,
        Ok(Err(reason)) => return Err(fail(reason)),
        Err(_) => {
            let waited = announce.as_millis();
            return Err(fail(format!("it did not announce within {waited} ms")));
        }
    };
    let birth = NewProcess {
        started,
        ready_after: started.elapsed(),
    };
    startup.note(format!(
        "the persistent adapter (pid {}) announced {} ms after its start; calls' deadlines \
         start once it has",
        group.pid(),
        birth.ready_after.as_millis()
    ));
    let pipes = io
        .detach()
        .map_err(|e| fail(format!("cannot keep its pipes: {e}")))?;
    let Announcement {
        concurrent,
        identity,
    } = announced;
    if concurrent > 1 {
        return Shared::start(group, pipes, pending, startup.clone(), concurrent, birth)
            .map(|shared| Started::Shared(shared, identity))
            .map_err(fail);
    }
    let single = Single {
        group,
        pipes,
        pending,
        startup: Some(startup),
        birth,
        served: false,
    };
    Ok(Started::Single(single, identity))
}

impl Single {
    /// The process id (and process group id).
    pub(super) fn pid(&self) -> u32 {
        self.group.pid()
    }

    /// The worker if it can serve another call; otherwise why not (it is dropped, killed).
    pub(super) fn check_idle(mut self) -> Result<Single, String> {
        let pid = self.pid();
        if let Some(exit) = self.group.exit() {
            return Err(format!(
                "the idle persistent adapter (pid {pid}) {exit}; started another"
            ));
        }
        let closed = read_available(&self.pipes.stdout, &mut self.pending, STDOUT_CAP);
        if closed || !is_blank(&self.pending) {
            return Err(format!(
                "the idle persistent adapter (pid {pid}) printed {} between calls{}; stopped it \
                 and started another",
                shown(&self.pending),
                if closed { " and closed its stdout" } else { "" },
            ));
        }
        Ok(self)
    }

    /// Sends `call` and reads the answer; the worker comes back only when it answered with
    /// exactly one observation line.
    async fn serve(self, call: &CallContext, log: &AdapterLog) -> Served {
        let Single {
            mut group,
            pipes,
            mut pending,
            startup,
            birth,
            served: _,
        } = self;
        if let Some(text) = startup.and_then(|startup| startup.text()) {
            log.append(text.as_bytes());
        }
        let mut io = match pipes.attach() {
            Ok(io) => io,
            Err(e) => return Served::failed(format!("cannot use the adapter's pipes: {e}")),
        };
        let report = match exchange(&mut io, &mut group, &mut pending, call, log).await {
            Ok(report) => report,
            Err(reason) => return Served::failed(reason),
        };
        match settle(group, io, pending, log, birth) {
            Ok(worker) => Served {
                result: Ok(report),
                worker: worker.map(Worker::Single),
            },
            Err(reason) => Served::failed(reason),
        }
    }
}

/// After an answer: takes the call's last stderr into `log` and checks that nothing follows
/// the answer on stdout. The worker for the next call (`None` when its pipes cannot be kept),
/// or an error when it printed more than one line for this call.
fn settle(
    group: ProcessGroup,
    io: Attached,
    mut pending: Vec<u8>,
    log: &AdapterLog,
    birth: NewProcess,
) -> Result<Option<Single>, String> {
    let Ok(pipes) = io.detach() else {
        return Ok(None);
    };
    let mut stderr = Vec::new();
    read_available(&pipes.stderr, &mut stderr, LOG_CAP);
    log.append(&stderr);
    read_available(&pipes.stdout, &mut pending, STDOUT_CAP);
    if !is_blank(&pending) {
        return Err(format!(
            "the persistent adapter (pid {}) printed more than one line for one call: {}",
            group.pid(),
            shown(&pending)
        ));
    }
    Ok(Some(Single {
        group,
        pipes,
        pending,
        startup: None,
        birth,
        served: true,
    }))
}

impl Served {
    fn failed(reason: String) -> Served {
        Served {
            result: Err(reason),
            worker: None,
        }
    }
}

/// Reads the first line and checks that it announces the protocol this runner speaks: how
/// many calls the process serves at once (`"concurrent"`, 1 when it does not say) and the
/// client it names.
async fn announcement(
    io: &mut Attached,
    group: &mut ProcessGroup,
    pending: &mut Vec<u8>,
    log: &AdapterLog,
) -> Result<Announcement, String> {
    let line = match next_line(io, pending, log).await {
        Ok(line) => line,
        Err(LineEnd::TooLong) => return Err(too_long()),
        Err(LineEnd::Closed) => {
            return Err(format!("it {} without announcing", closed(group).await));
        }
    };
    let value: Option<Value> = serde_json::from_slice(&line).ok();
    let key = |name: &str| value.as_ref().and_then(|value| value.get(name));
    match key("persistent") {
        Some(version) if *version == json!(PROTOCOL) => Ok(Announcement {
            concurrent: concurrency(key("concurrent"))?,
            identity: Identity {
                name: label("name", key("name"))?,
                version: label("version", key("version"))?,
            },
        }),
        Some(version) => Err(format!(
            "it announced persistent protocol {version}; this runner speaks {PROTOCOL}"
        )),
        None => Err(format!(
            "its first line is not an announcement: {}",
            shown(&line)
        )),
    }
}

/// The announcement's `"concurrent"`: an integer from 1 to [`MAX_CONCURRENT`], 1 when absent.
fn concurrency(announced: Option<&Value>) -> Result<usize, String> {
    let Some(value) = announced else {
        return Ok(1);
    };
    match value.as_u64() {
        Some(n @ 1..=MAX_CONCURRENT) => usize::try_from(n).map_err(|e| e.to_string()),
        _ => Err(format!(
            "its announcement has \"concurrent\": {value}; it must be an integer from 1 to \
             {MAX_CONCURRENT} (how many calls it serves at once) or left out (one at a time)"
        )),
    }
}

/// The announcement's `"name"` or `"version"`: a string of 1 to [`MAX_LABEL_CHARS`] characters
/// without control characters, `None` when absent.
fn label(key: &str, announced: Option<&Value>) -> Result<Option<String>, String> {
    let Some(value) = announced else {
        return Ok(None);
    };
    match value.as_str() {
        Some(text)
            if (1..=MAX_LABEL_CHARS).contains(&text.chars().count())
                && !text.chars().any(char::is_control) =>
        {
            Ok(Some(text.to_owned()))
        }
        _ => {
            let text = value.to_string();
            let cut: String = text.chars().take(80).collect();
            let more = if cut.len() < text.len() { "…" } else { "" };
            Err(format!(
                "its announcement has \"{key}\": {cut}{more}; it must be a string of 1 to \
                 {MAX_LABEL_CHARS} characters without control characters (the client's {key}, \
                 for reports) or left out"
            ))
        }
    }
}

/// Writes the request line for `call` and reads the answer line.
async fn exchange(
    io: &mut Attached,
    group: &mut ProcessGroup,
    pending: &mut Vec<u8>,
    call: &CallContext,
    log: &AdapterLog,
) -> Result<AdapterReport, String> {
    let pid = group.pid();
    // A write error is a closed stdin (EPIPE): the process is gone, and `next_line` says how.
    let _ = io.stdin.write_all(&request_line(call, None)).await;
    match next_line(io, pending, log).await {
        Ok(line) => parse_report(&line),
        Err(LineEnd::TooLong) => Err(too_long()),
        Err(LineEnd::Closed) => Err(log.with_cause(format!(
            "the persistent adapter (pid {pid}) {} before answering",
            closed(group).await
        ))),
    }
}

/// Why no line came.
enum LineEnd {
    /// Stdout closed first.
    Closed,
    /// More than [`STDOUT_CAP`] bytes without a newline.
    TooLong,
}

/// The next non-blank stdout line, reading stderr into `log` meanwhile. A last line without a
/// newline counts when stdout closes after it.
async fn next_line(
    io: &mut Attached,
    pending: &mut Vec<u8>,
    log: &AdapterLog,
) -> Result<Vec<u8>, LineEnd> {
    let (mut out_chunk, mut err_chunk) = (vec![0; CHUNK], vec![0; CHUNK]);
    let mut stderr_open = true;
    loop {
        if let Some(line) = take_line(pending) {
            return Ok(line);
        }
        if pending.len() > STDOUT_CAP {
            return Err(LineEnd::TooLong);
        }
        tokio::select! {
            read = io.stdout.read(&mut out_chunk) => match read {
                Ok(n) if n > 0 => pending.extend_from_slice(&out_chunk[..n]),
                _ if is_blank(pending) => return Err(LineEnd::Closed),
                _ => return Ok(std::mem::take(pending)),
            },
            read = io.stderr.read(&mut err_chunk), if stderr_open => match read {
                Ok(n) if n > 0 => log.append(&err_chunk[..n]),
                _ => stderr_open = false,
            },
        }
    }
}

/// How a process whose stdout closed ended: its exit, if it comes within the grace.
async fn closed(group: &mut ProcessGroup) -> String {
    match tokio::time::timeout(OUTPUT_GRACE, group.wait()).await {
        Ok(exit) => exit.to_string(),
        Err(_) => "closed its stdout".to_owned(),
    }
}

fn too_long() -> String {
    format!(
        "the persistent adapter printed more than {} KiB without a newline",
        STDOUT_CAP / 1024
    )
}

/// Persistent processes, shared by every runtime that drives the adapter: idle ones that serve
/// one call at a time, and ones that serve calls at once (in use or not).
#[derive(Default)]
pub(super) struct Pool {
    idle: Mutex<Vec<Single>>,
    shared: Mutex<Vec<Arc<Shared>>>,
    /// Held while a process that serves calls at once is started, so that calls that find no
    /// free slot wait for its slots instead of each starting a process of their own.
    starting: tokio::sync::Mutex<()>,
    /// Whether the last process started serves calls at once.
    concurrent: AtomicBool,
    /// What the last process started said about the client it drives.
    identity: Mutex<Identity>,
}

impl Pool {
    /// Starts a process for one call; one that serves calls at once joins the pool at once.
    /// Once processes serve calls at once, one starts at a time, and a call that waited for
    /// its turn takes a slot of the one started meanwhile if there is one (with `notes` on
    /// the idle ones that could not serve, as [`take`](Self::take)).
    pub(super) async fn start(
        &self,
        program: &Program,
        announce: Duration,
        notes: &mut Vec<String>,
    ) -> Result<Worker, StartFailure> {
        let turn = match self.concurrent.load(Ordering::Relaxed) {
            true => Some(self.starting.lock().await),
            false => None,
        };
        if turn.is_some() {
            let (found, more) = self.take();
            notes.extend(more);
            if let Some(worker) = found {
                return Ok(worker);
            }
        }
        let started = start(program, announce).await?;
        self.concurrent
            .store(matches!(started, Started::Shared(..)), Ordering::Relaxed);
        match started {
            Started::Single(single, identity) => {
                *lock(&self.identity) = identity;
                Ok(Worker::Single(single))
            }
            Started::Shared(shared, identity) => {
                *lock(&self.identity) = identity;
                let shared = Arc::new(shared);
                let lease = shared.lease().ok_or_else(|| StartFailure {
                    reason: shared.retired().unwrap_or_default(),
                    log: AdapterLog::new(),
                });
                lock(&self.shared).push(shared);
                lease.map(Worker::Shared)
            }
        }
    }

    /// A free slot or an idle worker that can serve, with notes on the ones that could not
    /// (now dropped).
    pub(super) fn take(&self) -> (Option<Worker>, Vec<String>) {
        let mut notes = Vec::new();
        let lease = {
            let mut shared = lock(&self.shared);
            shared.retain(|worker| worker.usable(&mut notes));
            shared.iter().find_map(Shared::lease)
        };
        if let Some(lease) = lease {
            return (Some(Worker::Shared(lease)), notes);
        }
        loop {
            let Some(single) = lock(&self.idle).pop() else {
                return (None, notes);
            };
            match single.check_idle() {
                Ok(single) => return (Some(Worker::Single(single)), notes),
                Err(note) => notes.push(note),
            }
        }
    }

    /// What the last process started said about the client it drives.
    pub(super) fn identity(&self) -> Identity {
        lock(&self.identity).clone()
    }

    /// Puts a worker back for the next call (a slot is given back by dropping it).
    pub(super) fn put(&self, worker: Worker) {
        if let Worker::Single(single) = worker {
            lock(&self.idle).push(single);
        }
    }
}

fn lock<T>(list: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A worker list is still valid after a panic elsewhere.
    list.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

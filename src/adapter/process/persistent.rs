//! Persistent mode: one adapter process serves many calls, one JSON line each way, after
//! announcing `{"persistent": 1}` as its first stdout line.
//!
//! Between calls a process's pipes are plain non-blocking descriptors, registered with the
//! runtime of each call only while the call runs: the runner gives every case a runtime of its
//! own, and one process serves the cases of many runtimes.

use super::Program;
use super::group::ProcessGroup;
use super::oneshot::OUTPUT_GRACE;
use super::output::{CHUNK, STDOUT_CAP, is_blank, parse_report, read_available, shown, take_line};
use crate::adapter::{AdapterLog, CallContext, LOG_CAP};
use crate::observation::AdapterReport;
use serde_json::{Value, json};
use std::io;
use std::os::fd::OwnedFd;
use std::process::Child;
use std::sync::Mutex;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;

/// The version of the persistent protocol this runner speaks (`{"persistent": 1}`).
pub(super) const PROTOCOL: u64 = 1;

/// A persistent adapter process, idle between calls. Dropping it kills its process group.
pub(super) struct Worker {
    group: ProcessGroup,
    pipes: Pipes,
    /// Stdout read past the last line.
    pending: Vec<u8>,
    /// What it wrote on stderr while starting; shown in its first call's log.
    startup: Option<AdapterLog>,
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

struct Pipes {
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
}

/// The pipes, registered with the current runtime for one call.
struct Attached {
    stdin: pipe::Sender,
    stdout: pipe::Receiver,
    stderr: pipe::Receiver,
}

impl Pipes {
    fn of(child: &mut Child) -> Option<Pipes> {
        Some(Pipes {
            stdin: child.stdin.take()?.into(),
            stdout: child.stdout.take()?.into(),
            stderr: child.stderr.take()?.into(),
        })
    }

    fn attach(self) -> io::Result<Attached> {
        Ok(Attached {
            stdin: pipe::Sender::from_owned_fd(self.stdin)?,
            stdout: pipe::Receiver::from_owned_fd(self.stdout)?,
            stderr: pipe::Receiver::from_owned_fd(self.stderr)?,
        })
    }
}

impl Attached {
    fn detach(self) -> io::Result<Pipes> {
        Ok(Pipes {
            stdin: self.stdin.into_nonblocking_fd()?,
            stdout: self.stdout.into_nonblocking_fd()?,
            stderr: self.stderr.into_nonblocking_fd()?,
        })
    }
}

impl Worker {
    /// Starts `program` in persistent mode and waits up to `announce` for its announcement.
    pub(super) async fn start(
        program: &Program,
        announce: Duration,
    ) -> Result<Worker, StartFailure> {
        let startup = AdapterLog::new();
        let fail = |reason: String| StartFailure {
            reason,
            log: startup.clone(),
        };
        let (mut group, mut child) = ProcessGroup::spawn(&mut program.persistent())
            .map_err(|e| fail(program.cannot_start(&e)))?;
        let pipes =
            Pipes::of(&mut child).ok_or_else(|| fail("its pipes were not captured".into()))?;
        let mut io = pipes
            .attach()
            .map_err(|e| fail(format!("cannot read its output: {e}")))?;
        let mut pending = Vec::new();
        let announced = announcement(&mut io, &mut group, &mut pending, &startup);
        match tokio::time::timeout(announce, announced).await {
            Ok(Ok(())) => {}
            Ok(Err(reason)) => return Err(fail(reason)),
            Err(_) => {
                let waited = announce.as_millis();
                return Err(fail(format!("it did not announce within {waited} ms")));
            }
        }
        let pipes = io
            .detach()
            .map_err(|e| fail(format!("cannot keep its pipes: {e}")))?;
        Ok(Worker {
            group,
            pipes,
            pending,
            startup: Some(startup),
        })
    }

    /// The process id (and process group id).
    pub(super) fn pid(&self) -> u32 {
        self.group.pid()
    }

    /// The worker if it can serve another call; otherwise why not (it is dropped, killed).
    pub(super) fn check_idle(mut self) -> Result<Worker, String> {
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
    pub(super) async fn serve(self, call: &CallContext, log: &AdapterLog) -> Served {
        let Worker {
            mut group,
            pipes,
            mut pending,
            startup,
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
        match settle(group, io, pending, log) {
            Ok(worker) => Served {
                result: Ok(report),
                worker,
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
) -> Result<Option<Worker>, String> {
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
    Ok(Some(Worker {
        group,
        pipes,
        pending,
        startup: None,
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

/// Reads the first line and checks that it announces the protocol this runner speaks.
async fn announcement(
    io: &mut Attached,
    group: &mut ProcessGroup,
    pending: &mut Vec<u8>,
    log: &AdapterLog,
) -> Result<(), String> {
    let line = match next_line(io, pending, log).await {
        Ok(line) => line,
        Err(LineEnd::TooLong) => return Err(too_long()),
        Err(LineEnd::Closed) => {
            return Err(format!("it {} without announcing", closed(group).await));
        }
    };
    let value: Option<Value> = serde_json::from_slice(&line).ok();
    match value.as_ref().and_then(|value| value.get("persistent")) {
        Some(version) if *version == json!(PROTOCOL) => Ok(()),
        Some(version) => Err(format!(
            "it announced persistent protocol {version}; this runner speaks {PROTOCOL}"
        )),
        None => Err(format!(
            "its first line is not an announcement: {}",
            shown(&line)
        )),
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
    let _ = io.stdin.write_all(&request_line(call)).await;
    match next_line(io, pending, log).await {
        Ok(line) => parse_report(&line),
        Err(LineEnd::TooLong) => Err(too_long()),
        Err(LineEnd::Closed) => Err(format!(
            "the persistent adapter (pid {pid}) {} before answering",
            closed(group).await
        )),
    }
}

/// One request: the call, as a JSON line.
fn request_line(call: &CallContext) -> Vec<u8> {
    let request = json!({
        "endpoint": call.endpoint,
        "tool": call.tool,
        "arguments": call.arguments,
        "protocol_version": call.protocol_version,
        "timeout_ms": u64::try_from(call.timeout.as_millis()).unwrap_or(u64::MAX),
        "annotations": call.annotations,
    });
    let mut line = request.to_string().into_bytes();
    line.push(b'\n');
    line
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

/// Idle persistent processes, shared by every runtime that drives the adapter.
#[derive(Default)]
pub(super) struct Pool(Mutex<Vec<Worker>>);

impl Pool {
    /// An idle worker that can serve, with notes on the ones that could not (now dropped).
    pub(super) fn take(&self) -> (Option<Worker>, Vec<String>) {
        let mut notes = Vec::new();
        loop {
            let Some(worker) = self.lock().pop() else {
                return (None, notes);
            };
            match worker.check_idle() {
                Ok(worker) => return (Some(worker), notes),
                Err(note) => notes.push(note),
            }
        }
    }

    /// Puts a worker back for the next call.
    pub(super) fn put(&self, worker: Worker) {
        self.lock().push(worker);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Worker>> {
        // A worker list is still valid after a panic elsewhere.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

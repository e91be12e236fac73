//! Persistent processes that serve several calls at once: the announcement
//! `{"persistent": 1, "concurrent": N}` (N from 2 to 64). Every request line carries an
//! `"id"` (unique per process, counting from 1), every answer the same `"id"` beside the
//! observation keys; answers come in any order.
//!
//! One std thread per process, with a small runtime of its own, owns the pipes: it writes the
//! request lines, reads stdout and hands each answer to the call that waits for its id (a
//! oneshot channel, which any runtime can await), and appends stderr to the log of every call
//! in flight at that moment. The calls come from many runtimes (the runner gives every case its
//! own), so no call's runtime holds a pipe of a process that outlives it.
//!
//! The rules (docs/adapters.md, "Serving calls at once"): a call dropped before its answer (a
//! hang) retires the process, which is killed once its last call in flight ended; stdout closing
//! fails every call in flight; a line whose id cannot be matched (none, not JSON, never sent,
//! answered before) fails every call in flight and the process is killed; an answer that is not
//! an observation fails its own call and retires the process.

use super::group::{ExitWatch, ProcessGroup};
use super::oneshot::OUTPUT_GRACE;
use super::output::{CHUNK, STDOUT_CAP, is_blank, read_available, report_of, shown, take_line};
use super::pipes::{Attached, Pipes};
use super::request::request_line;
use crate::adapter::{AdapterLog, CallContext, LOG_CAP, NewProcess};
use crate::observation::AdapterReport;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::sync::{mpsc, oneshot};

/// What a call gets back: its report, or why there is none.
type Answer = Result<AdapterReport, String>;

/// A process that serves up to `capacity` calls at once. Dropping it kills its process group
/// and stops its I/O thread; every [`Lease`] keeps it alive.
pub(super) struct Shared {
    dispatch: Arc<Dispatch>,
    /// Request lines, for the I/O thread to write (at most `capacity` are ever in flight).
    requests: mpsc::UnboundedSender<Vec<u8>>,
    /// Dropped with the worker: tells the I/O thread to stop.
    _stop: oneshot::Sender<()>,
}

/// A slot in a [`Shared`] process, for one call. Dropping it gives the slot back; dropped
/// while its call waits for an answer (the deadline passed), it retires the process.
pub(super) struct Lease {
    shared: Arc<Shared>,
    /// The request id, once the request was sent.
    id: Option<u64>,
}

/// What the I/O thread and the calls share.
struct Dispatch {
    pid: u32,
    capacity: usize,
    /// When it started and how long it took to announce.
    birth: NewProcess,
    state: Mutex<State>,
}

struct State {
    /// `None` once it was killed (dropping the group sends SIGKILL to it).
    group: Option<ProcessGroup>,
    /// Slots taken: calls in flight and calls prepared on it that have not sent yet.
    leases: usize,
    next_id: u64,
    /// The calls in flight, by request id.
    waiting: BTreeMap<u64, Waiter>,
    /// Ids of calls that were dropped before their answer: a late answer for one is ignored.
    abandoned: BTreeSet<u64>,
    /// Why it takes no new calls (its calls in flight may still answer).
    retired: Option<String>,
    /// Why it serves no call at all any more; set with `retired`.
    ended: Option<String>,
    /// Stderr written while no call was in flight (its start-up included): for the next call.
    unclaimed: AdapterLog,
    /// How it ended while it served no call: a note for the next call of the pool.
    idle_note: Option<String>,
    /// How many answers it gave.
    answered: u64,
}

struct Waiter {
    answer: oneshot::Sender<Answer>,
    log: AdapterLog,
    /// Whether its log has the note that stderr is shared.
    noted: bool,
}

impl Shared {
    /// Takes over a process that announced `capacity` (> 1): its group, its pipes, the stdout
    /// read past the announcement and the stderr it wrote meanwhile.
    pub(super) fn start(
        group: ProcessGroup,
        pipes: Pipes,
        pending: Vec<u8>,
        startup: AdapterLog,
        capacity: usize,
        birth: NewProcess,
    ) -> Result<Shared, String> {
        let pid = group.pid();
        let exit = group.exit_watch();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start a runtime for its pipes: {e}"))?;
        let io = {
            let _entered = runtime.enter();
            pipes
                .attach()
                .map_err(|e| format!("cannot read its output: {e}"))?
        };
        let dispatch = Arc::new(Dispatch {
            pid,
            capacity,
            birth,
            state: Mutex::new(State {
                group: Some(group),
                leases: 0,
                next_id: 1,
                waiting: BTreeMap::new(),
                abandoned: BTreeSet::new(),
                retired: None,
                ended: None,
                unclaimed: startup,
                idle_note: None,
                answered: 0,
            }),
        });
        let (requests, requests_rx) = mpsc::unbounded_channel();
        let (stop, stop_rx) = oneshot::channel();
        let pumped = Arc::clone(&dispatch);
        std::thread::Builder::new()
            .name(format!("adapter-io-{pid}"))
            .spawn(move || {
                runtime.block_on(async {
                    let pump = Pump {
                        dispatch: &pumped,
                        pending,
                        exit,
                    };
                    tokio::select! {
                        _ = stop_rx => {}
                        () = pump.run(io, requests_rx) => {}
                    }
                });
                pumped.end("stopped serving (its reader ended)");
            })
            .map_err(|e| format!("cannot start a thread for its pipes: {e}"))?;
        Ok(Shared {
            dispatch,
            requests,
            _stop: stop,
        })
    }

    /// A slot for one call, if it takes calls and has one free.
    pub(super) fn lease(self: &Arc<Self>) -> Option<Lease> {
        let mut state = self.dispatch.lock();
        if state.retired.is_some() || state.leases >= self.dispatch.capacity {
            return None;
        }
        state.leases += 1;
        Some(Lease {
            shared: Arc::clone(self),
            id: None,
        })
    }

    /// A slot for the next call of a client that lives in this process, which may take no new
    /// calls since a call got no answer: the client is here, stuck or not. `Err` says why there
    /// is none (the process ended, or every slot is taken).
    pub(super) fn lease_kept(self: &Arc<Self>) -> Result<Lease, String> {
        let mut state = self.dispatch.lock();
        if let Some(why) = &state.ended {
            return Err(format!("its process {why}"));
        }
        if state.leases >= self.dispatch.capacity {
            return Err("every slot of its process is taken".into());
        }
        state.leases += 1;
        Ok(Lease {
            shared: Arc::clone(self),
            id: None,
        })
    }

    /// Why it takes no new calls, if it does not.
    pub(super) fn retired(&self) -> Option<String> {
        self.dispatch.lock().retired.clone()
    }

    /// Whether the pool keeps it: not when it takes no new calls. A process that ended while
    /// it served no call leaves a note for the call that now starts another.
    pub(super) fn usable(&self, notes: &mut Vec<String>) -> bool {
        let mut state = self.dispatch.lock();
        notes.extend(state.idle_note.take());
        state.retired.is_none()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let mut state = self.dispatch.lock();
        state.ended.get_or_insert_with(|| "was stopped".into());
        drop(state.group.take());
    }
}

impl Lease {
    /// The process the slot is in.
    pub(super) fn process(&self) -> Arc<Shared> {
        Arc::clone(&self.shared)
    }

    /// Why its process serves no more calls, once it ended (exited, or was stopped).
    pub(super) fn ended(&self) -> Option<String> {
        self.shared.dispatch.lock().ended.clone()
    }

    /// Its process, when it has given no answer yet.
    pub(super) fn new_process(&self) -> Option<NewProcess> {
        let dispatch = &self.shared.dispatch;
        (dispatch.lock().answered == 0).then_some(dispatch.birth)
    }

    /// Sends `call` with a request id of its own and waits for the answer with that id.
    pub(super) async fn serve(&mut self, call: &CallContext, log: &AdapterLog) -> Answer {
        let dispatch = &self.shared.dispatch;
        let (answer, answered) = oneshot::channel();
        let id = {
            let mut state = dispatch.lock();
            if let Some(why) = &state.ended {
                return Err(format!(
                    "the persistent adapter (pid {}) {why}",
                    dispatch.pid
                ));
            }
            let id = state.next_id;
            state.next_id = id.saturating_add(1);
            if let Some(text) = std::mem::take(&mut state.unclaimed).text() {
                log.append(text.as_bytes());
            }
            let waiter = Waiter {
                answer,
                log: log.clone(),
                noted: false,
            };
            state.waiting.insert(id, waiter);
            id
        };
        self.id = Some(id);
        // An error: the I/O thread is gone, and it failed every call in flight when it went.
        let _ = self.shared.requests.send(request_line(call, Some(id)));
        answered.await.unwrap_or_else(|_| {
            Err(format!(
                "the persistent adapter (pid {}) stopped serving before answering request {id}",
                dispatch.pid
            ))
        })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let dispatch = &self.shared.dispatch;
        let mut state = dispatch.lock();
        if let Some(id) = self.id {
            if state.waiting.remove(&id).is_some() {
                // The call's deadline passed: the process is stuck on it, or slow; it gets no
                // new calls, and its other calls keep their chance to answer.
                state.abandoned.insert(id);
                state.retired.get_or_insert_with(|| {
                    format!("got no answer for request {id} by its call's deadline")
                });
            }
        }
        state.leases = state.leases.saturating_sub(1);
        if state.leases == 0 {
            if let Some(why) = state.retired.clone() {
                state.ended.get_or_insert(why);
                drop(state.group.take());
            }
        }
    }
}

impl Dispatch {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is plain data: still valid after a panic elsewhere.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Stderr: into the log of every call in flight, else kept for the next call.
    fn stderr(&self, bytes: &[u8]) {
        let mut state = self.lock();
        if state.waiting.is_empty() {
            state.unclaimed.append(bytes);
            return;
        }
        let pid = self.pid;
        for (id, waiter) in &mut state.waiting {
            waiter.log.append(bytes);
            if !waiter.noted {
                waiter.noted = true;
                waiter.log.note(format!(
                    "the persistent adapter (pid {pid}) serves calls at once and they share its \
                     stderr: this log has what it wrote while this call (request {id}) was in \
                     flight, other calls' lines included"
                ));
            }
        }
    }

    /// One stdout line: an answer for the call that waits for its id.
    fn line(&self, line: &[u8]) {
        let Ok(mut value) = serde_json::from_slice::<Value>(line) else {
            return self.distrust(&format!("printed a line that is not JSON: {}", shown(line)));
        };
        let Some(id) = value.as_object_mut().and_then(|object| object.remove("id")) else {
            return self.distrust(&format!(
                "printed an answer without an \"id\": {}",
                shown(line)
            ));
        };
        let Some(id) = id.as_u64() else {
            return self.distrust(&format!(
                "printed an answer whose \"id\" is {id}, not a request's: {}",
                shown(line)
            ));
        };
        let mut state = self.lock();
        if let Some(waiter) = state.waiting.remove(&id) {
            state.answered = state.answered.saturating_add(1);
            let report = report_of(value, line);
            if report.is_err() {
                state.retired.get_or_insert_with(|| {
                    format!("answered request {id} with a line that is not an observation")
                });
            }
            let _ = waiter.answer.send(report);
            return;
        }
        if state.abandoned.remove(&id) {
            return; // the late answer of a call that hung: the process is retired already
        }
        let what = if (1..state.next_id).contains(&id) {
            format!("answered request {id} a second time: {}", shown(line))
        } else {
            format!(
                "answered request {id}, which it was never sent: {}",
                shown(line)
            )
        };
        drop(state);
        self.distrust(&what);
    }

    /// A line that cannot be matched to its call: any answer of the process may have gone to
    /// the wrong call, so every call in flight fails and the process is killed.
    fn distrust(&self, what: &str) {
        let (pid, capacity) = (self.pid, self.capacity);
        let mut state = self.lock();
        let ids: Vec<String> = state.waiting.keys().map(u64::to_string).collect();
        for (id, waiter) in std::mem::take(&mut state.waiting) {
            let _ = waiter.answer.send(Err(format!(
                "the persistent adapter (pid {pid}) {what}; it serves calls at once \
                 (\"concurrent\": {capacity}), so every answer must carry the \"id\" of its \
                 request. Its answers cannot be matched to their calls any more: the calls in \
                 flight (requests {}; this one is {id}) fail, and it was stopped",
                ids.join(", ")
            )));
        }
        if ids.is_empty() && state.leases == 0 {
            state.idle_note = Some(format!(
                "the idle persistent adapter (pid {pid}) {what}; stopped it and started another"
            ));
        }
        let why = format!("was stopped: it {what}");
        state.retired.get_or_insert_with(|| why.clone());
        state.ended.get_or_insert(why);
        drop(state.group.take());
    }

    /// It serves no more calls (its stdout closed, say): every call in flight fails.
    fn end(&self, how: &str) {
        let pid = self.pid;
        let mut state = self.lock();
        let in_flight = state.waiting.len();
        for (id, waiter) in std::mem::take(&mut state.waiting) {
            let _ = waiter.answer.send(Err(waiter.log.with_cause(format!(
                "the persistent adapter (pid {pid}) {how} before answering request {id} \
                 ({in_flight} call(s) in flight)"
            ))));
        }
        if in_flight == 0 && state.leases == 0 && state.ended.is_none() {
            state.idle_note = Some(format!(
                "the idle persistent adapter (pid {pid}) {how}; started another"
            ));
        }
        state.retired.get_or_insert_with(|| how.to_owned());
        state.ended.get_or_insert_with(|| how.to_owned());
        drop(state.group.take());
    }
}

/// The I/O thread's work for one process.
struct Pump<'a> {
    dispatch: &'a Dispatch,
    /// Stdout read past the last line.
    pending: Vec<u8>,
    exit: ExitWatch,
}

impl Pump<'_> {
    /// Writes the request lines and reads both outputs until stdout and stderr are closed.
    async fn run(mut self, io: Attached, mut requests: mpsc::UnboundedReceiver<Vec<u8>>) {
        let Attached {
            mut stdin,
            mut stdout,
            mut stderr,
        } = io;
        let write = async move {
            while let Some(line) = requests.recv().await {
                // An error is a closed stdin (EPIPE): the process is gone, and the reader
                // learns how from stdout.
                let _ = stdin.write_all(&line).await;
            }
        };
        let read = async {
            let (mut out_chunk, mut err_chunk) = (vec![0; CHUNK], vec![0; CHUNK]);
            let (mut stdout_open, mut stderr_open) = (true, true);
            while stdout_open || stderr_open {
                tokio::select! {
                    read = stdout.read(&mut out_chunk), if stdout_open => match read {
                        Ok(n) if n > 0 => {
                            // What it wrote on stderr before this answer goes to its call.
                            drain(&stderr, self.dispatch);
                            stdout_open = self.stdout(&out_chunk[..n]);
                        }
                        _ => {
                            drain(&stderr, self.dispatch);
                            self.closed().await;
                            stdout_open = false;
                        }
                    },
                    read = stderr.read(&mut err_chunk), if stderr_open => match read {
                        Ok(n) if n > 0 => self.dispatch.stderr(&err_chunk[..n]),
                        _ => stderr_open = false,
                    },
                }
            }
        };
        tokio::select! {
            () = write => {}
            () = read => {}
        }
    }

    /// Stdout bytes: the complete lines are answers. `false` once it stops reading stdout (a
    /// line longer than [`STDOUT_CAP`]).
    fn stdout(&mut self, bytes: &[u8]) -> bool {
        self.pending.extend_from_slice(bytes);
        while let Some(line) = take_line(&mut self.pending) {
            self.dispatch.line(&line);
        }
        if self.pending.len() <= STDOUT_CAP {
            return true;
        }
        self.dispatch.distrust(&format!(
            "printed more than {} KiB without a newline: {}",
            STDOUT_CAP / 1024,
            shown(&self.pending)
        ));
        false
    }

    /// Stdout closed: a last line without a newline counts, then every call still in flight
    /// fails, saying how the process ended if it does within [`OUTPUT_GRACE`].
    async fn closed(&mut self) {
        let last = std::mem::take(&mut self.pending);
        if !is_blank(&last) {
            self.dispatch.line(&last);
        }
        let how = match tokio::time::timeout(OUTPUT_GRACE, self.exit.wait()).await {
            Ok(exit) => exit.to_string(),
            Err(_) => "closed its stdout".to_owned(),
        };
        self.dispatch.end(&how);
    }
}

/// Hands on what is already on stderr (read directly: the runtime may not have seen it yet),
/// so that it reaches the calls in flight before an answer ends one of them.
fn drain(stderr: &pipe::Receiver, dispatch: &Dispatch) {
    let mut early = Vec::new();
    read_available(stderr, &mut early, LOG_CAP);
    if !early.is_empty() {
        dispatch.stderr(&early);
    }
}

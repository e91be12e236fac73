//! One client per case (docs/adapters.md, "One client per case"): the calls of a case run on one
//! client object, opened at the case's first call and closed after its last, as an application
//! keeps the client it made after a fault.
//!
//! Each client is served by [`serve`] on a thread of its own, with a current-thread runtime of
//! its own, in one task that opens the client and makes the calls one after another as they come
//! ([`Clients`] sends each call to the thread of the client its request names). So the SDK's
//! background work (a session's worker, its GET stream) goes on between the calls as it does in
//! an application, and whatever the SDK leaves running when the client is closed ends with the
//! runtime.
//!
//! - An error a call raises is that call's observation; the client stays, and the next call goes
//!   through it whatever state the fault left it in (fails, hangs, recovers). Nothing here opens
//!   a client again on its own.
//! - An open that fails (connect, handshake) is the call's observation; nothing is kept, and the
//!   next call opens a client again, as an application that never got one tries again.
//! - After the last call the client is closed, for at most [`TEARDOWN`], before that call's
//!   answer goes out: what closing sends (a session's DELETE) is in the call's record.
//! - A client whose next call does not come within [`NEXT_CALL_WAIT`] is closed (the runner sends
//!   a case's calls one after another; this bounds a case the runner gave up on).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::mpsc::error::SendError;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::serve::Answer;
use crate::{Call, Observation, Row, note};

/// How long a client waits for its case's next call before it closes itself.
const NEXT_CALL_WAIT: Duration = Duration::from_secs(120);
/// How long a client's own teardown (it DELETEs a 2025 session) may take once the last call is
/// observed; past that it is abandoned.
pub(crate) const TEARDOWN: Duration = Duration::from_secs(2);
/// The most clients one process keeps between calls: the runner takes each back at its case's
/// next call, so this bounds only clients whose case the runner gave up on.
const MAX_CLIENTS: usize = 1024;

/// One call for a client, and where its observation goes.
pub(crate) struct Job {
    pub(crate) call: Call,
    pub(crate) answer: Answer,
    /// Close the client after this call (its case's last, or a call with a client of its own).
    pub(crate) closes: bool,
}

/// Serves one client's calls as they come from `jobs`: opens it for the first (and again after
/// an open that failed), closes it after the one that `closes`, or when no next call comes.
pub(crate) async fn serve<R: Row>(row: &R, mut jobs: UnboundedReceiver<Job>) {
    let mut client: Option<R::Client> = None;
    let mut wait = None;
    while let Some(Job {
        call,
        answer,
        closes,
    }) = next(&mut jobs, wait).await
    {
        crate::serving_request(answer.id());
        wait = Some(NEXT_CALL_WAIT);
        let observation = match client.as_mut() {
            Some(open) => one(row, open, &call).await,
            None => match row.open(&call).await {
                Ok(mut opened) => {
                    let observation = one(row, &mut opened, &call).await;
                    client = Some(opened);
                    observation
                }
                Err(error) => {
                    if !closes {
                        note!("the client did not open: the next call opens one again");
                    }
                    row.error(error, &call)
                }
            },
        };
        if closes {
            if let Some(open) = client.take() {
                close(row, open).await;
            }
            answer.send(&observation);
            return;
        }
        answer.send(&observation);
    }
    if let Some(open) = client.take() {
        close(row, open).await;
    }
}

/// The next call; `None` when no more come (stdin closed, the client was forgotten) or when
/// `wait` passes first.
async fn next(jobs: &mut UnboundedReceiver<Job>, wait: Option<Duration>) -> Option<Job> {
    let Some(wait) = wait else {
        return jobs.recv().await;
    };
    if let Ok(job) = tokio::time::timeout(wait, jobs.recv()).await {
        job
    } else {
        note!("no next call within {wait:?}: the client is closed");
        jobs.close();
        None
    }
}

/// One call on the open client; an error it raises is the application's to catch.
async fn one<R: Row>(row: &R, client: &mut R::Client, call: &Call) -> Observation {
    match row.call(client, call).await {
        Ok(observation) => observation,
        Err(error) => row.error(error, call),
    }
}

/// The client's own teardown, for a bounded time: the observation stands whatever it does, and
/// what it did goes to stderr.
async fn close<R: Row>(row: &R, client: R::Client) {
    match tokio::time::timeout(TEARDOWN, row.close(client)).await {
        Ok(Ok(how)) => note!("close: {how}"),
        Ok(Err(error)) => note!("close failed: {error}"),
        Err(_) => note!("close took longer than {TEARDOWN:?}; abandoned"),
    }
}

/// The clients of a persistent process: the thread of each client kept between its calls, by
/// the `client` id its requests carry.
pub(crate) struct Clients<R: Row> {
    row: Arc<R>,
    kept: BTreeMap<u64, UnboundedSender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

impl<R: Row> Clients<R> {
    pub(crate) fn new(row: Arc<R>) -> Self {
        Self {
            row,
            kept: BTreeMap::new(),
            threads: Vec::new(),
        }
    }

    /// Sends `job` to the client its call names (a new one for its first call, or for a call of
    /// a client this process does not hold), and keeps that client for its next call unless
    /// this one closes it.
    pub(crate) fn submit(&mut self, job: Job) {
        let id = job.call.client;
        let closes = job.closes;
        let jobs = match id.and_then(|id| self.kept.remove(&id)) {
            Some(jobs) => match jobs.send(job) {
                Ok(()) => jobs,
                Err(SendError(job)) => {
                    note!(
                        "the client of this case's calls before is gone (closed after waiting \
                         for its next call, or its thread ended): this call opens a new one"
                    );
                    self.start(job)
                }
            },
            None => self.start(job),
        };
        if let (Some(id), false) = (id, closes) {
            if self.kept.len() >= MAX_CLIENTS {
                // Client ids grow: the first is the oldest. Its thread closes it.
                self.kept.pop_first();
            }
            self.kept.insert(id, jobs);
        }
    }

    /// A new client, on a thread of its own, for `job` and the calls after it.
    fn start(&mut self, job: Job) -> UnboundedSender<Job> {
        let (jobs, waiting) = unbounded_channel();
        // The receiver is alive: it is in the thread's closure below.
        let _ = jobs.send(job);
        let row = Arc::clone(&self.row);
        let spawned = std::thread::Builder::new()
            .name("client".into())
            .spawn(move || client_thread(&*row, waiting));
        match spawned {
            Ok(thread) => self.threads.push(thread),
            // The job went with the closure: its answer says the call failed.
            Err(error) => note!("adapter error: cannot start a thread for a client: {error}"),
        }
        jobs
    }

    /// Closes client `id` (kept for a next call that will not come), if this process holds it.
    pub(crate) fn forget(&mut self, id: Option<u64>) {
        if let Some(id) = id {
            self.kept.remove(&id);
        }
    }

    /// Lets go of the threads that ended.
    pub(crate) fn reap(&mut self) {
        self.threads.retain(|thread| !thread.is_finished());
    }

    /// No more calls: every kept client is closed, and the calls in flight finish.
    pub(crate) fn close_all(mut self) {
        self.kept.clear();
        for thread in self.threads.drain(..) {
            // A thread that panicked has answered its call already (`Answer`'s drop).
            let _ = thread.join();
        }
    }
}

/// A client's thread: its runtime, its calls, then the runtime goes with whatever the SDK left
/// running on it.
fn client_thread<R: Row>(row: &R, jobs: UnboundedReceiver<Job>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            // The jobs go with the receiver: their answers say the calls failed.
            note!("adapter error: cannot start a runtime for a client: {error}");
            return;
        }
    };
    runtime.block_on(serve(row, jobs));
    runtime.shutdown_background();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Instant;

    /// The answer lines of every test (each test uses request ids of its own).
    static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

    fn keep_line(line: &str) {
        LINES.lock().unwrap().push(line.to_owned());
    }

    /// The answer to request `id`, once it came (within 10 s).
    fn answer_to(id: u64) -> serde_json::Value {
        let start = Instant::now();
        loop {
            let found = LINES.lock().unwrap().iter().find_map(|line| {
                let value: serde_json::Value = serde_json::from_str(line).unwrap();
                (value["id"] == id).then_some(value)
            });
            if let Some(value) = found {
                return value;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no answer to {id}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// A row whose clients number themselves and count their calls. Tool `refused` fails the
    /// open, tool `fault` fails the call (the client stays).
    #[derive(Default)]
    struct Counting {
        opened: AtomicU32,
        closed: Mutex<Vec<u32>>,
    }

    struct Client {
        number: u32,
        calls: u32,
    }

    impl Row for Counting {
        type Client = Client;
        type Error = String;

        async fn open(&self, call: &Call) -> Result<Client, String> {
            if call.tool == "refused" {
                return Err("connect refused".into());
            }
            let number = self.opened.fetch_add(1, Ordering::SeqCst) + 1;
            Ok(Client { number, calls: 0 })
        }

        async fn call(&self, client: &mut Client, call: &Call) -> Result<Observation, String> {
            client.calls += 1;
            let (number, calls) = (client.number, client.calls);
            if call.tool == "fault" {
                return Err(format!("fault on client {number} at its call {calls}"));
            }
            let said = format!("client {number}, its call {calls}");
            Ok(Observation::new("TOOL_SUCCESS", said))
        }

        fn error(&self, error: String, _call: &Call) -> Observation {
            Observation::new("UNCLASSIFIED_ERROR", error)
        }

        async fn close(&self, client: Client) -> Result<String, String> {
            self.closed.lock().unwrap().push(client.number);
            Ok(format!("closed client {}", client.number))
        }
    }

    fn call(tool: &str, client: Option<u64>, index: u64, calls: u64) -> Call {
        Call {
            transport: crate::Transport::Http {
                endpoint: "http://127.0.0.1:1/mcp".into(),
            },
            tool: tool.into(),
            arguments: serde_json::Map::new(),
            protocol_version: "2025-11-25".into(),
            timeout: Duration::from_millis(500),
            annotations: serde_json::Map::new(),
            list_tools: false,
            task: None,
            auth: None,
            client,
            index,
            calls,
        }
    }

    /// Submits `call` as request `id`, as `serve_line` does.
    fn submit(clients: &mut Clients<Counting>, id: u64, call: Call) {
        let closes = call.client.is_none() || call.is_last();
        let answer = Answer::to(Some(id), keep_line);
        clients.submit(Job {
            call,
            answer,
            closes,
        });
    }

    fn detail(answer: &serde_json::Value) -> &str {
        answer["detail"].as_str().unwrap()
    }

    #[test]
    fn the_calls_of_a_case_run_on_one_client_after_a_fault_too() {
        let row = Arc::new(Counting::default());
        let mut clients = Clients::new(Arc::clone(&row));
        submit(&mut clients, 101, call("ok", Some(1), 0, 3));
        assert_eq!(detail(&answer_to(101)), "client 1, its call 1");
        submit(&mut clients, 102, call("fault", Some(1), 1, 3));
        let fault = answer_to(102);
        assert_eq!(fault["outcome"], "UNCLASSIFIED_ERROR");
        assert_eq!(detail(&fault), "fault on client 1 at its call 2");
        assert!(row.closed.lock().unwrap().is_empty(), "kept after a fault");
        submit(&mut clients, 103, call("ok", Some(1), 2, 3));
        assert_eq!(detail(&answer_to(103)), "client 1, its call 3");
        // Closed after the last call, before its answer went out.
        assert_eq!(*row.closed.lock().unwrap(), [1]);
        assert_eq!(row.opened.load(Ordering::SeqCst), 1);
        clients.close_all();
    }

    #[test]
    fn a_failed_open_is_the_calls_observation_and_the_next_call_opens_again() {
        let row = Arc::new(Counting::default());
        let mut clients = Clients::new(Arc::clone(&row));
        submit(&mut clients, 201, call("refused", Some(2), 0, 2));
        let refused = answer_to(201);
        assert_eq!(detail(&refused), "connect refused");
        submit(&mut clients, 202, call("ok", Some(2), 1, 2));
        assert_eq!(detail(&answer_to(202)), "client 1, its call 1");
        assert_eq!(*row.closed.lock().unwrap(), [1]);
        clients.close_all();
    }

    #[test]
    fn cases_at_once_have_clients_of_their_own_and_a_call_without_one_gets_its_own() {
        let row = Arc::new(Counting::default());
        let mut clients = Clients::new(Arc::clone(&row));
        submit(&mut clients, 301, call("ok", Some(3), 0, 2));
        submit(&mut clients, 302, call("ok", Some(4), 0, 2));
        let first = [
            detail(&answer_to(301)).to_owned(),
            detail(&answer_to(302)).to_owned(),
        ];
        submit(&mut clients, 303, call("ok", Some(3), 1, 2));
        submit(&mut clients, 304, call("ok", Some(4), 1, 2));
        submit(&mut clients, 305, call("ok", None, 0, 1));
        // Each case's second call is its client's second.
        for (one, two) in [(301, 303), (302, 304)] {
            let number = detail(&answer_to(one))
                .split(',')
                .next()
                .unwrap()
                .to_owned();
            assert_eq!(
                detail(&answer_to(two)),
                format!("{number}, its call 2"),
                "{first:?}"
            );
        }
        assert!(detail(&answer_to(305)).ends_with("its call 1"));
        clients.close_all();
        assert_eq!(row.opened.load(Ordering::SeqCst), 3);
        let mut closed = row.closed.lock().unwrap().clone();
        closed.sort_unstable();
        assert_eq!(closed, [1, 2, 3]);
    }

    #[test]
    fn a_client_whose_case_ends_early_is_closed() {
        let row = Arc::new(Counting::default());
        let mut clients = Clients::new(Arc::clone(&row));
        submit(&mut clients, 401, call("ok", Some(5), 0, 2));
        answer_to(401);
        // An unsupported call ends the case: `serve_line` forgets its client.
        clients.forget(Some(5));
        clients.close_all();
        assert_eq!(*row.closed.lock().unwrap(), [1]);
    }
}

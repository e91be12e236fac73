//! Runs one case against one adapter: a fresh wire server, each call under a deadline, a
//! verdict per call, and the record of what the server saw.

mod clock;
#[cfg(unix)]
mod reap;

use crate::adapter::{AdapterLog, CallContext, ClientRef, Driver, Observes};
use crate::case::Transport;
use crate::case::{Case, CaseSource, Expect, Grade, LoadError};
use crate::checks;
use crate::coarse;
use crate::era::Era;
use crate::observation::AdapterReport;
use crate::record::{CallRecord, CaseRecord};
use crate::rules::{Facts, Rules};
use crate::stdio::StdioCommand;
use crate::verdict::{ServerCounts, Verdict, coarse_mismatches, mismatches};
use crate::wire::WireServer;
use serde_json::Value;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// How cases are run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// How long past a call's own timeout the runner waits before calling it a hang.
    pub deadline_margin: Duration,
    /// Replaces every case's preferred protocol version.
    pub protocol_version: Option<String>,
    /// The client timeout of a call whose case names none (`None`: 5 s, the case format's
    /// default); shorter keeps runs of clients that wait for their timeout fast.
    pub default_timeout: Option<Duration>,
    /// How each case's standing is decided: strictness and the baseline.
    pub rules: Rules,
    /// The program that serves stdio cases; `None`: [`crate::stdio::session::program`].
    pub stdio_server: Option<std::path::PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            deadline_margin: Duration::from_millis(1_000),
            protocol_version: None,
            default_timeout: None,
            rules: Rules::default(),
            stdio_server: None,
        }
    }
}

/// Loads `source` and runs it; a file that does not load gives a failing record.
pub async fn run_source<D: Driver>(
    adapter: &D,
    source: &CaseSource,
    options: &RunOptions,
) -> CaseRecord {
    run_loaded(adapter, &source.id, &source.load(), options).await
}

/// Runs case `id` as it was loaded (or records why it did not load): for a caller that loaded
/// it already (the engine's pool, to order the cases), so that a case file is parsed once.
pub async fn run_loaded<D: Driver>(
    adapter: &D,
    id: &str,
    loaded: &Result<Case, LoadError>,
    options: &RunOptions,
) -> CaseRecord {
    match loaded {
        Ok(case) => run_case(adapter, case, options).await,
        Err(error) => CaseRecord::broken(id, LoadError::to_string(error)),
    }
}

/// Runs every call of `case` against a fresh wire server.
pub async fn run_case<D: Driver>(adapter: &D, case: &Case, options: &RunOptions) -> CaseRecord {
    let started = Instant::now();
    let observes = adapter.observes();
    let served;
    let case = match observes {
        Observes::Outcomes | Observes::ModelTold | Observes::Downstream(_) => case,
        // A conformance client calls `add_numbers`: the case as it is served to one.
        Observes::ExitStatus => {
            served = Case {
                file: coarse::served(&case.file),
                ..case.clone()
            };
            &served
        }
    };
    if case.file.transport == Transport::Stdio && !adapter.speaks_stdio() {
        return unsupported(case, options, started, HTTP_ONLY);
    }
    if case.file.auth.is_some() && !adapter.takes_credentials() {
        return unsupported(case, options, started, NO_CREDENTIALS);
    }
    let file = Arc::new(case.file.clone());
    let server = match WireServer::start(Arc::clone(&file)) {
        Ok(server) => server,
        Err(e) => return CaseRecord::broken(&case.id, format!("wire server did not start: {e}")),
    };
    let stdio = match stdio_command(case, &server, options) {
        Ok(stdio) => stdio,
        Err(e) => return CaseRecord::broken(&case.id, e),
    };
    let mut calls = Vec::with_capacity(file.call.len());
    // One client for every call of the case, as an application keeps its client.
    let client = ClientRef::first_of(file.call.len());
    for index in 0..file.call.len() {
        server.begin_call(index);
        let served = Served {
            server: &server,
            stdio: stdio.as_ref(),
        };
        let record = run_call(adapter, case, served, client.at(index), options, observes).await;
        let unsupported = record.verdict == Verdict::Unsupported;
        calls.push(record);
        if unsupported {
            break; // later calls build on this one
        }
    }
    if let Some(command) = &stdio {
        server.with_record(|exchanges| reap::reap(exchanges, command));
    }
    finished(case, options, started, calls, server.record())
}

/// The record of a case whose calls ran (or were declared unsupported): its verdict the worst
/// of theirs, its standing decided once.
fn finished(
    case: &Case,
    options: &RunOptions,
    started: Instant,
    calls: Vec<CallRecord>,
    exchanges: Vec<crate::wire::Exchange>,
) -> CaseRecord {
    let file = &case.file;
    let verdict = calls
        .iter()
        .map(|c| c.verdict)
        .max()
        .unwrap_or(Verdict::Pass);
    let standing = options.rules.standing_of(&Facts {
        id: &case.id,
        grade: file.grade,
        verdict,
        error: None,
        calls: &calls,
    });
    CaseRecord {
        id: case.id.clone(),
        summary: file.summary.clone(),
        grade: file.grade,
        verdict,
        error: None,
        calls,
        exchanges,
        duration: started.elapsed(),
        standing,
    }
}

/// What serves a case: its wire server and, for a stdio case, the stdio server's command line.
#[derive(Clone, Copy)]
struct Served<'s> {
    server: &'s WireServer,
    stdio: Option<&'s StdioCommand>,
}

async fn run_call<D: Driver>(
    adapter: &D,
    case: &Case,
    served: Served<'_>,
    client: ClientRef,
    options: &RunOptions,
    observes: Observes,
) -> CallRecord {
    let server = served.server;
    let index = client.call;
    let mut context = call_context(case, index, &server.url(), options)
        .with_client(client)
        .with_auth(server.credentials());
    if let Some(command) = served.stdio {
        context = context.with_stdio(command.argv().to_vec());
    }
    if observes == Observes::ModelTold {
        let facts = crate::model::ModelFacts::of_call(&case.file.call[index]);
        context.model_facts = Some(Arc::new(facts));
    }
    let timeout = context.timeout;
    let clock = clock::Clock {
        // All three from users.
        deadline: context
            .timeout
            .saturating_add(adapter.extra_wait())
            .saturating_add(options.deadline_margin),
        set_up: adapter.set_up_bound(),
        server,
        index,
    };
    let log = AdapterLog::new();
    let began_ms = elapsed_ms(server);
    let (ended, duration) = drive_call(adapter, context, &clock, &log).await;
    let span = checks::CallSpan {
        began_ms,
        ended_ms: elapsed_ms(server),
    };
    // Judged by the era the client spoke (cases/README.md, "The era a client speaks").
    let spoken = server.with_record(|exchanges| {
        crate::verdict::spoken(exchanges, index, &case.file.protocol_version)
    });
    let fell_back = Era::of(&case.file.protocol_version) == Some(Era::Stateless)
        && Era::of(&spoken) != Some(Era::Stateless);
    let expect = case.file.call[index].expectation(&spoken).clone();
    // The client gave up on the call: it said so, or it answered no sooner than its timeout (a
    // framework may report its timeout as something else).
    let (claimed, timed_out) = match &ended {
        CallEnd::Reported(AdapterReport::Observed(observation)) => (
            observation.attempts,
            observation.outcome == crate::outcome::Outcome::Timeout || duration >= timeout,
        ),
        _ => (None, false),
    };
    let landing = claimed.max(expect.tool_posts).unwrap_or(0);
    settle(server, case, index, landing, timed_out).await;
    let (counts, mut checks) = server.with_record(|exchanges| {
        let checks = match served.stdio {
            None => checks::check_call(&case.file, index, exchanges),
            Some(_) => checks::check_stdio_call(&case.file, index, exchanges, span),
        };
        (ServerCounts::of(exchanges, index), checks)
    });
    let (report, verdict, problems, coarse) = match ended {
        CallEnd::Hung(started) => (
            None,
            Verdict::Hang,
            vec![started.problem(clock.deadline)],
            false,
        ),
        CallEnd::Panicked(panic) => (
            None,
            Verdict::AdapterError,
            vec![format!("the adapter panicked: {panic}")],
            false,
        ),
        CallEnd::Failed(reason) => (None, Verdict::AdapterError, vec![reason], false),
        CallEnd::Reported(report) => verdict_of(&expect, report.redacted(), &counts, observes),
    };
    match observes {
        Observes::ModelTold => checks.extend(crate::model::told::checks(&expect, report.as_ref())),
        Observes::Downstream(_) => {
            checks.extend(crate::hop::checks(
                &case.file,
                index,
                &expect,
                report.as_ref(),
                &counts,
            ));
        }
        Observes::Outcomes | Observes::ExitStatus => {}
    }
    // A failed check (other than INFO) fails the call; its grade decides about the run.
    let verdict = match verdict {
        Verdict::Pass if checks.iter().any(|c| !c.passed && c.grade != Grade::Info) => {
            Verdict::Fail
        }
        verdict => verdict,
    };
    CallRecord {
        expect,
        spoken,
        fell_back,
        report,
        // Whatever the client wrote of a credential, the report names it only.
        adapter_log: log
            .text()
            .map(|text| crate::credential::redact(&text).into_owned()),
        verdict,
        problems,
        checks,
        tool_posts: counts.tool_posts,
        coarse,
        duration,
    }
}

/// Why a driver that does not speak stdio gets no stdio case.
const HTTP_ONLY: &str = "the adapter speaks HTTP only: a stdio case needs a client that starts \
                         its server as a process (adapter.toml `transports`, `run --transports`)";

/// Why a driver that takes no credentials gets no authorization case.
const NO_CREDENTIALS: &str = "the adapter takes no credentials: an authorization case hands \
                              the client a token store (docs/adapters.md, \"Credentials\")";

/// A case the driver cannot run: its first call `unsupported`, without a server.
fn unsupported(case: &Case, options: &RunOptions, started: Instant, why: &str) -> CaseRecord {
    let file = &case.file;
    let call = CallRecord {
        expect: file.call[0].expect.clone(),
        spoken: file.protocol_version.clone(),
        fell_back: false,
        report: Some(AdapterReport::Unsupported {
            unsupported: why.to_owned(),
        }),
        adapter_log: None,
        verdict: Verdict::Unsupported,
        problems: vec![why.to_owned()],
        checks: Vec::new(),
        tool_posts: 0,
        coarse: false,
        duration: Duration::ZERO,
    };
    finished(case, options, started, vec![call], Vec::new())
}

/// The stdio server's command line for a stdio case (its session file written), `None` for an
/// HTTP case.
fn stdio_command(
    case: &Case,
    server: &WireServer,
    options: &RunOptions,
) -> Result<Option<StdioCommand>, String> {
    if case.file.transport != Transport::Stdio {
        return Ok(None);
    }
    let program = match &options.stdio_server {
        Some(program) => program.clone(),
        None => crate::stdio::session::program()?,
    };
    StdioCommand::create(&program, server.addr())
        .map(Some)
        .map_err(|e| format!("the stdio server's session file could not be written: {e}"))
}

/// Milliseconds since `server` started, the clock of its record.
fn elapsed_ms(server: &WireServer) -> u64 {
    u64::try_from(server.started().elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// How long the runner waits after a call for `tools/call` requests still on their way to the
/// server's record: sent before the call ended, but not yet read by a server thread that a busy
/// machine has not scheduled. Only a call whose count falls short of what the adapter says it
/// sent, or of what the case expects, waits; the others are judged at once.
pub const SETTLE: Duration = Duration::from_millis(500);

/// Waits, up to [`SETTLE`], until the server has counted `landing` `tools/call` requests for
/// call `index`, and has seen the cancel or close a client sends after giving up on a request
/// ([`checks::awaits_client`]), or after giving up on the call by its own timeout (`timed_out`)
/// in a session ([`checks::cancel_may_follow`]).
async fn settle(server: &WireServer, case: &Case, index: usize, landing: u32, timed_out: bool) {
    let until = tokio::time::Instant::now() + SETTLE;
    let waiting = || {
        server.tool_posts(index) < landing
            || server.with_record(|exchanges| {
                checks::awaits_client(&case.file, index, exchanges)
                    || (timed_out && checks::cancel_may_follow(index, exchanges))
            })
    };
    while waiting() && tokio::time::Instant::now() < until {
        tokio::time::sleep(clock::RECORD_POLL).await;
    }
}

/// How driving one call ended.
enum CallEnd {
    Hung(clock::Hang),
    Panicked(String),
    Failed(String),
    Reported(AdapterReport),
}

/// Prepares the driver, then drives the call until it ends or its deadline passes; the
/// deadline drops the driver's future, which is how an adapter program gets killed. The
/// duration is the driven part only.
async fn drive_call<D: Driver>(
    adapter: &D,
    context: CallContext,
    clock: &clock::Clock<'_>,
    log: &AdapterLog,
) -> (CallEnd, Duration) {
    // Outside the deadline: starting an adapter process is not the call's time.
    let mut prepared = match CatchUnwind(Box::pin(adapter.prepare(&context))).await {
        Ok(prepared) => prepared,
        Err(panic) => return (CallEnd::Panicked(panic), Duration::ZERO),
    };
    let start_up = adapter.start_up(&mut prepared);
    let process = adapter.new_process(&prepared);
    let started = Instant::now();
    let driven = CatchUnwind(Box::pin(adapter.drive(prepared, context, log)));
    let ended = tokio::select! {
        // An answer that is ready when the deadline passes still counts.
        biased;
        driven = driven => match driven {
            Err(panic) => CallEnd::Panicked(panic),
            Ok(Err(reason)) => CallEnd::Failed(reason),
            Ok(Ok(report)) => CallEnd::Reported(report),
        },
        start = clock.passed(start_up, process) => CallEnd::Hung(start),
    };
    (ended, started.elapsed())
}

/// The verdict on a call the adapter answered: unsupported, or pass unless the observation
/// misses the expectation (the problems say how); and whether the judgement was coarse (the
/// observation tells only success or error, [`Observes::ExitStatus`], and the expectation
/// needs more).
fn verdict_of(
    expect: &Expect,
    report: AdapterReport,
    counts: &ServerCounts,
    observes: Observes,
) -> (Option<AdapterReport>, Verdict, Vec<String>, bool) {
    let (problems, coarse) = match (&report, observes) {
        (AdapterReport::Unsupported { unsupported }, _) => {
            let why = vec![unsupported.clone()];
            return (Some(report), Verdict::Unsupported, why, false);
        }
        (AdapterReport::Observed(observation), Observes::Outcomes | Observes::ModelTold) => {
            (mismatches(expect, observation, counts), false)
        }
        (AdapterReport::Observed(observation), Observes::ExitStatus) => {
            coarse_mismatches(expect, observation, counts)
        }
        (AdapterReport::Observed(observation), Observes::Downstream(downstream)) => (
            crate::hop::mismatches(expect, observation, counts, downstream),
            false,
        ),
    };
    let verdict = if problems.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    (Some(report), verdict, problems, coarse)
}

/// What the adapter is told about call `index`: never the case id or the expectation.
pub fn call_context(
    case: &Case,
    index: usize,
    endpoint: &str,
    options: &RunOptions,
) -> CallContext {
    let call = &case.file.call[index];
    let arguments = call
        .arguments
        .as_deref()
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_else(|| Value::Object(Default::default()));
    let version = options
        .protocol_version
        .as_deref()
        .unwrap_or(&case.file.protocol_version);
    let timeout =
        call.timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(options.default_timeout.unwrap_or(Duration::from_millis(
                crate::case::model::DEFAULT_TIMEOUT_MS,
            )));
    let annotations = serde_json::to_value(&case.file.tool.annotations)
        .unwrap_or_else(|_| Value::Object(Default::default()));
    CallContext::new(endpoint, case.file.tool.name.clone(), arguments)
        .with_protocol_version(version)
        .with_timeout(timeout)
        .with_annotations(annotations)
        .with_list_tools(case.file.tool.output_schema.is_some())
        .with_task(call.task.clone())
}

/// Turns a panic inside the adapter's future into an error, so that a crashing in-process
/// adapter becomes an `adapter-error` verdict instead of taking the runner down.
/// The future is boxed so that the wrapper is `Unpin` and needs no unsafe pin projection.
struct CatchUnwind<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match std::panic::catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a non-text panic payload".to_owned()
    }
}

/// Runs case `id` as it was loaded (or records why it did not load) on a fresh current-thread
/// runtime: for a caller that loaded it already (libtest, to name the trial's kind), so that a
/// case file is read once.
pub fn run_loaded_blocking<D: Driver>(
    adapter: &D,
    id: &str,
    loaded: &Result<Case, LoadError>,
    options: &RunOptions,
) -> CaseRecord {
    let case = match loaded {
        Ok(case) => case,
        Err(error) => return CaseRecord::broken(id, LoadError::to_string(error)),
    };
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(run_case(adapter, case, options)),
        Err(e) => CaseRecord::broken(id, format!("cannot start a runtime: {e}")),
    }
}

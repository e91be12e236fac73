//! Runs one case against one adapter: a fresh wire server, each call under a deadline, a
//! verdict per call, and the record of what the server saw.

use crate::adapter::{AdapterLog, CallContext, Driver};
use crate::case::{Case, CaseSource, Expect, Grade, LoadError};
use crate::checks;
use crate::observation::AdapterReport;
use crate::record::{CallRecord, CaseRecord};
use crate::standing::{Rules, Standing};
use crate::verdict::{ServerCounts, Verdict, mismatches};
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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            deadline_margin: Duration::from_millis(1_000),
            protocol_version: None,
            default_timeout: None,
            rules: Rules::default(),
        }
    }
}

/// Loads `source` and runs it; a file that does not load gives a failing record.
pub async fn run_source<D: Driver>(
    adapter: &D,
    source: &CaseSource,
    options: &RunOptions,
) -> CaseRecord {
    match source.load() {
        Ok(case) => run_case(adapter, &case, options).await,
        Err(error) => CaseRecord::broken(&source.id, LoadError::to_string(&error)),
    }
}

/// Runs every call of `case` against a fresh wire server.
pub async fn run_case<D: Driver>(adapter: &D, case: &Case, options: &RunOptions) -> CaseRecord {
    let started = Instant::now();
    let file = Arc::new(case.file.clone());
    let server = match WireServer::start(Arc::clone(&file)) {
        Ok(server) => server,
        Err(e) => return CaseRecord::broken(&case.id, format!("wire server did not start: {e}")),
    };
    let mut calls = Vec::with_capacity(file.call.len());
    for index in 0..file.call.len() {
        server.begin_call(index);
        let record = run_call(adapter, case, &server, index, options).await;
        let unsupported = record.verdict == Verdict::Unsupported;
        calls.push(record);
        if unsupported {
            break; // later calls build on this one
        }
    }
    let verdict = calls
        .iter()
        .map(|c| c.verdict)
        .max()
        .unwrap_or(Verdict::Pass);
    let mut record = CaseRecord {
        id: case.id.clone(),
        summary: file.summary.clone(),
        grade: file.grade,
        verdict,
        error: None,
        calls,
        exchanges: server.record(),
        duration: started.elapsed(),
        standing: Standing::Fail,
    };
    options.rules.apply(&mut record);
    record
}

async fn run_call<D: Driver>(
    adapter: &D,
    case: &Case,
    server: &WireServer,
    index: usize,
    options: &RunOptions,
) -> CallRecord {
    let context = call_context(case, index, &server.url(), options);
    let deadline = context.timeout.saturating_add(options.deadline_margin); // both can come from users
    let log = AdapterLog::new();
    let (ended, duration) = drive_call(adapter, context, deadline, &log).await;
    let (counts, checks) = server.with_record(|exchanges| {
        let checks = checks::judge(&case.file, index, exchanges);
        (ServerCounts::of(exchanges, index), checks)
    });
    let expect = case.file.call[index].expect.clone();
    let (report, verdict, problems) = match ended {
        CallEnd::Hung => (
            None,
            Verdict::Hang,
            vec![format!("no observation within {} ms", deadline.as_millis())],
        ),
        CallEnd::Panicked(panic) => (
            None,
            Verdict::AdapterError,
            vec![format!("the adapter panicked: {panic}")],
        ),
        CallEnd::Failed(reason) => (None, Verdict::AdapterError, vec![reason]),
        CallEnd::Reported(report) => judge(&expect, report, &counts),
    };
    // A failed check (other than INFO) fails the call; its grade decides about the run.
    let verdict = match verdict {
        Verdict::Pass if checks.iter().any(|c| !c.passed && c.grade != Grade::Info) => {
            Verdict::Fail
        }
        verdict => verdict,
    };
    CallRecord {
        expect,
        report,
        adapter_log: log.text(),
        verdict,
        problems,
        checks,
        tool_posts: counts.tool_posts,
        duration,
    }
}

/// How driving one call ended.
enum CallEnd {
    Hung,
    Panicked(String),
    Failed(String),
    Reported(AdapterReport),
}

/// Prepares the driver, then drives the call under `deadline`; the deadline drops the
/// driver's future, which is how an adapter program gets killed. The duration is the driven
/// part only, the part the deadline applies to.
async fn drive_call<D: Driver>(
    adapter: &D,
    context: CallContext,
    deadline: Duration,
    log: &AdapterLog,
) -> (CallEnd, Duration) {
    // Outside the deadline: starting an adapter process is not the call's time.
    let prepared = match CatchUnwind(Box::pin(adapter.prepare())).await {
        Ok(prepared) => prepared,
        Err(panic) => return (CallEnd::Panicked(panic), Duration::ZERO),
    };
    let started = Instant::now();
    let driven = CatchUnwind(Box::pin(adapter.drive(prepared, context, log)));
    let ended = match tokio::time::timeout(deadline, driven).await {
        Err(_) => CallEnd::Hung,
        Ok(Err(panic)) => CallEnd::Panicked(panic),
        Ok(Ok(Err(reason))) => CallEnd::Failed(reason),
        Ok(Ok(Ok(report))) => CallEnd::Reported(report),
    };
    (ended, started.elapsed())
}

fn judge(
    expect: &Expect,
    report: AdapterReport,
    counts: &ServerCounts,
) -> (Option<AdapterReport>, Verdict, Vec<String>) {
    let problems = match &report {
        AdapterReport::Unsupported { unsupported } => {
            return (
                Some(report.clone()),
                Verdict::Unsupported,
                vec![unsupported.clone()],
            );
        }
        AdapterReport::Observed(observation) => mismatches(expect, observation, counts),
    };
    let verdict = if problems.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail
    };
    (Some(report), verdict, problems)
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

/// Runs `source` on a fresh current-thread runtime (one per case, as libtest runs cases on
/// threads of its own).
pub fn run_source_blocking<D: Driver>(
    adapter: &D,
    source: &CaseSource,
    options: &RunOptions,
) -> CaseRecord {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime.block_on(run_source(adapter, source, options)),
        Err(e) => CaseRecord::broken(&source.id, format!("cannot start a runtime: {e}")),
    }
}

//! The engine: one run of cases against one client. [`main!`](crate::main), the command line,
//! the SDK rows and the benches all drive it.
//!
//! A [`Run`] is built from the client under test (any [`Driver`]: an [`Adapter`](crate::Adapter), a
//! [`ProcessAdapter`](crate::adapter::process::ProcessAdapter), the reference client), the
//! cases, and the settings that decide verdicts: how many cases at once, strictness, the
//! baseline, a shard, the timeouts. [`Run::execute`] runs every case, each on a fresh wire
//! server, tells an [`EventSink`] as each case starts and finishes, and returns the
//! [`RunReport`] that every report format reads:
//!
//! ```no_run
//! use mcp_error_layers::adapter::reference::ReferenceAdapter;
//! use mcp_error_layers::case::builtin;
//! use mcp_error_layers::engine::{CaseRecord, Run};
//!
//! let client = ReferenceAdapter::new();
//! let report = Run::new(&client)
//!     .cases(builtin())
//!     .strict(true)
//!     .execute(&|record: &CaseRecord| println!("{} {}", record.standing, record.id));
//! println!("{}", mcp_error_layers::report::Counts::of(&report.cases));
//! ```
//!
//! A case leaves the run with a [`CaseRecord`]: its [`Verdict`] (what happened: pass, fail,
//! hang, ...) and its [`Standing`] (what the run makes of it under its grade, strictness and
//! baseline), with one [`CallRecord`] per call and every exchange the wire server saw.

use crate::adapter::Driver;
use crate::case::{Case, CaseSource, LoadError};
use crate::report::shard::{Shard, ShardInfo};
use crate::report::{AdapterInfo, RunReport, RunSettings};
use crate::runner::RunOptions;
use std::time::{Duration, Instant};

mod pool;
pub mod recording;

pub use crate::baseline::{Baseline, Loaded as LoadedBaseline};
pub use crate::checks::{Check, NAMES as CHECK_NAMES};
pub use crate::explain::{Mismatch, expected, explain, observed, shown_id};
pub use crate::record::{CallRecord, CaseRecord};
pub use crate::rules::Rules;
pub use crate::snapshot::{SnapshotView, redact_http_dates, redact_ports};
pub use crate::standing::{Standing, Status};
pub use crate::transcript::render as transcript;
pub use crate::verdict::Verdict;
pub(crate) use pool::waits_out_a_timeout;
pub use pool::{MAX_JOBS, default_jobs, default_program_jobs};

/// What a run tells as it goes: the command line's live lines and progress bar, libtest's
/// trials, a report writer. Every method but [`case_finished`](EventSink::case_finished) has
/// a default that ignores the event. Called from the worker threads that run the cases, so a
/// sink is `Sync`; events of different cases may interleave.
pub trait EventSink: Sync {
    /// The run is about to start these cases (after sharding), in this order.
    fn run_started(&self, _cases: &[CaseSource]) {}

    /// Case `id` starts.
    fn case_started(&self, _id: &str) {}

    /// A case has ended: its record, standing decided.
    fn case_finished(&self, record: &CaseRecord);

    /// Every case has ended; `report` is what every report format reads.
    fn run_finished(&self, _report: &RunReport) {}
}

/// Ignores every event.
impl EventSink for () {
    fn case_finished(&self, _record: &CaseRecord) {}
}

/// A closure hears of each finished case.
impl<F: Fn(&CaseRecord) + Sync> EventSink for F {
    fn case_finished(&self, record: &CaseRecord) {
        self(record);
    }
}

/// Both sinks hear every event, the first first.
impl<A: EventSink, B: EventSink> EventSink for (A, B) {
    fn run_started(&self, cases: &[CaseSource]) {
        self.0.run_started(cases);
        self.1.run_started(cases);
    }

    fn case_started(&self, id: &str) {
        self.0.case_started(id);
        self.1.case_started(id);
    }

    fn case_finished(&self, record: &CaseRecord) {
        self.0.case_finished(record);
        self.1.case_finished(record);
    }

    fn run_finished(&self, report: &RunReport) {
        self.0.run_finished(report);
        self.1.run_finished(report);
    }
}

/// One run of cases against one client: a builder. Every setting has the default the command
/// line documents; [`execute`](Run::execute) runs it.
#[derive(Debug)]
pub struct Run<'a, D: ?Sized> {
    driver: &'a D,
    cases: Vec<CaseSource>,
    options: RunOptions,
    jobs: Option<usize>,
    shard: Option<Shard>,
}

impl<'a, D: Driver> Run<'a, D> {
    /// A run of no cases yet against `driver`.
    pub fn new(driver: &'a D) -> Self {
        Run {
            driver,
            cases: Vec::new(),
            options: RunOptions::default(),
            jobs: None,
            shard: None,
        }
    }

    /// The cases to run, in the order reports list them ([`builtin`](crate::case::builtin),
    /// [`discover`](crate::case::discover), or your own).
    pub fn cases(mut self, cases: Vec<CaseSource>) -> Self {
        self.cases = cases;
        self
    }

    /// How many cases run at once (at least 1, at most [`MAX_JOBS`]); by default
    /// [`default_jobs`] for a client in this process and [`default_program_jobs`] for an
    /// adapter program.
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = Some(jobs);
        self
    }

    /// Whether SHOULD-grade mismatches fail the run too (default: no).
    pub fn strict(mut self, strict: bool) -> Self {
        self.options.rules.strict = strict;
        self
    }

    /// The accepted deviations (default: none).
    pub fn baseline(mut self, baseline: Baseline) -> Self {
        self.options.rules = self.options.rules.with_baseline(baseline);
        self
    }

    /// Strictness and the baseline at once.
    pub fn rules(mut self, rules: Rules) -> Self {
        self.options.rules = rules;
        self
    }

    /// Only the cases of `shard` (split by a hash of the case id); the report records which
    /// shard of which selection it holds, for `report merge`.
    pub fn shard(mut self, shard: Shard) -> Self {
        self.shard = Some(shard);
        self
    }

    /// Makes every case prefer this protocol version (default: each case's own).
    pub fn protocol_version(mut self, version: Option<String>) -> Self {
        self.options.protocol_version = version;
        self
    }

    /// The client timeout of a call whose case names none (default: the case format's 5 s).
    pub fn default_timeout(mut self, timeout: Duration) -> Self {
        self.options.default_timeout = Some(timeout);
        self
    }

    /// How long past a call's own timeout the run waits before it calls the call a hang
    /// (default: 1 s).
    pub fn deadline_margin(mut self, margin: Duration) -> Self {
        self.options.deadline_margin = margin;
        self
    }

    /// The program that serves the stdio cases (`PROGRAM stdio-server --session FILE`,
    /// docs/stdio.md); default: `MCP_ERROR_LAYERS_STDIO_SERVER`, else this executable if it
    /// serves. A test binary with the standard harness names the `mcp-error-layers-stdio`
    /// binary of this crate here.
    pub fn stdio_server(mut self, program: impl Into<std::path::PathBuf>) -> Self {
        self.options.stdio_server = Some(program.into());
        self
    }

    /// Runs every case, up to `jobs` at once, telling `sink` as it goes; the report holds the
    /// records in the order of the cases. The adapter's name and version in the report are
    /// what it announced ([`Driver::info`]), else `adapter`; set
    /// [`RunReport::adapter`] to name it otherwise.
    pub fn execute(self, sink: &dyn EventSink) -> RunReport {
        let (cases, shard) = self.sharded();
        // A program's allowances are known before it starts; its name only after.
        let before = self.driver.info();
        let program = before.start_up_timeout.is_some() || before.announce_timeout.is_some();
        let jobs = self.jobs.unwrap_or_else(|| match program {
            true => default_program_jobs(),
            false => default_jobs(),
        });
        sink.run_started(&cases);
        let started = Instant::now();
        let records = pool::run_all(self.driver, &cases, &self.options, jobs, sink);
        let info = self.driver.info();
        let report = RunReport {
            adapter: AdapterInfo {
                name: info.name.clone().unwrap_or_else(|| "adapter".into()),
                version: info.version.clone(),
            },
            protocol_version: self.options.protocol_version.clone(),
            strict: self.options.rules.strict,
            settings: RunSettings::of(jobs, &self.options, &info),
            duration: started.elapsed(),
            cases: records,
            shard,
        };
        sink.run_finished(&report);
        report
    }

    /// A run with `options` as they are (libtest keeps them for every trial).
    pub(crate) fn with_options(driver: &'a D, options: RunOptions) -> Self {
        Run {
            options,
            ..Run::new(driver)
        }
    }

    /// Runs one case (loaded or not) on a runtime of its own, outside any other runtime: what a
    /// libtest trial does.
    pub fn run_one(&self, source: &CaseSource) -> CaseRecord {
        self.run_loaded(&source.id, &source.load())
    }

    /// Runs one case on the caller's runtime (a current-thread one does: each call's future is
    /// polled there).
    pub async fn run_one_async(&self, source: &CaseSource) -> CaseRecord {
        crate::runner::run_source(self.driver, source, &self.options).await
    }

    /// Runs case `id` as it was loaded (or records why it did not load).
    pub(crate) fn run_loaded(&self, id: &str, loaded: &Result<Case, LoadError>) -> CaseRecord {
        crate::runner::run_loaded_blocking(self.driver, id, loaded, &self.options)
    }

    /// The settings as reports print them, for a run of `jobs` at once.
    pub(crate) fn settings(&self, jobs: usize) -> RunSettings {
        RunSettings::of(jobs, &self.options, &self.driver.info())
    }

    /// The cases of the shard, and what the report says of it.
    fn sharded(&self) -> (Vec<CaseSource>, Option<ShardInfo>) {
        let Some(shard) = self.shard else {
            return (self.cases.clone(), None);
        };
        let info = ShardInfo::new(shard, self.cases.iter().map(|s| s.id.as_str()));
        let kept = self.cases.iter().filter(|s| shard.selects(&s.id)).cloned();
        (kept.collect(), Some(info))
    }
}

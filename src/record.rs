//! What a run keeps of one case: its calls, what the adapter said, what the server saw, and
//! the case's [`Standing`]. Every consumer (libtest, the live line, the reports, the summary)
//! reads these records and nothing else.

use crate::case::{Expect, Grade};
use crate::checks::Check;
use crate::observation::AdapterReport;
use crate::standing::Standing;
use crate::verdict::Verdict;
use crate::wire::Exchange;
use serde::Serialize;
use std::time::Duration;

/// The result of one case: its calls, or why it could not run.
#[derive(Debug, Clone, Serialize)]
pub struct CaseRecord {
    /// The case id.
    pub id: String,
    /// Its one-line summary (empty when it did not load).
    pub summary: String,
    /// Its grade.
    pub grade: Grade,
    /// The worst verdict of its calls (`fail` when the case did not load or could not start).
    pub verdict: Verdict,
    /// Why the case could not run at all: a load error or a server that did not start.
    pub error: Option<String>,
    /// One record per call that ran.
    pub calls: Vec<CallRecord>,
    /// Every exchange the server saw during the case.
    pub exchanges: Vec<Exchange>,
    /// Wall time of the whole case.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
    /// Where the case leaves the run, decided once from the above by
    /// [`Rules::standing`](crate::rules::Rules::standing).
    pub standing: Standing,
}

/// The result of one call.
#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    /// What a correct client reports: the case's `expect`, or its `expect_session` when the
    /// client spoke a 2025 session in a 2026-07-28 case ([`crate::case::Call::expectation`]).
    pub expect: Expect,
    /// The protocol version the client spoke in the call, as the server saw it
    /// ([`crate::verdict::spoken`]).
    pub spoken: String,
    /// Whether the client fell back: it spoke a 2025 session in a 2026-07-28 case.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fell_back: bool,
    /// What the adapter reported; `None` when it hung or crashed.
    pub report: Option<AdapterReport>,
    /// What the adapter wrote on the side (an adapter program's stderr, bounded), with the
    /// driver's notes; kept for hangs and crashes too. `None` when there was nothing.
    pub adapter_log: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// The mismatches with the expectation behind a `fail`, or what went wrong for `hang` /
    /// `adapter-error`. Failed request checks are in `checks`.
    pub problems: Vec<String>,
    /// The request checks that applied to this call, passed or not.
    pub checks: Vec<Check>,
    /// `tools/call` POSTs the server received during this call.
    pub tool_posts: u32,
    /// Whether the verdict left the outcome aside: the adapter tells only success or error
    /// (a conformance client's exit status) and the expectation needs more ([`crate::coarse`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub coarse: bool,
    /// Wall time of the call.
    #[serde(serialize_with = "millis")]
    pub duration: Duration,
}

impl CallRecord {
    /// The verdict on the expectation alone, leaving the request checks aside.
    pub fn expectation_verdict(&self) -> Verdict {
        match self.verdict {
            Verdict::Fail if self.problems.is_empty() => Verdict::Pass,
            verdict => verdict,
        }
    }

    /// The checks that failed.
    pub fn failed_checks(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// Everything wrong with the call, for people: the mismatches, then each failed check.
    pub fn all_problems(&self) -> Vec<String> {
        let checks = self.failed_checks().map(Check::failure_line);
        self.problems.iter().cloned().chain(checks).collect()
    }
}

fn millis<S: serde::Serializer>(duration: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

impl CaseRecord {
    /// Whether any of its calls was judged coarsely ([`CallRecord::coarse`]).
    pub fn is_coarse(&self) -> bool {
        self.calls.iter().any(|call| call.coarse)
    }

    /// A case that could not run: it fails with `error` and has no calls.
    pub fn broken(id: &str, error: String) -> Self {
        CaseRecord {
            id: id.to_owned(),
            summary: String::new(),
            grade: Grade::Must,
            verdict: Verdict::Fail,
            error: Some(error),
            calls: Vec::new(),
            exchanges: Vec::new(),
            duration: Duration::ZERO,
            standing: Standing::Fail,
        }
    }
}

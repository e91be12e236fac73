//! The checks of a bridge row (docs/bridges.md, "Checks"): judged besides the faithful-hop
//! table, on what the upstream server received and on whether the bridge still serves.

use crate::case::{CaseFile, Expect, Grade};
use crate::checks::Check;
use crate::observation::AdapterReport;
use crate::outcome::Outcome;
use crate::verdict::ServerCounts;

/// The bridge checks' names, in the order they are judged.
pub const CHECKS: [&str; 3] = ["hop-no-retry-unsafe", "hop-survives", "hop-answers"];
/// Their grades, in the same order.
pub const GRADES: [Grade; 3] = [Grade::Must, Grade::Should, Grade::Should];

/// How the bridge driver's detail says that the bridge answered the request it sends after a
/// case's last call (`tools/list`, which the upstream server always answers).
pub const PROBE_ANSWERED: &str = "after the call, the same bridge answered tools/list";
/// How it says the bridge did not (what happened follows, after `: `).
pub const PROBE_FAILED: &str = "after the call, the same bridge did not answer tools/list";

/// The bridge checks of call `index` of `case`, given the expectation that applied (the era
/// the bridge's client spoke upstream decides it), what the reference client reported
/// downstream and what the upstream server counted.
pub(crate) fn checks(
    case: &CaseFile,
    index: usize,
    expect: &Expect,
    report: Option<&AdapterReport>,
    counts: &ServerCounts,
) -> Vec<Check> {
    let mut checks = Vec::new();
    if !repeatable(case) {
        let allowed = expect.tool_posts.unwrap_or(1).max(1);
        let passed = counts.tool_posts <= allowed;
        let detail = format!(
            "the upstream server received {} tools/call POSTs for a tool that is neither \
             read-only nor idempotent; a correct client sends {allowed}",
            counts.tool_posts
        );
        checks.push(check(0, passed, detail));
    }
    let Some(AdapterReport::Observed(observed)) = report else {
        return checks;
    };
    if index + 1 == case.call.len() {
        let passed = observed.detail.contains(PROBE_ANSWERED);
        let why = observed
            .detail
            .split_once(PROBE_FAILED)
            .map_or("", |(_, why)| why.trim_start_matches(": "));
        let detail = format!("after a faulted call the bridge no longer serves: {why}");
        checks.push(check(1, passed, detail));
    }
    let passed = observed.outcome != Outcome::Timeout;
    let detail = "no answer downstream before the bridge's own timeout (plus the case's)";
    checks.push(check(2, passed, detail.to_owned()));
    checks
}

/// Whether the case's tool is declared read-only or idempotent: a client may repeat a call to
/// it.
fn repeatable(case: &CaseFile) -> bool {
    let hint = |name: &str| {
        case.tool
            .annotations
            .get(name)
            .and_then(toml::Value::as_bool)
            .unwrap_or(false)
    };
    hint("readOnlyHint") || hint("idempotentHint")
}

/// Check `which` of [`CHECKS`], with its grade.
fn check(which: usize, passed: bool, detail: String) -> Check {
    Check {
        name: CHECKS[which],
        grade: GRADES[which],
        passed,
        detail: if passed { String::new() } else { detail },
    }
}

//! Every line the harness prints or puts into a test's failure, in one place so that the wording
//! stays consistent.

use crate::explain::{Mismatch, explain, shown_id};
use crate::record::CaseRecord;
use crate::report::Counts;
use crate::report::ReportPaths;
use crate::standing::Standing;
use std::fmt::Write;
use std::path::Path;

/// A failing case: verdict, grade and summary, then the whole explanation.
pub(crate) fn failure(record: &CaseRecord) -> String {
    let mut text = format!("{} ({})", record.verdict, record.grade);
    if !record.summary.is_empty() {
        let _ = write!(text, ": {}", record.summary);
    }
    format!("{text}\n{}", explain(record))
}

/// A listed case that passes: the entry has to go.
pub(crate) fn stale(record: &CaseRecord, reason: &str, baseline: &str) -> String {
    format!(
        "{} passes now: remove it from the baseline {baseline} (it was accepted because: {reason})",
        shown_id(&record.id)
    )
}

/// A mismatch whose grade does not fail this run: printed, not failed.
pub(crate) fn warning(record: &CaseRecord, why: &str) -> String {
    let head = format!(
        "warning: {}: {}, not failing the run: {why}",
        shown_id(&record.id),
        record.verdict
    );
    with_calls(head, record)
}

/// A deviation the baseline accepts: printed, not failed.
pub(crate) fn accepted(record: &CaseRecord, reason: &str, baseline: &str) -> String {
    let head = format!(
        "note: {}: {}, accepted by the baseline {baseline}: {reason}",
        shown_id(&record.id),
        record.verdict
    );
    with_calls(head, record)
}

/// `head`, then what each call expected and observed and what differs, indented.
fn with_calls(head: String, record: &CaseRecord) -> String {
    let mut text = head;
    for call in &record.calls {
        let mismatch = Mismatch::of(call);
        let _ = write!(
            text,
            "\n  expected: {}\n  observed: {}",
            mismatch.expected, mismatch.observed
        );
        for problem in &mismatch.problems {
            let _ = write!(text, "\n  - {problem}");
        }
    }
    text
}

/// A snapshot that does not match, or a case that has none yet.
pub(crate) fn snapshot_mismatch(folder: &str, name: &str, is_new: bool) -> String {
    let what = if is_new {
        "is new"
    } else {
        "does not match what the client did"
    };
    format!(
        "snapshot {folder}/{name}.snap {what}: review it with `cargo insta review`, or rerun \
         with INSTA_UPDATE=always to accept it"
    )
}

/// A `.snap.new` that should go and could not be removed.
pub(crate) fn stale_pending(path: &Path, error: &std::io::Error) -> String {
    format!(
        "warning: cannot remove the obsolete {}: {error}; remove it by hand",
        path.display()
    )
}

/// The configuration trial's failure: every problem, one per line.
pub(crate) fn config_problems(problems: &[String]) -> String {
    let mut text = String::from("the mcp-error-layers configuration has problems:");
    for problem in problems {
        let _ = write!(text, "\n  - {problem}");
    }
    text
}

/// The baseline trial's failure: every problem, one per line.
pub(crate) fn baseline_problems(baseline: &str, problems: &[String]) -> String {
    let mut text = format!("the baseline {baseline} has problems:");
    for problem in problems {
        let _ = write!(text, "\n  - {problem}");
    }
    text
}

/// A `[checks]` entry that no case of the run needed.
pub(crate) fn unused_check(name: &str) -> String {
    format!("[checks] `{name}`: no case failed this check in this run: remove the entry")
}

/// The run's counts, printed after libtest's summary, in the words of every other summary
/// (`report::Counts`); `snapshots_changed` cases had a snapshot that did not match.
pub(crate) fn summary(adapter: &str, records: &[CaseRecord], snapshots_changed: usize) -> String {
    format!(
        "mcp-error-layers: {adapter}: {}; {} changed",
        Counts::of(records),
        plural(snapshots_changed, "snapshot"),
    )
}

/// The cases the baseline accepted, by name, when there are any.
pub(crate) fn accepted_list(records: &[CaseRecord]) -> Option<String> {
    let ids: Vec<_> = records
        .iter()
        .filter(|r| matches!(r.standing, Standing::Accepted(_)))
        .map(|r| shown_id(&r.id))
        .collect();
    (!ids.is_empty()).then(|| {
        format!(
            "mcp-error-layers: accepted by the baseline: {}",
            ids.join(", ")
        )
    })
}

/// `1 case`, `2 cases`.
fn plural(count: usize, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
}

/// Where the reports went.
pub(crate) fn reports_written(paths: &ReportPaths) -> String {
    let written: Vec<String> = paths
        .iter()
        .map(|(format, path)| format!("{} {}", format.label(), shown(path)))
        .collect();
    format!("mcp-error-layers: reports written: {}", written.join(", "))
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Why no report is written under nextest.
pub(crate) const NO_REPORTS_UNDER_NEXTEST: &str = "note: mcp-error-layers writes no reports under \
    cargo-nextest (each test is its own process): use nextest's own JUnit output";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Expect;
    use crate::outcome::Outcome;
    use crate::record::CallRecord;
    use crate::verdict::Verdict;
    use std::time::Duration;

    #[test]
    fn the_summary_after_libtests_counts_coarse_judgements() {
        let mut record = CaseRecord::broken("tool/is-error", String::new());
        (record.error, record.verdict, record.standing) = (None, Verdict::Pass, Standing::Pass);
        record.calls.push(CallRecord {
            expect: Expect::new(Outcome::ToolError),
            spoken: crate::era::MODERN_VERSION.to_owned(),
            fell_back: false,
            report: None,
            adapter_log: None,
            verdict: Verdict::Pass,
            problems: Vec::new(),
            checks: Vec::new(),
            tool_posts: 1,
            coarse: true,
            duration: Duration::ZERO,
        });
        assert_eq!(
            summary("node client.mjs", &[record], 0),
            "mcp-error-layers: node client.mjs: 1 cases: 1 passed, 0 accepted, 0 warnings, 0 \
             failed, 0 skipped; hangs 0, adapter errors 0; 1 judged coarsely (exit status \
             only); 0 snapshots changed"
        );
    }
}

//! Every line the entry prints or puts into a test's failure, in one place so that the wording
//! stays consistent.

use super::judge::{Disposition, Judge};
use super::trial::Kept;
use crate::case::Grade;
use crate::explain::{expected, explain, observed};
use crate::report::ReportPaths;
use crate::runner::CaseRecord;
use crate::verdict::Verdict;
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
        record.id
    )
}

/// A SHOULD or INFO mismatch outside strict mode: printed, not failed.
pub(crate) fn warning(record: &CaseRecord) -> String {
    let why = match record.grade {
        Grade::Info => "the case is graded info",
        _ => "the case is graded should and the run is not strict",
    };
    let head = format!(
        "warning: {}: {}, not failing the run: {why}",
        record.id, record.verdict
    );
    with_calls(head, record)
}

/// A deviation the baseline accepts: printed, not failed.
pub(crate) fn accepted(record: &CaseRecord, reason: &str, baseline: &str) -> String {
    let head = format!(
        "note: {}: {}, accepted by the baseline {baseline}: {reason}",
        record.id, record.verdict
    );
    with_calls(head, record)
}

/// `head`, then what each call expected and observed, indented.
fn with_calls(head: String, record: &CaseRecord) -> String {
    let mut text = head;
    for call in &record.calls {
        let _ = write!(
            text,
            "\n  expected: {}\n  observed: {}",
            expected(call),
            observed(call)
        );
    }
    text
}

/// The reason an unsupported case is ignored: the adapter's own words.
pub(crate) fn unsupported(record: &CaseRecord) -> String {
    let words = record
        .calls
        .iter()
        .rev()
        .find_map(|call| match &call.report {
            Some(crate::observation::AdapterReport::Unsupported { unsupported }) => {
                Some(unsupported.as_str())
            }
            _ => None,
        });
    format!(
        "unsupported: {}",
        words.unwrap_or("the adapter gave no reason")
    )
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

/// The configuration trial's failure: every problem, one per line.
pub(crate) fn config_problems(problems: &[String]) -> String {
    let mut text = String::from("the mcp-error-layers configuration has problems:");
    for problem in problems {
        let _ = write!(text, "\n  - {problem}");
    }
    text
}

/// The run's verdict counts, printed after libtest's summary.
pub(crate) fn summary(adapter: &str, judge: &Judge, kept: &[Kept]) -> String {
    let verdicts = [
        Verdict::Pass,
        Verdict::Fail,
        Verdict::Hang,
        Verdict::AdapterError,
        Verdict::Unsupported,
    ];
    let counts: Vec<String> = verdicts
        .iter()
        .map(|&v| {
            format!(
                "{} {v}",
                kept.iter().filter(|k| k.record.verdict == v).count()
            )
        })
        .collect();
    let disposed = |d: Disposition| {
        let of = |k: &&Kept| judge.dispose(&k.record) == d;
        kept.iter().filter(of).count()
    };
    let changed = kept.iter().filter(|k| k.snapshot_changed).count();
    format!(
        "mcp-error-layers: {adapter}, {}: {}; baseline: {} accepted, {} stale; {}; {} changed",
        plural(kept.len(), "case"),
        counts.join(", "),
        disposed(Disposition::Accepted),
        disposed(Disposition::Stale),
        plural(disposed(Disposition::Warned), "warning"),
        plural(changed, "snapshot"),
    )
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
    let named = [
        ("TAP", &paths.tap),
        ("JUnit", &paths.junit),
        ("JSON", &paths.json),
        ("HTML", &paths.html),
    ];
    let written: Vec<String> = named
        .iter()
        .filter_map(|(format, path)| path.as_deref().map(|p| format!("{format} {}", shown(p))))
        .collect();
    format!("mcp-error-layers: reports written: {}", written.join(", "))
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// Why no report is written under nextest.
pub(crate) const NO_REPORTS_UNDER_NEXTEST: &str = "note: mcp-error-layers writes no reports under \
    cargo-nextest (each test is its own process): use nextest's own JUnit output";

//! The text a person reads when a case does not pass: per call, expected vs observed and what
//! went wrong; then the transcript of what the server received and sent.

use crate::observation::AdapterReport;
use crate::record::{CallRecord, CaseRecord};
use crate::transcript;
use crate::verdict::Verdict;
use std::fmt::Write;

/// The whole explanation of `record`.
pub fn explain(record: &CaseRecord) -> String {
    let mut out = String::new();
    if let Some(error) = &record.error {
        let _ = writeln!(out, "case did not run: {error}");
        return out;
    }
    for (index, call) in record.calls.iter().enumerate() {
        explain_call(&mut out, index, call);
    }
    let _ = writeln!(out, "transcript:");
    out.push_str(&transcript::render(&record.exchanges));
    out
}

fn explain_call(out: &mut String, index: usize, call: &CallRecord) {
    let _ = writeln!(out, "call {index}: {}", call.verdict);
    let _ = writeln!(out, "  expected: {}", expected(call));
    let _ = writeln!(out, "  observed: {}", observed(call));
    if call.verdict != Verdict::Pass {
        for problem in call.all_problems() {
            let _ = writeln!(out, "  - {problem}");
        }
        // An out-of-process adapter's stderr is often the only clue to why it failed.
        if let Some(log) = call.adapter_log.as_deref().filter(|l| !l.trim().is_empty()) {
            let _ = writeln!(out, "  adapter stderr:");
            for line in log.lines() {
                let _ = writeln!(out, "    | {line}");
            }
        }
    }
}

/// `HTTP_ERROR status=503 tool_posts=1`
pub fn expected(call: &CallRecord) -> String {
    let e = &call.expect;
    let mut text = e.outcome.to_string();
    if let Some(status) = e.status {
        let _ = write!(text, " status={status}");
    }
    if let Some(code) = e.code {
        let _ = write!(text, " code={code}");
    }
    if let Some(posts) = e.tool_posts {
        let _ = write!(text, " tool_posts={posts}");
    }
    text
}

/// `TOOL_SUCCESS status=200 tool_posts=1 ("detail")`, or what stood in for an observation.
pub fn observed(call: &CallRecord) -> String {
    match &call.report {
        None => format!("nothing ({})", call.verdict),
        Some(AdapterReport::Unsupported { unsupported }) => format!("unsupported: {unsupported}"),
        Some(AdapterReport::Observed(o)) => {
            let mut text = o.outcome.to_string();
            if let Some(status) = o.status {
                let _ = write!(text, " status={status}");
            }
            if let Some(code) = o.code {
                let _ = write!(text, " code={code}");
            }
            let _ = write!(text, " tool_posts={}", call.tool_posts);
            if !o.detail.is_empty() {
                let _ = write!(text, " ({:?})", o.detail);
            }
            text
        }
    }
}

//! The text a person reads when a case does not pass: per call, expected vs observed and what
//! went wrong; then the transcript of what the server received and sent.

use crate::observation::AdapterReport;
use crate::record::{CallRecord, CaseRecord};
use crate::transcript;
use crate::verdict::Verdict;
use std::borrow::Cow;
use std::fmt::{self, Write};

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
    let mismatch = Mismatch::of(call);
    let _ = writeln!(out, "call {index}: {}", call.verdict);
    let _ = writeln!(out, "  expected: {}", mismatch.expected);
    let _ = writeln!(out, "  observed: {}", mismatch.observed);
    if call.coarse {
        let _ = writeln!(out, "  coarse: {}", crate::coarse::NOTE);
    }
    if call.verdict != Verdict::Pass {
        for problem in &mismatch.problems {
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

/// How a call that did not pass is shown, wherever it is shown (the live line, libtest's
/// warnings and failures, the TAP and JUnit messages): what was expected, what was observed,
/// and each thing that differs, named (the mismatches with the expectation, the failed request
/// checks, or why there is no observation). The two words can be equal while something else
/// differs (`attempts`, a check), so the problems are always part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// [`expected`] of the call.
    pub expected: String,
    /// [`observed`] of the call.
    pub observed: String,
    /// What differs, one line each ([`CallRecord::all_problems`]).
    pub problems: Vec<String>,
}

impl Mismatch {
    /// The mismatch of `call`.
    pub fn of(call: &CallRecord) -> Self {
        Mismatch {
            expected: expected(call),
            observed: observed(call),
            problems: call.all_problems(),
        }
    }

    /// `expected E → observed O: problem; problem`, on one line.
    pub fn one_line(&self) -> String {
        let mut text = self.to_string();
        if !self.problems.is_empty() {
            let _ = write!(text, ": {}", self.problems.join("; "));
        }
        text
    }
}

impl fmt::Display for Mismatch {
    /// `expected E → observed O`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {} → observed {}", self.expected, self.observed)
    }
}

/// A case id as printed: a control character (a newline in a file name) or a line or paragraph
/// separator is escaped the way Rust writes it (`\n`, `\u{1b}`), and so is a backslash, so that
/// the id stays on its line and reads back unambiguously. Ids without them are shown as they are.
pub fn shown_id(id: &str) -> Cow<'_, str> {
    let escapes = |c: char| c.is_control() || c == '\\' || c == '\u{2028}' || c == '\u{2029}';
    if !id.chars().any(escapes) {
        return Cow::Borrowed(id);
    }
    let mut shown = String::with_capacity(id.len() + 8);
    for c in id.chars() {
        match c {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            '\\' => shown.push_str("\\\\"),
            c if escapes(c) => {
                let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
            }
            c => shown.push(c),
        }
    }
    Cow::Owned(shown)
}

/// `HTTP_ERROR status=503 tool_posts=1`, and `(in a 2025-11-25 session)` when the client fell
/// back to one in a 2026-07-28 case: the era it was judged by.
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
    if let Some(posts) = e.token_posts {
        let _ = write!(text, " token_posts={posts}");
    }
    if call.fell_back {
        let _ = write!(text, " (in a {} session)", call.spoken);
    }
    text
}

/// `TOOL_SUCCESS status=200 attempts=1 tool_posts=1 ("detail")` (`attempts` when the client gave
/// its own count), or what stood in for an observation.
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
            // The client's own count beside the server's, so that the two can be compared.
            if let Some(attempts) = o.attempts {
                let _ = write!(text, " attempts={attempts}");
            }
            let _ = write!(text, " tool_posts={}", call.tool_posts);
            if !o.detail.is_empty() {
                let _ = write!(text, " ({:?})", o.detail);
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_shown_on_one_line_and_reads_back() {
        assert_eq!(shown_id("sse/final-result"), "sse/final-result");
        assert!(matches!(shown_id("wetter/für"), Cow::Borrowed(_)));
        assert_eq!(shown_id("two\nlines"), "two\\nlines");
        assert_eq!(shown_id("a\\nb"), "a\\\\nb");
        assert_eq!(shown_id("bell\u{7}\r\t"), "bell\\u{7}\\r\\t");
        assert_eq!(shown_id("sep\u{2028}"), "sep\\u{2028}");
    }
}

//! TAP 14 (or 13): a version line, the plan, one test point per case and a YAML diagnostics
//! block for every case that did not pass.
//!
//! The two versions differ here only in the version line: this writer uses nothing TAP 14 added
//! (no subtests, no pragmas), and 13 already has the indented YAML block and the `SKIP`/`TODO`
//! directives. `\#` and `\\` in a description are TAP 14's escapes; a TAP 13 reader such as
//! Perl's `prove` reads `\#` as no directive too, so the text is the same for both.
//!
//! Directives: an unsupported case is `ok N - id # SKIP why`. A deviation that does not fail the
//! run is `not ok N - id # TODO why`: TAP's TODO marks a known-broken item that a harness does
//! not count as a failure. That is a warning (a SHOULD case outside strict mode, an INFO case:
//! `# TODO should-grade fail: ...`) and a deviation the baseline accepts (`# TODO accepted:
//! reason`).

use super::{Counts, Reporter, RunReport, mismatch_line};
use crate::explain::{expected, observed, shown_id};
use crate::record::{CallRecord, CaseRecord};
use crate::standing::Standing;
use crate::transcript;
use crate::wire::Exchange;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The TAP writer, for one version.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tap {
    /// The version it writes.
    pub version: TapVersion,
}

/// Which TAP version to write: 14 unless a consumer rejects it (Perl's `prove` before
/// Test::Harness 3.42 does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TapVersion {
    /// TAP 13.
    V13,
    /// TAP 14, the default.
    #[default]
    V14,
}

impl TapVersion {
    /// `13` or `14` as a command line or an environment variable spells it.
    pub fn parse(text: &str) -> Option<TapVersion> {
        match text {
            "13" => Some(TapVersion::V13),
            "14" => Some(TapVersion::V14),
            _ => None,
        }
    }

    /// The number on the version line.
    pub fn number(self) -> u8 {
        match self {
            TapVersion::V13 => 13,
            TapVersion::V14 => 14,
        }
    }
}

impl Reporter for Tap {
    fn format(&self) -> &'static str {
        "TAP"
    }

    fn write(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "TAP version {}", self.version.number())?;
        writeln!(out, "# {}", header(report))?;
        writeln!(out, "# run flags: {}", report.flags())?;
        if report.cases.is_empty() {
            writeln!(out, "1..0 # SKIP no cases")?;
        } else {
            writeln!(out, "1..{}", report.cases.len())?;
        }
        for (index, record) in report.cases.iter().enumerate() {
            test_point(out, index + 1, record)?;
        }
        writeln!(out, "# {}", Counts::of(&report.cases))
    }
}

fn header(report: &RunReport) -> String {
    let adapter = &report.adapter;
    let version = adapter.version.as_deref().unwrap_or("version unknown");
    let protocol = report
        .protocol_version
        .as_deref()
        .unwrap_or("each case's own");
    let strict = if report.strict {
        "strict"
    } else {
        "not strict"
    };
    format!(
        "mcp-error-layers {}: adapter {} ({version}), protocol version {protocol}, {strict}",
        env!("CARGO_PKG_VERSION"),
        adapter.name
    )
}

fn test_point(out: &mut dyn Write, n: usize, record: &CaseRecord) -> io::Result<()> {
    result_line(out, n, record)?;
    // A comment, not a directive: TAP has no word for a judgement of less than the outcome.
    if record.is_coarse() {
        writeln!(out, "# coarse: {}", crate::coarse::NOTE)?;
    }
    Ok(())
}

fn result_line(out: &mut dyn Write, n: usize, record: &CaseRecord) -> io::Result<()> {
    let id = escaped(&shown_id(&record.id));
    let todo = |out: &mut dyn Write, why: String| {
        writeln!(out, "not ok {n} - {id} # TODO {}", escaped(&why))?;
        out.write_all(indented(&diagnostics(record, "todo")).as_bytes())
    };
    match &record.standing {
        Standing::Pass => writeln!(out, "ok {n} - {id}"),
        Standing::Unsupported(why) => writeln!(out, "ok {n} - {id} # SKIP {}", escaped(why)),
        Standing::Warning(why) => todo(out, why.clone()),
        Standing::Accepted(why) => todo(out, format!("accepted: {why}")),
        Standing::Fail | Standing::Hang | Standing::AdapterError | Standing::Stale(_) => {
            writeln!(out, "not ok {n} - {id}")?;
            out.write_all(indented(&diagnostics(record, "fail")).as_bytes())
        }
    }
}

/// A description or directive reason on one line, with `#` and `\` escaped as TAP 14 asks.
fn escaped(text: &str) -> String {
    super::one_line(text)
        .replace('\\', "\\\\")
        .replace('#', "\\#")
}

/// The YAML block between `---` and `...`, before the TAP indentation is added.
fn diagnostics(record: &CaseRecord, severity: &str) -> String {
    let mut y = String::from("---\n");
    field(&mut y, 0, "message", &quoted(&mismatch_line(record)));
    field(&mut y, 0, "severity", severity);
    field(&mut y, 0, "id", &quoted(&record.id));
    field(&mut y, 0, "summary", &quoted(&record.summary));
    field(&mut y, 0, "grade", record.grade.as_str());
    field(&mut y, 0, "verdict", record.verdict.as_str());
    field(&mut y, 0, "standing", record.standing.as_str());
    if let Some(reason) = record.standing.reason() {
        field(&mut y, 0, "reason", &quoted(reason));
    }
    if let Some(error) = &record.error {
        text_field(&mut y, 0, "error", error);
    }
    field(
        &mut y,
        0,
        "duration_ms",
        &record.duration.as_millis().to_string(),
    );
    if record.calls.is_empty() {
        field(&mut y, 0, "calls", "[]");
    } else {
        y.push_str("calls:\n");
        for (index, call) in record.calls.iter().enumerate() {
            call_item(&mut y, 2, index, call);
        }
    }
    if record.error.is_none() {
        text_field(&mut y, 0, "transcript", &key_lines(&record.exchanges));
    }
    y.push_str("...\n");
    y
}

fn call_item(y: &mut String, indent: usize, index: usize, call: &CallRecord) {
    let _ = writeln!(y, "{:indent$}- index: {index}", "");
    let inner = indent + 2;
    field(y, inner, "verdict", call.verdict.as_str());
    field(y, inner, "expected", &quoted(&expected(call)));
    field(y, inner, "observed", &quoted(&observed(call)));
    field(y, inner, "tool_posts", &call.tool_posts.to_string());
    if call.coarse {
        field(y, inner, "judgement", "coarse");
    }
    field(
        y,
        inner,
        "duration_ms",
        &call.duration.as_millis().to_string(),
    );
    let problems = call.all_problems();
    if problems.is_empty() {
        field(y, inner, "problems", "[]");
    } else {
        let _ = writeln!(y, "{:inner$}problems:", "");
        for problem in &problems {
            let _ = writeln!(y, "{:width$}- {}", "", quoted(problem), width = inner + 2);
        }
    }
    if let Some(log) = super::adapter_log(call) {
        text_field(y, inner, "adapter_log", log);
    }
}

/// The transcript's key lines: every `tools/call` exchange in full (the call under test),
/// and only the request and reply lines of the rest (`initialize`, `tools/list`, ...).
fn key_lines(exchanges: &[Exchange]) -> String {
    if exchanges.is_empty() {
        return transcript::render(exchanges);
    }
    let mut text = String::new();
    for exchange in exchanges {
        let full = transcript::render(std::slice::from_ref(exchange));
        if exchange.is_tool_call() {
            text.push_str(&full);
            continue;
        }
        for line in full.lines().filter(|l| l.starts_with(['→', '←'])) {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

fn field(y: &mut String, indent: usize, key: &str, value: &str) {
    let _ = writeln!(y, "{:indent$}{key}: {value}", "");
}

/// A multi-line text as a literal block scalar when that is safe, else one quoted line.
fn text_field(y: &mut String, indent: usize, key: &str, text: &str) {
    let text = text.trim_end_matches('\n');
    if !text.contains('\n') || !block_safe(text) {
        return field(y, indent, key, &quoted(text));
    }
    // An explicit indentation indicator, when the text itself starts with spaces, keeps
    // YAML from taking those spaces for the block's indentation.
    let indicator = if text.starts_with(' ') { "2" } else { "" };
    let _ = writeln!(y, "{:indent$}{key}: |{indicator}-", "");
    for line in text.lines() {
        // Blank lines keep the indentation: TAP readers end the block at the first line
        // without it.
        let _ = writeln!(y, "{:width$}{line}", "", width = indent + 2);
    }
}

/// Whether `text` can stand in a literal block: printable YAML characters only, no carriage
/// returns, and no line that a TAP reader would take for the block's `...` end marker.
fn block_safe(text: &str) -> bool {
    let printable = text
        .chars()
        .all(|c| c == '\n' || c == '\t' || (yaml_printable(c) && !yaml_break(c)));
    printable && !text.lines().any(|l| l.trim_start().starts_with("..."))
}

/// A YAML double-quoted scalar; every character YAML would not carry as-is is escaped.
fn quoted(text: &str) -> String {
    let mut q = String::with_capacity(text.len() + 2);
    q.push('"');
    for c in text.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            '\r' => q.push_str("\\r"),
            c if yaml_printable(c) && !yaml_break(c) => q.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(q, "\\x{:02X}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(q, "\\u{:04X}", c as u32);
            }
            c => {
                let _ = write!(q, "\\U{:08X}", c as u32);
            }
        }
    }
    q.push('"');
    q
}

/// YAML's printable set (c-printable), without tab and line feed, which callers handle.
fn yaml_printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7E}' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        || c >= '\u{10000}'
}

/// Characters YAML 1.1 readers (PyYAML among them) treat as line breaks.
fn yaml_break(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Every line of the YAML block indented by two spaces, as TAP 14 places it under its test point.
fn indented(yaml: &str) -> String {
    yaml.lines().map(|line| format!("  {line}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes_what_yaml_would_not_carry() {
        assert_eq!(quoted("a \"b\" \\ c"), r#""a \"b\" \\ c""#);
        assert_eq!(
            quoted("x\ny\r\u{7}\u{85}\u{2028}→"),
            r#""x\ny\r\x07\x85\u2028→""#
        );
    }

    #[test]
    fn directive_text_escapes_hash_and_stays_on_one_line() {
        assert_eq!(escaped("a # b\\c\nd"), "a \\# b\\\\c d");
    }

    #[test]
    fn block_text_keeps_blank_lines_indented_and_avoids_end_markers() {
        let mut y = String::new();
        text_field(&mut y, 2, "log", "one\n\n  two\n");
        assert_eq!(y, "  log: |-\n    one\n    \n      two\n");
        let mut y = String::new();
        text_field(&mut y, 0, "log", " lead\n...\n");
        assert_eq!(y, "log: \" lead\\n...\"\n");
        let mut y = String::new();
        text_field(&mut y, 0, "log", " lead\nx");
        assert_eq!(y, "log: |2-\n   lead\n  x\n");
    }
}

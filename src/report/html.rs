//! The HTML matrix: one self-contained page with a row per case and a column per report
//! (adapter), each cell coloured by verdict and opening its expected / observed / problems /
//! transcript.
//!
//! The summary and the grid are plain markup (cells open with `<details>`); what an opened
//! cell shows travels packed (`packed`) and one inline script, the only one the page's
//! Content-Security-Policy lets run, unpacks it. The policy forbids every fetch, so that a
//! report opened from a CI artifact store cannot reach anywhere. Every text from a report is
//! HTML-escaped.

mod packed;

use super::json::{JsonCall, JsonCase, JsonReport};
use super::{ReportError, Reporter, RunReport};
use crate::observation::AdapterReport;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::Path;

/// The HTML writer for one run (a matrix with one column).
#[derive(Debug, Clone, Copy, Default)]
pub struct Html;

impl Reporter for Html {
    fn format(&self) -> &'static str {
        "HTML"
    }

    fn write(&self, report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(render(&[JsonReport::from_run(report)]).as_bytes())
    }
}

/// The cells' contents of a page [`render`] made, column after column (a row's cell at
/// `column × rows + row`), as the page's script shows them when a cell is opened: for tools
/// and tests that read a page without a browser. `None` when the page holds no packed cells.
pub fn cells(page: &str) -> Option<Vec<String>> {
    packed::unpack(page)
}

/// Writes the matrix of `reports` to `path` (what `report --html out.html a.json b.json` does).
pub fn write(reports: &[JsonReport], path: &Path) -> Result<(), ReportError> {
    super::write_file(path, |out| out.write_all(render(reports).as_bytes()))
}

/// The page for `reports`: cases (the union of their ids) × reports, in the order given.
pub fn render(reports: &[JsonReport]) -> String {
    let rows = case_rows(reports);
    let mut page = String::new();
    let title = format!(
        "mcp-error-layers: {} cases × {} {}",
        rows.len(),
        reports.len(),
        if reports.len() == 1 {
            "adapter"
        } else {
            "adapters"
        }
    );
    head(&mut page, &title);
    summary(&mut page, reports);
    failures(&mut page, reports);
    legend(&mut page);
    page.push_str("<h2 id=\"matrix\">Every case</h2>\n<table class=\"matrix\">\n");
    column_heads(&mut page, reports);
    body(&mut page, &rows, reports);
    page.push_str("</table>\n");
    let cells: Vec<String> = reports
        .iter()
        .flat_map(|report| rows.iter().map(move |row| contents(row, report)))
        .collect();
    packed::cells(&mut page, &cells);
    packed::script(&mut page);
    let _ = writeln!(
        page,
        "<footer>Written by mcp-error-layers {} from {} report(s) of schema {}.</footer>\n</body>\n</html>",
        env!("CARGO_PKG_VERSION"),
        reports.len(),
        super::json::SCHEMA
    );
    page
}

/// What a row shows about its case, taken from the first report that has it.
struct Row<'a> {
    id: &'a str,
    summary: &'a str,
    grade: crate::case::Grade,
}

fn case_rows(reports: &[JsonReport]) -> Vec<Row<'_>> {
    let mut rows: BTreeMap<&str, Row<'_>> = BTreeMap::new();
    for case in reports.iter().flat_map(|r| &r.cases) {
        rows.entry(&case.id).or_insert(Row {
            id: &case.id,
            summary: &case.summary,
            grade: case.grade,
        });
    }
    rows.into_values().collect()
}

/// The page's styles; the sweep history's page (`history.rs`) uses them too.
pub(super) const STYLE: &str = "
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d1d1d; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
code, pre { font: 12px/1.35 ui-monospace, monospace; }
.legend { display: flex; flex-wrap: wrap; gap: .4em 1em; padding: 0; list-style: none; }
.legend li { display: flex; align-items: center; gap: .35em; }
.swatch { display: inline-block; width: 1.1em; height: 1.1em; border: 1px solid #999; }
table.matrix { border-collapse: collapse; }
.matrix th, .matrix td { border: 1px solid #bbb; padding: .25em .45em; vertical-align: top; text-align: left; }
.matrix thead th { background: #f3f3f3; position: sticky; top: 0; z-index: 1; }
/* Eleven SDK columns do not fit a laptop screen: the case column stays in view while the page
   scrolls sideways, wide enough that ids break at most once, and a row reached from a link in
   \"What deviates\" is marked and not hidden under the sticky head. */
.matrix th[scope=row] { position: sticky; left: 0; background: #fff; min-width: 16em; }
.matrix thead th:first-child { left: 0; z-index: 2; }
.matrix tbody tr { scroll-margin-top: 8em; }
.matrix tr:target th[scope=row] { background: #fff3b0; }
.matrix tr.group th { background: #e9eef6; font-weight: 600; }
.matrix th small, .matrix .sub { display: block; font-weight: normal; color: #555; }
.grade { font-size: 11px; padding: 0 .3em; border-radius: 3px; background: #eee; margin-left: .3em; }
/* Cells are coloured by their data attributes: a class per cell would weigh 30 kB more. */
.v-pass, td[data-verdict=pass] { background: #cdeccd; }
.v-fail, td[data-verdict=fail] { background: #f6c4c4; }
.v-hang, td[data-verdict=hang] { background: #dccaf2; }
.v-adapter-error, td[data-verdict=adapter-error] { background: #f9d3a5; }
.v-unsupported, td[data-verdict=unsupported] { background: #e2e2e2; }
.v-none { background: repeating-linear-gradient(45deg, #fff, #fff 4px, #eee 4px, #eee 8px); }
.soft, td[data-standing=warning], td[data-standing=accepted] { outline: 2px dashed #8a6d00; outline-offset: -4px; }
td summary { cursor: pointer; font-weight: 600; }
td summary small { display: block; font-weight: normal; font-size: 12px; }
table.summary { border-collapse: collapse; margin-bottom: 1em; }
.summary th, .summary td { border: 1px solid #bbb; padding: .2em .5em; text-align: left; }
.summary td { text-align: right; }
.summary td:last-child { text-align: left; }
small.fidelity, td.fidelity { font-weight: 600; }
.n-fail, .n-hang, .n-adapter-error, .n-stale { color: #a00000; font-weight: 600; }
h2 { font-size: 1.15em; margin: 1.2em 0 .4em; }
h3 { font-size: 1em; margin: .5em 0 .2em; }
.deviations { margin: .3em 0; }
.deviations ul { margin: .2em 0 .6em; }
td details[open] { min-width: 36em; max-width: 60em; }
.cell dl { display: grid; grid-template-columns: max-content 1fr; gap: .1em .6em; margin: .3em 0; }
.cell dt { color: #555; }
.cell dd { margin: 0; }
.cell pre { white-space: pre-wrap; word-break: break-all; background: #fff; border: 1px solid #ccc;
  padding: .4em; max-height: 28em; overflow: auto; }
.cell h4 { margin: .5em 0 .2em; font-size: 1em; }
footer { margin-top: 1.5em; color: #666; font-size: 12px; }
";

fn head(page: &mut String, title: &str) {
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src {script}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n\
         <p>Each cell is one case run by one adapter; open it for what was expected, what was \
         observed, the problems and what the server received and sent (unpacked when opened; \
         <code>#cell=</code><var>row id</var><code>/</code><var>column</var> in the address, \
         columns counted from 0, opens one).</p>\n\
         <noscript><p>Opened cells stay empty: unpacking them needs JavaScript.</p></noscript>\n",
        t = esc(title),
        script = packed::script_source()
    );
}

/// The verdict colours, and what the dashed outline and the hatching mean.
fn legend(page: &mut String) {
    let entries = [
        ("v-pass", "pass"),
        ("v-fail", "fail: a mismatch"),
        ("v-hang", "hang: no observation in time"),
        ("v-adapter-error", "adapter-error: the adapter crashed"),
        ("v-unsupported", "unsupported: skipped"),
        (
            "v-fail soft",
            "dashed: a mismatch that does not fail the run (SHOULD outside strict, INFO)",
        ),
        ("v-none", "not in that report"),
    ];
    page.push_str("<ul class=\"legend\">\n");
    for (class, meaning) in entries {
        let _ = writeln!(
            page,
            "<li><span class=\"swatch {class}\"></span>{}</li>",
            esc(meaning)
        );
    }
    page.push_str("</ul>\n");
}

fn column_heads(page: &mut String, reports: &[JsonReport]) {
    page.push_str("<thead>\n<tr><th scope=\"col\">case</th>");
    for report in reports {
        let _ = write!(
            page,
            "<th scope=\"col\">{}<small>{}</small><small class=\"fidelity\">{}</small>\
             <small>{}</small><small>{}</small></th>",
            esc(&report.adapter.name),
            esc(report
                .adapter
                .version
                .as_deref()
                .unwrap_or("version unknown")),
            named_fidelity(report),
            esc(&run_settings(report)),
            esc(&report.summary.counts().to_string())
        );
    }
    page.push_str("</tr>\n</thead>\n");
}

/// `layer fidelity 31/70 (44 %)`, or for an agent (whose observation is what its model was
/// told) `model fidelity 31/70 (44 %)`, or for a bridge (judged by what arrived downstream)
/// `hop fidelity 31/70 (44 %)`.
fn named_fidelity(report: &JsonReport) -> String {
    match (report.summary.model_fidelity, report.summary.hop_fidelity) {
        (Some(model), _) => format!("model fidelity {model}"),
        (None, Some(hop)) => format!("hop fidelity {hop}"),
        (None, None) => format!("layer fidelity {}", fidelity(report)),
    }
}

/// The report's layer fidelity (`31/70 (44 %)`), `–` for a report written before it existed.
fn fidelity(report: &JsonReport) -> String {
    report
        .summary
        .layer_fidelity
        .map_or_else(|| "–".to_owned(), |f| f.to_string())
}

fn run_settings(report: &JsonReport) -> String {
    let protocol = report
        .protocol_version
        .as_deref()
        .unwrap_or("each case's protocol");
    let strict = if report.strict {
        "strict"
    } else {
        "not strict"
    };
    match &report.settings {
        Some(settings) => format!("{protocol}, {strict}; run flags: {}", settings.flags),
        None => format!("{protocol}, {strict}"),
    }
}

fn body(page: &mut String, rows: &[Row<'_>], reports: &[JsonReport]) {
    page.push_str("<tbody>\n");
    let mut folder = None;
    for row in rows {
        let this = super::junit::classname(row.id);
        if folder != Some(this) {
            let _ = writeln!(
                page,
                "<tr class=\"group\"><th scope=\"colgroup\" colspan=\"{}\">{}</th></tr>",
                reports.len() + 1,
                esc(this)
            );
            folder = Some(this);
        }
        case_row(page, row, reports);
    }
    page.push_str("</tbody>\n");
}

fn case_row(page: &mut String, row: &Row<'_>, reports: &[JsonReport]) {
    let _ = write!(
        page,
        "<tr id=\"{anchor}\" data-case=\"{id}\"><th scope=\"row\"><code>{id}</code>\
         <span class=\"grade\">{}</span><span class=\"sub\">{}</span></th>",
        row.grade.as_str(),
        esc(row.summary),
        id = esc(row.id),
        anchor = anchor(row.id)
    );
    for report in reports {
        match case_of(row, report) {
            Some(case) => cell(page, case),
            None => page.push_str("<td class=\"v-none\" data-verdict=\"none\">not run</td>"),
        }
    }
    page.push_str("</tr>\n");
}

/// The row's case in `report`, if it ran it: the grid's cell and its packed contents both look
/// it up here.
fn case_of<'r>(row: &Row<'_>, report: &'r JsonReport) -> Option<&'r JsonCase> {
    report.cases.iter().find(|c| c.id == row.id)
}

fn cell(page: &mut String, case: &JsonCase) {
    let verdict = case.verdict.as_str();
    let standing = case.standing_word();
    // The outline marks a deviation that does not fail the run; the word says which, for
    // readers who cannot see colour.
    let label = match standing {
        "warning" => " · warning",
        "accepted" => " · accepted",
        "stale" => " · stale",
        _ => "",
    };
    let coarse = if case.calls.iter().any(|c| c.coarse) {
        " · coarse"
    } else {
        ""
    };
    let label = format!("{label}{coarse}");
    let _ = write!(
        page,
        "<td data-verdict=\"{verdict}\" data-status=\"{}\" data-standing=\"{}\"><details>\
         <summary>{verdict}{label}<small>{}</small></summary></details></td>",
        case.status.as_str(),
        esc(standing),
        esc(&seen(case))
    );
}

/// What the row's cell in `report`'s column shows when opened (in a `<div class="cell">` the
/// script adds), empty if the report lacks the case.
fn contents(row: &Row<'_>, report: &JsonReport) -> String {
    let mut contents = String::new();
    if let Some(case) = case_of(row, report) {
        cell_details(&mut contents, case);
    }
    contents
}

/// A report's text for an opened cell: clipped if an adapter wrote a lot, and escaped as
/// element content, where quotes need no reference (a transcript's JSON is full of them).
fn shown(text: &str) -> String {
    escape(&packed::clip(text), false)
}

fn cell_details(page: &mut String, case: &JsonCase) {
    let standing = match case.standing_word() {
        "pass" => "passed",
        "warning" => "a warning: does not fail the run",
        "accepted" => "accepted by the baseline: does not fail the run",
        "stale" => "passes, but the baseline still accepts it: fails the run",
        "unsupported" => "skipped",
        _ => "fails the run",
    };
    let _ = write!(page, "<p>{} · {} ms</p>", esc(standing), case.duration_ms);
    if let Some(reason) = &case.reason {
        let _ = write!(page, "<p class=\"reason\">{}</p>", shown(reason));
    }
    if let Some(error) = &case.error {
        let _ = write!(page, "<h4>case did not run</h4><pre>{}</pre>", shown(error));
        return;
    }
    for (index, call) in case.calls.iter().enumerate() {
        call_details(page, index, call);
    }
    let _ = write!(
        page,
        "<h4>transcript</h4><pre>{}</pre>",
        shown(&case.transcript)
    );
}

fn call_details(page: &mut String, index: usize, call: &JsonCall) {
    let _ = write!(
        page,
        "<h4>call {index}: {}</h4><dl><dt>expected</dt><dd><code>{}</code></dd>\
         <dt>observed</dt><dd><code>{}</code></dd><dt>tools/call POSTs</dt><dd>{}</dd></dl>",
        call.verdict.as_str(),
        shown(&call.expected_text),
        shown(&call.observed_text),
        call.tool_posts
    );
    if call.coarse {
        let _ = write!(
            page,
            "<p class=\"coarse\">coarse: {}</p>",
            esc(crate::coarse::NOTE)
        );
    }
    let failed_checks = call
        .checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| crate::checks::failure_line(&c.name, c.grade, &c.detail));
    let problems: Vec<String> = call.problems.iter().cloned().chain(failed_checks).collect();
    if !problems.is_empty() {
        page.push_str("<ul class=\"problems\">");
        for problem in &problems {
            let _ = write!(page, "<li>{}</li>", shown(problem));
        }
        page.push_str("</ul>");
    }
    if let Some(log) = &call.adapter_log {
        let (stderr, notes) = split_log(log);
        if !stderr.trim().is_empty() {
            let _ = write!(page, "<h4>adapter stderr</h4><pre>{}</pre>", shown(&stderr));
        }
        if !notes.is_empty() {
            let _ = write!(page, "<h4>runner notes</h4><pre>{}</pre>", shown(&notes));
        }
    }
}

/// What a cell shows closed: the observed outcome of the call that decided the verdict, and
/// what differs from the expectation (the problems' keys, failed checks by name).
fn seen(case: &JsonCase) -> String {
    if case.error.is_some() {
        return "case did not run".to_owned();
    }
    let Some(call) = case
        .calls
        .iter()
        .find(|c| c.verdict == case.verdict)
        .or(case.calls.first())
    else {
        return String::new();
    };
    let observed = match &call.observed {
        Some(AdapterReport::Observed(o)) => {
            let status = o.status.map(|s| format!(" {s}")).unwrap_or_default();
            let code = o.code.map(|c| format!(" {c}")).unwrap_or_default();
            format!("{}{status}{code}", o.outcome)
        }
        // Nothing to compare: the problem itself says what happened.
        Some(AdapterReport::Unsupported { unsupported }) => return unsupported.clone(),
        None => return call.problems.first().cloned().unwrap_or_default(),
    };
    let differs = differs(call);
    match differs.is_empty() {
        true => observed,
        false => format!("{observed} ({})", differs.join(", ")),
    }
}

/// The keys a call's problems name (`status: expected 503, observed none` names `status`),
/// then its failed checks.
fn differs(call: &JsonCall) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for problem in &call.problems {
        let key = problem.split_once(':').map(|(key, _)| key).unwrap_or("");
        let word = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let key = if word { key } else { "other" };
        if key != "outcome" && !keys.iter().any(|k| k == key) {
            keys.push(key.to_owned());
        }
    }
    let checks = call.checks.iter().filter(|c| !c.passed);
    keys.extend(checks.map(|c| format!("check {}", c.name)));
    keys
}

/// An adapter log split into what the adapter wrote and the runner's own notes (the lines
/// `AdapterLog::note` marks).
fn split_log(log: &str) -> (String, String) {
    const MARK: &str = "[mcp-error-layers] ";
    let (mut stderr, mut notes) = (String::new(), String::new());
    for line in log.split_inclusive('\n') {
        match line.strip_prefix(MARK) {
            Some(note) => notes.push_str(note),
            None => stderr.push_str(line),
        }
    }
    (stderr, notes)
}

/// The row's `id` attribute: the case id with every character outside `[A-Za-z0-9-]` as `_`.
pub fn anchor(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("case-{safe}")
}

/// Per adapter: the counts every summary has (docs/reports.md, "How a case counts"), then
/// per layer (the layer of the outcome the case's first call expects).
fn summary(page: &mut String, reports: &[JsonReport]) {
    if reports.is_empty() {
        return;
    }
    page.push_str(
        "<h2>Summary</h2>\n<table class=\"summary\">\n<thead><tr><th scope=\"col\">adapter</th>",
    );
    for (word, _, _) in summary_counts(&reports[0]) {
        let _ = write!(page, "<th scope=\"col\">{word}</th>");
    }
    page.push_str(
        "<th scope=\"col\">layer fidelity</th><th scope=\"col\">by layer: pass / cases</th>\
         </tr></thead>\n<tbody>\n",
    );
    for report in reports {
        let _ = write!(
            page,
            "<tr><th scope=\"row\">{}</th>",
            esc(&report.adapter.label())
        );
        for (_, class, n) in summary_counts(report) {
            let class = if n > 0 { class } else { "none" };
            let _ = write!(page, "<td class=\"n-{class}\">{n}</td>");
        }
        let _ = writeln!(
            page,
            "<td class=\"fidelity\">{}</td><td>{}</td></tr>",
            match (report.summary.model_fidelity, report.summary.hop_fidelity) {
                (None, None) => fidelity(report),
                _ => named_fidelity(report),
            },
            esc(&by_layer(report))
        );
    }
    page.push_str("</tbody>\n</table>\n");
}

/// The summary's columns: heading, the class of a non-zero count, the count. The same counts
/// and words as the CLI's summary line and the JSON `summary` (`report::Counts`).
fn summary_counts(report: &JsonReport) -> [(&'static str, &'static str, usize); 7] {
    let c = report.summary.counts();
    [
        ("passed", "pass", c.passed),
        ("accepted", "accepted", c.accepted),
        ("warnings", "warning", c.warnings),
        ("failed", "fail", c.failed),
        ("skipped", "unsupported", c.skipped),
        ("hangs", "hang", c.hangs),
        ("adapter errors", "adapter-error", c.adapter_errors),
    ]
}

fn by_layer(report: &JsonReport) -> String {
    let mut layers: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for case in &report.cases {
        let Some(call) = case.calls.first() else {
            continue;
        };
        let entry = layers
            .entry(call.expected.outcome.layer().to_string())
            .or_default();
        entry.1 += 1;
        if case.standing_word() == "pass" {
            entry.0 += 1;
        }
    }
    let parts: Vec<String> = layers
        .iter()
        .map(|(layer, (pass, all))| format!("{layer} {pass}/{all}"))
        .collect();
    parts.join(" · ")
}

/// Failures first, without script: per adapter, the cases that fail its run, then those that
/// deviate without failing it, each a link to its row.
fn failures(page: &mut String, reports: &[JsonReport]) {
    if reports.is_empty() {
        return;
    }
    page.push_str("<h2>What deviates</h2>\n");
    for report in reports {
        let failing: Vec<&JsonCase> = report.cases.iter().filter(|c| c.fails_run).collect();
        let warnings: Vec<&JsonCase> = report
            .cases
            .iter()
            .filter(|c| !c.fails_run && c.standing_word() == "warning")
            .collect();
        // The accepted ones are counted, not listed: a baseline is long (an SDK row accepts
        // dozens), each has its dashed cell in the grid, and listing them made the page of every
        // row weigh a fifth more.
        let accepted = report
            .cases
            .iter()
            .filter(|c| !c.fails_run && c.standing_word() == "accepted")
            .count();
        let _ = write!(
            page,
            "<details class=\"deviations\"{}><summary>{}: {} fail the run, {} deviate without failing it \
             ({} accepted by the baseline, dashed in the grid)</summary>",
            if failing.is_empty() { "" } else { " open" },
            esc(&report.adapter.label()),
            failing.len(),
            warnings.len() + accepted,
            accepted
        );
        deviation_list(page, "fail the run", &failing);
        deviation_list(page, "warnings", &warnings);
        page.push_str("</details>\n");
    }
}

fn deviation_list(page: &mut String, title: &str, cases: &[&JsonCase]) {
    if cases.is_empty() {
        return;
    }
    let _ = write!(page, "<h3>{}</h3><ul>", esc(title));
    for case in cases {
        let _ = write!(
            page,
            "<li><a href=\"#{}\">{}</a> {} · {}</li>",
            anchor(&case.id),
            esc(&case.id),
            esc(case.standing_word()),
            esc(&seen(case))
        );
    }
    page.push_str("</ul>");
}

/// Text for HTML: the five characters with a meaning in markup or attributes become
/// references, and control characters (which HTML does not allow in text, and which an adapter
/// or a client may write) become visible: C0 ones and DEL as their Control Pictures (`␛` for
/// ESC, `␀` for NUL), C1 ones as `\u{85}`. Tab, line feed and carriage return stay.
pub fn esc(text: &str) -> String {
    escape(text, true)
}

/// `esc`, or without `quotes` the same but for the quotes, for text that is never put in an
/// attribute.
fn escape(text: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quotes => out.push_str("&quot;"),
            '\'' if quotes => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            '\u{0}'..='\u{1f}' => out.extend(char::from_u32(0x2400 + u32::from(c))),
            '\u{7f}' => out.push('\u{2421}'),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use packed::tests::unpack;
    use serde_json::{Value, json};

    /// A case of a JSON report: one call, which observed `observed` and whose adapter wrote
    /// `log`.
    fn case(id: &str, observed: &str, log: &str, transcript: &str) -> Value {
        json!({
            "id": id, "summary": "s", "grade": "must", "verdict": "fail", "status": "fail",
            "standing": "fail", "fails_run": true, "error": null, "duration_ms": 1,
            "server": {"exchanges": []}, "transcript": transcript,
            "calls": [{
                "expected": {"outcome": "TOOL_SUCCESS"}, "verdict": "fail",
                "observed": {"outcome": "TIMEOUT", "status": null, "code": null, "detail": ""},
                "problems": ["outcome: expected TOOL_SUCCESS, observed TIMEOUT"], "tool_posts": 1,
                "duration_ms": 1, "expected_text": "TOOL_SUCCESS", "observed_text": observed,
                "adapter_log": log
            }]
        })
    }

    fn report(name: &str, cases: Vec<Value>) -> JsonReport {
        let value = json!({
            "schema": super::super::json::SCHEMA, "generator": "test",
            "adapter": {"name": name, "version": "1"}, "protocol_version": null, "strict": false,
            "summary": {"cases": cases.len(), "passed": 0, "failed": cases.len(), "warnings": 0,
                        "skipped": 0, "verdicts": {"pass": 0, "unsupported": 0,
                        "fail": cases.len(), "hang": 0, "adapter-error": 0}},
            "cases": cases,
        });
        serde_json::from_value(value).unwrap()
    }

    /// An opened cell shows what the page once showed inline, escaped for element content; the
    /// page itself carries it only packed.
    #[test]
    fn an_opened_cell_has_the_adapter_log_and_the_transcript() {
        let log = "sdk: got <200> & \"more\"\n[mcp-error-layers] not announced\n";
        let transcript = "→ POST /mcp {\"id\":1}\n";
        let page = render(&[report("sdk", vec![case("a/b", "TIMEOUT", log, transcript)])]);
        let cells = unpack(&page);
        assert_eq!(cells.len(), 1);
        for part in [
            "<h4>adapter stderr</h4><pre>sdk: got &lt;200&gt; &amp; \"more\"\n</pre>",
            "<h4>runner notes</h4><pre>not announced\n</pre>",
            "<h4>transcript</h4><pre>→ POST /mcp {\"id\":1}\n</pre>",
            "<dt>observed</dt><dd><code>TIMEOUT</code></dd>",
            "<li>outcome: expected TOOL_SUCCESS, observed TIMEOUT</li>",
        ] {
            assert!(cells[0].contains(part), "{part}: {}", cells[0]);
        }
        assert!(!page.contains("<h4>"), "{page}");
        assert_eq!(page.matches("<script>").count(), 1);
    }

    /// Cells are packed column after column, one per row, and a case a report lacks packs as
    /// an empty cell: the script finds a cell at `column × rows + row`.
    #[test]
    fn cells_are_packed_column_after_column() {
        let first = report(
            "one",
            vec![case("a/x", "one-x", "", ""), case("a/y", "one-y", "", "")],
        );
        let second = report("two", vec![case("a/y", "two-y", "", "")]);
        let cells = unpack(&render(&[first, second]));
        let observed = |n: usize, text: &str| {
            cells[n].contains(&format!("<dt>observed</dt><dd><code>{text}</code>"))
        };
        assert_eq!(cells.len(), 4);
        assert!(observed(0, "one-x") && observed(1, "one-y"));
        assert_eq!(cells[2], "");
        assert!(observed(3, "two-y"));
    }

    /// What an adapter wrote weighs on the page only up to a bound per cell.
    #[test]
    fn a_long_transcript_is_clipped() {
        let long: String = (0..20_000).map(|n| format!("line {n}\n")).collect();
        let cells = unpack(&render(&[report(
            "sdk",
            vec![case("a/b", "x", &long, &long)],
        )]));
        assert!(cells[0].contains("line 0\n") && cells[0].contains("line 19999\n"));
        assert!(!cells[0].contains("line 10000\n"));
        assert_eq!(cells[0].matches(" bytes left out …]").count(), 2);
        assert!(cells[0].len() < 20_000, "{}", cells[0].len());
    }

    #[test]
    fn escapes_markup_and_attribute_quotes() {
        assert_eq!(
            esc("<a href='x'>\"&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&quot;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn control_characters_become_visible_and_line_breaks_stay() {
        assert_eq!(
            esc("a\u{0}b\u{1b}[31mc\u{7f}\u{85}\td\r\n"),
            "a\u{2400}b\u{241b}[31mc\u{2421}\\u{85}\td\r\n"
        );
    }

    #[test]
    fn no_reports_still_make_a_page() {
        let page = render(&[]);
        assert!(page.contains("0 cases × 0 adapters"));
        assert!(page.ends_with("</html>\n"));
    }
}

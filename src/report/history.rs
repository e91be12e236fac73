//! A sweep's history: one adapter at several versions of its SDK, as a table of cases × versions
//! whose cells are what the SDK was observed to do, with the version where a case's behaviour
//! changed marked. Written as markdown and as one HTML page without script.
//!
//! A history folder keeps what the pages need, one line per case and version, in
//! `versions.tsv` and `cases.tsv` (`store.rs` and docs/reports.md describe them), beside `history.md` and
//! `history.html`. Versions come in as a sweep writes them (`harness/adapters/sweep.py`;
//! shards of a sweep are copied into one folder): `<version>.json`, a report of the adapter at
//! that version, and `<version>.unavailable.txt`, why that version could not be installed or
//! driven. Such files in the folder, or given beside it, replace what the folder keeps of their
//! version. Versions are ordered as releases are: numbers compared as numbers, a pre-release
//! before its release.

use super::json::JsonReport;
use crate::verdict::Verdict;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod store;
pub use store::{CASES, Call, Calls, MAX_FILE_BYTES, Record, Reported, Run, VERSIONS};

/// The markdown file a history folder holds.
pub const MARKDOWN: &str = "history.md";
/// The HTML page a history folder holds.
pub const HTML: &str = "history.html";

/// A history that cannot be read: which file (and line), and why.
#[derive(Debug, thiserror::Error)]
#[error("history {}{}: {why}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct HistoryError {
    /// The file or folder.
    pub path: PathBuf,
    /// The line of the file, when one line is wrong.
    pub line: Option<usize>,
    /// Why, and what to do.
    pub why: String,
}

impl HistoryError {
    fn new(path: PathBuf, line: Option<usize>, why: String) -> Self {
        HistoryError { path, line, why }
    }
}

/// One version: what the history keeps of its run, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The SDK version.
    pub version: String,
    /// The run at that version, or why it could not happen.
    pub run: Result<Run, String>,
}

/// What one case did at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The case's verdict (its colour).
    pub verdict: Verdict,
    /// What the SDK did, per call: `HTTP_ERROR 503`, `TIMEOUT`, `TOOL_SUCCESS ×2 POSTs`.
    pub behaviour: String,
    /// Whether the behaviour differs from the previous version that ran the case.
    pub changed: bool,
}

/// A case whose behaviour changed between two versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The case id.
    pub case: String,
    /// The last version before the change that ran the case.
    pub from: String,
    /// The version where the behaviour changed.
    pub to: String,
    /// Its behaviour at `from`.
    pub before: String,
    /// Its behaviour at `to`.
    pub after: String,
}

/// Cases × versions.
#[derive(Debug, Clone)]
pub struct History {
    /// The adapter all runs are of.
    pub adapter: String,
    /// The versions, oldest first.
    pub columns: Vec<Column>,
    /// Per case id, a cell per column (`None`: unavailable, or the case was not in that run).
    pub rows: BTreeMap<String, Vec<Option<Cell>>>,
}

impl History {
    /// Reads the folder `dir` (see the module documentation).
    pub fn read(dir: &Path) -> Result<History, HistoryError> {
        History::read_adding(dir, &[])
    }

    /// Reads the folder `dir`, then `added` (`<version>.json` reports and
    /// `<version>.unavailable.txt` files, as a sweep writes them): a version there replaces
    /// what `dir` has of it.
    pub fn read_adding(dir: &Path, added: &[PathBuf]) -> Result<History, HistoryError> {
        let error = |path: &Path, why: String| HistoryError::new(path.to_owned(), None, why);
        let mut columns: BTreeMap<String, Column> = BTreeMap::new();
        for column in store::read(dir)?.unwrap_or_default() {
            columns.insert(column.version.clone(), column);
        }
        let entries = std::fs::read_dir(dir).map_err(|e| error(dir, e.to_string()))?;
        let mut own = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| error(dir, e.to_string()))?.path();
            if version_file(&path).is_some() {
                own.push(path);
            }
        }
        own.sort();
        for files in [&own[..], added] {
            let mut versions = BTreeSet::new();
            for path in files {
                let column = read_version_file(path)?;
                if !versions.insert(column.version.clone()) {
                    let why = format!("version {} is there twice", column.version);
                    return Err(error(path, why));
                }
                columns.insert(column.version.clone(), column);
            }
        }
        History::of(columns.into_values().collect()).map_err(|why| error(dir, why))
    }

    /// The history of `columns` (in any order): they must all be of one adapter, each version once.
    pub fn of(mut columns: Vec<Column>) -> Result<History, String> {
        columns.sort_by(|a, b| version_order(&a.version, &b.version));
        if let Some(pair) = columns.windows(2).find(|w| w[0].version == w[1].version) {
            return Err(format!("version {} is there twice", pair[0].version));
        }
        let names: BTreeSet<&str> = columns
            .iter()
            .filter_map(|c| c.run.as_ref().ok())
            .map(|r| r.adapter.as_str())
            .collect();
        let adapter = match names.len() {
            0 if columns.is_empty() => {
                return Err(format!(
                    "no version: no {VERSIONS} and no <version>.json report or \
                     <version>.unavailable.txt"
                ));
            }
            0 => "(no version ran)".to_owned(),
            1 => names.into_iter().next().unwrap_or_default().to_owned(),
            _ => return Err(format!("runs of several adapters: {names:?}")),
        };
        let rows = rows(&columns);
        Ok(History {
            adapter,
            columns,
            rows,
        })
    }

    /// The files that keep this history: `versions.tsv` and `cases.tsv`, each with its text.
    pub fn tables(&self) -> [(&'static str, String); 2] {
        let (versions, cases) = store::texts(&self.columns);
        [(VERSIONS, versions), (CASES, cases)]
    }

    /// Every change, by version then case.
    pub fn changes(&self) -> Vec<Change> {
        let mut changes = Vec::new();
        for (id, cells) in &self.rows {
            let mut last: Option<(usize, &Cell)> = None;
            for (index, cell) in cells.iter().enumerate() {
                let Some(cell) = cell else { continue };
                if let (true, Some((from, before))) = (cell.changed, last) {
                    changes.push(Change {
                        case: id.clone(),
                        from: self.columns[from].version.clone(),
                        to: self.columns[index].version.clone(),
                        before: before.behaviour.clone(),
                        after: cell.behaviour.clone(),
                    });
                }
                last = Some((index, cell));
            }
        }
        changes.sort_by(|a, b| version_order(&a.to, &b.to).then_with(|| a.case.cmp(&b.case)));
        changes
    }

    /// The history as markdown: what changed when, then every case.
    pub fn markdown(&self) -> String {
        let mut out = format!("# {}: {}\n\n", self.adapter, self.span());
        out.push_str(
            "Generated by `mcp-error-layers report history` from `versions.tsv` and `cases.tsv` \
             beside this file. A cell is what the SDK did (per call: outcome, status, code, and the number \
             of `tools/call` POSTs when not 1); ◆ marks the version where it changed.\n\n",
        );
        self.markdown_versions(&mut out);
        self.markdown_changes(&mut out);
        out.push_str("\n## Every case\n\n| case |");
        for column in &self.columns {
            let _ = write!(out, " {} |", column.version);
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(self.columns.len()));
        out.push('\n');
        for (id, cells) in &self.rows {
            let _ = write!(out, "| `{id}` |");
            for (cell, column) in cells.iter().zip(&self.columns) {
                let text = match (cell, &column.run) {
                    (_, Err(_)) => "unavailable".to_owned(),
                    (None, Ok(_)) => "–".to_owned(),
                    (Some(cell), Ok(_)) => markdown_cell(cell),
                };
                let _ = write!(out, " {} |", table_text(&text));
            }
            out.push('\n');
        }
        out
    }

    fn markdown_versions(&self, out: &mut String) {
        out.push_str("| version | cases | passed | failed | ran |\n|---|---|---|---|---|\n");
        for column in &self.columns {
            match &column.run {
                Ok(run) => {
                    let _ = writeln!(
                        out,
                        "| {} | {} | {} | {} | yes |",
                        column.version,
                        run.cases.len(),
                        run.passed(),
                        run.failed()
                    );
                }
                Err(why) => {
                    let _ = writeln!(
                        out,
                        "| {} | | | | unavailable: {} |",
                        column.version,
                        table_text(why)
                    );
                }
            }
        }
    }

    fn markdown_changes(&self, out: &mut String) {
        out.push_str("\n## What changed when\n\n");
        let changes = self.changes();
        if changes.is_empty() {
            let _ = writeln!(
                out,
                "No case's behaviour changed across the versions tried ({}).",
                self.versions().join(", ")
            );
            return;
        }
        out.push_str("| version | case | before | after |\n|---|---|---|---|\n");
        for change in changes {
            let _ = writeln!(
                out,
                "| {} (from {}) | `{}` | {} | {} |",
                change.to,
                change.from,
                change.case,
                table_text(&change.before),
                table_text(&change.after)
            );
        }
    }

    /// The history as one HTML page, without script.
    pub fn html(&self) -> String {
        let esc = super::html::esc;
        let title = format!("{}: {}", self.adapter, self.span());
        let mut page = format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{t}</title>\n<style>{style}{CHANGED_STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n\
             <p>Each cell is what the SDK did in one case at one version (per call: outcome, \
             status, code, and the number of <code>tools/call</code> POSTs when not 1), coloured \
             by verdict; <span class=\"changed\">◆ outlined</span> where it changed from the \
             version before.</p>\n",
            t = esc(&title),
            style = super::html::STYLE,
        );
        page.push_str("<h2>What changed when</h2>\n");
        let changes = self.changes();
        if changes.is_empty() {
            let _ = writeln!(
                page,
                "<p>No case's behaviour changed across the versions tried ({}).</p>",
                esc(&self.versions().join(", "))
            );
        } else {
            page.push_str("<table class=\"matrix\">\n<tr><th>version</th><th>case</th><th>before</th><th>after</th></tr>\n");
            for c in &changes {
                let _ = writeln!(
                    page,
                    "<tr><td>{} <small>(from {})</small></td><td><a href=\"#{}\"><code>{}</code></a></td><td>{}</td><td>{}</td></tr>",
                    esc(&c.to),
                    esc(&c.from),
                    super::html::anchor(&c.case),
                    esc(&c.case),
                    esc(&c.before),
                    esc(&c.after)
                );
            }
            page.push_str("</table>\n");
        }
        page.push_str(
            "<h2>Every case</h2>\n<table class=\"matrix\">\n<thead><tr><th scope=\"col\">case</th>",
        );
        for column in &self.columns {
            let _ = match &column.run {
                Ok(r) => write!(
                    page,
                    "<th>{}<small>{} passed, {} failed</small></th>",
                    esc(&column.version),
                    r.passed(),
                    r.failed()
                ),
                Err(why) => write!(
                    page,
                    "<th>{}<small>unavailable: {}</small></th>",
                    esc(&column.version),
                    esc(why)
                ),
            };
        }
        page.push_str("</tr></thead>\n<tbody>\n");
        for (id, cells) in &self.rows {
            let _ = write!(
                page,
                "<tr id=\"{}\"><th scope=\"row\"><code>{}</code></th>",
                super::html::anchor(id),
                esc(id)
            );
            for (cell, column) in cells.iter().zip(&self.columns) {
                page.push_str(&html_cell(cell.as_ref(), column.run.is_ok()));
            }
            page.push_str("</tr>\n");
        }
        page.push_str("</tbody>\n</table>\n</body>\n</html>\n");
        page
    }

    fn versions(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.version.clone()).collect()
    }

    /// `1.30.0 … 1.32.2 (6 versions)`.
    fn span(&self) -> String {
        match (self.columns.first(), self.columns.last()) {
            (Some(first), Some(last)) => format!(
                "{} … {} ({} versions)",
                first.version,
                last.version,
                self.columns.len()
            ),
            _ => "no version".to_owned(),
        }
    }
}

/// Added to the matrix page's styles (`html::STYLE`): the outline that marks a change.
const CHANGED_STYLE: &str =
    ".changed { outline: 3px solid #1f4fd1; outline-offset: -3px; font-weight: 600; }\n";

fn html_cell(cell: Option<&Cell>, ran: bool) -> String {
    let esc = super::html::esc;
    match (cell, ran) {
        (Some(cell), _) => {
            let changed = if cell.changed { " changed" } else { "" };
            let mark = if cell.changed { "◆ " } else { "" };
            format!(
                "<td class=\"v-{}{changed}\">{mark}{}</td>",
                cell.verdict,
                esc(&cell.behaviour)
            )
        }
        (None, true) => "<td class=\"v-none\">not run</td>".to_owned(),
        (None, false) => "<td class=\"v-none\">unavailable</td>".to_owned(),
    }
}

/// `✓ TOOL_SUCCESS`, `◆ ✗ TIMEOUT`: the verdict's sign, the behaviour, the change marked.
fn markdown_cell(cell: &Cell) -> String {
    let sign = match cell.verdict {
        Verdict::Pass => "✓",
        Verdict::Fail => "✗",
        Verdict::Hang => "⧗",
        Verdict::AdapterError => "!",
        Verdict::Unsupported => "–",
    };
    match cell.changed {
        true => format!("◆ **{sign} {}**", cell.behaviour),
        false => format!("{sign} {}", cell.behaviour),
    }
}

/// A markdown table cell: pipes escaped, one line.
fn table_text(text: &str) -> String {
    super::one_line(text).replace('|', "\\|")
}

/// Every case id of every run, each with a cell per column, changes marked.
fn rows(columns: &[Column]) -> BTreeMap<String, Vec<Option<Cell>>> {
    let mut rows: BTreeMap<String, Vec<Option<Cell>>> = BTreeMap::new();
    for (index, column) in columns.iter().enumerate() {
        let Ok(run) = &column.run else { continue };
        for record in &run.cases {
            let cells = rows
                .entry(record.case.clone())
                .or_insert_with(|| vec![None; columns.len()]);
            cells[index] = Some(Cell {
                verdict: record.verdict,
                behaviour: record.behaviour(),
                changed: false,
            });
        }
    }
    for cells in rows.values_mut() {
        let mut last: Option<String> = None;
        for cell in cells.iter_mut().flatten() {
            cell.changed = last.as_ref().is_some_and(|b| *b != cell.behaviour);
            last = Some(cell.behaviour.clone());
        }
    }
    rows
}

/// The version a sweep's file is of: `1.2.0` for `1.2.0.json` and `1.2.0.unavailable.txt`.
fn version_file(path: &Path) -> Option<(String, bool)> {
    let name = path.file_name()?.to_str()?;
    if let Some(version) = name.strip_suffix(".unavailable.txt") {
        return Some((version.to_owned(), false));
    }
    name.strip_suffix(".json").map(|v| (v.to_owned(), true))
}

/// The column of one sweep file: a report must be of the version its name says.
fn read_version_file(path: &Path) -> Result<Column, HistoryError> {
    let error = |why: String| HistoryError::new(path.to_owned(), None, why);
    let Some((version, report)) = version_file(path).filter(|(v, _)| !v.is_empty()) else {
        return Err(error(
            "is neither a <version>.json report nor a <version>.unavailable.txt".into(),
        ));
    };
    if !report {
        let why = crate::input::read_to_string(path, crate::input::Kind::History)
            .map_err(|e| error(e.why()))?;
        let why = why.trim().to_owned();
        return Ok(Column {
            version,
            run: Err(why),
        });
    }
    let report = JsonReport::read(path).map_err(|e| error(e.to_string()))?;
    if report.adapter.version.as_deref() != Some(version.as_str()) {
        let named = report.adapter.label();
        return Err(error(format!("is a report of {named}, not of {version}")));
    }
    let run = Run::of(&report).map_err(error)?;
    Ok(Column {
        version,
        run: Ok(run),
    })
}

/// Release order: the leading dotted numbers compared as numbers, then a pre-release
/// (`2.0.0-beta.1`, `2.0.0rc1`) before its release, then the text.
pub fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(version: &str) -> (Vec<u64>, bool, &str) {
        let end = version
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(version.len());
        let (numbers, rest) = version.split_at(end);
        let numbers = numbers
            .split('.')
            .filter(|n| !n.is_empty())
            .map(|n| n.parse().unwrap_or(u64::MAX))
            .collect();
        (numbers, rest.is_empty(), rest)
    }
    key(a).cmp(&key(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// A report of `sdk` at `version` whose cases each made one call with this outcome (and
    /// status 503), standing `pass` when their verdict is `pass` and `fail` otherwise.
    pub(super) fn report(version: &str, cases: &[(&str, &str, &str, u32)]) -> JsonReport {
        let cases: Vec<Value> = cases
            .iter()
            .map(|(id, verdict, outcome, posts)| {
                let standing = if *verdict == "pass" { "pass" } else { "fail" };
                json!({
                    "id": id, "summary": "s", "grade": "must", "verdict": verdict,
                    "status": standing, "standing": standing, "fails_run": standing == "fail",
                    "error": null, "duration_ms": 1,
                    "server": {"exchanges": []}, "transcript": "",
                    "calls": [{
                        "expected": {"outcome": "TOOL_SUCCESS"}, "verdict": verdict,
                        "observed": {"outcome": outcome, "status": 503, "code": null, "detail": ""},
                        "problems": [], "tool_posts": posts, "duration_ms": 1,
                        "expected_text": "", "observed_text": ""
                    }]
                })
            })
            .collect();
        let passed = cases.iter().filter(|c| c["standing"] == "pass").count();
        let value = json!({
            "schema": super::super::json::SCHEMA, "generator": "test",
            "adapter": {"name": "sdk", "version": version}, "protocol_version": null,
            "strict": false,
            "summary": {"cases": cases.len(), "passed": passed, "failed": cases.len() - passed,
                        "warnings": 0, "skipped": 0, "verdicts": {"pass": 0, "unsupported": 0,
                        "fail": 0, "hang": 0, "adapter-error": 0}},
            "cases": cases,
        });
        serde_json::from_value(value).unwrap()
    }

    pub(super) fn column(version: &str, cases: &[(&str, &str, &str, u32)]) -> Column {
        Column {
            version: version.into(),
            run: Ok(Run::of(&report(version, cases)).unwrap()),
        }
    }

    #[test]
    fn versions_sort_as_releases_do() {
        let mut versions = vec![
            "1.10.0",
            "2.0.0",
            "1.9.1",
            "2.0.0-beta.2",
            "2.0.0rc1",
            "1.9.0",
        ];
        versions.sort_by(|a, b| version_order(a, b));
        assert_eq!(
            versions,
            [
                "1.9.0",
                "1.9.1",
                "1.10.0",
                "2.0.0-beta.2",
                "2.0.0rc1",
                "2.0.0"
            ]
        );
    }

    #[test]
    fn the_version_where_a_case_changed_is_marked_across_an_unavailable_one() {
        let history = History::of(vec![
            column(
                "1.10.0",
                &[("a", "pass", "HTTP_ERROR", 1), ("b", "fail", "TIMEOUT", 1)],
            ),
            column(
                "1.9.0",
                &[("a", "pass", "HTTP_ERROR", 1), ("b", "fail", "TIMEOUT", 1)],
            ),
            Column {
                version: "1.9.5".into(),
                run: Err("npm install failed: E404".into()),
            },
            column(
                "1.11.0",
                &[("a", "pass", "HTTP_ERROR", 2), ("b", "fail", "TIMEOUT", 1)],
            ),
        ])
        .unwrap();
        let versions: Vec<&str> = history.columns.iter().map(|c| c.version.as_str()).collect();
        assert_eq!(versions, ["1.9.0", "1.9.5", "1.10.0", "1.11.0"]);
        assert_eq!(
            history.changes(),
            [Change {
                case: "a".into(),
                from: "1.10.0".into(),
                to: "1.11.0".into(),
                before: "HTTP_ERROR 503".into(),
                after: "HTTP_ERROR 503 ×2 POSTs".into(),
            }]
        );
        let markdown = history.markdown();
        assert!(
            markdown.contains(
                "| 1.11.0 (from 1.10.0) | `a` | HTTP_ERROR 503 | HTTP_ERROR 503 ×2 POSTs |"
            ),
            "{markdown}"
        );
        assert!(markdown.contains("| 1.9.5 | | | | unavailable: npm install failed: E404 |"));
        assert!(markdown.contains(
            "| `a` | ✓ HTTP_ERROR 503 | unavailable | ✓ HTTP_ERROR 503 | ◆ **✓ HTTP_ERROR 503 ×2 POSTs** |"
        ));
        let html = history.html();
        assert!(html.contains("<td class=\"v-pass changed\">◆ HTTP_ERROR 503 ×2 POSTs</td>"));
        assert!(html.contains("unavailable: npm install failed: E404"));
        assert!(!html.contains("<script"));
    }

    #[test]
    fn no_change_says_so_with_the_versions_tried() {
        let history = History::of(vec![
            column("1.0.0", &[("a", "fail", "TIMEOUT", 1)]),
            column("1.0.1", &[("a", "fail", "TIMEOUT", 1)]),
        ])
        .unwrap();
        assert!(history.changes().is_empty());
        assert!(
            history
                .markdown()
                .contains("No case's behaviour changed across the versions tried (1.0.0, 1.0.1).")
        );
    }

    #[test]
    fn a_case_added_later_is_not_run_before_and_not_a_change() {
        let history = History::of(vec![
            column("1.0.0", &[("a", "fail", "TIMEOUT", 1)]),
            column(
                "1.0.1",
                &[
                    ("a", "fail", "TIMEOUT", 1),
                    ("new", "pass", "TOOL_ERROR", 1),
                ],
            ),
        ])
        .unwrap();
        assert!(history.changes().is_empty());
        assert!(
            history
                .markdown()
                .contains("| `new` | – | ✓ TOOL_ERROR 503 |")
        );
    }

    #[test]
    fn reports_of_two_adapters_or_a_version_twice_are_refused() {
        let mut other = column("1.0.1", &[]);
        if let Ok(run) = &mut other.run {
            run.adapter = "other".into();
        }
        let two = History::of(vec![column("1.0.0", &[]), other]).unwrap_err();
        assert!(two.contains("runs of several adapters"), "{two}");
        let twice = History::of(vec![column("1.0.0", &[]), column("1.0.0", &[])]).unwrap_err();
        assert!(twice.contains("version 1.0.0 is there twice"), "{twice}");
    }
}

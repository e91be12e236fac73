//! The recorded histories under `harness/history/<line>/` (issue 13): each keeps only what its
//! pages need (`versions.tsv`, `cases.tsv`: issue 25), which parses and is as `mcp-error-layers
//! report history` writes it; its `history.md` and `history.html` are what that command makes of
//! it; and its newest version is the adapter's pin, observed as the adapter's snapshots under
//! `snapshots/<adapter>/` say (for every case both have: a case added since the sweep is not in
//! the history). No network: it reads committed files only.

use mcp_error_layers::report::history::{CASES, Cell, HTML, History, MARKDOWN, VERSIONS};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every history folder (one per SDK line).
fn lines() -> Vec<PathBuf> {
    let mut lines: Vec<PathBuf> = std::fs::read_dir(root().join("harness/history"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    lines.sort();
    lines
}

/// `version` in `harness/adapters/<adapter>/adapter.toml`.
fn pinned(adapter: &str) -> String {
    let path = root()
        .join("harness/adapters")
        .join(adapter)
        .join("adapter.toml");
    let manifest: toml::Table = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    manifest["version"].as_str().unwrap().to_owned()
}

/// Per case id, what the snapshots in `snapshots/<adapter>/` say the pinned SDK did, in the
/// history's words (`HTTP_ERROR 503 ×2 POSTs`).
fn snapshot_behaviours(adapter: &str) -> BTreeMap<String, String> {
    let dir = root().join("snapshots").join(adapter);
    std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "snap"))
        .map(|path| snapshot_behaviour(&std::fs::read_to_string(path).unwrap()))
        .collect()
}

/// One snapshot's case id and behaviour: per call (`  - verdict:`), the observed `outcome`,
/// `status`, `code` (`~`: none) and `tool_posts`, or the verdict when nothing was observed.
fn snapshot_behaviour(text: &str) -> (String, String) {
    let body = text.splitn(3, "---\n").nth(2).unwrap_or(text);
    let mut case = String::new();
    let mut calls: Vec<BTreeMap<&str, &str>> = Vec::new();
    for line in body.lines() {
        if line.starts_with("server:") {
            break;
        }
        if let Some(id) = line.strip_prefix("case: ") {
            case = id.to_owned();
        } else if let Some(verdict) = line.strip_prefix("  - verdict: ") {
            calls.push(BTreeMap::from([("verdict", verdict)]));
        } else if let (Some(call), Some((key, value))) = (calls.last_mut(), line.split_once(": ")) {
            call.entry(key.trim()).or_insert(value.trim());
        }
    }
    let words: Vec<String> = calls.iter().map(call_words).collect();
    (case, words.join(" · "))
}

fn call_words(call: &BTreeMap<&str, &str>) -> String {
    let posts = match call.get("tool_posts") {
        Some(&"1") | None => String::new(),
        Some(n) => format!(" ×{n} POSTs"),
    };
    let present = |key: &str| {
        call.get(key)
            .filter(|v| **v != "~")
            .map(|v| format!(" {v}"))
    };
    match (call.get("outcome"), call.contains_key("unsupported")) {
        (Some(outcome), _) => format!(
            "{outcome}{}{}{posts}",
            present("status").unwrap_or_default(),
            present("code").unwrap_or_default()
        ),
        (None, true) => "unsupported".to_owned(),
        (None, false) => format!("{}{posts}", call["verdict"]),
    }
}

/// A page without its `<style>` element: the styles are the HTML matrix's
/// (`report::html`), and a change to them does not make a recorded page's content stale.
fn unstyled(page: &str) -> String {
    match (page.find("<style>"), page.find("</style>")) {
        (Some(start), Some(end)) if start < end => format!("{}{}", &page[..start], &page[end..]),
        _ => page.to_owned(),
    }
}

#[test]
fn there_is_a_recorded_history() {
    assert!(!lines().is_empty(), "no folder under harness/history/");
}

/// `regenerate: cargo run ... report history harness/history/<line>`.
fn regenerate(line: &Path) -> String {
    format!(
        "regenerate: cargo run -p mcp-error-layers-cli -- report history {}",
        line.strip_prefix(root()).unwrap().display()
    )
}

#[test]
fn each_history_keeps_its_two_tables_and_its_pages_and_nothing_else() {
    for line in lines() {
        let mut names: Vec<String> = std::fs::read_dir(&line)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [CASES, HTML, MARKDOWN, VERSIONS],
            "{}: a recorded history keeps {VERSIONS}, {CASES} and its pages only; add a \
             sweep's versions with `sweep.py ADAPTER VERSION... --history {}` (or `report \
             history {} REPORT...`), never its reports",
            line.display(),
            line.strip_prefix(root()).unwrap().display(),
            line.strip_prefix(root()).unwrap().display()
        );
    }
}

#[test]
fn each_history_is_kept_as_report_history_writes_it() {
    for line in lines() {
        let history = History::read(&line).unwrap_or_else(|e| panic!("{e}"));
        for (file, text) in history.tables() {
            let committed = std::fs::read_to_string(line.join(file)).unwrap();
            assert!(
                committed == text,
                "{}/{file} is not as `report history` writes it (sorted, escaped, one header); \
                 {}",
                line.display(),
                regenerate(&line)
            );
        }
    }
}

#[test]
fn each_history_page_is_generated_from_its_kept_tables() {
    for line in lines() {
        let history = History::read(&line).unwrap_or_else(|e| panic!("{e}"));
        let regenerate = regenerate(&line);
        for (file, text) in [(MARKDOWN, history.markdown()), (HTML, history.html())] {
            let committed = std::fs::read_to_string(line.join(file)).unwrap_or_default();
            assert!(
                unstyled(&committed) == unstyled(&text),
                "{}/{file} is stale; {regenerate}",
                line.display()
            );
        }
    }
}

#[test]
fn the_newest_version_of_each_history_is_the_pin_and_agrees_with_its_snapshots() {
    for line in lines() {
        let history = History::read(&line).unwrap_or_else(|e| panic!("{e}"));
        let newest = history.columns.iter().rposition(|c| c.run.is_ok());
        let newest = newest.unwrap_or_else(|| panic!("{}: no version ran", line.display()));
        let (adapter, version) = (&history.adapter, &history.columns[newest].version);
        assert_eq!(
            *version,
            pinned(adapter),
            "{}: the newest version that ran is not {adapter}'s pin: sweep the pin \
             (harness/history/README.md)",
            line.display()
        );
        let snapshots = snapshot_behaviours(adapter);
        // A case added (or renamed) since the sweep has a snapshot but no row: the history
        // predates it, and says nothing about it. Every case both know must agree.
        let mut compared = 0;
        for (case, expected) in &snapshots {
            let Some(cells) = history.rows.get(case) else {
                continue;
            };
            let cell: Option<&Cell> = cells[newest].as_ref();
            let seen = cell.map_or("(not run at that version)", |c| c.behaviour.as_str());
            assert_eq!(
                seen,
                expected,
                "{}: {case} at {version}: the history says {seen:?}, snapshots/{adapter}/ \
                 says {expected:?}",
                line.display()
            );
            compared += 1;
        }
        assert!(
            compared * 2 > snapshots.len(),
            "{}: only {compared} of the {} cases in snapshots/{adapter}/ are in the history: \
             sweep again",
            line.display(),
            snapshots.len()
        );
    }
}

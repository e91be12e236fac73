//! `report history DIR`: a sweep's folder of per-version reports becomes `history.md` and
//! `history.html`; a folder that is not one exits 2 naming it.

use std::path::{Path, PathBuf};

#[path = "support/bin.rs"]
mod support;
use support::{bin, temp_dir};

/// The recorded python-sdk history: 1.30.0 and 2.0.0 differ in many cases.
fn recorded(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../harness/history/python-sdk")
        .join(format!("{version}.json"))
}

#[test]
fn a_folder_of_reports_becomes_the_markdown_and_the_page() {
    let dir = temp_dir("history-ok");
    for version in ["1.30.0", "2.0.0"] {
        std::fs::copy(recorded(version), dir.join(format!("{version}.json"))).unwrap();
    }
    std::fs::write(
        dir.join("1.9.0.unavailable.txt"),
        "pip install failed: no wheel\n",
    )
    .unwrap();
    let output = bin(&["report", "history", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.starts_with("history of python-sdk: 3 versions (1 unavailable), 54 changes: "),
        "{stdout}"
    );
    let markdown = std::fs::read_to_string(dir.join("history.md")).unwrap();
    assert!(
        markdown.starts_with("# python-sdk: 1.9.0 … 2.0.0 (3 versions)\n"),
        "{markdown}"
    );
    assert!(markdown.contains("| 1.9.0 | | | | unavailable: pip install failed: no wheel |"));
    assert!(markdown.contains(
        "| 2.0.0 (from 1.30.0) | `jsonrpc/malformed-json` | TIMEOUT | JSONRPC_ERROR -32700 |"
    ));
    let page = std::fs::read_to_string(dir.join("history.html")).unwrap();
    assert!(
        page.contains("<td class=\"v-fail changed\">◆ JSONRPC_ERROR -32700</td>"),
        "{page}"
    );
}

#[test]
fn a_folder_without_reports_or_with_a_mislabelled_one_exits_2_naming_it() {
    let empty = temp_dir("history-empty");
    let output = bin(&["report", "history", empty.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no <version>.json report"), "{stderr}");
    let wrong = temp_dir("history-wrong");
    std::fs::copy(recorded("2.0.0"), wrong.join("2.1.0.json")).unwrap();
    let output = bin(&["report", "history", wrong.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("2.1.0.json: is a report of python-sdk 2.0.0, not of 2.1.0"),
        "{stderr}"
    );
}

//! `report history DIR [FILE]...`: a sweep's reports become what the history keeps
//! (`versions.tsv`, `cases.tsv`) and its pages, which the kept files alone make again; a
//! folder that is no history, or a broken kept file, exits 2 naming the file (and the line).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

#[path = "support/bin.rs"]
mod support;
use support::{bin, temp_dir};

const CASES: [&str; 2] = [
    "retry/destructive-503-not-retried",
    "retry/read-only-503-twice-then-success",
];

/// A sweep's folder, made once: the reference client as "version" 1.0.0 and, not retrying,
/// as 1.1.0 (one case changes: it retried a 503 into a success, and now gives up), each a
/// full JSON report; 0.9.0 could not be installed.
fn sweep() -> &'static Path {
    static SWEEP: OnceLock<PathBuf> = OnceLock::new();
    SWEEP.get_or_init(|| {
        let dir = temp_dir("history-sweep");
        for (version, retry) in [("1.0.0", "repeatable-tools"), ("1.1.0", "never")] {
            let json = dir.join(format!("{version}.json"));
            let mut args = vec!["run", "--json", json.to_str().unwrap()];
            args.extend(["--adapter-version", version, "--retry", retry, "--exact"]);
            args.extend(CASES);
            let output = bin(&args);
            assert!(output.status.success(), "{}", text(&output.stderr));
        }
        std::fs::write(
            dir.join("0.9.0.unavailable.txt"),
            "npm install failed: E404\n",
        )
        .unwrap();
        dir
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `report history DIR FILE...`, which must exit 0; its stdout.
fn history(dir: &Path, files: &[&Path]) -> String {
    let output = run_history(dir, files);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    text(&output.stdout)
}

fn run_history(dir: &Path, files: &[&Path]) -> Output {
    let mut args = vec!["report", "history", dir.to_str().unwrap()];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    bin(&args)
}

/// A folder's four files.
fn written(dir: &Path) -> Vec<(&'static str, String)> {
    ["versions.tsv", "cases.tsv", "history.md", "history.html"]
        .map(|name| (name, std::fs::read_to_string(dir.join(name)).unwrap()))
        .to_vec()
}

#[test]
fn a_sweep_becomes_the_kept_files_and_the_pages_which_the_kept_files_alone_make_again() {
    let dir = temp_dir("history-from-reports");
    for file in ["0.9.0.unavailable.txt", "1.0.0.json", "1.1.0.json"] {
        std::fs::copy(sweep().join(file), dir.join(file)).unwrap();
    }
    let stdout = history(&dir, &[]);
    assert!(
        stdout.starts_with("history of reference: 3 versions (1 unavailable), 1 changes: "),
        "{stdout}"
    );
    let files = written(&dir);
    let generator = format!("mcp-error-layers {}", env!("CARGO_PKG_VERSION"));
    assert_eq!(
        files[0].1,
        format!(
            "version\tadapter\tgenerator\tunavailable\n\
             0.9.0\t-\t-\tnpm install failed: E404\n\
             1.0.0\treference\t{generator}\t-\n\
             1.1.0\treference\t{generator}\t-\n"
        )
    );
    assert_eq!(
        files[1].1,
        "version\tcase\tgrade\tstanding\tverdict\tcalls\n\
         1.0.0\tretry/destructive-503-not-retried\tshould\tpass\tpass\tHTTP_ERROR status=503\n\
         1.0.0\tretry/read-only-503-twice-then-success\tshould\tpass\tpass\tTOOL_SUCCESS status=200 tool_posts=3\n\
         1.1.0\tretry/destructive-503-not-retried\tshould\tpass\tpass\tHTTP_ERROR status=503\n\
         1.1.0\tretry/read-only-503-twice-then-success\tshould\twarning\tfail\tHTTP_ERROR status=503\n"
    );
    let markdown = &files[2].1;
    assert!(markdown.contains("| 0.9.0 | | | | unavailable: npm install failed: E404 |"));
    assert!(
        markdown.contains("| 1.1.0 | 2 | 1 | 0 | yes |"),
        "{markdown}"
    );
    assert!(markdown.contains(
        "| 1.1.0 (from 1.0.0) | `retry/read-only-503-twice-then-success` | TOOL_SUCCESS 200 ×3 POSTs | HTTP_ERROR 503 |"
    ));
    assert!(
        files[3]
            .1
            .contains("<td class=\"v-fail changed\">◆ HTTP_ERROR 503</td>"),
        "{}",
        files[3].1
    );

    // The kept files alone, without a report, make the same pages and keep the same.
    let lean = temp_dir("history-lean");
    for (name, text) in &files[..2] {
        std::fs::write(lean.join(name), text).unwrap();
    }
    assert!(history(&lean, &[]).starts_with("history of reference: 3 versions (1 unavailable)"));
    assert_eq!(written(&lean), files);
}

/// The recorded python-sdk history (`harness/history/python-sdk`): 1.30.0 and 2.0.0 differ in
/// many cases.
#[test]
fn a_recorded_history_grows_by_a_version_given_beside_it() {
    let recorded = Path::new(env!("CARGO_MANIFEST_DIR")).join("../harness/history/python-sdk");
    let dir = temp_dir("history-recorded");
    for name in ["versions.tsv", "cases.tsv"] {
        std::fs::copy(recorded.join(name), dir.join(name)).unwrap();
    }
    let elsewhere = temp_dir("history-recorded-sweep");
    let gone = elsewhere.join("1.9.0.unavailable.txt");
    std::fs::write(&gone, "pip install failed: no wheel\n").unwrap();
    let stdout = history(&dir, &[&gone]);
    assert!(
        stdout.starts_with("history of python-sdk: 9 versions (1 unavailable), 71 changes: "),
        "{stdout}"
    );
    let markdown = std::fs::read_to_string(dir.join("history.md")).unwrap();
    assert!(
        markdown.starts_with("# python-sdk: 1.9.0 … 2.3.0 (9 versions)\n"),
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
    let versions = std::fs::read_to_string(dir.join("versions.tsv")).unwrap();
    assert!(
        versions.contains("\n1.9.0\t-\t-\tpip install failed: no wheel\n1.29.1\t"),
        "{versions}"
    );
}

#[test]
fn a_file_given_beside_the_folder_replaces_its_version() {
    let lean = temp_dir("history-add");
    std::fs::copy(sweep().join("1.0.0.json"), lean.join("1.0.0.json")).unwrap();
    history(&lean, &[&sweep().join("1.1.0.json")]);
    std::fs::remove_file(lean.join("1.0.0.json")).unwrap();
    let elsewhere = temp_dir("history-add-elsewhere");
    let gone = elsewhere.join("1.1.0.unavailable.txt");
    std::fs::write(&gone, "pip install failed\n").unwrap();
    let stdout = history(&lean, &[&gone]);
    assert!(
        stdout.starts_with("history of reference: 2 versions (1 unavailable), 0 changes: "),
        "{stdout}"
    );
    let versions = std::fs::read_to_string(lean.join("versions.tsv")).unwrap();
    assert!(
        versions.ends_with("\n1.1.0\t-\t-\tpip install failed\n"),
        "{versions}"
    );
    let cases = std::fs::read_to_string(lean.join("cases.tsv")).unwrap();
    assert!(!cases.contains("1.1.0\t"), "{cases}");
}

/// `report history` must exit 2 and say `expected` on stderr.
fn refused(dir: &Path, files: &[&Path], expected: &str) {
    let output = run_history(dir, files);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn no_history_a_mislabelled_report_or_a_broken_kept_file_exits_2_naming_it() {
    let empty = temp_dir("history-empty");
    refused(&empty, &[], "no versions.tsv and no <version>.json report");
    let other = empty.join("notes.txt");
    std::fs::write(&other, "").unwrap();
    refused(
        &empty,
        &[&other],
        "notes.txt: is neither a <version>.json report nor",
    );

    let wrong = temp_dir("history-wrong");
    std::fs::copy(sweep().join("1.1.0.json"), wrong.join("2.1.0.json")).unwrap();
    refused(
        &wrong,
        &[],
        "2.1.0.json: is a report of reference 1.1.0, not of 2.1.0",
    );

    let broken = temp_dir("history-broken");
    history(&broken, &[&sweep().join("1.0.0.json")]);
    let cases = broken.join("cases.tsv");
    let text = std::fs::read_to_string(&cases).unwrap();
    std::fs::write(&cases, text.replacen("\tshould\t", "\tshuold\t", 1)).unwrap();
    refused(
        &broken,
        &[],
        "cases.tsv:2: grade \"shuold\" is not one of must, should, info; correct the line",
    );
    std::fs::remove_file(broken.join("versions.tsv")).unwrap();
    refused(&broken, &[], "versions.tsv: is missing beside cases.tsv");
}

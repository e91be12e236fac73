//! The bad-case corpus, `tests/bad-cases/`: one mistake per file. Each file says what is wrong
//! with it (`# Defect:`) and which key the error must name (`# key:`, `none` for a file the
//! TOML parser refuses); loaded alone, it fails with that key, and its whole message (file, key,
//! fix) is an insta snapshot, `tests/snapshots/bad_cases__<name>.snap`. Beside the built-in
//! cases in one folder, the good ones still pass and each bad one is its own failure.
//!
//! Every load runs on a thread of its own under `catch_unwind`, with a bound: a panic or a
//! hang is a failure of this test, not of the test binary.

use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::{Case, CaseSource, LoadError, builtin, discover};
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

const CORPUS: &str = "tests/bad-cases";

/// How long one load may take before it counts as a hang: loads take microseconds, so this
/// only has to be far above any machine's noise.
const BOUND: Duration = Duration::from_secs(60);

/// `source.load()` on its own thread: `Err` says it panicked or did not finish within [`BOUND`].
fn load_bounded(source: &CaseSource) -> Result<Result<Case, LoadError>, String> {
    let (sender, receiver) = mpsc::channel();
    let source = source.clone();
    std::thread::spawn(move || {
        let loaded = catch_unwind(AssertUnwindSafe(|| source.load()));
        let _ = sender.send(loaded);
    });
    match receiver.recv_timeout(BOUND) {
        Ok(Ok(loaded)) => Ok(loaded),
        Ok(Err(_)) => Err("loading panicked".into()),
        Err(_) => Err(format!("loading did not finish within {BOUND:?}")),
    }
}

/// What a bad file declares in its header: (defect, key; `None` for `none`).
fn declared(path: &Path) -> (String, Option<String>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = String::from_utf8_lossy(&bytes);
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name))
            .map(|v| v.trim().to_owned())
            .unwrap_or_else(|| panic!("{} has no `{name}` line", path.display()))
    };
    let key = field("# key:");
    (field("# Defect:"), (key != "none").then_some(key))
}

fn corpus() -> Vec<CaseSource> {
    discover(Path::new(CORPUS)).expect("the bad-case corpus is there")
}

#[test]
fn every_bad_case_fails_alone_naming_the_file_and_its_key() {
    let sources = corpus();
    assert!(sources.len() >= 60, "only {} bad cases", sources.len());
    let mut wrong = Vec::new();
    for source in &sources {
        let (defect, key) = declared(Path::new(&source.origin));
        assert!(
            !defect.is_empty(),
            "{}: say what the defect is",
            source.origin
        );
        let error = match load_bounded(source) {
            Ok(Err(error)) => error,
            Ok(Ok(_)) => {
                wrong.push(format!("{}: loaded", source.origin));
                continue;
            }
            Err(why) => {
                wrong.push(format!("{}: {why}", source.origin));
                continue;
            }
        };
        let text = error.to_string();
        if error.origin != source.origin || !text.starts_with(&source.origin) {
            wrong.push(format!(
                "{}: the error names another file: {text}",
                source.origin
            ));
        }
        if error.key != key {
            wrong.push(format!("{}: expected key {key:?}: {text}", source.origin));
        }
        if text.contains('\n') {
            wrong.push(format!(
                "{}: a message of more than one line: {text}",
                source.origin
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn each_bad_case_message_is_its_snapshot() {
    for source in corpus() {
        let message = match load_bounded(&source) {
            Ok(Err(error)) => error.to_string(),
            other => format!("not a load error: {:?}", other.map(|r| r.map(|c| c.id))),
        };
        insta::assert_snapshot!(source.id.as_str(), message);
    }
}

/// A user's folder with mistakes in it: the good cases still load and pass against the
/// reference client, and each bad file is a failure of its own that names it.
#[test]
fn a_folder_of_good_and_bad_cases_runs_the_good_ones_and_fails_each_bad_one_alone() {
    let dir = tempfile::tempdir().unwrap();
    let good = builtin();
    for source in &good {
        let path = dir.path().join(format!("{}.toml", source.id));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, source.text.as_ref().unwrap()).unwrap();
    }
    let bad = corpus();
    std::fs::create_dir(dir.path().join("bad")).unwrap();
    for source in &bad {
        let name = Path::new(&source.origin).file_name().unwrap();
        std::fs::copy(&source.origin, dir.path().join("bad").join(name)).unwrap();
    }
    let sources = discover(dir.path()).unwrap();
    assert_eq!(sources.len(), good.len() + bad.len());
    let is_bad = |s: &CaseSource| s.id.starts_with("bad/");
    for source in &sources {
        match load_bounded(source) {
            Ok(Ok(_)) if !is_bad(source) => {}
            Ok(Err(error)) if is_bad(source) => assert_eq!(error.origin, source.origin),
            other => panic!("{}: {:?}", source.id, other.map(|r| r.map(|c| c.id))),
        }
    }
    let client = ReferenceAdapter::new();
    let records = Run::new(&client)
        .cases(sources.clone())
        .stdio_server(env!("CARGO_BIN_EXE_mcp-error-layers-stdio"))
        .execute(&())
        .cases;
    let mut wrong = Vec::new();
    for (source, record) in sources.iter().zip(&records) {
        let ok = if is_bad(source) {
            let error = record.error.as_deref().unwrap_or_default();
            record.verdict == Verdict::Fail
                && record.calls.is_empty()
                && error.contains(&source.origin)
        } else {
            record.verdict == Verdict::Pass && record.error.is_none()
        };
        if !ok {
            wrong.push(format!(
                "{}: {:?} {:?}",
                source.id, record.verdict, record.error
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

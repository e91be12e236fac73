//! Every reader of an input of the user's is bounded and never blocks: `/dev/zero` and a FIFO
//! with no writer, given to each, end with an error naming the file type (or the bound) within
//! 10 s; and `docs/inputs.md` lists the bounds the code has.

use mcp_error_layers::adapter::process::agent::spec::AgentSpec;
use mcp_error_layers::adapter::process::bridge::spec::BridgeSpec;
use mcp_error_layers::case::discover;
use mcp_error_layers::engine::recording::read_har;
use mcp_error_layers::input::Kind;
use mcp_error_layers::report::json::JsonReport;
use mcp_error_layers::stdio::session::Session;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// `f`'s result, or a failed test if it has not returned within 10 s.
fn within_10s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(10))
        .expect("the read returned within 10 s")
}

/// A folder holding `zero.*` (a link to `/dev/zero`) and `fifo.*` (a FIFO nobody writes).
fn hostile(name: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let zero = dir.path().join(format!("zero-{name}"));
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let fifo = dir.path().join(format!("fifo-{name}"));
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    (dir, zero, fifo)
}

/// `read` of `/dev/zero` and of a FIFO both say what the file is.
fn refuses_both(name: &str, read: fn(&Path) -> String) {
    let (_dir, zero, fifo) = hostile(name);
    for (path, what) in [
        (zero, "is a character device, not a regular file"),
        (fifo, "is a FIFO, not a regular file"),
        (PathBuf::from("/dev/zero"), "is a character device"),
    ] {
        let shown = path.display().to_string();
        let error = within_10s(move || read(&path));
        assert!(error.contains(&shown), "{error}");
        assert!(error.contains(what), "{error}");
    }
}

#[test]
fn a_report_of_dev_zero_or_a_fifo_is_refused() {
    refuses_both("report.json", |p| {
        JsonReport::read(p).unwrap_err().to_string()
    });
}

#[test]
fn an_agent_or_bridge_adapter_toml_of_dev_zero_or_a_fifo_is_refused() {
    for (name, load) in [
        (
            "agent",
            (|p: &Path| AgentSpec::load(p).map(drop)) as fn(&Path) -> Result<(), String>,
        ),
        ("bridge", |p: &Path| BridgeSpec::load(p).map(drop)),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        std::fs::create_dir(&fifo).unwrap();
        nix::unistd::mkfifo(&fifo.join("adapter.toml"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let zero = dir.path().join("zero");
        std::fs::create_dir(&zero).unwrap();
        std::os::unix::fs::symlink("/dev/zero", zero.join("adapter.toml")).unwrap();
        for (folder, what) in [(fifo, "a FIFO"), (zero, "a character device")] {
            let error = within_10s(move || load(&folder).unwrap_err());
            assert!(
                error.contains(&format!("adapter.toml: is {what}, not a regular file")),
                "{name}: {error}"
            );
        }
    }
}

#[test]
fn a_session_file_of_dev_zero_or_a_fifo_is_refused() {
    refuses_both("session.json", |p| Session::read(p).unwrap_err());
}

#[test]
fn a_har_of_dev_zero_or_a_fifo_is_refused() {
    refuses_both("capture.har", |p| read_har(p).unwrap_err().to_string());
}

#[test]
fn a_history_whose_files_are_a_fifo_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for file in ["versions.tsv", "cases.tsv"] {
        nix::unistd::mkfifo(&dir.path().join(file), nix::sys::stat::Mode::S_IRWXU).unwrap();
    }
    let path = dir.path().to_owned();
    let error = within_10s(move || {
        mcp_error_layers::report::history::History::read(&path)
            .unwrap_err()
            .to_string()
    });
    assert!(error.contains("is a FIFO, not a regular file"), "{error}");
}

/// A link to `/dev/zero` and a FIFO under `--cases` fail their own cases only, each naming what
/// it is; the sound case beside them loads.
#[test]
fn a_cases_folder_with_a_link_to_dev_zero_and_a_fifo_fails_only_those_cases() {
    let (dir, _, _) = hostile("unused");
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.toml")).unwrap();
    nix::unistd::mkfifo(&dir.path().join("fifo.toml"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let sound = mcp_error_layers::case::builtin()
        .into_iter()
        .find(|c| c.id == "tool/success")
        .unwrap();
    std::fs::write(dir.path().join("sound.toml"), sound.text.unwrap()).unwrap();
    let root = dir.path().to_owned();
    let sources = within_10s(move || discover(&root).unwrap());
    let ids: Vec<_> = sources.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["fifo", "sound", "zero"]);
    for (source, what) in [
        (&sources[0], "is a FIFO, not a regular file"),
        (&sources[2], "is a character device, not a regular file"),
    ] {
        let error = source.load().unwrap_err().to_string();
        assert!(error.contains(what), "{error}");
        assert!(
            error.contains("a case file is read from a regular file only"),
            "{error}"
        );
    }
    sources[1].load().expect("the sound case loads");
}

/// `docs/inputs.md`'s table lists every kind's bound as the code has it.
#[test]
fn the_docs_table_agrees_with_the_bounds() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/inputs.md"))
        .expect("docs/inputs.md");
    let shown = |bound: u64| match bound {
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    };
    for kind in Kind::ALL {
        let row = doc
            .lines()
            .find(|line| line.starts_with(&format!("| {} |", kind.name())))
            .unwrap_or_else(|| panic!("docs/inputs.md has no row `| {} | ...`", kind.name()));
        let bound = row.split('|').nth(2).map(str::trim);
        assert_eq!(bound, Some(shown(kind.bound()).as_str()), "{row}");
        assert_eq!(kind.bound() % 1024, 0, "a bound in whole KiB: {row}");
    }
    let rows = doc.lines().filter(|l| l.starts_with("| a")).count();
    assert_eq!(rows, Kind::ALL.len(), "one row per kind in docs/inputs.md");
}

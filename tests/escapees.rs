//! No process outlives a run (docs/adapters.md, "The process group"): an adapter program whose
//! child leaves its process group and session (`setsid`) has that child killed and reaped when
//! the case ends, whether the program answered or hung.
#![cfg(target_os = "linux")]

use mcp_error_layers::adapter::process::ProcessAdapter;
use mcp_error_layers::adapter::reaper;
use mcp_error_layers::case::CaseSource;
use mcp_error_layers::engine::Run;
use nix::errno::Errno;
use nix::sys::signal::kill;
use nix::unistd::Pid;
use std::path::Path;
use std::time::{Duration, Instant};

const ONE_CALL: &str = r#"
summary = "one call that succeeds"
[[call]]
expect = { outcome = "TOOL_SUCCESS" }
timeout_ms = 500
[[call.reply]]
status = 200
json = '{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}'
"#;

/// A one-shot adapter that starts a child in a new session (which writes its pid to
/// `pid_file`, then sleeps 300 s), waits for the pid, then `then` (answer, or hang).
fn escaping(pid_file: &Path, then: &str) -> ProcessAdapter {
    let file = pid_file.display();
    let script = format!(
        "setsid sh -c 'echo $$ > {file}.tmp && mv {file}.tmp {file}; exec sleep 300' \
         </dev/null >/dev/null 2>&1 &\n\
         while [ ! -s {file} ]; do sleep 0.01; done\n\
         {then}\n"
    );
    ProcessAdapter::new("sh", ["-c", script.as_str(), "escaping"])
        .one_shot()
        .with_start_up_timeout(Duration::from_millis(300))
}

/// Whether `pid` is gone (not even a zombie) within `within`.
fn gone_within(pid: Pid, within: Duration) -> bool {
    let until = Instant::now() + within;
    loop {
        if kill(pid, None) == Err(Errno::ESRCH) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn escapee(pid_file: &Path) -> Pid {
    let text = std::fs::read_to_string(pid_file).expect("the escapee wrote its pid");
    Pid::from_raw(text.trim().parse().expect("a pid"))
}

#[test]
fn a_setsid_escapee_is_killed_and_reaped_when_its_case_ends() {
    let folder = tempfile::tempdir().unwrap();
    let answer = r#"echo '{"outcome":"TOOL_SUCCESS","status":200,"code":null,"detail":"escaped"}'"#;
    for (name, then) in [("answers", answer), ("hangs", "exec sleep 300")] {
        let pid_file = folder.path().join(format!("{name}.pid"));
        let adapter = escaping(&pid_file, then);
        let source = CaseSource {
            id: format!("t/{name}"),
            origin: "t/case.toml".into(),
            text: Ok(ONE_CALL.into()),
        };
        let record = Run::new(&adapter)
            .deadline_margin(Duration::from_millis(300))
            .run_one(&source);
        drop(adapter);
        let pid = escapee(&pid_file);
        assert!(
            gone_within(pid, Duration::from_secs(10)),
            "{name}: the escapee {pid} outlived its case ({:?})",
            record.calls[0].problems
        );
    }
    // Nothing of this process's is left, zombies aside (and those were reaped above).
    let until = Instant::now() + Duration::from_secs(10);
    while !reaper::descendants().is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(reaper::descendants(), []);
}

//! The stdio transport end to end (docs/stdio.md). This test binary is its own stdio server:
//! the runner names the running executable, and `main` serves `stdio-server --session FILE`
//! before it runs any test, as every `main!` binary does.
//!
//! - a server killed from outside mid-call: what it read is in the record, its end too, and the
//!   call gets a verdict at once (no hang);
//! - no case leaves a process behind: after every built-in stdio case, and after an adapter
//!   that orphans its server in a session of its own;
//! - a client that does not read its server's stderr deadlocks it, and the check says so;
//! - a client that never reads its server's stdout keeps the server's memory bounded: past its
//!   pending output the server stops reading stdin;
//! - a `tools/call` holding a lone surrogate escape is answered.
#![cfg(unix)]

use libtest_mimic::{Arguments, Failed, Trial};
use mcp_error_layers::adapter::process::ProcessAdapter;
use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::{CaseSource, builtin};
use mcp_error_layers::engine::{CaseRecord, Run, Verdict};
use mcp_error_layers::stdio::StdioCommand;
use mcp_error_layers::wire::WireServer;
use mcp_error_layers::{AdapterReport, Outcome};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() -> ExitCode {
    if let Some(code) = mcp_error_layers::stdio::intercept() {
        return code;
    }
    let mut args = Arguments::from_args();
    // One at a time: each test counts the stdio servers of this whole process.
    args.test_threads = Some(1);
    let trials = vec![
        Trial::test(
            "a_server_killed_mid_call_is_recorded_and_judged_at_once",
            killed_mid_call,
        ),
        Trial::test(
            "no_builtin_stdio_case_leaves_a_process_behind",
            no_builtin_leftovers,
        ),
        Trial::test(
            "a_server_an_adapter_orphans_is_ended_with_its_case",
            orphan_reaped,
        ),
        Trial::test(
            "a_client_that_never_reads_stderr_fails_the_drain_check",
            stderr_not_read,
        ),
        Trial::test(
            "an_http_only_adapter_is_never_started_for_a_stdio_case",
            http_only,
        ),
        Trial::test(
            "a_client_that_never_reads_stdout_keeps_the_server_under_its_bound",
            never_read,
        ),
        Trial::test(
            "a_call_holding_a_lone_surrogate_is_answered",
            lone_surrogate,
        ),
    ];
    libtest_mimic::run(&args, trials).exit_code()
}

fn case(id: &str, text: &str) -> CaseSource {
    CaseSource {
        id: id.into(),
        origin: format!("{id}.toml"),
        text: Ok(text.into()),
    }
}

/// The prefix of every session folder this process's runs write: a process whose command line
/// holds it is a stdio server of ours.
fn our_sessions() -> String {
    format!("mcp-error-layers-stdio-{}-", std::process::id())
}

/// The pids of our stdio servers still running (zombies, which hold nothing, left out).
fn our_servers() -> Vec<i32> {
    let prefix = our_sessions();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'));
            !zombie && String::from_utf8_lossy(&cmdline).contains(&prefix)
        })
        .collect()
}

/// Waits up to `within` for our stdio servers to be gone; the ones left.
fn left_after(within: Duration) -> Vec<i32> {
    let until = Instant::now() + within;
    loop {
        let left = our_servers();
        if left.is_empty() || Instant::now() > until {
            return left;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

const SILENT: &str = r#"
summary = "the server reads the call and says nothing"
transport = "stdio"
protocol_version = "2025-11-25"
[[call]]
expect = { outcome = "TIMEOUT" }
timeout_ms = 8000
[[call.stdio]]
"#;

fn killed_mid_call() -> Result<(), Failed> {
    let killer = std::thread::spawn(|| {
        let until = Instant::now() + Duration::from_secs(5);
        while Instant::now() < until {
            if let [pid] = our_servers()[..] {
                // Let it relay the handshake and the call first.
                std::thread::sleep(Duration::from_millis(300));
                let signal = nix::sys::signal::Signal::SIGKILL;
                return nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal).is_ok();
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    });
    let adapter = ReferenceAdapter::new();
    let record = Run::new(&adapter).run_one(&case("t/killed", SILENT));
    if !killer.join().unwrap_or(false) {
        return Err("the stdio server was never found to kill".into());
    }
    let call = &record.calls[0];
    let read_call = record
        .exchanges
        .iter()
        .any(|e| e.path == "/stdio/line" && e.jsonrpc_method.as_deref() == Some("tools/call"));
    let ended = record
        .exchanges
        .iter()
        .find(|e| e.path.starts_with("/stdio/hold"))
        .and_then(|e| e.reply.client_closed_ms);
    let observed = outcome(call);
    check(
        read_call,
        "the record holds the tools/call the server read before it was killed",
    )?;
    check(
        ended.is_some(),
        "the record holds when the server process ended",
    )?;
    check(
        call.verdict == Verdict::Fail,
        "a verdict (fail: TIMEOUT was expected), not a hang",
    )?;
    check(
        observed == Some(Outcome::ConnectionError),
        "the client saw the broken pipe",
    )?;
    check(
        call.duration < Duration::from_secs(4),
        "the call ended at the kill, not at its 8 s timeout",
    )
}

/// The outcome a call reported, if it reported one.
fn outcome(call: &mcp_error_layers::engine::CallRecord) -> Option<Outcome> {
    match &call.report {
        Some(AdapterReport::Observed(observation)) => Some(observation.outcome),
        _ => None,
    }
}

fn check(holds: bool, what: &str) -> Result<(), Failed> {
    if holds {
        Ok(())
    } else {
        Err(format!("not so: {what}").into())
    }
}

fn no_builtin_leftovers() -> Result<(), Failed> {
    let stdio: Vec<CaseSource> = builtin()
        .into_iter()
        .filter(|c| c.id.starts_with("stdio/"))
        .collect();
    check(stdio.len() >= 20, "at least 20 built-in stdio cases")?;
    let adapter = ReferenceAdapter::new();
    let report = Run::new(&adapter).cases(stdio).jobs(8).execute(&());
    let failed: Vec<&str> = report
        .cases
        .iter()
        .filter(|c| c.verdict != Verdict::Pass)
        .map(|c| c.id.as_str())
        .collect();
    check(
        failed.is_empty(),
        &format!("the reference client passes them all ({failed:?})"),
    )?;
    let left = our_servers();
    check(
        left.is_empty(),
        &format!("no stdio server left running, at once ({left:?})"),
    )
}

fn test_adapter(flag: &str) -> ProcessAdapter {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/stdio_client.py");
    ProcessAdapter::new("python3", [script.display().to_string(), flag.to_owned()])
        .one_shot()
        .with_stdio(true)
}

const OK_CALL: &str = r#"
summary = "one call that succeeds"
transport = "stdio"
protocol_version = "2025-11-25"
[[call]]
expect = { outcome = "TOOL_SUCCESS" }
timeout_ms = 3000
[[call.stdio]]
[[call.stdio.line]]
json = '{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}'
"#;

fn orphan_reaped() -> Result<(), Failed> {
    let adapter = test_adapter("--orphan");
    let record: CaseRecord = Run::new(&adapter).run_one(&case("t/orphan", OK_CALL));
    check(
        record.verdict == Verdict::Pass,
        &format!("the call passed: {:?}", record.calls),
    )?;
    let left = left_after(Duration::from_secs(2));
    check(
        left.is_empty(),
        &format!("the orphaned server was ended ({left:?})"),
    )
}

const FLOOD: &str = r#"
summary = "1 MiB of stderr before the answer"
transport = "stdio"
protocol_version = "2025-11-25"
[[call]]
expect = { outcome = "TOOL_SUCCESS" }
timeout_ms = 1500
[[call.stdio]]
stderr_bytes = 1048576
[[call.stdio.line]]
json = '{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}'
"#;

fn stderr_not_read() -> Result<(), Failed> {
    let adapter = test_adapter("--no-stderr");
    let record = Run::new(&adapter).run_one(&case("t/flood", FLOOD));
    let call = &record.calls[0];
    let drained = call
        .checks
        .iter()
        .find(|c| c.name == "stdio-stderr-drained");
    check(
        drained.is_some_and(|c| !c.passed),
        "stdio-stderr-drained failed",
    )?;
    let observed = outcome(call);
    check(
        observed == Some(Outcome::Timeout),
        "the blocked server never answered",
    )?;
    let drains = Run::new(&test_adapter("--read-stderr")).run_one(&case("t/flood", FLOOD));
    let passed = drains.calls[0]
        .checks
        .iter()
        .any(|c| c.name == "stdio-stderr-drained" && c.passed);
    check(passed, "a client that reads stderr passes it")?;
    let left = left_after(Duration::from_secs(2));
    check(left.is_empty(), &format!("no server left ({left:?})"))
}

fn http_only() -> Result<(), Failed> {
    // A program that does not exist: an adapter without stdio must never be started.
    let adapter = ProcessAdapter::new("/nonexistent/adapter", Vec::<String>::new()).one_shot();
    let record = Run::new(&adapter).run_one(&case("t/ok", OK_CALL));
    check(
        record.verdict == Verdict::Unsupported,
        "the stdio case is unsupported",
    )?;
    let why = format!("{:?}", record.calls[0].report);
    check(
        why.contains("HTTP only"),
        &format!("the reason says why: {why}"),
    )
}

/// A stdio server of this binary started by hand for one case, with the test as its client:
/// the wire server, the session folder, the process (killed when this is dropped).
struct ByHand {
    wire: WireServer,
    _command: StdioCommand,
    server: Child,
}

impl ByHand {
    fn start(source: &CaseSource) -> ByHand {
        let case = source.load().expect("the case loads").file;
        let wire = WireServer::start(Arc::new(case)).expect("the wire server starts");
        let exe = std::env::current_exe().expect("this executable");
        let command = StdioCommand::create(&exe, wire.addr()).expect("a session folder");
        let (program, args) = command.argv().split_first().expect("a program");
        let server = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the stdio server starts");
        ByHand {
            wire,
            _command: command,
            server,
        }
    }

    /// How many `tools/call` lines the server relayed so far.
    fn calls_relayed(&self) -> usize {
        self.wire.with_record(|record| {
            let call = |e: &&mcp_error_layers::wire::Exchange| {
                e.path == "/stdio/line" && e.jsonrpc_method.as_deref() == Some("tools/call")
            };
            record.iter().filter(call).count()
        })
    }
}

impl Drop for ByHand {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// The resident memory of process `pid`, in bytes (VmRSS in /proc/PID/status).
fn resident(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What the server may hold at most for a client that never reads (docs/stdio.md, "Bounds").
const NEVER_READ_BOUND: u64 = 160 * 1024 * 1024;

/// A client that writes call after call and never reads stdout. Each answer of
/// `stdio/long-line-12mib` is 12 MiB: without back-pressure the server queued them all and grew
/// by ~150 MB/s. With it, it relays a few calls, then stops reading stdin; its memory, sampled
/// over 6 s, stays under the bound.
fn never_read() -> Result<(), Failed> {
    let source = builtin()
        .into_iter()
        .find(|c| c.id == "stdio/long-line-12mib")
        .ok_or("the built-in case stdio/long-line-12mib")?;
    let mut served = ByHand::start(&source);
    let pid = served.server.id();
    let mut stdin = served.server.stdin.take().ok_or("the server's stdin")?;
    // Writes until the pipe stays full (the server stopped reading) and the server is killed.
    let writer = std::thread::spawn(move || {
        for id in 1..=5000 {
            let line = format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\
                 \"params\":{{\"name\":\"synthetic\",\"arguments\":{{}}}}}}\n"
            );
            if stdin.write_all(line.as_bytes()).is_err() {
                return id - 1;
            }
        }
        5000
    });
    let mut peak = 0;
    let mut samples = Vec::new();
    for _ in 0..12 {
        std::thread::sleep(Duration::from_millis(500));
        let rss = resident(pid).ok_or("the server's /proc/PID/status")?;
        samples.push(rss / (1024 * 1024));
        peak = peak.max(rss);
    }
    let relayed = served.calls_relayed();
    eprintln!("stdio server VmRSS (MiB), every 0.5 s: {samples:?}; tools/call relayed: {relayed}");
    check(
        relayed >= 2,
        &format!("the server relayed calls and answered them ({relayed})"),
    )?;
    check(
        peak < NEVER_READ_BOUND,
        &format!(
            "the server stayed under {} MiB (peak {} MiB: {samples:?} MiB)",
            NEVER_READ_BOUND >> 20,
            peak >> 20
        ),
    )?;
    check(
        relayed <= 4,
        &format!(
            "past its pending output the server stopped reading stdin ({relayed} calls relayed)"
        ),
    )?;
    drop(served);
    let written = writer.join().map_err(|_| "the writer thread")?;
    check(
        written < 5000,
        "the client's writes were held back by the full pipe",
    )
}

/// A `tools/call` whose arguments hold a lone surrogate escape (legal JSON grammar, what
/// JavaScript's `JSON.stringify` writes for a broken string) gets the case's answer, and the
/// record says what the server read.
fn lone_surrogate() -> Result<(), Failed> {
    let mut served = ByHand::start(&case("t/lone", OK_CALL));
    let mut stdin = served.server.stdin.take().ok_or("the server's stdin")?;
    let stdout = served.server.stdout.take().ok_or("the server's stdout")?;
    let line = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"synthetic","arguments":{"text":"\ud800"}}}"#;
    check(
        serde_json::from_str::<serde_json::Value>(line).is_err(),
        "serde_json alone refuses the line",
    )?;
    stdin.write_all(format!("{line}\n").as_bytes())?;
    stdin.flush()?;
    // The answer, read on a thread: a server that never answers fails the test at 10 s.
    let (sender, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let _ = std::io::BufReader::new(stdout).read_line(&mut first);
        let _ = sender.send(first);
    });
    let got = answer
        .recv_timeout(Duration::from_secs(10))
        .map_err(|_| "no answer within 10 s")?;
    check(
        got == "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[]}}\n",
        &format!("the case's answer, with the call's id: {got:?}"),
    )?;
    check(
        served.calls_relayed() == 1,
        "the record holds the line as a tools/call",
    )
}

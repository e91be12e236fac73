//! The out-of-process adapter contract (docs/adapters.md), with the test adapters under
//! `tests/adapters/`: every way a program can break it, the process-group kill, the bounded
//! wait for pipes a grandchild holds open, and persistent mode (announce, reuse, fallback,
//! hang recovery).
#![cfg(unix)]

use mcp_error_layers::AdapterReport;
use mcp_error_layers::adapter::Driver;
use mcp_error_layers::adapter::process::{Mode, ProcessAdapter};
use mcp_error_layers::case::{CaseSource, builtin};
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::engine::{CallRecord, CaseRecord};
use nix::errno::Errno;
use nix::sys::signal::{kill, killpg};
use nix::unistd::Pid;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The runner's margin above each call's timeout in these tests.
const MARGIN: Duration = Duration::from_millis(300);

/// The start-up allowance of the misbehaving one-shot adapters in these tests.
const START_UP: Duration = Duration::from_millis(200);

const ONE_CALL: &str = r#"
summary = "one call that succeeds"
[[call]]
expect = { outcome = "TOOL_SUCCESS" }
timeout_ms = 500
[[call.reply]]
status = 200
json = '{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}'
"#;

fn adapter(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/adapters")
        .join(name)
}

fn run<D: Driver>(driver: &D, text: &str) -> CaseRecord {
    let source = CaseSource {
        id: "t/case".into(),
        origin: "t/case.toml".into(),
        text: Ok(text.into()),
    };
    Run::new(driver).deadline_margin(MARGIN).run_one(&source)
}

/// A case of `calls` calls that succeed, the ones listed in `arguments` with those arguments.
fn calls(count: usize, arguments: &[(usize, &str)], timeout_ms: u64) -> String {
    let mut text = String::from("summary = \"several calls\"\n");
    for index in 0..count {
        text.push_str(&format!(
            "[[call]]\nexpect = {{ outcome = \"TOOL_SUCCESS\" }}\ntimeout_ms = {timeout_ms}\n"
        ));
        if let Some((_, args)) = arguments.iter().find(|(i, _)| *i == index) {
            text.push_str(&format!("arguments = '{args}'\n"));
        }
        text.push_str(
            "[[call.reply]]\nstatus = 200\njson = '{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":{\"content\":[]}}'\n",
        );
    }
    text
}

/// Where a test adapter writes its pid; removed when the test ends.
struct PidFile(PathBuf);

impl PidFile {
    fn new(name: &str) -> Self {
        let file = std::env::temp_dir().join(format!(
            "mcp-error-layers-{}-{name}.pid",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&file);
        PidFile(file)
    }

    fn pid(&self) -> Pid {
        let text = std::fs::read_to_string(&self.0).expect("the adapter wrote its pid");
        Pid::from_raw(text.trim().parse().expect("a pid"))
    }
}

impl Drop for PidFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `misbehave.sh BEHAVIOUR PID_FILE` in one-shot mode, and where its pid will be written.
fn misbehaving(behaviour: &str) -> (ProcessAdapter, PidFile) {
    let pid_file = PidFile::new(behaviour);
    let program = ProcessAdapter::new(
        adapter("misbehave.sh"),
        [behaviour.into(), pid_file.0.clone().into_os_string()],
    )
    .one_shot()
    .with_start_up_timeout(START_UP);
    (program, pid_file)
}

/// Waits until no process is left in group `pgid` (zombies included), up to `until`.
fn group_gone_by(pgid: Pid, until: Instant) -> bool {
    loop {
        if killpg(pgid, None) == Err(Errno::ESRCH) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn observed_detail(call: &CallRecord) -> String {
    match &call.report {
        Some(AdapterReport::Observed(observation)) => observation.detail.clone(),
        other => panic!("no observation: {other:?} ({:?})", call.problems),
    }
}

/// `pid N: ...` from the python adapters' detail.
fn pid_of(call: &CallRecord) -> u32 {
    let detail = observed_detail(call);
    let number = detail
        .strip_prefix("pid ")
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("no pid in {detail:?}"));
    number.parse().unwrap()
}

fn builtin_case(id: &str) -> CaseSource {
    builtin()
        .into_iter()
        .find(|source| source.id == id)
        .expect("a built-in case")
}

#[test]
fn a_hang_kills_the_whole_group_grandchild_included_within_the_deadline() {
    let (program, pid_file) = misbehaving("hang-with-grandchild");
    let started = Instant::now();
    let record = run(&program, ONE_CALL);
    // It never sends a request: the clock starts when its start-up allowance is over.
    let deadline = START_UP + Duration::from_millis(500) + MARGIN;
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Hang, "{:?}", call.problems);
    assert_eq!(
        call.problems,
        [
            "no observation within 800 ms after the start-up allowance of 200 ms, in which the \
          adapter sent no request"
        ]
    );
    assert!(
        call.adapter_log
            .as_deref()
            .unwrap_or_default()
            .contains("hanging, with a grandchild"),
        "stderr kept for a hang too: {:?}",
        call.adapter_log
    );
    let pgid = pid_file.pid();
    assert!(
        group_gone_by(pgid, started + deadline + Duration::from_secs(1)),
        "a process of group {pgid} is left"
    );
    assert!(
        started.elapsed() < deadline + Duration::from_secs(1),
        "took {:?}",
        started.elapsed()
    );
}

/// `slow-start.sh SECONDS PROGRAM ARGS...`: the program, after a start-up of `seconds`.
fn slow_start(seconds: &str, program: &str, args: &[&str]) -> ProcessAdapter {
    let mut argv = vec![seconds.into(), adapter(program).into_os_string()];
    argv.extend(args.iter().map(Into::into));
    ProcessAdapter::new(adapter("slow-start.sh"), argv).one_shot()
}

#[test]
fn a_slow_start_up_does_not_count_against_the_calls_deadline() {
    // 1.2 s before it can act, past the call's 500 ms timeout and 300 ms margin: the clock
    // starts at its first request.
    let program = slow_start("1.2", "oneshot.py", &[]);
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Pass, "{:?}", call.problems);
    assert_eq!(call.tool_posts, 1);
}

#[test]
fn a_slow_start_up_that_answers_without_a_request_gets_its_verdict() {
    let pid_file = PidFile::new("slow-unsupported");
    let pid_path = pid_file.0.to_string_lossy().into_owned();
    let program = slow_start("1.2", "misbehave.sh", &["unsupported", &pid_path]);
    let record = run(&program, ONE_CALL);
    assert_eq!(record.verdict, Verdict::Unsupported, "{:?}", record.calls);
}

#[test]
fn a_hang_after_a_slow_start_up_is_timed_from_its_tools_call() {
    // It starts in 1.2 s, sends its request (the tools/call), then never answers: a hang 800 ms
    // after the request, named as such, the start-up not counted.
    let program = slow_start("1.2", "oneshot.py", &[]);
    let hangs = "timeout_ms = 500\narguments = '{\"hang_after_request\": true}'";
    let record = run(&program, &ONE_CALL.replace("timeout_ms = 500", hangs));
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Hang, "{:?}", call.problems);
    assert_eq!(call.problems.len(), 1);
    let problem = &call.problems[0];
    assert!(
        problem.starts_with(
            "no observation within 800 ms of the call's tools/call (set-up timed from the \
             adapter's first request (which came "
        ),
        "{problem}"
    );
    let log = call.adapter_log.as_deref().unwrap_or_default();
    assert!(
        log.contains("hanging after the request on purpose"),
        "{log}"
    );
}

#[test]
fn an_observation_counts_even_when_a_grandchild_holds_the_pipes_open() {
    let (program, pid_file) = misbehaving("observe-then-leave-grandchild");
    let started = Instant::now();
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Pass, "{:?}", call.problems);
    assert_eq!(observed_detail(call), "left a child");
    // The pipes stay open: reading stops 500 ms after the exit, well before the deadline.
    assert!(
        call.duration < Duration::from_millis(790),
        "{:?}",
        call.duration
    );
    let log = call.adapter_log.as_deref().unwrap_or_default();
    assert!(log.contains("stdout/stderr stayed open"), "{log}");
    let pgid = pid_file.pid();
    assert!(group_gone_by(pgid, started + Duration::from_secs(2)));
}

#[test]
fn an_observation_counts_when_the_adapter_lingers_after_it() {
    let (program, pid_file) = misbehaving("observe-then-linger");
    let started = Instant::now();
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Pass, "{:?}", call.problems);
    let log = call.adapter_log.as_deref().unwrap_or_default();
    assert!(log.contains("had not exited 500 ms later"), "{log}");
    assert!(group_gone_by(
        pid_file.pid(),
        started + Duration::from_secs(2)
    ));
}

#[test]
fn garbage_on_stdout_is_an_adapter_error_that_shows_it() {
    let (program, _pid_file) = misbehaving("garbage");
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::AdapterError);
    assert!(
        call.problems[0].starts_with("stdout is not JSON ("),
        "{:?}",
        call.problems
    );
    assert!(
        call.problems[0].ends_with(": \"not json at all\""),
        "{:?}",
        call.problems
    );
}

#[test]
fn two_lines_on_stdout_are_an_adapter_error() {
    let (program, _pid_file) = misbehaving("two-lines");
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::AdapterError);
    assert!(
        call.problems[0].starts_with("the adapter printed 2 lines on stdout"),
        "{:?}",
        call.problems
    );
}

#[test]
fn an_exit_without_an_observation_names_the_status_and_keeps_stderr() {
    let (program, _pid_file) = misbehaving("exit-3");
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::AdapterError);
    assert_eq!(
        call.problems,
        [
            "the adapter exited with status 3 without printing an observation; its stderr ended \
          with: the client exploded"
        ]
    );
    assert_eq!(call.adapter_log.as_deref(), Some("the client exploded\n"));
}

#[test]
fn a_crash_by_signal_is_an_adapter_error_naming_the_signal() {
    let (program, _pid_file) = misbehaving("signal");
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::AdapterError);
    assert!(
        call.problems[0].starts_with("the adapter was killed by signal SIGSEGV"),
        "{:?}",
        call.problems
    );
}

#[test]
fn unsupported_is_a_skip() {
    let (program, _pid_file) = misbehaving("unsupported");
    let record = run(&program, ONE_CALL);
    assert_eq!(record.verdict, Verdict::Unsupported);
    assert_eq!(record.calls[0].problems, ["this client cannot speak SSE"]);
}

#[test]
fn a_program_that_does_not_start_is_an_adapter_error() {
    let program = ProcessAdapter::new(adapter("no-such-adapter"), Vec::<String>::new());
    let record = run(&program, ONE_CALL);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::AdapterError);
    assert!(
        call.problems[0].starts_with("cannot start "),
        "{:?}",
        call.problems
    );
    assert!(
        call.problems[0].contains("no-such-adapter"),
        "{:?}",
        call.problems
    );
}

#[test]
fn the_call_comes_as_the_last_argument_and_in_the_environment_without_a_shell() {
    let program = ProcessAdapter::new(adapter("echo_call.py"), ["--flag"]).one_shot();
    let case = ONE_CALL.replace(
        "timeout_ms = 500",
        "timeout_ms = 1500\narguments = '{\"city\": \"Zürich\"}'",
    );
    let record = run(&program, &case);
    let given: Value = serde_json::from_str(&observed_detail(&record.calls[0])).unwrap();
    let argv = given["argv"].as_array().unwrap();
    assert_eq!(argv[0], "--flag");
    assert!(argv[1].as_str().unwrap().starts_with("http://127.0.0.1:"));
    assert_eq!(argv.len(), 2, "the URL is the last argument: {argv:?}");
    let env = &given["env"];
    assert_eq!(env["MCP_ERROR_LAYERS_TOOL"], "synthetic");
    assert_eq!(env["MCP_ERROR_LAYERS_ARGUMENTS"], r#"{"city":"Zürich"}"#);
    assert_eq!(env["MCP_ERROR_LAYERS_PROTOCOL_VERSION"], "2026-07-28");
    assert_eq!(env["MCP_ERROR_LAYERS_TIMEOUT_MS"], "1500");
    assert_eq!(env["MCP_ERROR_LAYERS_LIST_TOOLS"], "0");
    assert!(env.get("MCP_ERROR_LAYERS_MODE").is_none());
    // A tool with an output schema: the adapter is asked to list the tools first.
    let with_schema = ONE_CALL.replace(
        "[[call]]",
        "[tool.output_schema]\ntype = \"object\"\n\n[[call]]",
    );
    let record = run(&program, &with_schema);
    let given: Value = serde_json::from_str(&observed_detail(&record.calls[0])).unwrap();
    assert_eq!(given["env"]["MCP_ERROR_LAYERS_LIST_TOOLS"], "1");
    assert_eq!(given["stdin_empty"], true);
    assert_eq!(given["group_leader"], true);
}

#[test]
fn a_python_adapter_passes_built_in_cases_one_process_per_call() {
    let program = ProcessAdapter::new(adapter("oneshot.py"), Vec::<String>::new()).one_shot();
    for id in ["tool/success", "transport/http-500-success-body"] {
        let record = Run::new(&program).run_one(&builtin_case(id));
        assert_eq!(record.verdict, Verdict::Pass, "{id}: {:?}", record.calls);
    }
}

#[test]
fn a_persistent_adapter_passes_built_in_cases_and_serves_them_from_one_process() {
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new());
    let mut pids = Vec::new();
    for id in ["tool/success", "transport/http-500-success-body"] {
        let record = Run::new(&program).run_one(&builtin_case(id));
        assert_eq!(record.verdict, Verdict::Pass, "{id}: {:?}", record.calls);
        pids.push(pid_of(&record.calls[0]));
    }
    assert_eq!(program.mode(), Mode::Persistent);
    assert_eq!(
        pids[0], pids[1],
        "one process across cases (and their runtimes)"
    );
}

#[test]
fn persistent_mode_reuses_one_process_for_every_call() {
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new());
    let first = run(&program, &calls(3, &[], 1000));
    let second = run(&program, &calls(2, &[], 1000));
    let pids: Vec<u32> = first
        .calls
        .iter()
        .chain(&second.calls)
        .map(pid_of)
        .collect();
    assert!(pids.iter().all(|pid| *pid == pids[0]), "{pids:?}");
    assert_eq!(program.mode(), Mode::Persistent);
}

#[test]
fn a_hang_in_persistent_mode_kills_that_process_and_the_next_call_gets_a_fresh_one() {
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new());
    let record = run(&program, &calls(3, &[(1, r#"{"hang": true}"#)], 400));
    let verdicts: Vec<Verdict> = record.calls.iter().map(|c| c.verdict).collect();
    assert_eq!(verdicts, [Verdict::Pass, Verdict::Hang, Verdict::Pass]);
    let (hung, fresh) = (pid_of(&record.calls[0]), pid_of(&record.calls[2]));
    assert_ne!(hung, fresh);
    let log = record.calls[1].adapter_log.as_deref().unwrap_or_default();
    assert!(log.contains("hanging on purpose"), "{log}");
    let gone = Instant::now() + Duration::from_secs(1);
    assert!(group_gone_by(
        Pid::from_raw(i32::try_from(hung).unwrap()),
        gone
    ));
    assert_eq!(
        kill(Pid::from_raw(i32::try_from(hung).unwrap()), None),
        Err(Errno::ESRCH)
    );
}

#[test]
fn garbage_in_persistent_mode_is_an_adapter_error_and_retires_the_process() {
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new());
    let record = run(&program, &calls(3, &[(1, r#"{"garbage": true}"#)], 1000));
    let verdicts: Vec<Verdict> = record.calls.iter().map(|c| c.verdict).collect();
    assert_eq!(
        verdicts,
        [Verdict::Pass, Verdict::AdapterError, Verdict::Pass]
    );
    assert!(
        record.calls[1].problems[0].starts_with("stdout is not JSON"),
        "{:?}",
        record.calls[1].problems
    );
    assert_ne!(pid_of(&record.calls[0]), pid_of(&record.calls[2]));
}

#[test]
fn an_adapter_that_exits_when_probed_falls_back_to_one_process_per_call() {
    let program = ProcessAdapter::new(adapter("oneshot.py"), Vec::<String>::new());
    let record = run(&program, &calls(2, &[], 2000));
    assert_eq!(record.verdict, Verdict::Pass, "{:?}", record.calls);
    assert_ne!(pid_of(&record.calls[0]), pid_of(&record.calls[1]));
    let Mode::OneShot(reason) = program.mode() else {
        panic!("{:?}", program.mode())
    };
    assert_eq!(reason, "it exited with status 2 without announcing");
    let log = record.calls[0].adapter_log.as_deref().unwrap_or_default();
    assert!(log.contains("persistent mode was not announced"), "{log}");
    let later = record.calls[1].adapter_log.as_deref().unwrap_or_default();
    assert!(
        !later.contains("not announced"),
        "the probe's note comes once: {later}"
    );
}

#[test]
fn an_adapter_that_stays_silent_when_probed_falls_back_after_the_announce_timeout() {
    let pid_file = PidFile::new("mute-in-persistent-mode");
    let program = ProcessAdapter::new(
        adapter("misbehave.sh"),
        [
            "mute-in-persistent-mode".into(),
            pid_file.0.clone().into_os_string(),
        ],
    )
    .with_announce_timeout(Duration::from_millis(300));
    let started = Instant::now();
    let record = run(&program, ONE_CALL);
    assert_eq!(record.verdict, Verdict::Pass, "{:?}", record.calls);
    assert_eq!(
        program.mode(),
        Mode::OneShot("it did not announce within 300 ms".into())
    );
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn parallel_workers_each_get_a_persistent_process_of_their_own() {
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new());
    let sources: Vec<CaseSource> = (0..8).map(|_| builtin_case("tool/success")).collect();
    let records = Run::new(&program).cases(sources).jobs(3).execute(&()).cases;
    assert!(records.iter().all(|r| r.verdict == Verdict::Pass));
    let mut pids: Vec<u32> = records.iter().map(|r| pid_of(&r.calls[0])).collect();
    pids.sort_unstable();
    pids.dedup();
    assert!(pids.len() <= 3, "at most one process per worker: {pids:?}");
}

/// What `at_once.py` announces unless told otherwise.
const SERVES_FOUR: &str = r#"{"persistent": 1, "concurrent": 4}"#;

/// `at_once.py PID_FILE ANNOUNCEMENT`, which serves calls at once (hooks in the arguments).
fn concurrent(name: &str, announcement: &str) -> (ProcessAdapter, PidFile) {
    let pid_file = PidFile::new(name);
    let program = ProcessAdapter::new(
        adapter("at_once.py"),
        [pid_file.0.clone().into_os_string(), announcement.into()],
    );
    (program, pid_file)
}

/// A case of one call with `arguments`; the server answers with a tool error when `outcome`
/// is `TOOL_ERROR`, else with a success.
fn one_call(arguments: &str, timeout_ms: u64, outcome: &str) -> String {
    let is_error = outcome == "TOOL_ERROR";
    format!(
        "summary = \"one call\"\n[[call]]\nexpect = {{ outcome = \"{outcome}\" }}\n\
         timeout_ms = {timeout_ms}\narguments = '{arguments}'\n[[call.reply]]\nstatus = 200\n\
         json = '{{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":{{\"content\":[],\"isError\":{is_error}}}}}'\n"
    )
}

fn source(id: &str, text: String) -> CaseSource {
    CaseSource {
        id: id.into(),
        origin: format!("{id}.toml"),
        text: Ok(text),
    }
}

/// Runs `cases` at once, each on a worker thread of its own.
fn run_at_once(driver: &ProcessAdapter, cases: Vec<CaseSource>) -> Vec<CaseRecord> {
    let threads = cases.len();
    let run = Run::new(driver).cases(cases).jobs(threads);
    run.deadline_margin(MARGIN).execute(&()).cases
}

fn problems(record: &CaseRecord) -> String {
    record.calls[0].problems.join(" | ")
}

/// Waits until `path` exists, up to `until`.
fn file_by(path: &std::path::Path, until: Instant) -> bool {
    while !path.exists() {
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

#[test]
fn concurrent_answers_out_of_order_reach_their_own_calls() {
    let (program, _pid_file) = concurrent("out-of-order", SERVES_FOUR);
    // The first answers only after the second arrived: one process, two calls in flight, the
    // second answered first.
    let records = run_at_once(
        &program,
        vec![
            source(
                "t/waits",
                one_call(r#"{"wait": "go"}"#, 20_000, "TOOL_SUCCESS"),
            ),
            source(
                "t/releases",
                one_call(r#"{"release": "go"}"#, 20_000, "TOOL_ERROR"),
            ),
        ],
    );
    for record in &records {
        assert_eq!(
            record.verdict,
            Verdict::Pass,
            "{}: {:?}",
            record.id,
            record.calls
        );
    }
    let details: Vec<String> = records
        .iter()
        .map(|r| observed_detail(&r.calls[0]))
        .collect();
    assert!(
        details.iter().all(|d| d.contains("'id'")),
        "every request has an id: {details:?}"
    );
    assert_ne!(details[0], details[1]);
    assert_eq!(pid_of(&records[0].calls[0]), pid_of(&records[1].calls[0]));
    assert_eq!(program.mode(), Mode::Persistent);
}

/// A call that waits until `release` exists (`at_once.py`'s `wait_file` hook), having created
/// `waiting` when it got to the adapter; both files removed first.
struct Patient {
    release: std::path::PathBuf,
    waiting: std::path::PathBuf,
    case: String,
}

impl Patient {
    fn new(name: &str) -> Self {
        let file = format!("mcp-error-layers-{}-{name}", std::process::id());
        let release = std::env::temp_dir().join(file);
        let waiting = release.with_extension("waiting");
        let _ = (
            std::fs::remove_file(&release),
            std::fs::remove_file(&waiting),
        );
        let arguments = format!(r#"{{"wait_file": "{}"}}"#, release.display());
        let case = one_call(&arguments, 30_000, "TOOL_SUCCESS");
        Patient {
            release,
            waiting,
            case,
        }
    }
}

#[test]
fn a_hang_leaves_the_calls_in_flight_their_chance_and_the_process_is_killed_after_them() {
    let (program, pid_file) = concurrent("hang-in-flight", SERVES_FOUR);
    let Patient {
        release,
        waiting,
        case: patient_case,
    } = Patient::new("release");
    std::thread::scope(|scope| {
        let patient = scope.spawn(|| run(&program, &patient_case));
        assert!(
            file_by(&waiting, Instant::now() + Duration::from_secs(30)),
            "the patient call never got to the adapter"
        );
        let hung = run(
            &program,
            &one_call(r#"{"hang": true}"#, 300, "TOOL_SUCCESS"),
        );
        assert_eq!(hung.calls[0].verdict, Verdict::Hang, "{:?}", hung.calls);
        let pid = pid_file.pid();
        assert_eq!(kill(pid, None), Ok(()), "alive while a call is in flight");
        std::fs::write(&release, "").unwrap();
        let patient = patient.join().unwrap();
        assert_eq!(patient.verdict, Verdict::Pass, "{:?}", patient.calls);
        assert_eq!(pid_of(&patient.calls[0]), pid.as_raw().unsigned_abs());
        let log = patient.calls[0].adapter_log.as_deref().unwrap_or_default();
        assert!(log.contains("] about to hang"), "stderr is shared: {log}");
        assert!(log.contains("share its stderr"), "{log}");
        assert!(
            group_gone_by(pid, Instant::now() + Duration::from_secs(10)),
            "killed once its last call in flight ended"
        );
    });
    let _ = (
        std::fs::remove_file(&release),
        std::fs::remove_file(&waiting),
    );
    // The next call gets a fresh process.
    let next = run(&program, ONE_CALL);
    assert_eq!(next.verdict, Verdict::Pass, "{:?}", next.calls);
}

/// Two calls in flight, one of which waits forever; once both are there the other makes the
/// adapter do `then`. Both calls must be adapter-errors whose problems say each of `said`, and
/// the process must be gone.
fn both_fail_when_the_second_does(then: &str, said: &[&str]) {
    let (program, pid_file) = concurrent(then, SERVES_FOUR);
    let records = run_at_once(
        &program,
        vec![
            source(
                "t/waits",
                one_call(r#"{"wait": "never"}"#, 20_000, "TOOL_SUCCESS"),
            ),
            source(
                "t/misbehaves",
                one_call(
                    &format!(r#"{{"in_flight": 2, "then": "{then}"}}"#),
                    20_000,
                    "TOOL_SUCCESS",
                ),
            ),
        ],
    );
    for record in &records {
        let call = &record.calls[0];
        assert_eq!(call.verdict, Verdict::AdapterError, "{:?}", record.calls);
        let problems = problems(record);
        assert!(said.iter().all(|s| problems.contains(s)), "{problems}");
    }
    assert!(group_gone_by(
        pid_file.pid(),
        Instant::now() + Duration::from_secs(10)
    ));
}

#[test]
fn an_exit_with_calls_in_flight_fails_each_of_them() {
    both_fail_when_the_second_does(
        "exit",
        &[
            "exited with status 3 before answering request ",
            "(2 call(s) in flight)",
            "its stderr ended with: ",
        ],
    );
}

#[test]
fn an_answer_without_an_id_fails_every_call_in_flight_and_stops_the_process() {
    both_fail_when_the_second_does(
        "no-id",
        &[
            "printed an answer without an \"id\"",
            "(requests 1, 2; this one is ",
        ],
    );
}

#[test]
fn an_answer_with_an_id_never_sent_fails_every_call_in_flight() {
    both_fail_when_the_second_does(
        "unknown-id",
        &["answered request 999, which it was never sent"],
    );
}

#[test]
fn an_answer_that_is_no_observation_fails_its_call_and_retires_the_process() {
    let (program, _pid_file) = concurrent("no-observation", SERVES_FOUR);
    let record = run(&program, &calls(3, &[(1, r#"{"garbage": true}"#)], 5000));
    let verdicts: Vec<Verdict> = record.calls.iter().map(|c| c.verdict).collect();
    assert_eq!(
        verdicts,
        [Verdict::Pass, Verdict::AdapterError, Verdict::Pass]
    );
    let problem = &record.calls[1].problems[0];
    assert!(
        problem.contains("unknown variant `NOT_AN_OUTCOME`"),
        "{problem}"
    );
    assert!(
        !problem.contains("\"id\""),
        "the id is taken off first: {problem}"
    );
    // The case's client lives in that process: its last call goes there still. A new case
    // gets a new process.
    assert_eq!(pid_of(&record.calls[0]), pid_of(&record.calls[2]));
    let next = run(&program, ONE_CALL);
    assert_ne!(pid_of(&record.calls[0]), pid_of(&next.calls[0]));
}

/// Why a program that announces `announcement` fell back to one process per call (where its
/// one call still passed).
fn start_failure(name: &str, announcement: &str) -> String {
    let (program, _pid_file) = concurrent(name, announcement);
    let record = run(&program, &calls(1, &[], 5000));
    assert_eq!(
        record.verdict,
        Verdict::Pass,
        "one process per call: {:?}",
        record.calls
    );
    match program.mode() {
        Mode::OneShot(reason) => reason,
        mode => panic!("{announcement}: {mode:?}"),
    }
}

#[test]
fn a_bad_concurrent_value_is_a_start_failure_that_names_the_key() {
    for value in ["0", "65", "\"8\"", "2.5", "-1", "null"] {
        let announcement = format!(r#"{{"persistent": 1, "concurrent": {value}}}"#);
        let reason = start_failure("bad-concurrent", &announcement);
        assert!(
            reason.contains(&format!("\"concurrent\": {value}"))
                && reason.contains("an integer from 1 to 64"),
            "{value}: {reason}"
        );
    }
}

#[test]
fn a_program_that_serves_one_call_at_a_time_gets_requests_without_ids() {
    for announcement in [
        r#"{"persistent": 1}"#,
        r#"{"persistent": 1, "concurrent": 1}"#,
    ] {
        let (program, _pid_file) = concurrent("one-at-a-time", announcement);
        let record = run(&program, &calls(2, &[], 5000));
        assert_eq!(record.verdict, Verdict::Pass, "{:?}", record.calls);
        for call in &record.calls {
            let detail = observed_detail(call);
            assert!(detail.contains("request None"), "{announcement}: {detail}");
            assert!(!detail.contains("'id'"), "{announcement}: {detail}");
        }
        assert_eq!(pid_of(&record.calls[0]), pid_of(&record.calls[1]));
        assert_eq!(program.mode(), Mode::Persistent);
    }
}

#[test]
fn calls_at_once_share_one_process_up_to_its_capacity() {
    let (program, _pid_file) = concurrent("capacity", SERVES_FOUR);
    let sources: Vec<CaseSource> = (0..8).map(|_| builtin_case("tool/success")).collect();
    let records = Run::new(&program).cases(sources).jobs(3).execute(&()).cases;
    assert!(
        records.iter().all(|r| r.verdict == Verdict::Pass),
        "{records:?}"
    );
    let mut pids: Vec<u32> = records.iter().map(|r| pid_of(&r.calls[0])).collect();
    pids.sort_unstable();
    pids.dedup();
    assert_eq!(pids.len(), 1, "three at once fit in four slots: {pids:?}");
}

/// A persistent adapter that takes 2 s to load before it announces, as a client library that
/// is slow to import does: the runner waits for the announcement before any call's deadline,
/// so the cancel cases (timeouts of 400 to 500 ms, a 300 ms margin) get their own time, not a
/// hang for the import.
#[test]
fn an_adapter_that_takes_two_seconds_to_start_gets_no_false_hang_on_the_cancel_cases() {
    let program = ProcessAdapter::new(
        adapter("slow-start.sh"),
        ["2".into(), adapter("persistent.py").into_os_string()],
    );
    // `cancel/progress-forever` is left out: oneshot.py's client lets each progress event
    // extend its timeout, and hangs there however fast it starts.
    let cancel: Vec<CaseSource> = builtin()
        .into_iter()
        .filter(|s| s.id.starts_with("cancel/") && s.id != "cancel/progress-forever")
        .collect();
    assert_eq!(cancel.len(), 4, "{cancel:?}");
    let jobs = cancel.len();
    let run = Run::new(&program).cases(cancel).jobs(jobs);
    let records = run.deadline_margin(MARGIN).execute(&()).cases;
    assert_eq!(program.mode(), Mode::Persistent);
    for record in &records {
        let timed_out = match &record.calls[0].report {
            Some(AdapterReport::Observed(observation)) => observation.outcome.as_str(),
            _ => "no observation",
        };
        assert_eq!(timed_out, "TIMEOUT", "{}: {:?}", record.id, record.calls);
        assert!(
            record.calls.iter().all(|c| c.verdict != Verdict::Hang),
            "{}: {:?}",
            record.id,
            record.calls
        );
    }
    let logs: String = records
        .iter()
        .flat_map(|r| &r.calls)
        .filter_map(|c| c.adapter_log.clone())
        .collect();
    let ready = logs
        .split("announced ")
        .nth(1)
        .and_then(|rest| rest.split(" ms").next())
        .and_then(|ms| ms.parse::<u64>().ok());
    assert!(ready.is_some_and(|ms| ms >= 2000), "{logs}");
}

/// A hang on a persistent process's first call says that the process was new and when it
/// started; one on a later call does not.
#[test]
fn a_hang_on_a_new_processs_first_call_says_how_long_after_its_start_it_came() {
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new());
    let record = run(
        &program,
        &calls(
            3,
            &[(0, r#"{"hang": true}"#), (2, r#"{"hang": true}"#)],
            400,
        ),
    );
    let verdicts: Vec<Verdict> = record.calls.iter().map(|c| c.verdict).collect();
    assert_eq!(verdicts, [Verdict::Hang, Verdict::Pass, Verdict::Hang]);
    let first = &record.calls[0].problems[0];
    assert!(
        first.starts_with("no observation within 700 ms (new process, ")
            && first.contains(" ms after its start, ready after "),
        "{first}"
    );
    // The hang retired the first process: the second call started one, and the third is that
    // one's second call.
    let later = &record.calls[2].problems[0];
    assert_eq!(later, "no observation within 700 ms");
}

/// The announcement may name the client (`"name"`, `"version"`) for reports; a name that is no
/// short string is a start failure that names the key.
#[test]
fn an_announcement_names_the_client_and_a_bad_name_is_refused_naming_the_key() {
    let (program, _pid_file) = concurrent(
        "named",
        r#"{"persistent": 1, "concurrent": 2, "name": "my-sdk", "version": "1.2.3"}"#,
    );
    let record = run(&program, &calls(1, &[], 5000));
    assert_eq!(record.verdict, Verdict::Pass, "{:?}", record.calls);
    let info = program.info();
    assert_eq!(
        (info.name.as_deref(), info.version.as_deref()),
        (Some("my-sdk"), Some("1.2.3"))
    );
    let long = "x".repeat(201);
    for (key, value) in [
        ("name", "5"),
        ("version", "\"\""),
        ("name", &format!("\"{long}\"")),
        ("name", "\"a\\nb\""),
    ] {
        let announcement = format!(r#"{{"persistent": 1, "{key}": {value}}}"#);
        let reason = start_failure("bad-name", &announcement);
        assert!(
            reason.contains(&format!("\"{key}\": ")) && reason.contains("a string of 1 to 200"),
            "{value}: {reason}"
        );
    }
}

/// `(client, opened at call, its call)` from the detail of a call the test adapters served in
/// persistent mode (`oneshot.kept_client`).
fn client_of(call: &CallRecord) -> (u64, usize, usize) {
    let detail = observed_detail(call);
    let rest = detail
        .rsplit_once(" client ")
        .unwrap_or_else(|| panic!("no client in {detail:?}"))
        .1;
    let numbers: Vec<&str> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .collect();
    match numbers[..] {
        [client, opened, count] => (
            client.parse().unwrap(),
            opened.parse().unwrap(),
            count.parse().unwrap(),
        ),
        _ => panic!("not `client C opened at call I, its call N`: {detail:?}"),
    }
}

/// Every case's calls ran in one process on one client, opened at its first call, the calls
/// counted 1, 2, 3 by that client; and no two cases shared a client.
fn assert_one_client_per_case(records: &[CaseRecord]) {
    let mut clients = Vec::new();
    for record in records {
        assert_eq!(record.verdict, Verdict::Pass, "{:?}", record.calls);
        let pids: Vec<u32> = record.calls.iter().map(pid_of).collect();
        assert!(
            pids.iter().all(|pid| *pid == pids[0]),
            "one process: {pids:?}"
        );
        let seen: Vec<(u64, usize, usize)> = record.calls.iter().map(client_of).collect();
        let client = seen[0].0;
        let want: Vec<_> = (1..=record.calls.len()).map(|n| (client, 0, n)).collect();
        assert_eq!(seen, want, "one client, opened at the first call");
        clients.push(client);
    }
    clients.sort_unstable();
    clients.dedup();
    assert_eq!(clients.len(), records.len(), "a client of its own per case");
}

#[test]
fn the_calls_of_a_case_reach_one_client_on_a_process_serving_one_call_at_a_time() {
    let program = ProcessAdapter::new(adapter("persistent.py"), Vec::<String>::new());
    let cases = (0..6).map(|n| source(&format!("t/{n}"), calls(3, &[], 2000)));
    let records = run_at_once(&program, cases.collect());
    assert_one_client_per_case(&records);
}

#[test]
fn the_calls_of_a_case_reach_one_client_on_a_process_serving_calls_at_once() {
    let (program, _pid) = concurrent("kept", SERVES_FOUR);
    let cases = (0..6).map(|n| source(&format!("t/{n}"), calls(3, &[], 2000)));
    let records = run_at_once(&program, cases.collect());
    assert_one_client_per_case(&records);
}

#[test]
fn a_later_call_of_a_one_shot_adapter_says_it_runs_on_a_new_client() {
    let program = ProcessAdapter::new(adapter("oneshot.py"), Vec::<String>::new()).one_shot();
    let record = run(&program, &calls(2, &[], 2000));
    assert_eq!(record.verdict, Verdict::Pass, "{:?}", record.calls);
    let log = |n: usize| record.calls[n].adapter_log.clone().unwrap_or_default();
    assert!(!log(0).contains("new client"), "{}", log(0));
    assert!(
        log(1).contains("call 2 of the case runs on a new client"),
        "{}",
        log(1)
    );
}

#[test]
fn after_a_hang_the_next_call_of_the_case_goes_where_its_client_is() {
    let (program, pid_file) = concurrent("hang-then-next", SERVES_FOUR);
    let Patient {
        release,
        waiting,
        case: patient_case,
    } = Patient::new("release-next");
    std::thread::scope(|scope| {
        // Keeps the process alive (and serving) after the hang retired it from new calls.
        let patient = scope.spawn(|| run(&program, &patient_case));
        assert!(
            file_by(&waiting, Instant::now() + Duration::from_secs(30)),
            "the patient call never got to the adapter"
        );
        let record = run(&program, &calls(2, &[(0, r#"{"hang": true}"#)], 400));
        assert_eq!(record.calls[0].verdict, Verdict::Hang, "{:?}", record.calls);
        assert_eq!(
            pid_of(&record.calls[1]),
            pid_file.pid().as_raw().unsigned_abs(),
            "the client's process, not a new one: {:?}",
            record.calls[1].adapter_log
        );
        let log = record.calls[1].adapter_log.as_deref().unwrap_or_default();
        assert!(!log.contains("new client"), "{log}");
        std::fs::write(&release, "").unwrap();
        assert_eq!(patient.join().unwrap().verdict, Verdict::Pass);
    });
    let _ = (
        std::fs::remove_file(&release),
        std::fs::remove_file(&waiting),
    );
}

//! `record` and `import` (docs/record-import.md) against real things: real servers started
//! here (the Python SDK's FastMCP, mcp 1.x, from the `python-sdk-v1` row's virtualenv, and the
//! TypeScript SDK from the `typescript-sdk` row's `node_modules`, both set up by the SDK rows'
//! installer) and a HAR file a real exporter wrote (mitmproxy, `tests/recording/README.md`).
//!
//! What must hold: replaying a recorded case against the reference client gives the outcome the
//! live server gave (a success, a tool error, an SSE answer, a JSON answer); every faulted
//! variant loads and the reference client passes it; bad HAR files and non-loopback addresses
//! are errors that name the file or the address.
//!
//! Without Python or Node (or when a row's setup fails) the tests that need its server pass
//! with a note on stderr, unless `MCP_ERROR_LAYERS_REQUIRE_SDKS` is set (CI): then they fail.

use mcp_error_layers::CallContext;
use mcp_error_layers::Outcome;
use mcp_error_layers::adapter::Adapter;
use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::CaseSource;
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::engine::recording::{
    Fault, Recorder, RecorderOptions, Report, Written, read_har, stem, write_family,
};
use mcp_error_layers::{AdapterReport, Observation};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

// Only its setup is used here.
#[allow(dead_code)]
#[path = "../harness/sdk_setup.rs"]
mod sdk_setup;

/// The HAR fixture mitmproxy wrote (tests/recording/README.md).
const HAR: &str = "tests/recording/fastmcp-1.30.0.mitmproxy-11.0.2.har";

/// The faults every family here is written with.
const FAULTS: [&str; 4] = ["http-503-before", "wrong-id", "stall", "cut-after-event=0"];

fn faults() -> Vec<Fault> {
    FAULTS.iter().map(|f| f.parse().unwrap()).collect()
}

/// The row's Python, or `None` (with a note) where it cannot be set up and CI did not ask for it.
fn python() -> Option<PathBuf> {
    match sdk_setup::installed("python-sdk-v1") {
        Ok(command) => Some(command[0].clone()),
        Err(why) if !required() => {
            eprintln!("note: no FastMCP server to record, so this test checks nothing: {why}");
            None
        }
        Err(why) => panic!("python-sdk-v1: {why} ({} is set)", sdk_setup::REQUIRE_VAR),
    }
}

/// The typescript-sdk row's Node and a copy of `tests/recording/typescript_server.mjs` beside a
/// link to the row's `node_modules` (where its imports resolve), or `None` (with a note) where
/// the row cannot be set up and CI did not ask for it.
fn node_server() -> Option<(PathBuf, PathBuf)> {
    let node = match sdk_setup::installed("typescript-sdk") {
        Ok(command) => command[0].clone(),
        Err(why) if !required() => {
            eprintln!("note: no TypeScript server to record, so this test checks nothing: {why}");
            return None;
        }
        Err(why) => panic!("typescript-sdk: {why} ({} is set)", sdk_setup::REQUIRE_VAR),
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let folder = root.join("target/record-import/typescript");
    std::fs::create_dir_all(&folder).unwrap();
    let link = folder.join("node_modules");
    let _ = std::fs::remove_file(&link);
    let modules = root.join("harness/adapters/typescript-sdk/node_modules");
    std::os::unix::fs::symlink(modules, &link).unwrap();
    let script = folder.join("typescript_server.mjs");
    std::fs::copy(root.join("tests/recording/typescript_server.mjs"), &script).unwrap();
    Some((node, script))
}

fn required() -> bool {
    std::env::var_os(sdk_setup::REQUIRE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// A FastMCP server on 127.0.0.1; killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    /// Starts `program args...` and reads the port it prints first.
    fn start(program: &Path, args: &[&Path]) -> Server {
        let mut child = Command::new(program)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server");
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("port ").expect("`port N` first");
        Server {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    /// The FastMCP server, answering SSE or (`json`) JSON.
    fn python(python: &Path, mode: &str) -> Server {
        let script = Path::new("tests/recording/fastmcp_server.py");
        Server::start(python, &[script, Path::new(mode)])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the reference client reports for one call of `tool` at `endpoint`.
fn call(endpoint: &str, tool: &str, arguments: Value) -> Observation {
    // Listing the tools first, as an application does, records what the tool looks like.
    let context = CallContext::new(endpoint, tool, arguments)
        .with_protocol_version("2025-06-18")
        .with_list_tools(true);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    match runtime.block_on(ReferenceAdapter::new().call(context)) {
        AdapterReport::Observed(observation) => observation,
        other => panic!("the reference client did not call: {other:?}"),
    }
}

/// The live calls made through the recorder, each with the outcome the live server gave.
fn record(server: &Server, out: &Path) -> (Vec<Outcome>, Vec<Report>) {
    let recorder = Recorder::start(RecorderOptions {
        upstream: server.url.clone(),
        listen: "127.0.0.1:0".into(),
        out: out.to_path_buf(),
        faults: faults(),
        max_exchanges: 10,
    })
    .unwrap();
    let endpoint = recorder.url(&server.url);
    let live = vec![
        call(&endpoint, "add_numbers", json!({"a": 2, "b": 3})).outcome,
        call(&endpoint, "fail", json!({"reason": "quota exceeded"})).outcome,
    ];
    (live, recorder.stop())
}

/// Records a success and a tool error of a server started in `mode`: the folder of the cases,
/// the live outcomes and the reports. `None` without Python.
fn record_live(mode: &str) -> Option<(tempfile::TempDir, Vec<Outcome>, Vec<Report>)> {
    let server = Server::python(&python()?, mode);
    let out = tempfile::tempdir().unwrap();
    let (live, reports) = record(&server, out.path());
    assert_eq!(live, [Outcome::ToolSuccess, Outcome::ToolError]);
    Some((out, live, reports))
}

/// The cases docs/record-import.md shows `record` writing of this server are among the lines
/// printed here (the command line prints each report as it is); the lines around them are
/// checked by cli/tests/record_import.rs.
fn the_docs_show_these_lines(reports: &[Report], out: &Path) {
    let doc = std::fs::read_to_string("docs/record-import.md").unwrap();
    let start = doc.find("Recording the FastMCP server").unwrap();
    let block = &doc[start..doc[start..].find("\n```\n").unwrap() + start];
    let printed: Vec<String> = reports
        .iter()
        .map(|r| {
            r.to_string()
                .replace(&out.display().to_string(), "recorded")
        })
        .collect();
    let shown: Vec<&str> = block.lines().filter(|l| l.starts_with("wrote ")).collect();
    assert!(!shown.is_empty());
    for line in shown {
        assert!(
            printed.iter().any(|p| p == line),
            "docs/record-import.md shows `{line}`, which record did not print:\n{}",
            printed.join("\n")
        );
    }
}

fn written(reports: Vec<Report>) -> Vec<Written> {
    reports
        .into_iter()
        .map(|report| match report {
            Report::Wrote(written) => written,
            skipped => panic!("{skipped}"),
        })
        .collect()
}

/// Runs a written case against the reference client: its verdict and what it observed.
fn replay(written: &Written) -> (Verdict, Option<Outcome>, String) {
    let source = CaseSource {
        id: written
            .path
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        origin: written.path.display().to_string(),
        text: std::fs::read_to_string(&written.path).map_err(|e| e.to_string()),
    };
    let record = Run::new(&ReferenceAdapter::new()).run_one(&source);
    let observed = record.calls.first().and_then(|call| match &call.report {
        Some(AdapterReport::Observed(observation)) => Some(observation.outcome),
        _ => None,
    });
    (record.verdict, observed, format!("{:?}", record.calls))
}

/// The family of each live call replays as the live server answered: the recorded case gives
/// the live outcome, and every case (the variants too) passes against the reference client.
fn check_round_trip(live: &[Outcome], written: &[Written]) {
    let recorded: Vec<&Written> = written.iter().filter(|w| w.variant == "recorded").collect();
    assert_eq!(recorded.len(), live.len(), "{written:?}");
    for (written, live) in recorded.iter().zip(live) {
        let (verdict, observed, calls) = replay(written);
        assert_eq!(observed, Some(*live), "{}: {calls}", written.path.display());
        assert_eq!(
            verdict,
            Verdict::Pass,
            "{}: {calls}",
            written.path.display()
        );
    }
    for written in written {
        let (verdict, _, calls) = replay(written);
        assert_eq!(
            verdict,
            Verdict::Pass,
            "{}: {calls}",
            written.path.display()
        );
    }
}

#[test]
fn record_round_trips_a_real_servers_sse_answers_success_and_tool_error() {
    let Some((out, live, reports)) = record_live("sse") else {
        return;
    };
    the_docs_show_these_lines(&reports, out.path());
    let written = written(reports);
    // Two calls, each the recorded case and its four variants.
    assert_eq!(written.len(), 10, "{written:?}");
    let case = std::fs::read_to_string(out.path().join("001-add_numbers.toml")).unwrap();
    assert!(
        case.contains("content_type = \"text/event-stream\""),
        "{case}"
    );
    assert!(
        case.contains(r#"data: {"jsonrpc":"2.0","id":"$id","#),
        "{case}"
    );
    assert!(
        case.contains("input_schema = { properties = { a = "),
        "{case}"
    );
    check_round_trip(&live, &written);
    let outcomes: Vec<(String, Outcome)> = written
        .iter()
        .map(|w| (w.variant.clone(), w.expect.outcome))
        .collect();
    for (variant, outcome) in [
        ("http-503-before", Outcome::HttpError),
        ("wrong-id", Outcome::InvalidEnvelope),
        ("stall", Outcome::Timeout),
        ("cut-after-event-0", Outcome::StreamIncomplete),
    ] {
        assert!(
            outcomes.contains(&(variant.to_owned(), outcome)),
            "{variant}: {outcomes:?}"
        );
    }
}

#[test]
fn record_round_trips_a_real_servers_json_answers() {
    let Some((out, live, reports)) = record_live("json") else {
        return;
    };
    let reports_text: Vec<String> = reports.iter().map(ToString::to_string).collect();
    // A JSON answer has no events to cut: that variant is skipped, with the reason.
    let (skipped, wrote): (Vec<Report>, Vec<Report>) = reports
        .into_iter()
        .partition(|r| matches!(r, Report::Skipped { .. }));
    assert_eq!(skipped.len(), 2, "{reports_text:#?}");
    assert!(
        reports_text[4].contains("cut-after-event needs an SSE answer"),
        "{reports_text:#?}"
    );
    let written = written(wrote);
    let case = std::fs::read_to_string(out.path().join("002-fail.toml")).unwrap();
    assert!(
        case.contains("json = '''"),
        "compact JSON is written pretty: {case}"
    );
    check_round_trip(&live, &written);
}

#[test]
fn record_round_trips_the_typescript_sdks_sse_as_events_with_their_timing() {
    let Some((node, script)) = node_server() else {
        return;
    };
    let server = Server::start(&node, &[&script]);
    let out = tempfile::tempdir().unwrap();
    let (live, reports) = record(&server, out.path());
    assert_eq!(live, [Outcome::ToolSuccess, Outcome::ToolError]);
    let written = written(reports);
    let source = CaseSource {
        id: "001-add_numbers".into(),
        origin: "001-add_numbers.toml".into(),
        text: std::fs::read_to_string(out.path().join("001-add_numbers.toml"))
            .map_err(|e| e.to_string()),
    };
    let case = source.load().unwrap();
    let reply = &case.file.call[0].reply[0];
    // A log notification, then the result 40 ms later: two event tables, the gap kept.
    assert_eq!(reply.event.len(), 2, "{reply:?}");
    assert!(reply.event_gap_ms >= 20, "{reply:?}");
    assert!(
        reply.event[1]
            .data_raw
            .as_deref()
            .unwrap()
            .contains(r#""id":"$id""#)
    );
    let stalled = std::fs::read_to_string(out.path().join("001-add_numbers-stall.toml")).unwrap();
    assert!(
        stalled.contains("notifications/message"),
        "the notification goes out: {stalled}"
    );
    check_round_trip(&live, &written);
}

#[test]
fn import_reads_the_har_mitmproxy_wrote() {
    let imported = read_har(Path::new(HAR)).unwrap();
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    assert_eq!(imported.exchanges.len(), 2);
    let out = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for (n, (exchange, session)) in imported.exchanges.iter().enumerate() {
        let stem = stem(n + 1, exchange.tool_name().unwrap());
        let faults = faults();
        all.extend(write_family(out.path(), &stem, exchange, session, &faults));
    }
    let written = written(all);
    check_round_trip(&[Outcome::ToolSuccess, Outcome::ToolError], &written);
    // What tools/list said is in the case: the tool's schemas.
    let case = std::fs::read_to_string(out.path().join("002-fail.toml")).unwrap();
    assert!(
        case.contains("input_schema = { properties = { reason"),
        "{case}"
    );
    assert!(case.contains("protocol_version = \"2025-06-18\""), "{case}");
}

#[test]
fn a_bad_har_is_an_error_naming_the_file_and_the_json_path() {
    let dir = tempfile::tempdir().unwrap();
    for (text, wanted) in [
        ("{\"log\": ", "not JSON: EOF while parsing"),
        ("[]", "at .: invalid length 0, expected struct Har"),
        (
            r#"{"log": {"entries": [{"request": {"method": "POST", "url": "x"}, "response": {"status": "200"}}]}}"#,
            "at log.entries[0].response.status: invalid type: string \"200\"",
        ),
    ] {
        let path = dir.path().join("capture.har");
        std::fs::write(&path, text).unwrap();
        let error = read_har(&path).unwrap_err().to_string();
        assert!(error.starts_with(&path.display().to_string()), "{error}");
        assert!(error.contains(wanted), "{wanted:?} in {error}");
    }
    let missing = dir.path().join("missing.har");
    let error = read_har(&missing).unwrap_err().to_string();
    assert!(error.contains("missing.har: cannot read"), "{error}");
}

#[test]
fn record_refuses_addresses_off_this_machine_naming_them() {
    for (upstream, listen, wanted) in [
        (
            "http://192.0.2.7:8000/mcp",
            "127.0.0.1:0",
            "--upstream \"http://192.0.2.7:8000/mcp\": 192.0.2.7:8000 is not a loopback address",
        ),
        (
            "http://127.0.0.1:8000/mcp",
            "0.0.0.0:0",
            "--listen 0.0.0.0:0: 0.0.0.0 is not a loopback address",
        ),
    ] {
        let error = Recorder::start(RecorderOptions {
            upstream: upstream.into(),
            listen: listen.into(),
            out: PathBuf::from("unused"),
            faults: Vec::new(),
            max_exchanges: 1,
        })
        .unwrap_err()
        .to_string();
        assert!(error.starts_with(wanted), "{error}");
    }
}

#[test]
fn a_503_before_a_read_only_tools_answer_expects_the_retry_a_correct_client_makes() {
    let imported = read_har(Path::new(HAR)).unwrap();
    let (exchange, session) = &imported.exchanges[0];
    let mut session = session.clone();
    for tool in &mut session.tools {
        tool["annotations"] = json!({"readOnlyHint": true});
    }
    let out = tempfile::tempdir().unwrap();
    let faults = ["http-503-before".parse().unwrap()];
    let written = written(write_family(
        out.path(),
        "001-add_numbers",
        exchange,
        &session,
        &faults,
    ));
    let variant = &written[1];
    assert_eq!(variant.expect.outcome, Outcome::ToolSuccess, "{variant:?}");
    assert_eq!(variant.expect.tool_posts, Some(2), "{variant:?}");
    let case = std::fs::read_to_string(&variant.path).unwrap();
    assert!(
        case.contains("annotations = { readOnlyHint = true }"),
        "{case}"
    );
    let (verdict, observed, calls) = replay(variant);
    assert_eq!(
        (verdict, observed),
        (Verdict::Pass, Some(Outcome::ToolSuccess)),
        "{calls}"
    );
}

//! Every verdict (docs/reports.md, "How a case counts"), reached with small in-process adapters against real wire servers.

use mcp_error_layers::Outcome;
use mcp_error_layers::adapter::{Adapter, CallContext};
use mcp_error_layers::case::CaseSource;
use mcp_error_layers::engine::Baseline;
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Rules;
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Standing;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::engine::explain;
use mcp_error_layers::{AdapterReport, Observation};
use std::time::Duration;

const TWO_CALLS: &str = r#"
summary = "503, then a second call that succeeds"
[[call]]
expect = { outcome = "HTTP_ERROR", status = 503, tool_posts = 1 }
timeout_ms = 200
[[call.reply]]
status = 503
[[call]]
expect = { outcome = "TOOL_SUCCESS", tool_posts = 1 }
timeout_ms = 200
[[call.reply]]
status = 200
json = '{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}'
"#;

fn run<A: Adapter>(adapter: &A, text: &str) -> CaseRecord {
    let source = CaseSource {
        id: "t/case".into(),
        origin: "t/case.toml".into(),
        text: Ok(text.into()),
    };
    let run = Run::new(adapter).deadline_margin(Duration::from_millis(100));
    run.run_one(&source)
}

/// Always reports the same thing, after posting nothing.
struct Says(AdapterReport);

impl Adapter for Says {
    async fn call(&self, _: CallContext) -> AdapterReport {
        self.0.clone()
    }
}

/// Posts one well-formed 2026-07-28 `tools/call` with a bare HTTP client, then reports a
/// fixed outcome.
struct PostsThenSays(Outcome);

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
    "io.modelcontextprotocol/clientCapabilities":{},
    "io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}"#;

impl Adapter for PostsThenSays {
    async fn call(&self, call: CallContext) -> AdapterReport {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"synthetic","_meta":{META}}}}}"#
        );
        let status = post(&call.endpoint, body, true).await;
        Observation::new(self.0).with_status(status).into()
    }
}

/// Posts `body` as a `tools/call`, with the 2026-07-28 headers or none; returns the status.
async fn post(endpoint: &str, body: String, headers: bool) -> u16 {
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let mut request = client.post(endpoint).body(body);
    if headers {
        request = request
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "synthetic");
    }
    request.send().await.unwrap().status().as_u16()
}

/// Posts a bare `tools/call` (no headers, no `_meta`) and reports what the case expects.
struct PostsBare;

impl Adapter for PostsBare {
    async fn call(&self, call: CallContext) -> AdapterReport {
        let body =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"synthetic"}}"#;
        let status = post(&call.endpoint, body.into(), false).await;
        Observation::new(Outcome::HttpError)
            .with_status(status)
            .into()
    }
}

/// Reports success with `attempts = 1` at once, while its one POST reaches the server only a
/// little later: a request still on its way when the call ends, as when the server's thread
/// is starved on a busy machine.
struct ReportsBeforeItsPostLands;

impl Adapter for ReportsBeforeItsPostLands {
    async fn call(&self, call: CallContext) -> AdapterReport {
        let endpoint = call.endpoint.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(150));
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"synthetic","_meta":{META}}}}}"#
            );
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(post(&endpoint, body, true));
        });
        Observation::new(Outcome::ToolSuccess)
            .with_attempts(1)
            .into()
    }
}

/// Sends a set-up request (`server/discover`), is slow to go on (a busy machine, a slow
/// connect), then posts the call's `tools/call` and reports the 503 it gets.
struct SlowToSetUp(Duration);

impl Adapter for SlowToSetUp {
    async fn call(&self, call: CallContext) -> AdapterReport {
        let discover = r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#;
        post(&call.endpoint, discover.into(), false).await;
        tokio::time::sleep(self.0).await;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"synthetic","_meta":{META}}}}}"#
        );
        let status = post(&call.endpoint, body, true).await;
        Observation::new(Outcome::HttpError)
            .with_status(status)
            .into()
    }
}

/// Sends a set-up request, then never its `tools/call`.
struct StuckInSetUp;

impl Adapter for StuckInSetUp {
    async fn call(&self, call: CallContext) -> AdapterReport {
        let discover = r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#;
        post(&call.endpoint, discover.into(), false).await;
        std::future::pending().await
    }
}

struct Hangs;

impl Adapter for Hangs {
    async fn call(&self, _: CallContext) -> AdapterReport {
        std::future::pending().await
    }
}

struct Panics;

impl Adapter for Panics {
    async fn call(&self, _: CallContext) -> AdapterReport {
        panic!("the client blew up")
    }
}

#[test]
fn pass_needs_every_named_field_including_the_server_side_post_count() {
    let record = run(&PostsThenSays(Outcome::HttpError), TWO_CALLS);
    assert_eq!(record.calls[0].verdict, Verdict::Pass);
    assert_eq!(record.calls[0].tool_posts, 1);
    // The second call expects TOOL_SUCCESS; this adapter says HTTP_ERROR.
    assert_eq!(record.calls[1].verdict, Verdict::Fail);
    assert_eq!(record.verdict, Verdict::Fail);
    assert_eq!(
        record.calls[1].problems,
        ["outcome: expected TOOL_SUCCESS, observed HTTP_ERROR"]
    );
}

#[test]
fn a_missing_post_is_a_mismatch_even_when_the_words_match() {
    let record = run(
        &Says(Observation::new(Outcome::HttpError).with_status(503).into()),
        TWO_CALLS,
    );
    assert_eq!(record.calls[0].verdict, Verdict::Fail);
    assert_eq!(
        record.calls[0].problems,
        ["tool_posts: expected 1, the server received 0"]
    );
}

#[test]
fn a_request_still_landing_when_the_call_ends_is_counted() {
    let case = TWO_CALLS.replace(
        "expect = { outcome = \"HTTP_ERROR\", status = 503, tool_posts = 1 }",
        "expect = { outcome = \"TOOL_SUCCESS\" }",
    );
    let case = case.replace(
        "status = 503\n",
        "status = 200\njson = '{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":{\"content\":[]}}'\n",
    );
    let record = run(&ReportsBeforeItsPostLands, &case);
    let call = &record.calls[0];
    // Judged on its answer (the bare set-up request fails request checks, not the outcome).
    assert_ne!(call.verdict, Verdict::Hang, "{:?}", call.problems);
    assert!(call.problems.is_empty(), "{:?}", call.problems);
    assert_eq!(call.tool_posts, 1);
}

#[test]
fn a_hung_adapter_is_a_hang_verdict_within_its_deadline() {
    let started = std::time::Instant::now();
    let record = run(&Hangs, TWO_CALLS);
    assert_eq!(
        record.calls.iter().map(|c| c.verdict).collect::<Vec<_>>(),
        [Verdict::Hang, Verdict::Hang]
    );
    assert!(record.calls[0].problems[0].contains("no observation within 300 ms"));
    // Liveness, not speed: both calls end at their deadlines instead of never.
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn set_up_is_not_the_calls_time_the_deadline_runs_from_its_tools_call() {
    // Deadline 300 ms (200 ms timeout + 100 ms margin); set-up takes twice that.
    let record = run(&SlowToSetUp(Duration::from_millis(600)), TWO_CALLS);
    let call = &record.calls[0];
    // Judged on its answer (the bare set-up request fails request checks, not the outcome).
    assert_ne!(call.verdict, Verdict::Hang, "{:?}", call.problems);
    assert!(call.problems.is_empty(), "{:?}", call.problems);
    assert_eq!(call.tool_posts, 1);
}

#[test]
fn a_client_stuck_in_set_up_is_a_hang_that_says_so_at_the_set_up_bound() {
    let started = std::time::Instant::now();
    let one_call = TWO_CALLS
        .split("[[call]]")
        .take(2)
        .collect::<Vec<_>>()
        .join("[[call]]");
    let record = run(&StuckInSetUp, &one_call);
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Hang);
    assert_eq!(
        call.problems,
        [
            "set-up did not end: the client sent requests but no tools/call within 10000 ms of the \
          call's start"
        ]
    );
    // Liveness: the set-up bound ends it.
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_panicking_adapter_is_an_adapter_error_not_a_crashed_run() {
    let record = run(&Panics, TWO_CALLS);
    assert_eq!(record.verdict, Verdict::AdapterError);
    assert_eq!(
        record.calls[0].problems,
        ["the adapter panicked: the client blew up"]
    );
}

#[test]
fn unsupported_is_a_skip_and_stops_the_case() {
    let record = run(
        &Says(AdapterReport::Unsupported {
            unsupported: "no HTTP".into(),
        }),
        TWO_CALLS,
    );
    assert_eq!(record.verdict, Verdict::Unsupported);
    assert_eq!(record.calls.len(), 1, "later calls build on the first");
}

#[test]
fn a_broken_case_file_fails_that_case_with_the_loader_message() {
    let record = run(
        &Hangs,
        &TWO_CALLS.replace("status = 503\n", "status = 503\nstatsu = 1\n"),
    );
    assert_eq!(record.verdict, Verdict::Fail);
    let error = record.error.as_deref().unwrap();
    assert!(
        error.starts_with("t/case.toml: key `call[0].reply[0].statsu`: unknown field"),
        "{error}"
    );
    assert!(explain(&record).starts_with("case did not run: t/case.toml"));
}

#[test]
fn a_failure_explains_expected_observed_and_the_transcript() {
    let record = run(&PostsThenSays(Outcome::ToolSuccess), TWO_CALLS);
    let text = explain(&record);
    assert!(text.contains("call 0: fail\n  expected: HTTP_ERROR status=503 tool_posts=1\n  observed: TOOL_SUCCESS status=503 tool_posts=1"), "{text}");
    assert!(text.contains("→ POST /mcp tools/call (call 0"), "{text}");
    assert!(text.contains("← 503 by script, ended: complete"), "{text}");
}

#[test]
fn grades_decide_whether_a_mismatch_fails_the_run() {
    let mut record = run(&PostsThenSays(Outcome::HttpError), TWO_CALLS);
    assert_eq!(record.verdict, Verdict::Fail);
    let fails =
        |record: &CaseRecord, strict: bool| Rules::strict(strict).standing(record).fails_run();
    record.grade = mcp_error_layers::case::Grade::Must;
    assert!(fails(&record, false) && fails(&record, true));
    record.grade = mcp_error_layers::case::Grade::Should;
    assert!(!fails(&record, false) && fails(&record, true));
    record.grade = mcp_error_layers::case::Grade::Info;
    assert!(!fails(&record, false) && !fails(&record, true));
    let broken = CaseRecord::broken("x", "bad file".into());
    assert!(broken.standing.fails_run() && fails(&broken, false));
}

#[test]
fn a_failed_request_check_fails_the_call_and_the_run_by_its_own_grade() {
    let info_case = TWO_CALLS.replacen("summary", "grade = \"info\"\nsummary", 1);
    let record = run(&PostsBare, &info_case);
    let call = &record.calls[0];
    assert!(call.problems.is_empty(), "{:?}", call.problems);
    assert_eq!(call.verdict, Verdict::Fail);
    let failed: Vec<&str> = call.failed_checks().map(|c| c.name).collect();
    assert_eq!(
        failed,
        [
            "accept-header",
            "meta-fields",
            "client-info",
            "version-header",
            "method-header",
            "name-header"
        ]
    );
    // The case is graded info, but a failed MUST check fails the run all the same.
    assert_eq!(record.standing, Standing::Fail);
    // Every failed check but the SHOULD-grade client-info accepted: a warning, not a failure.
    let mut listed = String::from("[checks]\n");
    for name in failed.iter().filter(|&&n| n != "client-info") {
        listed.push_str(&format!("\"{name}\" = \"not yet\"\n"));
    }
    let accepting = Rules::strict(false).with_baseline(Baseline::parse(&listed).baseline);
    let Standing::Warning(why) = accepting.standing(&record) else {
        panic!("{:?}", accepting.standing(&record));
    };
    // Call 1 misses its expectation too, under the case's INFO grade: a warning for that.
    assert_eq!(why, "info-grade fail: never fails the run");
    // With client-info accepted too, still a warning (the expectation), never a failure.
    listed.push_str("\"client-info\" = \"later\"\n");
    let all = Rules::strict(true).with_baseline(Baseline::parse(&listed).baseline);
    assert!(matches!(all.standing(&record), Standing::Warning(_)));
    assert!(
        explain(&record)
            .contains("check accept-header (must): request 1 (tools/call): Accept is \"*/*\""),
        "{}",
        explain(&record)
    );
}

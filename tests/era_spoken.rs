//! Judged by the era spoken (cases/README.md, "The era a client speaks"): in a 2026-07-28 case, a
//! client that speaks a 2025 session instead is judged by the case's `expect_session`, and every
//! report says which version it spoke. Real clients on real wire servers: the reference client
//! in both eras, and a small client that falls back to a session but then re-issues a broken
//! call the 2026-07-28 way.

use mcp_error_layers::Outcome;
use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::adapter::{Adapter, CallContext};
use mcp_error_layers::case::{CaseSource, builtin};
use mcp_error_layers::engine::{CaseRecord, Run, Verdict, expected};
use mcp_error_layers::report::json::JsonReport;
use mcp_error_layers::{AdapterReport, Observation};
use std::time::Duration;

const NO_LAST_EVENT_ID: &str = "resume/stateless-no-last-event-id";
const REISSUED: &str = "resume/stateless-broken-stream-reissued";

fn source(id: &str) -> CaseSource {
    builtin().into_iter().find(|s| s.id == id).unwrap()
}

fn run<A: Adapter>(adapter: &A, id: &str, version: Option<&str>) -> CaseRecord {
    let run = Run::new(adapter)
        .deadline_margin(Duration::from_secs(3))
        .protocol_version(version.map(str::to_owned));
    run.run_one(&source(id))
}

#[test]
fn a_client_that_speaks_2026_is_judged_by_expect() {
    for id in [NO_LAST_EVENT_ID, REISSUED] {
        let record = run(&ReferenceAdapter::new(), id, None);
        let call = &record.calls[0];
        assert_eq!(
            call.verdict,
            Verdict::Pass,
            "{id}: {:?}",
            call.all_problems()
        );
        assert_eq!(call.spoken, "2026-07-28");
        assert!(!call.fell_back);
        assert_eq!(
            (call.expect.tool_posts, call.expect.resumes),
            (Some(2), Some(0))
        );
        assert!(!expected(call).contains("session"), "{id}");
    }
}

#[test]
fn a_client_that_speaks_a_2025_session_is_judged_by_expect_session() {
    // The reference client told to prefer 2025-11-25 opens a session in the 2026-07-28 case and
    // follows that era's rules: it resumes the stream with Last-Event-ID, and reports the
    // stream that ended without an event id as incomplete. By the 2026-07-28 counts it would
    // fail both (one tools/call, where the case's `expect` wants two).
    let record = run(
        &ReferenceAdapter::new(),
        NO_LAST_EVENT_ID,
        Some("2025-11-25"),
    );
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Pass, "{:?}", call.all_problems());
    assert_eq!((call.spoken.as_str(), call.fell_back), ("2025-11-25", true));
    assert_eq!(
        (call.expect.tool_posts, call.expect.resumes),
        (Some(1), Some(1))
    );
    assert_eq!(
        expected(call),
        "TOOL_SUCCESS tool_posts=1 (in a 2025-11-25 session)"
    );

    let record = run(&ReferenceAdapter::new(), REISSUED, Some("2025-06-18"));
    let call = &record.calls[0];
    assert_eq!(call.verdict, Verdict::Pass, "{:?}", call.all_problems());
    assert_eq!((call.spoken.as_str(), call.fell_back), ("2025-06-18", true));
    assert_eq!(call.expect.outcome, Outcome::StreamIncomplete);
    assert_eq!(call.tool_posts, 1);
}

/// Opens a 2025-11-25 session in whatever case it is given, then sends the call and, when the
/// stream breaks, sends it again with a new id (the 2026-07-28 rule) instead of resuming: right
/// by the counts of the era it did not speak.
struct FallsBackThenReissues;

impl Adapter for FallsBackThenReissues {
    async fn call(&self, call: CallContext) -> AdapterReport {
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let post = |body: String, session: Option<&str>| {
            let mut request = client
                .post(&call.endpoint)
                .header("accept", "application/json, text/event-stream")
                .header("content-type", "application/json")
                .body(body);
            if let Some(session) = session {
                request = request
                    .header("mcp-session-id", session)
                    .header("mcp-protocol-version", "2025-11-25");
            }
            request.send()
        };
        let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},
            "clientInfo":{"name":"t","version":"1"}}}"#;
        let answer = post(initialize.into(), None).await.unwrap();
        let session = answer.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let _ = answer.text().await;
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        let _ = post(initialized.into(), Some(&session)).await.unwrap();
        for id in 1..=2 {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"synthetic","arguments":{{}}}}}}"#
            );
            let answer = post(body, Some(&session)).await.unwrap();
            if answer.text().await.unwrap_or_default().contains("\"ok\"") {
                break;
            }
        }
        Observation::new(Outcome::ToolSuccess).into()
    }
}

#[test]
fn a_fall_back_is_held_to_the_sessions_rules_not_the_era_it_left() {
    let record = run(&FallsBackThenReissues, NO_LAST_EVENT_ID, None);
    let call = &record.calls[0];
    assert_eq!((call.spoken.as_str(), call.fell_back), ("2025-11-25", true));
    assert_eq!(call.tool_posts, 2, "it re-issued the call");
    assert_eq!(call.verdict, Verdict::Fail);
    assert_eq!(
        call.problems,
        [
            "tool_posts: expected 1, the server received 2",
            "resumes: expected 1, the server received 0 GET requests with Last-Event-ID",
        ]
    );
}

#[test]
fn the_json_report_says_which_version_each_call_spoke() {
    let adapter = ReferenceAdapter::new();
    let report = Run::new(&adapter)
        .cases(vec![source(NO_LAST_EVENT_ID)])
        .protocol_version(Some("2025-11-25".into()))
        .execute(&());
    let json = JsonReport::from_run(&report);
    let text = serde_json::to_value(&json).unwrap();
    let call = &text["cases"][0]["calls"][0];
    assert_eq!(call["spoken"], "2025-11-25");
    assert_eq!(call["fell_back"], true);
    assert_eq!(call["expected"]["resumes"], 1);

    let report = Run::new(&adapter)
        .cases(vec![source(NO_LAST_EVENT_ID)])
        .execute(&());
    let text = serde_json::to_value(JsonReport::from_run(&report)).unwrap();
    let call = &text["cases"][0]["calls"][0];
    assert_eq!(call["spoken"], "2026-07-28");
    assert!(call.get("fell_back").is_none(), "absent when false: {call}");
}

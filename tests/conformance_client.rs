//! The conformance-client adapter kind (docs/conformance-clients.md), with the standard-library
//! conformance client `tests/adapters/conformance_client.py`: the contract it is started with,
//! the case as it is served to it (`add_numbers`), the exit status as its observation, coarse
//! judgements, and how every report marks them.
#![cfg(unix)]

use mcp_error_layers::AdapterReport;
use mcp_error_layers::Outcome;
use mcp_error_layers::adapter::process::ProcessAdapter;
use mcp_error_layers::case::{CaseSource, builtin};
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::report::html::render;
use mcp_error_layers::report::json::{Json, JsonReport};
use mcp_error_layers::report::junit::Junit;
use mcp_error_layers::report::tap::Tap;
use mcp_error_layers::report::{AdapterInfo, Counts, Reporter, RunReport, RunSettings};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

fn client(hooks: &[&str]) -> ProcessAdapter {
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/conformance_client.py");
    ProcessAdapter::new(script, hooks.iter().copied()).conformance_client()
}

/// A run with short timeouts: the fixture client answers at once or stalls on purpose.
fn engine(adapter: &ProcessAdapter) -> Run<'_, ProcessAdapter> {
    Run::new(adapter)
        .default_timeout(Duration::from_millis(300))
        .deadline_margin(Duration::from_millis(700))
}

fn source(id: &str) -> CaseSource {
    builtin().into_iter().find(|s| s.id == id).unwrap()
}

fn run(adapter: &ProcessAdapter, id: &str) -> CaseRecord {
    engine(adapter).run_one(&source(id))
}

/// The fixture client over a few cases of each kind, once for the report tests.
fn sample_run() -> &'static RunReport {
    static RUN: OnceLock<RunReport> = OnceLock::new();
    RUN.get_or_init(|| {
        let ids = [
            "tool/success",
            "tool/is-error",
            "transport/http-503-then-explicit-retry",
        ];
        let sources: Vec<CaseSource> = ids.iter().map(|id| source(id)).collect();
        let cases = engine(&client(&[]))
            .cases(sources)
            .jobs(4)
            .execute(&())
            .cases;
        RunReport {
            adapter: AdapterInfo {
                name: "conformance_client.py".into(),
                version: None,
            },
            protocol_version: None,
            strict: false,
            settings: RunSettings::default(),
            duration: Duration::ZERO,
            cases,
            shard: None,
        }
    })
}

fn case<'a>(report: &'a RunReport, id: &str) -> &'a CaseRecord {
    report.cases.iter().find(|c| c.id == id).unwrap()
}

#[test]
fn a_success_is_judged_in_full_on_the_case_served_as_add_numbers() {
    let record = run(&client(&[]), "tool/success");
    assert_eq!(record.verdict, Verdict::Pass, "{record:#?}");
    assert!(!record.is_coarse());
    let call = record.exchanges.iter().find(|e| e.is_tool_call()).unwrap();
    let body: serde_json::Value = serde_json::from_str(&call.body).unwrap();
    assert_eq!(body["params"]["name"], "add_numbers");
    assert_eq!(
        body["params"]["arguments"],
        serde_json::json!({"a": 2, "b": 3})
    );
    let listed = record
        .exchanges
        .iter()
        .find(|e| e.jsonrpc_method.as_deref() == Some("tools/list"))
        .unwrap();
    assert!(
        listed.reply.bytes.contains(r#""required":["a","b"]"#),
        "{}",
        listed.reply.bytes
    );
}

#[test]
fn a_non_zero_exit_is_an_error_with_its_status_and_last_line() {
    let record = run(&client(&["exit_with=3"]), "tool/success");
    assert_eq!(record.verdict, Verdict::Fail);
    let Some(AdapterReport::Observed(seen)) = &record.calls[0].report else {
        panic!("{record:#?}");
    };
    assert_eq!(seen.outcome, Outcome::UnclassifiedError);
    assert_eq!(seen.detail, "the conformance client exited with status 3");
    assert_eq!(
        record.calls[0].problems[0],
        "outcome: expected TOOL_SUCCESS, observed UNCLASSIFIED_ERROR"
    );
    assert!(!record.is_coarse(), "a success expected is judged in full");
}

#[test]
fn an_error_expectation_is_judged_coarsely_on_checks_and_counts() {
    let record = run(&client(&[]), "retry/destructive-503-not-retried");
    assert_eq!(record.verdict, Verdict::Pass, "{record:#?}");
    assert!(record.is_coarse());
    let call = &record.calls[0];
    assert_eq!((call.tool_posts, call.coarse), (1, true));
    let Some(AdapterReport::Observed(seen)) = &call.report else {
        panic!("{record:#?}");
    };
    assert_eq!(seen.outcome, Outcome::UnclassifiedError);
    assert!(seen.detail.contains("HTTP Error 503"), "{}", seen.detail);
}

#[test]
fn the_explanation_of_a_coarse_call_says_it_was_judged_coarsely() {
    let record = run(&client(&[]), "retry/destructive-503-not-retried");
    let text = mcp_error_layers::engine::explain(&record);
    assert!(
        text.contains("\n  coarse: judged on its request checks and server counts only"),
        "{text}"
    );
}

#[test]
fn a_client_that_never_exits_is_a_hang_and_its_group_is_killed() {
    let record = run(&client(&[]), "transport/headers-then-silence");
    assert_eq!(record.verdict, Verdict::Hang, "{record:#?}");
    assert!(!record.is_coarse(), "a hang judges nothing coarsely");
}

#[test]
fn a_conformance_client_reports_no_announce_timeout_to_repeat_as_a_flag() {
    use mcp_error_layers::adapter::Driver;
    let info = client(&[]).info();
    assert_eq!(info.announce_timeout, None);
    assert!(info.conformance_client);
    assert!(info.start_up_timeout.is_some());
}

#[test]
fn a_case_that_tests_its_tool_name_keeps_it() {
    let record = run(&client(&[]), "requests/non-ascii-tool-name");
    let call = record.exchanges.iter().find(|e| e.is_tool_call()).unwrap();
    let body: serde_json::Value = serde_json::from_str(&call.body).unwrap();
    assert_eq!(body["params"]["name"], "wetter_für_köln");
}

#[test]
fn the_summary_line_counts_coarse_judgements() {
    let counts = Counts::of(&sample_run().cases);
    assert_eq!(counts.coarse, 2, "{counts:?}");
    assert!(
        counts
            .to_string()
            .ends_with("; 2 judged coarsely (exit status only)"),
        "{counts}"
    );
    let reference = Counts {
        cases: 1,
        passed: 1,
        ..Counts::default()
    };
    assert!(!reference.to_string().contains("coarse"), "{reference}");
}

#[test]
fn tap_marks_a_coarse_case_with_a_comment_after_its_test_point() {
    let tap = Tap::default().render(sample_run()).unwrap();
    let lines: Vec<&str> = tap.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with("- tool/is-error"))
        .unwrap();
    assert!(
        lines[at + 1].starts_with("# coarse: judged on its request checks"),
        "{tap}"
    );
    let success = lines
        .iter()
        .position(|l| l.ends_with("- tool/success"))
        .unwrap();
    assert!(!lines[success + 1].contains("coarse"), "{tap}");
    assert!(
        tap.contains("; 2 judged coarsely (exit status only)"),
        "{tap}"
    );
}

#[test]
fn junit_marks_a_coarse_case_with_a_judgement_property() {
    let xml = Junit.render(sample_run()).unwrap();
    let is_error = xml.find("name=\"tool/is-error\"").unwrap();
    let success = xml.find("name=\"tool/success\"").unwrap();
    let property = "<property name=\"judgement\" value=\"coarse: judged on its request checks";
    let found = xml
        .match_indices(property)
        .map(|(at, _)| at)
        .collect::<Vec<_>>();
    assert_eq!(found.len(), 2, "{xml}");
    assert!(
        found
            .iter()
            .any(|&at| at > is_error && (at < success || success < is_error))
    );
}

#[test]
fn json_marks_coarse_calls_and_counts_them_and_reads_them_back() {
    let text = Json.render(sample_run()).unwrap();
    let report = JsonReport::parse(&text, Path::new("run.json")).unwrap();
    assert_eq!(report.summary.coarse, 2);
    assert_eq!(report.summary.counts().coarse, 2);
    let coarse = |id: &str| report.cases.iter().find(|c| c.id == id).unwrap().calls[0].coarse;
    assert!(coarse("tool/is-error"));
    assert!(!coarse("tool/success"));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let success = value["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "tool/success");
    assert!(
        success.unwrap()["calls"][0].get("coarse").is_none(),
        "absent when false"
    );
}

#[test]
fn html_marks_a_coarse_cell_and_call() {
    let json = JsonReport::from_run(sample_run());
    let page = render(&[json]);
    assert!(
        page.contains("pass · coarse"),
        "a coarse cell's word says so"
    );
    // A cell's contents are packed in the page and unpacked when it is opened.
    let cells = mcp_error_layers::report::html::cells(&page)
        .expect("packed cells")
        .concat();
    assert!(cells.contains("<p class=\"coarse\">coarse: judged on its request checks"));
    assert!(page.contains("2 judged coarsely (exit status only)"));
    assert_eq!(case(sample_run(), "tool/success").standing.as_str(), "pass");
}

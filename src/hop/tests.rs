use super::*;
use crate::case::CaseFile;
use Outcome::*;

fn expect(outcome: Outcome) -> Expect {
    Expect::new(outcome)
}

fn reached() -> ServerCounts {
    ServerCounts {
        scripted: 1,
        tool_posts: 1,
        ..ServerCounts::default()
    }
}

fn judged(expect: &Expect, observed: &Observation, downstream: Downstream) -> Vec<String> {
    mismatches(expect, observed, &reached(), downstream)
}

#[test]
fn results_and_jsonrpc_errors_pass_through_as_they_are() {
    for outcome in [ToolSuccess, ToolError, InputRequired] {
        assert!(
            judged(
                &expect(outcome),
                &Observation::new(outcome),
                Downstream::Stdio
            )
            .is_empty()
        );
        let lost = judged(
            &expect(outcome),
            &Observation::new(JsonrpcError),
            Downstream::Stdio,
        );
        assert_eq!(
            lost,
            [format!(
                "outcome: expected {outcome}, observed JSONRPC_ERROR"
            )]
        );
    }
    let invalid_params = Expect {
        code: Some(-32602),
        ..expect(JsonrpcError)
    };
    let same = Observation::new(JsonrpcError).with_code(-32602);
    assert!(judged(&invalid_params, &same, Downstream::Stdio).is_empty());
    let other = Observation::new(JsonrpcError).with_code(-32603);
    assert_eq!(
        judged(&invalid_params, &other, Downstream::Http),
        ["code: expected -32602, observed -32603"]
    );
}

#[test]
fn an_http_error_must_arrive_carrying_its_status() {
    let unavailable = Expect {
        status: Some(503),
        ..expect(HttpError)
    };
    let in_message = Observation::new(JsonrpcError)
        .with_code(-32603)
        .with_detail("JSON-RPC error -32603: upstream answered HTTP 503");
    let in_data = Observation::new(JsonrpcError)
        .with_code(-32000)
        .with_detail("JSON-RPC error -32000: failed (data: {\"status\":503})");
    let as_code = Observation::new(JsonrpcError).with_code(503);
    let as_phrase = Observation::new(JsonrpcError)
        .with_code(-32001)
        .with_detail("JSON-RPC error -32001: Error POSTing to endpoint: Service Unavailable");
    for carried in [&in_message, &in_data, &as_code, &as_phrase] {
        assert!(
            judged(&unavailable, carried, Downstream::Stdio).is_empty(),
            "{carried:?}"
        );
    }
    // A number that merely contains 503 is not the status.
    let lost = Observation::new(JsonrpcError)
        .with_code(-32000)
        .with_detail("JSON-RPC error -32000: request 15031 failed");
    assert_eq!(
        judged(&unavailable, &lost, Downstream::Stdio),
        ["the upstream HTTP_ERROR arrived as JSONRPC_ERROR -32000: the status 503 is not in it"]
    );
    // The status itself survives only over HTTP.
    let as_status = Observation::new(HttpError).with_status(503);
    assert!(judged(&unavailable, &as_status, Downstream::Http).is_empty());
    assert!(!judged(&unavailable, &as_status, Downstream::Stdio).is_empty());
    let other_status = Observation::new(HttpError).with_status(502);
    assert!(!judged(&unavailable, &other_status, Downstream::Http).is_empty());
}

#[test]
fn a_broken_upstream_answer_must_arrive_as_an_error_not_silence_or_a_result() {
    for upstream in [StreamIncomplete, MalformedJson, InvalidEnvelope, NoResult] {
        let error = Observation::new(JsonrpcError).with_code(-32603);
        assert!(judged(&expect(upstream), &error, Downstream::Stdio).is_empty());
        let success = judged(
            &expect(upstream),
            &Observation::new(ToolSuccess),
            Downstream::Stdio,
        );
        assert_eq!(
            success,
            [format!(
                "the upstream {upstream} arrived as TOOL_SUCCESS: a failure delivered as a success"
            )]
        );
        let gateway_5xx = Observation::new(HttpError).with_status(502);
        assert!(judged(&expect(upstream), &gateway_5xx, Downstream::Http).is_empty());
        assert!(!judged(&expect(upstream), &gateway_5xx, Downstream::Stdio).is_empty());
        let gateway_4xx = Observation::new(HttpError).with_status(400);
        assert!(!judged(&expect(upstream), &gateway_4xx, Downstream::Http).is_empty());
    }
    // Passed through as it came: faithful, except silence and a stdio bridge's own end.
    let malformed = Observation::new(MalformedJson);
    assert!(judged(&expect(MalformedJson), &malformed, Downstream::Stdio).is_empty());
    let silence = judged(
        &expect(Timeout),
        &Observation::new(Timeout),
        Downstream::Http,
    );
    assert_eq!(
        silence,
        ["the upstream TIMEOUT arrived as TIMEOUT: silence past the bridge's own timeout"]
    );
    let ended = Observation::new(ConnectionError);
    assert!(!judged(&expect(ConnectionError), &ended, Downstream::Stdio).is_empty());
    assert!(judged(&expect(ConnectionError), &ended, Downstream::Http).is_empty());
}

#[test]
fn a_call_whose_replies_the_bridge_never_reached_proves_nothing() {
    let never = ServerCounts::default();
    let error = Observation::new(JsonrpcError).with_code(-32603);
    let found = mismatches(&expect(StreamIncomplete), &error, &never, Downstream::Stdio);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].contains("never reached the case's replies"),
        "{found:?}"
    );
}

#[test]
fn the_table_names_every_outcome_a_case_can_expect() {
    let table = table();
    let named = |outcome: Outcome| {
        table
            .iter()
            .any(|(upstream, _)| upstream.contains(&format!("`{outcome}`")))
    };
    for outcome in Outcome::ALL
        .iter()
        .filter(|o| !matches!(o, UnclassifiedError | TaskCancelled))
    {
        assert!(named(*outcome), "{outcome} is in no row");
    }
}

#[test]
fn a_result_reached_by_recovering_arrives_recovered_or_as_an_error() {
    let retried = Expect {
        tool_posts: Some(2),
        ..expect(ToolSuccess)
    };
    assert_eq!(delivers(&retried), Delivers::Recovered);
    let error = Observation::new(JsonrpcError).with_code(-32001);
    assert!(judged(&retried, &Observation::new(ToolSuccess), Downstream::Stdio).is_empty());
    assert!(judged(&retried, &error, Downstream::Stdio).is_empty());
    assert_eq!(
        judged(&retried, &Observation::new(Timeout), Downstream::Stdio),
        ["the upstream TOOL_SUCCESS arrived as TIMEOUT: silence past the bridge's own timeout"]
    );
    // The server's own request for input, passed on for the bridge's client to answer.
    assert!(
        judged(
            &retried,
            &Observation::new(InputRequired),
            Downstream::Stdio
        )
        .is_empty()
    );
    assert_eq!(
        judged(&retried, &Observation::new(ToolError), Downstream::Stdio),
        [
            "the upstream TOOL_SUCCESS arrived as TOOL_ERROR: another result than the recovery reaches"
        ]
    );
    let resumed = Expect {
        resumes: Some(1),
        ..expect(ToolSuccess)
    };
    assert_eq!(delivers(&resumed), Delivers::Recovered);
    assert_eq!(delivers(&expect(ToolSuccess)), Delivers::Same);
}

#[test]
fn a_stalled_upstream_needs_an_answer_within_the_bridges_timeout_not_a_failure() {
    let late = Observation::new(ToolSuccess);
    assert!(judged(&expect(Timeout), &late, Downstream::Stdio).is_empty());
    let error = Observation::new(JsonrpcError).with_code(-32001);
    assert!(judged(&expect(Timeout), &error, Downstream::Stdio).is_empty());
    let made_up = Observation::new(ToolError).with_detail("Upstream request timed out");
    assert_eq!(
        judged(&expect(Timeout), &made_up, Downstream::Http),
        ["the upstream TIMEOUT arrived as TOOL_ERROR: a failure delivered as the tool's own error"]
    );
    let ended = Observation::new(ConnectionError);
    assert_eq!(
        judged(&expect(Timeout), &ended, Downstream::Stdio),
        [
            "the upstream TIMEOUT arrived as CONNECTION_ERROR: the bridge ended (every later call goes with it)"
        ]
    );
}

fn case(annotations: &str, calls: usize) -> CaseFile {
    let mut text = format!("summary = \"s\"\n[tool]\nannotations = {{ {annotations} }}\n");
    for _ in 0..calls {
        text.push_str("[[call]]\nexpect = { outcome = \"TOOL_SUCCESS\" }\n[[call.reply]]\nstatus = 200\njson = '{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":{\"content\":[]}}'\n");
    }
    toml::from_str(&text).unwrap()
}

/// The bridge checks of a one-call case's call, judged by its `expect`.
fn judge(
    case: &CaseFile,
    report: Option<&AdapterReport>,
    counts: &ServerCounts,
) -> Vec<crate::checks::Check> {
    checks(case, 0, &case.call[0].expect, report, counts)
}

fn failed(checks: &[crate::checks::Check]) -> Vec<&str> {
    checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| c.name)
        .collect()
}

#[test]
fn the_bridge_checks_judge_retries_survival_and_silence() {
    let answered = Observation::new(ToolSuccess).with_detail(format!("ok; {PROBE_ANSWERED}"));
    let report = AdapterReport::Observed(answered);
    let retried = ServerCounts {
        tool_posts: 2,
        ..reached()
    };
    // A tool that is not repeatable: a second upstream POST fails hop-no-retry-unsafe.
    let plain = case("", 1);
    assert_eq!(
        failed(&judge(&plain, Some(&report), &retried)),
        ["hop-no-retry-unsafe"]
    );
    assert!(failed(&judge(&plain, Some(&report), &reached())).is_empty());
    // An idempotent one may be repeated: the check is not judged.
    let idempotent = case("idempotentHint = true", 1);
    let judged = judge(&idempotent, Some(&report), &retried);
    assert!(judged.iter().all(|c| c.name != "hop-no-retry-unsafe"));
    // After the last call the bridge must still answer.
    let gone = Observation::new(JsonrpcError).with_detail(format!(
        "x; {PROBE_FAILED}: the process exited with status 1"
    ));
    let gone = judge(&plain, Some(&AdapterReport::Observed(gone)), &reached());
    assert_eq!(failed(&gone), ["hop-survives"]);
    assert!(
        gone[1].detail.ends_with("the process exited with status 1"),
        "{gone:?}"
    );
    // Judged after the last call only.
    let two = case("", 2);
    assert!(
        judge(&two, Some(&report), &reached())
            .iter()
            .all(|c| c.name != "hop-survives")
    );
    // Silence downstream fails hop-answers.
    let silent = AdapterReport::Observed(Observation::new(Timeout).with_detail(PROBE_ANSWERED));
    assert_eq!(
        failed(&judge(&plain, Some(&silent), &reached())),
        ["hop-answers"]
    );
}

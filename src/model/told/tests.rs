use super::*;
use crate::model::api::ToolResult;

fn result(text: &str, flagged: Option<bool>) -> ToolResult {
    ToolResult {
        call_id: "call_1".into(),
        text: text.into(),
        flagged,
    }
}

fn facts(statuses: &[u16], codes: &[i64], tool_texts: &[&str]) -> ModelFacts {
    ModelFacts {
        statuses: statuses.to_vec(),
        codes: codes.to_vec(),
        tool_texts: tool_texts.iter().map(|t| (*t).to_owned()).collect(),
    }
}

fn outcome(told: &Told, facts: &ModelFacts) -> (Outcome, Option<u16>, Option<i64>) {
    let observation = judge(told, facts);
    (observation.outcome, observation.status, observation.code)
}

#[test]
fn an_unmarked_result_is_a_success_whatever_it_says() {
    let told = Told::result(result("nope", Some(false)), &[], 1);
    let facts = facts(&[], &[], &["nope"]);
    assert_eq!(outcome(&told, &facts).0, Outcome::ToolSuccess);
}

#[test]
fn a_marked_result_names_the_layer_whose_fact_it_carries() {
    let marked = |text: &str| Told::result(result(text, Some(true)), &[], 1);
    let tool = facts(&[], &[], &["Upstream API answered 502"]);
    let told = marked("Error: Upstream API answered 502");
    assert_eq!(outcome(&told, &tool), (Outcome::ToolError, None, None));

    let http = facts(&[503], &[], &[]);
    let told = marked("Streamable HTTP error: HTTP 503 Service Unavailable");
    assert_eq!(outcome(&told, &http), (Outcome::HttpError, Some(503), None));
    let told = marked("Error POSTing to endpoint");
    assert_eq!(outcome(&told, &http).0, Outcome::UnclassifiedError);
    // A port is no status.
    let told = marked("fetch failed: http://127.0.0.1:50312/mcp");
    assert_eq!(outcome(&told, &http).0, Outcome::UnclassifiedError);

    let both = facts(&[404], &[-32001], &[]);
    let told = marked("HTTP 404: MCP error -32001: Session not found");
    assert_eq!(
        outcome(&told, &both),
        (Outcome::HttpError, Some(404), Some(-32001))
    );

    let rpc = facts(&[], &[-32602], &[]);
    let told = marked("MCP error -32602: Invalid params");
    assert_eq!(
        outcome(&told, &rpc),
        (Outcome::JsonrpcError, None, Some(-32602))
    );
}

#[test]
fn a_timeout_is_named_by_its_words_unless_the_server_sent_the_code() {
    let told = Told::result(
        result("MCP error -32001: Request timed out", Some(true)),
        &[],
        1,
    );
    assert_eq!(outcome(&told, &facts(&[], &[], &[])).0, Outcome::Timeout);
    let sent = facts(&[], &[-32001], &[]);
    assert_eq!(
        outcome(&told, &sent),
        (Outcome::JsonrpcError, None, Some(-32001))
    );
}

#[test]
fn without_a_flag_the_agents_own_words_mark_a_result() {
    let marks = ["tool call failed".to_owned()];
    let told = Told::result(
        result("tool call failed for `probe/synthetic`", None),
        &marks,
        1,
    );
    assert!(told.marked);
    assert_eq!(
        outcome(&told, &facts(&[503], &[], &[])).0,
        Outcome::UnclassifiedError
    );
    let told = Told::result(result("ok", None), &marks, 1);
    assert!(!told.marked);
    // A flag where the API has one decides, whatever the words.
    let told = Told::result(result("tool call failed", Some(false)), &marks, 1);
    assert!(!told.marked);
}

#[test]
fn no_result_is_named_in_the_detail() {
    let told = Told::missing("the agent exited with status 1 before it told the model", 0);
    let observation = judge(&told, &ModelFacts::default());
    assert_eq!(observation.outcome, Outcome::UnclassifiedError);
    assert!(
        observation.detail.starts_with(NO_RESULT),
        "{}",
        observation.detail
    );
}

#[test]
fn facts_come_from_every_reply_of_the_call() {
    let file: crate::case::CaseFile = toml::from_str(
        r#"
        summary = "x"
        [[call]]
        expect = { outcome = "TOOL_ERROR" }
        [[call.reply]]
        status = 503
        [[call.reply]]
        status = 200
        json = '{"jsonrpc": "2.0", "id": "$id", "result": {"isError": true, "content": [{"type": "text", "text": "no such city"}]}}'
        [[call.reply]]
        status = 200
        [[call.reply.event]]
        data = '{"jsonrpc": "2.0", "id": "$id", "error": {"code": -32602, "message": "x"}}'
        "#,
    )
    .unwrap();
    let facts = ModelFacts::of_call(&file.call[0]);
    assert_eq!(facts.statuses, [503]);
    assert_eq!(facts.codes, [-32602]);
    assert_eq!(facts.tool_texts, ["no such city"]);
}

fn observed(outcome: Outcome, detail: &str) -> AdapterReport {
    let mut observation = Observation::new(outcome);
    observation.detail = detail.to_owned();
    AdapterReport::Observed(observation)
}

fn expect(outcome: Outcome) -> Expect {
    toml::from_str::<Expect>(&format!("outcome = \"{}\"", outcome.as_str())).unwrap()
}

fn failed(checks: &[Check]) -> Vec<&str> {
    checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| c.name)
        .collect()
}

#[test]
fn model_checks_judge_what_reached_the_model() {
    let plain = observed(Outcome::ToolSuccess, "the model was told (unmarked): nope");
    let judged = checks_of(Outcome::ToolError, &plain);
    assert_eq!(
        failed(&judged),
        ["tool-error-to-model", "no-error-as-success"]
    );

    let nothing = observed(
        Outcome::UnclassifiedError,
        "no tool result: the agent exited",
    );
    let judged = checks_of(Outcome::HttpError, &nothing);
    assert_eq!(failed(&judged), ["protocol-error-to-model"]);
    assert_eq!(judged.len(), 2);

    let told = observed(
        Outcome::JsonrpcError,
        "the model was told (marked as an error): x",
    );
    assert!(failed(&checks_of(Outcome::JsonrpcError, &told)).is_empty());
    let ok = observed(Outcome::ToolSuccess, "ok");
    assert!(checks_of(Outcome::ToolSuccess, &ok).is_empty());
}

fn checks_of(expected: Outcome, report: &AdapterReport) -> Vec<Check> {
    checks(&expect(expected), Some(report))
}

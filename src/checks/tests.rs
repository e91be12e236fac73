//! Each check's rule, passed and failed, on hand-built exchanges.

use super::*;
use crate::case::CaseSource;
use crate::wire::Sent;
use serde_json::json;

const MODERN_HEADERS: [(&str, &str); 4] = [
    ("accept", "application/json, text/event-stream"),
    ("mcp-protocol-version", "2026-07-28"),
    ("mcp-method", "tools/call"),
    ("mcp-name", "synthetic"),
];

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    })
}

/// A case with these `[[call.reply]]` tables (TOML) and version.
fn case(version: &str, replies: &str) -> CaseFile {
    let text = format!(
        "summary = \"t\"\nprotocol_version = \"{version}\"\n[[call]]\n\
         expect = {{ outcome = \"TOOL_SUCCESS\" }}\n{replies}"
    );
    let source = CaseSource {
        id: "t".into(),
        origin: "t.toml".into(),
        text: Ok(text),
    };
    source.load().unwrap().file
}

const OK_REPLY: &str = "[[call.reply]]\nstatus = 200\n";

fn post(body: Value, headers: &[(&str, &str)]) -> Exchange {
    Exchange {
        at_ms: 0,
        call: 0,
        http_method: "POST".into(),
        path: "/mcp".into(),
        jsonrpc_method: body
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned),
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        body: body.to_string(),
        dropped: 0,
        reply: Sent {
            by: Answerer::Prelude,
            status: Some(200),
            ..Sent::default()
        },
    }
}

fn tool_call(id: u64, params: Value, headers: &[(&str, &str)]) -> Exchange {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    post(body, headers)
}

fn modern_call(id: u64) -> Exchange {
    tool_call(
        id,
        json!({"name": "synthetic", "_meta": meta()}),
        &MODERN_HEADERS,
    )
}

/// `exchange` answered by script reply `index` with `status` and a JSON `body`.
fn scripted(mut exchange: Exchange, index: usize, status: u16, body: &str) -> Exchange {
    exchange.reply = Sent {
        by: Answerer::Script,
        status: Some(status),
        bytes: format!("HTTP/1.1 {status} x\r\n\r\n{body}"),
        script_index: Some(index),
        ..Sent::default()
    };
    exchange
}

fn verdict<'a>(checks: &'a [Check], name: &str) -> Option<&'a Check> {
    checks.iter().find(|c| c.name == name)
}

fn passed(checks: &[Check], name: &str) -> bool {
    verdict(checks, name)
        .unwrap_or_else(|| panic!("{name} did not apply: {checks:?}"))
        .passed
}

#[test]
fn a_compliant_modern_call_passes_every_header_check() {
    let checks = check_call(&case("2026-07-28", OK_REPLY), 0, &[modern_call(1)]);
    let names: Vec<&str> = checks.iter().map(|c| c.name).collect();
    assert_eq!(
        names,
        [
            "accept-header",
            "meta-fields",
            "client-info",
            "version-header",
            "method-header",
            "name-header"
        ]
    );
    assert!(checks.iter().all(|c| c.passed), "{checks:?}");
}

#[test]
fn each_header_rule_fails_on_its_own_mistake() {
    let file = case("2026-07-28", OK_REPLY);
    let with = |headers: &[(&str, &str)], params: Value| {
        check_call(&file, 0, &[tool_call(1, params, headers)])
    };
    let params = json!({"name": "synthetic", "_meta": meta()});
    let only_json = [
        ("accept", "application/json"),
        MODERN_HEADERS[1],
        MODERN_HEADERS[2],
        MODERN_HEADERS[3],
    ];
    assert!(!passed(&with(&only_json, params.clone()), "accept-header"));
    let other_version = [
        MODERN_HEADERS[0],
        ("mcp-protocol-version", "2025-11-25"),
        MODERN_HEADERS[2],
        MODERN_HEADERS[3],
    ];
    let checks = with(&other_version, params.clone());
    assert!(
        verdict(&checks, "version-header")
            .unwrap()
            .detail
            .contains("but _meta says")
    );
    let wrong_name = [
        MODERN_HEADERS[0],
        MODERN_HEADERS[1],
        MODERN_HEADERS[2],
        ("mcp-name", "other"),
    ];
    assert!(!passed(&with(&wrong_name, params.clone()), "name-header"));
    let encoded = [
        MODERN_HEADERS[0],
        MODERN_HEADERS[1],
        MODERN_HEADERS[2],
        ("mcp-name", "=?base64?c3ludGhldGlj?="),
    ];
    assert!(passed(&with(&encoded, params.clone()), "name-header"));
    let no_method = [MODERN_HEADERS[0], MODERN_HEADERS[1], MODERN_HEADERS[3]];
    assert!(!passed(&with(&no_method, params), "method-header"));
    let bare = with(&MODERN_HEADERS, json!({"name": "synthetic"}));
    assert!(!passed(&bare, "meta-fields") && !passed(&bare, "client-info"));
    let info = verdict(&bare, "client-info").unwrap();
    assert_eq!(info.grade, Grade::Should);
}

#[test]
fn session_rules_follow_the_initialize_answer() {
    let file = case("2025-11-25", OK_REPLY);
    let accept = ("accept", "application/json, text/event-stream");
    let mut init = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}),
        &[accept],
    );
    init.reply.session = Some("s-0".into());
    init.reply.bytes = "HTTP/1.1 200 OK\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\"}}".into();
    let in_session = [
        accept,
        ("mcp-session-id", "s-0"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let notified = post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        &in_session,
    );
    let good = [
        init.clone(),
        notified.clone(),
        tool_call(2, json!({"name": "synthetic"}), &in_session),
    ];
    let checks = check_call(&file, 0, &good);
    for name in [
        "initialize-first",
        "initialized-notification",
        "session-id",
        "session-version-header",
    ] {
        assert!(passed(&checks, name), "{name}: {checks:?}");
    }
    assert!(
        verdict(&checks, "meta-fields").is_none(),
        "no 2026 rules in a session"
    );
    let wrong_session = [
        accept,
        ("mcp-session-id", "s-9"),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let bad = [init.clone(), tool_call(2, json!({}), &wrong_session)];
    let checks = check_call(&file, 0, &bad);
    assert!(!passed(&checks, "initialized-notification"));
    assert!(!passed(&checks, "session-id") && !passed(&checks, "session-version-header"));
    let call_first = [tool_call(1, json!({}), &[accept]), init];
    assert!(!passed(
        &check_call(&file, 0, &call_first),
        "initialize-first"
    ));
}

/// `exchange`, made during call `call` of its case.
fn in_call(mut exchange: Exchange, call: usize) -> Exchange {
    exchange.call = call;
    exchange
}

#[test]
fn a_later_call_goes_on_in_the_session_an_earlier_call_of_the_same_client_opened() {
    let two_calls = format!(
        "summary = \"t\"\nprotocol_version = \"2025-11-25\"\n[[call]]\n\
         expect = {{ outcome = \"TOOL_SUCCESS\" }}\n{OK_REPLY}[[call]]\n\
         expect = {{ outcome = \"TOOL_SUCCESS\" }}\n{OK_REPLY}"
    );
    let source = CaseSource {
        id: "t".into(),
        origin: "t.toml".into(),
        text: Ok(two_calls),
    };
    let file = source.load().unwrap().file;
    let mut init = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}),
        &[],
    );
    init.reply.session = Some("s-0".into());
    init.reply.bytes = "HTTP/1.1 200 OK\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\"}}".into();
    let in_session = [
        ("mcp-session-id", "s-0"),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let first = [init, tool_call(2, json!({}), &in_session)];
    let second = |headers: &[(&str, &str)]| {
        let mut record = first.to_vec();
        record.push(in_call(tool_call(3, json!({}), headers), 1));
        record
    };
    let checks = check_call(&file, 1, &second(&in_session));
    assert!(
        verdict(&checks, "initialize-first").is_none(),
        "judged on the first call only: {checks:?}"
    );
    assert!(passed(&checks, "session-id") && passed(&checks, "session-version-header"));
    let outside = check_call(&file, 1, &second(&[]));
    assert!(!passed(&outside, "session-id"), "{outside:?}");
    let alone = check_call(&file, 1, &[in_call(tool_call(3, json!({}), &[]), 1)]);
    assert!(
        !passed(&alone, "initialize-first"),
        "no session before: {alone:?}"
    );
    // A 404 in the first call expired s-0: the next call may not use it again.
    let mut record = second(&in_session);
    record[1] = scripted(record[1].clone(), 0, 404, "");
    let stale = check_call(&file, 1, &record);
    assert!(!passed(&stale, "session-expiry-stale-id"), "{stale:?}");
    record[2] = in_call(tool_call(3, json!({}), &[("mcp-session-id", "s-1")]), 1);
    assert!(passed(
        &check_call(&file, 1, &record),
        "session-expiry-stale-id"
    ));
}

#[test]
fn a_404_in_a_session_is_judged_three_ways() {
    let file = case("2025-11-25", "[[call.reply]]\nstatus = 404\n");
    let in_session = [("mcp-session-id", "s-0")];
    let new_session = [("mcp-session-id", "s-1")];
    let expired = scripted(tool_call(2, json!({}), &in_session), 0, 404, "");
    let initialize = |headers: &[(&str, &str)]| {
        post(
            json!({"jsonrpc": "2.0", "id": 3, "method": "initialize"}),
            headers,
        )
    };
    let again = |headers: &[(&str, &str)]| tool_call(4, json!({}), headers);
    let verdicts = |after: Vec<Exchange>| {
        let mut all = vec![expired.clone()];
        all.extend(after);
        let checks = check_call(&file, 0, &all);
        ["reinitialize", "stale-id", "resend"].map(|way| {
            let name = format!("session-expiry-{way}");
            checks.iter().find(|c| c.name == name).map(|c| c.passed)
        })
    };
    let right = vec![initialize(&[]), again(&new_session)];
    assert_eq!(verdicts(right), [Some(true); 3]);
    assert_eq!(
        verdicts(vec![]),
        [Some(false), None, None],
        "never re-initialized"
    );
    let gave_up = vec![again(&in_session)];
    assert_eq!(verdicts(gave_up), [Some(false), Some(false), None]);
    let stale = vec![initialize(&in_session), again(&new_session)];
    assert_eq!(verdicts(stale), [Some(true), Some(false), Some(true)]);
    let stale_call = vec![initialize(&[]), again(&in_session)];
    assert_eq!(verdicts(stale_call), [Some(true), Some(false), Some(true)]);
    let dropped = vec![initialize(&[])];
    assert_eq!(verdicts(dropped), [Some(true), Some(true), Some(false)]);
}

#[test]
fn version_answers_decide_between_retry_fallback_and_neither() {
    let file = case("2026-07-28", OK_REPLY);
    let unsupported = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2025-11-25"]}}}"#;
    let rejected = scripted(modern_call(1), 0, 400, unsupported);
    let init = |version: &str| {
        post(
            json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": version}}),
            &[],
        )
    };
    let checks = check_call(&file, 0, &[rejected.clone(), init("2025-11-25")]);
    assert!(passed(&checks, "supported-version-retry") && passed(&checks, "no-legacy-fallback"));
    let checks = check_call(&file, 0, &[rejected.clone(), init("2025-06-18")]);
    assert!(!passed(&checks, "supported-version-retry") && !passed(&checks, "no-legacy-fallback"));
    assert!(!passed(
        &check_call(&file, 0, &[rejected]),
        "supported-version-retry"
    ));
    let legacy = scripted(
        modern_call(1),
        0,
        400,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no session"}}"#,
    );
    assert!(passed(
        &check_call(&file, 0, &[legacy.clone(), init("2025-11-25")]),
        "legacy-fallback"
    ));
    let gave_up = check_call(&file, 0, &[legacy]);
    assert!(!passed(&gave_up, "legacy-fallback"));
    assert!(verdict(&gave_up, "no-legacy-fallback").is_none());
}

/// A client that speaks both eras probes 2026-07-28 first; a 2025 case's server refuses the
/// probe, and the session's rules start at the `initialize` that follows. A 2026-07-28 request
/// the script answers is no probe: without an `initialize` the session's first rule fails.
#[test]
fn a_refused_modern_probe_in_a_2025_case_is_judged_as_modern_and_starts_no_session() {
    let file = case("2025-11-25", OK_REPLY);
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                          "params": {"_meta": meta()}});
    let mut probe = post(discover, &MODERN_HEADERS[..2]);
    probe.reply.status = Some(400);
    let init = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}),
        &[],
    );
    let checks = check_call(&file, 0, &[probe.clone(), init]);
    assert!(passed(&checks, "initialize-first"), "{checks:?}");
    assert!(passed(&checks, "legacy-fallback"), "{checks:?}");
    let gave_up = check_call(&file, 0, &[probe]);
    assert!(!passed(&gave_up, "legacy-fallback"));
    let stateless = check_call(&file, 0, &[modern_call(1)]);
    assert!(!passed(&stateless, "initialize-first"), "{stateless:?}");
}

#[test]
fn repeated_calls_need_new_ids_within_a_session() {
    let file = case("2026-07-28", OK_REPLY);
    assert!(passed(
        &check_call(&file, 0, &[modern_call(1), modern_call(2)]),
        "new-request-id"
    ));
    assert!(!passed(
        &check_call(&file, 0, &[modern_call(1), modern_call(1)]),
        "new-request-id"
    ));
    let legacy = case("2025-11-25", OK_REPLY);
    let in_session = |s: &'static str| tool_call(2, json!({}), &[("mcp-session-id", s)]);
    let across = [in_session("s-0"), in_session("s-1")];
    assert!(passed(&check_call(&legacy, 0, &across), "new-request-id"));
}

#[test]
fn mrtr_retries_echo_the_state_and_answer_every_request() {
    let asked = r#"[[call.reply]]
status = 200
json = '{"jsonrpc":"2.0","id":"$id","result":{"resultType":"input_required","requestState":"s é","inputRequests":{"a":{"method":"roots/list"}}}}'
"#;
    let file = case("2026-07-28", &format!("{asked}{OK_REPLY}"));
    let first = scripted(modern_call(1), 0, 200, "");
    let retry = |id: u64, extra: Value| {
        let mut params = json!({"name": "synthetic", "_meta": meta()});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        tool_call(id, params, &MODERN_HEADERS)
    };
    let good = retry(
        2,
        json!({"requestState": "s é", "inputResponses": {"a": {"roots": []}}}),
    );
    let checks = check_call(&file, 0, &[first.clone(), good]);
    assert!(passed(&checks, "mrtr-request-state") && passed(&checks, "mrtr-input-responses"));
    let changed = retry(2, json!({"requestState": "s e", "inputResponses": {}}));
    let checks = check_call(&file, 0, &[first.clone(), changed]);
    assert!(!passed(&checks, "mrtr-request-state") && !passed(&checks, "mrtr-input-responses"));
    let stateless = "[[call.reply]]\nstatus = 200\njson = '{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{}}}'\n";
    let file = case("2026-07-28", &format!("{stateless}{OK_REPLY}"));
    let invented = retry(2, json!({"requestState": "mine", "inputResponses": {}}));
    assert!(!passed(
        &check_call(&file, 0, &[first, invented]),
        "mrtr-request-state"
    ));
}

#[test]
fn a_resuming_get_names_the_last_id_and_waits_the_retry() {
    let stream = "[[call.reply]]\nstatus = 200\nend = \"close\"\n[[call.reply.event]]\nid = \"e-1\"\nretry = 300\ndata_raw = \"\"\n";
    let file = case("2025-11-25", stream);
    let mut call = scripted(tool_call(2, json!({}), &[]), 0, 200, "");
    call.at_ms = 10;
    call.reply.ended_ms = Some(20);
    let template = call.clone();
    let get = |at_ms: u64, last: Option<&str>| Exchange {
        at_ms,
        http_method: "GET".into(),
        jsonrpc_method: None,
        body: String::new(),
        headers: last
            .map(|l| ("last-event-id".to_owned(), l.to_owned()))
            .into_iter()
            .collect(),
        ..template.clone()
    };
    let checks = check_call(&file, 0, &[call.clone(), get(320, Some("e-1"))]);
    assert!(passed(&checks, "resume-last-event-id") && passed(&checks, "resume-waits-retry"));
    let checks = check_call(&file, 0, &[call.clone(), get(319, Some("e-0"))]);
    assert!(!passed(&checks, "resume-last-event-id") && !passed(&checks, "resume-waits-retry"));
    // A GET without Last-Event-ID opens a standalone stream: no resumption to judge.
    let standalone = check_call(&file, 0, &[call, get(0, None)]);
    assert!(
        verdict(&standalone, "resume-waits-retry").is_none(),
        "{standalone:?}"
    );
}

#[test]
fn every_judged_name_is_listed_once() {
    let mut names = NAMES.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), NAMES.len());
}

/// A case whose one call times out after 400 ms, with these keys (they follow the call's
/// `expect`) and `[[call.reply]]` tables.
fn timed_case(version: &str, call_keys: &str, replies: &str) -> CaseFile {
    case(
        version,
        &format!("timeout_ms = 400\n{call_keys}\n{replies}"),
    )
}

fn cancel_of(id: Value) -> Exchange {
    let body = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": id, "reason": "timeout"}});
    post(body, &[("mcp-protocol-version", "2025-11-25")])
}

fn session_call(id: u64) -> Exchange {
    let headers = [
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", "s"),
    ];
    tool_call(id, json!({"name": "synthetic"}), &headers)
}

const STALL: &str = "[[call.reply]]\nstatus = 200\nend = \"stall\"\n";

#[test]
fn a_session_call_left_unanswered_is_cancelled_by_its_own_id() {
    let file = timed_case("2025-11-25", "", STALL);
    let stalled = scripted(session_call(2), 0, 200, "");
    let judge = |after: Vec<Exchange>| {
        let all: Vec<Exchange> = std::iter::once(stalled.clone()).chain(after).collect();
        let checks = check_call(&file, 0, &all);
        verdict(&checks, "cancel-after-timeout").cloned()
    };
    let silent = judge(vec![]).expect("the check applies");
    assert!(!silent.passed && silent.detail.contains("no notifications/cancelled"));
    let wrong = judge(vec![cancel_of(json!(3))]).unwrap();
    assert!(
        !wrong.passed && wrong.detail.contains("named requestId 3"),
        "{wrong:?}"
    );
    let string_id = judge(vec![cancel_of(json!("2"))]).unwrap();
    assert!(
        !string_id.passed,
        "an id of another JSON type is another id"
    );
    assert!(judge(vec![cancel_of(json!(2))]).unwrap().passed);
}

#[test]
fn a_modern_call_left_stalled_is_cancelled_by_closing_its_stream() {
    let file = timed_case("2026-07-28", "", STALL);
    let mut stalled = scripted(modern_call(1), 0, 200, "");
    let checks = check_call(&file, 0, std::slice::from_ref(&stalled));
    assert!(!passed(&checks, "timeout-closes-stream"));
    assert!(verdict(&checks, "cancel-after-timeout").is_none());
    stalled.reply.client_closed_ms = Some(450);
    assert!(passed(
        &check_call(&file, 0, &[stalled]),
        "timeout-closes-stream"
    ));
}

#[test]
fn initialize_is_never_cancelled() {
    let file = timed_case("2025-11-25", "target = \"every-post\"", STALL);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}});
    let initialize = scripted(post(body, &[]), 0, 200, "");
    let checks = check_call(&file, 0, std::slice::from_ref(&initialize));
    assert!(passed(&checks, "no-cancel-initialize"));
    let checks = check_call(&file, 0, &[initialize, cancel_of(json!(1))]);
    assert!(!passed(&checks, "no-cancel-initialize"));
}

#[test]
fn only_an_answer_later_than_the_timeout_counts_as_given_up() {
    let answer = r#"data = '{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}'"#;
    let reply = |gap: u64| {
        format!(
            "[[call.reply]]\nstatus = 200\nevent_gap_ms = {gap}\n\
             [[call.reply.event]]\ncomment = \"w\"\n[[call.reply.event]]\n{answer}\n"
        )
    };
    let applies = |gap: u64| {
        let file = timed_case("2025-11-25", "", &reply(gap));
        let call = scripted(session_call(2), 0, 200, "");
        verdict(&check_call(&file, 0, &[call]), "cancel-after-timeout").is_some()
    };
    assert!(!applies(100), "answered within 400 ms");
    assert!(applies(400), "answered at the timeout: the client gave up");
}

/// A 2025-11-25 case whose one call expects `outcome` and gets these `[[call.reply]]` tables.
fn session_case(outcome: &str, replies: &str) -> CaseFile {
    let text = format!(
        "summary = \"t\"\nprotocol_version = \"2025-11-25\"\n[[call]]\n\
         timeout_ms = 400\nexpect = {{ outcome = \"{outcome}\" }}\n{replies}"
    );
    let source = CaseSource {
        id: "t".into(),
        origin: "t.toml".into(),
        text: Ok(text),
    };
    source.load().unwrap().file
}

/// Whether `cancel-after-timeout` applies to session call 2 answered by `file`'s first reply,
/// and if so whether it passed without a cancel and with one naming the call's id.
fn cancel_verdicts(file: &CaseFile) -> Option<(bool, bool)> {
    let call = scripted(session_call(2), 0, 200, "");
    let alone = check_call(file, 0, std::slice::from_ref(&call));
    let silent = verdict(&alone, "cancel-after-timeout")?.passed;
    let with_cancel = check_call(file, 0, &[call, cancel_of(json!(2))]);
    Some((silent, passed(&with_cancel, "cancel-after-timeout")))
}

const RESULT: &str = r#"{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}"#;

#[test]
fn a_session_call_whose_reply_ends_without_its_response_is_cancelled() {
    let other_id = RESULT.replace("\"$id\"", "\"$other_id\"");
    let given_up = [
        ("NO_RESULT", "[[call.reply]]\nstatus = 202\n".to_owned()),
        ("NO_RESULT", "[[call.reply]]\nstatus = 204\n".to_owned()),
        (
            "INVALID_ENVELOPE",
            format!("[[call.reply]]\nstatus = 200\njson = '{other_id}'\n"),
        ),
        (
            "INVALID_ENVELOPE",
            format!("[[call.reply]]\nstatus = 200\n[[call.reply.event]]\ndata = '{other_id}'\n"),
        ),
        (
            "STREAM_INCOMPLETE",
            "[[call.reply]]\nstatus = 200\n[[call.reply.event]]\ncomment = \"w\"\n".to_owned(),
        ),
    ];
    for (outcome, reply) in given_up {
        let file = session_case(outcome, &reply);
        assert_eq!(
            cancel_verdicts(&file),
            Some((false, true)),
            "the check must apply to {reply}"
        );
        assert!(awaits_client(
            &file,
            0,
            &[scripted(session_call(2), 0, 200, "")]
        ));
    }
}

#[test]
fn a_session_call_expecting_timeout_is_cancelled_whatever_its_reply_sends() {
    // A stream that goes on sending progress and ends long after the timeout, and one that
    // breaks: the client declared its own timeout first, so it gave up on the call.
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"$progress_token","progress":"$repeat"}}"#;
    for reply in [
        format!(
            "[[call.reply]]\nstatus = 200\nevent_gap_ms = 300\n\
             [[call.reply.event]]\nrepeat = 10\ndata = '{progress}'\n"
        ),
        "[[call.reply]]\nstatus = 200\nend = \"close\"\n[[call.reply.event]]\ncomment = \"w\"\n"
            .to_owned(),
    ] {
        let file = session_case("TIMEOUT", &reply);
        assert_eq!(cancel_verdicts(&file), Some((false, true)), "{reply}");
    }
}

#[test]
fn a_session_call_that_got_its_response_or_may_still_get_it_needs_no_cancel() {
    let not_given_up = [
        // Its own response, a JSON-RPC error included.
        ("TOOL_SUCCESS", format!("[[call.reply]]\nstatus = 200\njson = '{RESULT}'\n")),
        (
            "JSONRPC_ERROR",
            r#"[[call.reply]]
status = 200
json = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'
"#
            .to_owned(),
        ),
        // A status that turns the request down.
        ("HTTP_ERROR", "[[call.reply]]\nstatus = 503\n".to_owned()),
        // A body that may have been the response.
        ("MALFORMED_JSON", "[[call.reply]]\nstatus = 200\nraw = '{\"unclosed'\n".to_owned()),
        (
            "STREAM_INCOMPLETE",
            "[[call.reply]]\nstatus = 200\nend = \"close\"\n[[call.reply.event]]\ncomment = \"w\"\n"
                .to_owned(),
        ),
        // A stream with an event id, which a 2025 client resumes.
        (
            "STREAM_INCOMPLETE",
            "[[call.reply]]\nstatus = 200\n[[call.reply.event]]\nid = \"e-0\"\ndata_raw = \"\"\n"
                .to_owned(),
        ),
    ];
    for (outcome, reply) in not_given_up {
        let file = session_case(outcome, &reply);
        assert_eq!(cancel_verdicts(&file), None, "{reply}");
    }
}

#[test]
fn a_modern_call_whose_reply_ends_without_its_response_needs_no_cancel_or_close() {
    // A 2026-07-28 client cancels by closing a stream it gave up on; one that ended is closed.
    let file = timed_case("2026-07-28", "", "[[call.reply]]\nstatus = 202\n");
    let checks = check_call(&file, 0, &[scripted(modern_call(1), 0, 202, "")]);
    assert!(
        verdict(&checks, "cancel-after-timeout").is_none(),
        "{checks:?}"
    );
    assert!(
        verdict(&checks, "timeout-closes-stream").is_none(),
        "{checks:?}"
    );
}

#[test]
fn a_header_mismatch_is_followed_by_tools_list_then_the_request_again() {
    let file = case("2026-07-28", OK_REPLY);
    let error = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}"#;
    let rejected = scripted(modern_call(1), 0, 400, error);
    let list = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta()}}),
        &MODERN_HEADERS,
    );
    let judge = |rest: Vec<Exchange>| {
        let all: Vec<Exchange> = std::iter::once(rejected.clone()).chain(rest).collect();
        let checks = check_call(&file, 0, &all);
        verdict(&checks, "header-mismatch-refresh")
            .cloned()
            .unwrap()
    };
    assert!(judge(vec![list.clone(), modern_call(3)]).passed);
    let blind = judge(vec![modern_call(3)]);
    assert!(
        !blind.passed && blind.detail.contains("without a tools/list"),
        "{blind:?}"
    );
    let gave_up = judge(vec![list]);
    assert!(
        !gave_up.passed && gave_up.detail.contains("not sent again"),
        "{gave_up:?}"
    );
}

#[test]
fn the_runner_waits_only_for_a_call_the_client_gave_up_on() {
    let stalled = timed_case("2025-11-25", "", STALL);
    let call = scripted(session_call(2), 0, 200, "");
    assert!(awaits_client(&stalled, 0, std::slice::from_ref(&call)));
    assert!(!awaits_client(&stalled, 0, &[call, cancel_of(json!(2))]));
    let json = format!("[[call.reply]]\nstatus = 200\njson = '{RESULT}'\n");
    let answered = timed_case("2025-11-25", "", &json);
    assert!(!awaits_client(
        &answered,
        0,
        &[scripted(session_call(2), 0, 200, "")]
    ));
}

/// A reply that sends `request` (JSON) as an SSE event the server waits on, then the result.
fn asking(request: &str) -> String {
    format!(
        "[[call.reply]]\nstatus = 200\n[[call.reply.event]]\ndata = '{request}'\n\
         await_answer_ms = 100\n[[call.reply.event]]\n\
         data = '{{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":{{\"content\":[]}}}}'\n"
    )
}

fn answer(body: Value) -> Exchange {
    post(body, &[("mcp-protocol-version", "2025-11-25")])
}

fn initialize_with(capabilities: Value) -> Exchange {
    post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": capabilities}}),
        &[],
    )
}

/// The verdict of check `name` on a session call answered by `asking(request)`, where the client
/// declared `capabilities` and then POSTed `after` (the server saw its answer in time unless
/// `late`).
fn judged(
    request: &str,
    name: &str,
    capabilities: Value,
    after: Vec<Exchange>,
    late: bool,
) -> Check {
    let file = case("2025-11-25", &asking(request));
    let asked: Value = serde_json::from_str(request).unwrap();
    let mut call = scripted(session_call(2), 0, 200, "");
    call.reply.awaited = vec![crate::wire::Awaited {
        id: asked["id"].clone(),
        answered: !late,
    }];
    let all: Vec<Exchange> = [initialize_with(capabilities), call]
        .into_iter()
        .chain(after)
        .collect();
    let checks = check_call(&file, 0, &all);
    verdict(&checks, name).cloned().expect("the check applies")
}

const PING: &str = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;

#[test]
fn a_ping_on_the_stream_gets_an_empty_result_with_its_own_id_in_time() {
    let ping =
        |after: Vec<Exchange>, late: bool| judged(PING, "ping-answered", json!({}), after, late);
    let good = || answer(json!({"jsonrpc": "2.0", "id": 7, "result": {}}));
    assert!(ping(vec![good()], false).passed);
    let none = ping(vec![], false);
    assert!(
        !none.passed
            && none
                .detail
                .contains("no answer to the server's ping (id 7)"),
        "{none:?}"
    );
    let string_id = ping(
        vec![answer(json!({"jsonrpc": "2.0", "id": "7", "result": {}}))],
        false,
    );
    assert!(
        string_id
            .detail
            .contains("request 3 (response) answered id \"7\" (a string), not the id 7"),
        "{string_id:?}"
    );
    let error = ping(
        vec![answer(
            json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "x"}}),
        )],
        false,
    );
    assert!(
        error
            .detail
            .contains("answered ping with error -32601, not an empty result"),
        "{error:?}"
    );
    let full = ping(
        vec![answer(
            json!({"jsonrpc": "2.0", "id": 7, "result": {"ok": true}}),
        )],
        false,
    );
    assert!(!full.passed, "{full:?}");
    let late = ping(vec![good()], true);
    assert!(
        late.detail
            .contains("only after the server gave up waiting"),
        "{late:?}"
    );
}

#[test]
fn undeclared_elicitation_roots_and_sampling_get_the_errors_the_spec_names() {
    let elicit =
        r#"{"jsonrpc":"2.0","id":"e","method":"elicitation/create","params":{"mode":"url"}}"#;
    let error = |id: Value, code: i64| {
        answer(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": "x"}}))
    };
    let check = |caps: Value, code: i64| {
        judged(
            elicit,
            "elicitation-answered",
            caps,
            vec![error(json!("e"), code)],
            false,
        )
    };
    assert!(check(json!({}), -32602).passed);
    assert!(
        check(json!({}), -32601).passed,
        "no elicitation at all: method not found"
    );
    let wrong = check(json!({}), -32600);
    let want =
        "(no elicitation declared) with error -32600, not an error with code -32602 or -32601";
    assert!(wrong.detail.contains(want), "{wrong:?}");
    let form_only = check(json!({"elicitation": {}}), -32601);
    let want = "(not a declared mode) with error -32601, not an error with code -32602";
    assert!(
        form_only.detail.contains(want),
        "{{}} declares form only: {form_only:?}"
    );
    assert!(check(json!({"elicitation": {"url": {}}}), -32601).passed);

    let roots = r#"{"jsonrpc":"2.0","id":8,"method":"roots/list"}"#;
    let roots_check = |caps: Value, code: i64| {
        judged(
            roots,
            "roots-answered",
            caps,
            vec![error(json!(8), code)],
            false,
        )
    };
    assert!(roots_check(json!({}), -32601).passed);
    assert!(!roots_check(json!({}), -32603).passed);
    assert!(roots_check(json!({"roots": {}}), -32603).passed);
    assert_eq!(roots_check(json!({}), -32601).grade, Grade::Should);

    let sampling = r#"{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{}}"#;
    let empty = answer(json!({"jsonrpc": "2.0", "id": "s", "result": {}}));
    let taken = judged(sampling, "sampling-answered", json!({}), vec![empty], false);
    assert!(
        taken.detail.contains("with a result {}, not an error"),
        "{taken:?}"
    );
    assert!(
        judged(
            sampling,
            "sampling-answered",
            json!({}),
            vec![error(json!("s"), -1)],
            false
        )
        .passed
    );
}

#[test]
fn a_modern_client_posts_no_response_to_a_request_on_the_stream() {
    let file = case("2026-07-28", &asking(PING));
    let call = scripted(modern_call(1), 0, 200, "");
    let judge = |after: Vec<Exchange>| {
        let all: Vec<Exchange> = std::iter::once(call.clone()).chain(after).collect();
        verdict(&check_call(&file, 0, &all), "no-modern-response")
            .cloned()
            .unwrap()
    };
    assert!(judge(vec![]).passed);
    let answered = judge(vec![answer(
        json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
    )]);
    assert!(
        !answered.passed && answered.detail.contains("must not send"),
        "{answered:?}"
    );
}

#[test]
fn a_cancel_may_follow_a_timeout_only_in_a_session_and_until_it_came() {
    let in_session = [("mcp-session-id", "s-0")];
    let call = tool_call(2, json!({}), &in_session);
    let cancel = post(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
        &in_session,
    );
    assert!(cancel_may_follow(0, std::slice::from_ref(&call)));
    assert!(!cancel_may_follow(0, &[call.clone(), cancel]));
    assert!(
        !cancel_may_follow(0, &[tool_call(2, json!({}), &[])]),
        "no session"
    );
    assert!(!cancel_may_follow(1, &[call]), "another call's request");
}

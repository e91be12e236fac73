//! The task checks, passed and failed, on hand-built exchanges.

use super::super::{Check, check_call};
use super::MIN_POLL_GAP_MS;
use crate::case::{CaseFile, CaseSource};
use crate::wire::{Answerer, Exchange, Sent};
use serde_json::{Value, json};

const TASK: &str = "t-1";

/// A task case of `version` (its replies do not matter to the checks, which read the record).
fn case(version: &str) -> CaseFile {
    let text = format!(
        "summary = \"t\"\nprotocol_version = \"{version}\"\n[[call]]\ntask = {{}}\n\
         expect = {{ outcome = \"TOOL_SUCCESS\" }}\n[[call.reply]]\nstatus = 200\n"
    );
    let source = CaseSource {
        id: "t".into(),
        origin: "t.toml".into(),
        text: Ok(text),
    };
    source.load().unwrap().file
}

/// A POST of `body` arriving at `at_ms`, answered with `answer` (a JSON body) that ended 1 ms
/// later; 2026-07-28 headers when `modern`, with `Mcp-Name` = `name`.
fn post(at_ms: u64, body: Value, answer: Value, modern: Option<&str>) -> Exchange {
    let method = body
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut headers = vec![];
    if let Some(name) = modern {
        headers.push(("mcp-protocol-version".to_owned(), "2026-07-28".to_owned()));
        headers.push(("mcp-name".to_owned(), name.to_owned()));
    }
    Exchange {
        at_ms,
        call: 0,
        http_method: "POST".into(),
        path: "/mcp".into(),
        jsonrpc_method: method,
        headers,
        body: body.to_string(),
        dropped: 0,
        reply: Sent {
            by: Answerer::Task,
            status: Some(200),
            bytes: format!("HTTP/1.1 200 OK\r\n\r\n{answer}"),
            ended_ms: Some(at_ms + 1),
            ..Sent::default()
        },
    }
}

fn meta(modern: bool) -> Value {
    if modern {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities":
                   {"extensions": {"io.modelcontextprotocol/tasks": {}}}})
    } else {
        json!({})
    }
}

/// The task-augmented `tools/call` (id 1), answered with a task asking for `poll` ms.
fn create(modern: bool, poll: u64) -> Exchange {
    let (params, result) = if modern {
        (
            json!({"name": "synthetic", "_meta": meta(true)}),
            json!({"resultType": "task", "taskId": TASK, "status": "working", "pollIntervalMs": poll}),
        )
    } else {
        (
            json!({"name": "synthetic", "task": {"ttl": 60000}}),
            json!({"task": {"taskId": TASK, "status": "working", "pollInterval": poll}}),
        )
    };
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": result});
    post(0, body, answer, modern.then_some("synthetic"))
}

/// A task request `method` (id `id`) at `at_ms`, answered with `result`.
fn task_request(method: &str, id: u64, at_ms: u64, result: Value, modern: bool) -> Exchange {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"taskId": TASK}});
    let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
    post(at_ms, body, answer, modern.then_some(TASK))
}

/// A `tasks/get` answered with `status`, asking for `poll` ms.
fn get(id: u64, at_ms: u64, status: &str, poll: u64, modern: bool) -> Exchange {
    let key = if modern {
        "pollIntervalMs"
    } else {
        "pollInterval"
    };
    let result = json!({"taskId": TASK, "status": status, key: poll});
    task_request("tasks/get", id, at_ms, result, modern)
}

fn verdict<'a>(checks: &'a [Check], name: &str) -> &'a Check {
    checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("{name} did not apply: {checks:?}"))
}

fn judge(version: &str, exchanges: &[Exchange]) -> Vec<Check> {
    check_call(&case(version), 0, exchanges)
}

#[test]
fn a_task_polled_at_its_interval_to_completion_passes_every_task_check() {
    for (version, modern) in [("2025-11-25", false), ("2026-07-28", true)] {
        let exchanges = [
            create(modern, 100),
            get(2, 101, "working", 100, modern),
            get(3, 202, "completed", 100, modern),
        ];
        let checks = judge(version, &exchanges);
        for name in ["task-poll-interval", "task-polls-to-terminal"] {
            assert!(
                verdict(&checks, name).passed,
                "{version} {name}: {checks:?}"
            );
        }
        assert!(
            checks
                .iter()
                .all(|c| c.name != "task-cancel-not-notification")
        );
        let modern_only = ["task-name-header", "no-tasks-result-2026"];
        for name in modern_only {
            let applied = checks.iter().any(|c| c.name == name);
            assert_eq!(applied, modern, "{version} {name}");
        }
    }
}

#[test]
fn a_poll_sooner_than_asked_fails_and_zero_asks_for_the_floor() {
    let early = [create(false, 100), get(2, 60, "completed", 0, false)];
    let check = verdict(&judge("2025-11-25", &early), "task-poll-interval").clone();
    assert!(!check.passed);
    assert!(
        check.detail.contains("59 ms") && check.detail.contains("100 ms"),
        "{check:?}"
    );
    let spinning = [
        create(false, 0),
        get(2, 2, "working", 0, false),
        get(3, 4, "completed", 0, false),
    ];
    let check = verdict(&judge("2025-11-25", &spinning), "task-poll-interval").clone();
    assert!(
        !check.passed && check.detail.contains("no interval or 0"),
        "{check:?}"
    );
    let floored = [
        create(false, 0),
        get(2, 1 + MIN_POLL_GAP_MS, "completed", 0, false),
    ];
    assert!(verdict(&judge("2025-11-25", &floored), "task-poll-interval").passed);
}

#[test]
fn polling_that_stops_before_a_terminal_status_fails_unless_the_task_was_cancelled() {
    let no_poll = [create(false, 10)];
    let check = verdict(&judge("2025-11-25", &no_poll), "task-polls-to-terminal").clone();
    assert!(
        !check.passed && check.detail.contains("no tasks/get"),
        "{check:?}"
    );
    let stopped = [create(false, 10), get(2, 20, "working", 10, false)];
    let check = verdict(&judge("2025-11-25", &stopped), "task-polls-to-terminal").clone();
    assert!(
        !check.passed && check.detail.contains("status working"),
        "{check:?}"
    );
    let unknown = task_request("tasks/get", 2, 20, Value::Null, false);
    let mut unknown = unknown;
    unknown.reply.bytes = "HTTP/1.1 200 OK\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":\
                           {\"code\":-32602,\"message\":\"unknown task\"}}"
        .into();
    let checks = judge("2025-11-25", &[create(false, 10), unknown]);
    assert!(
        verdict(&checks, "task-polls-to-terminal").passed,
        "an error ends it"
    );
    let result = task_request("tasks/result", 2, 20, json!({"content": []}), false);
    assert!(
        verdict(
            &judge("2025-11-25", &[create(false, 10), result]),
            "task-polls-to-terminal"
        )
        .passed,
        "tasks/result blocks until the end"
    );
}

#[test]
fn a_task_given_up_on_is_cancelled_with_tasks_cancel_not_a_notification() {
    let polled = [create(false, 10), get(2, 20, "working", 10, false)];
    let cancel = task_request("tasks/cancel", 3, 40, json!({}), false);
    let mut with_cancel = polled.to_vec();
    with_cancel.push(cancel);
    let checks = judge("2025-11-25", &with_cancel);
    assert!(verdict(&checks, "task-cancel-not-notification").passed);
    assert!(verdict(&checks, "task-polls-to-terminal").passed);
    let check = verdict(
        &judge("2025-11-25", &polled),
        "task-cancel-not-notification",
    )
    .clone();
    assert!(
        !check.passed && check.detail.contains("no tasks/cancel"),
        "{check:?}"
    );
    let notice = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1}});
    let mut with_notice = polled.to_vec();
    with_notice.push(post(40, notice, json!({}), None));
    let check = verdict(
        &judge("2025-11-25", &with_notice),
        "task-cancel-not-notification",
    )
    .clone();
    assert!(
        !check.passed && check.detail.contains("notifications/cancelled"),
        "{check:?}"
    );
}

#[test]
fn modern_task_requests_name_the_task_and_never_call_tasks_result() {
    let mut wrong_name = get(2, 20, "completed", 10, true);
    wrong_name.headers[1].1 = "synthetic".into();
    let checks = judge("2026-07-28", &[create(true, 10), wrong_name]);
    let check = verdict(&checks, "task-name-header");
    assert!(
        !check.passed && check.detail.contains("\"synthetic\""),
        "{check:?}"
    );
    let result = task_request("tasks/result", 2, 20, json!({}), true);
    let check = verdict(
        &judge("2026-07-28", &[create(true, 10), result]),
        "no-tasks-result-2026",
    )
    .clone();
    assert!(
        !check.passed && check.detail.contains("tasks/result"),
        "{check:?}"
    );
}

#[test]
fn a_task_the_client_never_asked_for_is_not_polled_unless_the_application_asked() {
    let mut unasked = create(false, 10);
    unasked.body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "synthetic"}})
    .to_string();
    let mut plain = case("2025-11-25");
    plain.call[0].task = None;
    let checks = check_call(&plain, 0, std::slice::from_ref(&unasked));
    assert!(
        checks.iter().all(|c| !c.name.starts_with("task-")),
        "{checks:?}"
    );
    // The application asked, but the tool does not allow tasks: the client was right not to.
    let checks = judge("2025-11-25", std::slice::from_ref(&unasked));
    assert!(
        checks.iter().all(|c| !c.name.starts_with("task-")),
        "{checks:?}"
    );
    let mut optional = case("2025-11-25");
    optional.tool.task_support = Some(crate::case::TaskSupport::Optional);
    let checks = check_call(&optional, 0, &[unasked]);
    let check = verdict(&checks, "task-polls-to-terminal");
    assert!(
        !check.passed && check.detail.contains("no params.task"),
        "{check:?}"
    );
    let mut undeclared = create(true, 10);
    undeclared.body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "synthetic", "_meta": {}}})
    .to_string();
    let check = verdict(
        &judge("2026-07-28", &[undeclared]),
        "task-polls-to-terminal",
    )
    .clone();
    assert!(
        !check.passed && check.detail.contains("extension"),
        "{check:?}"
    );
}

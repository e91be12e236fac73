//! Real runs whose reports hold every verdict: shared by `tests/reports.rs` (snapshots and
//! counts) and `harness/third_party.rs` (third-party readers).
//!
//! Two adapters run the same cases: the reference client, and `Careless`, a client that posts
//! the call and says `TOOL_SUCCESS` whatever came back. Tool names of the fixture's own cases
//! make `Careless` hang, panic or decline, so one careless run has pass, fail, hang,
//! adapter-error and unsupported, a warning (an INFO mismatch) and a case that does not load.

#![allow(dead_code)] // each test binary uses its own part of the fixture

use mcp_error_layers::Outcome;
use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::adapter::{Adapter, CallContext};
use mcp_error_layers::case::{CaseSource, builtin};
use mcp_error_layers::engine::Baseline;
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Rules;
use mcp_error_layers::engine::Run as Engine;
use mcp_error_layers::engine::redact_ports;
use mcp_error_layers::report::{AdapterInfo, RunReport};
use mcp_error_layers::wire::Ended;
use mcp_error_layers::{AdapterReport, Observation};
use std::time::Duration;

/// Built-in cases in the fixture: MUST and SHOULD grades, JSON and SSE bodies.
const BUILTIN: [&str; 4] = [
    "jsonrpc/invalid-params",
    "sse/final-result",
    "tool/success",
    "transport/http-429-retry-after",
];

const SUCCESS_REPLY: &str = r#"
[[call.reply]]
status = 200
json = '{"jsonrpc":"2.0","id":"$id","result":{"content":[{"type":"text","text":"done"}]}}'
"#;

fn one_call(summary: &str, tool: &str) -> String {
    format!(
        "summary = \"{summary}\"\n[tool]\nname = \"{tool}\"\n[[call]]\n\
         expect = {{ outcome = \"TOOL_SUCCESS\", tool_posts = 1 }}\ntimeout_ms = 300\n{SUCCESS_REPLY}"
    )
}

/// Two calls on an INFO case; the summary carries markup, so reports show their escaping.
const RETRY_THEN_SUCCESS: &str = r#"
summary = "503 & then <b>success</b>: an \"info\" case"
grade = "info"
[[call]]
expect = { outcome = "HTTP_ERROR", status = 503, tool_posts = 1 }
timeout_ms = 300
[[call.reply]]
status = 503
[[call]]
expect = { outcome = "TOOL_SUCCESS", tool_posts = 1 }
timeout_ms = 300
[[call.reply]]
status = 200
json = '{"jsonrpc":"2.0","id":"$id","result":{"content":[]}}'
"#;

/// A case file with a misspelt key: it does not load, and fails for every adapter.
const BROKEN: &str = "summary = \"a typo\"\n[[call]]\nexpect = { outcome = \"TOOL_SUCCESS\" }\n\
                      [[call.reply]]\nstatsu = 200\n";

fn custom(id: &str, text: String) -> CaseSource {
    CaseSource {
        id: format!("fixture/{id}"),
        origin: format!("fixture/{id}.toml"),
        text: Ok(text),
    }
}

/// The fixture's cases, in id order.
pub fn sources() -> Vec<CaseSource> {
    let mut all: Vec<CaseSource> = builtin()
        .into_iter()
        .filter(|s| BUILTIN.contains(&s.id.as_str()))
        .collect();
    assert_eq!(
        all.len(),
        BUILTIN.len(),
        "a fixture case left the built-ins"
    );
    all.push(custom("broken", BROKEN.to_owned()));
    all.push(custom(
        "crashing-client",
        one_call("a success; the careless client panics", "panic"),
    ));
    all.push(custom(
        "declined",
        one_call("a success; the careless client declines", "unsupported"),
    ));
    all.push(custom("retry-then-success", RETRY_THEN_SUCCESS.to_owned()));
    all.push(custom(
        "sloppy-request",
        one_call("a success; the careless client leaves out Accept", "sloppy"),
    ));
    all.push(custom(
        "slow-client",
        one_call("a success; the careless client never answers", "hang"),
    ));
    all.sort_by(|a, b| a.id.cmp(&b.id));
    all
}

/// Posts the call, then says `TOOL_SUCCESS` whatever the answer; its tool name can make it
/// hang (`hang`), crash (`panic`), decline (`unsupported`) or send a bad Accept (`sloppy`).
pub struct Careless;

impl Adapter for Careless {
    async fn call(&self, call: CallContext) -> AdapterReport {
        match call.tool.as_str() {
            "hang" => std::future::pending().await,
            "panic" => std::panic::panic_any(CARELESS_PANIC),
            "unsupported" => AdapterReport::Unsupported {
                unsupported: "this client has no SSE # support".into(),
            },
            _ => post_and_say_success(&call).await,
        }
    }
}

async fn post_and_say_success(call: &CallContext) -> AdapterReport {
    // It sends what the spec asks of a request (the request checks pass); its carelessness is
    // in how it reads the answer.
    let meta = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "careless", "version": "0"},
    });
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": call.tool, "arguments": call.arguments, "_meta": meta},
    });
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client");
    // `sloppy` leaves out Accept, so that one case fails a request check.
    let accept = match call.tool.as_str() {
        "sloppy" => "application/json",
        _ => "application/json, text/event-stream",
    };
    let sent = client
        .post(&call.endpoint)
        .header("content-type", "application/json")
        .header("accept", accept)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", &call.tool)
        .body(body.to_string())
        .send()
        .await;
    match sent {
        Ok(response) => {
            let status = response.status().as_u16();
            // Read to the end, so that the server's record of the reply does not depend on
            // how soon the connection is dropped.
            let _ = response.bytes().await;
            Observation::new(Outcome::ToolSuccess)
                .with_status(status)
                .with_detail(format!("POST {} answered {status}", call.endpoint))
                .into()
        }
        Err(e) => Observation::new(Outcome::ConnectionError)
            .with_detail(e.to_string())
            .into(),
    }
}

/// Runs the fixture's cases against `adapter`.
pub fn run<A: Adapter>(adapter: &A, name: &str, version: Option<&str>, strict: bool) -> RunReport {
    let run = Engine::new(adapter).cases(sources()).jobs(4).strict(strict);
    let mut report = run.deadline_margin(Duration::from_millis(300)).execute(&());
    report.adapter = AdapterInfo {
        name: name.to_owned(),
        version: version.map(str::to_owned),
    };
    // What `stable` sets: reports compared as text must not depend on the machine.
    report.duration = Duration::from_millis(1234);
    report
}

/// The reference client's run.
pub fn reference_run() -> RunReport {
    run(
        &ReferenceAdapter::new(),
        "reference",
        Some(env!("CARGO_PKG_VERSION")),
        false,
    )
}

/// The careless client's run: every verdict.
pub fn careless_run(strict: bool) -> RunReport {
    quiet_planned_panic();
    run(&Careless, "careless", None, strict)
}

/// A baseline for the careless client: two deviations and a request check accepted, and an
/// entry for a case it passes (stale).
pub const CARELESS_BASELINE: &str = r#"
[accepted]
"jsonrpc/invalid-params" = "the careless client takes every 200 for a success (#1)"
"fixture/slow-client" = "no timeout of its own yet (#2)"
"tool/success" = "once flaky (#3)"
[checks]
"accept-header" = "Accept comes with the rewrite (#4)"
"#;

/// The careless run judged under [`CARELESS_BASELINE`] (not strict): every standing.
pub fn accepting(careless: &RunReport) -> RunReport {
    let loaded = Baseline::parse(CARELESS_BASELINE);
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    careless.under(&Rules::strict(false).with_baseline(loaded.baseline))
}

/// What the careless client panics with.
const CARELESS_PANIC: &str = "the careless client blew up";

/// Keeps the planned panic out of the test output (it would read like a broken test); every
/// other panic still goes to the default hook.
fn quiet_planned_panic() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<&str>() != Some(&CARELESS_PANIC) {
                default(info);
            }
        }));
    });
}

/// `report` with what changes between runs (ports, times, durations) fixed, so that its
/// reports can be snapshotted.
pub fn stable(mut report: RunReport) -> RunReport {
    for case in &mut report.cases {
        stabilize(case);
    }
    report
}

fn stabilize(case: &mut CaseRecord) {
    case.duration = Duration::from_millis(1_234);
    for call in &mut case.calls {
        call.duration = Duration::from_millis(56);
        if let Some(AdapterReport::Observed(o)) = &mut call.report {
            o.detail = redact_ports(&o.detail);
        }
    }
    for exchange in &mut case.exchanges {
        exchange.at_ms = 7;
        for (_, value) in &mut exchange.headers {
            *value = redact_ports(value);
        }
        exchange.body = redact_ports(&exchange.body);
        exchange.reply.bytes = redact_ports(&exchange.reply.bytes);
        // The runner can take the server's record a moment before the connection task marks
        // a fully sent reply `complete`; no fixture case stalls, so "in progress" is that race.
        exchange.reply.end = exchange.reply.end.or(Some(Ended::Complete));
    }
}

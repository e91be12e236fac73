//! A bridge row end to end (docs/bridges.md), without npm or PyPI: the bridge is
//! `tests/fixtures/bridge/relay.py`, a stdio-to-HTTP relay on Python's standard library, run by
//! the library's `BridgeAdapter` on built-in cases. Faithful, it passes what a faithful hop must
//! deliver; `--lossy` (the status dropped from a 503) and `--exit-on-http-error` (the bridge
//! dies with its upstream) must each be caught, in the verdicts, the checks and the JSON report's
//! hop fidelity.

use mcp_error_layers::adapter::process::bridge::BridgeAdapter;
use mcp_error_layers::adapter::process::bridge::spec::BridgeSpec;
use mcp_error_layers::case::builtin;
use mcp_error_layers::engine::Run;
use mcp_error_layers::report::json::JsonReport;
use std::path::Path;

/// The cases a bridge row has something to say about, one per layer and the stall.
const CASES: [&str; 6] = [
    "tool/success",
    "tool/is-error",
    "jsonrpc/invalid-params-2025-11-25",
    "transport/http-503-empty-body",
    "sse/ends-before-response-2025-11-25",
    "transport/headers-then-silence",
];

fn python() -> bool {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The relay as a bridge row, with `flags` before the upstream URL; its own timeout is the
/// relay's 3 s.
fn relay(flags: &str) -> BridgeAdapter {
    relay_with(flags, "")
}

/// The relay with `more` TOML after its keys (an `[auth]` table).
fn relay_with(flags: &str, more: &str) -> BridgeAdapter {
    let text = format!(
        r#"kind = "bridge"
bridge = "relay"
version = "1"
install = "pip"
exposes = "stdio"
command = ["python3", "{{install}}/relay.py", {flags} "{{upstream_url}}"]
timeout_ms = 3000
{more}
"#
    );
    let spec = BridgeSpec::parse(&text).unwrap();
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bridge");
    BridgeAdapter::new(spec, folder)
}

fn run(bridge: &BridgeAdapter) -> JsonReport {
    let cases = builtin()
        .into_iter()
        .filter(|c| CASES.contains(&c.id.as_str()))
        .collect();
    let report = Run::new(bridge).cases(cases).jobs(6).execute(&());
    JsonReport::from_run(&report)
}

fn verdicts(report: &JsonReport) -> Vec<(String, String)> {
    report
        .cases
        .iter()
        .map(|c| (c.id.clone(), c.verdict.as_str().to_owned()))
        .collect()
}

fn failed_checks(report: &JsonReport, id: &str) -> Vec<String> {
    let case = report.cases.iter().find(|c| c.id == id).unwrap();
    let checks = case.calls.iter().flat_map(|c| &c.checks);
    checks
        .filter(|k| !k.passed)
        .map(|k| k.name.clone())
        .collect()
}

#[test]
fn a_faithful_relay_passes_and_its_hop_fidelity_counts_every_case() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let report = run(&relay(""));
    let settings = report.settings.as_ref().unwrap();
    assert_eq!(settings.settings.bridge.map(|b| b.as_str()), Some("stdio"));
    let fidelity = report.summary.hop_fidelity.unwrap();
    assert_eq!(
        (fidelity.told_apart, fidelity.cases),
        (6, 6),
        "{:#?}",
        verdicts(&report)
    );
    for id in CASES {
        let hop: Vec<String> = failed_checks(&report, id)
            .into_iter()
            .filter(|k| k.starts_with("hop-"))
            .collect();
        assert!(hop.is_empty(), "{id}: {hop:?}");
    }
    // The HTML matrix names the figure in the row's head and its summary line.
    let page = mcp_error_layers::report::html::render(std::slice::from_ref(&report));
    assert!(
        page.contains("hop fidelity 6/6 (100 %)"),
        "no hop fidelity in the page"
    );
    // The stall: the relay's own 3 s timeout answered, within its timeout plus the grace.
    let stalled = report
        .cases
        .iter()
        .find(|c| c.id == "transport/headers-then-silence")
        .unwrap();
    let observed = stalled.calls[0].observed_text.clone();
    assert!(observed.starts_with("JSONRPC_ERROR"), "{observed}");
}

#[test]
fn a_relay_that_drops_the_status_or_dies_is_caught() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let lossy = run(&relay("\"--lossy\","));
    let case = lossy
        .cases
        .iter()
        .find(|c| c.id == "transport/http-503-empty-body")
        .unwrap();
    assert_eq!(case.verdict.as_str(), "fail");
    assert_eq!(
        case.calls[0].problems,
        ["the upstream HTTP_ERROR arrived as JSONRPC_ERROR -32000: the status 503 is not in it"]
    );
    assert_eq!(lossy.summary.hop_fidelity.unwrap().told_apart, 5);

    let dies = run(&relay("\"--exit-on-http-error\","));
    let case = dies
        .cases
        .iter()
        .find(|c| c.id == "transport/http-503-empty-body")
        .unwrap();
    assert_eq!(
        case.calls[0].observed_text.split(' ').next(),
        Some("CONNECTION_ERROR")
    );
    assert!(
        case.calls[0].problems[0].contains("the bridge ended"),
        "{case:#?}"
    );
    assert_eq!(
        failed_checks(&dies, "transport/http-503-empty-body"),
        ["hop-survives"]
    );
}

#[test]
fn a_bridge_that_died_is_not_started_again_for_the_next_call() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let cases = builtin()
        .into_iter()
        .filter(|c| c.id == "recovery/http-503-then-next-call")
        .collect();
    let report = Run::new(&relay("\"--exit-on-http-error\","))
        .cases(cases)
        .execute(&());
    let report = JsonReport::from_run(&report);
    let calls = &report.cases[0].calls;
    // Call 1: the bridge dies with its upstream's 503. Call 2 finds it dead: the same bridge
    // process or nothing, never a new one that would make it look recovered.
    assert_eq!(
        calls[0].observed_text.split(' ').next(),
        Some("CONNECTION_ERROR")
    );
    let second = &calls[1].observed_text;
    assert!(second.starts_with("CONNECTION_ERROR"), "{second}");
    assert!(second.contains("is not started again"), "{second}");
    assert_eq!(
        calls[1].tool_posts, 0,
        "no tools/call reached the upstream server"
    );
}

/// An `[auth]` whose seed writes the relay's header file from the start credentials, as a
/// token store seeded in the bridge's home: the relay sends the token upstream.
const SEEDED: &str = r#"
[auth]
setting = "a header file the seed writes from the start credentials"
args = ["--header-file", "{home}/auth-header"]
seed = ["python3", "-c", "import json, os; t = json.loads(os.environ['MCP_ERROR_LAYERS_AUTH'])['access_token']; open('../auth-header', 'w').write('Authorization: Bearer ' + t)"]
"#;

fn run_ids(bridge: &BridgeAdapter, ids: &[&str]) -> JsonReport {
    let cases = builtin()
        .into_iter()
        .filter(|c| ids.contains(&c.id.as_str()))
        .collect();
    JsonReport::from_run(&Run::new(bridge).cases(cases).jobs(2).execute(&()))
}

#[test]
fn a_bridge_with_auth_holds_the_credentials_upstream_and_one_without_runs_no_auth_case() {
    if !python() {
        eprintln!("skipped: no python3");
        return;
    }
    let ids = ["auth/token-on-every-request-2025-11-25", "tool/success"];
    let seeded = run_ids(&relay_with("", SEEDED), &ids);
    for case in &seeded.cases {
        assert_eq!(case.verdict.as_str(), "pass", "{case:#?}");
    }
    let auth = &seeded.cases[0];
    assert_eq!(auth.id, ids[0]);
    let header = auth.calls[0]
        .checks
        .iter()
        .find(|k| k.name == "auth-header");
    assert!(header.is_some_and(|k| k.passed), "{auth:#?}");
    // The token reached the upstream server, and the report names it only by its redacted name.
    let text = serde_json::to_string(&seeded).unwrap();
    assert!(
        text.contains("Bearer [access-token-1]"),
        "no redacted token upstream"
    );
    assert!(!text.contains("mel_at_"), "a token in the report");

    let plain = run_ids(&relay(""), &ids);
    let auth = plain.cases.iter().find(|c| c.id == ids[0]).unwrap();
    assert_eq!(auth.verdict.as_str(), "unsupported", "{auth:#?}");

    // A seed that fails is the call's adapter-error, with its reason.
    let failing = SEEDED.replace(
        "import json",
        "import sys; sys.exit('no store'); import json",
    );
    let failed = run_ids(&relay_with("", &failing), &ids[..1]);
    let case = &failed.cases[0];
    assert_eq!(case.verdict.as_str(), "adapter-error", "{case:#?}");
    let why = serde_json::to_string(case).unwrap();
    assert!(why.contains("no store"), "{why}");
}

//! `cargo test --test conformance_clients`: the two conformance clients written in this
//! repository (`harness/conformance-clients/python/` on PyPI `mcp`, `node/` on
//! `@modelcontextprotocol/sdk`, each pinned) run every built-in case through the
//! conformance-client adapter kind (docs/conformance-clients.md). No case may end in an
//! `adapter-error`: the kind must understand every program that keeps the contract. The other
//! verdicts are the SDKs' own, printed with the run's counts (coarse judgements among them).
//!
//! Setup is `harness/sdk_setup.rs`'s, cached as for the SDK rows: a virtualenv under
//! `<target>/sdk-venvs/conformance-python`, `npm ci` in `node/`. A machine without `python3` or
//! `node` skips a client with the reason; `MCP_ERROR_LAYERS_REQUIRE_SDKS=1` (CI) fails instead.

#[allow(dead_code)] // the SDK rows' setup; this target uses its loading and installing only
#[path = "sdk_setup.rs"]
mod sdk_setup;

use mcp_error_layers::adapter::process::ProcessAdapter;
use mcp_error_layers::case::builtin;
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Run;
use mcp_error_layers::engine::Verdict;
use mcp_error_layers::report::Counts;
use std::path::Path;
use std::time::Duration;

/// Cases at once: each starts an interpreter, so more only queue on a 2-core machine.
const JOBS: usize = 8;

/// Runs every built-in case through the conformance client in `harness/conformance-clients/<folder>`,
/// or `None` when it cannot be set up on this machine (and that is allowed).
fn run_client(folder: &str) -> Option<Vec<CaseRecord>> {
    let name = format!("conformance-{folder}");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("harness/conformance-clients")
        .join(folder);
    let sdk = sdk_setup::Sdk::load_from(&dir, &name).unwrap_or_else(|why| panic!("{why}"));
    let command = match sdk_setup::set_up(&sdk) {
        Ok(command) => command,
        Err(why) => {
            let required =
                std::env::var_os(sdk_setup::REQUIRE_VAR).is_some_and(|v| !v.is_empty() && v != "0");
            assert!(
                !required,
                "{name}: {why} ({} is set)",
                sdk_setup::REQUIRE_VAR
            );
            eprintln!("{name}: skipped: {why}");
            return None;
        }
    };
    let adapter = sdk.adapter(&command);
    // A conformance client gets no timeout of its own: a case that stalls is a hang after this,
    // so keep it short; the margin is room for its start on a loaded machine.
    let run = Run::new(&adapter).cases(builtin()).jobs(JOBS);
    let run = run.default_timeout(Duration::from_millis(1_500));
    let records = run
        .deadline_margin(Duration::from_secs(3))
        .execute(&())
        .cases;
    eprintln!("{name}: {}", Counts::of(&records));
    Some(records)
}

/// What every client's run must show: no adapter error, and coarse judgements marked.
fn check(records: &[CaseRecord]) {
    let errors: Vec<String> = records
        .iter()
        .filter(|r| r.verdict == Verdict::AdapterError || r.error.is_some())
        .map(|r| format!("{}: {}", r.id, mcp_error_layers::report::mismatch_line(r)))
        .collect();
    assert!(errors.is_empty(), "adapter errors:\n{}", errors.join("\n"));
    assert_eq!(records.len(), builtin().len());
    let success = records.iter().find(|r| r.id == "tool/success").unwrap();
    assert_eq!(success.verdict, Verdict::Pass, "{success:#?}");
    assert!(!success.is_coarse(), "a success is judged in full");
    let is_error = records.iter().find(|r| r.id == "tool/is-error").unwrap();
    assert!(
        is_error.is_coarse(),
        "TOOL_ERROR needs a finer outcome: {is_error:#?}"
    );
}

#[test]
fn the_python_conformance_client_runs_every_case_without_an_adapter_error() {
    if let Some(records) = run_client("python") {
        check(&records);
    }
}

#[test]
fn the_node_conformance_client_runs_every_case_without_an_adapter_error() {
    if let Some(records) = run_client("node") {
        check(&records);
    }
}

/// A conformance client that exits 0 at once and never connects passes no built-in case: a
/// call judged coarsely whose scripted replies were never served fails, and a call expected to
/// succeed fails on its outcome once nothing was served. (It starts no interpreter, so it needs
/// no setup.)
#[test]
fn a_conformance_client_that_never_connects_passes_no_case() {
    let adapter = ProcessAdapter::new("true", Vec::<String>::new()).conformance_client();
    let records = Run::new(&adapter)
        .cases(builtin())
        .jobs(JOBS)
        .default_timeout(Duration::from_millis(1_500))
        .execute(&())
        .cases;
    eprintln!("never-connects: {}", Counts::of(&records));
    assert_eq!(records.len(), builtin().len());
    let passed: Vec<&str> = records
        .iter()
        .filter(|r| r.verdict == Verdict::Pass)
        .map(|r| r.id.as_str())
        .collect();
    assert!(passed.is_empty(), "passed without connecting: {passed:?}");
}

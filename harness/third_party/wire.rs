//! The harness's own wire, validated by types someone else wrote: every response the wire
//! server sent in a run (the prelude's `initialize`, `tools/list`, `server/discover` answers,
//! its 202s and the error bodies it makes itself, and each case's scripted replies) is read
//! by `validate_wire.py` with the PyPI `mcp-types` models of its era. A case that breaks a
//! part of the wire on purpose names it in `breaks_on_purpose`; only that part is exempt, and
//! it must really be broken there (else the key is stale).

use super::{Outcome, Run, Shared, python_script, same};
use mcp_error_layers::case::{WirePart, builtin};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::ffi::OsStr;

const CASES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/cases");

/// Every exchange of a run's JSON report validates, but for the parts its case exempts.
pub fn run_trial(shared: &Shared, run: Run) -> Result<(), Outcome> {
    let report = shared.file(run, "json");
    let out = report.with_extension("wire.json");
    let seen = python_script(
        "validate_wire.py",
        &[OsStr::new("report"), report.as_os_str(), OsStr::new(CASES)],
        &out,
    )?;
    let problems = seen["problems"].as_array().cloned().unwrap_or_default();
    let unknown = seen["unknown_cases"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // The fixture's cases live in memory, not under cases/: only they may go unchecked.
    if let Some(case) = unknown
        .iter()
        .find(|id| !id.as_str().is_some_and(|id| id.starts_with("fixture/")))
    {
        return Err(format!("built-in case {case} has no file under {CASES}").into());
    }
    if seen["checked"].as_u64().unwrap_or(0) == 0 || seen["messages"].as_u64().unwrap_or(0) == 0 {
        return Err(format!("nothing was validated: {seen}").into());
    }
    let invalid: Vec<String> = problems
        .iter()
        .filter(|p| p["exempt"] != Value::Bool(true))
        .map(|p| format!("{} [{}]: {}", p["label"], p["part"], p["problem"]))
        .collect();
    if !invalid.is_empty() {
        return Err(format!(
            "{} message(s) the harness sent are not valid MCP (first 10):\n{}",
            invalid.len(),
            invalid[..invalid.len().min(10)].join("\n")
        )
        .into());
    }
    match run {
        Run::Reference => every_exemption_used(&problems),
        _ => Ok(()),
    }
}

/// Each part a case says it breaks is broken in the reference run, which reaches every reply.
fn every_exemption_used(problems: &[Value]) -> Result<(), Outcome> {
    let broken: BTreeSet<(String, String)> = problems
        .iter()
        .filter_map(|p| {
            let label = p["label"].as_str()?;
            let (case, _) = label.split_once(" exchange ")?;
            Some((case.to_owned(), p["part"].as_str()?.to_owned()))
        })
        .collect();
    let mut stale = Vec::new();
    for source in builtin() {
        let case = source.load().map_err(|e| e.to_string())?;
        for part in &case.file.breaks_on_purpose {
            let part = part_name(*part);
            if !broken.contains(&(case.id.clone(), part.clone())) {
                stale.push(format!("{}: breaks_on_purpose names {part:?}", case.origin));
            }
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    Err(format!(
        "these parts validate, so they are not broken on purpose (remove them from the key):\n{}",
        stale.join("\n")
    )
    .into())
}

fn part_name(part: WirePart) -> String {
    serde_json::to_value(part)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The validator is no rubber stamp: it passes a right answer and names the part of each
/// wrong one.
pub fn validator_trial(shared: &Shared, _: Run) -> Result<(), Outcome> {
    let http = |status: &str, kind: &str, body: &str| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let json = "application/json";
    let ok = r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}"#;
    let samples = [
        ("right", http("200 OK", json, ok), None),
        (
            "content not an array",
            http(
                "200 OK",
                json,
                r#"{"jsonrpc":"2.0","id":7,"result":{"content":"hi"}}"#,
            ),
            Some("result"),
        ),
        (
            "another id",
            http("200 OK", json, &ok.replace("\"id\":7", "\"id\":8")),
            Some("envelope"),
        ),
        (
            "202 with a body",
            http("202 Accepted", json, ok),
            Some("http"),
        ),
        (
            "HTML",
            http("200 OK", "text/html", "<p>hi</p>"),
            Some("http"),
        ),
    ];
    let items: Vec<Value> = samples
        .iter()
        .map(|(label, response, _)| {
            json!({"label": label, "version": "2025-11-25", "method": "tools/call", "id": 7,
                   "response": response})
        })
        .collect();
    let input = shared.scratch("validator-samples.json");
    std::fs::write(&input, Value::Array(items).to_string()).map_err(|e| e.to_string())?;
    let seen = python_script(
        "validate_wire.py",
        &[OsStr::new("exchanges"), input.as_os_str()],
        &input.with_extension("out.json"),
    )?;
    let problems = seen["problems"].as_array().cloned().unwrap_or_default();
    for (label, _, part) in &samples {
        let found: Vec<&str> = problems
            .iter()
            .filter(|p| p["label"] == *label)
            .filter_map(|p| p["part"].as_str())
            .collect();
        same(
            &format!("parts found wrong in {label:?}"),
            found,
            part.iter().copied().collect(),
        )?;
    }
    Ok(())
}

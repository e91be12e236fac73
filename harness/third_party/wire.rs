//! The harness's own wire, validated by types someone else wrote: every response the wire
//! server sent in a run (the prelude's `initialize`, `tools/list`, `server/discover` answers,
//! its 202s and the error bodies it makes itself, and each case's scripted replies) is read
//! by `validate_wire.py` with the PyPI `mcp-types` models of its era. A case that breaks a
//! part of the wire on purpose names it in `breaks_on_purpose`; only that part is exempt, and
//! it must really be broken there (else the key is stale). A task answer, which `mcp-types` has
//! no model for, is `unmodeled`: its envelope is checked, its result is not, and only the task
//! cases may send one.

use super::{Outcome, Run, Shared, python_script, same};
use mcp_error_layers::case::{Target, WirePart, builtin};
use mcp_error_layers::wire::WireServer;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

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
    unmodeled_only_in_task_cases(&problems)?;
    let invalid: Vec<String> = problems
        .iter()
        .filter(|p| p["exempt"] != Value::Bool(true) && p["part"] != "unmodeled")
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

/// Only the task cases (`tasks/...`) send answers `mcp-types` has no model for: anywhere else an
/// unmodeled answer would be a gap in what the third party checks.
fn unmodeled_only_in_task_cases(problems: &[Value]) -> Result<(), Outcome> {
    let elsewhere: Vec<String> = problems
        .iter()
        .filter(|p| p["part"] == "unmodeled")
        .filter(|p| !p["label"].as_str().is_some_and(|l| l.starts_with("tasks/")))
        .map(|p| format!("{}: {}", p["label"], p["problem"]))
        .collect();
    if elsewhere.is_empty() {
        return Ok(());
    }
    Err(format!(
        "answers outside the task cases that mcp-types cannot check:\n{}",
        elsewhere.join("\n")
    )
    .into())
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
    let task = r#"{"jsonrpc":"2.0","id":7,"result":{"task":{"taskId":"t","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000}}}"#;
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
        (
            "a task answer",
            http("200 OK", json, task),
            Some("unmodeled"),
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

/// Everything the prelude answers on its own, asked directly (the reference client never
/// lists tools, and no client sends every request there is): the 2025 handshake and a
/// notification, `tools/list` in both eras for every built-in case's tool, `server/discover`,
/// `ping`, an unknown method, a body that is not JSON, GET and DELETE.
pub fn prelude_trial(shared: &Shared, _: Run) -> Result<(), Outcome> {
    let mut items = Vec::new();
    for (at, source) in builtin().into_iter().enumerate() {
        let case = source.load().map_err(|e| e.to_string())?;
        // Its replies answer every POST, tools/list too: nothing there is the prelude's.
        if case.file.call.iter().any(|c| c.target == Target::EveryPost) {
            continue;
        }
        let server = WireServer::start(Arc::new(case.file)).map_err(|e| e.to_string())?;
        let asks = if at == 0 { every_ask() } else { list_asks() };
        for ask in asks {
            let response = exchange(server.addr(), &ask.raw())
                .map_err(|e| format!("{}: {} ({e})", case.id, ask.label))?;
            items.push(json!({"label": format!("{}: {}", case.id, ask.label),
                "version": ask.version, "method": ask.method, "id": ask.id, "response": response}));
        }
        server.stop();
    }
    let input = shared.scratch("prelude-exchanges.json");
    std::fs::write(&input, Value::Array(items).to_string()).map_err(|e| e.to_string())?;
    let seen = python_script(
        "validate_wire.py",
        &[OsStr::new("exchanges"), input.as_os_str()],
        &input.with_extension("out.json"),
    )?;
    let problems: Vec<String> = (seen["problems"].as_array().into_iter().flatten())
        .map(|p| format!("{} [{}]: {}", p["label"], p["part"], p["problem"]))
        .collect();
    same("prelude answers that are not valid MCP", problems, vec![])
}

/// One request to the prelude: what it is, the era it speaks, and its HTTP form.
struct Ask {
    label: &'static str,
    version: &'static str,
    method: &'static str,
    id: Value,
    http_method: &'static str,
    body: Option<String>,
    headers: Vec<(&'static str, String)>,
}

const MODERN: &str = "2026-07-28";
const SESSION: &str = "2025-11-25";

impl Ask {
    /// A POST of a JSON-RPC request (or, with `id` null, a notification) in `version`.
    fn post(label: &'static str, version: &'static str, method: &'static str, id: Value) -> Ask {
        let mut params = json!({});
        let mut headers = vec![("MCP-Protocol-Version", version.to_owned())];
        if version == MODERN {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "third-party", "version": "1"},
            });
            headers.push(("Mcp-Method", method.to_owned()));
        }
        if method == "initialize" {
            params = json!({"protocolVersion": version, "capabilities": {},
                            "clientInfo": {"name": "third-party", "version": "1"}});
            headers.clear();
        }
        let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        if !id.is_null() {
            message["id"] = id.clone();
        }
        Ask {
            label,
            version,
            method,
            id,
            http_method: "POST",
            body: Some(message.to_string()),
            headers,
        }
    }

    fn bare(label: &'static str, http_method: &'static str, body: Option<&str>) -> Ask {
        Ask {
            label,
            version: SESSION,
            method: "",
            id: Value::Null,
            http_method,
            body: body.map(str::to_owned),
            headers: Vec::new(),
        }
    }

    /// The request as bytes, closing the connection after the answer.
    fn raw(&self) -> String {
        let body = self.body.as_deref().unwrap_or_default();
        let mut head = format!(
            "{} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
             Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n",
            self.http_method
        );
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        format!("{head}Content-Length: {}\r\n\r\n{body}", body.len())
    }
}

/// `tools/list` in both eras: the case's tool as each advertises it.
fn list_asks() -> Vec<Ask> {
    vec![
        Ask::post("tools/list (2025)", SESSION, "tools/list", json!(2)),
        Ask::post("tools/list (2026)", MODERN, "tools/list", json!("list-1")),
    ]
}

fn every_ask() -> Vec<Ask> {
    let mut asks = vec![
        Ask::post(
            "initialize 2025-06-18",
            "2025-06-18",
            "initialize",
            json!(0),
        ),
        Ask::post(
            "initialize 2025-11-25",
            SESSION,
            "initialize",
            json!("init"),
        ),
        Ask::post(
            "initialized",
            SESSION,
            "notifications/initialized",
            Value::Null,
        ),
        Ask::post("ping (2025)", SESSION, "ping", json!(3)),
        // 2026-07-28 has no ping: a modern server does not know the method.
        Ask::post("ping (2026)", MODERN, "ping", json!("p")),
        Ask::post("unknown method (2025)", SESSION, "resources/list", json!(4)),
        Ask::post("unknown method (2026)", MODERN, "resources/list", json!(5)),
        Ask::post("server/discover", MODERN, "server/discover", json!(6)),
        Ask::bare("a body that is not JSON", "POST", Some("{not json")),
        Ask::bare("GET", "GET", None),
        Ask::bare("DELETE", "DELETE", None),
    ];
    asks.extend(list_asks());
    asks
}

/// Sends `raw` and reads the answer to the end (the request asked to close); bounded in time.
fn exchange(addr: SocketAddr, raw: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    stream.write_all(raw.as_bytes())?;
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

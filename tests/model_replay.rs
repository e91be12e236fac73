//! Requests captured from real agents (`tests/model-captures/`: Claude Code, Codex CLI, Gemini
//! CLI, Qwen Code, OpenCode, Copilot CLI, Continue, trimmed to the parts the scripted model
//! reads) replayed through the scripted model: it must find the case's tool under the agent's
//! naming in the first request, answer with a call the API's client can read, and extract from
//! the second request the tool result the agent built, with its error marking, as the capture
//! shows it; and judged against what the case's server sends, with the row's error marks, the
//! result names the outcome the row's README says the model was told.

use mcp_error_layers::adapter::process::agent::spec::AgentSpec;
use mcp_error_layers::model::told::{self, ModelFacts, Told};
use mcp_error_layers::model::{Api, ModelServer, Say};
use serde_json::Value;
use std::path::Path;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One capture: the agent's first request, the one after the tool ran, and what a reader of
/// the second sees (written from the capture, not from this crate's reader).
#[derive(serde::Deserialize)]
struct Capture {
    agent: String,
    api: String,
    /// The built-in case the agent ran.
    case: String,
    first: Sent,
    after: Sent,
    expect: Expect,
}

#[derive(serde::Deserialize)]
struct Sent {
    path: String,
    body: Value,
}

#[derive(serde::Deserialize)]
struct Expect {
    tool: String,
    call_id: String,
    text: String,
    flagged: Option<bool>,
    /// What the told result is judged to be.
    outcome: String,
}

fn captures() -> Vec<(String, Capture)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/model-captures");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&folder).expect("tests/model-captures is readable") {
        let path = entry.expect("a listing").path();
        let text = std::fs::read_to_string(&path).expect("a capture is readable");
        let capture: Capture =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        found.push((path.display().to_string(), capture));
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// POSTs `body` to `path` on the model at `url`; the response's head and body.
async fn post(url: &str, path: &str, body: &Value) -> (String, String) {
    post_text(url, path, &body.to_string()).await
}

/// POSTs the `body` text as it is (not necessarily what serde_json writes) to `path` on the
/// model at `url`; the response's head and body.
async fn post_text(url: &str, path: &str, body: &str) -> (String, String) {
    let address = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address)
        .await
        .expect("the model listens");
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .expect("a request goes out");
    let mut answer = String::new();
    stream
        .read_to_string(&mut answer)
        .await
        .expect("an answer comes");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
    (head.to_owned(), body.to_owned())
}

/// Sends a captured request in a task of its own: the model answers only once its turn is.
fn send(url: &str, sent: &Sent) -> tokio::task::JoinHandle<(String, String)> {
    let (url, path, body) = (url.to_owned(), sent.path.clone(), sent.body.clone());
    tokio::spawn(async move { post(&url, &path, &body).await })
}

fn api(name: &str) -> Api {
    match name {
        "anthropic" => Api::Anthropic,
        "responses" => Api::Responses,
        "chat" => Api::Chat,
        "gemini" => Api::Gemini,
        other => panic!("no API {other}"),
    }
}

#[test]
fn every_capture_has_its_call_answered_and_its_result_read() {
    let captures = captures();
    let apis: std::collections::BTreeSet<&str> =
        captures.iter().map(|(_, c)| c.api.as_str()).collect();
    assert_eq!(apis.len(), 4, "a capture of every model API: {apis:?}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (file, capture) in &captures {
        runtime.block_on(replay(file, capture));
    }
}

async fn replay(file: &str, capture: &Capture) {
    let mut model = ModelServer::start("synthetic").await.unwrap();
    let url = model.url().to_owned();
    let expect = &capture.expect;
    // The first request is a turn about the tool, under the agent's name for it.
    let first = send(&url, &capture.first);
    let turn = model.next_turn().await.expect("a turn");
    assert_eq!(turn.api, api(&capture.api), "{file}");
    assert_eq!(
        turn.tool, expect.tool,
        "{file}: the agent's name for the tool"
    );
    turn.answer(Say::Call {
        id: expect.call_id.clone(),
        arguments: serde_json::json!({"city": "Zürich"}),
    });
    let (head, body) = first.await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{file}: {head}");
    // The agent's own client reads the call out of this: its id, the tool's name (Codex's
    // namespace apart) and the arguments are there.
    let bare = expect.tool.rsplit("::").next().unwrap_or_default();
    for part in [expect.call_id.as_str(), bare, "city"] {
        assert!(
            body.contains(part),
            "{file}: the call's reply lacks {part:?}: {body}"
        );
    }
    // The second carries the result, read as the capture shows it.
    let after = send(&url, &capture.after);
    let turn = model.next_turn().await.expect("a second turn");
    let result = turn.results.last().cloned();
    let result = result.unwrap_or_else(|| panic!("{file}: no tool result read"));
    assert_eq!(result.call_id, expect.call_id, "{file} ({})", capture.agent);
    assert_eq!(result.text, expect.text, "{file} ({})", capture.agent);
    assert_eq!(result.flagged, expect.flagged, "{file} ({})", capture.agent);
    turn.answer(Say::Text("done.".into()));
    let (head, _) = after.await.unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{file}: {head}");
    assert_eq!(
        model.requests().len(),
        2,
        "{file}: both requests kept whole"
    );
    assert_eq!(
        model.requests()[1].body,
        capture.after.body.to_string(),
        "{file}"
    );
    assert_eq!(judged(capture, result), expect.outcome, "{file}");
}

/// The outcome `result` is judged to be: against the facts of the capture's case, with the
/// error marks of the agent's row.
fn judged(capture: &Capture, result: mcp_error_layers::model::api::ToolResult) -> String {
    let source = mcp_error_layers::case::builtin()
        .into_iter()
        .find(|source| source.id == capture.case)
        .unwrap_or_else(|| panic!("no built-in case {}", capture.case));
    let case = source.load().expect("a built-in case loads");
    let facts = ModelFacts::of_call(&case.file.call[0]);
    let row = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("harness/adapters")
        .join(&capture.agent);
    let spec = AgentSpec::load(&row).expect("the capture's agent is a row");
    let told = Told::result(result, &spec.error_marks, 1);
    told::judge(&told, &facts).outcome.as_str().to_owned()
}

/// POSTs the raw `body` text to `path` on the model at `url` ([`post_text`]), in a task of its
/// own; the response's head.
fn send_raw(url: &str, path: &str, body: &str) -> tokio::task::JoinHandle<String> {
    let (url, path, body) = (url.to_owned(), path.to_owned(), body.to_owned());
    tokio::spawn(async move { post_text(&url, &path, &body).await.0 })
}

/// An agent that tells the model a tool result holding a lone surrogate escape (legal JSON,
/// what JavaScript's `JSON.stringify` writes for a broken string) did tell it: the request is a
/// turn, and its result is read with its text, the escape kept as its own six characters.
#[test]
fn a_tool_result_holding_a_lone_surrogate_is_read_with_its_text() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut model = ModelServer::start("synthetic").await.unwrap();
        let url = model.url().to_owned();
        let tools = r#""tools":[{"name":"mcp__probe__synthetic","input_schema":{"type":"object"}}]"#;
        let first = format!(
            r#"{{"model":"m","max_tokens":1,{tools},"messages":[{{"role":"user","content":"go"}}]}}"#
        );
        let asked = send_raw(&url, "/v1/messages", &first);
        let turn = model.next_turn().await.expect("a turn");
        turn.answer(Say::Call {
            id: "toolu_1".into(),
            arguments: serde_json::json!({}),
        });
        assert!(asked.await.unwrap().starts_with("HTTP/1.1 200"));
        let after = format!(
            r#"{{"model":"m","max_tokens":1,{tools},"messages":[{{"role":"user","content":"go"}},
            {{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_1","name":"mcp__probe__synthetic","input":{{}}}}]}},
            {{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","is_error":false,
              "content":[{{"type":"text","text":"broken \ud800 string"}}]}}]}}]}}"#
        );
        assert!(serde_json::from_str::<Value>(&after).is_err(), "serde_json alone refuses it");
        let told = send_raw(&url, "/v1/messages", &after);
        let turn = model.next_turn().await.expect("the second request is a turn too");
        let result = turn.results.last().cloned().expect("a tool result read");
        assert_eq!(result.call_id, "toolu_1");
        assert_eq!(result.text, r"broken \ud800 string");
        assert_eq!(result.flagged, Some(false));
        turn.answer(Say::Text("done.".into()));
        assert!(told.await.unwrap().starts_with("HTTP/1.1 200"));
        assert_eq!(model.requests()[1].kind, "turn");
    });
}

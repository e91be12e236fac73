//! The load corpus: many small cases, each distinct, whose expectations tell one case's answer
//! from another's, for the load test (`tests/load.rs`) and the load bench (`benches/load.rs`).
//!
//! Case `i` is one of five kinds (`i % 5`): a JSON-RPC error whose code is unique to the case,
//! an HTTP 5xx whose status follows `i`, a tool error, a tool success, and headers then silence
//! (the client's own 200 ms timeout). Every call expects exactly one `tools/call` POST. A
//! client that reads another case's answer (cross-talk), sends to another case's server, or
//! is judged to hang while it was merely busy, fails its case. The test adapters
//! (`tests/adapters/oneshot.py`, `persistent.py`) and the reference client pass every case.

use mcp_error_layers::case::CaseSource;
use mcp_error_layers::engine::CaseRecord;
use mcp_error_layers::engine::Verdict;

/// The `count` cases, with ids `load/00000-<kind>`.
pub fn corpus(count: usize) -> Vec<CaseSource> {
    (0..count)
        .map(|i| {
            let (kind, text) = case(i);
            let id = format!("load/{i:05}-{kind}");
            CaseSource {
                origin: format!("{id}.toml"),
                id,
                text: Ok(text),
            }
        })
        .collect()
}

/// The JSON-RPC error code of case `i` (kind 0): no other case has it.
pub fn code(i: usize) -> i64 {
    -100_000 - i64::try_from(i).unwrap_or(i64::MAX - 100_000)
}

fn case(i: usize) -> (&'static str, String) {
    let success =
        r#"{"jsonrpc":"2.0","id":"$id","result":{"content":[{"type":"text","text":"ok"}]}}"#;
    match i % 5 {
        0 => {
            let code = code(i);
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":"$id","error":{{"code":{code},"message":"case {i}"}}}}"#
            );
            let expect =
                format!(r#"{{ outcome = "JSONRPC_ERROR", code = {code}, tool_posts = 1 }}"#);
            (
                "jsonrpc-error",
                call(&expect, &format!("status = 200\njson = '{body}'")),
            )
        }
        1 => {
            let status = 500 + i % 100;
            let expect =
                format!(r#"{{ outcome = "HTTP_ERROR", status = {status}, tool_posts = 1 }}"#);
            let reply =
                format!("status = {status}\nraw = 'case {i}'\ncontent_type = \"text/plain\"");
            ("http-error", call(&expect, &reply))
        }
        2 => {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":"$id","result":{{"isError":true,"content":[{{"type":"text","text":"case {i}"}}]}}}}"#
            );
            let expect = r#"{ outcome = "TOOL_ERROR", tool_posts = 1 }"#;
            (
                "tool-error",
                call(expect, &format!("status = 200\njson = '{body}'")),
            )
        }
        3 => {
            let expect = r#"{ outcome = "TOOL_SUCCESS", tool_posts = 1 }"#;
            (
                "tool-success",
                call(expect, &format!("status = 200\njson = '{success}'")),
            )
        }
        _ => {
            let expect = r#"{ outcome = "TIMEOUT", tool_posts = 1 }
timeout_ms = 200"#;
            let reply = "status = 200\ncontent_type = \"application/json\"\nend = \"stall\"";
            ("timeout", call(expect, reply))
        }
    }
}

fn call(expect: &str, reply: &str) -> String {
    format!("summary = \"a load case\"\n[[call]]\nexpect = {expect}\n[[call.reply]]\n{reply}\n")
}

/// Every record that did not pass, with why: empty when the run had no false verdict.
pub fn misjudged(records: &[CaseRecord]) -> Vec<String> {
    records
        .iter()
        .filter(|r| r.verdict != Verdict::Pass)
        .map(|r| {
            let problems: Vec<String> = r.calls.iter().flat_map(|c| c.all_problems()).collect();
            let logs: Vec<&str> = r
                .calls
                .iter()
                .filter_map(|c| c.adapter_log.as_deref())
                .collect();
            let error = r.error.as_deref().unwrap_or("");
            format!("{} {}: {error} {problems:?}; log {logs:?}", r.id, r.verdict)
        })
        .collect()
}

/// How many records are hangs.
pub fn hangs(records: &[CaseRecord]) -> usize {
    records
        .iter()
        .filter(|r| r.verdict == Verdict::Hang)
        .count()
}

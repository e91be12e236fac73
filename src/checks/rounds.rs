//! Repeated `tools/call` requests within one call: each is a new request with a new id, and
//! one that answers an `input_required` result follows MRTR's rules (2026-07-28).

use super::{Request, Requests, Tally, answer_message};
use crate::case::Grade;
use serde_json::Value;

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    let calls: Vec<&Request> = requests
        .list
        .iter()
        .filter(|r| r.is_post() && r.method() == Some("tools/call"))
        .collect();
    for (at, request) in calls.iter().enumerate().skip(1) {
        tally.record("new-request-id", Grade::Must, new_id(request, &calls[..at]));
        let previous = calls[at - 1];
        let asked = requests.script_reply(previous).and_then(answer_message);
        if let Some(asked) = asked.as_ref().and_then(input_required) {
            tally.record(
                "mrtr-request-state",
                Grade::Must,
                request_state(request, asked),
            );
            if let Some(keys) = asked.get("inputRequests").and_then(Value::as_object) {
                let keys: Vec<&String> = keys.keys().collect();
                tally.record(
                    "mrtr-input-responses",
                    Grade::Must,
                    responses(request, &keys),
                );
            }
        }
    }
}

/// The `result` of an `input_required` answer.
fn input_required(message: &Value) -> Option<&Value> {
    let result = message.get("result")?;
    (result.get("resultType")? == "input_required").then_some(result)
}

/// Ids must differ from the earlier ones of the same session (a new 2025 session starts its
/// ids afresh); 2026-07-28 has no sessions, so there all earlier requests count.
fn new_id(request: &Request, earlier: &[&Request]) -> Result<(), String> {
    let id = request.id();
    let session = request.header("mcp-session-id");
    let same = |e: &&&Request| e.id() == id && e.header("mcp-session-id") == session;
    match earlier.iter().find(same) {
        Some(same) => Err(format!(
            "{}: reuses the id {} of {}",
            request.label,
            id.map(Value::to_string).unwrap_or_default(),
            same.label
        )),
        None => Ok(()),
    }
}

/// `requestState` is echoed exactly when the server sent one and absent when it did not.
fn request_state(request: &Request, asked: &Value) -> Result<(), String> {
    let sent = asked.get("requestState");
    let echoed = request.message.pointer("/params/requestState");
    match (sent, echoed) {
        (Some(s), Some(e)) if s == e => Ok(()),
        (None, None) => Ok(()),
        (Some(s), Some(e)) => Err(format!(
            "{}: requestState {e} is not the {s} the server sent",
            request.label
        )),
        (Some(s), None) => Err(format!(
            "{}: requestState {s} was not echoed",
            request.label
        )),
        (None, Some(e)) => Err(format!(
            "{}: sends requestState {e} although the server sent none",
            request.label
        )),
    }
}

/// Every key of `inputRequests` has an answer in `inputResponses`.
fn responses(request: &Request, keys: &[&String]) -> Result<(), String> {
    let answers = request.message.pointer("/params/inputResponses");
    let Some(answers) = answers.and_then(Value::as_object) else {
        return Err(format!("{}: no inputResponses object", request.label));
    };
    match keys.iter().find(|k| !answers.contains_key(k.as_str())) {
        Some(missing) => Err(format!(
            "{}: inputResponses has no answer for {missing:?}",
            request.label
        )),
        None => Ok(()),
    }
}

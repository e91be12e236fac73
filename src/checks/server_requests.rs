//! Requests the server sends inside a `tools/call` response stream, before the response.
//!
//! 2025-11-25 (basic/transports, "Sending Messages to the Server"): the server MAY send requests
//! on the stream; the client answers each with a POSTed response carrying the request's id
//! (the same JSON value: `7` and `"7"` differ). What the answer must say depends on the method:
//! - `ping`: "The receiver MUST respond promptly with an empty response" (basic/utilities/ping);
//! - `elicitation/create` in a mode the client did not declare: "-32602" (MUST,
//!   client/elicitation, "Error Handling"); from a client without elicitation at all, -32601
//!   too (the schema's `MethodNotFoundError`: a capability the client did not declare);
//! - `roots/list` from a client without roots: "-32601" (SHOULD, client/roots);
//! - `sampling/createMessage` the client does not take: an error (SHOULD, client/sampling).
//!
//! The answer must come before the result: the server holds the stream back (the event's
//! `await_answer_ms`) and records whether it came in time.
//!
//! 2026-07-28 turns this around: the server "MUST NOT send independent JSON-RPC requests" on
//! the stream and "The client MUST NOT send JSON-RPC responses" (streamable-http, "Sending
//! Messages to the Server"); such a request is the server's mistake and gets no answer.

use super::{Request, Requests, Tally};
use crate::case::Grade;
use serde_json::Value;

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    // The request whose scripted reply carried the server's requests (a `tools/call`).
    for carrier in requests.list.iter() {
        let Some(reply) = requests.script_reply(carrier) else {
            continue;
        };
        for asked in reply.event.iter().filter_map(|e| e.server_request()) {
            if carrier.modern {
                tally.record("no-modern-response", Grade::Must, no_response(requests));
                continue;
            }
            let method = asked["method"].as_str().unwrap_or_default();
            let Some((name, grade)) = rule(method) else {
                continue;
            };
            let result = answered(requests, carrier, &asked).and_then(|answer| {
                let declared = declared(requests);
                judge(method, &asked, &answer.message, &declared)
                    .map_err(|why| format!("{} {why}", answer.label))
            });
            tally.record(name, grade, result);
        }
    }
}

/// The check and grade that judge the answer to a server request with this method.
fn rule(method: &str) -> Option<(&'static str, Grade)> {
    match method {
        "ping" => Some(("ping-answered", Grade::Must)),
        "elicitation/create" => Some(("elicitation-answered", Grade::Must)),
        "roots/list" => Some(("roots-answered", Grade::Should)),
        "sampling/createMessage" => Some(("sampling-answered", Grade::Should)),
        _ => None,
    }
}

/// The client's answer to `asked`, POSTed while the server held the stream of `carrier` back
/// for it; or why there is none.
fn answered<'r>(
    requests: &'r Requests,
    carrier: &Request,
    asked: &Value,
) -> Result<&'r Request<'r>, String> {
    let id = &asked["id"];
    let method = asked["method"].as_str().unwrap_or_default();
    let responses = || requests.list.iter().filter(|r| r.is_response());
    let Some(answer) = responses().find(|r| r.id() == Some(id)) else {
        return Err(match responses().next() {
            Some(other) => format!(
                "{} answered id {}, not the id {id} of the server's {method}",
                other.label,
                other.id().map_or_else(|| "none".into(), shown_id)
            ),
            None => format!("no answer to the server's {method} (id {id}) was POSTed"),
        });
    };
    let in_time = carrier
        .exchange
        .reply
        .awaited
        .iter()
        .find(|w| &w.id == id)
        .is_none_or(|w| w.answered);
    if !in_time {
        return Err(format!(
            "{} answered the server's {method} only after the server gave up waiting and sent \
             the rest of the stream",
            answer.label
        ));
    }
    Ok(answer)
}

/// An id as the detail shows it, with its JSON type when it is a string that reads as a number
/// (the mistake this catches).
fn shown_id(id: &Value) -> String {
    match id {
        Value::String(s) if s.parse::<f64>().is_ok() => format!("{id} (a string)"),
        _ => id.to_string(),
    }
}

/// What the client declared at `initialize` (`params.capabilities`), `Null` without one.
fn declared(requests: &Requests) -> Value {
    requests
        .list
        .iter()
        .find(|r| r.method() == Some("initialize"))
        .and_then(|r| r.message.pointer("/params/capabilities"))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Whether `answer` is right for a server request with `method`; the error says what it said.
fn judge(method: &str, asked: &Value, answer: &Value, declared: &Value) -> Result<(), String> {
    let said = said(answer);
    match method {
        "ping" => {
            let empty = answer
                .get("result")
                .and_then(Value::as_object)
                .is_some_and(|r| r.keys().all(|k| k == "_meta"));
            if empty {
                Ok(())
            } else {
                Err(format!("answered ping with {said}, not an empty result"))
            }
        }
        "elicitation/create" => {
            let mode = asked
                .pointer("/params/mode")
                .and_then(Value::as_str)
                .unwrap_or("form");
            match elicitation_modes(declared) {
                Some(modes) if modes.contains(&mode) => Ok(()),
                // Elicitation, but not this mode: the elicitation page's -32602.
                Some(_) => expect_code(
                    &said,
                    answer,
                    &[-32602],
                    &format!("elicitation/create in {mode} mode (not a declared mode)"),
                ),
                // No elicitation at all: a capability not declared is -32601 (the schema's
                // MethodNotFoundError), and the elicitation page's -32602 reads on it too.
                None => expect_code(
                    &said,
                    answer,
                    &[-32602, -32601],
                    &format!("elicitation/create in {mode} mode (no elicitation declared)"),
                ),
            }
        }
        "roots/list" if declared.get("roots").is_none() => {
            expect_code(&said, answer, &[-32601], "roots/list (no roots declared)")
        }
        "sampling/createMessage" if declared.get("sampling").is_none() => expect_code(
            &said,
            answer,
            &[],
            "sampling/createMessage (no sampling declared)",
        ),
        _ => Ok(()),
    }
}

/// The elicitation modes the client declared, `None` without the capability. 2025-11-25
/// client/elicitation: `"elicitation": {}` declares form mode only.
fn elicitation_modes(declared: &Value) -> Option<Vec<&str>> {
    let modes = declared.get("elicitation")?.as_object()?;
    if modes.is_empty() {
        return Some(vec!["form"]);
    }
    Some(modes.keys().map(String::as_str).collect())
}

/// `Ok` when the answer is an error with one of `codes` (any code when `codes` is empty).
fn expect_code(said: &str, answer: &Value, codes: &[i64], what: &str) -> Result<(), String> {
    match error_code(answer) {
        Some(code) if codes.is_empty() || codes.contains(&code) => Ok(()),
        _ if codes.is_empty() => Err(format!("answered {what} with {said}, not an error")),
        _ => {
            let wanted: Vec<String> = codes.iter().map(i64::to_string).collect();
            Err(format!(
                "answered {what} with {said}, not an error with code {}",
                wanted.join(" or ")
            ))
        }
    }
}

fn error_code(answer: &Value) -> Option<i64> {
    answer.pointer("/error/code").and_then(Value::as_i64)
}

/// What an answer said, for a detail: `a result {..}` or `error -32601`.
fn said(answer: &Value) -> String {
    match (answer.get("result"), error_code(answer)) {
        (Some(result), _) => format!("a result {}", short(result)),
        (None, Some(code)) => format!("error {code}"),
        (None, None) => format!(
            "an error without an integer code: {}",
            short(&answer["error"])
        ),
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

/// 2026-07-28: no POST of the call is a JSON-RPC response.
fn no_response(requests: &Requests) -> Result<(), String> {
    match requests.list.iter().find(|r| r.is_response()) {
        Some(answer) => Err(format!(
            "{} is a JSON-RPC response, which a 2026-07-28 client must not send (it answered a \
             request the server must not send on the stream)",
            answer.label
        )),
        None => Ok(()),
    }
}

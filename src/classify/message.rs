//! The message rules: is one JSON value a JSON-RPC response to our request, and if so, what
//! does it say? Shared by `application/json` bodies and the first response in an SSE stream.

use super::Classification;
use super::text::{TEXT_CHARS, kind, one_line, show};
use crate::outcome::Outcome;
use serde_json::{Map, Value};

/// Classifies one parsed JSON-RPC message as the response to the request with `request_id`.
///
/// This is the protocol part of the classifier on its own, for callers that already hold the
/// message (a gateway, a stdio transport). It checks, in order: the envelope
/// ([`Outcome::InvalidEnvelope`]), a JSON-RPC error ([`Outcome::JsonrpcError`]), the shape of
/// the result ([`Outcome::InvalidToolResult`]), then what the result says
/// ([`Outcome::InputRequired`], [`Outcome::ToolError`], [`Outcome::ToolSuccess`]).
///
/// The returned classification has no `status`: the caller knows whether there was one.
pub fn classify_message(message: &Value, request_id: &Value) -> Classification {
    match check_envelope(message, request_id) {
        Err(reason) => decide(Outcome::InvalidEnvelope, reason),
        Ok(Payload::Error {
            code,
            message: text,
        }) => Classification {
            code: Some(code),
            ..decide(Outcome::JsonrpcError, error_words(code, text, message))
        },
        Ok(Payload::Result(result)) => classify_result(result),
    }
}

/// `JSON-RPC error -32603: message (data: ...)`: the error's words, its `data` too when it
/// has one (a bridge may put an upstream HTTP status there).
fn error_words(code: i64, text: &str, message: &Value) -> String {
    let mut words = format!("JSON-RPC error {code}: {}", one_line(text, TEXT_CHARS));
    let data = match message.get("error").and_then(|e| e.get("data")) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    if !data.trim().is_empty() {
        words.push_str(&format!(" (data: {})", one_line(&data, TEXT_CHARS)));
    }
    words
}

/// What a well-formed response carries.
enum Payload<'a> {
    Result(&'a Value),
    Error { code: i64, message: &'a str },
}

fn decide(outcome: Outcome, reason: impl Into<String>) -> Classification {
    Classification {
        outcome,
        status: None,
        code: None,
        reason: reason.into(),
    }
}

/// JSON-RPC 2.0 envelope rules; the error is the reason the envelope is invalid.
fn check_envelope<'a>(message: &'a Value, request_id: &Value) -> Result<Payload<'a>, String> {
    let Some(object) = message.as_object() else {
        return Err(match message {
            Value::Array(_) => "response is a JSON array (a batch), not an object".to_owned(),
            other => format!("response is {}, not an object", kind(other)),
        });
    };
    check_version(object.get("jsonrpc"))?;
    match (object.get("result"), object.get("error")) {
        (Some(_), Some(_)) => Err("response has both `result` and `error`".to_owned()),
        (None, None) => Err("response has neither `result` nor `error`".to_owned()),
        (Some(result), None) => {
            check_result_id(object.get("id"), request_id)?;
            Ok(Payload::Result(result))
        }
        (None, Some(error)) => {
            let (code, message) = check_error_object(error)?;
            check_error_id(object.get("id"), request_id)?;
            Ok(Payload::Error { code, message })
        }
    }
}

fn check_version(version: Option<&Value>) -> Result<(), String> {
    match version {
        Some(Value::String(v)) if v == "2.0" => Ok(()),
        None => Err("`jsonrpc` is missing".to_owned()),
        Some(other) => Err(format!("`jsonrpc` is {} instead of \"2.0\"", show(other))),
    }
}

/// A result response must echo the request id exactly (serde_json equality: `1` and `"1"`
/// differ, and so do `1` and `1.0`).
fn check_result_id(id: Option<&Value>, request_id: &Value) -> Result<(), String> {
    match id {
        Some(id) if id == request_id => Ok(()),
        None => Err("result response has no `id`".to_owned()),
        Some(Value::Null) => Err("result response has `id` null".to_owned()),
        Some(id) => Err(id_differs(id, request_id)),
    }
}

/// An error response may lack the id (missing or null) when the server could not read the
/// request's id; any other id must be the request's.
fn check_error_id(id: Option<&Value>, request_id: &Value) -> Result<(), String> {
    match id {
        None | Some(Value::Null) => Ok(()),
        Some(id) if id == request_id => Ok(()),
        Some(id) => Err(id_differs(id, request_id)),
    }
}

fn id_differs(id: &Value, request_id: &Value) -> String {
    format!(
        "response id {} differs from request id {}",
        show(id),
        show(request_id)
    )
}

/// `error` must be an object with an integer `code` (one that fits `i64`; `1.0` is a float)
/// and a string `message`.
fn check_error_object(error: &Value) -> Result<(i64, &str), String> {
    let Some(object) = error.as_object() else {
        return Err(format!("`error` is {}, not an object", kind(error)));
    };
    let code = match object.get("code") {
        None => return Err("error object has no `code`".to_owned()),
        Some(code) => code
            .as_i64()
            .ok_or_else(|| format!("error code {} is not an integer", show(code)))?,
    };
    match object.get("message") {
        Some(Value::String(message)) => Ok((code, message)),
        None => Err("error object has no `message`".to_owned()),
        Some(other) => Err(format!("error `message` is {}, not a string", kind(other))),
    }
}

/// The result of a `tools/call`: a `CallToolResult` or an `InputRequiredResult`.
fn classify_result(result: &Value) -> Classification {
    let Some(object) = result.as_object() else {
        return invalid_result(format!("`result` is {}, not an object", kind(result)));
    };
    // An absent resultType is "complete" (normative since 2026-07-28, and how older results
    // without the field must be read).
    match object.get("resultType") {
        None => complete_result(object),
        Some(Value::String(t)) if t == "complete" => complete_result(object),
        Some(Value::String(t)) if t == "input_required" => input_required(object),
        Some(other) => invalid_result(format!("unrecognised `resultType` {}", show(other))),
    }
}

fn invalid_result(reason: String) -> Classification {
    decide(Outcome::InvalidToolResult, reason)
}

fn complete_result(object: &Map<String, Value>) -> Classification {
    match object.get("content") {
        Some(Value::Array(_)) => {}
        None => return invalid_result("tool result has no `content`".to_owned()),
        Some(other) => {
            return invalid_result(format!("`content` is {}, not an array", kind(other)));
        }
    }
    match object.get("isError") {
        None => decide(Outcome::ToolSuccess, "tool result without `isError`"),
        Some(Value::Bool(false)) => {
            decide(Outcome::ToolSuccess, "tool result with `isError` false")
        }
        Some(Value::Bool(true)) => decide(Outcome::ToolError, "tool result with `isError` true"),
        Some(other) => invalid_result(format!("`isError` is {}, not a boolean", show(other))),
    }
}

/// MRTR: at least one of `inputRequests` (an object) and `requestState` (a string). A member
/// that is present with the wrong type makes the result invalid even when the other is fine.
fn input_required(object: &Map<String, Value>) -> Classification {
    let requests = object.get("inputRequests");
    let state = object.get("requestState");
    if let Some(other) = requests.filter(|v| !v.is_object()) {
        return invalid_result(format!("`inputRequests` is {}, not an object", kind(other)));
    }
    if let Some(other) = state.filter(|v| !v.is_string()) {
        return invalid_result(format!("`requestState` is {}, not a string", kind(other)));
    }
    let reason = match (requests.is_some(), state.is_some()) {
        (false, false) => {
            return invalid_result(
                "input_required result has neither `inputRequests` nor `requestState`".to_owned(),
            );
        }
        (true, true) => "input_required result with `inputRequests` and `requestState`",
        (true, false) => "input_required result with `inputRequests`",
        (false, true) => "input_required result with `requestState` only",
    };
    decide(Outcome::InputRequired, reason)
}

//! Gemini (`POST …/models/M:generateContent`, `:streamGenerateContent`): tools in
//! `tools[].functionDeclarations[].name`, results as `functionResponse` parts (`id` or `name`,
//! and a `response` object whose `error` key marks a failure, as Gemini's docs suggest), replies
//! as a candidate or its stream.

use super::{Body, Framing, MODEL, Reply, ToolResult, json, sse, text_of};
use serde_json::{Value, json};

pub(super) fn tools(request: &Value) -> Vec<String> {
    let tools = request.get("tools").and_then(Value::as_array);
    let declarations = tools
        .into_iter()
        .flatten()
        .filter_map(|tool| tool.get("functionDeclarations").and_then(Value::as_array))
        .flatten();
    declarations
        .filter_map(|declaration| declaration.get("name").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

pub(super) fn results(request: &Value) -> Vec<ToolResult> {
    let contents = request.get("contents").and_then(Value::as_array);
    let parts = contents
        .into_iter()
        .flatten()
        .filter_map(|content| content.get("parts").and_then(Value::as_array))
        .flatten();
    parts
        .filter_map(|part| part.get("functionResponse"))
        .map(|response| {
            let id = response.get("id").or_else(|| response.get("name"));
            let body = response.get("response").unwrap_or(&Value::Null);
            ToolResult {
                call_id: id.and_then(Value::as_str).unwrap_or_default().to_owned(),
                text: response_text(body),
                flagged: body
                    .get("error")
                    .is_some_and(|e| !e.is_null())
                    .then_some(true),
            }
        })
        .collect()
}

/// The text of a `functionResponse.response`: its `error`, else its `output`, else its
/// `content`, else the whole object as JSON.
fn response_text(body: &Value) -> String {
    for key in ["error", "output", "content"] {
        if let Some(value) = body.get(key).filter(|v| !v.is_null()) {
            return match value {
                Value::Object(_) if value.get("message").is_some() => {
                    text_of(value.get("message").unwrap_or(&Value::Null))
                }
                Value::Object(_) => value.to_string(),
                _ => text_of(value),
            };
        }
    }
    body.to_string()
}

pub(super) fn reply(reply: Reply<'_>, framing: Framing) -> Body {
    let part = match reply {
        Reply::Call {
            id,
            name,
            arguments,
        } => json!({"functionCall": {"id": id, "name": name, "args": arguments}}),
        Reply::Text(text) => json!({"text": text}),
    };
    let chunk = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]},
                        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                          "totalTokenCount": 2},
        "modelVersion": MODEL
    });
    match framing {
        Framing::Json => json(&chunk),
        Framing::JsonArray => json(&json!([chunk])),
        Framing::Sse => sse([(None, chunk)]),
    }
}

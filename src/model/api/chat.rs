//! OpenAI Chat Completions (`POST /v1/chat/completions`): tools in `tools[].function.name`,
//! results as `role: "tool"` messages (`tool_call_id`, `content`: no error flag), replies as a
//! completion or its chunks.

use super::{Body, Framing, MODEL, Reply, ToolResult, arguments_text, json, sse, text_of};
use serde_json::{Value, json};

pub(super) fn tools(request: &Value) -> Vec<String> {
    let tools = request.get("tools").and_then(Value::as_array);
    let names = tools.into_iter().flatten().filter_map(|tool| {
        tool.pointer("/function/name")
            .or_else(|| tool.get("name"))
            .and_then(Value::as_str)
    });
    names.map(str::to_owned).collect()
}

pub(super) fn results(request: &Value) -> Vec<ToolResult> {
    let messages = request.get("messages").and_then(Value::as_array);
    let messages = messages.into_iter().flatten();
    messages
        .filter(|message| message.get("role").and_then(Value::as_str) == Some("tool"))
        .map(|message| ToolResult {
            call_id: message
                .get("tool_call_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            text: text_of(message.get("content").unwrap_or(&Value::Null)),
            flagged: None,
        })
        .collect()
}

pub(super) fn reply(reply: Reply<'_>, framing: Framing, request: &Value) -> Body {
    let (message, finish) = match reply {
        Reply::Call {
            id,
            name,
            arguments,
        } => (
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"index": 0, "id": id, "type": "function",
                 "function": {"name": name, "arguments": arguments_text(arguments)}}]}),
            "tool_calls",
        ),
        Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
    };
    let usage = json!({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2});
    let completion = |object: &str, choices: Value| {
        json!({"id": "chatcmpl-scripted", "object": object, "created": 0, "model": MODEL,
               "choices": choices})
    };
    if framing != Framing::Sse {
        let mut body = completion(
            "chat.completion",
            json!([{"index": 0, "message": message, "finish_reason": finish}]),
        );
        body["usage"] = usage;
        return json(&body);
    }
    let chunk = "chat.completion.chunk";
    let mut chunks = vec![
        completion(
            chunk,
            json!([{"index": 0, "delta": message, "finish_reason": null}]),
        ),
        completion(
            chunk,
            json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
        ),
    ];
    if request.pointer("/stream_options/include_usage") == Some(&Value::Bool(true)) {
        let mut last = completion(chunk, json!([]));
        last["usage"] = usage;
        chunks.push(last);
    }
    let mut body = sse(chunks.into_iter().map(|chunk| (None, chunk)));
    body.bytes.extend_from_slice(b"data: [DONE]\n\n");
    body
}

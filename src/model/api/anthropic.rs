//! Anthropic Messages (`POST /v1/messages`): tools in `tools[].name`, results as `tool_result`
//! blocks of a user message (`tool_use_id`, `content`, `is_error`), replies as a message or its
//! event stream.

use super::{Body, Framing, MODEL, Reply, ToolResult, json, sse, text_of};
use serde_json::{Value, json};

pub(super) fn tools(request: &Value) -> Vec<String> {
    let tools = request.get("tools").and_then(Value::as_array);
    let names = tools.into_iter().flatten();
    names
        .filter_map(|tool| tool.get("name").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

pub(super) fn results(request: &Value) -> Vec<ToolResult> {
    let messages = request.get("messages").and_then(Value::as_array);
    let blocks = messages
        .into_iter()
        .flatten()
        .filter_map(|message| message.get("content").and_then(Value::as_array))
        .flatten();
    blocks
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
        .map(|block| ToolResult {
            call_id: block
                .get("tool_use_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            text: text_of(block.get("content").unwrap_or(&Value::Null)),
            flagged: Some(block.get("is_error") == Some(&Value::Bool(true))),
        })
        .collect()
}

pub(super) fn reply(reply: Reply<'_>, framing: Framing) -> Body {
    let (block, stop) = match reply {
        Reply::Call {
            id,
            name,
            arguments,
        } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": arguments}),
            "tool_use",
        ),
        Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
    };
    let usage = json!({"input_tokens": 1, "output_tokens": 1});
    let message = |content: Value, stop: Value| {
        json!({"id": "msg_scripted", "type": "message", "role": "assistant", "model": MODEL,
               "content": content, "stop_reason": stop, "stop_sequence": null, "usage": usage})
    };
    if framing != Framing::Sse {
        return json(&message(json!([block]), json!(stop)));
    }
    let (start, delta) = match reply {
        Reply::Call { arguments, .. } => {
            let mut start = block.clone();
            start["input"] = json!({});
            let partial = arguments.to_string();
            (
                start,
                json!({"type": "input_json_delta", "partial_json": partial}),
            )
        }
        Reply::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
    };
    sse([
        (
            Some("message_start"),
            json!({"type": "message_start", "message": message(json!([]), Value::Null)}),
        ),
        (
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"output_tokens": 1}}),
        ),
        (Some("message_stop"), json!({"type": "message_stop"})),
    ])
}

//! OpenAI Responses (`POST /v1/responses`): tools in `tools[].name` (a function tool),
//! `tools[].function.name`, or inside a namespace tool (`{"type": "namespace", "name":
//! "mcp__probe", "tools": [...]}`, Codex's way with MCP tools, named here
//! `mcp__probe::synthetic`); results as `function_call_output` input items (`call_id`,
//! `output`: no error flag), replies as a response object or its event stream.

use super::{Body, Framing, MODEL, Reply, ToolResult, arguments_text, json, sse, text_of};
use serde_json::{Value, json};

/// How a tool inside a namespace tool is named: `namespace::name`.
const NAMESPACED: &str = "::";

pub(super) fn tools(request: &Value) -> Vec<String> {
    let tools = request.get("tools").and_then(Value::as_array);
    let mut names = Vec::new();
    for tool in tools.into_iter().flatten() {
        let name = tool
            .get("name")
            .or_else(|| tool.pointer("/function/name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        match tool.get("type").and_then(Value::as_str) {
            Some("namespace") => {
                let inner = tool
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten();
                let inner = inner.filter_map(|t| t.get("name").and_then(Value::as_str));
                names.extend(inner.map(|n| format!("{name}{NAMESPACED}{n}")));
            }
            _ => names.push(name.to_owned()),
        }
    }
    names.retain(|name| !name.is_empty());
    names
}

pub(super) fn results(request: &Value) -> Vec<ToolResult> {
    let input = request.get("input").and_then(Value::as_array);
    let items = input.into_iter().flatten();
    items
        .filter(|item| item.get("type").and_then(Value::as_str) == Some("function_call_output"))
        .map(|item| ToolResult {
            call_id: item
                .get("call_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            text: text_of(item.get("output").unwrap_or(&Value::Null)),
            flagged: None,
        })
        .collect()
}

pub(super) fn reply(reply: Reply<'_>, framing: Framing) -> Body {
    let item = match reply {
        Reply::Call {
            id,
            name,
            arguments,
        } => {
            let mut item = json!({"type": "function_call", "id": format!("fc_{id}"),
                                  "call_id": id, "name": name,
                                  "arguments": arguments_text(arguments), "status": "completed"});
            if let Some((namespace, name)) = name.split_once(NAMESPACED) {
                item["namespace"] = json!(namespace);
                item["name"] = json!(name);
            }
            item
        }
        Reply::Text(text) => json!({"type": "message", "id": "msg_scripted", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}),
    };
    let response = |status: &str, output: Value| {
        json!({"id": "resp_scripted", "object": "response", "created_at": 0, "status": status,
               "model": MODEL, "output": output,
               "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                         "input_tokens_details": {"cached_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": 0}}})
    };
    if framing != Framing::Sse {
        return json(&response("completed", json!([item])));
    }
    let events = [
        (
            "response.created",
            json!({"response": response("in_progress", json!([]))}),
        ),
        (
            "response.output_item.added",
            json!({"output_index": 0, "item": item}),
        ),
        (
            "response.output_item.done",
            json!({"output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"response": response("completed", json!([item]))}),
        ),
    ];
    sse(events.into_iter().enumerate().map(|(n, (name, mut data))| {
        data["type"] = json!(name);
        data["sequence_number"] = json!(n);
        (Some(name), data)
    }))
}

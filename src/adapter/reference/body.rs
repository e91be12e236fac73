//! Finding a response again in a body the classifier already judged: the `result` of an
//! `initialize` or an `input_required`, the `error` of a 4xx.

use super::exchange::Reply;
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;

/// The JSON-RPC message with `id` in the reply's JSON or SSE body (for an HTTP error, the
/// body's message whatever its id).
pub(super) fn message(reply: &Reply, id: &Value) -> Option<Value> {
    let content_type = reply
        .headers
        .as_ref()
        .and_then(|h| h.get(CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    find(&reply.body, content_type, id)
}

/// The `result` of the response to `id`.
pub(super) fn result(reply: &Reply, id: &Value) -> Option<Value> {
    message(reply, id).and_then(|mut m| m.get_mut("result").map(Value::take))
}

/// The JSON body of an error answer, whatever its id (a 4xx may carry `id: null`).
pub(super) fn error_body(reply: &Reply) -> Option<Value> {
    serde_json::from_slice(&reply.body).ok()
}

fn find(body: &[u8], content_type: &str, id: &Value) -> Option<Value> {
    let text = String::from_utf8_lossy(body);
    let is_sse = content_type
        .trim_start()
        .to_ascii_lowercase()
        .starts_with("text/event-stream");
    let messages: Vec<String> = if is_sse {
        sse_data(&text)
    } else {
        vec![text.into_owned()]
    };
    messages
        .iter()
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|message| message.get("id") == Some(id))
}

/// The `data` of each SSE event in `text` (the classifier already vouched for the framing; this
/// only needs to find the response again).
fn sse_data(text: &str) -> Vec<String> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    normalized
        .split("\n\n")
        .map(|event| {
            event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|data| !data.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result_of(body: &[u8], content_type: &str, id: &Value) -> Option<Value> {
        find(body, content_type, id).and_then(|mut m| m.get_mut("result").map(Value::take))
    }

    #[test]
    fn finds_the_result_in_an_sse_body_after_a_notification() {
        let body = b": keep-alive\r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\r\ndata: \"result\":{\"protocolVersion\":\"2025-06-18\"}}\r\n\r\n";
        let result = result_of(body, "text/event-stream", &json!(1));
        assert_eq!(result, Some(json!({"protocolVersion": "2025-06-18"})));
    }

    #[test]
    fn finds_the_result_in_a_json_body_and_checks_the_id() {
        let body = br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#;
        let found = result_of(body, "application/json; charset=utf-8", &json!(1));
        assert_eq!(found, Some(json!({"protocolVersion": "2025-11-25"})));
        assert_eq!(result_of(body, "application/json", &json!(2)), None);
    }
}

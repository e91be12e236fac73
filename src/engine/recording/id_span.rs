//! Where a JSON-RPC response's `id` stands in its text, so that a recorded body can get its
//! `"$id"` placeholder without being re-serialized (which would change its bytes).

use serde_json::Value;

/// `text` with the value of its top-level `"id"` member replaced by `placeholder` (a JSON
/// string such as `"$id"`), when `text` is a JSON-RPC response (an object without `method`)
/// whose id is `request_id`. `None` otherwise: the text stays as it is.
pub fn mark_id(text: &str, request_id: &Value, placeholder: &str) -> Option<String> {
    let message: Value = serde_json::from_str(text).ok()?;
    let is_response = message.is_object() && message.get("method").is_none();
    if !is_response || message.get("id") != Some(request_id) || request_id.is_null() {
        return None;
    }
    let (start, end) = top_level_value(text, "id")?;
    Some(format!("{}{placeholder}{}", &text[..start], &text[end..]))
}

/// `text` with the `params.progressToken` of a `notifications/progress` replaced by
/// `"$progress_token"`, when it is `token`. `None` otherwise.
pub fn mark_progress_token(text: &str, token: &Value) -> Option<String> {
    let message: Value = serde_json::from_str(text).ok()?;
    let is_progress = message.get("method") == Some(&Value::from("notifications/progress"));
    if !is_progress || message.pointer("/params/progressToken") != Some(token) {
        return None;
    }
    let (params_start, params_end) = top_level_value(text, "params")?;
    let params = &text[params_start..params_end];
    let (start, end) = top_level_value(params, "progressToken")?;
    let (start, end) = (params_start + start, params_start + end);
    Some(format!(
        "{}\"$progress_token\"{}",
        &text[..start],
        &text[end..]
    ))
}

/// The byte range of the value of the top-level member `key` of the JSON object `text` (valid
/// JSON, checked by the caller). Keys are compared as written (an escaped key is not found).
fn top_level_value(text: &str, key: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    let mut expecting_key = false;
    while at < bytes.len() {
        match bytes[at] {
            b'{' => {
                depth = depth.saturating_add(1);
                expecting_key = depth == 1;
            }
            b'[' => depth = depth.saturating_add(1),
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => expecting_key = true,
            b'"' => {
                let end = string_end(bytes, at)?;
                if expecting_key && depth == 1 {
                    expecting_key = false;
                    if &text[at + 1..end] == key {
                        return value_after_colon(bytes, end + 1);
                    }
                }
                at = end;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The index of the quote that closes the string opening at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

/// The index of the bracket that closes the object or array opening at `start`.
fn container_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = start;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at)?,
            b'{' | b'[' => depth = depth.saturating_add(1),
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(at);
                }
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The range of the value after the `:` that follows `from`.
fn value_after_colon(bytes: &[u8], from: usize) -> Option<(usize, usize)> {
    let colon = from + bytes[from..].iter().position(|b| *b == b':')?;
    let start = colon
        + 1
        + bytes[colon + 1..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())?;
    match bytes[start] {
        b'"' => return Some((start, string_end(bytes, start)? + 1)),
        b'{' | b'[' => return Some((start, container_end(bytes, start)? + 1)),
        _ => {}
    }
    let len = bytes[start..]
        .iter()
        .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
        .unwrap_or(bytes.len() - start);
    Some((start, start + len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_echoed_id_becomes_the_placeholder_and_nothing_else_moves() {
        let text = r#"{"jsonrpc":"2.0", "id" : 7,"result":{"id":7,"content":[]}}"#;
        assert_eq!(
            mark_id(text, &json!(7), "\"$id\"").unwrap(),
            r#"{"jsonrpc":"2.0", "id" : "$id","result":{"id":7,"content":[]}}"#
        );
        let text = r#"{"result":{"a":"\"id\""},"id":"a\"b"}"#;
        assert_eq!(
            mark_id(text, &json!("a\"b"), "\"$other_id\"").unwrap(),
            r#"{"result":{"a":"\"id\""},"id":"$other_id"}"#
        );
    }

    #[test]
    fn the_requests_progress_token_becomes_the_placeholder() {
        let text = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"t-1","meta":{"a":[1]}}}"#;
        assert_eq!(
            mark_progress_token(text, &json!("t-1")).unwrap(),
            text.replace("\"t-1\"", "\"$progress_token\"")
        );
        assert_eq!(mark_progress_token(text, &json!("t-2")), None);
        let other = text.replace("notifications/progress", "notifications/message");
        assert_eq!(mark_progress_token(&other, &json!("t-1")), None);
    }

    #[test]
    fn a_request_another_id_or_not_json_is_left_alone() {
        let request = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
        assert_eq!(mark_id(request, &json!(7), "\"$id\""), None);
        assert_eq!(mark_id(r#"{"id":8}"#, &json!(7), "\"$id\""), None);
        assert_eq!(mark_id(r#"{"id":"7"}"#, &json!(7), "\"$id\""), None);
        assert_eq!(mark_id("{unclosed", &json!(7), "\"$id\""), None);
    }
}

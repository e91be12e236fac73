//! The placeholders of case bodies (cases/README.md): `"$id"`, `"$other_id"`, `"$progress_token"`,
//! and `"$repeat"`, the number of a repeated SSE event (so progress can increase).
//!
//! Each placeholder is a whole JSON string in the case text, so the text stays valid JSON at
//! load time; at send time the string (quotes included) becomes a JSON value taken from the
//! request being answered.

use serde_json::Value;

/// The values the placeholders stand for, taken from one `tools/call` request.
#[derive(Debug, Clone)]
pub struct Placeholders {
    id: String,
    other_id: String,
    progress_token: String,
    /// Whether the request asked for progress (`_meta.progressToken`).
    asked_progress: bool,
    /// Which sending of a repeated SSE event this is, from 1.
    repeat: String,
}

impl Placeholders {
    /// Reads the id and progress token of a request body (`null` where absent).
    pub fn from_request(request: &Value) -> Self {
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let token = request
            .pointer("/params/_meta/progressToken")
            .cloned()
            .unwrap_or(Value::Null);
        Placeholders {
            other_id: other_id(&id).to_string(),
            id: id.to_string(),
            asked_progress: !token.is_null(),
            progress_token: token.to_string(),
            repeat: "1".to_owned(),
        }
    }

    /// The same values for the `n`-th sending of a repeated event.
    pub fn nth(&self, n: u32) -> Self {
        Placeholders {
            repeat: n.to_string(),
            ..self.clone()
        }
    }

    /// The data of an SSE event with its placeholders replaced, or `None` when it names
    /// `"$progress_token"` and the request gave no token: a server may send progress only for a
    /// token the request provided (2025-11-25 basic/utilities/progress), so a `null` token would
    /// make the harness's own wire invalid.
    pub fn apply_to_event(&self, data: &str) -> Option<String> {
        let needs_token = data.contains("\"$progress_token\"");
        (self.asked_progress || !needs_token).then(|| self.apply(data))
    }

    /// `text` with every placeholder that stands as a value replaced. A placeholder followed
    /// by `:` is an object key (`"$id"` is a JSON Schema keyword) and stays as it is.
    pub fn apply(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("\"$") {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            let Some((token, value)) = self.placeholder_at(tail) else {
                out.push_str("\"$");
                rest = &tail[2..];
                continue;
            };
            rest = &tail[token.len()..];
            let is_key = rest.trim_start().starts_with(':');
            out.push_str(if is_key { token } else { value });
        }
        out.push_str(rest);
        out
    }

    /// The placeholder `tail` starts with, and its value.
    fn placeholder_at(&self, tail: &str) -> Option<(&'static str, &str)> {
        [
            ("\"$id\"", &self.id),
            ("\"$other_id\"", &self.other_id),
            ("\"$progress_token\"", &self.progress_token),
            ("\"$repeat\"", &self.repeat),
        ]
        .into_iter()
        .find(|(token, _)| tail.starts_with(token))
        .map(|(token, value)| (token, value.as_str()))
    }
}

/// An id of the same JSON type as `id` that differs from it.
fn other_id(id: &Value) -> Value {
    match id {
        Value::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i.checked_add(1000).unwrap_or(i - 1000)),
            None => Value::from(n.as_f64().unwrap_or(0.0) + 1000.0),
        },
        Value::String(s) => Value::from(format!("{s}-other")),
        _ => Value::from("other"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replaces_with_the_request_values_and_types() {
        let request = json!({"id": 7, "params": {"_meta": {"progressToken": "p-1"}}});
        let p = Placeholders::from_request(&request);
        let text = r#"{"id":"$id","other":"$other_id","token":"$progress_token"}"#;
        assert_eq!(p.apply(text), r#"{"id":7,"other":1007,"token":"p-1"}"#);
    }

    #[test]
    fn string_ids_stay_strings_and_differ() {
        let p = Placeholders::from_request(&json!({"id": "abc"}));
        assert_eq!(p.apply(r#"["$id","$other_id"]"#), r#"["abc","abc-other"]"#);
    }

    #[test]
    fn object_keys_that_look_like_placeholders_stay() {
        let p = Placeholders::from_request(&json!({"id": 2}));
        let text = r#"{"$id": "$id", "$id" : 1, "x":"$id"}"#;
        assert_eq!(p.apply(text), r#"{"$id": 2, "$id" : 1, "x":2}"#);
    }

    #[test]
    fn missing_values_become_null_and_other_text_is_untouched() {
        let p = Placeholders::from_request(&json!({"method": "x"}));
        assert_eq!(
            p.apply(r#"["$progress_token","$idx","$ id"]"#),
            r#"[null,"$idx","$ id"]"#
        );
        assert_eq!(other_id(&json!(i64::MAX)), json!(i64::MAX - 1000));
    }
}

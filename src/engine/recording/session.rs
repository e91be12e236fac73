//! What the exchanges around the `tools/call`s said: the protocol version `initialize` agreed
//! on and the tools `tools/list` advertised. A written case carries them (`protocol_version`,
//! `[tool]`), since on replay the wire server answers those requests itself.

use super::blocks;
use super::reply::media_type;
use crate::case::Tool;
use crate::case::model::Annotations;
use serde_json::Value;

/// The most tools a session keeps, so that a server listing without end cannot grow it.
const MAX_TOOLS: usize = 1_000;

/// The context of a recording.
#[derive(Debug, Clone, Default)]
pub struct Session {
    /// The version of the last `initialize` result.
    pub protocol_version: Option<String>,
    /// The tools of the `tools/list` results, latest last.
    pub tools: Vec<Value>,
    /// Why the last `tools/list` answer could not be read, when it could not.
    pub unread_list: Option<String>,
}

impl Session {
    /// Reads what matters from one exchange: a request (its JSON body) and its answer.
    pub fn observe(&mut self, request: &Value, content_type: Option<&str>, body: &[u8]) {
        let method = request.get("method").and_then(Value::as_str);
        if !matches!(method, Some("initialize" | "tools/list")) {
            return;
        }
        let messages = messages(content_type, body);
        if method == Some("tools/list") {
            self.unread_list = match messages.is_empty() && !body.is_empty() {
                true => Some(unreadable(body)),
                false => None,
            };
        }
        for message in messages {
            if message.get("id") != request.get("id") {
                continue;
            }
            if let Some(version) = message.pointer("/result/protocolVersion") {
                self.protocol_version = version.as_str().map(str::to_owned);
            }
            if let Some(Value::Array(tools)) = message.pointer("/result/tools") {
                let room = MAX_TOOLS.saturating_sub(self.tools.len());
                self.tools.extend(tools.iter().take(room).cloned());
            }
        }
    }

    /// The case's `[tool]` for the tool `name`: its annotations and schemas as the server
    /// advertised them, where the case format can hold them (a `null` inside a schema is
    /// dropped: TOML has none), and notes on what was left out.
    pub fn tool(&self, name: &str) -> (Tool, Vec<String>) {
        let mut notes = Vec::new();
        let mut tool = Tool {
            name: name.to_owned(),
            ..Tool::default()
        };
        let Some(listed) = self.tools.iter().rev().find(|t| t["name"] == name) else {
            let why = match &self.unread_list {
                Some(why) => format!("the tools/list answer could not be read ({why})"),
                None => "tools/list was not recorded".to_owned(),
            };
            notes.push(format!(
                "{why} for {name:?}: the case advertises it without annotations or schemas"
            ));
            return (tool, notes);
        };
        if let Some(annotations) = listed.get("annotations").filter(|a| !a.is_null()) {
            match serde_json::from_value::<Annotations>(annotations.clone()) {
                Ok(typed) => {
                    if let Ok(toml::Value::Table(table)) = toml::Value::try_from(typed) {
                        tool.annotations = table.into_iter().collect();
                    }
                }
                Err(e) => notes.push(format!("annotations left out: {e}")),
            }
        }
        tool.input_schema = schema(listed.get("inputSchema"), "inputSchema", &mut notes);
        tool.output_schema = schema(listed.get("outputSchema"), "outputSchema", &mut notes)
            .filter(|s| s.get("type").and_then(toml::Value::as_str) == Some("object"));
        (tool, notes)
    }
}

fn schema(value: Option<&Value>, key: &str, notes: &mut Vec<String>) -> Option<toml::Table> {
    let value = value.filter(|v| !v.is_null())?;
    let mut widened = false;
    let tomlable = tomlable(value, &mut widened);
    match toml::Value::try_from(tomlable) {
        Ok(toml::Value::Table(table)) => {
            if widened {
                notes.push(format!(
                    "{key}: integers past 2^63 - 1 (TOML's largest) are written as floats"
                ));
            }
            Some(table)
        }
        Ok(_) => {
            notes.push(format!("{key} left out: it is not a JSON object"));
            None
        }
        Err(e) => {
            notes.push(format!("{key} left out: TOML cannot hold it ({e})"));
            None
        }
    }
}

/// `value` as TOML can hold it: no `null` (TOML has none), and integers past `i64::MAX` as
/// floats (`widened` says whether there were any).
fn tomlable(value: &Value, widened: &mut bool) -> Value {
    match value {
        Value::Object(members) => members
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), tomlable(v, widened)))
            .collect(),
        Value::Array(items) => items
            .iter()
            .filter(|v| !v.is_null())
            .map(|v| tomlable(v, widened))
            .collect(),
        Value::Number(n) if n.is_u64() && !n.is_i64() => {
            *widened = true;
            n.as_f64().map_or(Value::Null, Value::from)
        }
        other => other.clone(),
    }
}

/// Why a body holds no JSON-RPC message: the JSON parser's word for it.
fn unreadable(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Err(e) => e.to_string(),
        Ok(_) => "no message in it".to_owned(),
    }
}

/// The JSON-RPC messages of an answer: its JSON body, or the data of its SSE events.
pub fn messages(content_type: Option<&str>, body: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(body);
    match media_type(content_type).as_str() {
        "text/event-stream" => blocks::split(&text)
            .iter()
            .filter_map(|b| serde_json::from_str(b.data.as_deref()?).ok())
            .collect(),
        _ => serde_json::from_str(&text).into_iter().collect(),
    }
}

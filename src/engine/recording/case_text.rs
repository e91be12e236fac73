//! The text of a written case file: the keys of cases/README.md in their usual order, JSON in
//! multi-line literal strings where the text allows it, so that a person can review it.

use crate::case::{End, Event, Expect, Reply, Tool};
use std::fmt::Write;

/// One case to write.
#[derive(Debug, Clone)]
pub struct CaseText<'a> {
    /// Comment lines at the top (what it was recorded from, what was left out).
    pub notes: Vec<String>,
    /// The summary.
    pub summary: String,
    /// The protocol version.
    pub protocol_version: &'a str,
    /// The tool.
    pub tool: &'a Tool,
    /// The call's arguments, a JSON text.
    pub arguments: String,
    /// The call's timeout, when it needs one.
    pub timeout_ms: Option<u64>,
    /// The expectation.
    pub expect: &'a Expect,
    /// The replies.
    pub replies: &'a [Reply],
}

impl CaseText<'_> {
    /// The TOML text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for note in &self.notes {
            for line in note.lines() {
                let _ = writeln!(out, "# {}", escape_controls(line));
            }
        }
        let _ = writeln!(out, "summary = {}", basic(&self.summary));
        let _ = writeln!(out, "protocol_version = {}", basic(self.protocol_version));
        self.render_tool(&mut out);
        out.push_str("\n[[call]]\n");
        let _ = writeln!(out, "arguments = {}", string(&self.arguments));
        if let Some(ms) = self.timeout_ms {
            let _ = writeln!(out, "timeout_ms = {ms}");
        }
        let expect = toml::Value::try_from(self.expect).map(|v| inline(&v));
        let _ = writeln!(out, "expect = {}", expect.unwrap_or_default());
        for reply in self.replies {
            render_reply(&mut out, reply);
        }
        out
    }

    fn render_tool(&self, out: &mut String) {
        let tool = self.tool;
        let _ = write!(out, "\n[tool]\nname = {}\n", basic(&tool.name));
        if !tool.annotations.is_empty() {
            let table: toml::Table = tool.annotations.clone().into_iter().collect();
            let _ = writeln!(out, "annotations = {}", inline(&toml::Value::Table(table)));
        }
        for (key, schema) in [
            ("input_schema", &tool.input_schema),
            ("output_schema", &tool.output_schema),
        ] {
            if let Some(schema) = schema {
                let _ = writeln!(
                    out,
                    "{key} = {}",
                    inline(&toml::Value::Table(schema.clone()))
                );
            }
        }
    }
}

fn render_reply(out: &mut String, reply: &Reply) {
    out.push_str("\n[[call.reply]]\n");
    if let Some(status) = reply.status {
        let _ = writeln!(out, "status = {status}");
    }
    if let Some(content_type) = &reply.content_type {
        let _ = writeln!(out, "content_type = {}", basic(content_type));
    }
    if !reply.headers.is_empty() {
        let table: toml::Table = reply
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), toml::Value::String(v.clone())))
            .collect();
        let _ = writeln!(out, "headers = {}", inline(&toml::Value::Table(table)));
    }
    for (key, ms) in [
        ("delay_ms", reply.delay_ms),
        ("event_gap_ms", reply.event_gap_ms),
    ] {
        if ms > 0 {
            let _ = writeln!(out, "{key} = {ms}");
        }
    }
    if reply.end != End::Complete {
        let end = toml::Value::try_from(reply.end).map(|v| inline(&v));
        let _ = writeln!(out, "end = {}", end.unwrap_or_default());
    }
    if let Some(json) = &reply.json {
        let _ = writeln!(out, "json = {}", string(json));
    }
    if let Some(raw) = &reply.raw {
        let _ = writeln!(out, "raw = {}", string(raw));
    }
    for event in &reply.event {
        render_event(out, event);
    }
}

fn render_event(out: &mut String, event: &Event) {
    out.push_str("\n[[call.reply.event]]\n");
    let fields = [
        ("comment", &event.comment),
        ("event", &event.event),
        ("id", &event.id),
    ];
    for (key, value) in fields {
        if let Some(value) = value {
            let _ = writeln!(out, "{key} = {}", basic(value));
        }
    }
    if let Some(retry) = event.retry {
        let _ = writeln!(out, "retry = {retry}");
    }
    if let Some(data) = &event.data_raw {
        let _ = writeln!(out, "data_raw = {}", string(data));
    }
}

/// A TOML string for `text`: a multi-line literal (`'''`, with a line break after the
/// opening, which TOML drops) when it has a line break and the literal can hold it exactly,
/// else a basic string with escapes.
fn string(text: &str) -> String {
    let literal_can_hold = text.contains('\n')
        && !text.contains("'''")
        && !text.ends_with('\'')
        && text
            .chars()
            .all(|c| c == '\n' || c == '\t' || !c.is_control());
    match literal_can_hold {
        true => format!("'''\n{text}'''"),
        false => basic(text),
    }
}

/// `text` with each control character but tab written as its escape (`\u{0}`).
pub(super) fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_control() && c != '\t' {
            true => c.escape_unicode().to_string(),
            false => c.to_string(),
        })
        .collect()
}

/// A one-line TOML basic string.
fn basic(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// A TOML value on one line (tables inline).
fn inline(value: &toml::Value) -> String {
    match value {
        toml::Value::Table(table) => {
            let members: Vec<String> = table
                .iter()
                .map(|(k, v)| format!("{} = {}", key(k), inline(v)))
                .collect();
            match members.is_empty() {
                true => "{}".to_owned(),
                false => format!("{{ {} }}", members.join(", ")),
            }
        }
        toml::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// A key, bare when it can be, else a one-line basic string (a key may not span lines).
fn key(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        return name.to_owned();
    }
    let mut quoted = String::from("\"");
    for c in name.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            c if c.is_control() => quoted.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_round_trip_through_toml_exactly() {
        for text in [
            "one line",
            "two\nlines\n",
            "crlf\r\nlines\r\n",
            "ends with '",
            "has ''' inside\n",
            "tab\tand \"quotes\"\n",
        ] {
            let document = format!("v = {}\n", string(text));
            let table: toml::Table = toml::from_str(&document).unwrap();
            assert_eq!(table["v"].as_str(), Some(text), "{document}");
        }
    }

    #[test]
    fn keys_that_are_not_bare_are_quoted_on_one_line() {
        for name in [
            "",
            "a\"b\nc",
            "back\\slash",
            "nul\u{0}",
            "\u{7f}del",
            "$schema",
            "é",
        ] {
            let document = format!("{} = 1\n", key(name));
            assert_eq!(document.lines().count(), 1, "{document}");
            let table: toml::Table = toml::from_str(&document).unwrap();
            assert!(table.contains_key(name), "{name:?}: {document}");
        }
    }

    #[test]
    fn inline_tables_quote_keys_that_are_not_bare() {
        let table: toml::Table = toml::from_str("a = { \"$schema\" = 1, b-c = [true] }").unwrap();
        assert_eq!(inline(&table["a"]), "{ \"$schema\" = 1, b-c = [true] }");
    }
}

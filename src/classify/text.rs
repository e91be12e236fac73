//! Short, one-line renderings of wire data for `Classification::reason`.

use serde_json::Value;
use std::io;

/// How many characters of a JSON value a reason shows.
const VALUE_CHARS: usize = 40;

/// How many characters of server-supplied text (an error message) a reason shows.
pub(crate) const TEXT_CHARS: usize = 80;

/// `text` on one line: control characters and runs of whitespace become one space, and text
/// longer than `max` characters is cut with an ellipsis. Reasons end up in reports and TAP
/// lines, where a server's newline would break the format.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for word in text.split(|c: char| c.is_whitespace() || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if chars > 0 {
            out.push(' ');
            chars += 1;
        }
        for c in word.chars() {
            if chars >= max {
                out.push('…');
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}

/// A JSON value as compact JSON on one short line (`1`, `"1"`, `[1,2]`).
pub(crate) fn show(value: &Value) -> String {
    // Serialize into a capped buffer: an id or result can be megabytes, a reason shows a few
    // dozen characters. The cap error just stops serde_json early.
    let mut capped = Capped(Vec::new());
    let _ = serde_json::to_writer(&mut capped, value);
    one_line(&String::from_utf8_lossy(&capped.0), VALUE_CHARS)
}

/// What kind of JSON value this is, for "is X, not an object" reasons.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Four bytes per character is the most UTF-8 needs; one more character shows the cut.
const CAPPED_BYTES: usize = (VALUE_CHARS + 1) * 4;

/// A writer that takes enough bytes for any short rendering, then refuses more.
struct Capped(Vec<u8>);

impl io::Write for Capped {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let room = CAPPED_BYTES.saturating_sub(self.0.len());
        if room == 0 {
            return Err(io::Error::other("enough for a reason"));
        }
        let taken = bytes.get(..room).unwrap_or(bytes);
        self.0.extend_from_slice(taken);
        Ok(taken.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_line_collapses_and_cuts() {
        assert_eq!(one_line(" a \n\tb\u{7}c ", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc…");
        assert_eq!(one_line("ab cd", 4), "ab c…");
        assert_eq!(one_line("ééé", 2), "éé…");
    }

    #[test]
    fn show_is_compact_and_bounded() {
        assert_eq!(show(&json!("1")), "\"1\"");
        assert_eq!(show(&json!({"a": [1, 2]})), "{\"a\":[1,2]}");
        let long = show(&json!("x".repeat(10_000)));
        assert_eq!(long.chars().count(), VALUE_CHARS + 1);
        assert!(long.ends_with('…'));
    }
}

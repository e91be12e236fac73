//! JSON text as the wire allows it: what a client sends is read the way its grammar permits, not
//! only the way serde_json does.
//!
//! RFC 8259's grammar lets a string hold any `\uXXXX` escape, a lone UTF-16 surrogate
//! (`"\ud800"`) included: it is what JavaScript's `JSON.stringify` writes for a string with a
//! broken pair, so a real client can send it. serde_json refuses such text as a whole, which
//! made the harness take a client's `tools/call` for no JSON at all (the stdio server answered
//! nothing and the client timed out; the scripted model saw no tool result).
//!
//! [`parse`] reads such text: first with serde_json as is; only when that fails and the text
//! holds a lone surrogate escape, each lone one is rewritten to the escape of its own six
//! characters (`\ud800` becomes `\\ud800`), and the text is parsed again. So the string holds
//! the literal text `\ud800`. Why this and not U+FFFD: it keeps the code unit's value (two lone
//! surrogates stay two different texts, a reader of a report or a model sees exactly which
//! escape the client sent), it stays plain ASCII through every later serialisation, and it
//! needs no flag beside every string to stay lossless. What it costs: a client that meant the
//! literal text `\ud800` (`"\\ud800"`) reads the same; [`Parsed::lone_surrogates`] says that a
//! rewrite happened, and the raw text is kept wherever the harness records it.
//!
//! A text that is invalid for any other reason stays invalid, with serde_json's error on the
//! text as it came.

use serde_json::Value;

/// A JSON text read, and how many lone surrogate escapes it held (each now the literal text of
/// its escape inside its string; 0 when serde_json read the text as it came).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parsed {
    /// The value.
    pub value: Value,
    /// Lone surrogate escapes read as their own text.
    pub lone_surrogates: usize,
}

/// Reads `text` as JSON, lone surrogate escapes included (see the module's doc). The error is
/// serde_json's on `text` as it came.
pub(crate) fn parse(text: &[u8]) -> Result<Parsed, serde_json::Error> {
    let error = match serde_json::from_slice(text) {
        Ok(value) => {
            return Ok(Parsed {
                value,
                lone_surrogates: 0,
            });
        }
        Err(error) => error,
    };
    let (rewritten, lone_surrogates) = escape_lone_surrogates(text);
    if lone_surrogates == 0 {
        return Err(error);
    }
    match serde_json::from_slice(&rewritten) {
        Ok(value) => Ok(Parsed {
            value,
            lone_surrogates,
        }),
        Err(_) => Err(error),
    }
}

/// [`parse`]'s value, `None` for a text that is not JSON: what a reader that only needs the
/// message uses.
pub(crate) fn value(text: impl AsRef<[u8]>) -> Option<Value> {
    parse(text.as_ref()).ok().map(|parsed| parsed.value)
}

/// `text` with a backslash put before each lone surrogate escape (a high one not followed by a
/// low one, a low one not after a high one), and how many there were. Every other byte is kept:
/// escapes are stepped over whole, so `\\ud800` (an escaped backslash, then text) is no escape.
fn escape_lone_surrogates(text: &[u8]) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(text.len() + 16);
    let mut lone = 0;
    let mut at = 0;
    while at < text.len() {
        if text[at] != b'\\' {
            out.push(text[at]);
            at += 1;
            continue;
        }
        match unit_at(text, at) {
            Some(0xD800..=0xDBFF) if matches!(unit_at(text, at + 6), Some(0xDC00..=0xDFFF)) => {
                out.extend_from_slice(&text[at..at + 12]);
                at += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push(b'\\');
                out.extend_from_slice(&text[at..at + 6]);
                lone += 1;
                at += 6;
            }
            _ => {
                // Any other escape, whole: the backslash and the byte it escapes.
                let end = (at + 2).min(text.len());
                out.extend_from_slice(&text[at..end]);
                at = end;
            }
        }
    }
    (out, lone)
}

/// The code unit of a `\uXXXX` escape starting at `at`, if one does.
fn unit_at(text: &[u8], at: usize) -> Option<u16> {
    let escape = text.get(at..at + 6)?;
    if escape[0] != b'\\' || escape[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Parsed {
        parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn serde_json_refuses_what_the_grammar_allows() {
        // The reason for the module: if serde_json ever reads these, it is no longer needed.
        for text in [r#""\ud800""#, r#""\udc00""#, r#""\udc00\ud800""#] {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        }
    }

    #[test]
    fn a_lone_high_surrogate_is_read_as_its_escape_text() {
        let parsed = read(r#"{"text": "a\ud800b"}"#);
        assert_eq!(parsed.value, json!({"text": "a\\ud800b"}));
        assert_eq!(parsed.value["text"].as_str(), Some(r"a\ud800b"));
        assert_eq!(parsed.lone_surrogates, 1);
    }

    #[test]
    fn a_lone_high_surrogate_at_the_end_of_the_string_too() {
        let parsed = read(r#"["\uD83D"]"#);
        assert_eq!(parsed.value[0].as_str(), Some(r"\uD83D"));
        assert_eq!(parsed.lone_surrogates, 1);
    }

    #[test]
    fn a_lone_low_surrogate_is_read_as_its_escape_text() {
        let parsed = read(r#"{"t": "\udc00x"}"#);
        assert_eq!(parsed.value["t"].as_str(), Some(r"\udc00x"));
        assert_eq!(parsed.lone_surrogates, 1);
    }

    #[test]
    fn a_reversed_pair_is_two_lone_surrogates() {
        let parsed = read(r#""\udc00\ud800""#);
        assert_eq!(parsed.value.as_str(), Some(r"\udc00\ud800"));
        assert_eq!(parsed.lone_surrogates, 2);
    }

    #[test]
    fn a_valid_pair_is_the_character_and_a_lone_one_beside_it_is_text() {
        let pair = read(r#""\ud83d\ude00""#);
        assert_eq!(pair.value.as_str(), Some("😀"));
        assert_eq!(pair.lone_surrogates, 0);
        let both = read(r#""\ud800\ud83d\ude00""#);
        assert_eq!(both.value.as_str(), Some("\\ud800😀"));
        assert_eq!(both.lone_surrogates, 1);
    }

    #[test]
    fn an_escaped_backslash_before_u_is_no_escape() {
        // `\\ud800` is a backslash and the text `ud800`: valid, unchanged.
        let plain = read(r#""\\ud800""#);
        assert_eq!(plain.value.as_str(), Some(r"\ud800"));
        assert_eq!(plain.lone_surrogates, 0);
        // An escaped backslash, then a real lone surrogate.
        let after = read(r#""\\\ud800""#);
        assert_eq!(after.value.as_str(), Some(r"\\ud800"));
        assert_eq!(after.lone_surrogates, 1);
    }

    #[test]
    fn other_escapes_and_text_are_kept_byte_for_byte() {
        let parsed = read("{\"a\": \"\\n\\\"\\u00e9\\ud800 ü\", \"b\": [1, 2.5e3, null]}");
        assert_eq!(parsed.value["a"].as_str(), Some("\n\"é\\ud800 ü"));
        assert_eq!(parsed.value["b"], json!([1, 2.5e3, null]));
    }

    #[test]
    fn invalid_json_stays_invalid_with_serde_jsons_error() {
        for text in [
            "{\"a\": ",
            "not json",
            r#"{"a": "\ud800", }"#,
            r#"{"a": "\ud80"}"#,
            r"\ud800",
            "",
        ] {
            let ours = parse(text.as_bytes()).expect_err(text);
            let theirs = serde_json::from_str::<Value>(text).expect_err(text);
            assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
        }
        assert_eq!(value("{"), None);
        assert_eq!(value(r#"{"id": "\udfff"}"#), Some(json!({"id": "\\udfff"})));
    }
}

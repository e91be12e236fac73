//! Checks a parsed case beyond what serde checks: JSON texts parse, each reply has one body
//! form, options that contradict each other are named. JSON texts are made compact here, once,
//! so the wire server sends them as they are.

use super::model::{Call, CaseFile, End, Event, Expect, KNOWN_PROTOCOL_VERSIONS, Reply};
use crate::wire::response::has_body;
use crate::wire::{HTTP_DATE, MAX_HTTP_DATE_OFFSET, http_date_offset};
use serde_json::Value;

/// A problem: the key path and what is wrong with it.
pub type Problem = (String, String);

/// Validates `file` and compacts its JSON texts in place.
pub fn validate(file: &mut CaseFile) -> Result<(), Problem> {
    if !KNOWN_PROTOCOL_VERSIONS.contains(&file.protocol_version.as_str()) {
        let known = KNOWN_PROTOCOL_VERSIONS.join(", ");
        let msg = format!(
            "unknown version {:?}; use one of {known}",
            file.protocol_version
        );
        return Err(("protocol_version".into(), msg));
    }
    if file.call.is_empty() {
        let msg = "a case needs at least one [[call]] table".to_owned();
        return Err(("call".into(), msg));
    }
    for (i, call) in file.call.iter_mut().enumerate() {
        validate_call(call).map_err(|(key, msg)| (format!("call[{i}].{key}"), msg))?;
    }
    Ok(())
}

fn validate_call(call: &mut Call) -> Result<(), Problem> {
    if let Some(arguments) = &mut call.arguments {
        let value = json_text(arguments).map_err(|msg| ("arguments".to_owned(), msg))?;
        if !value.is_object() {
            let msg = "the arguments must be a JSON object, like '{\"x\": 1}'".to_owned();
            return Err(("arguments".into(), msg));
        }
    }
    if call.timeout_ms == Some(0) {
        return Err(("timeout_ms".into(), "must be at least 1".into()));
    }
    if let Some(ms) = call.timeout_ms {
        bounded("timeout_ms", ms)?;
    }
    for (k, &ms) in call.expect.min_gaps_ms.iter().enumerate() {
        bounded(&format!("expect.min_gaps_ms[{k}]"), ms)?;
    }
    if call.reply.is_empty() {
        let msg = "a call needs at least one [[call.reply]] table".to_owned();
        return Err(("reply".into(), msg));
    }
    for (j, reply) in call.reply.iter_mut().enumerate() {
        validate_reply(reply).map_err(|(key, msg)| (format!("reply[{j}].{key}"), msg))?;
    }
    for (j, reply) in call.resume.iter_mut().enumerate() {
        validate_reply(reply).map_err(|(key, msg)| (format!("resume[{j}].{key}"), msg))?;
    }
    validate_expect(&call.expect).map_err(|(key, msg)| (format!("expect.{key}"), msg))
}

/// The counting keys must be able to hold together.
fn validate_expect(expect: &Expect) -> Result<(), Problem> {
    if let (Some(posts), Some(most)) = (expect.tool_posts, expect.max_tool_posts)
        && posts > most
    {
        let msg = format!("tool_posts = {posts} can never be at most {most}; drop one of them");
        return Err(("max_tool_posts".into(), msg));
    }
    let gaps = u32::try_from(expect.min_gaps_ms.len()).unwrap_or(u32::MAX);
    match expect.tool_posts {
        Some(posts) if gaps >= posts.max(1) => {
            let msg = format!(
                "{gaps} gaps need at least {} tool_posts; name one gap per pair of POSTs",
                gaps + 1
            );
            Err(("min_gaps_ms".into(), msg))
        }
        None if gaps > 0 => {
            let msg = "name `tool_posts` too, so that every gap has two POSTs".to_owned();
            Err(("min_gaps_ms".into(), msg))
        }
        _ => Ok(()),
    }
}

/// The bound of every duration key of a case file (`timeout_ms`, `delay_ms`, `event_gap_ms`,
/// `min_gaps_ms`): ten minutes. A case that needs longer tests patience, not error handling, and
/// an unbounded one could keep a run from ever ending.
pub const MAX_DURATION_MS: u64 = 600_000;

/// `Err` naming `key` when `ms` is past [`MAX_DURATION_MS`].
fn bounded(key: &str, ms: u64) -> Result<(), Problem> {
    if ms > MAX_DURATION_MS {
        let msg = format!(
            "{ms} is more than {MAX_DURATION_MS} (10 minutes), the bound of every duration key"
        );
        return Err((key.into(), msg));
    }
    Ok(())
}

fn validate_reply(reply: &mut Reply) -> Result<(), Problem> {
    bounded("delay_ms", reply.delay_ms)?;
    bounded("event_gap_ms", reply.event_gap_ms)?;
    let forms = [
        reply.json.is_some(),
        reply.raw.is_some(),
        !reply.event.is_empty(),
    ];
    if forms.iter().filter(|&&f| f).count() > 1 {
        let msg = "give at most one body form: `json`, `raw` or [[call.reply.event]]".to_owned();
        return Err(("json".into(), msg));
    }
    match reply.status {
        None => validate_silent_reply(reply)?,
        Some(status) if !(100..=599).contains(&status) => {
            return Err((
                "status".into(),
                format!("{status} is not an HTTP status (100-599)"),
            ));
        }
        Some(status) if !has_body(status) && forms.contains(&true) => {
            let msg =
                format!("HTTP {status} never carries a body; remove the body or change the status");
            return Err(("status".into(), msg));
        }
        Some(_) => {}
    }
    if reply.cut_after.is_some() && reply.end != End::Complete {
        let msg = "`cut_after` closes the connection itself; drop `end`".to_owned();
        return Err(("cut_after".into(), msg));
    }
    validate_headers(reply)?;
    if let Some(json) = &mut reply.json {
        json_text(json).map_err(|msg| ("json".to_owned(), msg))?;
    }
    for (k, event) in reply.event.iter_mut().enumerate() {
        validate_event(event).map_err(|(key, msg)| (format!("event[{k}].{key}"), msg))?;
    }
    Ok(())
}

/// A reply without a status line sends no bytes, so anything about a response is a mistake.
fn validate_silent_reply(reply: &Reply) -> Result<(), Problem> {
    let has_response_parts = reply.json.is_some()
        || reply.raw.is_some()
        || !reply.event.is_empty()
        || !reply.headers.is_empty()
        || reply.content_type.is_some()
        || reply.cut_after.is_some();
    if has_response_parts {
        let msg = "a reply without `status` sends no bytes: remove its body, headers and \
                   cut_after, or add a status";
        return Err(("status".into(), msg.into()));
    }
    if reply.end == End::Complete {
        let msg = "a reply without `status` must say how the connection ends: \
                   end = \"reset\", \"close\" or \"stall\"";
        return Err(("end".into(), msg.into()));
    }
    Ok(())
}

fn validate_headers(reply: &Reply) -> Result<(), Problem> {
    for (name, value) in &reply.headers {
        if name.eq_ignore_ascii_case("content-type") {
            let msg =
                "set the Content-Type with the `content_type` key, so it is sent once".to_owned();
            return Err((format!("headers.{name}"), msg));
        }
        let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
        if name.is_empty() || !name.chars().all(token) {
            return Err((
                format!("headers.{name}"),
                "not a valid HTTP header name".into(),
            ));
        }
        if value.contains(['\r', '\n']) {
            let msg = "a header value cannot contain a line break".to_owned();
            return Err((format!("headers.{name}"), msg));
        }
        if value.starts_with(HTTP_DATE) && http_date_offset(value).is_none() {
            let msg = format!(
                "{value:?} is no date placeholder; write \"{HTTP_DATE}+N\" for N seconds from now"
            );
            return Err((format!("headers.{name}"), msg));
        }
        if http_date_offset(value).is_some_and(|n| n > MAX_HTTP_DATE_OFFSET) {
            let msg =
                format!("{value:?} is too far ahead; N is at most {MAX_HTTP_DATE_OFFSET} (a year)");
            return Err((format!("headers.{name}"), msg));
        }
    }
    if let Some(content_type) = &reply.content_type
        && content_type.contains(['\r', '\n'])
    {
        let msg = "a header value cannot contain a line break".to_owned();
        return Err(("content_type".into(), msg));
    }
    Ok(())
}

fn validate_event(event: &mut Event) -> Result<(), Problem> {
    let fields = [
        event.data.is_some(),
        event.data_raw.is_some(),
        event.comment.is_some(),
    ];
    let count = fields.iter().filter(|&&f| f).count();
    if count != 1 {
        let msg = "an event needs exactly one of `data` (JSON text), `data_raw` or `comment`";
        return Err(("data".into(), msg.into()));
    }
    let has_fields = event.event.is_some() || event.id.is_some() || event.retry.is_some();
    if event.comment.is_some() && has_fields {
        let msg = "a comment is sent alone; put `event`, `id` and `retry` on a data event";
        return Err(("comment".into(), msg.into()));
    }
    for (key, value) in [
        ("event", &event.event),
        ("id", &event.id),
        ("comment", &event.comment),
    ] {
        if value.as_deref().is_some_and(|v| v.contains(['\r', '\n'])) {
            return Err((key.into(), "cannot contain a line break".into()));
        }
    }
    if let Some(data) = &mut event.data {
        json_text(data).map_err(|msg| ("data".to_owned(), msg))?;
    }
    Ok(())
}

/// Parses a JSON text and replaces it with its compact form.
fn json_text(text: &mut String) -> Result<Value, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        format!("not a JSON text: {e} (use `raw` or `data_raw` to send invalid JSON on purpose)")
    })?;
    *text = value.to_string();
    Ok(value)
}

//! An SSE answer in the case format: the response's id marked in its `data` lines, and its
//! events as `[[call.reply.event]]` tables where the format can write them as sent.

use super::blocks::{self, Block};
use super::id_span::{mark_id, mark_progress_token};
use crate::case::Event;
use serde_json::Value;

/// `body` (an SSE stream) with the id of the response among its `data` lines marked.
pub fn mark_sse(body: &str, request_id: &Value, placeholder: &str) -> String {
    map_data_lines(body, |data| mark_id(data, request_id, placeholder))
}

/// `body` (an SSE stream) with the progress token of its progress notifications put back as
/// `"$progress_token"` where it is the request's (`params._meta.progressToken`): a replay
/// then sends progress with the replaying client's token, and none to a client that asked
/// for none (cases/README.md, "Placeholders").
pub fn mark_progress(body: &str, request: &Value) -> String {
    let Some(token) = request.pointer("/params/_meta/progressToken") else {
        return body.to_owned();
    };
    map_data_lines(body, |data| mark_progress_token(data, token))
}

/// `body` with each single `data` line's value replaced by what `mark` makes of it, when it
/// makes something; every other byte (line ends included) stays.
fn map_data_lines(body: &str, mark: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(body.len());
    let mut start = 0;
    for (line, end) in blocks::lines(body) {
        let ending = &body[start + line.len()..end];
        let value = blocks::field(line, "data");
        match value.and_then(&mark) {
            Some(marked) => {
                out.push_str(&line[..line.len() - value.unwrap_or_default().len()]);
                out.push_str(&marked);
            }
            None => out.push_str(line),
        }
        out.push_str(ending);
        start = end;
    }
    out.push_str(&body[start..]);
    out
}

/// The blocks as event tables, when each is one the case format can write (LF line ends).
pub fn events_form(blocks: &[Block]) -> Option<Vec<Event>> {
    blocks.iter().map(as_event).collect()
}

fn as_event(block: &Block) -> Option<Event> {
    if block.text.contains('\r') || !block.text.ends_with("\n\n") {
        return None;
    }
    let mut event = Event::default();
    for line in block.text.trim_end_matches('\n').split('\n') {
        if let Some(comment) = line.strip_prefix(':') {
            event.comment = Some(comment.strip_prefix(' ').unwrap_or(comment).to_owned());
        } else if let Some(name) = blocks::field(line, "event") {
            event.event = Some(name.to_owned());
        } else if let Some(id) = blocks::field(line, "id") {
            event.id = Some(id.to_owned());
        } else if let Some(retry) = blocks::field(line, "retry") {
            event.retry = Some(retry.parse().ok()?);
        } else if blocks::field(line, "data").is_none() {
            return None;
        }
    }
    event.data_raw = block.data.clone();
    Some(event)
}

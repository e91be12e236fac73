//! Timeouts and cancellation. A request the server did not answer within the client's timeout
//! (its reply stalls before the response, or comes later than the timeout) is one the client
//! gave up on. In a 2025 session it SHOULD then send `notifications/cancelled` naming the
//! request's id (2025-11-25 basic/utilities/cancellation); over HTTP in 2026-07-28 cancelling
//! is closing the response stream (2026-07-28 streamable-http, "Cancellation"), which the server
//! sees for a reply it still holds open. `initialize` MUST NOT be cancelled.

use super::{Request, Requests, Tally, answer_message, event_answer};
use crate::case::model::DEFAULT_TIMEOUT_MS;
use crate::case::{CaseFile, End, Grade, Reply};
use serde_json::Value;

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    for (at, request) in requests.list.iter().enumerate() {
        let Some(stalled) = given_up(requests, request) else {
            continue;
        };
        let later = &requests.list[at + 1..];
        match request.method() {
            Some("initialize") => {
                let result = not_cancelled(request, later);
                tally.record("no-cancel-initialize", Grade::Must, result);
            }
            Some("tools/call") if request.modern && stalled => {
                tally.record("timeout-closes-stream", Grade::Should, closed(request));
            }
            Some("tools/call") if !request.modern => {
                let result = cancelled(request, later);
                tally.record("cancel-after-timeout", Grade::Should, result);
            }
            _ => {}
        }
    }
}

/// Whether call `index` of `case` has a reply a client gives up on: read from the case alone,
/// so that calls without one need no judging while the runner settles them.
pub(super) fn may_give_up(case: &CaseFile, index: usize) -> bool {
    let Some(call) = case.call.get(index) else {
        return false;
    };
    let timeout = call.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    call.reply.iter().any(|r| gives_up(r, timeout).is_some())
}

/// Whether the client had to give up on `request`: `Some(true)` when its scripted reply stalls
/// before the response, `Some(false)` when the response comes only after the call's timeout.
fn given_up(requests: &Requests, request: &Request) -> Option<bool> {
    let reply = requests.script_reply(request)?;
    let timeout = requests.case.call.get(requests.call)?.timeout_ms;
    gives_up(reply, timeout.unwrap_or(DEFAULT_TIMEOUT_MS))
}

/// [`given_up`] for one scripted reply and the call's timeout.
fn gives_up(reply: &Reply, timeout: u64) -> Option<bool> {
    match answered_at_ms(reply) {
        Some(at) => (at >= timeout).then_some(false),
        None => (reply.end == End::Stall).then_some(true),
    }
}

/// When a scripted reply sends its response, in milliseconds after the request: its delay, plus
/// an SSE gap for each event before the one that answers. `None` when it sends none.
fn answered_at_ms(reply: &Reply) -> Option<u64> {
    if reply.event.is_empty() {
        return answer_message(reply).map(|_| reply.delay_ms);
    }
    let at = reply.event.iter().position(|e| event_answer(e).is_some())?;
    let before = reply.event[..at]
        .iter()
        .fold(0_u64, |n, e| n.saturating_add(u64::from(e.times())));
    Some(
        reply
            .delay_ms
            .saturating_add(reply.event_gap_ms.saturating_mul(before)),
    )
}

/// The `notifications/cancelled` POSTs among `later` that name `request`'s id.
fn cancels_of<'r>(
    request: &Request,
    later: &'r [Request<'r>],
) -> impl Iterator<Item = &'r Request<'r>> {
    let id = request.id().cloned().unwrap_or(Value::Null);
    later.iter().filter(move |r| {
        r.method() == Some("notifications/cancelled")
            && r.message.pointer("/params/requestId") == Some(&id)
    })
}

fn cancelled(request: &Request, later: &[Request]) -> Result<(), String> {
    if cancels_of(request, later).next().is_some() {
        return Ok(());
    }
    let id = request
        .id()
        .map_or_else(|| "none".to_owned(), Value::to_string);
    let other = later
        .iter()
        .find(|r| r.method() == Some("notifications/cancelled"));
    Err(match other {
        Some(other) => format!(
            "{} named requestId {}, not the id {id} of {} that timed out",
            other.label,
            other
                .message
                .pointer("/params/requestId")
                .map_or_else(|| "none".to_owned(), Value::to_string),
            request.label
        ),
        None => format!(
            "no notifications/cancelled for {} (id {id}) after the server left it unanswered",
            request.label
        ),
    })
}

fn not_cancelled(request: &Request, later: &[Request]) -> Result<(), String> {
    match cancels_of(request, later).next() {
        Some(cancel) => Err(format!(
            "{} cancelled {} (initialize), which a client must not cancel",
            cancel.label, request.label
        )),
        None => Ok(()),
    }
}

fn closed(request: &Request) -> Result<(), String> {
    match request.exchange.reply.client_closed_ms {
        Some(_) => Ok(()),
        None => Err(format!(
            "the stream of {} stayed open after the client gave up on it",
            request.label
        )),
    }
}

//! Timeouts and cancellation. A request whose response never reached the client is one the
//! client gave up on: its reply stalls before the response or sends it later than the client's
//! timeout, or (2025) its reply ends without one. In a 2025 session the client SHOULD then send
//! `notifications/cancelled` naming the request's id (2025-11-25 basic/lifecycle, "Timeouts";
//! basic/utilities/cancellation), since there "Disconnection SHOULD NOT be interpreted as the
//! client cancelling its request" (basic/transports): the server may still be working on it.
//! Over HTTP in 2026-07-28 cancelling is closing the response stream (2026-07-28
//! streamable-http, "Cancellation"), which the server sees for a reply it still holds open.
//! `initialize` MUST NOT be cancelled.

use super::{Request, Requests, Tally, answer_message, event_answer};
use crate::case::model::DEFAULT_TIMEOUT_MS;
use crate::case::{CaseFile, End, Grade, Reply};
use crate::outcome::Outcome;
use crate::stdio::action::paths;
use crate::wire::Exchange;
use serde_json::Value;

/// Why a client stopped waiting for a request without its response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GaveUp {
    /// Its reply stalls before the response: the connection stays open.
    Stalled,
    /// Its response comes only after the call's timeout.
    Late,
    /// Its reply ends without a response to it: a 2xx with no body, a response to another id,
    /// an SSE stream that ends cleanly (and cannot be resumed) without one; or the call expects
    /// `TIMEOUT` and the reply has no response to it at all.
    Unanswered,
}

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    for (at, request) in requests.list.iter().enumerate() {
        let Some(gave_up) = given_up(requests, request) else {
            continue;
        };
        let later = &requests.list[at + 1..];
        match request.method() {
            // Only a timeout: an `initialize` whose answer was no result failed the handshake.
            Some("initialize") if gave_up != GaveUp::Unanswered => {
                let result = not_cancelled(request, later);
                tally.record("no-cancel-initialize", Grade::Must, result);
            }
            Some("tools/call") if request.modern && gave_up == GaveUp::Stalled => {
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
    let expects_timeout = call.expect.outcome == Outcome::Timeout;
    call.reply
        .iter()
        .any(|r| gives_up(r, timeout).is_some() || leaves_unanswered(r, None, expects_timeout))
}

/// Whether a cancel of call `index` may still come: a `tools/call` of the call went out in a
/// session (it named one, or came over stdio, where the process is the session), and no cancel
/// of the call has arrived yet. A client sends it after giving up, often after it reported; a
/// cancel that no check judges still shows in the record.
pub(super) fn may_follow(index: usize, exchanges: &[Exchange]) -> bool {
    let of_call = || exchanges.iter().filter(|e| e.call == index);
    let in_session = of_call().any(|e| {
        e.jsonrpc_method.as_deref() == Some("tools/call")
            && (e.header("mcp-session-id").is_some() || e.path == paths::LINE)
    });
    let cancelled =
        of_call().any(|e| e.jsonrpc_method.as_deref() == Some("notifications/cancelled"));
    in_session && !cancelled
}

/// Whether and why the client had to give up on `request`, read from its scripted reply and the
/// call's timeout and expectation.
fn given_up(requests: &Requests, request: &Request) -> Option<GaveUp> {
    let reply = requests.script_reply(request)?;
    let call = requests.case.call.get(requests.call)?;
    let timeout = call.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    let expects_timeout = call.expect.outcome == Outcome::Timeout;
    gives_up(reply, timeout).or_else(|| {
        leaves_unanswered(
            reply,
            Some(request.id().unwrap_or(&Value::Null)),
            expects_timeout,
        )
        .then_some(GaveUp::Unanswered)
    })
}

/// [`given_up`] by the clock, for one scripted reply and the call's timeout: [`GaveUp::Stalled`]
/// when it stalls before the response, [`GaveUp::Late`] when the response comes only after the
/// timeout.
fn gives_up(reply: &Reply, timeout: u64) -> Option<GaveUp> {
    match answered_at_ms(reply) {
        Some(at) => (at >= timeout).then_some(GaveUp::Late),
        None => (reply.end == End::Stall).then_some(GaveUp::Stalled),
    }
}

/// Whether `reply` ends without a response to the request whose id is `id` (`None`: any
/// request, as far as the case alone tells): a 2xx whose body ends cleanly with no response to
/// it (no body at all, a response to another id, an SSE stream without one whose events carry
/// no event id, so that no resumption can bring it), or, when the call expects `TIMEOUT`, any
/// reply without a response to it. A non-2xx status is the server turning the request down,
/// and a body that breaks off or is no JSON may have been the response: neither is judged.
fn leaves_unanswered(reply: &Reply, id: Option<&Value>, expects_timeout: bool) -> bool {
    let answered = match (&reply.json, &reply.raw) {
        _ if !reply.event.is_empty() => {
            reply.event.iter().any(|e| {
                event_answer(e).is_some_and(|m| responds_to(&m, id))
                    // Data written as text may be a garbled response: not judged as none.
                    || e.data_raw.as_deref().is_some_and(|d| !d.is_empty())
            })
        }
        (Some(json), _) => serde_json::from_str(json).map_or(true, |m| responds_to(&m, id)),
        (None, Some(raw)) => !raw.is_empty(),
        (None, None) => false,
    };
    if expects_timeout {
        return !answered;
    }
    let two_xx = reply.status.is_some_and(|s| (200..300).contains(&s));
    let clean = reply.end == End::Complete && reply.cut_after.is_none();
    let resumable = reply.event.iter().any(|e| e.id.is_some());
    two_xx && clean && !resumable && !answered
}

/// Whether a scripted `message` (placeholders as written) responds to the request with id
/// `id`: its id is `"$id"` or that id, or it is an error whose id is absent or `null` (the
/// server could not read the request's id). Anything but a JSON object is taken to respond.
/// With `id` unknown, only `"$id"` and id-less errors count.
fn responds_to(message: &Value, id: Option<&Value>) -> bool {
    let Some(object) = message.as_object() else {
        return true;
    };
    match object.get("id") {
        None | Some(Value::Null) => object.contains_key("error"),
        Some(Value::String(s)) if s == "$id" => true,
        Some(other) => id == Some(other),
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

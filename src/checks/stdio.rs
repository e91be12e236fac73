//! The checks of a stdio call (docs/stdio.md, "Checks"): what a client must do about the
//! server process behind the pipe. Judged from the record the stdio server processes relayed
//! (the lines they read, the events they reported, their hold connections) and the call's span.

use super::{CallSpan, Tally};
use crate::case::{CaseFile, Grade, StdioEnd};
use crate::stdio::Event;
use crate::stdio::action::paths;
use crate::wire::Exchange;
use serde_json::Value;

/// How soon after the server died a client must have answered, or failed the next call: 2 s,
/// far below the cases' timeouts (10 s), far above any scheduling delay.
pub const PROMPT_MS: u64 = 2_000;

/// Judges call `index` of a stdio case.
pub(super) fn check(
    case: &CaseFile,
    index: usize,
    exchanges: &[Exchange],
    span: CallSpan,
    tally: &mut Tally,
) {
    let call = &case.call[index];
    let served: Vec<(usize, &Exchange)> = exchanges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.call == index && e.path == paths::LINE && e.is_tool_call())
        .collect();
    for &(at, line) in &served {
        let Some(reply) = line.reply.script_index.and_then(|i| call.stdio.get(i)) else {
            continue;
        };
        if reply.stderr_bytes > 0 {
            tally.record(
                "stdio-stderr-drained",
                Grade::Must,
                drained(reply.stderr_bytes, &exchanges[at..]),
            );
        }
        if reply.end != StdioEnd::Stay {
            let result = reported(&exchanges[at..], span);
            tally.record("stdio-exit-reported", Grade::Should, result);
        }
        for id in server_requests(reply) {
            tally.record(
                "ping-answered",
                Grade::Must,
                answered(&id, &exchanges[at..]),
            );
        }
    }
    if died_before(index, exchanges) {
        let result = next_call(index, exchanges, span);
        tally.record("stdio-next-call-after-exit", Grade::Must, result);
    }
}

/// The events a stdio server reported, with when.
fn events(exchanges: &[Exchange]) -> impl Iterator<Item = (u64, usize, Event)> + '_ {
    exchanges
        .iter()
        .filter(|e| e.path == paths::EVENT)
        .filter_map(|e| Some((e.at_ms, e.call, serde_json::from_str(&e.body).ok()?)))
}

/// Whether the event ends what the server sends: it exited, was killed or closed its stdout.
fn is_death(event: &Event) -> bool {
    matches!(
        event,
        Event::Exit { .. } | Event::Kill { .. } | Event::StdoutClosed
    )
}

fn drained(bytes: u64, after: &[Exchange]) -> Result<(), String> {
    let written = events(after).any(|(_, _, e)| matches!(e, Event::StderrWritten { .. }));
    written.then_some(()).ok_or_else(|| {
        format!(
            "the server wrote {bytes} bytes to stderr and never got to the end: the client did \
             not read its server's stderr, so the pipe (64 KiB) filled and blocked the server \
             before its response"
        )
    })
}

fn reported(after: &[Exchange], span: CallSpan) -> Result<(), String> {
    let Some((died_ms, _, event)) = events(after).find(|(_, _, e)| is_death(e)) else {
        return Ok(()); // the process did not get that far
    };
    let waited = span.ended_ms.saturating_sub(died_ms);
    if waited <= PROMPT_MS {
        return Ok(());
    }
    Err(format!(
        "the server {} at {died_ms} ms; the client answered {waited} ms later (more than \
         {PROMPT_MS} ms): it waited for its timeout instead of noticing the end of the pipe",
        death_words(&event)
    ))
}

fn death_words(event: &Event) -> String {
    match event {
        Event::Exit { code } => format!("exited with status {code}"),
        Event::Kill { signal } => format!("was killed by SIG{signal:?}").to_uppercase(),
        _ => "closed its stdout".to_owned(),
    }
}

/// The ids of the requests (a method and an id) among a reply's JSON lines.
fn server_requests(reply: &crate::case::StdioReply) -> Vec<Value> {
    reply
        .line
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l.json.as_deref()?).ok())
        .filter(|m| m.get("method").is_some_and(Value::is_string))
        .filter_map(|m| m.get("id").cloned())
        .collect()
}

fn answered(id: &Value, after: &[Exchange]) -> Result<(), String> {
    let answer = after.iter().filter(|e| e.path == paths::LINE).any(|e| {
        let message: Option<Value> = crate::json_text::value(&e.body);
        message.is_some_and(|m| {
            m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some())
        })
    });
    answer
        .then_some(())
        .ok_or_else(|| format!("the server's request {id} got no response on stdin"))
}

/// Whether the server died during an earlier call.
fn died_before(index: usize, exchanges: &[Exchange]) -> bool {
    events(exchanges).any(|(_, call, e)| call < index && is_death(&e))
}

/// After the server died: this call started a new server and called the tool through it, or
/// failed within [`PROMPT_MS`].
fn next_call(index: usize, exchanges: &[Exchange], span: CallSpan) -> Result<(), String> {
    let restarted = exchanges
        .iter()
        .position(|e| e.path.starts_with(paths::HOLD) && e.at_ms >= span.began_ms)
        .is_some_and(|at| {
            exchanges[at..]
                .iter()
                .any(|e| e.call == index && e.path == paths::LINE && e.is_tool_call())
        });
    let took = span.ended_ms.saturating_sub(span.began_ms);
    if restarted || took <= PROMPT_MS {
        return Ok(());
    }
    Err(format!(
        "the server died in an earlier call; this call neither started a new server nor failed \
         at once: it took {took} ms (more than {PROMPT_MS} ms)"
    ))
}

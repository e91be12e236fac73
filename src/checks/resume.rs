//! SSE resumption (2025 era): a GET that resumes a stream (one with `Last-Event-ID`) names the
//! last event id the stream sent and comes no sooner than the stream's `retry` asked.

use super::{Request, Requests, Tally};
use crate::case::Grade;

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    for (at, request) in requests.list.iter().enumerate() {
        // A GET without Last-Event-ID opens a standalone stream (some clients do so after
        // `initialize`, racing their own calls): it resumes nothing.
        if !request.exchange.is_resumption() {
            continue;
        }
        let Some((stream, reply)) = requests.list[..at]
            .iter()
            .rev()
            .find_map(|r| Some((r, requests.script_reply(r).filter(|s| !s.event.is_empty())?)))
        else {
            continue;
        };
        let last_id = reply.event.iter().rev().find_map(|e| e.id.as_deref());
        if let Some(last_id) = last_id {
            tally.record(
                "resume-last-event-id",
                Grade::Should,
                names(request, last_id),
            );
        }
        if let Some(retry) = reply.event.iter().rev().find_map(|e| e.retry) {
            tally.record(
                "resume-waits-retry",
                Grade::Must,
                waited(request, stream, retry),
            );
        }
    }
}

fn names(request: &Request, last_id: &str) -> Result<(), String> {
    match request.header("last-event-id") {
        Some(sent) if sent != last_id => Err(format!(
            "{}: Last-Event-ID is {sent:?}, the last event id sent was {last_id:?}",
            request.label
        )),
        _ => Ok(()),
    }
}

fn waited(request: &Request, stream: &Request, retry: u64) -> Result<(), String> {
    let gap = request.ms_after_answer_to(stream);
    if gap >= retry {
        Ok(())
    } else {
        Err(format!(
            "{}: came {gap} ms after the stream of {} ended; its retry field asked for {retry} ms",
            request.label, stream.label
        ))
    }
}

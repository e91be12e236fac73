//! Tasks (cases/README.md, "Tasks"): a `tools/call` the client asked to run as a task, answered
//! with a `CreateTaskResult`, then polled with `tasks/get`. What the requestor must do:
//! - wait what `pollInterval` (2025-11-25) or `pollIntervalMs` (2026-07-28) asks between polls
//!   (2025-11-25 basic/utilities/tasks.mdx:193, 459; SEP-2663 :310), and not spin when it asks
//!   for nothing or for 0 (`task-poll-interval`);
//! - poll until a terminal status, never waiting on the optional status notification
//!   (tasks.mdx:195, 303, 478; SEP-2663 :312) (`task-polls-to-terminal`);
//! - cancel a task it gives up on with `tasks/cancel`, never `notifications/cancelled`
//!   (2025-11-25 basic/utilities/cancellation.mdx:36; SEP-2663 :387) (`task-cancel-not-notification`);
//! - in 2026-07-28, name the task in `Mcp-Name` (SEP-2663 :515) (`task-name-header`) and never
//!   call `tasks/result`, which the extension removed (SEP-2663 :949) (`no-tasks-result-2026`).

use super::{Request, Requests, Tally, sent_json};
use crate::case::{Grade, TaskSupport};
use crate::classify::task::TaskState;
use serde_json::Value;

/// The fewest milliseconds between two polls when the server asked for no interval, or for 0:
/// at most 20 polls a second. The spec sets no floor; this harness does, so that a client that
/// reads 0 as "poll in a tight loop" fails and one with any sane default passes.
pub const MIN_POLL_GAP_MS: u64 = 50;

/// The timer resolution of the record: arrival and end times are whole milliseconds, so a gap
/// that was exactly the interval may be recorded one millisecond short.
const RESOLUTION_MS: u64 = 1;

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    let list = &requests.list;
    let Some(created) = list.iter().position(|r| created_task(r).is_some()) else {
        return;
    };
    let modern = list[created].modern;
    for request in &list[created..] {
        let method = request.method().unwrap_or_default();
        if request.modern && ["tasks/get", "tasks/update", "tasks/cancel"].contains(&method) {
            tally.record("task-name-header", Grade::Must, name_header(request));
        }
    }
    if modern {
        let result = match list[created..]
            .iter()
            .find(|r| r.modern && r.method() == Some("tasks/result"))
        {
            Some(r) => Err(format!(
                "{} is tasks/result, which 2026-07-28 removed (the tasks extension, SEP-2663): a \
                 completed task carries its result in the tasks/get answer",
                r.label
            )),
            None => Ok(()),
        };
        tally.record("no-tasks-result-2026", Grade::Must, result);
    }
    if !asked_for_task(&list[created]) {
        // A task the client never asked for is an invalid answer, not one to poll; unless the
        // application asked for one where the client could have (a client that cannot says
        // `unsupported` and is not judged).
        if let Some(why) = not_asked(requests, &list[created]) {
            tally.record("task-polls-to-terminal", Grade::Should, Err(why));
        }
        return;
    }
    poll_intervals(&list[created..], tally);
    let ended = ended(&list[created..]);
    tally.record(
        "task-polls-to-terminal",
        Grade::Should,
        polled_to_end(&list[created..], ended),
    );
    if !ended {
        let result = cancelled_by_tasks_cancel(&list[created], &list[created + 1..]);
        tally.record("task-cancel-not-notification", Grade::Should, result);
    }
}

/// The task a `tools/call` was answered with.
fn created_task(request: &Request) -> Option<TaskState> {
    if request.method() != Some("tools/call") {
        return None;
    }
    TaskState::of(sent_json(request.exchange)?.get("result")?)
}

/// The task state a `tasks/get` (or the creating `tools/call`) was answered with.
fn task_answer(request: &Request) -> Option<TaskState> {
    match request.method() {
        Some("tools/call") => created_task(request),
        Some("tasks/get") => TaskState::of(sent_json(request.exchange)?.get("result")?),
        _ => None,
    }
}

/// Whether the client asked for `request` (a `tools/call`) to run as a task: `params.task` in
/// 2025-11-25, the tasks extension among its per-request capabilities in 2026-07-28.
fn asked_for_task(request: &Request) -> bool {
    let extension = "/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions/\
                     io.modelcontextprotocol~1tasks";
    request.message.pointer("/params/task").is_some()
        || request.message.pointer(extension).is_some()
}

/// Why a client that did not ask for a task (`created`, the `tools/call`) should have: the
/// application asked for one ([`crate::case::Call::task`]) and the era and tool allow it (in
/// 2025-11-25 a tool whose `taskSupport` is `optional` or `required`). `None` otherwise.
fn not_asked(requests: &Requests, created: &Request) -> Option<String> {
    let call = requests.case.call.get(requests.call)?;
    call.task.as_ref()?;
    let way = if created.modern {
        "declared no io.modelcontextprotocol/tasks extension"
    } else {
        match requests.case.tool.task_support {
            Some(TaskSupport::Optional | TaskSupport::Required) => "sent no params.task",
            _ => return None,
        }
    };
    Some(format!(
        "the application asked for the call as a task, but {} {way}, and then did not poll the \
         task the server created",
        created.label
    ))
}

/// `task-name-header`: `Mcp-Name` is the request's `params.taskId`.
fn name_header(request: &Request) -> Result<(), String> {
    let task = request
        .message
        .pointer("/params/taskId")
        .and_then(Value::as_str);
    match (request.header("mcp-name"), task) {
        (Some(name), Some(task)) if name == task => Ok(()),
        (name, task) => Err(format!(
            "{} has Mcp-Name {}, not its params.taskId {}",
            request.label,
            name.map_or_else(|| "missing".to_owned(), |n| format!("{n:?}")),
            task.map_or_else(|| "(none)".to_owned(), |t| format!("{t:?}")),
        )),
    }
}

/// `task-poll-interval`: each `tasks/get` came no sooner after the task answer before it than
/// that answer asked (or [`MIN_POLL_GAP_MS`] when it asked for nothing or 0).
fn poll_intervals(list: &[Request], tally: &mut Tally) {
    let mut last: Option<(&Request, TaskState)> = None;
    for request in list {
        if let (Some("tasks/get"), Some((before, state))) = (request.method(), &last) {
            let asked = state.poll_ms.filter(|&ms| ms > 0);
            let need = asked.unwrap_or(MIN_POLL_GAP_MS);
            let gap = request.ms_after_answer_to(before);
            let result = if gap.saturating_add(RESOLUTION_MS) >= need {
                Ok(())
            } else {
                let why = match asked {
                    Some(ms) => format!("which asked for a poll interval of {ms} ms"),
                    None => format!(
                        "which asked for no interval or 0 (this harness allows at most one poll \
                         per {MIN_POLL_GAP_MS} ms then)"
                    ),
                };
                Err(format!(
                    "{} came {gap} ms after the answer to {}, {why}",
                    request.label, before.label
                ))
            };
            tally.record("task-poll-interval", Grade::Should, result);
        }
        if let Some(state) = task_answer(request) {
            last = Some((request, state));
        }
    }
}

/// Whether the client saw the task end: a terminal status, an answer to `tasks/result` (the
/// blocking read of 2025-11-25, which returns only at the end), or an error answer to
/// `tasks/get` (the task is unknown or gone: nothing is left to poll or cancel).
fn ended(list: &[Request]) -> bool {
    list.iter().any(|request| match request.method() {
        Some("tasks/get" | "tools/call") => {
            task_answer(request).is_some_and(|s| s.is_terminal())
                || (request.method() == Some("tasks/get") && is_error_answer(request))
        }
        Some("tasks/result") => request.exchange.reply.status.is_some(),
        _ => false,
    })
}

/// An answer that is an HTTP error or a JSON-RPC error.
fn is_error_answer(request: &Request) -> bool {
    let status = request.exchange.reply.status.unwrap_or(0);
    let error = sent_json(request.exchange).is_some_and(|m| m.get("error").is_some());
    !(200..300).contains(&status) || error
}

/// `task-polls-to-terminal`: the client polled until the task ended, or cancelled it.
fn polled_to_end(list: &[Request], ended: bool) -> Result<(), String> {
    let cancelled = list.iter().any(|r| r.method() == Some("tasks/cancel"));
    if ended || cancelled {
        return Ok(());
    }
    let last = list.iter().rev().find_map(|r| Some((r, task_answer(r)?)));
    Err(match last {
        Some((request, state)) if request.method() == Some("tools/call") => format!(
            "no tasks/get after {} created the task (status {}): a client polls, it does not \
             wait for the optional status notification",
            request.label,
            state.status.as_deref().unwrap_or("none")
        ),
        Some((request, state)) => format!(
            "the polls stopped after {} answered status {}, not a terminal one, and the client \
             did not cancel the task",
            request.label,
            state.status.as_deref().unwrap_or("none")
        ),
        None => "the client neither polled the task to its end nor cancelled it".to_owned(),
    })
}

/// `task-cancel-not-notification`: a client that gave up on its task sent `tasks/cancel` with
/// the task's id, and no `notifications/cancelled` for the request that created it.
fn cancelled_by_tasks_cancel(created: &Request, later: &[Request]) -> Result<(), String> {
    let id = created.id().cloned().unwrap_or(Value::Null);
    let notice = later.iter().find(|r| {
        r.method() == Some("notifications/cancelled")
            && r.message.pointer("/params/requestId") == Some(&id)
    });
    if let Some(notice) = notice {
        return Err(format!(
            "{} is notifications/cancelled for {}, which created a task: a task is cancelled \
             with tasks/cancel",
            notice.label, created.label
        ));
    }
    let task = created_task(created).and_then(|s| s.id);
    let cancel = later.iter().find(|r| {
        r.method() == Some("tasks/cancel")
            && r.message.pointer("/params/taskId").and_then(Value::as_str) == task.as_deref()
    });
    match cancel {
        Some(_) => Ok(()),
        None => Err(format!(
            "the client gave up on task {} before it ended and sent no tasks/cancel for it",
            task.map_or_else(|| "(no id)".to_owned(), |t| format!("{t:?}"))
        )),
    }
}

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;

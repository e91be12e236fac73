//! What case loading checks of the task keys (cases/README.md, "Tasks"): tasks exist from
//! 2025-11-25 on, `tasks/result` and `execution.taskSupport` only in 2025-11-25 (the 2026-07-28
//! tasks extension removed both, SEP-2663), and every scripted task answer is a reply like any
//! other.

use super::model::{Call, CaseFile};
use super::problem::Problem;
use super::validate::validate_reply;
use crate::era::{Era, MODERN_VERSION, SESSION_VERSIONS};

/// The first version with tasks (2025-11-25 basic/utilities/tasks).
const FIRST_TASKS_VERSION: &str = SESSION_VERSIONS[1];

/// The task keys of a case that passed [`super::validate::validate`] (loading runs the two in
/// that order, so that this module may use the replies' checks and not the other way round).
pub(super) fn validate(file: &mut CaseFile) -> Result<(), Problem> {
    validate_tool(file)?;
    for (i, call) in file.call.iter_mut().enumerate() {
        validate_call(call, &file.protocol_version)
            .map_err(|(key, msg)| (format!("call[{i}].{key}"), msg))?;
    }
    Ok(())
}

/// `[tool] task_support` is a 2025-11-25 field.
fn validate_tool(file: &CaseFile) -> Result<(), Problem> {
    if file.tool.task_support.is_none() || file.protocol_version == FIRST_TASKS_VERSION {
        return Ok(());
    }
    let msg = format!(
        "`execution.taskSupport` is a {FIRST_TASKS_VERSION} tool field: {} has none ({})",
        file.protocol_version,
        if file.protocol_version == MODERN_VERSION {
            "the 2026-07-28 tasks extension lets the server decide per request, SEP-2663"
        } else {
            "tasks came in 2025-11-25"
        }
    );
    let fix = format!("; set protocol_version = \"{FIRST_TASKS_VERSION}\" or remove the key");
    Err(("tool.task_support".into(), msg + &fix))
}

/// The task keys of one call: the era has tasks, and each scripted answer is a valid reply.
fn validate_call(call: &mut Call, version: &str) -> Result<(), Problem> {
    if version != FIRST_TASKS_VERSION && version != MODERN_VERSION && call.uses_tasks() {
        let key = first_task_key(call);
        let msg = format!(
            "{version} has no tasks (they came in {FIRST_TASKS_VERSION}): set protocol_version \
             to \"{FIRST_TASKS_VERSION}\" or \"{MODERN_VERSION}\", or remove `{key}`"
        );
        return Err((key.into(), msg));
    }
    if Era::of(version) == Some(Era::Stateless) && !call.task_result.is_empty() {
        let msg = format!(
            "{MODERN_VERSION} has no tasks/result (the tasks extension removed it, SEP-2663: a \
             completed task carries its result in the tasks/get answer): put the result in a \
             [[call.task_get]] answer and remove [[call.task_result]]; the server answers a \
             tasks/result with -32601 on its own"
        );
        return Err(("task_result".into(), msg));
    }
    for (key, replies) in [
        ("task_get", &mut call.task_get),
        ("task_result", &mut call.task_result),
        ("task_cancel", &mut call.task_cancel),
    ] {
        for (j, reply) in replies.iter_mut().enumerate() {
            validate_reply(reply).map_err(|(inner, msg)| (format!("{key}[{j}].{inner}"), msg))?;
        }
    }
    Ok(())
}

/// The first task key a call sets, for a message about all of them.
fn first_task_key(call: &Call) -> &'static str {
    if call.task.is_some() {
        "task"
    } else if !call.task_get.is_empty() {
        "task_get"
    } else if !call.task_result.is_empty() {
        "task_result"
    } else {
        "task_cancel"
    }
}

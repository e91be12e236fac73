//! Tasks: a call the application asked to run as a task ([`crate::adapter::CallContext::task`]).
//!
//! - 2025-11-25: the call is task-augmented (`params.task`) only when the server declared
//!   `tasks.requests.tools.call` and the tool's `execution.taskSupport` is `optional` or
//!   `required` (basic/utilities/tasks, "Tool-Level Negotiation": otherwise a client MUST NOT),
//!   so the client lists the tools first. A completed or failed task's outcome is what
//!   `tasks/result` returns: the result or the JSON-RPC error of the underlying call.
//! - 2026-07-28: the client declares the `io.modelcontextprotocol/tasks` extension on the call
//!   and the server decides (SEP-2663). A completed task carries its result, a failed one its
//!   JSON-RPC `error`, in the `tasks/get` answer; there is no `tasks/result`. Every task request
//!   names the task in `Mcp-Name`.
//!
//! In both it polls `tasks/get` no sooner than `pollInterval(Ms)` asks ([`DEFAULT_POLL`] when
//! the server asks for nothing or 0), until a terminal status; a task the server cancelled is
//! `TASK_CANCELLED`. A task it gives up on (its timeout, or input it cannot give in
//! 2026-07-28) is cancelled with `tasks/cancel`, never `notifications/cancelled`. A task
//! answer to a call that did not ask for one stays what the classifier says of it, an invalid
//! tool result.

use super::exchange::{Reply, exchange};
use super::{Mode, Run, body, prefixed, wire};
use crate::classify::task::TaskState;
use crate::classify::{BodyEnd, Classification, classify};
use crate::era::MODERN_VERSION;
use crate::outcome::Outcome;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The wait between polls when the server asks for none, or for 0: a client must not spin.
const DEFAULT_POLL: Duration = Duration::from_millis(100);

/// The most polls of one task, whatever the deadline: the bound of a server that answers
/// `working` with a 1 ms interval under a long timeout.
const MAX_POLLS: u32 = 10_000;

/// How long a `tasks/cancel` may take once the call's deadline has passed.
const CANCEL_WITHIN: Duration = Duration::from_millis(500);

/// The extension a 2026-07-28 client declares to receive tasks (SEP-2663).
const EXTENSION: &str = "io.modelcontextprotocol/tasks";

impl Run<'_> {
    /// Whether the `tools/call` goes out task-augmented in `mode`, given the `tools/list` result
    /// the client read first (2025-11-25 needs it: see the module docs).
    pub(super) fn augments(&self, mode: Mode<'_>, listed: Option<&Value>) -> bool {
        if self.ctx.task.is_none() {
            return false;
        }
        match mode {
            Mode::Stateless => true,
            Mode::Session(session) => {
                let support = listed
                    .and_then(|l| l.get("tools")?.as_array())
                    .and_then(|tools| tools.iter().find(|t| t["name"] == json!(self.ctx.tool)))
                    .and_then(|tool| tool.pointer("/execution/taskSupport")?.as_str());
                session.tasks && matches!(support, Some("optional" | "required"))
            }
        }
    }

    /// Whether the client must list the tools before the call to decide on a task.
    pub(super) fn lists_for_task(&self, mode: Mode<'_>) -> bool {
        self.ctx.task.is_some() && matches!(mode, Mode::Session(_))
    }

    /// What a task-augmented `tools/call` adds: `params.task` (2025-11-25), or the extension
    /// among the `_meta` capabilities (2026-07-28).
    pub(super) fn augment(&self, mode: Mode<'_>, params: &mut Value) {
        if !self.task_augmented {
            return;
        }
        match mode {
            Mode::Session(_) => {
                let ttl = self.ctx.task.as_ref().and_then(|t| t.ttl_ms);
                params["task"] = ttl.map_or_else(|| json!({}), |ttl| json!({"ttl": ttl}));
            }
            Mode::Stateless => declare_extension(&mut params["_meta"]),
        }
    }

    /// `reply` to the call, or, when it is the task the client asked for, the outcome of that
    /// task.
    pub(super) async fn through_task(&mut self, mode: Mode<'_>, reply: Reply) -> Reply {
        if !self.task_augmented {
            return reply;
        }
        let created = body::result(&reply, &reply.id).and_then(|r| TaskState::of(&r));
        let Some(task) = created else {
            return reply; // the server chose to answer at once
        };
        self.last_task_answer = body::result(&reply, &reply.id);
        let Some(task_id) = task.id.clone() else {
            return Reply {
                classification: bad_task(&reply.classification, "a task without a taskId"),
                ..reply
            };
        };
        let classification = self.poll(mode, &task_id, task).await;
        Reply {
            classification,
            ..reply
        }
    }

    /// Polls task `task_id` from its first state to its end, or gives up on it.
    async fn poll(
        &mut self,
        mode: Mode<'_>,
        task_id: &str,
        mut state: TaskState,
    ) -> Classification {
        for _ in 0..MAX_POLLS {
            match state.status.as_deref() {
                Some("working") => {}
                Some("cancelled") => return cancelled_by_server(task_id),
                Some("completed" | "failed" | "input_required") => {
                    return self.outcome_of(mode, task_id, &state).await;
                }
                other => {
                    let why = format!("task {task_id} has status {other:?}, no task status");
                    return self.give_up(mode, task_id, bad_task_reason(why)).await;
                }
            }
            let wait = Duration::from_millis(state.poll_ms.unwrap_or(0));
            let wait = if wait.is_zero() { DEFAULT_POLL } else { wait };
            if !self.deadline.leaves(wait) {
                tokio::time::sleep_until(self.deadline.at()).await;
                let why = format!(
                    "task {task_id} was still working when the client timeout of {} ms passed \
                     (the next poll was due in {} ms); cancelled with tasks/cancel",
                    self.ctx.timeout.as_millis(),
                    wait.as_millis()
                );
                return self
                    .give_up(mode, task_id, Classification::timeout(why))
                    .await;
            }
            tokio::time::sleep(wait).await;
            let reply = self.task_request(mode, "tasks/get", task_id).await;
            let result = body::result(&reply, &reply.id);
            state = match result.as_ref().and_then(TaskState::of) {
                Some(state) => state,
                None if reply.classification.outcome == Outcome::Timeout => {
                    let why = prefixed(reply.classification, "tasks/get");
                    return self.give_up(mode, task_id, why).await;
                }
                None if result.is_some() => {
                    let why = "tasks/get answered a result that is no task".to_owned();
                    return bad_task(&reply.classification, &why);
                }
                // An error answer (an unknown or expired task: -32602) ends the task.
                None => return prefixed(reply.classification, "tasks/get"),
            };
            // The final state's result in 2026-07-28 is read from the same answer.
            self.last_task_answer = result;
        }
        let why = format!("task {task_id} still working after {MAX_POLLS} polls; cancelled");
        self.give_up(mode, task_id, Classification::timeout(why))
            .await
    }

    /// The outcome of a task that reached `completed`, `failed` or (2025-11-25)
    /// `input_required`: what `tasks/result` returns in 2025-11-25, what the task carries in
    /// 2026-07-28.
    async fn outcome_of(
        &mut self,
        mode: Mode<'_>,
        task_id: &str,
        state: &TaskState,
    ) -> Classification {
        if let Mode::Session(_) = mode {
            // input_required: the requestor SHOULD call tasks/result, which blocks to the end
            // and delivers the server's requests on its stream (tasks.mdx:449).
            let reply = self.task_request(mode, "tasks/result", task_id).await;
            return prefixed(
                reply.classification,
                &format!("task {task_id}: tasks/result"),
            );
        }
        let task = self.last_task_answer.take().unwrap_or(Value::Null);
        let id = json!("task");
        let message = match state.status.as_deref() {
            Some("completed") => json!({"jsonrpc": "2.0", "id": id, "result": task["result"]}),
            Some("failed") => json!({"jsonrpc": "2.0", "id": id, "error": task["error"]}),
            _ => {
                let why = Classification {
                    outcome: Outcome::InputRequired,
                    status: None,
                    code: None,
                    reason: format!(
                        "task {task_id} needs input this client cannot give; cancelled with \
                         tasks/cancel"
                    ),
                };
                return self.give_up(mode, task_id, why).await;
            }
        };
        let bytes = message.to_string().into_bytes();
        let judged = classify(
            200,
            Some("application/json"),
            &bytes,
            BodyEnd::Complete,
            &id,
        );
        let what = state.status.as_deref().unwrap_or_default();
        prefixed(judged, &format!("task {task_id} {what}"))
    }

    /// Sends `tasks/cancel` for a task this client gives up on, and reports `why`.
    async fn give_up(
        &mut self,
        mode: Mode<'_>,
        task_id: &str,
        why: Classification,
    ) -> Classification {
        let _ = tokio::time::timeout(CANCEL_WITHIN, self.task_send(mode, "tasks/cancel", task_id))
            .await;
        why
    }

    /// One task request under the call's deadline.
    async fn task_request(&mut self, mode: Mode<'_>, method: &str, task_id: &str) -> Reply {
        let (request, id) = self.task_post(mode, method, task_id);
        match mode {
            Mode::Session(session) => {
                let answers = self.answers_in(session);
                exchange(request, &id, &self.deadline, Some(&answers)).await
            }
            Mode::Stateless => exchange(request, &id, &self.deadline, None).await,
        }
    }

    /// One task request whose answer does not matter (a cancel).
    async fn task_send(&mut self, mode: Mode<'_>, method: &str, task_id: &str) {
        let (request, _) = self.task_post(mode, method, task_id);
        let _ = request.send().await;
    }

    /// The POST of task request `method` for `task_id`, and its id.
    fn task_post(
        &mut self,
        mode: Mode<'_>,
        method: &str,
        task_id: &str,
    ) -> (reqwest::RequestBuilder, Value) {
        let id = self.next_id();
        let mut params = json!({"taskId": task_id});
        let request = match mode {
            Mode::Stateless => {
                let mut meta = Value::Object(wire::stateless_meta(&id, self.options.mrtr));
                declare_extension(&mut meta);
                params["_meta"] = meta;
                let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                self.post(&body)
                    .header(wire::PROTOCOL_VERSION, MODERN_VERSION)
                    .header(wire::METHOD, method)
                    // SEP-2663 "Routing Headers": Mcp-Name is the task id.
                    .header(wire::NAME, wire::header_safe(task_id))
            }
            Mode::Session(session) => {
                let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                self.in_session(self.post(&body), session)
            }
        };
        (request, id)
    }
}

/// Adds the tasks extension to a 2026-07-28 `_meta`'s client capabilities.
fn declare_extension(meta: &mut Value) {
    let capabilities = &mut meta["io.modelcontextprotocol/clientCapabilities"];
    if !capabilities.is_object() {
        *capabilities = Value::Object(Map::new());
    }
    capabilities["extensions"][EXTENSION] = json!({});
}

/// A task the server cancelled: no result and no error will come.
fn cancelled_by_server(task_id: &str) -> Classification {
    Classification {
        outcome: Outcome::TaskCancelled,
        status: None,
        code: None,
        reason: format!("task {task_id} ended cancelled, not by this client: no result"),
    }
}

/// A task answer that is no valid task.
fn bad_task(answer: &Classification, why: &str) -> Classification {
    Classification {
        status: answer.status,
        ..bad_task_reason(why.to_owned())
    }
}

fn bad_task_reason(why: String) -> Classification {
    Classification {
        outcome: Outcome::InvalidToolResult,
        status: None,
        code: None,
        reason: why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_extension_joins_the_capabilities_the_meta_already_has() {
        let mut meta = json!({"io.modelcontextprotocol/clientCapabilities": {"roots": {}}});
        declare_extension(&mut meta);
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({"roots": {}, "extensions": {EXTENSION: {}}})
        );
    }
}

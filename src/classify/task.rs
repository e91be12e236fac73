//! Reading a task out of a result (2025-11-25 basic/utilities/tasks; SEP-2663): the
//! `CreateTaskResult` that answers a task-augmented request, and the task a `tasks/get` returns.
//! The reference client polls by it; the request checks judge the polling by it.

use serde_json::Value;

/// The statuses a task never leaves (tasks.mdx:407; SEP-2663 :134).
const TERMINAL: [&str; 3] = ["completed", "failed", "cancelled"];

/// What a task answer said: its id, status and poll interval, read from a `CreateTaskResult`
/// (2025-11-25 nests the task in `result.task`; 2026-07-28 has it in `result` with
/// `resultType: "task"`) or a `tasks/get` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskState {
    /// `taskId`.
    pub id: Option<String>,
    /// `status`.
    pub status: Option<String>,
    /// `pollInterval` or `pollIntervalMs`, when a non-negative integer.
    pub poll_ms: Option<u64>,
}

impl TaskState {
    /// The task in a result, when it holds one.
    pub fn of(result: &Value) -> Option<TaskState> {
        let task = match result.get("task") {
            Some(task) if task.is_object() => task,
            _ if result.get("taskId").is_some() => result,
            _ => return None,
        };
        let text = |key: &str| task.get(key).and_then(Value::as_str).map(str::to_owned);
        let poll_ms = ["pollInterval", "pollIntervalMs"]
            .iter()
            .find_map(|key| task.get(*key).and_then(Value::as_u64));
        Some(TaskState {
            id: text("taskId"),
            status: text("status"),
            poll_ms,
        })
    }

    /// Whether its status is one a task never leaves.
    pub fn is_terminal(&self) -> bool {
        self.status
            .as_deref()
            .is_some_and(|s| TERMINAL.contains(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_task_of_either_era_and_nothing_from_a_tool_result() {
        let legacy = json!({"task": {"taskId": "a", "status": "working", "pollInterval": 50}});
        let modern = json!({"resultType": "task", "taskId": "a", "status": "working",
                            "pollIntervalMs": 50});
        for result in [legacy, modern] {
            let state = TaskState::of(&result).unwrap();
            assert_eq!(state.id.as_deref(), Some("a"));
            assert_eq!(state.poll_ms, Some(50));
            assert!(!state.is_terminal());
        }
        let done = TaskState::of(&json!({"taskId": "a", "status": "cancelled"})).unwrap();
        assert!(done.is_terminal() && done.poll_ms.is_none());
        assert_eq!(
            TaskState::of(&json!({"content": [], "isError": false})),
            None
        );
        let negative = json!({"taskId": "a", "status": "working", "pollInterval": -1});
        assert_eq!(TaskState::of(&negative).unwrap().poll_ms, None);
    }
}

//! The request line of the persistent protocol: one call, as the program reads it on stdin.

use crate::adapter::{CallContext, Transport};
use serde_json::{Value, json};

/// One request: the call, as a JSON line; with `"id"` for a process that serves calls at once.
pub(super) fn request_line(call: &CallContext, id: Option<u64>) -> Vec<u8> {
    let stdio = call.transport == Transport::Stdio;
    let mut request = json!({
        // Over stdio there is no endpoint: the client starts `command` instead.
        "endpoint": if stdio { Value::Null } else { json!(call.endpoint) },
        "transport": call.transport.as_str(),
        "tool": call.tool,
        "arguments": call.arguments,
        "protocol_version": call.protocol_version,
        "timeout_ms": u64::try_from(call.timeout.as_millis()).unwrap_or(u64::MAX),
        "annotations": call.annotations,
        "list_tools": call.list_tools,
        // The case's calls run on one client: the adapter keeps it by this id between calls
        // and closes it after call `calls - 1`.
        "client": call.client.id,
        "call": call.client.call,
        "calls": call.client.calls,
    });
    if let Some(object) = request.as_object_mut() {
        // Absent for an ordinary call, so that adapters written before tasks see no change.
        if let Some(task) = &call.task {
            object.insert("task".into(), json!(task));
        }
        // Absent outside an authorization case, as `task` is outside a task call.
        if let Some(auth) = &call.auth {
            object.insert("auth".into(), auth.to_json());
        }
        if let Some(id) = id {
            object.insert("id".into(), id.into());
        }
        if stdio {
            object.insert("command".into(), json!(call.command));
        }
    }
    let mut line = request.to_string().into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_line_carries_every_field_of_the_call_and_ends_the_line() {
        let client = crate::adapter::ClientRef::first_of(3).at(1);
        let call = CallContext::new("http://127.0.0.1:1/mcp", "t", json!({"a": 1}))
            .with_list_tools(true)
            .with_client(client);
        let line = request_line(&call, Some(7));
        assert_eq!(line.last(), Some(&b'\n'));
        let sent: serde_json::Value = serde_json::from_slice(&line).unwrap();
        let want = json!({"endpoint": "http://127.0.0.1:1/mcp", "transport": "http",
                          "tool": "t", "arguments": {"a": 1},
                          "protocol_version": "2026-07-28", "timeout_ms": 5000,
                          "annotations": {}, "list_tools": true, "id": 7,
                          "client": client.id, "call": 1, "calls": 3});
        assert_eq!(sent, want);
    }

    #[test]
    fn a_stdio_call_names_the_command_and_no_endpoint() {
        let argv = vec![
            "/bin/server".to_owned(),
            "--session".to_owned(),
            "/s".to_owned(),
        ];
        let call = CallContext::new("x", "t", json!({})).with_stdio(argv);
        let sent: serde_json::Value = serde_json::from_slice(&request_line(&call, None)).unwrap();
        assert_eq!(sent["transport"], "stdio");
        assert_eq!(sent["endpoint"], serde_json::Value::Null);
        assert_eq!(sent["command"], json!(["/bin/server", "--session", "/s"]));
    }

    #[test]
    fn a_task_call_carries_its_task_and_an_ordinary_one_none() {
        let call = CallContext::new("http://127.0.0.1:1/mcp", "t", json!({}));
        let plain: serde_json::Value = serde_json::from_slice(&request_line(&call, None)).unwrap();
        assert_eq!(plain.get("task"), None);
        let task = crate::adapter::TaskCall {
            ttl_ms: Some(60_000),
        };
        let line = request_line(&call.clone().with_task(Some(task)), None);
        let sent: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(sent["task"], json!({"ttl_ms": 60000}));
        let bare = request_line(&call.with_task(Some(Default::default())), None);
        let sent: serde_json::Value = serde_json::from_slice(&bare).unwrap();
        assert_eq!(sent["task"], json!({}));
    }
}

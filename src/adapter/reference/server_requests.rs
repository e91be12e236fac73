//! Answers to the requests a 2025 server sends on a response stream before the response
//! (2025-11-25 basic/transports, "Sending Messages to the Server"). This client declares no
//! capabilities, so it takes none of them: `ping` gets the empty result the spec requires,
//! `elicitation/create` gets -32602 (a mode it did not declare, client/elicitation), anything
//! else -32601 (roots/list: "Client does not support roots", client/roots; sampling and
//! unknown methods: not offered). In 2026-07-28 a client MUST NOT send responses, so nothing
//! here runs there.

use super::deadline::Deadline;
use reqwest::RequestBuilder;
use serde_json::{Value, json};
use tokio::time::timeout_at;

/// Builds the POST that carries an answer (the session's headers on it), for a stream whose
/// requests this client answers; `None` where it answers none.
pub(super) type Respond<'a> = Option<&'a (dyn Fn(&Value) -> RequestBuilder + Sync)>;

/// The answer to one server request.
pub(super) fn answer(request: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    match method {
        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        "elicitation/create" => error(id, -32602, "elicitation mode not declared by the client"),
        "roots/list" => error(id, -32601, "the client does not support roots"),
        _ => error(id, -32601, "Method not found"),
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// POSTs the answers to `requests`, each before the deadline; the server's reply to an answer
/// (202) says nothing about the call, so it is not read.
pub(super) async fn respond(respond: Respond<'_>, requests: Vec<Value>, deadline: &Deadline) {
    let Some(post) = respond else {
        return;
    };
    for request in requests {
        let _ = timeout_at(deadline.at(), post(&answer(&request)).send()).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_request_gets_the_answer_of_a_client_without_capabilities() {
        let ask = |method: &str, id: Value| {
            answer(&json!({"jsonrpc": "2.0", "id": id, "method": method}))
        };
        assert_eq!(
            ask("ping", json!("p")),
            json!({"jsonrpc": "2.0", "id": "p", "result": {}})
        );
        assert_eq!(ask("elicitation/create", json!(3))["error"]["code"], -32602);
        assert_eq!(ask("roots/list", json!(4))["error"]["code"], -32601);
        let sampling = ask("sampling/createMessage", json!("s"));
        assert_eq!(
            (sampling["id"].clone(), sampling["error"]["code"].clone()),
            (json!("s"), json!(-32601))
        );
    }
}

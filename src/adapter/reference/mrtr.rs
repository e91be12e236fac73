//! MRTR (2026-07-28): a `tools/call` answered with `input_required` is not finished. The client
//! answers the `inputRequests` it can, echoes `requestState` exactly (and sends none when it got
//! none), and sends the call again as a new request with a new id, for a bounded number of
//! rounds.
//!
//! The reference client has no user and no model: it declines elicitations and lists no roots;
//! it cannot answer `sampling/createMessage`, so such a request ends the call as
//! `INPUT_REQUIRED`.

use super::exchange::Reply;
use super::{Mode, Run, body, prefixed};
use crate::outcome::Outcome;
use serde_json::{Map, Value, json};

/// At most this many rounds after the first request.
pub const MAX_ROUNDS: u32 = 3;

impl Run<'_> {
    /// The call and its MRTR rounds.
    pub(super) async fn rounds(&mut self, mode: Mode<'_>) -> Reply {
        let mut extra = Map::new();
        let mut round = 0;
        loop {
            let reply = self.with_retries(mode, &extra).await;
            let stateless = matches!(mode, Mode::Stateless);
            if reply.classification.outcome != Outcome::InputRequired
                || !self.options.mrtr
                || !stateless
            {
                return reply;
            }
            if round == MAX_ROUNDS {
                let note = format!("still input_required after {MAX_ROUNDS} rounds");
                return stopped(reply, &note);
            }
            let result = body::result(&reply, &reply.id).unwrap_or(Value::Null);
            extra = match answers(&result) {
                Ok(extra) => extra,
                Err(why) => return stopped(reply, &why),
            };
            round += 1;
        }
    }
}

fn stopped(reply: Reply, note: &str) -> Reply {
    Reply {
        classification: prefixed(reply.classification, note),
        ..reply
    }
}

/// The params the next round adds: `inputResponses` for `inputRequests`, and `requestState`
/// exactly as it came.
fn answers(result: &Value) -> Result<Map<String, Value>, String> {
    let mut extra = Map::new();
    if let Some(requests) = result.get("inputRequests").and_then(Value::as_object) {
        let responses: Result<Map<String, Value>, String> = requests
            .iter()
            .map(|(key, request)| Ok((key.clone(), answer(request)?)))
            .collect();
        extra.insert("inputResponses".into(), Value::Object(responses?));
    }
    if let Some(state) = result.get("requestState") {
        extra.insert("requestState".into(), state.clone());
    }
    Ok(extra)
}

/// This client's answer to one input request.
fn answer(request: &Value) -> Result<Value, String> {
    match request.get("method").and_then(Value::as_str) {
        Some("elicitation/create") => Ok(json!({"action": "decline"})),
        Some("roots/list") => Ok(json!({"roots": []})),
        Some(other) => Err(format!("cannot answer the input request {other:?}")),
        None => Err("an input request without a method".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_every_request_and_echoes_the_state_exactly() {
        let result = json!({
            "resultType": "input_required",
            "inputRequests": {
                "ok": {"method": "elicitation/create", "params": {}},
                "where": {"method": "roots/list"}
            },
            "requestState": "c3RhdGU= \u{e9}"
        });
        let extra = answers(&result).unwrap();
        assert_eq!(extra["inputResponses"]["ok"], json!({"action": "decline"}));
        assert_eq!(extra["inputResponses"]["where"], json!({"roots": []}));
        assert_eq!(extra["requestState"], result["requestState"]);
    }

    #[test]
    fn sends_no_state_when_none_came_and_gives_up_on_sampling() {
        let only_requests = json!({"inputRequests": {"a": {"method": "roots/list"}}});
        assert!(
            !answers(&only_requests)
                .unwrap()
                .contains_key("requestState")
        );
        let only_state = json!({"requestState": "s"});
        assert!(!answers(&only_state).unwrap().contains_key("inputResponses"));
        let sampling = json!({"inputRequests": {"m": {"method": "sampling/createMessage"}}});
        assert!(
            answers(&sampling)
                .unwrap_err()
                .contains("sampling/createMessage")
        );
    }
}

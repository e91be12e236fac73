//! The expectation of a written case: what the reference classifier makes of its reply, as the
//! wire server will send it to the recorded request.

use super::reply::{as_loaded, body_bytes};
use crate::case::{End, Expect, Reply};
use crate::classify::{BodyEnd, Classification, Classifier};
use crate::outcome::Outcome;
use crate::wire::Placeholders;
use crate::wire::script;
use serde_json::Value;

/// The classifier's judgement of `reply` sent in answer to `request`.
pub fn classify_reply(reply: &Reply, request: &Value) -> Classification {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let response = script::response(
        &as_loaded(reply.clone()),
        &Placeholders::from_request(request),
    );
    let Some(status) = response.status else {
        return match reply.end {
            End::Stall => {
                Classification::timeout("the server accepted the request and sent nothing")
            }
            _ => Classification::connection_error("the connection ended before a status line"),
        };
    };
    let content_type = response
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| value.as_str());
    let mut body = body_bytes(&response.body);
    if let Some(cut) = response.cut_after {
        body.truncate(cut);
    }
    let mut classifier = Classifier::new(id, status, content_type);
    classifier.feed(&body);
    match (reply.end, response.cut_after) {
        (End::Stall, _) => classifier.deadline(),
        (End::Complete, None) => classifier.finish(BodyEnd::Complete),
        _ => classifier.finish(BodyEnd::Cut),
    }
}

/// The expectation a classification names: its outcome, and its status and code where the
/// case format lets an expectation name them (a status only with `HTTP_ERROR`, a code with
/// `HTTP_ERROR` and `JSONRPC_ERROR`).
pub fn expectation(classification: &Classification) -> Expect {
    let mut expect = Expect::new(classification.outcome);
    if classification.outcome == Outcome::HttpError {
        expect.status = classification.status;
    }
    if matches!(
        classification.outcome,
        Outcome::HttpError | Outcome::JsonrpcError
    ) {
        expect.code = classification.code;
    }
    expect
}

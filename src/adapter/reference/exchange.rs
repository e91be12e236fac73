//! One request and its classified response, under the call's deadline.

use super::deadline::Deadline;
use super::server_requests::{Respond, respond};
use crate::classify::{BodyEnd, Classification, Classifier};
use reqwest::header::{CONTENT_TYPE, HeaderMap};
use reqwest::{RequestBuilder, Response};
use serde_json::Value;
use std::error::Error;
use tokio::time::timeout_at;

/// What came back for one request.
#[derive(Debug)]
pub(super) struct Reply {
    /// The id of the request this answers.
    pub(super) id: Value,
    /// The classifier's verdict (or a connection error / timeout when no head arrived).
    pub(super) classification: Classification,
    /// The response headers, when a head arrived.
    pub(super) headers: Option<HeaderMap>,
    /// The body bytes read before the verdict.
    pub(super) body: Vec<u8>,
}

impl Reply {
    fn headless(id: &Value, classification: Classification) -> Self {
        Reply {
            id: id.clone(),
            classification,
            headers: None,
            body: Vec::new(),
        }
    }
}

/// Sends `request` and classifies its response as the answer to the request with `id`; the
/// server's requests on its stream are answered through `answers`.
pub(super) async fn exchange(
    request: RequestBuilder,
    id: &Value,
    deadline: &Deadline,
    answers: Respond<'_>,
) -> Reply {
    match timeout_at(deadline.at(), request.send()).await {
        Err(_elapsed) => Reply::headless(id, deadline.headless_timeout("response head")),
        Ok(Err(err)) => Reply::headless(id, send_failure(err)),
        Ok(Ok(response)) => read(response, id, deadline, answers).await,
    }
}

/// Reads a response until the classifier decides, the body ends or the deadline passes.
///
/// Returns as soon as the classifier decides: an SSE server may keep the stream open after the
/// response, and waiting for it to close would turn a success into a timeout. A request the
/// server sends on the stream is answered as soon as it is read (a server may hold the
/// response back until then), through `answers`.
pub(super) async fn read(
    mut response: Response,
    id: &Value,
    deadline: &Deadline,
    answers: Respond<'_>,
) -> Reply {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    super::auth::note(status, &headers);
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let mut classifier = Classifier::new(id.clone(), status, content_type);
    let mut body = Vec::new();
    let mut classification = loop {
        if let Some(decided) = classifier.decided() {
            break decided.clone();
        }
        match timeout_at(deadline.at(), response.chunk()).await {
            Err(_elapsed) => break classifier.deadline(),
            Ok(Ok(Some(chunk))) => {
                body.extend_from_slice(&chunk);
                classifier.feed(&chunk);
                respond(answers, classifier.take_server_requests(), deadline).await;
            }
            Ok(Ok(None)) => break classifier.finish(BodyEnd::Complete),
            Ok(Err(err)) => break read_failure(classifier.finish(BodyEnd::Cut), err),
        }
    };
    // A head arrived, so the observation names its status whatever the classifier filled in.
    classification.status.get_or_insert(status);
    Reply {
        id: id.clone(),
        classification,
        headers: Some(headers),
        body,
    }
}

/// `send()` failed: no status line arrived (refused, reset, closed), or the client timed out.
pub(super) fn send_failure(err: reqwest::Error) -> Classification {
    let timed_out = err.is_timeout();
    // The URL would put the server's random port into the detail, and so into snapshots.
    let detail = error_chain(&err.without_url());
    if timed_out {
        Classification::timeout(detail)
    } else {
        Classification::connection_error(detail)
    }
}

/// The body stopped with an error: keep the classifier's verdict and add what the client saw.
fn read_failure(mut classification: Classification, err: reqwest::Error) -> Classification {
    let detail = error_chain(&err.without_url());
    classification.reason = format!("{} (body read error: {detail})", classification.reason);
    classification
}

/// An error and its sources in one line, each message once.
///
/// reqwest's own message is generic ("error sending request"); the cause (refused, reset,
/// closed before the message completed) is further down the chain.
pub(super) fn error_chain(err: &dyn Error) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        // Some layers repeat their cause in their own message.
        if !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

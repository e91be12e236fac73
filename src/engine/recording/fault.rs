//! Faulted variants of a recorded answer (`--fault`): what a real exchange would have looked
//! like had the server or the network failed in one way.

use super::reply::Recorded;
use crate::case::{End, Reply};

/// The client timeout of a stalled variant: 400 ms, as the built-in cases that expect
/// `TIMEOUT` use, so that a family of cases stays quick.
pub const STALL_TIMEOUT_MS: u64 = 400;

/// The most events `cut-after-event=N` may name; a real stream has fewer.
const MAX_EVENT: usize = 10_000;

/// One way to fault a recorded answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// `http-503-before`: a `503` with no body answers the first `tools/call`, the recorded
    /// answer the next.
    Http503Before,
    /// `cut-after-event=N`: the SSE stream closes after its first N events (SSE answers only).
    CutAfterEvent(usize),
    /// `stall`: the head and the events before the response go out, then nothing (the call's
    /// timeout is 400 ms, `STALL_TIMEOUT_MS`).
    Stall,
    /// `wrong-id`: the response carries another id than the request's.
    WrongId,
}

/// The words `--fault` takes, for help texts and errors.
pub const FAULT_WORDS: &str = "http-503-before, cut-after-event=N, stall, wrong-id";

impl std::str::FromStr for Fault {
    type Err = String;

    fn from_str(word: &str) -> Result<Fault, String> {
        if let Some(n) = word.strip_prefix("cut-after-event=") {
            return match n.parse::<usize>() {
                Ok(n) if n <= MAX_EVENT => Ok(Fault::CutAfterEvent(n)),
                _ => Err(format!(
                    "{word:?}: N in cut-after-event=N is a number of events from 0 to {MAX_EVENT}"
                )),
            };
        }
        match word {
            "http-503-before" => Ok(Fault::Http503Before),
            "stall" => Ok(Fault::Stall),
            "wrong-id" => Ok(Fault::WrongId),
            _ => Err(format!(
                "unknown fault {word:?}; the faults are: {FAULT_WORDS}"
            )),
        }
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Http503Before => f.write_str("http-503-before"),
            Fault::CutAfterEvent(n) => write!(f, "cut-after-event-{n}"),
            Fault::Stall => f.write_str("stall"),
            Fault::WrongId => f.write_str("wrong-id"),
        }
    }
}

/// A faulted answer: the replies of the call, and the timeout it needs.
#[derive(Debug, Clone)]
pub struct Faulted {
    /// The call's replies, in order.
    pub replies: Vec<Reply>,
    /// The call's `timeout_ms`, when the fault needs one.
    pub timeout_ms: Option<u64>,
}

impl Fault {
    /// The variant of `recorded`, or why this fault does not apply to it.
    pub fn apply(self, recorded: &Recorded) -> Result<Faulted, String> {
        let one = |reply: Reply| Faulted {
            replies: vec![reply],
            timeout_ms: None,
        };
        match self {
            Fault::Http503Before => Ok(Faulted {
                replies: vec![unavailable(), recorded.reply()],
                timeout_ms: None,
            }),
            Fault::WrongId => recorded
                .with_other_id()
                .map(|r| one(r.reply()))
                .ok_or_else(|| "the answer echoes no request id to change".to_owned()),
            Fault::CutAfterEvent(n) => cut(recorded, n).map(one),
            Fault::Stall if !crate::case::http::has_body(recorded.status) => Err(format!(
                "stall needs an answer with a body; HTTP {} is complete at its head",
                recorded.status
            )),
            Fault::Stall => {
                let mut stalled = recorded.clone();
                stalled.truncate_events(recorded.response_event().unwrap_or(0));
                if recorded.events() == 0 {
                    stalled.form = super::reply::Form::Empty;
                }
                stalled.end = End::Stall;
                Ok(Faulted {
                    replies: vec![stalled.reply()],
                    timeout_ms: Some(STALL_TIMEOUT_MS),
                })
            }
        }
    }
}

fn unavailable() -> Reply {
    Reply {
        status: Some(503),
        ..Reply::default()
    }
}

fn cut(recorded: &Recorded, n: usize) -> Result<Reply, String> {
    let events = recorded.events();
    if events == 0 {
        return Err("cut-after-event needs an SSE answer, and this one is not".to_owned());
    }
    if n >= events {
        return Err(format!(
            "the stream has {events} event(s), so cut-after-event={n} cuts nothing; use N below {events}"
        ));
    }
    let mut cut = recorded.clone();
    cut.truncate_events(n);
    cut.end = End::Close;
    Ok(cut.reply())
}

#[cfg(test)]
mod tests {
    use super::super::exchange::sample;
    use super::super::expect::classify_reply;
    use super::*;
    use crate::outcome::Outcome;
    use serde_json::json;

    const SSE: &str = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n\
                       data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[]}}\n\n";

    /// What the classifier makes of the variant's first reply, sent to the recorded request.
    fn judged(fault: &str, content_type: &str, body: &str) -> Result<Outcome, String> {
        let recorded = Recorded::of(&sample(content_type, body)).unwrap();
        let faulted = fault.parse::<Fault>().unwrap().apply(&recorded)?;
        let request = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"});
        Ok(classify_reply(&faulted.replies[0], &request).outcome)
    }

    #[test]
    fn each_fault_breaks_the_answer_as_it_says() {
        let json = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#;
        for (fault, content_type, body, outcome) in [
            (
                "http-503-before",
                "application/json",
                json,
                Outcome::HttpError,
            ),
            (
                "wrong-id",
                "application/json",
                json,
                Outcome::InvalidEnvelope,
            ),
            (
                "wrong-id",
                "text/event-stream",
                SSE,
                Outcome::InvalidEnvelope,
            ),
            ("stall", "application/json", json, Outcome::Timeout),
            ("stall", "text/event-stream", SSE, Outcome::Timeout),
            (
                "cut-after-event=1",
                "text/event-stream",
                SSE,
                Outcome::StreamIncomplete,
            ),
            (
                "cut-after-event=0",
                "text/event-stream",
                SSE,
                Outcome::StreamIncomplete,
            ),
        ] {
            assert_eq!(
                judged(fault, content_type, body),
                Ok(outcome),
                "{fault} {content_type}"
            );
        }
    }

    #[test]
    fn a_stall_keeps_the_events_before_the_response_and_a_cut_needs_events() {
        let recorded = Recorded::of(&sample("text/event-stream", SSE)).unwrap();
        let stalled = Fault::Stall.apply(&recorded).unwrap();
        assert_eq!(
            stalled.replies[0].event.len(),
            1,
            "the notification goes out"
        );
        assert_eq!(stalled.replies[0].end, End::Stall);
        assert_eq!(stalled.timeout_ms, Some(STALL_TIMEOUT_MS));
        let error = judged("cut-after-event=2", "text/event-stream", SSE).unwrap_err();
        assert!(error.contains("has 2 event(s)"), "{error}");
        let error = judged("cut-after-event=0", "application/json", "{}").unwrap_err();
        assert!(error.contains("needs an SSE answer"), "{error}");
        let error = judged("wrong-id", "application/json", "{}").unwrap_err();
        assert!(error.contains("echoes no request id"), "{error}");
    }

    #[test]
    fn the_words_parse_and_name_their_files() {
        for (word, name) in [
            ("http-503-before", "http-503-before"),
            ("cut-after-event=2", "cut-after-event-2"),
            ("stall", "stall"),
            ("wrong-id", "wrong-id"),
        ] {
            assert_eq!(word.parse::<Fault>().unwrap().to_string(), name);
        }
        let error = "cut-after-event=x".parse::<Fault>().unwrap_err();
        assert!(error.contains("number of events"), "{error}");
        let error = "slow".parse::<Fault>().unwrap_err();
        assert!(error.contains(FAULT_WORDS), "{error}");
    }
}

//! What the model was told about one call, and what that tells (docs/adapters.md, "What the
//! model was told").
//!
//! An agent's observation is the tool result it put in its next request to the model: its text
//! and its error marking (the API's own flag, Anthropic's `is_error`; where the API has none,
//! the words the agent wraps a failure in, which its row declares). The layer it names is
//! judged against what the MCP server sent for the call ([`ModelFacts`]): a marked result names
//! a layer only if its text carries the fact that tells it, since the model has only the text.

use super::api::ToolResult;
use crate::case::Grade;
use crate::case::{Call, Expect};
use crate::checks::Check;
use crate::observation::{AdapterReport, Observation};
use crate::outcome::{Layer, Outcome};
use serde_json::Value;

/// How an observation's detail starts when the model got no tool result for the call: the
/// agent ended the turn, crashed or went on without one.
pub const NO_RESULT: &str = "no tool result";

/// What the model was told about one call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Told {
    /// The tool result, or `None` when the model got none for the call.
    pub result: Option<ToolResult>,
    /// Whether the result is marked as an error: the API's flag where it has one, else one of
    /// the agent's wrapper words in its text.
    pub marked: bool,
    /// Conversation requests to the model during the call (the turn that asked for the call
    /// not counted): more than one is a retry through the model, or an agent's own loop.
    pub model_turns: usize,
    /// Why there is no result, in the harness's words (the agent exited, the next turn carried
    /// none).
    pub missing: String,
}

impl Told {
    /// A result, marked by its flag or, where its API has none, by one of `marks`.
    pub fn result(result: ToolResult, marks: &[String], model_turns: usize) -> Told {
        let marked = match result.flagged {
            Some(flag) => flag,
            None => marks.iter().any(|mark| result.text.contains(mark.as_str())),
        };
        Told {
            result: Some(result),
            marked,
            model_turns,
            missing: String::new(),
        }
    }

    /// No result for the call, because of `why`.
    pub fn missing(why: impl Into<String>, model_turns: usize) -> Told {
        Told {
            result: None,
            marked: false,
            model_turns,
            missing: why.into(),
        }
    }
}

/// What the MCP server sent for one call, as facts a told text can carry: the HTTP statuses
/// (not 2xx), the JSON-RPC error codes, and the texts of results with `isError: true`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelFacts {
    /// Non-2xx statuses of the call's replies.
    pub statuses: Vec<u16>,
    /// JSON-RPC error codes in the call's replies.
    pub codes: Vec<i64>,
    /// The content texts of `isError: true` results in the call's replies (non-empty ones).
    pub tool_texts: Vec<String>,
}

impl ModelFacts {
    /// The facts of every scripted reply of `call` (the replies to its `tools/call`, its
    /// resumed streams and its task methods).
    pub fn of_call(call: &Call) -> ModelFacts {
        let mut facts = ModelFacts::default();
        let replies = [&call.reply, &call.resume, &call.task_get, &call.task_result];
        for reply in replies.into_iter().flatten() {
            if let Some(status) = reply.status.filter(|s| !(200..300).contains(s)) {
                facts.statuses.push(status);
            }
            let bodies = reply.json.iter().chain(reply.raw.iter());
            let events = reply.event.iter().filter_map(|e| e.data.as_ref());
            for text in bodies.chain(events) {
                if let Ok(value) = serde_json::from_str::<Value>(text) {
                    facts.add(&value);
                }
            }
        }
        facts
    }

    /// The facts of one JSON-RPC message.
    fn add(&mut self, message: &Value) {
        if let Some(code) = message.pointer("/error/code").and_then(Value::as_i64) {
            self.codes.push(code);
        }
        let result = message.get("result");
        if result.and_then(|r| r.get("isError")) == Some(&Value::Bool(true)) {
            let content = result
                .and_then(|r| r.get("content"))
                .and_then(Value::as_array);
            let texts = content.into_iter().flatten();
            let texts = texts.filter_map(|part| part.get("text").and_then(Value::as_str));
            self.tool_texts
                .extend(texts.filter(|t| !t.trim().is_empty()).map(str::to_owned));
        }
    }
}

/// The observation `told` makes, judged against `facts`: no result, an unmarked result
/// (`TOOL_SUCCESS`), or a marked one naming the layer whose fact its text carries, in this
/// order: the tool's own text (`TOOL_ERROR`), a status the server sent (`HTTP_ERROR`, with a
/// code the server sent if the text carries one too), a JSON-RPC code the server sent
/// (`JSONRPC_ERROR`), the words of a timeout (`TIMEOUT`); else `UNCLASSIFIED_ERROR`.
pub fn judge(told: &Told, facts: &ModelFacts) -> Observation {
    let Some(result) = &told.result else {
        let mut observation = Observation::new(Outcome::UnclassifiedError);
        observation.detail = format!("{NO_RESULT}: {}", told.missing);
        return observation;
    };
    let text = result.text.as_str();
    let code = facts
        .codes
        .iter()
        .copied()
        .find(|c| carries(text, &c.to_string()));
    let status = facts
        .statuses
        .iter()
        .copied()
        .find(|s| carries(text, &s.to_string()));
    let tool = facts.tool_texts.iter().any(|t| text.contains(t.as_str()));
    let mut observation = match (told.marked, tool, status, code) {
        (false, ..) => Observation::new(Outcome::ToolSuccess),
        (true, true, ..) => Observation::new(Outcome::ToolError),
        (true, false, Some(status), code) => {
            let observation = Observation::new(Outcome::HttpError).with_status(status);
            match code {
                Some(code) => observation.with_code(code),
                None => observation,
            }
        }
        (true, false, None, Some(code)) => Observation::new(Outcome::JsonrpcError).with_code(code),
        (true, false, None, None) if says_timeout(text) => Observation::new(Outcome::Timeout),
        (true, false, None, None) => Observation::new(Outcome::UnclassifiedError),
    };
    let marking = if told.marked {
        "marked as an error"
    } else {
        "unmarked"
    };
    observation.detail = format!("the model was told ({marking}): {}", shorten(text));
    observation
}

/// Whether `text` holds the number `number` as a token of its own (no digit around it).
fn carries(text: &str, number: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(number).any(|(at, _)| {
        let before = at.checked_sub(1).and_then(|i| bytes.get(i));
        let after = bytes.get(at + number.len());
        let digit = |b: Option<&u8>| b.is_some_and(u8::is_ascii_digit);
        // `-32602` inside `--32602` is still the code; a status is never signed.
        !digit(before) && !digit(after)
    })
}

fn says_timeout(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["timed out", "timeout", "time out", "deadline"]
        .iter()
        .any(|word| lower.contains(word))
}

/// The most characters of a told text an observation's detail repeats (the transcript has it
/// whole).
const DETAIL_CHARS: usize = 600;

fn shorten(text: &str) -> String {
    match text.char_indices().nth(DETAIL_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The model-side check names, in the order they are judged.
pub const CHECKS: [&str; 3] = [
    "tool-error-to-model",
    "protocol-error-to-model",
    "no-error-as-success",
];

/// The model-side checks of an agent's call: `tool-error-to-model` (should: an `isError`
/// result reaches the model marked, with its text), `protocol-error-to-model` (info: a
/// protocol or transport failure reaches the model as a marked result at all),
/// `no-error-as-success` (must: a failed call never reaches the model as a plain result). A
/// call the agent did not answer has none.
pub fn checks(expect: &Expect, report: Option<&AdapterReport>) -> Vec<Check> {
    let Some(AdapterReport::Observed(observation)) = report else {
        return Vec::new();
    };
    let told_plain = observation.outcome == Outcome::ToolSuccess;
    let no_result = observation.detail.starts_with(NO_RESULT);
    let expected = expect.outcome;
    let mut checks = Vec::new();
    if expected == Outcome::ToolError {
        let passed = observation.outcome == Outcome::ToolError;
        let detail = "the model was not told the tool's own error text as an error";
        checks.push(check(CHECKS[0], Grade::Should, passed, detail));
    }
    if matches!(expected.layer(), Layer::Transport | Layer::Protocol) {
        let passed = !told_plain && !no_result;
        let detail = "the model was told nothing of the failure (no result, or a plain one)";
        checks.push(check(CHECKS[1], Grade::Info, passed, detail));
    }
    if expected != Outcome::ToolSuccess {
        let detail = "the model was told the failed call's result as a plain result";
        checks.push(check(CHECKS[2], Grade::Must, !told_plain, detail));
    }
    checks
}

fn check(name: &'static str, grade: Grade, passed: bool, detail: &str) -> Check {
    Check {
        name,
        grade,
        passed,
        detail: if passed {
            String::new()
        } else {
            detail.to_owned()
        },
    }
}

#[cfg(test)]
mod tests;

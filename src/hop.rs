//! The hop between a client and a server (docs/bridges.md): a bridge (mcp-remote, supergateway,
//! mcp-proxy) or a gateway that takes a client's call and makes it upstream. A bridge row serves
//! the case upstream as any row, drives the reference client *downstream* through the bridge,
//! and judges what arrives there against the case's upstream expectation by one table,
//! [`delivers`]: what a faithful hop delivers for each upstream outcome.
//!
//! A hop that changes transport cannot keep an HTTP status as a status, so the table does not
//! ask for the same outcome everywhere; it asks that the facts of the upstream layer arrive: the
//! tool's own result as that result, a JSON-RPC error with its code, an HTTP error as an error
//! that carries the status, and a broken or late upstream answer as an error within the
//! bridge's own timeout, never silence. *Hop fidelity* ([`hop_fidelity`]) counts the cases whose
//! every call arrived so.

mod checks;

pub(crate) use checks::checks;
pub use checks::{CHECKS, GRADES, PROBE_ANSWERED, PROBE_FAILED};

use crate::case::Expect;
use crate::fidelity::LayerFidelity;
use crate::observation::{AdapterReport, Observation};
use crate::outcome::Outcome;
use crate::record::CaseRecord;
use crate::verdict::ServerCounts;
use serde::{Deserialize, Serialize};

/// What the bridge exposes to its client: the side the reference client drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Downstream {
    /// The bridge is a stdio server: its client starts it and speaks on its stdin and stdout.
    Stdio,
    /// The bridge serves Streamable HTTP on a loopback port of its own.
    Http,
}

impl Downstream {
    /// `stdio` or `http`.
    pub fn as_str(self) -> &'static str {
        match self {
            Downstream::Stdio => "stdio",
            Downstream::Http => "http",
        }
    }
}

/// What a faithful hop delivers downstream for one upstream expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivers {
    /// The same outcome, with the same JSON-RPC code when the case names one: a result or an
    /// error the upstream server *said* passes through as it is.
    Same,
    /// A result the correct client reaches only by recovering (it repeats the call, resumes a
    /// stream, answers `input_required`, opens a new session): the bridge is that client
    /// upstream, so the same outcome when it recovered; else what it did not recover from: an
    /// error (a JSON-RPC error; over HTTP also an HTTP error), or the server's
    /// `input_required` passed on for its own client to answer. Never silence, never another
    /// result.
    Recovered,
    /// A JSON-RPC error whose code, message or data carries the upstream HTTP status (its
    /// number or its reason phrase); over HTTP also an HTTP error with that status.
    ErrorWithStatus,
    /// An error: a JSON-RPC error (any code), or the same outcome passed through (a bridge
    /// that forwards bytes as they came); over HTTP also an HTTP error 5xx. Never a result,
    /// never silence (a downstream `TIMEOUT`), and over stdio never the bridge's own end (a
    /// downstream `CONNECTION_ERROR`, which takes every later call with it).
    AnError,
    /// An answer within the bridge's own timeout, which is not the case's: an error, or the
    /// server's late result passed on (the built-in cases' late results are successes). Never
    /// silence, never the bridge's own `isError` (a timeout made into the tool's error), and
    /// over stdio never the bridge's end.
    AnAnswer,
}

/// The faithful-hop table: what a hop must deliver for what a correct client reports upstream.
pub fn delivers(expect: &Expect) -> Delivers {
    let recovers = expect.tool_posts.is_some_and(|n| n > 1)
        || expect.initializes.is_some_and(|n| n > 1)
        || expect.resumes.is_some_and(|n| n > 0)
        || expect.token_posts.is_some_and(|n| n > 0);
    match expect.outcome {
        Outcome::ToolSuccess | Outcome::ToolError | Outcome::InputRequired if recovers => {
            Delivers::Recovered
        }
        Outcome::ToolSuccess
        | Outcome::ToolError
        | Outcome::InputRequired
        | Outcome::TaskCancelled
        | Outcome::JsonrpcError => Delivers::Same,
        Outcome::HttpError => Delivers::ErrorWithStatus,
        Outcome::Timeout => Delivers::AnAnswer,
        Outcome::ConnectionError
        | Outcome::UnexpectedContentType
        | Outcome::NoResult
        | Outcome::StreamIncomplete
        | Outcome::MalformedJson
        | Outcome::InvalidEnvelope
        | Outcome::InvalidToolResult
        | Outcome::UnclassifiedError => Delivers::AnError,
    }
}

/// The table in words, one line per kind of upstream expectation (docs/bridges.md shows it; a
/// test keeps the two the same).
pub fn table() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "`TOOL_SUCCESS`, `TOOL_ERROR`, `INPUT_REQUIRED`",
            "the same outcome",
        ),
        ("`JSONRPC_ERROR`", "`JSONRPC_ERROR` with the same code"),
        (
            "a result the correct client reaches by recovering (more than one `tools/call`, a \
             new session or a resumed stream)",
            "the same outcome when the bridge recovered; else what it did not recover from: \
             `JSONRPC_ERROR` (over HTTP also `HTTP_ERROR`), or the server's `INPUT_REQUIRED` \
             passed on",
        ),
        (
            "`HTTP_ERROR`",
            "`JSONRPC_ERROR` whose code, message or data carries the status (its number or its \
             reason phrase); over HTTP also `HTTP_ERROR` with that status",
        ),
        (
            "`TIMEOUT`",
            "an answer within the bridge's own timeout: an error, or the server's late success \
             passed on; never a `TOOL_ERROR` the bridge made of it",
        ),
        (
            "`CONNECTION_ERROR`, `STREAM_INCOMPLETE`, `NO_RESULT`, `UNEXPECTED_CONTENT_TYPE`, \
             `MALFORMED_JSON`, `INVALID_ENVELOPE`, `INVALID_TOOL_RESULT`",
            "`JSONRPC_ERROR`, or the same outcome passed through; over HTTP also `HTTP_ERROR` 5xx",
        ),
    ]
}

/// [`table`] as the Markdown table docs/bridges.md shows.
pub fn table_markdown() -> String {
    let mut text = String::from(
        "| upstream, a correct client reports | a faithful hop delivers downstream |\n|---|---|\n",
    );
    for (upstream, delivers) in table() {
        text.push_str(&format!("| {upstream} | {delivers} |\n"));
    }
    text
}

/// What keeps a downstream observation from being faithful to `expect`, or nothing. `counts`
/// are the upstream server's: a call whose scripted replies the bridge never reached proves
/// nothing, whatever came downstream.
pub(crate) fn mismatches(
    expect: &Expect,
    observed: &Observation,
    counts: &ServerCounts,
    downstream: Downstream,
) -> Vec<String> {
    let mut found = Vec::new();
    if counts.scripted == 0 {
        found.push(
            "the bridge never reached the case's replies upstream: what came downstream is \
             not about them"
                .to_owned(),
        );
    }
    if let Some(why) = lost(expect, observed, downstream) {
        found.push(why);
    }
    found
}

/// Why `observed` does not deliver the facts of `expect`, or `None` when it does.
fn lost(expect: &Expect, observed: &Observation, downstream: Downstream) -> Option<String> {
    let upstream = expect.outcome;
    let got = observed.outcome;
    let http = downstream == Downstream::Http;
    // Silence, and over stdio the bridge's own end, deliver nothing whatever was expected.
    let nothing = got == Outcome::Timeout || (got == Outcome::ConnectionError && !http);
    let unfaithful = |why: &str| {
        Some(format!(
            "the upstream {upstream} arrived as {got}{}: {why}",
            code_words(observed)
        ))
    };
    match delivers(expect) {
        Delivers::Same => same(expect, observed),
        Delivers::Recovered => {
            let error = got == Outcome::JsonrpcError
                || got == Outcome::InputRequired
                || (http && got == Outcome::HttpError);
            match same(expect, observed) {
                None => None,
                Some(_) if nothing => unfaithful(what_is_wrong(got, http)),
                Some(_) if !error => unfaithful("another result than the recovery reaches"),
                Some(_) => None,
            }
        }
        Delivers::ErrorWithStatus => {
            let status = expect.status?;
            let as_status = http && got == Outcome::HttpError && observed.status == Some(status);
            let carried = got == Outcome::JsonrpcError && carries(observed, status);
            match as_status || carried {
                true => None,
                false if nothing => unfaithful(what_is_wrong(got, http)),
                false => unfaithful(&format!("the status {status} is not in it")),
            }
        }
        Delivers::AnAnswer => {
            let own_result = matches!(got, Outcome::ToolError | Outcome::InputRequired);
            match nothing || own_result {
                true => unfaithful(what_is_wrong(got, http)),
                false => None,
            }
        }
        Delivers::AnError => {
            let passed_through = got == upstream && !nothing;
            let an_error = got == Outcome::JsonrpcError
                || (http && got == Outcome::HttpError && observed.status.is_some_and(|s| s >= 500));
            match passed_through || an_error {
                true => None,
                false => unfaithful(what_is_wrong(got, http)),
            }
        }
    }
}

/// Why `observed` is not `expect`'s outcome (and code), or `None` when it is.
fn same(expect: &Expect, observed: &Observation) -> Option<String> {
    let (upstream, got) = (expect.outcome, observed.outcome);
    if got != upstream {
        return Some(format!("outcome: expected {upstream}, observed {got}"));
    }
    match expect.code {
        Some(code) if observed.code != Some(code) => Some(format!(
            "code: expected {code}, observed {}",
            shown(observed.code)
        )),
        _ => None,
    }
}

/// Why a downstream outcome is no error a client can act on.
fn what_is_wrong(got: Outcome, http: bool) -> &'static str {
    match got {
        Outcome::Timeout => "silence past the bridge's own timeout",
        Outcome::ConnectionError if !http => "the bridge ended (every later call goes with it)",
        Outcome::ToolSuccess => "a failure delivered as a success",
        Outcome::ToolError => "a failure delivered as the tool's own error",
        Outcome::InputRequired => "a failure delivered as a request for input",
        _ => "another layer's failure",
    }
}

/// Whether the JSON-RPC error the client reported carries `status`: as its code, or in its
/// message or data (which the reference client's detail quotes) as a number or as the
/// status's reason phrase (`Service Unavailable`), which names it as well.
fn carries(observed: &Observation, status: u16) -> bool {
    if observed.code == Some(i64::from(status)) {
        return true;
    }
    let number = status.to_string();
    let detail = &observed.detail;
    let phrase = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason());
    detail
        .split(|c: char| !c.is_ascii_digit())
        .any(|n| n == number)
        || phrase.is_some_and(|p| detail.to_lowercase().contains(&p.to_lowercase()))
}

fn code_words(observed: &Observation) -> String {
    match (observed.status, observed.code) {
        (Some(status), _) if observed.outcome == Outcome::HttpError => format!(" {status}"),
        (_, Some(code)) => format!(" {code}"),
        _ => String::new(),
    }
}

fn shown(value: Option<i64>) -> String {
    value.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

/// Hop fidelity: of the cases a bridge ran (not declined), how many arrived downstream with
/// their upstream layer's facts intact in every call: the call was observed and the runner,
/// judging it by [`mismatches`], found nothing.
pub(crate) fn hop_fidelity<'a>(records: impl IntoIterator<Item = &'a CaseRecord>) -> LayerFidelity {
    let mut fidelity = LayerFidelity::default();
    for record in records {
        let declined = record
            .calls
            .iter()
            .any(|c| matches!(c.report, Some(AdapterReport::Unsupported { .. })));
        if record.calls.is_empty() || declined {
            continue;
        }
        fidelity.cases += 1;
        let intact = record.calls.iter().all(|call| {
            matches!(call.report, Some(AdapterReport::Observed(_))) && call.problems.is_empty()
        });
        if intact {
            fidelity.told_apart += 1;
        }
    }
    fidelity
}

#[cfg(test)]
mod tests;

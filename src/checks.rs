//! Request checks: what the client sent, judged against the spec's rules for requests.
//!
//! The outcome says what a client made of the server's answers; the checks say whether what it
//! sent was right: the headers every POST needs, the `_meta` of 2026-07-28, the session of the
//! 2025 era, new ids for repeated calls, MRTR's echo rules, how it resumed a stream, cancelled
//! what it gave up on, answered what the server asked on a stream and polled its tasks. Each
//! check has a name and a grade of its own, is judged only where it applies (a call without an
//! `initialize` has no session to check) and passes only if every request it applies to does.

mod auth;
mod cancel;
mod headers;
mod lifecycle;
mod resume;
mod rounds;
mod server_requests;
mod stdio;
mod tasks;

use crate::case::{CaseFile, Grade};
use crate::era::Era;
use crate::wire::http::HttpMethod;
use crate::wire::record::is_response;
use crate::wire::{Answerer, Exchange};
use serde::Serialize;
use serde_json::Value;

/// Every check's name, in the order they are judged.
pub const NAMES: [&str; 54] = [
    "accept-header",
    "meta-fields",
    "client-info",
    "version-header",
    "method-header",
    "name-header",
    "initialize-first",
    "initialized-notification",
    "session-id",
    "session-version-header",
    "session-expiry-reinitialize",
    "session-expiry-stale-id",
    "session-expiry-resend",
    "no-legacy-fallback",
    "supported-version-retry",
    "legacy-fallback",
    "header-mismatch-refresh",
    "new-request-id",
    "mrtr-request-state",
    "mrtr-input-responses",
    "resume-last-event-id",
    "resume-waits-retry",
    "cancel-after-timeout",
    "timeout-closes-stream",
    "no-cancel-initialize",
    "ping-answered",
    "elicitation-answered",
    "roots-answered",
    "sampling-answered",
    "no-modern-response",
    "task-poll-interval",
    "task-polls-to-terminal",
    "task-cancel-not-notification",
    "task-name-header",
    "no-tasks-result-2026",
    // In a case with [auth] (checks::auth): over every exchange, the authorization server's too.
    "auth-header",
    "auth-not-in-query",
    "auth-token-resource",
    "auth-refresh-first",
    "auth-rotated-refresh",
    "auth-attempts-bounded",
    "auth-step-up-attempted",
    "auth-step-up-scope",
    "auth-issuer-checked",
    "auth-no-legacy-fallback",
    // Over stdio (checks::stdio): judged for stdio cases only, with ping-answered.
    "stdio-stderr-drained",
    "stdio-exit-reported",
    "stdio-next-call-after-exit",
    // What an agent told its model (crate::model::told::checks): judged for agent rows only.
    "tool-error-to-model",
    "protocol-error-to-model",
    "no-error-as-success",
    // What arrived through a bridge (crate::hop::CHECKS): judged for bridge rows only.
    "hop-no-retry-unsafe",
    "hop-survives",
    "hop-answers",
];

/// The checks that judge what a client sends after it gave up on a request (a cancel, a
/// close), which may reach the server just after the call ended.
const AFTER_THE_CALL: [&str; 4] = [
    "cancel-after-timeout",
    "timeout-closes-stream",
    "task-polls-to-terminal",
    "task-cancel-not-notification",
];

/// The verdict of one named check over one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The check's name (`accept-header`, `mrtr-request-state`, ...).
    pub name: &'static str,
    /// How much a failure matters.
    pub grade: Grade,
    /// Whether every request it applies to passed.
    pub passed: bool,
    /// The first failure: which request and what was wrong; empty when it passed.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

impl Check {
    /// `check name (grade): detail`, the way problem lists show a failed check.
    pub fn failure_line(&self) -> String {
        failure_line(self.name, self.grade, &self.detail)
    }
}

/// The one wording of a failed check in problem lists, for a [`Check`] and for a check read back
/// from a JSON report.
pub fn failure_line(name: &str, grade: Grade, detail: &str) -> String {
    format!("check {name} ({grade}): {detail}")
}

/// Runs every check that applies to call `index` of `case`, given every exchange the server
/// saw (in arrival order), in a fixed order.
pub fn check_call(case: &CaseFile, index: usize, exchanges: &[Exchange]) -> Vec<Check> {
    let requests = Requests::of(case, index, exchanges);
    let mut tally = Tally::default();
    headers::check(&requests, &mut tally);
    lifecycle::check(&requests, &mut tally);
    rounds::check(&requests, &mut tally);
    resume::check(&requests, &mut tally);
    cancel::check(&requests, &mut tally);
    server_requests::check(&requests, &mut tally);
    tasks::check(&requests, &mut tally);
    auth::check(case, index, exchanges, &mut tally);
    tally.checks
}

/// When a call ran, in milliseconds of its wire server's clock (the record's `at_ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallSpan {
    /// When the runner began driving the call.
    pub began_ms: u64,
    /// When the adapter's answer came (or the call was given up).
    pub ended_ms: u64,
}

/// Runs the checks of call `index` of a stdio case ([`stdio::check`]): the HTTP request checks
/// do not apply over stdio.
pub fn check_stdio_call(
    case: &CaseFile,
    index: usize,
    exchanges: &[Exchange],
    span: CallSpan,
) -> Vec<Check> {
    let mut tally = Tally::default();
    stdio::check(case, index, exchanges, span, &mut tally);
    tally.checks
}

/// Whether a check of call `index` still fails for want of something the client sends after
/// giving up on a request: the runner waits a little for it before judging.
pub fn awaits_client(case: &CaseFile, index: usize, exchanges: &[Exchange]) -> bool {
    // Most calls have no reply a client gives up on: they are settled without judging anything.
    let tasks = case
        .call
        .get(index)
        .is_some_and(crate::case::Call::uses_tasks);
    (cancel::may_give_up(case, index) || tasks)
        && check_call(case, index, exchanges)
            .iter()
            .any(|c| !c.passed && AFTER_THE_CALL.contains(&c.name))
}

/// Whether a client that gave up on call `index` by its own timeout may still send the
/// `notifications/cancelled` a 2025 session asks for: the runner waits a little for it, so that
/// the record is the same from run to run ([`cancel::may_follow`]).
pub fn cancel_may_follow(index: usize, exchanges: &[Exchange]) -> bool {
    cancel::may_follow(index, exchanges)
}

/// The checks judged so far, each once, in the order they first applied.
#[derive(Debug, Default)]
struct Tally {
    checks: Vec<Check>,
}

impl Tally {
    /// Records that `name` applied to one request (or one situation) with this result; the
    /// first failure is the one kept.
    fn record(&mut self, name: &'static str, grade: Grade, result: Result<(), String>) {
        debug_assert!(NAMES.contains(&name), "{name} is missing from NAMES");
        let at = match self.checks.iter().position(|c| c.name == name) {
            Some(at) => at,
            None => {
                self.checks.push(Check {
                    name,
                    grade,
                    passed: true,
                    detail: String::new(),
                });
                self.checks.len() - 1
            }
        };
        let check = &mut self.checks[at];
        if let (Err(why), true) = (result, check.passed) {
            check.passed = false;
            check.detail = why;
        }
    }
}

/// One request of the call, with what the checks need to know about it.
#[derive(Debug)]
struct Request<'a> {
    /// Its position among the call's requests, from 1, and its method, for messages.
    label: String,
    exchange: &'a Exchange,
    /// The parsed JSON-RPC body (`Null` when it was none).
    message: Value,
    /// Whether it belongs to the 2026-07-28 era: every request of a 2026-07-28 case up to the
    /// first `initialize` (a fallback to the 2025 era); of a 2025 case, only a 2026-07-28 probe
    /// the server refused before the first `initialize` ([`is_refused_probe`]).
    modern: bool,
}

impl Request<'_> {
    fn is_post(&self) -> bool {
        self.exchange.http_method == "POST"
    }

    fn method(&self) -> Option<&str> {
        self.exchange.jsonrpc_method.as_deref()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.exchange.header(name)
    }

    fn id(&self) -> Option<&Value> {
        self.message.get("id")
    }

    /// Whether it is a POSTed JSON-RPC response (to a request the server sent).
    fn is_response(&self) -> bool {
        self.is_post() && is_response(&self.message)
    }

    /// How many milliseconds after the answer to `earlier` ended (its arrival, while it has not
    /// ended) this request arrived: what a client waited between the two.
    fn ms_after_answer_to(&self, earlier: &Request) -> u64 {
        let ended = earlier
            .exchange
            .reply
            .ended_ms
            .unwrap_or(earlier.exchange.at_ms);
        self.exchange.at_ms.saturating_sub(ended)
    }

    /// Whether it is a request (a method and an id) rather than a notification or a response.
    fn expects_answer(&self) -> bool {
        self.id().is_some() && self.method().is_some()
    }
}

/// Whether `exchange` is a 2026-07-28 request (its `MCP-Protocol-Version` header or its
/// `_meta` says so) that the server refused with a 4xx: how a client that speaks both eras
/// finds out that a server of the 2025 era speaks only that one, before it falls back to
/// `initialize` (the server answers `server/discover` so in a 2025 case). The rules of the
/// 2026-07-28 era judge such a probe, `legacy-fallback` among them; the session's rules start
/// after it. A 2026-07-28 request the script answered is no probe: in a 2025 case it is a
/// request of the session era without a session.
fn is_refused_probe(exchange: &Exchange, message: &Value) -> bool {
    let says_modern = crate::era::says_modern(exchange.header("mcp-protocol-version"), message);
    let refused = exchange
        .reply
        .status
        .is_some_and(|status| (400..500).contains(&status));
    says_modern && refused
}

/// The requests of one call, and the case they answer to; with the requests of the case's
/// calls before it, which ran on the same client (docs/adapters.md, "One client per case"): a
/// later call goes on in the session an earlier one opened.
#[derive(Debug)]
struct Requests<'a> {
    case: &'a CaseFile,
    call: usize,
    list: Vec<Request<'a>>,
    /// The requests of the calls before this one, oldest first: context, never judged again.
    before: Vec<Request<'a>>,
}

impl<'a> Requests<'a> {
    fn of(case: &'a CaseFile, call: usize, exchanges: &'a [Exchange]) -> Self {
        let stateless = Era::of(&case.protocol_version) == Some(Era::Stateless);
        let mut initialized = false;
        let (mut list, mut before) = (Vec::new(), Vec::new());
        for exchange in exchanges.iter().filter(|e| e.call <= call) {
            // A request the server could not parse as HTTP says nothing about the client's
            // choices; the server answered it with 400 and it is in the record.
            if exchange.http_method == HttpMethod::Unread {
                continue;
            }
            // The authorization server's requests are judged by the `auth-*` checks only.
            if exchange.is_for_authorization_server() {
                continue;
            }
            initialized |= exchange.jsonrpc_method.as_deref() == Some("initialize");
            let message = serde_json::from_str(&exchange.body).unwrap_or(Value::Null);
            let modern = match stateless {
                true => !initialized,
                false => !initialized && is_refused_probe(exchange, &message),
            };
            let method = exchange.jsonrpc_method.as_deref();
            let what = match method {
                Some(method) => method,
                None if is_response(&message) => "response",
                None => exchange.http_method.as_str(),
            };
            let (into, of_call) = match exchange.call == call {
                true => (&mut list, String::new()),
                false => (&mut before, format!("call {} ", exchange.call + 1)),
            };
            into.push(Request {
                label: format!("{of_call}request {} ({what})", into.len() + 1),
                exchange,
                message,
                modern,
            });
        }
        Requests {
            case,
            call,
            list,
            before,
        }
    }

    /// The scripted reply that answered `request`, as the case wrote it.
    fn script_reply(&self, request: &Request) -> Option<&'a crate::case::Reply> {
        let index = request.exchange.reply.script_index?;
        let call = self.case.call.get(self.call)?;
        match request.exchange.reply.by {
            Answerer::Script => call.reply.get(index),
            Answerer::Resume => call.resume.get(index),
            Answerer::Task => call.task_replies(request.method()?)?.get(index),
            _ => None,
        }
    }
}

/// The JSON-RPC message of a scripted reply that answers a request: its JSON body, or the last
/// SSE event whose data is a response. Placeholders are left as written.
fn answer_message(reply: &crate::case::Reply) -> Option<Value> {
    if let Some(json) = &reply.json {
        return serde_json::from_str(json).ok();
    }
    reply.event.iter().rev().find_map(event_answer)
}

/// An SSE event's data, when it is a response (a `result` or an `error`).
fn event_answer(event: &crate::case::Event) -> Option<Value> {
    let message: Value = serde_json::from_str(event.data.as_deref()?).ok()?;
    (message.get("result").is_some() || message.get("error").is_some()).then_some(message)
}

#[cfg(test)]
mod tests;

/// The JSON body the server sent in `exchange` (its head skipped), when it was one.
fn sent_json(exchange: &Exchange) -> Option<Value> {
    let (_, body) = exchange.reply.bytes.split_once("\r\n\r\n")?;
    serde_json::from_str(body).ok()
}

//! The lifecycle: the 2025 session (initialize first, the `initialized` notification, the
//! session id, a new session after a 404) and the 2026-07-28 version answers (retry with a
//! supported version, fall back to `initialize` only on a legacy 4xx).

use super::{Request, Requests, Tally};
use crate::case::Grade;
use crate::era::{HEADER_MISMATCH, UNSUPPORTED_VERSION, is_legacy_rejection, is_modern_error};
use serde_json::Value;

pub(super) fn check(requests: &Requests, tally: &mut Tally) {
    let posts: Vec<&Request> = requests.list.iter().filter(|r| r.is_post()).collect();
    let before: Vec<&Request> = requests.before.iter().filter(|r| r.is_post()).collect();
    legacy(&before, &posts, tally);
    expired_before(&before, &posts, tally);
    for (at, request) in posts.iter().enumerate() {
        let next = posts.get(at + 1).copied();
        if request.modern {
            after_modern_rejection(request, next, tally);
            after_header_mismatch(&posts[at..], tally);
        } else if carries_session(request) && request.exchange.reply.status == Some(404) {
            session_expired(&posts[at..], tally);
        }
    }
}

/// The session era's rules for every POST after the first `initialize`. A call after the
/// first goes on in the session the calls `before` it left (the same client): its first
/// request need not be `initialize`, and it is judged by that session.
fn legacy(before: &[&Request], posts: &[&Request], tally: &mut Tally) {
    let Some(first) = posts.iter().position(|r| !r.modern) else {
        return;
    };
    let mut session = before
        .iter()
        .rev()
        .filter(|r| r.method() == Some("initialize"))
        .find_map(|r| Session::from_answer(r));
    if !before.iter().any(|r| !r.modern) {
        let first_is_initialize = posts[first].method() == Some("initialize");
        let result = first_is_initialize.then_some(()).ok_or_else(|| {
            format!(
                "{}: the first request of the session era is not initialize",
                posts[first].label
            )
        });
        tally.record("initialize-first", Grade::Must, result);
    }
    for (at, request) in posts.iter().enumerate().skip(first) {
        if request.method() == Some("initialize") {
            session = Session::from_answer(request);
            if let Some(s) = &session {
                let rest = &posts[at + 1..];
                tally.record("initialized-notification", Grade::Must, s.notified(rest));
            }
            continue;
        }
        if let Some(session) = &session {
            tally.record("session-id", Grade::Must, session.named_by(request));
            tally.record(
                "session-version-header",
                Grade::Must,
                session.version_of(request),
            );
        }
    }
}

/// What a successful `initialize` settled.
struct Session {
    id: Option<String>,
    version: String,
}

impl Session {
    /// The session an `initialize` answer opened, if it was a 2xx with a version.
    fn from_answer(request: &Request) -> Option<Session> {
        let status = request.exchange.reply.status?;
        if !(200..300).contains(&status) {
            return None;
        }
        let answer = super::sent_json(request.exchange)?;
        let version = answer
            .pointer("/result/protocolVersion")?
            .as_str()?
            .to_owned();
        Some(Session {
            id: request.exchange.reply.session.clone(),
            version,
        })
    }

    /// The client sends `notifications/initialized` before its next request.
    fn notified(&self, rest: &[&Request]) -> Result<(), String> {
        let next_request = rest.iter().find(|r| r.expects_answer());
        let notified = rest
            .iter()
            .take_while(|r| !r.expects_answer())
            .any(|r| r.method() == Some("notifications/initialized"));
        match next_request {
            Some(r) if !notified => Err(format!(
                "{}: sent without notifications/initialized after initialize",
                r.label
            )),
            _ => Ok(()),
        }
    }

    fn named_by(&self, request: &Request) -> Result<(), String> {
        let Some(id) = &self.id else {
            return Ok(());
        };
        match request.header("mcp-session-id") {
            Some(sent) if sent == id => Ok(()),
            Some(sent) => Err(format!(
                "{}: Mcp-Session-Id is {sent:?}, the session is {id:?}",
                request.label
            )),
            None => Err(format!(
                "{}: no Mcp-Session-Id (the session is {id:?})",
                request.label
            )),
        }
    }

    fn version_of(&self, request: &Request) -> Result<(), String> {
        match request.header("mcp-protocol-version") {
            Some(v) if v == self.version => Ok(()),
            Some(v) => Err(format!(
                "{}: MCP-Protocol-Version is {v:?}, the session speaks {:?}",
                request.label, self.version
            )),
            None => Err(format!(
                "{}: no MCP-Protocol-Version (the session speaks {:?})",
                request.label, self.version
            )),
        }
    }
}

fn carries_session(request: &Request) -> bool {
    request.header("mcp-session-id").is_some()
}

/// After a 404 to a request in a session (`posts[0]`), judged the three ways a client gets it
/// wrong, each its own check so that a baseline can name the one an SDK fails: it never opens a
/// new session; it does, but sends the expired session id again; it does, but never re-sends the
/// request the 404 answered.
fn session_expired(posts: &[&Request], tally: &mut Tally) {
    let (expired, rest) = (posts[0], &posts[1..]);
    let reopened = rest.iter().position(|r| r.method() == Some("initialize"));
    let result = reopened.map(|_| ()).ok_or_else(|| match rest.first() {
        Some(n) => format!(
            "{}: sent after the 404 to {} and no new initialize followed",
            n.label, expired.label
        ),
        None => format!(
            "no new initialize after the 404 to {} (the session expired)",
            expired.label
        ),
    });
    tally.record("session-expiry-reinitialize", Grade::Must, result);
    if !rest.is_empty() {
        let result = never_resent_id(expired, rest);
        tally.record("session-expiry-stale-id", Grade::Must, result);
    }
    if let Some(at) = reopened {
        let result = resent(expired, &rest[at + 1..]);
        tally.record("session-expiry-resend", Grade::Should, result);
    }
}

/// A session that expired during an earlier call of the same client stays expired: no POST of
/// this call carries its id (`session-expiry-stale-id`, judged again for each later call).
fn expired_before(before: &[&Request], posts: &[&Request], tally: &mut Tally) {
    let expired = before
        .iter()
        .filter(|r| carries_session(r) && !r.modern && r.exchange.reply.status == Some(404));
    for request in expired {
        if !posts.is_empty() {
            let result = never_resent_id(request, posts);
            tally.record("session-expiry-stale-id", Grade::Must, result);
        }
    }
}

/// No POST after the 404 carries the session id the 404 declared expired.
fn never_resent_id(expired: &Request, rest: &[&Request]) -> Result<(), String> {
    let stale = expired.header("mcp-session-id");
    match rest.iter().find(|r| r.header("mcp-session-id") == stale) {
        Some(r) => Err(format!(
            "{}: still carries the expired Mcp-Session-Id {:?}",
            r.label,
            stale.unwrap_or_default()
        )),
        None => Ok(()),
    }
}

/// The request the 404 answered is sent again in the new session.
fn resent(expired: &Request, after_initialize: &[&Request]) -> Result<(), String> {
    let same = |r: &&&Request| {
        r.method() == expired.method()
            && r.message.pointer("/params/name") == expired.message.pointer("/params/name")
    };
    match after_initialize.iter().find(same) {
        Some(_) => Ok(()),
        None => Err(format!(
            "{} ({}) was not sent again after the new initialize",
            expired.label,
            expired.method().unwrap_or("a request")
        )),
    }
}

/// After a `HeaderMismatch` (`400` with -32020) to the first of `posts`: `tools/list`, then the
/// request again (2026-07-28 streamable-http: the client SHOULD check the tool's `inputSchema`
/// with `tools/list`, then retry with the right headers).
fn after_header_mismatch(posts: &[&Request], tally: &mut Tally) {
    let [rejected, rest @ ..] = posts else {
        return;
    };
    let status = rejected.exchange.reply.status;
    if status != Some(400) || error_code(rejected) != Some(HEADER_MISMATCH) {
        return;
    }
    let again = rest.iter().position(|r| r.method() == rejected.method());
    let listed = rest.iter().position(|r| r.method() == Some("tools/list"));
    let result = match (listed, again) {
        (Some(listed), Some(again)) if listed < again => Ok(()),
        (_, Some(again)) => Err(format!(
            "{}: sent again without a tools/list after the HeaderMismatch to {}",
            rest[again].label, rejected.label
        )),
        (_, None) => Err(format!(
            "{} was not sent again after its HeaderMismatch",
            rejected.label
        )),
    };
    tally.record("header-mismatch-refresh", Grade::Should, result);
}

/// The JSON-RPC error code of the answer to `request`, when it was an error body.
fn error_code(request: &Request) -> Option<i64> {
    code_of(&super::sent_json(request.exchange)?)
}

/// `error.code` of a JSON-RPC error body, when it is an integer.
fn code_of(body: &Value) -> Option<i64> {
    body.pointer("/error/code").and_then(Value::as_i64)
}

/// After a modern request got a 4xx: retry with a supported version, never fall back on a
/// modern error, fall back to `initialize` on a legacy one.
fn after_modern_rejection(request: &Request, next: Option<&Request>, tally: &mut Tally) {
    let Some(status) = request.exchange.reply.status else {
        return;
    };
    let error = super::sent_json(request.exchange);
    let code = error.as_ref().and_then(code_of);
    if is_modern_error(status, code) {
        let supported = supported_versions(error.as_ref(), code);
        tally.record(
            "no-legacy-fallback",
            Grade::Should,
            no_fallback(next, &supported),
        );
        if supported
            .iter()
            .any(|v| crate::era::KNOWN_VERSIONS.contains(&v.as_str()))
        {
            let result = retried_with(request, next, &supported);
            tally.record("supported-version-retry", Grade::Should, result);
        }
    } else if is_legacy_rejection(status, code) {
        tally.record("legacy-fallback", Grade::Should, fell_back(request, next));
    }
}

/// `data.supported` of an `UnsupportedProtocolVersionError`.
fn supported_versions(error: Option<&Value>, code: Option<i64>) -> Vec<String> {
    if code != Some(UNSUPPORTED_VERSION) {
        return Vec::new();
    }
    let list = error.and_then(|e| e.pointer("/error/data/supported"));
    let strings = list.and_then(Value::as_array).into_iter().flatten();
    strings
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// The version a request speaks: `initialize`'s offer, else its header.
fn version_of(request: &Request) -> Option<String> {
    if request.method() == Some("initialize") {
        let offered = request.message.pointer("/params/protocolVersion");
        return offered.and_then(Value::as_str).map(str::to_owned);
    }
    request.header("mcp-protocol-version").map(str::to_owned)
}

fn no_fallback(next: Option<&Request>, supported: &[String]) -> Result<(), String> {
    match next {
        Some(n) if n.method() == Some("initialize") => {
            let offered = version_of(n).unwrap_or_default();
            if supported.contains(&offered) {
                Ok(()) // a legacy version the server listed: a retry, not a fallback
            } else {
                Err(format!(
                    "{}: fell back to initialize after a modern error",
                    n.label
                ))
            }
        }
        _ => Ok(()),
    }
}

fn retried_with(
    request: &Request,
    next: Option<&Request>,
    supported: &[String],
) -> Result<(), String> {
    let Some(next) = next else {
        return Err(format!(
            "no retry after {} was answered -32022 with supported versions {supported:?}",
            request.label
        ));
    };
    match version_of(next) {
        Some(v) if supported.contains(&v) => Ok(()),
        other => Err(format!(
            "{}: retried with version {other:?}, not one of {supported:?}",
            next.label
        )),
    }
}

fn fell_back(request: &Request, next: Option<&Request>) -> Result<(), String> {
    match next {
        Some(n) if n.method() == Some("initialize") => Ok(()),
        Some(n) => Err(format!(
            "{}: sent instead of initialize after the legacy {} answer to {}",
            n.label,
            request.exchange.reply.status.unwrap_or_default(),
            request.label
        )),
        None => Err(format!(
            "no initialize after the legacy {} answer to {} (a dual-era client falls back)",
            request.exchange.reply.status.unwrap_or_default(),
            request.label
        )),
    }
}

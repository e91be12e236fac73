//! What a client sent in an authorization case (cases/README.md, "Authorization"): its token on
//! every MCP request, its requests to the authorization server, and whether it stopped.
//!
//! These checks read every exchange of the call, the authorization server's included (the
//! other checks see the MCP endpoint's only), and the calls before it for the state a client
//! carries over: which refresh token is still alive, which one rotation replaced.

use super::{Tally, sent_json};
use crate::case::{AsMetadata, CaseFile, Grade, Issuer};
use crate::wire::Exchange;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// The most refused MCP requests, token requests and interactive authorization requests one
/// call may make (`auth-attempts-bounded`): a refresh after a 401, a step-up after a 403 and a
/// token the store said had expired refreshed before the call fit; a client that loops does not.
pub const MOST_REFUSALS: usize = 3;
/// See [`MOST_REFUSALS`].
pub const MOST_TOKEN_REQUESTS: usize = 3;
/// See [`MOST_REFUSALS`].
pub const MOST_AUTHORIZATIONS: usize = 1;

pub(super) fn check(case: &CaseFile, index: usize, exchanges: &[Exchange], tally: &mut Tally) {
    let Some(auth) = &case.auth else {
        return;
    };
    let state = State::walk(case, index, exchanges);
    let mine: Vec<&Exchange> = exchanges.iter().filter(|e| e.call == index).collect();
    for (n, exchange) in mine.iter().enumerate() {
        let label = label(n, exchange);
        let in_query = match exchange.path.contains("access_token=") {
            true => Err(format!("{label}: the access token is in the query string")),
            false => Ok(()),
        };
        tally.record("auth-not-in-query", Grade::Must, in_query);
        if is_mcp(exchange) && state.held_before(exchange) {
            let result = match exchange.header("authorization") {
                Some(value) if value.len() > 7 && value[..7].eq_ignore_ascii_case("bearer ") => {
                    Ok(())
                }
                Some(value) => Err(format!("{label}: Authorization is {value:?}, not Bearer")),
                None => Err(format!(
                    "{label}: no Authorization header, while the client held an access token"
                )),
            };
            tally.record("auth-header", Grade::Must, result);
        }
        if exchange.is_token_request() || exchange.is_authorization() {
            tally.record(
                "auth-token-resource",
                Grade::Must,
                resource(&label, exchange),
            );
        }
    }
    // Metadata the client must not use leaves it no token endpoint to refresh at.
    let reachable = auth.issuer == Issuer::Match && auth.as_metadata != AsMetadata::None;
    if reachable {
        refresh_first(&mine, &state, tally);
    }
    rotated(exchanges, index, tally);
    bounded(&mine, tally);
    step_up(&mine, tally);
    if auth.issuer == Issuer::Mismatch {
        let used = mine
            .iter()
            .enumerate()
            .find(|(_, e)| e.is_token_request() || e.is_authorization());
        let result = match used {
            Some((n, e)) => Err(format!(
                "{}: sent to an endpoint named by metadata whose issuer is not the \
                 authorization server's (RFC 8414 §3.3: MUST NOT be used)",
                label(n, e)
            )),
            None => Ok(()),
        };
        tally.record("auth-issuer-checked", Grade::Must, result);
    }
    no_legacy_fallback(&mine, tally);
}

/// `request 3 (POST /token)`, as the failures name a request.
fn label(n: usize, exchange: &Exchange) -> String {
    let what = match &exchange.jsonrpc_method {
        Some(method) => method.clone(),
        None => format!("{} {}", exchange.http_method.as_str(), exchange.path_only()),
    };
    format!("request {} ({what})", n + 1)
}

/// A request to the MCP endpoint (not the authorization server).
fn is_mcp(exchange: &Exchange) -> bool {
    !exchange.is_for_authorization_server()
        && exchange.http_method != crate::wire::http::HttpMethod::Unread
}

/// Whether the server refused it for want of authorization.
fn refused(exchange: &Exchange) -> Option<u16> {
    let status = exchange.reply.status?;
    (is_mcp(exchange) && exchange.reply.by == crate::wire::Answerer::Auth).then_some(status)
}

/// The form of a token request, or the query of an authorization request.
fn params(exchange: &Exchange) -> HashMap<String, String> {
    let text = match exchange.is_authorization() {
        true => exchange.path.split_once('?').map_or("", |(_, q)| q),
        false => exchange.body.as_str(),
    };
    form_urlencoded::parse(text.as_bytes())
        .into_owned()
        .collect()
}

/// The client's credentials as the record shows them, call by call.
struct State {
    /// Whether the client started with an access token.
    started_with_access: bool,
    /// When (`at_ms`) the first token was issued, if one was before or in the call.
    first_issued_ms: Option<u64>,
    /// The refresh tokens alive at the start of the call (by their redacted names).
    alive_at_start: BTreeSet<String>,
}

impl State {
    fn walk(case: &CaseFile, index: usize, exchanges: &[Exchange]) -> State {
        let auth = case.auth.as_ref();
        let mut alive = BTreeSet::new();
        if auth.is_some_and(|a| a.refresh_token) {
            alive.insert("[refresh-token-1]".to_owned());
        }
        let mut first_issued_ms = None;
        for exchange in exchanges.iter().filter(|e| e.call <= index) {
            if !exchange.is_token_request() {
                continue;
            }
            let answer = sent_json(exchange);
            let issued = exchange.reply.status == Some(200)
                && answer
                    .as_ref()
                    .is_some_and(|a| a.get("access_token").is_some());
            if issued && first_issued_ms.is_none() {
                first_issued_ms = Some(exchange.reply.ended_ms.unwrap_or(exchange.at_ms));
            }
            if exchange.call == index {
                continue; // the call's own changes are judged request by request
            }
            let sent = params(exchange).get("refresh_token").cloned();
            let new = answer
                .as_ref()
                .and_then(|a| a.get("refresh_token"))
                .and_then(Value::as_str);
            let error = answer
                .as_ref()
                .and_then(|a| a.get("error"))
                .and_then(Value::as_str);
            if let (Some(sent), Some(new)) = (&sent, new) {
                alive.remove(sent);
                alive.insert(new.to_owned());
            }
            if let (Some(sent), Some("invalid_grant")) = (&sent, error) {
                alive.remove(sent);
            }
        }
        State {
            started_with_access: auth
                .is_some_and(|a| a.access_token != crate::case::StartToken::None),
            first_issued_ms,
            alive_at_start: alive,
        }
    }

    /// Whether the client held an access token when `exchange` arrived.
    fn held_before(&self, exchange: &Exchange) -> bool {
        self.started_with_access || self.first_issued_ms.is_some_and(|at| at <= exchange.at_ms)
    }
}

/// Every token request and authorization request names the MCP server in `resource`.
fn resource(label: &str, exchange: &Exchange) -> Result<(), String> {
    let host = exchange.header("host").unwrap_or("127.0.0.1");
    let canonical = format!("http://{host}/mcp");
    // Said without the server's origin, whose port changes from run to run.
    let origin = format!("http://{host}");
    match params(exchange).get("resource") {
        Some(r) if r.trim_end_matches('/') == canonical => Ok(()),
        Some(r) => Err(format!(
            "{label}: resource is {:?}, not the MCP endpoint (/mcp on the server's origin)",
            r.replace(&origin, "<origin>")
        )),
        None => Err(format!("{label}: no resource parameter (RFC 8707)")),
    }
}

/// The first 401 of the call, while the client holds a refresh token still alive, is followed
/// by a refresh grant before any interactive authorization.
fn refresh_first(mine: &[&Exchange], state: &State, tally: &mut Tally) {
    if state.alive_at_start.is_empty() {
        return;
    }
    let Some(at) = mine.iter().position(|e| refused(e) == Some(401)) else {
        return;
    };
    let after = &mine[at + 1..];
    let refresh = after.iter().position(|e| {
        e.is_token_request()
            && params(e).get("grant_type").map(String::as_str) == Some("refresh_token")
    });
    let asked_user = after.iter().position(|e| e.is_authorization());
    let label = label(at, mine[at]);
    let result = match (refresh, asked_user) {
        (Some(r), Some(a)) if a < r => Err(format!(
            "{label}: answered 401; an interactive authorization was asked for before the \
             refresh token was used"
        )),
        (Some(_), _) => Ok(()),
        (None, Some(_)) => Err(format!(
            "{label}: answered 401; an interactive authorization was asked for, the refresh \
             token never used"
        )),
        (None, None) => Err(format!(
            "{label}: answered 401; the client held a refresh token and never used it"
        )),
    };
    tally.record("auth-refresh-first", Grade::Must, result);
}

/// A refresh token that rotation replaced is never sent again: the token requests of the calls
/// so far, in order (the client carries its store from call to call), each judged in its call.
fn rotated(exchanges: &[Exchange], index: usize, tally: &mut Tally) {
    let mut replaced = BTreeSet::new();
    let mut n = 0;
    for exchange in exchanges.iter().filter(|e| e.call <= index) {
        let mine = exchange.call == index;
        n += usize::from(mine);
        if !exchange.is_token_request() {
            continue;
        }
        let sent = params(exchange).get("refresh_token").cloned();
        if let Some(sent) = &sent
            && mine
            && replaced.contains(sent)
        {
            let why = format!(
                "{}: sent {sent}, which rotation replaced",
                label(n - 1, exchange)
            );
            tally.record("auth-rotated-refresh", Grade::Must, Err(why));
        }
        let new = sent_json(exchange)
            .is_some_and(|a| a.get("refresh_token").and_then(Value::as_str).is_some());
        if let (Some(sent), true) = (sent, new) {
            replaced.insert(sent);
        }
    }
    if !replaced.is_empty() {
        tally.record("auth-rotated-refresh", Grade::Must, Ok(()));
    }
}

/// At most [`MOST_REFUSALS`] refused MCP requests, [`MOST_TOKEN_REQUESTS`] token requests and
/// [`MOST_AUTHORIZATIONS`] authorization requests in one call.
fn bounded(mine: &[&Exchange], tally: &mut Tally) {
    let refusals = mine.iter().filter(|e| refused(e).is_some()).count();
    let tokens = mine.iter().filter(|e| e.is_token_request()).count();
    let asks = mine.iter().filter(|e| e.is_authorization()).count();
    if refusals + tokens + asks == 0 {
        return;
    }
    let result = if refusals > MOST_REFUSALS {
        Err(format!(
            "{refusals} requests refused with 401 or 403 in one call (at most \
             {MOST_REFUSALS}): the client does not stop"
        ))
    } else if tokens > MOST_TOKEN_REQUESTS {
        Err(format!(
            "{tokens} token requests in one call (at most {MOST_TOKEN_REQUESTS})"
        ))
    } else if asks > MOST_AUTHORIZATIONS {
        Err(format!(
            "{asks} interactive authorizations asked for in one call (at most \
             {MOST_AUTHORIZATIONS})"
        ))
    } else {
        Ok(())
    };
    tally.record("auth-attempts-bounded", Grade::Must, result);
}

/// After the call's first 403 `insufficient_scope` with a scope, a new token is asked for
/// (`auth-step-up-attempted`); after any, every request for one names the challenged scopes
/// (`auth-step-up-scope`).
fn step_up(mine: &[&Exchange], tally: &mut Tally) {
    let mut first = true;
    for (n, exchange) in mine.iter().enumerate() {
        if refused(exchange) != Some(403) {
            continue;
        }
        let Some(wanted) = challenged_scope(exchange) else {
            continue;
        };
        let label = label(n, exchange);
        let asks: Vec<(usize, &&Exchange)> = mine
            .iter()
            .enumerate()
            .skip(n + 1)
            .filter(|(_, e)| e.is_token_request() || e.is_authorization())
            .collect();
        // A 403 after a step-up is the permanent failure: only the first calls for one.
        if std::mem::replace(&mut first, false) {
            let attempted = match asks.is_empty() {
                true => Err(format!(
                    "{label}: answered 403 insufficient_scope; no new token or authorization \
                     was asked for"
                )),
                false => Ok(()),
            };
            tally.record("auth-step-up-attempted", Grade::Should, attempted);
        }
        for (m, ask) in asks {
            let params = params(ask);
            let asked: BTreeSet<&str> = params
                .get("scope")
                .map(|s| s.split_whitespace().collect())
                .unwrap_or_default();
            let missing: Vec<&str> = wanted
                .split_whitespace()
                .filter(|s| !asked.contains(s))
                .collect();
            let result = match missing.is_empty() {
                true => Ok(()),
                false => Err(format!(
                    "{}: after {label} challenged scope {wanted:?}, asked for {:?} without {}",
                    self::label(m, ask),
                    params.get("scope").map_or("", String::as_str),
                    missing.join(" ")
                )),
            };
            tally.record("auth-step-up-scope", Grade::Must, result);
        }
    }
}

/// The `scope` of a 403's `insufficient_scope` challenge, as the server sent it (every
/// `WWW-Authenticate` line of the reply's head, read as the reference client reads one).
fn challenged_scope(exchange: &Exchange) -> Option<String> {
    let (head, _) = exchange.reply.bytes.split_once("\r\n\r\n")?;
    let values = head.lines().filter_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("www-authenticate")
            .then_some(value.trim())
    });
    let params = crate::challenge::first_bearer(values)?;
    if crate::challenge::param(&params, "error") != Some("insufficient_scope") {
        return None;
    }
    crate::challenge::param(&params, "scope").map(str::to_owned)
}

/// After a 401 or 403, no GET on the MCP endpoint outside a session: the legacy HTTP+SSE
/// transport's first request, which a refusal does not call for. A client whose stream GET
/// (outside a session) came before the refusal, or was the refused request, is opening its
/// stream again, not falling back.
fn no_legacy_fallback(mine: &[&Exchange], tally: &mut Tally) {
    let Some(first) = mine.iter().position(|e| refused(e).is_some()) else {
        return;
    };
    let outside_session =
        |e: &&Exchange| is_mcp(e) && e.http_method == "GET" && e.header("mcp-session-id").is_none();
    if mine[..=first].iter().any(outside_session) {
        tally.record("auth-no-legacy-fallback", Grade::Should, Ok(()));
        return;
    }
    let legacy = mine
        .iter()
        .enumerate()
        .skip(first + 1)
        .find(|(_, e)| outside_session(e));
    let result = match legacy {
        Some((n, e)) => Err(format!(
            "{}: a GET outside a session after {} was refused: the legacy HTTP+SSE transport \
             is no answer to a 401 or 403",
            label(n, e),
            label(first, mine[first])
        )),
        None => Ok(()),
    };
    tally.record("auth-no-legacy-fallback", Grade::Should, result);
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;

//! The authorization checks, passed and failed, on hand-built exchanges: the MCP endpoint's
//! requests (refused by the authorization server or answered) and the authorization server's.

use super::super::{Check, check_call};
use super::{MOST_AUTHORIZATIONS, MOST_REFUSALS, MOST_TOKEN_REQUESTS};
use crate::case::{CaseFile, CaseSource};
use crate::wire::{Answerer, Exchange, Sent};
use serde_json::{Value, json};

const HOST: &str = "127.0.0.1:4000";
const RESOURCE: &str = "http%3A%2F%2F127.0.0.1%3A4000%2Fmcp";

/// A 2026-07-28 case with these `[auth]` keys and `calls` calls.
fn case(auth: &str, calls: usize) -> CaseFile {
    let call = "[[call]]\nexpect = { outcome = \"TOOL_SUCCESS\" }\n[[call.reply]]\nstatus = 200\n";
    let text = format!(
        "summary = \"t\"\nprotocol_version = \"2026-07-28\"\n[auth]\n{auth}\n{}",
        call.repeat(calls)
    );
    let source = CaseSource {
        id: "t".into(),
        origin: "t.toml".into(),
        text: Ok(text),
    };
    source.load().unwrap().file
}

fn exchange(call: usize, at_ms: u64, method: &str, path: &str, by: Answerer) -> Exchange {
    Exchange {
        at_ms,
        call,
        http_method: method.into(),
        path: path.into(),
        jsonrpc_method: None,
        headers: vec![("host".to_owned(), HOST.to_owned())],
        body: String::new(),
        dropped: 0,
        reply: Sent {
            by,
            status: Some(200),
            ended_ms: Some(at_ms + 1),
            ..Sent::default()
        },
    }
}

/// A `tools/call` POST with this `Authorization` (none when `None`), answered 200.
fn tool_call(call: usize, at_ms: u64, authorization: Option<&str>) -> Exchange {
    let mut e = exchange(call, at_ms, "POST", "/mcp", Answerer::Script);
    e.jsonrpc_method = Some("tools/call".into());
    e.body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "synthetic"}})
            .to_string();
    if let Some(value) = authorization {
        e.headers.push(("authorization".into(), value.into()));
    }
    e
}

/// A `tools/call` the authorization server refused with `status` and this challenge.
fn refused(call: usize, at_ms: u64, status: u16, challenge: &str) -> Exchange {
    let mut e = tool_call(call, at_ms, Some("Bearer [access-token-1]"));
    e.reply.by = Answerer::Auth;
    e.reply.status = Some(status);
    e.reply.bytes = format!("HTTP/1.1 {status} No\r\nwww-authenticate: {challenge}\r\n\r\n");
    e
}

/// A token request with this form, answered 200 with `answer`.
fn token(call: usize, at_ms: u64, form: &str, answer: Value) -> Exchange {
    let mut e = exchange(call, at_ms, "POST", "/token", Answerer::AuthServer);
    e.body = form.to_owned();
    e.reply.bytes = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{answer}");
    e
}

fn refresh(call: usize, at_ms: u64, refresh_token: &str, rotated_to: Option<&str>) -> Exchange {
    let mut answer = json!({"access_token": "[access-token-2]", "token_type": "Bearer"});
    if let Some(new) = rotated_to {
        answer["refresh_token"] = json!(new);
    }
    let form = format!(
        "grant_type=refresh_token&refresh_token={}&resource={RESOURCE}",
        refresh_token.replace('[', "%5B").replace(']', "%5D")
    );
    token(call, at_ms, &form, answer)
}

/// A GET of the authorization endpoint with this query.
fn authorize(call: usize, at_ms: u64, query: &str) -> Exchange {
    exchange(
        call,
        at_ms,
        "GET",
        &format!("/authorize?{query}"),
        Answerer::AuthServer,
    )
}

fn judge(case: &CaseFile, index: usize, exchanges: &[Exchange]) -> Vec<Check> {
    check_call(case, index, exchanges)
}

fn verdict<'a>(checks: &'a [Check], name: &str) -> &'a Check {
    checks
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("{name} did not apply: {checks:?}"))
}

fn applies(checks: &[Check], name: &str) -> bool {
    checks.iter().any(|c| c.name == name)
}

const BEARER: Option<&str> = Some("Bearer [access-token-1]");
const REFRESHED: Option<&str> = Some("Bearer [access-token-2]");

#[test]
fn the_token_goes_in_the_header_of_every_request_and_never_in_the_query() {
    let file = case("refresh_token = true", 1);
    let checks = judge(&file, 0, &[tool_call(0, 0, BEARER)]);
    assert!(verdict(&checks, "auth-header").passed);
    assert!(verdict(&checks, "auth-not-in-query").passed);

    let checks = judge(&file, 0, &[tool_call(0, 0, None)]);
    let header = verdict(&checks, "auth-header");
    assert!(!header.passed);
    assert!(
        header.detail.contains("no Authorization header"),
        "{header:?}"
    );
    let checks = judge(&file, 0, &[tool_call(0, 0, Some("Basic bWVsOng="))]);
    assert!(
        verdict(&checks, "auth-header")
            .detail
            .contains("not Bearer")
    );

    let mut in_query = tool_call(0, 0, BEARER);
    in_query.path = "/mcp?access_token=x".into();
    let checks = judge(&file, 0, &[in_query]);
    assert!(!verdict(&checks, "auth-not-in-query").passed);
}

#[test]
fn a_client_that_starts_with_no_access_token_needs_none_until_one_is_issued() {
    let file = case("access_token = \"none\"\nrefresh_token = true", 1);
    let checks = judge(&file, 0, &[tool_call(0, 0, None)]);
    assert!(!applies(&checks, "auth-header"), "{checks:?}");
    // Once a token was issued, the next request must carry it.
    let issued = refresh(0, 5, "[refresh-token-1]", None);
    let checks = judge(
        &file,
        0,
        &[tool_call(0, 0, None), issued, tool_call(0, 10, None)],
    );
    assert!(!verdict(&checks, "auth-header").passed);
}

#[test]
fn every_token_and_authorization_request_names_the_mcp_endpoint_as_resource() {
    let file = case("refresh_token = true", 1);
    let good = refresh(0, 1, "[refresh-token-1]", None);
    let checks = judge(&file, 0, &[refused(0, 0, 401, "Bearer"), good]);
    assert!(verdict(&checks, "auth-token-resource").passed);

    let none = token(0, 1, "grant_type=refresh_token&refresh_token=r", json!({}));
    let checks = judge(&file, 0, &[refused(0, 0, 401, "Bearer"), none]);
    let check = verdict(&checks, "auth-token-resource");
    assert!(check.detail.contains("no resource parameter"), "{check:?}");

    let origin = authorize(
        0,
        1,
        "response_type=code&resource=http%3A%2F%2F127.0.0.1%3A4000",
    );
    let checks = judge(&file, 0, &[refused(0, 0, 401, "Bearer"), origin]);
    let check = verdict(&checks, "auth-token-resource");
    assert!(check.detail.contains("\"<origin>\""), "{check:?}");
}

#[test]
fn a_401_is_answered_with_the_refresh_token_before_any_interactive_authorization() {
    let file = case("refresh_token = true", 1);
    let refused_first = refused(0, 0, 401, "Bearer error=\"invalid_token\"");
    let retried = tool_call(0, 3, REFRESHED);
    let good = [
        refused_first.clone(),
        refresh(0, 1, "[refresh-token-1]", None),
        retried,
    ];
    assert!(verdict(&judge(&file, 0, &good), "auth-refresh-first").passed);

    let asked_first = [
        refused_first.clone(),
        authorize(0, 1, &format!("resource={RESOURCE}")),
        refresh(0, 2, "[refresh-token-1]", None),
    ];
    let check = judge(&file, 0, &asked_first);
    assert!(
        verdict(&check, "auth-refresh-first")
            .detail
            .contains("before the refresh token")
    );

    let only_asked = [
        refused_first.clone(),
        authorize(0, 1, &format!("resource={RESOURCE}")),
    ];
    let check = judge(&file, 0, &only_asked);
    assert!(
        verdict(&check, "auth-refresh-first")
            .detail
            .contains("never used")
    );

    let gave_up = judge(&file, 0, std::slice::from_ref(&refused_first));
    assert!(!verdict(&gave_up, "auth-refresh-first").passed);

    // Without a refresh token, or with metadata the client must not use, nothing is asked.
    let without = case("refresh_token = false", 1);
    let check = judge(&without, 0, std::slice::from_ref(&refused_first));
    assert!(!applies(&check, "auth-refresh-first"));
    let mismatch = case("refresh_token = true\nissuer = \"mismatch\"", 1);
    let check = judge(&mismatch, 0, std::slice::from_ref(&refused_first));
    assert!(!applies(&check, "auth-refresh-first"));
}

#[test]
fn a_refresh_token_that_rotation_replaced_is_never_sent_again() {
    let file = case("refresh_token = true", 2);
    let first = [
        refused(0, 0, 401, "Bearer"),
        refresh(0, 1, "[refresh-token-1]", Some("[refresh-token-2]")),
        tool_call(0, 2, REFRESHED),
    ];
    let mut good = first.to_vec();
    good.extend([
        refused(1, 10, 401, "Bearer"),
        refresh(1, 11, "[refresh-token-2]", None),
    ]);
    assert!(verdict(&judge(&file, 1, &good), "auth-rotated-refresh").passed);
    // The second call re-sends the token the first call's rotation replaced.
    let mut stale = first.to_vec();
    stale.extend([
        refused(1, 10, 401, "Bearer"),
        refresh(1, 11, "[refresh-token-1]", None),
    ]);
    let checks = judge(&file, 1, &stale);
    let check = verdict(&checks, "auth-rotated-refresh");
    assert!(
        check
            .detail
            .contains("[refresh-token-1], which rotation replaced"),
        "{check:?}"
    );
    // Nor does the call that saw the rotation pass if it re-sends the old token itself.
    let mut within = first.to_vec();
    within.push(refresh(0, 3, "[refresh-token-1]", None));
    assert!(!verdict(&judge(&file, 0, &within), "auth-rotated-refresh").passed);
    // With no rotation at all the check does not apply.
    let plain = [
        refused(0, 0, 401, "Bearer"),
        refresh(0, 1, "[refresh-token-1]", None),
    ];
    assert!(!applies(&judge(&file, 0, &plain), "auth-rotated-refresh"));
}

#[test]
fn a_call_stops_after_a_bounded_number_of_refusals_token_requests_and_asks() {
    let file = case("refresh_token = true", 1);
    let at_bound: Vec<Exchange> = (0..MOST_REFUSALS as u64)
        .map(|n| refused(0, n, 401, "Bearer"))
        .collect();
    assert!(verdict(&judge(&file, 0, &at_bound), "auth-attempts-bounded").passed);

    let one_over = |make: &dyn Fn(u64) -> Exchange, bound: usize| -> Vec<Exchange> {
        (0..=bound as u64).map(make).collect()
    };
    let over = [
        (
            one_over(&|n| refused(0, n, 401, "Bearer"), MOST_REFUSALS),
            "does not stop",
        ),
        (
            one_over(
                &|n| refresh(0, n, "[refresh-token-1]", None),
                MOST_TOKEN_REQUESTS,
            ),
            "token requests",
        ),
        (
            one_over(&|n| authorize(0, n, "resource=x"), MOST_AUTHORIZATIONS),
            "interactive",
        ),
    ];
    for (exchanges, why) in over {
        let checks = judge(&file, 0, &exchanges);
        let check = verdict(&checks, "auth-attempts-bounded");
        assert!(check.detail.contains(why), "{why}: {check:?}");
    }

    assert!(!applies(
        &judge(&file, 0, &[tool_call(0, 0, BEARER)]),
        "auth-attempts-bounded"
    ));
}

#[test]
fn a_403_insufficient_scope_calls_for_a_token_with_every_challenged_scope() {
    let file = case("refresh_token = true\nscope_required = \"mcp:write\"", 1);
    let challenge = r#"Bearer error="insufficient_scope", scope="mcp:tools mcp:write""#;
    let forbidden = refused(0, 0, 403, challenge);
    let asked = |scope: &str| {
        authorize(
            0,
            1,
            &format!("response_type=code&scope={scope}&resource={RESOURCE}"),
        )
    };

    let good = judge(
        &file,
        0,
        &[forbidden.clone(), asked("mcp%3Atools+mcp%3Awrite")],
    );
    assert!(verdict(&good, "auth-step-up-attempted").passed);
    assert!(verdict(&good, "auth-step-up-scope").passed);

    let narrow = judge(&file, 0, &[forbidden.clone(), asked("mcp%3Atools")]);
    let check = verdict(&narrow, "auth-step-up-scope");
    assert!(check.detail.contains("without mcp:write"), "{check:?}");
    assert_eq!(check.grade, crate::case::Grade::Must);

    let nothing = judge(&file, 0, std::slice::from_ref(&forbidden));
    let check = verdict(&nothing, "auth-step-up-attempted");
    assert!(!check.passed);
    assert_eq!(check.grade, crate::case::Grade::Should);
    assert!(!applies(&nothing, "auth-step-up-scope"));

    // A 403 whose challenge names no insufficient_scope, or no scope, calls for nothing; a
    // scope in another parameter's value is not a challenged scope.
    for other in [
        "Bearer error=\"invalid_token\", scope=\"mcp:write\"",
        "Bearer error=\"insufficient_scope\"",
        r#"Bearer error="insufficient_scope", resource_metadata="http://h/x?scope=""#,
    ] {
        let checks = judge(&file, 0, &[refused(0, 0, 403, other)]);
        assert!(
            !applies(&checks, "auth-step-up-attempted"),
            "{other}: {checks:?}"
        );
    }
}

#[test]
fn metadata_with_another_issuer_is_not_used() {
    let file = case("refresh_token = true\nissuer = \"mismatch\"", 1);
    let refusal = refused(0, 0, 401, "Bearer");
    assert!(
        verdict(
            &judge(&file, 0, std::slice::from_ref(&refusal)),
            "auth-issuer-checked"
        )
        .passed
    );
    let used = [refusal, refresh(0, 1, "[refresh-token-1]", None)];
    let checks = judge(&file, 0, &used);
    assert!(
        verdict(&checks, "auth-issuer-checked")
            .detail
            .contains("issuer")
    );
    let matching = case("refresh_token = true", 1);
    assert!(!applies(&judge(&matching, 0, &used), "auth-issuer-checked"));
}

#[test]
fn a_refusal_is_no_reason_to_fall_back_to_the_legacy_transport() {
    let file = case("refresh_token = true", 1);
    let legacy_get = exchange(0, 2, "GET", "/mcp", Answerer::Prelude);
    let checks = judge(
        &file,
        0,
        &[refused(0, 0, 401, "Bearer"), legacy_get.clone()],
    );
    let check = verdict(&checks, "auth-no-legacy-fallback");
    assert!(check.detail.contains("legacy HTTP+SSE"), "{check:?}");
    assert_eq!(check.grade, crate::case::Grade::Should);

    // A stream GET opened before the refusal (or refused itself) is opened again, not a
    // fall back.
    let stream_first = [
        legacy_get.clone(),
        refused(0, 1, 401, "Bearer"),
        legacy_get.clone(),
    ];
    assert!(verdict(&judge(&file, 0, &stream_first), "auth-no-legacy-fallback").passed);
    let mut refused_get = refused(0, 0, 401, "Bearer");
    refused_get.http_method = "GET".into();
    refused_get.jsonrpc_method = None;
    let checks = judge(&file, 0, &[refused_get, legacy_get.clone()]);
    assert!(verdict(&checks, "auth-no-legacy-fallback").passed);

    let mut in_session = legacy_get;
    in_session
        .headers
        .push(("mcp-session-id".into(), "s".into()));
    let checks = judge(&file, 0, &[refused(0, 0, 401, "Bearer"), in_session]);
    assert!(verdict(&checks, "auth-no-legacy-fallback").passed);
}

#[test]
fn a_case_without_authorization_gets_none_of_these_checks() {
    let text = "summary = \"t\"\nprotocol_version = \"2026-07-28\"\n[[call]]\n\
                expect = { outcome = \"TOOL_SUCCESS\" }\n[[call.reply]]\nstatus = 200\n";
    let file = CaseSource {
        id: "t".into(),
        origin: "t.toml".into(),
        text: Ok(text.to_owned()),
    }
    .load()
    .unwrap()
    .file;
    let checks = judge(&file, 0, &[tool_call(0, 0, None)]);
    assert!(
        checks.iter().all(|c| !c.name.starts_with("auth-")),
        "{checks:?}"
    );
}

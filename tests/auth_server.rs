//! The loopback authorization server of an `[auth]` case (cases/README.md, "Authorization"):
//! each endpoint's scripted answers and what the record keeps of them, the guard of the MCP
//! endpoint, and no credential in any report of a run.

use mcp_error_layers::adapter::reference::ReferenceAdapter;
use mcp_error_layers::case::{CaseFile, builtin};
use mcp_error_layers::engine::Run;
use mcp_error_layers::report::{ReportPaths, write_all};
use mcp_error_layers::wire::{Answerer, WireServer};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

const SUCCESS: &str = r#"
[[call]]
expect = { outcome = "TOOL_SUCCESS" }

[[call.reply]]
status = 200
json = '{ "jsonrpc": "2.0", "id": "$id", "result": { "resultType": "complete", "content": [] } }'
"#;

fn serve(auth: &str) -> WireServer {
    let text = format!("summary = \"auth\"\n\n[auth]\n{auth}\n{SUCCESS}");
    let case: CaseFile = toml::from_str(&text).unwrap();
    WireServer::start(Arc::new(case)).unwrap()
}

/// One request with `Connection: close`; the whole response as text (`None` when nothing came
/// within 1 s: a stall).
fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> Option<String> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    match stream.read_to_end(&mut out) {
        Ok(_) => Some(String::from_utf8_lossy(&out).into_owned()),
        Err(_) if out.is_empty() => None,
        Err(_) => Some(String::from_utf8_lossy(&out).into_owned()),
    }
}

fn get(server: &WireServer, path: &str) -> String {
    exchange(server.addr(), "GET", path, "", "").unwrap()
}

fn status(response: &str) -> u16 {
    response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap()
}

fn body(response: &str) -> Value {
    let (_, body) = response.split_once("\r\n\r\n").unwrap();
    serde_json::from_str(body).unwrap_or(Value::Null)
}

fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    let (head, _) = response.split_once("\r\n\r\n")?;
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// A token request with `form` (and the public client's id unless it says its own).
fn token(server: &WireServer, form: &str, extra_headers: &str) -> Option<String> {
    exchange(
        server.addr(),
        "POST",
        "/token",
        &format!("Content-Type: application/x-www-form-urlencoded\r\n{extra_headers}"),
        form,
    )
}

fn refresh_with(server: &WireServer, refresh: &str) -> String {
    let form = format!("grant_type=refresh_token&refresh_token={refresh}&client_id=mel-client");
    token(server, &form, "").unwrap()
}

fn tool_call(server: &WireServer, bearer: Option<&str>) -> String {
    let auth = bearer.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "synthetic", "arguments": {}}});
    let headers = format!(
        "{auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    );
    exchange(server.addr(), "POST", "/mcp", &headers, &body.to_string()).unwrap()
}

#[test]
fn protected_resource_metadata_is_served_where_the_case_says() {
    let server = serve("");
    let origin = format!("http://{}", server.addr());
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let answer = get(&server, path);
        assert_eq!(status(&answer), 200, "{path}: {answer}");
        let document = body(&answer);
        assert_eq!(document["resource"], format!("{origin}/mcp"));
        assert_eq!(document["authorization_servers"], json!([origin]));
    }
    let path_only = serve(r#"prm = "path""#);
    assert_eq!(
        status(&get(&path_only, "/.well-known/oauth-protected-resource")),
        404
    );
    let guarded = serve("prm_path_status = 403");
    let answer = get(&guarded, "/.well-known/oauth-protected-resource/mcp");
    assert_eq!(status(&answer), 403);
    assert_eq!(
        status(&get(&guarded, "/.well-known/oauth-protected-resource")),
        200
    );
    let none = serve(r#"prm = "none""#);
    assert_eq!(
        status(&get(&none, "/.well-known/oauth-protected-resource/mcp")),
        404
    );
    // Every request is recorded as the authorization server's.
    let record = guarded.record();
    assert!(record.iter().all(|e| e.reply.by == Answerer::AuthServer));
    assert_eq!(record.len(), 2);
}

#[test]
fn authorization_server_metadata_is_rfc_8414_openid_or_none_with_the_issuer_asked_for() {
    let server = serve("");
    let origin = format!("http://{}", server.addr());
    let oauth = body(&get(&server, "/.well-known/oauth-authorization-server"));
    assert_eq!(oauth["issuer"], origin);
    assert_eq!(oauth["token_endpoint"], format!("{origin}/token"));
    assert_eq!(
        oauth["authorization_endpoint"],
        format!("{origin}/authorize")
    );
    assert!(oauth.get("jwks_uri").is_none());
    let openid = body(&get(&server, "/.well-known/openid-configuration"));
    assert_eq!(openid["issuer"], origin);
    assert!(openid.get("jwks_uri").is_some());

    let openid_only = serve(r#"as_metadata = "openid""#);
    assert_eq!(
        status(&get(
            &openid_only,
            "/.well-known/oauth-authorization-server"
        )),
        404
    );
    assert_eq!(
        status(&get(&openid_only, "/.well-known/openid-configuration")),
        200
    );
    let mismatch = serve(r#"issuer = "mismatch""#);
    let document = body(&get(&mismatch, "/.well-known/oauth-authorization-server"));
    assert_ne!(document["issuer"], format!("http://{}", mismatch.addr()));
}

#[test]
fn the_token_endpoint_refreshes_rotates_and_refuses_as_scripted_and_records_names_only() {
    let server = serve(
        "refresh_token = true\n[[auth.token]]\nanswer = \"rotate\"\nexpires_in = 60\n\
         [[auth.token]]\nanswer = \"invalid-grant\"",
    );
    let start = server.credentials().unwrap();
    let first = start.refresh_token.clone().unwrap();
    let answer = refresh_with(&server, &first);
    assert_eq!(status(&answer), 200, "{answer}");
    assert_eq!(header(&answer, "cache-control"), Some("no-store"));
    let issued = body(&answer);
    assert_eq!(issued["token_type"], "Bearer");
    assert_eq!(issued["expires_in"], 60);
    assert_eq!(issued["scope"], "mcp:tools");
    let second = issued["refresh_token"].as_str().unwrap().to_owned();
    assert_ne!(second, first);
    // The rotated-away token is dead: the server refuses it without using the script.
    let again = refresh_with(&server, &first);
    assert_eq!(
        (status(&again), body(&again)["error"].clone()),
        (400, json!("invalid_grant"))
    );
    // The script's next answer: invalid_grant, which kills the new token too.
    let scripted = refresh_with(&server, &second);
    assert_eq!(body(&scripted)["error"], "invalid_grant");
    assert_eq!(
        body(&refresh_with(&server, &second))["error"],
        "invalid_grant"
    );
    // The record names every credential, never holds one.
    let record = server.record();
    let texts: Vec<String> = record
        .iter()
        .map(|e| format!("{} {:?} {}", e.body, e.headers, e.reply.bytes))
        .collect();
    assert!(texts.iter().all(|t| !t.contains("mel_")), "{texts:#?}");
    assert!(
        texts[0].contains("refresh_token=[refresh-token-1]"),
        "{}",
        texts[0]
    );
    assert!(
        texts[0].contains(r#""access_token":"[access-token-2]""#),
        "{}",
        texts[0]
    );
    assert!(
        texts[0].contains(r#""refresh_token":"[refresh-token-2]""#),
        "{}",
        texts[0]
    );
    assert!(record.iter().all(|e| e.is_token_request()));
}

#[test]
fn the_token_endpoint_answers_every_scripted_failure() {
    for (answer, want) in [
        ("invalid-client", 401),
        ("rate-limited", 429),
        ("server-error", 500),
    ] {
        let server = serve(&format!(
            "refresh_token = true\n[[auth.token]]\nanswer = \"{answer}\""
        ));
        let refresh = server.credentials().unwrap().refresh_token.unwrap();
        let response = refresh_with(&server, &refresh);
        assert_eq!(status(&response), want, "{answer}: {response}");
        if answer == "rate-limited" {
            assert_eq!(header(&response, "retry-after"), Some("1"));
        }
    }
    let stalled = serve("refresh_token = true\n[[auth.token]]\nanswer = \"stall\"");
    let refresh = stalled.credentials().unwrap().refresh_token.unwrap();
    let form = format!("grant_type=refresh_token&refresh_token={refresh}&client_id=mel-client");
    assert_eq!(token(&stalled, &form, ""), None, "a stall sends nothing");
}

#[test]
fn the_token_endpoint_authenticates_the_client_and_knows_its_grants() {
    let public = serve("refresh_token = true");
    let refresh = public.credentials().unwrap().refresh_token.unwrap();
    let stranger = format!("grant_type=refresh_token&refresh_token={refresh}&client_id=someone");
    let answer = token(&public, &stranger, "").unwrap();
    assert_eq!(
        (status(&answer), body(&answer)["error"].clone()),
        (401, json!("invalid_client"))
    );
    let answer = token(
        &public,
        "grant_type=client_credentials&client_id=mel-client",
        "",
    )
    .unwrap();
    assert_eq!(body(&answer)["error"], "unauthorized_client");
    let answer = token(&public, "grant_type=password&client_id=mel-client", "").unwrap();
    assert_eq!(body(&answer)["error"], "unsupported_grant_type");

    // A confidential client by HTTP Basic, asking for more scope than may be granted.
    let confidential = serve("client = \"confidential\"\ngrantable = [\"mcp:tools\"]");
    let start = confidential.credentials().unwrap();
    let secret = start.client_secret.clone().unwrap();
    use base64::Engine;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("mel-client:{secret}"));
    let form = "grant_type=client_credentials&scope=mcp%3Atools+mcp%3Awrite";
    let answer = token(
        &confidential,
        form,
        &format!("Authorization: Basic {basic}\r\n"),
    )
    .unwrap();
    assert_eq!(status(&answer), 200, "{answer}");
    assert_eq!(body(&answer)["scope"], "mcp:tools");
    let wrong = base64::engine::general_purpose::STANDARD.encode("mel-client:guess");
    let answer = token(
        &confidential,
        form,
        &format!("Authorization: Basic {wrong}\r\n"),
    )
    .unwrap();
    assert_eq!(status(&answer), 401);
    let recorded = confidential.record();
    assert!(!format!("{:?}", recorded[0].headers).contains(&secret));
}

#[test]
fn the_authorization_endpoint_records_the_ask_and_completes_nothing() {
    let server = serve("");
    let answer = get(
        &server,
        "/authorize?response_type=code&client_id=mel-client&scope=a",
    );
    assert_eq!(status(&answer), 200);
    assert!(answer.contains("nothing to complete"), "{answer}");
    assert!(header(&answer, "location").is_none());
    let record = server.record();
    assert!(record[0].is_authorization());
    assert_eq!(record[0].path_only(), "/authorize");
}

#[test]
fn the_mcp_endpoint_is_guarded_by_the_tokens_the_server_accepts() {
    let server = serve("refresh_token = true\nexpires_after_call = 1");
    let start = server.credentials().unwrap();
    let access = start.access_token.clone().unwrap();
    // No token: 401 with a challenge that names no error (RFC 6750 §3.1).
    let bare = tool_call(&server, None);
    assert_eq!(status(&bare), 401);
    let challenge = header(&bare, "www-authenticate").unwrap();
    assert!(
        challenge.starts_with("Bearer resource_metadata=\""),
        "{challenge}"
    );
    // The start token, once; then it has expired.
    assert_eq!(status(&tool_call(&server, Some(&access))), 200);
    let expired = tool_call(&server, Some(&access));
    assert_eq!(status(&expired), 401);
    let challenge = header(&expired, "www-authenticate").unwrap();
    assert!(
        challenge.contains(r#"error="invalid_token""#),
        "{challenge}"
    );
    assert!(
        challenge.contains("/.well-known/oauth-protected-resource/mcp"),
        "{challenge}"
    );
    // A refreshed token gets through and takes the script's reply.
    let refreshed = body(&refresh_with(&server, &start.refresh_token.unwrap()));
    let new = refreshed["access_token"].as_str().unwrap();
    let through = tool_call(&server, Some(new));
    assert_eq!(status(&through), 200);
    assert_eq!(body(&through)["id"], 7);
    // Refused requests count as tool calls, and the script answered only the two that got through.
    assert_eq!(server.tool_posts(0), 4);
    let scripted = server
        .record()
        .iter()
        .filter(|e| e.reply.by == Answerer::Script)
        .count();
    assert_eq!(scripted, 2);
}

#[test]
fn a_scope_the_call_needs_is_a_403_and_an_unauthorized_reply_carries_the_case_body() {
    let server = serve("scope_required = \"mcp:write\"");
    let access = server.credentials().unwrap().access_token.unwrap();
    let forbidden = tool_call(&server, Some(&access));
    assert_eq!(status(&forbidden), 403);
    let challenge = header(&forbidden, "www-authenticate").unwrap();
    assert!(challenge.contains(r#"scope="mcp:write""#), "{challenge}");
    assert_eq!(server.record()[0].reply.by, Answerer::Auth);

    let server = serve(
        "access_token = \"expired\"\nchallenge = \"\"\n[auth.unauthorized]\nstatus = 401\n\
         headers = { \"Retry-After\" = \"1\" }\n\
         json = '{\"jsonrpc\": \"2.0\", \"id\": \"$id\", \"error\": {\"code\": -32001, \"message\": \"no\"}}'",
    );
    let access = server.credentials().unwrap().access_token.unwrap();
    let refused = tool_call(&server, Some(&access));
    assert_eq!(status(&refused), 401);
    assert_eq!(header(&refused, "www-authenticate"), None);
    assert_eq!(header(&refused, "retry-after"), Some("1"));
    assert_eq!(body(&refused)["id"], 7);

    let revoked = serve("refresh_token = true\naccess_token = \"expired\"\nreject_issued = true");
    let refresh = revoked.credentials().unwrap().refresh_token.unwrap();
    let issued = body(&refresh_with(&revoked, &refresh));
    let new = issued["access_token"].as_str().unwrap();
    assert_eq!(status(&tool_call(&revoked, Some(new))), 401);
}

#[test]
fn the_start_credentials_are_per_server_and_say_what_the_case_says() {
    let one = serve("refresh_token = true\nexpires_in = -60\nclient = \"confidential\"");
    let two = serve("refresh_token = true\nexpires_in = -60\nclient = \"confidential\"");
    let (a, b) = (one.credentials().unwrap(), two.credentials().unwrap());
    assert_ne!(a.access_token, b.access_token, "minted per server");
    assert_eq!(a.expires_in, Some(-60));
    assert_eq!(a.client_id, "mel-client");
    assert!(a.client_secret.is_some());
    assert_eq!(a.authorization_server, format!("http://{}", one.addr()));
    let json = a.to_json();
    assert!(json["expires_at"].as_i64().is_some());
    let none = serve("access_token = \"none\"");
    let c = none.credentials().unwrap();
    assert_eq!(
        (c.access_token, c.refresh_token, c.client_secret),
        (None, None, None)
    );
    let plain: CaseFile = toml::from_str(&format!("summary = \"x\"\n{SUCCESS}")).unwrap();
    assert_eq!(
        WireServer::start(Arc::new(plain)).unwrap().credentials(),
        None
    );
}

#[test]
fn no_report_of_a_run_of_the_auth_cases_holds_a_credential() {
    let adapter = ReferenceAdapter::new();
    let cases: Vec<_> = builtin()
        .into_iter()
        .filter(|s| s.id.starts_with("auth/"))
        .collect();
    assert!(cases.len() >= 25, "{} auth cases", cases.len());
    let report = Run::new(&adapter).cases(cases).execute(&());
    let dir = tempfile::tempdir().unwrap();
    write_all(&report, &ReportPaths::all_in(dir.path())).unwrap();
    let mut read = 0;
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        // The HTML report packs its transcripts gzipped: unpack them to read them too.
        let text = match path.extension().and_then(|e| e.to_str()) {
            Some("html") => html_text(&bytes),
            _ => String::from_utf8(bytes).unwrap(),
        };
        assert!(
            !text.contains("mel_at_") && !text.contains("mel_rt_") && !text.contains("mel_cs_"),
            "{} holds a credential",
            path.display()
        );
        // The JSON and HTML reports carry every exchange (the others, only failures').
        let full = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("json" | "html")
        );
        assert!(
            !full || text.contains("[access-token-"),
            "{} names no token",
            path.display()
        );
        read += 1;
    }
    assert_eq!(read, 4);
    assert!(
        report
            .cases
            .iter()
            .all(|c| c.verdict == mcp_error_layers::engine::Verdict::Pass)
    );
}

/// The HTML report's text with every gzipped base64 block unpacked.
fn html_text(bytes: &[u8]) -> String {
    use base64::Engine;
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut out = text.clone();
    for word in
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '+' || c == '/' || c == '='))
    {
        if word.len() < 40 {
            continue;
        }
        let Ok(packed) = base64::engine::general_purpose::STANDARD.decode(word) else {
            continue;
        };
        let mut unpacked = String::new();
        if flate2::read::GzDecoder::new(&packed[..])
            .read_to_string(&mut unpacked)
            .is_ok()
        {
            out.push_str(&unpacked);
        }
    }
    out
}

#[test]
fn the_reference_client_refreshes_a_token_its_store_says_expired_before_sending_it() {
    let adapter = ReferenceAdapter::new();
    let source = builtin()
        .into_iter()
        .find(|s| s.id == "auth/store-says-expired-2025-11-25")
        .unwrap();
    let record = Run::new(&adapter).run_one(&source);
    let first_mcp = record
        .exchanges
        .iter()
        .position(|e| !e.is_for_authorization_server());
    let token = record.exchanges.iter().position(|e| e.is_token_request());
    assert!(
        token < first_mcp,
        "the refresh comes first: {:?}",
        record.exchanges
    );
    // So no request is refused, and initialize carries the new token.
    assert!(
        record
            .exchanges
            .iter()
            .all(|e| e.reply.by != Answerer::Auth)
    );
    let initialize = &record.exchanges[first_mcp.unwrap()];
    assert_eq!(
        initialize.header("authorization"),
        Some("Bearer [access-token-2]")
    );
}

#[test]
fn the_reference_client_asks_a_user_once_and_reports_the_refusal_it_got() {
    let adapter = ReferenceAdapter::new();
    for (id, status) in [
        ("auth/refresh-invalid-grant", 401),
        ("auth/403-insufficient-scope", 403),
    ] {
        let source = builtin().into_iter().find(|s| s.id == id).unwrap();
        let record = Run::new(&adapter).run_one(&source);
        let asks: Vec<_> = record
            .exchanges
            .iter()
            .filter(|e| e.is_authorization())
            .collect();
        assert_eq!(asks.len(), 1, "{id}");
        let query = asks[0].path.split_once('?').unwrap().1;
        for key in [
            "response_type=code",
            "client_id=mel-client",
            "code_challenge_method=S256",
            "resource=",
        ] {
            assert!(query.contains(key), "{id}: {query}");
        }
        if status == 403 {
            // The held and the challenged scopes, together.
            assert!(query.contains("scope=mcp%3Atools+mcp%3Awrite"), "{query}");
        }
        let Some(mcp_error_layers::AdapterReport::Observed(o)) = &record.calls[0].report else {
            panic!("{id}: no observation");
        };
        assert_eq!(o.status, Some(status), "{id}");
        assert!(
            o.detail.contains("interactive authorization"),
            "{id}: {}",
            o.detail
        );
    }
}

#[test]
fn the_reference_client_passes_every_auth_case_in_a_2025_session_too() {
    // Told to prefer 2025-11-25, it initializes in the 2026-07-28 cases: the 401 then lands on
    // `initialize`, and the case's `expect_session` (the era it spoke) judges it.
    let adapter = ReferenceAdapter::new();
    let cases: Vec<_> = builtin()
        .into_iter()
        .filter(|s| s.id.starts_with("auth/"))
        .collect();
    let report = Run::new(&adapter)
        .cases(cases)
        .protocol_version(Some("2025-11-25".into()))
        .execute(&());
    for case in &report.cases {
        assert_eq!(
            case.verdict,
            mcp_error_layers::engine::Verdict::Pass,
            "{}: {:?}",
            case.id,
            case.calls
                .iter()
                .map(|c| c.all_problems())
                .collect::<Vec<_>>()
        );
        assert!(
            case.calls.iter().all(|c| c.spoken != "2026-07-28"),
            "{}",
            case.id
        );
    }
}

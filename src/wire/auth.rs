//! The loopback authorization server of a case with `[auth]` (cases/README.md,
//! "Authorization"), on the wire server's own port: it guards the MCP endpoint (a request
//! without a token it accepts gets 401, a `tools/call` without the scope it needs 403) and serves
//! the documents and endpoints a client uses to get a token: Protected Resource Metadata
//! (RFC 9728), authorization server metadata (RFC 8414, OpenID discovery), a token endpoint
//! (the `refresh_token` and `client_credentials` grants, answers scripted in order) and an
//! authorization endpoint that only records that an interactive authorization was asked for.
//!
//! Tokens are minted per server ([`crate::credential`]); nothing is signed or checked beyond
//! "is this one of the tokens this server issued and still accepts".

use super::http::Request;
use super::placeholder::Placeholders;
use super::response::Response;
use crate::case::{
    AsMetadata, Auth, ClientKind, Credentials, Issuer, Prm, StartToken, TokenAnswer, TokenReply,
};
use crate::credential::{Kind, mint};
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

/// The client id every auth case's client is registered with.
pub const CLIENT_ID: &str = "mel-client";

/// Where the client is told to come back after an interactive authorization; nothing listens
/// there (the authorization endpoint never sends it back).
pub const REDIRECT_PATH: &str = "/callback";

/// The paths the authorization server answers; every other path is the MCP server's.
const PRM_ROOT: &str = "/.well-known/oauth-protected-resource";
const PRM_PATH: &str = "/.well-known/oauth-protected-resource/mcp";
const RFC8414: &str = "/.well-known/oauth-authorization-server";
const OPENID: &str = "/.well-known/openid-configuration";
const TOKEN: &str = "/token";
const AUTHORIZE: &str = "/authorize";

/// What the authorization endpoint answers: a page with nothing a browser could complete.
const AUTHORIZE_PAGE: &str = "mcp-error-layers: an interactive authorization was asked for and \
                              recorded; there is nothing to complete here.";

/// The most tokens one server mints: a client that loops on the token endpoint gets
/// `invalid_grant` after this many, and the maps stay small.
const MAX_MINTED: u32 = 1000;

/// The authorization server of one wire server.
#[derive(Debug)]
pub(super) struct Authority {
    nonce: String,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// How many `tools/call` requests carried the start access token.
    start_calls: u32,
    /// Whether the start access token has expired (`expires_on_call`, `expires_after_call`).
    start_spent: bool,
    /// Tokens minted so far, of each kind (the next is numbered one more).
    minted: HashMap<Kind, u32>,
    /// The access tokens the token endpoint issued, with the scopes each carries and the
    /// `tools/call` requests it was accepted on (`None` once it expired).
    issued: HashMap<String, (BTreeSet<String>, Option<u32>)>,
    /// The refresh tokens still alive, with the scopes each may grant.
    refresh: HashMap<String, BTreeSet<String>>,
    /// How many token requests the script answered.
    answered: usize,
}

/// Whether a request is for the authorization server rather than the MCP endpoint.
pub(super) fn is_server_path(path: &str) -> bool {
    let path = path.split('?').next().unwrap_or_default();
    path.starts_with("/.well-known/") || path == TOKEN || path == AUTHORIZE
}

impl Authority {
    pub(super) fn new(auth: &Auth) -> Self {
        let nonce = crate::credential::nonce();
        let mut state = State::default();
        let scope = scopes(&auth.scope);
        if auth.refresh_token {
            let token = state.mint(Kind::Refresh, &nonce);
            state.refresh.insert(token, scope);
        }
        // The start access token is number 1, whether the client holds it or not.
        state.minted.insert(Kind::Access, 1);
        Authority {
            nonce,
            state: Mutex::new(state),
        }
    }

    /// The credentials the client starts with.
    pub(super) fn start(&self, auth: &Auth, base: &str) -> Credentials {
        Credentials {
            access_token: (auth.access_token != StartToken::None)
                .then(|| mint(Kind::Access, 1, &self.nonce)),
            refresh_token: auth
                .refresh_token
                .then(|| mint(Kind::Refresh, 1, &self.nonce)),
            expires_in: auth.expires_in,
            scope: auth.scope.clone(),
            client_id: CLIENT_ID.to_owned(),
            client_secret: (auth.client == ClientKind::Confidential)
                .then(|| mint(Kind::ClientSecret, 1, &self.nonce)),
            authorization_server: base.to_owned(),
            token_endpoint: format!("{base}{TOKEN}"),
            redirect_uri: format!("{base}{REDIRECT_PATH}"),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The refusal of an MCP request whose token this server does not accept (401), or of a
    /// `tools/call` whose token lacks the scope it needs (403); `None` lets it through.
    pub(super) fn guard(
        &self,
        auth: &Auth,
        request: &Request,
        method: Option<&str>,
        placeholders: &Placeholders,
        base: &str,
    ) -> Option<Response> {
        let token = bearer(request);
        let calls = u32::from(method == Some("tools/call"));
        let granted = {
            let mut state = self.lock();
            match token {
                Some(token) if token == mint(Kind::Access, 1, &self.nonce) => {
                    let valid = auth.access_token == StartToken::Valid && !state.start_spent;
                    state.start_calls += calls * u32::from(valid);
                    let n = state.start_calls;
                    let refused_now = valid && calls == 1 && auth.expires_on_call == Some(n);
                    let last = calls == 1 && auth.expires_after_call == Some(n);
                    state.start_spent |= refused_now || (valid && last);
                    (valid && !refused_now).then(|| scopes(&auth.scope))
                }
                Some(token) if !auth.reject_issued => match state.issued.get_mut(token) {
                    Some((scope, Some(used))) => {
                        *used += calls;
                        let scope = scope.clone();
                        if auth.issued_expires_after_call.is_some_and(|n| *used >= n) && calls == 1
                        {
                            state.issued.insert(token.to_owned(), (scope.clone(), None));
                        }
                        Some(scope)
                    }
                    _ => None,
                },
                _ => None,
            }
        };
        let metadata = format!("{base}{PRM_PATH}");
        let Some(granted) = granted else {
            let challenge = match token {
                // RFC 6750 §3.1: no error code for a request without credentials.
                None if !auth.challenge.is_empty() => {
                    format!(r#"Bearer resource_metadata="{metadata}""#)
                }
                _ => auth.challenge.replace("{resource_metadata}", &metadata),
            };
            return Some(unauthorized(auth, &challenge, placeholders));
        };
        let needed = auth.scope_required.as_deref()?;
        if method != Some("tools/call") || granted.contains(needed) {
            return None;
        }
        let challenge = auth
            .forbidden_challenge
            .replace("{scope}", needed)
            .replace("{resource_metadata}", &metadata);
        // The challenge says it all (RFC 6750 §3); no body, which a client could take for a
        // JSON-RPC answer.
        Some(Response::empty(403).with_header("www-authenticate", &challenge))
    }

    /// The answer to a request for the authorization server (see [`is_server_path`]).
    pub(super) fn answer(&self, auth: &Auth, request: &Request, base: &str) -> Response {
        let path = request.path.split('?').next().unwrap_or_default();
        let issuer = match auth.issuer {
            Issuer::Match => base.to_owned(),
            Issuer::Mismatch => format!("{base}/another-issuer"),
        };
        let get = request.method.as_str() == "GET";
        match path {
            PRM_PATH if get => match (auth.prm, auth.prm_path_status) {
                (_, Some(status)) => Response::empty(status),
                (Prm::Both | Prm::Path, None) => self.prm(auth, base),
                _ => not_found(),
            },
            PRM_ROOT if get && matches!(auth.prm, Prm::Both | Prm::Root) => self.prm(auth, base),
            RFC8414 if get && matches!(auth.as_metadata, AsMetadata::Both | AsMetadata::Oauth) => {
                Response::json(200, metadata(auth, base, &issuer, false).to_string())
            }
            OPENID if get && matches!(auth.as_metadata, AsMetadata::Both | AsMetadata::Openid) => {
                Response::json(200, metadata(auth, base, &issuer, true).to_string())
            }
            TOKEN if request.method.as_str() == "POST" => self.token(auth, request),
            AUTHORIZE if get => {
                let mut page = Response::empty(200).with_header("content-type", "text/plain");
                page.body = super::response::Body::Fixed(AUTHORIZE_PAGE.as_bytes().to_vec());
                page
            }
            _ => not_found(),
        }
    }

    fn prm(&self, auth: &Auth, base: &str) -> Response {
        let mut supported: Vec<String> = scopes(&auth.scope).into_iter().collect();
        if let Some(needed) = &auth.scope_required
            && !supported.contains(needed)
        {
            supported.push(needed.clone());
        }
        let body = json!({
            "resource": format!("{base}/mcp"),
            "authorization_servers": [base],
            "scopes_supported": supported,
            "bearer_methods_supported": ["header"],
        });
        Response::json(200, body.to_string())
    }

    /// The token endpoint: the client authenticated, the grant judged, then the script's
    /// next answer.
    fn token(&self, auth: &Auth, request: &Request) -> Response {
        let form: HashMap<String, String> =
            form_urlencoded::parse(&request.body).into_owned().collect();
        let (client_id, secret) = client_of(request, &form);
        let wanted_secret = (auth.client == ClientKind::Confidential)
            .then(|| mint(Kind::ClientSecret, 1, &self.nonce));
        if client_id.as_deref() != Some(CLIENT_ID)
            || (wanted_secret.is_some() && secret != wanted_secret)
        {
            return oauth_error(401, "invalid_client", "unknown client or wrong secret");
        }
        let requested = form.get("scope").map(|s| scopes(s));
        let mut state = self.lock();
        let (granted, old_refresh) = match form.get("grant_type").map(String::as_str) {
            Some("refresh_token") => {
                let token = form.get("refresh_token").cloned().unwrap_or_default();
                let Some(allowed) = state.refresh.get(&token).cloned() else {
                    return oauth_error(400, "invalid_grant", "the refresh token is not valid");
                };
                // RFC 6749 §6: a refresh may narrow the scope, never widen it.
                let granted = match requested {
                    Some(asked) => asked.intersection(&allowed).cloned().collect(),
                    None => allowed,
                };
                (granted, Some(token))
            }
            Some("client_credentials") if auth.client == ClientKind::Confidential => {
                let asked = requested.unwrap_or_else(|| scopes(&auth.scope));
                let granted = match &auth.grantable {
                    Some(only) => asked.into_iter().filter(|s| only.contains(s)).collect(),
                    None => asked,
                };
                (granted, None)
            }
            Some("client_credentials") => {
                return oauth_error(400, "unauthorized_client", "a public client has no secret");
            }
            Some("authorization_code") => {
                return oauth_error(400, "invalid_grant", "this server issues no codes");
            }
            _ => return oauth_error(400, "unsupported_grant_type", "refresh_token only"),
        };
        let answer = next_answer(&auth.token, state.answered);
        state.answered += 1;
        match answer.answer {
            TokenReply::Issue | TokenReply::Rotate => {}
            TokenReply::InvalidGrant => {
                if let Some(old) = &old_refresh {
                    state.refresh.remove(old);
                }
                return oauth_error(400, "invalid_grant", "the refresh token was revoked");
            }
            TokenReply::InvalidClient => {
                return oauth_error(401, "invalid_client", "client authentication failed");
            }
            TokenReply::RateLimited => {
                return Response::empty(429).with_header("retry-after", "1");
            }
            TokenReply::ServerError => return Response::empty(500),
            TokenReply::Stall => return stall(),
        }
        if state.minted.values().sum::<u32>() >= MAX_MINTED {
            return oauth_error(400, "invalid_grant", "this server has minted enough tokens");
        }
        let access = state.mint(Kind::Access, &self.nonce);
        state
            .issued
            .insert(access.clone(), (granted.clone(), Some(0)));
        let scope = granted.into_iter().collect::<Vec<_>>().join(" ");
        let mut body = json!({"access_token": access, "token_type": "Bearer", "scope": scope});
        if let Some(seconds) = answer.expires_in {
            body["expires_in"] = json!(seconds);
        }
        if let (TokenReply::Rotate, Some(old)) = (answer.answer, &old_refresh) {
            let allowed = state.refresh.remove(old).unwrap_or_default();
            let new = state.mint(Kind::Refresh, &self.nonce);
            state.refresh.insert(new.clone(), allowed);
            body["refresh_token"] = json!(new);
        }
        Response::json(200, body.to_string()).with_header("cache-control", "no-store")
    }
}

impl State {
    fn mint(&mut self, kind: Kind, nonce: &str) -> String {
        let n = self.minted.entry(kind).or_insert(0);
        *n += 1;
        mint(kind, *n, nonce)
    }
}

/// The script's answer to token request `n` (from 0): the last repeats; none scripted, a new
/// token.
fn next_answer(script: &[TokenAnswer], n: usize) -> TokenAnswer {
    match script.len().checked_sub(1) {
        Some(last) => script[n.min(last)],
        None => TokenAnswer::default(),
    }
}

/// A space-separated scope as a set.
fn scopes(scope: &str) -> BTreeSet<String> {
    scope.split_whitespace().map(str::to_owned).collect()
}

/// The bearer token a request carries in its `Authorization` header.
fn bearer(request: &Request) -> Option<&str> {
    let value = request.header("authorization")?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The client id and secret of a token request: HTTP Basic (`client_secret_basic`) or the form
/// (`client_secret_post`, or a public client's `client_id`).
fn client_of(
    request: &Request,
    form: &HashMap<String, String>,
) -> (Option<String>, Option<String>) {
    use base64::Engine;
    let basic = request
        .header("authorization")
        .and_then(|v| {
            v.strip_prefix("Basic ")
                .or_else(|| v.strip_prefix("basic "))
        })
        .and_then(|b| {
            base64::engine::general_purpose::STANDARD
                .decode(b.trim())
                .ok()
        })
        .and_then(|b| String::from_utf8(b).ok());
    if let Some((id, secret)) = basic.as_deref().and_then(|b| b.split_once(':')) {
        let decode = |s: &str| {
            form_urlencoded::parse(format!("x={s}").as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
        };
        return (decode(id), decode(secret));
    }
    (
        form.get("client_id").cloned(),
        form.get("client_secret").cloned(),
    )
}

/// The authorization server's metadata (RFC 8414; OpenID Connect discovery adds what OpenID
/// requires).
fn metadata(auth: &Auth, base: &str, issuer: &str, openid: bool) -> Value {
    let mut supported: Vec<String> = scopes(&auth.scope).into_iter().collect();
    if let Some(needed) = &auth.scope_required {
        supported.push(needed.clone());
    }
    let mut body = json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{base}{AUTHORIZE}"),
        "token_endpoint": format!("{base}{TOKEN}"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "scopes_supported": supported,
    });
    if openid {
        body["jwks_uri"] = json!(format!("{base}/jwks"));
        body["subject_types_supported"] = json!(["public"]);
        body["id_token_signing_alg_values_supported"] = json!(["RS256"]);
    }
    body
}

/// The 401 of a request without an accepted token: the case's `unauthorized` reply (a bare 401
/// without one) with `challenge` as `WWW-Authenticate` unless it names its own.
fn unauthorized(auth: &Auth, challenge: &str, placeholders: &Placeholders) -> Response {
    let mut response = match &auth.unauthorized {
        Some(reply) => super::script::response(reply, placeholders),
        None => Response::empty(401),
    };
    let named = response
        .headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("www-authenticate"));
    if !challenge.is_empty() && !named {
        response = response.with_header("www-authenticate", challenge);
    }
    response
}

/// An OAuth error answer (RFC 6749 §5.2).
fn oauth_error(status: u16, error: &str, description: &str) -> Response {
    let body = json!({"error": error, "error_description": description});
    Response::json(status, body.to_string()).with_header("cache-control", "no-store")
}

fn not_found() -> Response {
    Response::empty(404)
}

/// No answer at all: the connection stays open.
fn stall() -> Response {
    let reply = crate::case::Reply {
        end: crate::case::End::Stall,
        ..crate::case::Reply::default()
    };
    super::script::response(&reply, &Placeholders::from_request(&Value::Null))
}

//! A case's `[auth]` table (cases/README.md, "Authorization"): the credentials the client starts
//! with, and how the wire server's loopback authorization server and its protected MCP endpoint
//! answer.

use super::reply::Reply;
use serde::{Deserialize, Serialize};

/// The authorization the MCP endpoint asks for. Without it (every case before the auth ones) the
/// server asks for none and hands the adapter no credentials.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Auth {
    /// The access token the client starts with, as the server judges it.
    #[serde(default)]
    pub access_token: StartToken,
    /// The start access token expires at the case's `tools/call` number N (from 1): that request
    /// and every one after it are refused (401 `invalid_token`), whatever else the client sent
    /// before (a discovery probe, a standalone stream): a token that expires in the middle of
    /// the session. Only with `access_token = "valid"`, and not with `expires_after_call`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_on_call: Option<u32>,
    /// The start access token is accepted on the case's `tools/call` number N (from 1) and
    /// refused on every request after it: it expires while that call's answer is under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_after_call: Option<u32>,
    /// Every access token the token endpoint issues is accepted on N `tools/call` requests and
    /// refused on every request after the N-th. Absent: as long as the case runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_expires_after_call: Option<u32>,
    /// What the client's store says of the start access token's lifetime, in seconds from the
    /// call's start (negative: it passed that long ago). Absent: the store names no expiry
    /// (a token answered without `expires_in`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<i64>,
    /// Whether the client starts with a refresh token.
    #[serde(default)]
    pub refresh_token: bool,
    /// The scope the start tokens were granted (space-separated).
    #[serde(default = "default_scope")]
    pub scope: String,
    /// Whether the client is `public` (a client id only) or `confidential` (also a client
    /// secret: it may use the `client_credentials` grant).
    #[serde(default)]
    pub client: ClientKind,
    /// Where the Protected Resource Metadata (RFC 9728) is served.
    #[serde(default)]
    pub prm: Prm,
    /// The status the path-aware PRM URL answers instead of the document (as a CDN that
    /// guards `/.well-known/*/mcp` does); the root URL still serves it when `prm` says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prm_path_status: Option<u16>,
    /// Which authorization server metadata documents are served.
    #[serde(default)]
    pub as_metadata: AsMetadata,
    /// Whether the metadata's `issuer` is the authorization server's URL (`match`) or another
    /// (`mismatch`, which a client MUST NOT use).
    #[serde(default)]
    pub issuer: Issuer,
    /// The `WWW-Authenticate` of a 401; `{resource_metadata}` becomes the PRM URL. Empty: the
    /// 401 carries none.
    #[serde(default = "default_challenge")]
    pub challenge: String,
    /// The rest of a 401 answer (body, other headers), as a reply; its status must be 401.
    /// Absent: a 401 with no body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unauthorized: Option<Reply>,
    /// A scope `tools/call` needs: a token without it is answered 403 with
    /// `forbidden_challenge`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_required: Option<String>,
    /// The `WWW-Authenticate` of a 403; `{scope}` becomes `scope_required`,
    /// `{resource_metadata}` the PRM URL.
    #[serde(default = "default_forbidden_challenge")]
    pub forbidden_challenge: String,
    /// The only scopes the authorization server grants; absent: every scope asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grantable: Option<Vec<String>>,
    /// Every token the authorization server issues is rejected too (revoked at once): a client
    /// that refreshes gets 401 again and must stop.
    #[serde(default)]
    pub reject_issued: bool,
    /// The token endpoint's answers to the token requests it judges, in order; the last
    /// repeats. None: every request is answered with a new access token.
    #[serde(default)]
    pub token: Vec<TokenAnswer>,
}

/// What the client is handed at the start of an authorization case: its token store and how
/// to reach the authorization server (docs/adapters.md, "Credentials"). Every token and secret
/// is synthetic and minted for the case's server; reports name them `[access-token-1]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Credentials {
    /// The access token, when the client holds one.
    pub access_token: Option<String>,
    /// The refresh token, when the client holds one.
    pub refresh_token: Option<String>,
    /// What the store says of the access token's lifetime, in seconds from when the call is
    /// handed over (negative: it passed); `None`: the store names no expiry.
    pub expires_in: Option<i64>,
    /// The scope the tokens were granted (space-separated).
    pub scope: String,
    /// The client id the client is registered with.
    pub client_id: String,
    /// The client secret of a confidential client; `None` for a public one.
    pub client_secret: Option<String>,
    /// The authorization server's issuer URL (`http://127.0.0.1:PORT`), for a client that
    /// takes it from configuration; a client that discovers it finds the same.
    pub authorization_server: String,
    /// The authorization server's token endpoint, as its metadata names it: what a store a
    /// sign-in left behind records beside the tokens (some clients refresh only at the
    /// endpoint their store names).
    pub token_endpoint: String,
    /// Where an interactive authorization would send the user back: the client registered it,
    /// nothing answers there.
    pub redirect_uri: String,
}

impl Credentials {
    /// The JSON object adapter programs get (docs/adapters.md, "Credentials"): every field,
    /// and `expires_at` (Unix seconds) beside `expires_in`.
    pub fn to_json(&self) -> serde_json::Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let now = i64::try_from(now).unwrap_or(i64::MAX);
        let mut value = serde_json::to_value(self).unwrap_or_default();
        value["expires_at"] = serde_json::json!(self.expires_in.map(|s| now.saturating_add(s)));
        value
    }
}

/// The access token the client starts with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StartToken {
    /// Accepted (until `expires_on_call` or `expires_after_call`, when named).
    #[default]
    Valid,
    /// Rejected from the first request: 401 `invalid_token`.
    Expired,
    /// The client holds none.
    None,
}

/// Whether the client has a secret.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ClientKind {
    /// A client id only.
    #[default]
    Public,
    /// A client id and a client secret.
    Confidential,
}

/// Where the Protected Resource Metadata is served.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Prm {
    /// At the path-aware URL (`/.well-known/oauth-protected-resource/mcp`) and at the root.
    #[default]
    Both,
    /// At the path-aware URL only.
    Path,
    /// At the root URL only.
    Root,
    /// Nowhere: the client falls back to the MCP server's origin as its authorization server.
    None,
}

/// Which authorization server metadata documents are served.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AsMetadata {
    /// RFC 8414 and OpenID Connect discovery.
    #[default]
    Both,
    /// RFC 8414 (`/.well-known/oauth-authorization-server`) only.
    Oauth,
    /// OpenID Connect discovery (`/.well-known/openid-configuration`) only.
    Openid,
    /// Neither.
    None,
}

/// Whether the metadata's `issuer` is right.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Issuer {
    /// The authorization server's URL.
    #[default]
    Match,
    /// Another URL.
    Mismatch,
}

/// One answer of the token endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TokenAnswer {
    /// What it answers.
    #[serde(default)]
    pub answer: TokenReply,
    /// The `expires_in` of an issued token, in seconds; absent: none is sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<u64>,
}

/// What the token endpoint answers one request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TokenReply {
    /// A new access token; the refresh token stays the same.
    #[default]
    Issue,
    /// A new access token and a new refresh token: the old refresh token is dead.
    Rotate,
    /// `400 invalid_grant`: the refresh token is dead.
    InvalidGrant,
    /// `401 invalid_client`.
    InvalidClient,
    /// `429` with `Retry-After: 1`.
    RateLimited,
    /// `500` with no body.
    ServerError,
    /// Nothing: the connection stays open.
    Stall,
}

fn default_scope() -> String {
    "mcp:tools".to_owned()
}

fn default_challenge() -> String {
    r#"Bearer error="invalid_token", error_description="The access token expired", resource_metadata="{resource_metadata}""#
        .to_owned()
}

fn default_forbidden_challenge() -> String {
    r#"Bearer error="insufficient_scope", scope="{scope}", resource_metadata="{resource_metadata}""#
        .to_owned()
}

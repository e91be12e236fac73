//! Authorization (cases/README.md, "Authorization"): the client's token store, and what it does
//! when the MCP server refuses a request.
//!
//! Every request carries `Authorization: Bearer` when the store holds an access token (never the
//! query string). A token the store says has expired is refreshed before the call. On a 401 the
//! client reads the challenge, finds the authorization server (the challenge's
//! `resource_metadata`, else the path-aware then the root Protected Resource Metadata, any
//! refusal of one moving on to the next; then RFC 8414, then OpenID discovery, using no
//! metadata whose `issuer` is not the server's), and asks for a new token with the `resource`
//! parameter: the refresh grant when it holds a refresh token, the `client_credentials` grant
//! when it is confidential; a public client with neither asks for an interactive authorization
//! (one request to the authorization endpoint, which a user would complete) and reports the 401.
//! On a 403 `insufficient_scope` it asks for the challenged scopes with the ones it holds: by
//! `client_credentials` when confidential, else interactively, and reports the 403.
//!
//! Bounds, per call: one refresh after a 401 (besides one before the call for a token the store
//! says has expired), one step-up after a 403, one interactive request; a refusal after that is
//! reported as it is. So a call meets at most three refusals and sends at most three token
//! requests.

mod challenge;
mod discovery;
mod grant;

pub(super) use challenge::{Challenge, note, scope, take};

use super::Run;
use crate::adapter::Credentials;
use crate::classify::Classification;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The client's token store, kept from call to call like its session.
#[derive(Debug, Clone)]
pub(super) struct Tokens {
    access: Option<String>,
    /// `None` once the authorization server said it is dead (`invalid_grant`).
    refresh: Option<String>,
    expires_at: Option<Instant>,
    scope: BTreeSet<String>,
    client_id: String,
    client_secret: Option<String>,
    redirect_uri: String,
    /// What discovery found, once it ran.
    server: Option<discovery::Found>,
}

impl Tokens {
    /// The store seeded with what the client was handed.
    pub(super) fn seeded(credentials: &Credentials) -> Self {
        let expires_at = credentials.expires_in.map(|seconds| {
            let now = Instant::now();
            let span = Duration::from_secs(seconds.unsigned_abs());
            match seconds {
                0.. => now + span,
                _ => now.checked_sub(span).unwrap_or(now),
            }
        });
        Tokens {
            access: credentials.access_token.clone(),
            refresh: credentials.refresh_token.clone(),
            expires_at,
            scope: scopes(&credentials.scope),
            client_id: credentials.client_id.clone(),
            client_secret: credentials.client_secret.clone(),
            redirect_uri: credentials.redirect_uri.clone(),
            server: None,
        }
    }

    /// The `Authorization` header value, when the store holds an access token.
    pub(super) fn bearer(&self) -> Option<String> {
        self.access.as_ref().map(|token| format!("Bearer {token}"))
    }

    /// Whether the access token should be refreshed before it is sent: there is none, or the
    /// store says it has expired; and there is a refresh token to do it with.
    fn stale(&self) -> bool {
        let expired = self.expires_at.is_some_and(|at| at <= Instant::now());
        self.refresh.is_some() && (self.access.is_none() || expired)
    }

    fn scope_text(&self) -> String {
        self.scope.iter().cloned().collect::<Vec<_>>().join(" ")
    }
}

/// What this call has done about authorization so far (its bounds).
#[derive(Debug, Default)]
pub(super) struct Rounds {
    refreshed: bool,
    stepped_up: bool,
    asked_user: bool,
}

/// Why the client could not get a token it could use.
#[derive(Debug)]
pub(super) enum Failure {
    /// The call's deadline passed while it tried: the call timed out.
    Timeout(Classification),
    /// It gave up: the refused answer is reported, with this said about it.
    GaveUp(String),
}

impl Run<'_> {
    /// A request builder with the store's access token, when it holds one.
    pub(super) fn authorized(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self.auth.as_ref().and_then(Tokens::bearer) {
            Some(bearer) => request.header(reqwest::header::AUTHORIZATION, bearer),
            None => request,
        }
    }

    /// Before the call: a token the store says has expired (or none, with a refresh token) is
    /// refreshed. A failure is not reported here: the request goes out as it is, and the
    /// server's answer decides.
    pub(super) async fn refresh_if_stale(&mut self) {
        if self.auth.as_ref().is_some_and(Tokens::stale)
            && let Ok(found) = self.discover(None).await
        {
            let _ = self.refresh(&found).await;
        }
    }

    /// What to do about a refused request: `Ok` when the client now holds a token worth trying
    /// the request again with.
    pub(super) async fn recover(&mut self, challenge: &Challenge) -> Result<(), Failure> {
        if self.auth.is_none() {
            return Err(Failure::GaveUp("the client holds no credentials".into()));
        }
        if challenge.wants_scope() {
            return self.step_up(challenge).await;
        }
        if challenge.status != 401 {
            let why = format!(
                "HTTP {}: forbidden, and no scope was challenged",
                challenge.status
            );
            return Err(Failure::GaveUp(why));
        }
        if std::mem::replace(&mut self.rounds.refreshed, true) {
            let why = "the token got in this call was refused too: not tried again";
            return Err(Failure::GaveUp(why.into()));
        }
        let found = self
            .discover(challenge.resource_metadata.as_deref())
            .await?;
        let holds_refresh = self.auth.as_ref().is_some_and(|t| t.refresh.is_some());
        if holds_refresh {
            match self.refresh(&found).await {
                Ok(()) => return Ok(()),
                Err(grant::Refused::Dead(_)) => {} // on to the next way
                Err(refused) => return Err(refused.into_failure("refresh")),
            }
        }
        let scope = self
            .auth
            .as_ref()
            .map(Tokens::scope_text)
            .unwrap_or_default();
        self.next_way(&found, &scope).await
    }

    /// 403 `insufficient_scope`: the challenged scopes with those held (2025-11-25
    /// basic/authorization, "Scope Challenge Handling"), once per call.
    async fn step_up(&mut self, challenge: &Challenge) -> Result<(), Failure> {
        if std::mem::replace(&mut self.rounds.stepped_up, true) {
            let why = "the scope asked for in this call was refused again: a permanent \
                       authorization failure";
            return Err(Failure::GaveUp(why.into()));
        }
        let found = self
            .discover(challenge.resource_metadata.as_deref())
            .await?;
        let mut wanted = self
            .auth
            .as_ref()
            .map(|t| t.scope.clone())
            .unwrap_or_default();
        wanted.extend(scopes(challenge.scope.as_deref().unwrap_or_default()));
        let scope = wanted.into_iter().collect::<Vec<_>>().join(" ");
        self.next_way(&found, &scope).await
    }

    /// Without a usable refresh token: `client_credentials` for a confidential client, else an
    /// interactive authorization asked for (and the refusal reported).
    async fn next_way(&mut self, found: &discovery::Found, scope: &str) -> Result<(), Failure> {
        let confidential = self
            .auth
            .as_ref()
            .is_some_and(|t| t.client_secret.is_some());
        if confidential {
            return self
                .client_credentials(found, scope)
                .await
                .map_err(|refused| refused.into_failure("client_credentials"));
        }
        self.ask_user(found, scope).await
    }
}

/// A space-separated scope as a set.
fn scopes(scope: &str) -> BTreeSet<String> {
    scope.split_whitespace().map(str::to_owned).collect()
}

//! Asking for a token: the refresh grant and the `client_credentials` grant at the token
//! endpoint (RFC 6749 §6, §4.4, with RFC 8707's `resource`), and the interactive authorization
//! a user would complete (RFC 6749 §4.1 with PKCE), asked for once and never completed.

use super::discovery::Found;
use super::{Failure, scopes};
use crate::adapter::reference::Run;
use crate::classify::Classification;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use sha2::Digest;
use std::time::{Duration, Instant};
use tokio::time::timeout_at;

/// Why the token endpoint gave no token.
#[derive(Debug)]
pub(super) enum Refused {
    /// `invalid_grant`: the refresh token is dead (the store forgets it).
    Dead(String),
    /// Any other answer: the store keeps what it holds, for a later call to try again.
    Failed(String),
    /// The call's deadline passed.
    Timeout(Classification),
}

impl Refused {
    pub(super) fn into_failure(self, grant: &str) -> Failure {
        match self {
            Refused::Dead(why) | Refused::Failed(why) => {
                Failure::GaveUp(format!("the {grant} grant failed: {why}"))
            }
            Refused::Timeout(timeout) => Failure::Timeout(timeout),
        }
    }
}

impl Run<'_> {
    /// The refresh grant with the store's refresh token.
    pub(super) async fn refresh(&mut self, found: &Found) -> Result<(), Refused> {
        let Some(token) = self.auth.as_ref().and_then(|t| t.refresh.clone()) else {
            return Err(Refused::Dead("no refresh token".into()));
        };
        let answer = self
            .token_request(
                found,
                &[("grant_type", "refresh_token"), ("refresh_token", &token)],
            )
            .await;
        if let (Err(Refused::Dead(_)), Some(tokens)) = (&answer, self.auth.as_mut()) {
            tokens.refresh = None;
        }
        answer
    }

    /// The `client_credentials` grant for `scope`.
    pub(super) async fn client_credentials(
        &mut self,
        found: &Found,
        scope: &str,
    ) -> Result<(), Refused> {
        let form = [("grant_type", "client_credentials"), ("scope", scope)];
        self.token_request(found, &form).await
    }

    /// One token request (the client authenticated: by HTTP Basic when it has a secret, by
    /// `client_id` otherwise; `resource` always); a token in the answer goes into the store.
    async fn token_request(&mut self, found: &Found, form: &[(&str, &str)]) -> Result<(), Refused> {
        let Some(tokens) = self.auth.as_ref() else {
            return Err(Refused::Failed("the client holds no credentials".into()));
        };
        let mut pairs = form.to_vec();
        pairs.push(("resource", &found.resource));
        if tokens.client_secret.is_none() {
            pairs.push(("client_id", &tokens.client_id));
        }
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs)
            .finish();
        let mut request = self
            .options
            .client
            .post(&found.token_endpoint)
            .header(reqwest::header::ACCEPT, "application/json")
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            );
        if let Some(secret) = &tokens.client_secret {
            request = request.basic_auth(&tokens.client_id, Some(secret));
        }
        let request = request.body(body);
        let answer = async {
            let response = request
                .send()
                .await
                .map_err(|e| e.without_url().to_string())?;
            let status = response.status().as_u16();
            let body = response
                .bytes()
                .await
                .map_err(|e| e.without_url().to_string())?;
            Ok::<_, String>((status, serde_json::from_slice::<Value>(&body).ok()))
        };
        let (status, body) = match timeout_at(self.deadline.at(), answer).await {
            Err(_) => {
                let timeout = self
                    .deadline
                    .headless_timeout("the token endpoint's answer");
                return Err(Refused::Timeout(timeout));
            }
            Ok(Err(why)) => return Err(Refused::Failed(format!("no answer: {why}"))),
            Ok(Ok(answer)) => answer,
        };
        let field = |name: &str| {
            body.as_ref()
                .and_then(|b| b.get(name))
                .and_then(Value::as_str)
        };
        let Some(access) = field("access_token").filter(|_| status == 200) else {
            let error = field("error").unwrap_or("no error named");
            let why = format!("the token endpoint answered HTTP {status} ({error})");
            return Err(match error {
                "invalid_grant" => Refused::Dead(why),
                _ => Refused::Failed(why),
            });
        };
        let requested = form.iter().find(|(k, _)| *k == "scope").map(|(_, v)| *v);
        let granted = field("scope").or(requested).map(scopes);
        let expires_in = body
            .as_ref()
            .and_then(|b| b.get("expires_in"))
            .and_then(Value::as_u64);
        let rotated = field("refresh_token").map(str::to_owned);
        if let Some(tokens) = self.auth.as_mut() {
            tokens.access = Some(access.to_owned());
            tokens.expires_at = expires_in.map(|s| Instant::now() + Duration::from_secs(s));
            if let Some(granted) = granted {
                tokens.scope = granted;
            }
            // A rotated refresh token replaces the old one, which is never sent again.
            if rotated.is_some() {
                tokens.refresh = rotated;
            }
        }
        Ok(())
    }

    /// Asks for an interactive authorization of `scope`, once per call: one GET of the
    /// authorization endpoint, as a browser opened on it would send (PKCE, `resource`,
    /// `state`). Nobody completes it here, so the refusal stands.
    pub(super) async fn ask_user(&mut self, found: &Found, scope: &str) -> Result<(), Failure> {
        let Some(endpoint) = &found.authorization_endpoint else {
            let why = "interactive authorization needed, and the metadata names no \
                       authorization_endpoint";
            return Err(Failure::GaveUp(why.into()));
        };
        if std::mem::replace(&mut self.rounds.asked_user, true) {
            let why = "interactive authorization needed (asked for already in this call)";
            return Err(Failure::GaveUp(why.into()));
        }
        let Some(tokens) = self.auth.as_ref() else {
            return Err(Failure::GaveUp("the client holds no credentials".into()));
        };
        let verifier = format!(
            "{}{}{}",
            crate::credential::nonce(),
            crate::credential::nonce(),
            crate::credential::nonce()
        );
        let challenge = URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("response_type", "code")
            .append_pair("client_id", &tokens.client_id)
            .append_pair("redirect_uri", &tokens.redirect_uri)
            .append_pair("scope", scope)
            .append_pair("resource", &found.resource)
            .append_pair("state", &crate::credential::nonce())
            .append_pair("code_challenge", &challenge)
            .append_pair("code_challenge_method", "S256")
            .finish();
        let separator = if endpoint.contains('?') { '&' } else { '?' };
        let request = self
            .options
            .client
            .get(format!("{endpoint}{separator}{query}"));
        match timeout_at(self.deadline.at(), request.send()).await {
            Err(_) => Err(Failure::Timeout(
                self.deadline.headless_timeout("the authorization endpoint"),
            )),
            Ok(_) => Err(Failure::GaveUp(format!(
                "interactive authorization needed for scope {scope:?}: asked for at the \
                 authorization endpoint; a user must complete it"
            ))),
        }
    }
}

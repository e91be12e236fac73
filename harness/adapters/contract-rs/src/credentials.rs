//! The start credentials of an authorization case, typed (docs/adapters.md, "Credentials"): what
//! [`Call::auth`](crate::Call::auth) holds as a JSON object, read once so that a row hands its
//! client's auth entry point fields, not JSON.
//!
//! The tokens are synthetic and minted per case run, but they are still credentials: the `Debug`
//! of [`Credentials`] names whether each is there, never its value, so that a row that logs the
//! value it built logs no token.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// A token store as a user who signed in earlier would have left it.
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    /// The access token, when the store holds one.
    pub access_token: Option<String>,
    /// The refresh token, when the store holds one.
    pub refresh_token: Option<String>,
    /// What the store says of the access token's lifetime, in seconds from when the call was
    /// handed over (negative: it passed); `None`: the store names no expiry.
    pub expires_in: Option<i64>,
    /// The same expiry as Unix seconds; `None` when the store names none.
    pub expires_at: Option<i64>,
    /// The scope the tokens were granted, space-separated (may be empty).
    pub scope: String,
    /// The client id the client is registered with.
    pub client_id: String,
    /// The client secret of a confidential client; `None` for a public one.
    pub client_secret: Option<String>,
    /// The authorization server's issuer URL (`http://127.0.0.1:PORT`): pass it only where the
    /// client's auth entry point asks for it (a client that discovers it finds the same).
    pub authorization_server: String,
    /// Where an interactive authorization would send the user back (nothing answers there).
    pub redirect_uri: String,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let held = |token: &Option<String>| token.as_ref().map(|_| "[redacted]");
        f.debug_struct("Credentials")
            .field("access_token", &held(&self.access_token))
            .field("refresh_token", &held(&self.refresh_token))
            .field("expires_in", &self.expires_in)
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("client_id", &self.client_id)
            .field("client_secret", &held(&self.client_secret))
            .field("authorization_server", &self.authorization_server)
            .field("redirect_uri", &self.redirect_uri)
            .finish()
    }
}

impl Credentials {
    /// Reads the object the runner handed over (`auth` of a request line, or
    /// `MCP_ERROR_LAYERS_AUTH`). `client_id` is required; a key that is absent or `null` is
    /// `None` (an empty string for `scope`, `authorization_server` and `redirect_uri`).
    ///
    /// # Errors
    ///
    /// Which key has the wrong type, or that `client_id` is missing (the error names no value).
    pub fn from_object(object: &Map<String, Value>) -> Result<Self, String> {
        let text = |key: &str| -> Result<Option<String>, String> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) => Ok(Some(text.clone())),
                Some(_) => Err(format!("auth key {key:?} is not a string")),
            }
        };
        let seconds = |key: &str| -> Result<Option<i64>, String> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => value
                    .as_i64()
                    .map(Some)
                    .ok_or_else(|| format!("auth key {key:?} is not a whole number: {value}")),
            }
        };
        Ok(Self {
            access_token: text("access_token")?,
            refresh_token: text("refresh_token")?,
            expires_in: seconds("expires_in")?,
            expires_at: seconds("expires_at")?,
            scope: text("scope")?.unwrap_or_default(),
            client_id: text("client_id")?.ok_or("auth has no \"client_id\"")?,
            client_secret: text("client_secret")?,
            authorization_server: text("authorization_server")?.unwrap_or_default(),
            redirect_uri: text("redirect_uri")?.unwrap_or_default(),
        })
    }

    /// The granted scopes, one per item (`scope` split on whitespace).
    #[must_use]
    pub fn scopes(&self) -> Vec<String> {
        self.scope.split_whitespace().map(str::to_owned).collect()
    }

    /// When the access token expires, as Unix seconds: `expires_at`, or `expires_in` from now
    /// when only that is given; `None` when the store names no expiry.
    #[must_use]
    pub fn expiry(&self) -> Option<i64> {
        self.expires_at
            .or_else(|| self.expires_in.map(|s| unix_now().saturating_add(s)))
    }
}

/// The clock, as Unix seconds.
#[must_use]
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Map<String, Value> {
        match serde_json::from_str(text).unwrap() {
            Value::Object(object) => object,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn the_runners_object_is_read_field_by_field() {
        let auth = object(
            r#"{"access_token": "mel_at_1_x", "refresh_token": "mel_rt_1_x", "expires_in": 3600,
                "expires_at": 1796650000, "scope": "mcp:tools  mcp:write", "client_id": "mel-client",
                "client_secret": "mel_cs_1_x", "authorization_server": "http://127.0.0.1:4100",
                "redirect_uri": "http://127.0.0.1:4100/callback"}"#,
        );
        let credentials = Credentials::from_object(&auth).unwrap();
        assert_eq!(credentials.access_token.as_deref(), Some("mel_at_1_x"));
        assert_eq!(credentials.refresh_token.as_deref(), Some("mel_rt_1_x"));
        assert_eq!(credentials.expires_in, Some(3600));
        assert_eq!(credentials.expiry(), Some(1_796_650_000));
        assert_eq!(credentials.scopes(), ["mcp:tools", "mcp:write"]);
        assert_eq!(credentials.client_id, "mel-client");
        assert_eq!(credentials.client_secret.as_deref(), Some("mel_cs_1_x"));
        assert_eq!(credentials.authorization_server, "http://127.0.0.1:4100");
        assert_eq!(credentials.redirect_uri, "http://127.0.0.1:4100/callback");
    }

    #[test]
    fn null_tokens_and_expiry_are_none_and_a_past_expiry_stays_negative() {
        let none = object(
            r#"{"access_token": null, "refresh_token": "mel_rt_1_x", "expires_in": null,
                "expires_at": null, "scope": "mcp:tools", "client_id": "mel-client",
                "client_secret": null}"#,
        );
        let credentials = Credentials::from_object(&none).unwrap();
        assert_eq!(credentials.access_token, None);
        assert_eq!(credentials.client_secret, None);
        assert_eq!(credentials.expiry(), None);
        assert_eq!(credentials.redirect_uri, "");
        let past = object(r#"{"access_token": "t", "expires_in": -60, "client_id": "c"}"#);
        let expiry = Credentials::from_object(&past).unwrap().expiry().unwrap();
        assert!(
            (unix_now() - 61..=unix_now() - 59).contains(&expiry),
            "{expiry}"
        );
    }

    #[test]
    fn a_wrong_type_or_a_missing_client_id_is_refused_without_the_value() {
        let error = Credentials::from_object(&object(r#"{"access_token": "t"}"#)).unwrap_err();
        assert!(error.contains("client_id"), "{error}");
        let error = Credentials::from_object(&object(r#"{"client_id": "c", "access_token": 7}"#))
            .unwrap_err();
        assert!(
            error.contains("\"access_token\" is not a string"),
            "{error}"
        );
        let error =
            Credentials::from_object(&object(r#"{"client_id": "c", "expires_in": "soon"}"#))
                .unwrap_err();
        assert!(error.contains("not a whole number"), "{error}");
    }

    #[test]
    fn debug_names_no_token() {
        let auth = object(
            r#"{"access_token": "mel_at_1_secret", "refresh_token": "mel_rt_1_secret",
                "client_id": "mel-client", "client_secret": "mel_cs_1_secret"}"#,
        );
        let text = format!("{:?}", Credentials::from_object(&auth).unwrap());
        for token in ["mel_at_1_secret", "mel_rt_1_secret", "mel_cs_1_secret"] {
            assert!(!text.contains(token), "{text}");
        }
        assert!(
            text.contains("[redacted]") && text.contains("mel-client"),
            "{text}"
        );
    }
}

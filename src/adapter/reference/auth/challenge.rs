//! A `WWW-Authenticate` challenge (RFC 9110 §11.6.1, RFC 6750 §3) as this client reads it, and
//! where the last 401 or 403 of a call left it.

use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};
use std::cell::RefCell;

/// The refusal of a request for want of authorization: its status and its `Bearer` challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::adapter::reference) struct Challenge {
    /// 401 or 403.
    pub(in crate::adapter::reference) status: u16,
    /// `error` (`invalid_token`, `insufficient_scope`), when named.
    pub(in crate::adapter::reference) error: Option<String>,
    /// `scope`: the scopes the operation needs (authoritative, 2025-11-25 onward).
    pub(in crate::adapter::reference) scope: Option<String>,
    /// `resource_metadata`: where the Protected Resource Metadata is (RFC 9728 §5.1).
    pub(in crate::adapter::reference) resource_metadata: Option<String>,
}

impl Challenge {
    /// The challenge of a 401 or 403 with these headers; a missing or unreadable header gives
    /// one with no parameters.
    pub(in crate::adapter::reference) fn of(status: u16, headers: &HeaderMap) -> Self {
        let values = headers.get_all(WWW_AUTHENTICATE);
        let params = crate::challenge::first_bearer(values.iter().filter_map(|v| v.to_str().ok()))
            .unwrap_or_default();
        let take = |name: &str| crate::challenge::param(&params, name).map(str::to_owned);
        Challenge {
            status,
            error: take("error"),
            scope: take("scope"),
            resource_metadata: take("resource_metadata"),
        }
    }

    /// Whether it asks for more scope: a 403 with `error="insufficient_scope"`.
    pub(in crate::adapter::reference) fn wants_scope(&self) -> bool {
        self.status == 403 && self.error.as_deref() == Some("insufficient_scope")
    }
}

tokio::task_local! {
    /// The last 401 or 403 a request of this call got: the call's answer is classified from
    /// the response, which is gone by the time the call decides to recover.
    static LAST: RefCell<Option<Challenge>>;
}

/// Runs `call` with a place for the challenges its requests meet.
pub(in crate::adapter::reference) async fn scope<F: Future>(call: F) -> F::Output {
    LAST.scope(RefCell::new(None), call).await
}

/// Notes the challenge of a response, when it is a 401 or 403 (outside [`scope`], nothing).
pub(in crate::adapter::reference) fn note(status: u16, headers: &HeaderMap) {
    if status == 401 || status == 403 {
        let _ = LAST.try_with(|last| *last.borrow_mut() = Some(Challenge::of(status, headers)));
    }
}

/// The last challenge noted since the last `take`.
pub(in crate::adapter::reference) fn take() -> Option<Challenge> {
    LAST.try_with(|last| last.borrow_mut().take())
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn challenge(status: u16, value: &str) -> Challenge {
        let mut headers = HeaderMap::new();
        headers.insert(WWW_AUTHENTICATE, HeaderValue::from_str(value).unwrap());
        Challenge::of(status, &headers)
    }

    #[test]
    fn reads_the_parameters_of_a_bearer_challenge() {
        let c = challenge(
            403,
            r#"Bearer error="insufficient_scope", scope="mcp:tools mcp:write", resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("mcp:tools mcp:write"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp")
        );
        assert!(c.wants_scope());
    }

    #[test]
    fn tokens_escapes_and_other_schemes_are_read_as_rfc_9110_writes_them() {
        let c = challenge(
            401,
            r#"Basic realm="x", Bearer error=invalid_token, realm="a \"b\"""#,
        );
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert!(!c.wants_scope());
        let c = challenge(401, r#"Bearer realm="a", error="x", Basic realm="b""#);
        assert_eq!(c.error.as_deref(), Some("x"));
        assert_eq!(
            challenge(401, "Basic realm=\"x\""),
            Challenge {
                status: 401,
                ..Default::default()
            }
        );
        assert_eq!(
            challenge(401, "Bearer"),
            Challenge {
                status: 401,
                ..Default::default()
            }
        );
        assert_eq!(Challenge::of(401, &HeaderMap::new()).error, None);
    }

    #[tokio::test]
    async fn the_last_refusal_of_a_call_is_kept_until_taken() {
        let mut headers = HeaderMap::new();
        headers.insert(
            WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer error=\"a\""),
        );
        note(401, &headers);
        assert_eq!(take(), None, "outside a call nothing is kept");
        scope(async {
            note(200, &headers);
            assert_eq!(take(), None);
            note(401, &headers);
            assert_eq!(take().map(|c| c.error), Some(Some("a".into())));
            assert_eq!(take(), None);
        })
        .await;
    }
}

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
        let params = headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(bearer_params)
            .unwrap_or_default();
        let take = |name: &str| {
            params
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
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

/// The parameters of the first `Bearer` challenge in a header value: `name=token` or
/// `name="quoted string"`, comma-separated. `None` when the value has no Bearer challenge.
fn bearer_params(value: &str) -> Option<Vec<(String, String)>> {
    let at = find_scheme(value, "bearer")?;
    let mut rest = value[at + "bearer".len()..].trim_start();
    let mut params = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        let Some(eq) = rest.find('=') else {
            break;
        };
        let name = rest[..eq].trim();
        // A name with a space is the next challenge's scheme: this one ends.
        if name.is_empty() || name.contains([' ', '\t']) {
            break;
        }
        rest = rest[eq + 1..].trim_start();
        let value = match rest.strip_prefix('"') {
            Some(quoted) => {
                let mut out = String::new();
                let mut chars = quoted.char_indices();
                let mut end = quoted.len();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' => out.extend(chars.next().map(|(_, c)| c)),
                        '"' => {
                            end = i + 1;
                            break;
                        }
                        c => out.push(c),
                    }
                }
                rest = &quoted[end.min(quoted.len())..];
                out
            }
            None => {
                let end = rest.find([',', ' ', '\t']).unwrap_or(rest.len());
                let token = rest[..end].to_owned();
                rest = &rest[end..];
                token
            }
        };
        params.push((name.to_owned(), value));
    }
    Some(params)
}

/// Where the auth scheme `scheme` (lowercase) starts a challenge in `value`.
fn find_scheme(value: &str, scheme: &str) -> Option<usize> {
    let lower = value.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find(scheme) {
        let at = from + found;
        let before = lower[..at].trim_end();
        let starts = before.is_empty() || before.ends_with(',');
        let after = lower[at + scheme.len()..].chars().next();
        if starts && after.is_none_or(|c| c == ' ' || c == '\t') {
            return Some(at);
        }
        from = at + scheme.len();
    }
    None
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

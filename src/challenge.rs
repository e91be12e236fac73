//! The parameters of a `Bearer` challenge in a `WWW-Authenticate` header (RFC 9110 §11.6.1,
//! RFC 6750 §3), read one way wherever a challenge is read: by the reference client on a 401 or
//! 403, and by the checks that judge what a client asked for after one.

/// The parameters of the first `Bearer` challenge among these `WWW-Authenticate` values (a
/// response may carry the header more than once); `None` when none has one.
pub(crate) fn first_bearer<'a>(
    values: impl IntoIterator<Item = &'a str>,
) -> Option<Vec<(String, String)>> {
    values.into_iter().find_map(bearer_params)
}

/// The value of parameter `name` (matched without regard to case, as RFC 9110 has it).
pub(crate) fn param<'p>(params: &'p [(String, String)], name: &str) -> Option<&'p str> {
    params
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The parameters of the first `Bearer` challenge in a header value: `name=token` or
/// `name="quoted string"`, comma-separated. `None` when the value has no Bearer challenge.
pub(crate) fn bearer_params(value: &str) -> Option<Vec<(String, String)>> {
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

    fn of(value: &str) -> Option<Vec<(String, String)>> {
        first_bearer([value])
    }

    #[test]
    fn quoted_strings_tokens_and_escapes_are_read_as_rfc_9110_writes_them() {
        let params = of(r#"Bearer error=invalid_token, realm="a \"b\"", scope="x y""#).unwrap();
        assert_eq!(param(&params, "ERROR"), Some("invalid_token"));
        assert_eq!(param(&params, "realm"), Some(r#"a "b""#));
        assert_eq!(param(&params, "scope"), Some("x y"));
        assert_eq!(param(&params, "resource_metadata"), None);
    }

    #[test]
    fn only_the_bearer_challenge_counts_among_others() {
        let params = of(r#"Basic realm="x", Bearer error="a", Basic realm="b""#).unwrap();
        assert_eq!(params, vec![("error".to_owned(), "a".to_owned())]);
        assert_eq!(of(r#"Basic realm="scope=\"x\"""#), None);
        assert_eq!(of("Bearer"), Some(vec![]));
        assert_eq!(of("Bearerish realm=x"), None);
        // The second header value holds the Bearer challenge.
        let found = first_bearer([r#"Basic realm="x""#, r#"Bearer scope="s""#]).unwrap();
        assert_eq!(param(&found, "scope"), Some("s"));
    }

    #[test]
    fn a_parameter_name_in_another_value_is_not_taken_for_one() {
        let params =
            of(r#"Bearer error="insufficient_scope", resource_metadata="http://h/x?scope=y""#)
                .unwrap();
        assert_eq!(param(&params, "scope"), None);
        assert_eq!(
            param(&params, "resource_metadata"),
            Some("http://h/x?scope=y")
        );
    }
}

//! The synthetic credentials of an authorization case (cases/README.md, "Authorization"): how
//! the wire server mints them and how every report names them instead.
//!
//! A credential is `mel_<kind>_<n>_<nonce>`: its kind (`at` an access token, `rt` a refresh
//! token, `cs` a client secret), its number within the server that minted it (from 1, in the
//! order minted) and 16 hex digits drawn once per server, so that no client can hold a token
//! of another case or run. [`redact`] turns each into `[access-token-1]`, `[refresh-token-2]`,
//! `[client-secret-1]`: names stable from run to run, that still tell two tokens apart.
//! The server records requests and replies redacted, and the runner redacts what an adapter
//! says and logs, so that no credential reaches a report or a snapshot.

use std::borrow::Cow;

/// What a credential is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An access token.
    Access,
    /// A refresh token.
    Refresh,
    /// A client secret.
    ClientSecret,
}

impl Kind {
    fn tag(self) -> &'static str {
        match self {
            Kind::Access => "at",
            Kind::Refresh => "rt",
            Kind::ClientSecret => "cs",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Access => "access-token",
            Kind::Refresh => "refresh-token",
            Kind::ClientSecret => "client-secret",
        }
    }

    fn of_tag(tag: &str) -> Option<Kind> {
        [Kind::Access, Kind::Refresh, Kind::ClientSecret]
            .into_iter()
            .find(|k| k.tag() == tag)
    }
}

/// The hex digits of a nonce.
const NONCE_DIGITS: usize = 16;

/// A fresh nonce: 16 hex digits from the process's random hasher keys.
pub fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{:016x}", hasher.finish())
}

/// Credential number `n` of `kind` under `nonce`.
pub fn mint(kind: Kind, n: u32, nonce: &str) -> String {
    format!("mel_{}_{n}_{nonce}", kind.tag())
}

/// `text` with every credential replaced by its stable name.
pub fn redact(text: &str) -> Cow<'_, str> {
    if !text.contains("mel_") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = text[at..].find("mel_") {
        let start = at + found;
        match parse(&bytes[start..]) {
            Some((kind, n, len)) => {
                out.push_str(&text[copied..start]);
                out.push_str(&format!("[{}-{n}]", kind.name()));
                copied = start + len;
                at = copied;
            }
            None => at = start + 4,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The credential at the start of `bytes`: its kind, number and length.
fn parse(bytes: &[u8]) -> Option<(Kind, u32, usize)> {
    let rest = bytes.strip_prefix(b"mel_")?;
    let kind = Kind::of_tag(std::str::from_utf8(rest.get(..2)?).ok()?)?;
    let rest = rest.get(2..)?.strip_prefix(b"_")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let n: u32 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let rest = rest[digits..].strip_prefix(b"_")?;
    let hex = rest.get(..NONCE_DIGITS)?;
    hex.iter()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        .then_some((kind, n, 4 + 2 + 1 + digits + 1 + NONCE_DIGITS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_minted_credential_is_redacted_to_its_stable_name() {
        let nonce = nonce();
        assert_eq!(nonce.len(), NONCE_DIGITS);
        let access = mint(Kind::Access, 2, &nonce);
        let refresh = mint(Kind::Refresh, 1, &nonce);
        let secret = mint(Kind::ClientSecret, 1, &nonce);
        let text = format!(
            "Authorization: Bearer {access}\r\n\r\ngrant_type=refresh_token&refresh_token=\
             {refresh}&client_secret={secret}"
        );
        assert_eq!(
            redact(&text),
            "Authorization: Bearer [access-token-2]\r\n\r\ngrant_type=refresh_token&\
             refresh_token=[refresh-token-1]&client_secret=[client-secret-1]"
        );
        assert!(!redact(&text).contains(&nonce));
    }

    #[test]
    fn text_without_a_whole_credential_is_left_alone() {
        for text in [
            "",
            "mel_",
            "mel_at_1_",
            "mel_at_x_0123456789abcdef",
            "mel_zz_1_0123456789abcdef",
            "mel_at_1_0123456789ABCDEF",
            "mel_at_1_0123456789abcde",
            "camel_case",
        ] {
            assert!(
                matches!(redact(text), Cow::Borrowed(t) if t == text),
                "{text}"
            );
        }
    }

    #[test]
    fn a_credential_inside_other_text_and_json_is_found() {
        let token = "mel_rt_12_0123456789abcdef";
        let json = format!(r#"{{"refresh_token":"{token}","x":"mel_no"}}"#);
        assert_eq!(
            redact(&json),
            r#"{"refresh_token":"[refresh-token-12]","x":"mel_no"}"#
        );
        let twice = format!("{token}{token}");
        assert_eq!(redact(&twice), "[refresh-token-12][refresh-token-12]");
    }
}

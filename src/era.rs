//! The protocol versions, in one place: the stateless 2026-07-28 ("modern") and the 2025
//! session era ("legacy"), the version a case speaks when it names none, and how a client
//! tells from a 4xx which era a server speaks.

/// The stateless protocol version: no `initialize`, `_meta` and the protocol headers on every
/// request. Ask "is this version modern?" with [`Era::of`], not by comparing with
/// [`DEFAULT_VERSION`].
pub const MODERN_VERSION: &str = "2026-07-28";

/// The version a case speaks when it names none, and that [`crate::CallContext::new`]
/// prefers. A choice of the case format (today the modern one), not the definition of modern:
/// a later format may default to another version without changing what modern means.
pub const DEFAULT_VERSION: &str = MODERN_VERSION;

/// The 2025 session-era versions that cases and the reference client speak, oldest first.
pub const SESSION_VERSIONS: [&str; 2] = ["2025-06-18", "2025-11-25"];

/// The newest session-era version: what a 2025 client asks for, and what the wire server
/// negotiates when asked for one it does not know.
pub const NEWEST_SESSION_VERSION: &str = SESSION_VERSIONS[1];

/// Every version a case file may name (the one list the rest of the crate reads).
pub const KNOWN_VERSIONS: [&str; 3] = [SESSION_VERSIONS[0], SESSION_VERSIONS[1], MODERN_VERSION];

/// What an `initialize` may negotiate with the wire server: the session versions, and
/// 2025-03-26 for clients that still ask for it (no case names it).
pub const NEGOTIABLE_SESSION_VERSIONS: [&str; 3] =
    ["2025-03-26", SESSION_VERSIONS[0], SESSION_VERSIONS[1]];

/// The session version the wire server negotiates for an `initialize` that asks for `asked`:
/// the one asked for when it can, else [`NEWEST_SESSION_VERSION`].
pub fn negotiated(asked: Option<&str>) -> &'static str {
    NEGOTIABLE_SESSION_VERSIONS
        .into_iter()
        .find(|v| Some(*v) == asked)
        .unwrap_or(NEWEST_SESSION_VERSION)
}

/// Whether a request says it is a 2026-07-28 one: its `MCP-Protocol-Version` header or its
/// parsed body's `_meta` names [`MODERN_VERSION`].
pub fn says_modern(version_header: Option<&str>, message: &serde_json::Value) -> bool {
    let meta = message.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion");
    version_header == Some(MODERN_VERSION)
        || meta.and_then(serde_json::Value::as_str) == Some(MODERN_VERSION)
}

/// The era a protocol version belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    /// [`MODERN_VERSION`]: stateless requests.
    Stateless,
    /// One of [`SESSION_VERSIONS`]: an `initialize` handshake and `Mcp-Session-Id`.
    Session,
}

impl Era {
    /// The era of `version`, when it is one that cases name ([`KNOWN_VERSIONS`]).
    pub fn of(version: &str) -> Option<Era> {
        if version == MODERN_VERSION {
            Some(Era::Stateless)
        } else if SESSION_VERSIONS.contains(&version) {
            Some(Era::Session)
        } else {
            None
        }
    }
}

/// JSON-RPC codes a modern server sends with `400` (header mismatch, missing client capability,
/// unsupported protocol version): their presence says the server is modern.
pub const MODERN_400_CODES: [i64; 3] = [-32020, -32021, -32022];

/// The code of `HeaderMismatch`: a header disagrees with the body. The client SHOULD refresh
/// with `tools/list` and retry (2026-07-28 streamable-http, "Custom Headers").
pub const HEADER_MISMATCH: i64 = -32020;

/// The code of `UnsupportedProtocolVersionError`, whose `data.supported` lists the versions the
/// server accepts.
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// Whether an error answer to a modern request is a recognized modern error: `400` with one of
/// [`MODERN_400_CODES`], or `404` with `-32601` (a modern server's unknown method). Any other
/// `400`, `404` or `405` identifies a legacy server, and a dual-era client falls back to
/// `initialize` (2026-07-28 transports, "Backward Compatibility").
pub fn is_modern_error(status: u16, code: Option<i64>) -> bool {
    match (status, code) {
        (400, Some(code)) => MODERN_400_CODES.contains(&code),
        (404, Some(code)) => code == -32601,
        _ => false,
    }
}

/// Whether a status to a modern request, without a recognized modern error, means "legacy
/// server: fall back to `initialize`".
pub fn is_legacy_rejection(status: u16, code: Option<i64>) -> bool {
    matches!(status, 400 | 404 | 405) && !is_modern_error(status, code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_version_has_an_era_and_the_default_is_known() {
        assert!(KNOWN_VERSIONS.iter().all(|v| Era::of(v).is_some()));
        assert_eq!(Era::of(MODERN_VERSION), Some(Era::Stateless));
        assert_eq!(Era::of(NEWEST_SESSION_VERSION), Some(Era::Session));
        assert_eq!(Era::of("2025-03-26"), None);
        assert!(KNOWN_VERSIONS.contains(&DEFAULT_VERSION));
    }

    #[test]
    fn modern_errors_are_the_2026_codes_on_400_and_method_not_found_on_404() {
        assert!(is_modern_error(400, Some(-32022)));
        assert!(is_modern_error(404, Some(-32601)));
        assert!(!is_modern_error(400, Some(-32602)));
        assert!(!is_modern_error(400, None));
        assert!(!is_modern_error(404, Some(-32022)));
        assert!(is_legacy_rejection(400, Some(-32000)));
        assert!(is_legacy_rejection(405, None));
        assert!(!is_legacy_rejection(400, Some(-32020)));
        assert!(!is_legacy_rejection(503, None));
    }
}

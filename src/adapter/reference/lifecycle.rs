//! Which era and version a call ends up speaking: the dual-era start of a 2026-07-28 call, and
//! the 2025 session with its expiry.

use super::{Mode, Run, body, prefixed};
use crate::classify::Classification;
use crate::era::{HEADER_MISMATCH, UNSUPPORTED_VERSION, is_legacy_rejection};
use crate::outcome::Outcome;
use serde_json::Value;

/// How many sessions one call may open: the first, and one after it expired.
const MAX_SESSIONS: u32 = 2;

impl Run<'_> {
    /// 2026-07-28 first. An `UnsupportedProtocolVersionError` listing a session version this
    /// client speaks is answered by speaking it; a 400, 404 or 405 without a recognized modern
    /// error identifies a legacy server, and the call falls back to `initialize`.
    pub(super) async fn modern_call(&mut self) -> Classification {
        let reply = self.tool_call(Mode::Stateless).await;
        let answer = &reply.classification;
        let status = answer.status.unwrap_or_default();
        if answer.outcome != Outcome::HttpError {
            return reply.classification;
        }
        if status == 400 && answer.code == Some(HEADER_MISMATCH) {
            // The tool's schema (and so its headers) may have changed: look again, retry once.
            self.refresh_tools().await;
            let again = self.tool_call(Mode::Stateless).await;
            let note = "HeaderMismatch: tools/list refreshed, the call retried once";
            return prefixed(again.classification, note);
        }
        if status == 400 && answer.code == Some(UNSUPPORTED_VERSION) {
            let listed = body::error_body(&reply).as_ref().and_then(spoken_version);
            return match listed {
                Some(version) => {
                    let note =
                        format!("the server does not speak 2026-07-28, retried with {version}");
                    prefixed(self.session_call(version).await, &note)
                }
                None => prefixed(reply.classification, "no version in common with the server"),
            };
        }
        if is_legacy_rejection(status, answer.code) {
            let version = crate::era::NEWEST_SESSION_VERSION;
            let note = format!(
                "HTTP {status} without a modern error: a legacy server, fell back to initialize"
            );
            return prefixed(self.session_call(version).await, &note);
        }
        reply.classification
    }

    /// A stateless `tools/list`; its answer only matters to a client that builds headers from
    /// the tool's schema, which this one does not, so it is not read.
    async fn refresh_tools(&mut self) {
        let _ = self.list_tools(Mode::Stateless).await;
    }

    /// The session era: the session the client is in (the one the case's calls before left,
    /// when it speaks `version`), else the handshake; then the call. A 404 to the call inside
    /// the session means it expired, and the call is made again in a new session.
    pub(super) async fn session_call(&mut self, version: &str) -> Classification {
        let mut sessions = 0;
        let mut kept = self.session.take().filter(|s| s.version == version);
        loop {
            sessions += 1;
            let session = match kept.take() {
                Some(session) => session,
                None => match self.open_session(version).await {
                    Ok(session) => session,
                    Err(failure) => return failure,
                },
            };
            let reply = self.tool_call(Mode::Session(&session)).await;
            let answer = &reply.classification;
            let expired = answer.outcome == Outcome::HttpError
                && answer.status == Some(404)
                && session.id.is_some();
            self.session = Some(session);
            if expired && sessions < MAX_SESSIONS {
                continue;
            }
            return reply.classification;
        }
    }
}

/// The newest session version this client speaks among `data.supported` of a -32022 error.
fn spoken_version(error: &Value) -> Option<&'static str> {
    let supported = error.pointer("/error/data/supported")?.as_array()?;
    let listed = |v: &&&str| supported.iter().any(|s| s.as_str() == Some(**v));
    crate::era::SESSION_VERSIONS
        .iter()
        .rev()
        .find(listed)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn picks_the_newest_listed_session_version_it_speaks() {
        let error = |list: Value| json!({"error": {"code": -32022, "data": {"supported": list}}});
        let both = error(json!(["2025-06-18", "2025-11-25", "2027-01-01"]));
        assert_eq!(spoken_version(&both), Some("2025-11-25"));
        assert_eq!(
            spoken_version(&error(json!(["2025-06-18"]))),
            Some("2025-06-18")
        );
        assert_eq!(spoken_version(&error(json!(["2099-01-01"]))), None);
        assert_eq!(spoken_version(&json!({"error": {"code": -32022}})), None);
    }
}

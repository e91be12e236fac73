//! The wire server's sessions (the 2025 eras): each `initialize` mints one, and a session that
//! got a `404` stays expired. A real server keeps a dead session dead: every later request that
//! names it gets the `404` again (2025-11-25 basic/transports, "Session Management": "The server
//! MAY terminate the session at any time, after which it MUST respond to requests containing that
//! session ID with HTTP 404 Not Found"). Without this, a client that goes on with the expired id
//! would be answered as if nothing had happened, and look better than it is.

use super::response::Response;
use serde_json::json;
use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What every session id this server mints starts with.
const PREFIX: &str = "mcp-error-layers-session-";

/// The sessions a server minted, and those that expired. Bounded: one number per `initialize`
/// the server has read.
#[derive(Debug, Default)]
pub struct Sessions {
    minted: AtomicUsize,
    expired: Mutex<BTreeSet<usize>>,
}

impl Sessions {
    /// A new session's id, for an `initialize` answer.
    pub fn mint(&self) -> String {
        let number = self.minted.fetch_add(1, Ordering::SeqCst);
        format!("{PREFIX}{number}")
    }

    /// Marks the session `id` names expired, if this server minted it (an id it never gave out
    /// is no session of its own to keep).
    pub fn expire(&self, id: &str) {
        if let Some(number) = self.number(id) {
            lock(&self.expired).insert(number);
        }
    }

    /// Whether `id` names a session of this server that expired.
    pub fn is_expired(&self, id: &str) -> bool {
        self.number(id)
            .is_some_and(|number| lock(&self.expired).contains(&number))
    }

    /// The number of a session this server minted, from its id.
    fn number(&self, id: &str) -> Option<usize> {
        let number: usize = id.strip_prefix(PREFIX)?.parse().ok()?;
        (number < self.minted.load(Ordering::SeqCst)).then_some(number)
    }
}

/// What a request in an expired session gets: `404` with the body the TypeScript SDK 1.x's
/// server sends for an unknown session (`-32001 "Session not found"`, `id` null).
pub fn expired_answer() -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "error": {"code": -32001, "message": "Session not found"},
        "id": null,
    });
    Response::json(404, body.to_string())
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A set of numbers: still whole after a panic elsewhere.
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_minted_session_expires_and_stays_expired_and_others_do_not() {
        let sessions = Sessions::default();
        let first = sessions.mint();
        let second = sessions.mint();
        assert_eq!(first, "mcp-error-layers-session-0");
        assert!(!sessions.is_expired(&first));
        sessions.expire(&first);
        assert!(sessions.is_expired(&first) && sessions.is_expired(&first));
        assert!(!sessions.is_expired(&second));
    }

    #[test]
    fn ids_the_server_never_gave_out_are_never_expired() {
        let sessions = Sessions::default();
        sessions.mint();
        for id in [
            "mcp-error-layers-session-7",
            "other-0",
            "mcp-error-layers-session-x",
            "",
        ] {
            sessions.expire(id);
            assert!(!sessions.is_expired(id), "{id}");
        }
    }

    #[test]
    fn the_expired_answer_is_a_404_with_the_sdk_servers_body() {
        let answer = expired_answer();
        assert_eq!(answer.status, Some(404));
        let super::super::response::Body::Fixed(body) = &answer.body else {
            panic!("a fixed body");
        };
        let body: serde_json::Value = serde_json::from_slice(body).unwrap();
        assert_eq!(body["error"]["code"], -32001);
    }
}

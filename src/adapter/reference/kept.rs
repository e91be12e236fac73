//! What the reference client keeps between the calls of a case: the session it opened and the
//! last request id it used. The calls of a case run on one client (docs/adapters.md, "One client
//! per case"): a later call goes on in the session the calls before it left, and a session that
//! expired meanwhile is noticed there, by its 404.

use super::session::Session;
use crate::adapter::ClientRef;
use std::collections::HashMap;
use std::sync::Mutex;

/// The most clients kept between calls at once: the runner takes each back at its case's next
/// call, so this bounds only what a driver of its own that never comes back would leave.
const MAX_KEPT: usize = 1024;

/// One client's state between two calls.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// The session the last call spoke in, if it opened one.
    pub(super) session: Option<Session>,
    /// The last request id used: ids are never reused within a client.
    pub(super) last_id: u64,
    /// The client's token store, in an authorization case: what it refreshed stays.
    pub(super) auth: Option<super::auth::Tokens>,
}

/// The kept state of every client between its calls, by [`ClientRef::id`].
#[derive(Debug, Default)]
pub(super) struct Clients(Mutex<HashMap<u64, Kept>>);

impl Clients {
    /// What client `client` kept from its calls before; nothing for its first call.
    pub(super) fn take(&self, client: &ClientRef) -> Kept {
        match client.call {
            0 => Kept::default(),
            _ => self.lock().remove(&client.id).unwrap_or_default(),
        }
    }

    /// Keeps `kept` for the client's next call; nothing after its last (the client is closed).
    pub(super) fn keep(&self, client: &ClientRef, kept: Kept) {
        let mut clients = self.lock();
        if !client.is_last() && clients.len() < MAX_KEPT {
            clients.insert(client.id, kept);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Kept>> {
        // Plain values: still valid after a panic elsewhere.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

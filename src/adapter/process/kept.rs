//! The processes that hold a case's client between its calls. The calls of a case run on one
//! client object (docs/adapters.md, "One client per case"), which lives in one persistent
//! process: the case's later calls go to that process, never to another.

use super::concurrent::Lease;
use super::persistent::{Single, Worker};
use std::collections::HashMap;
use std::sync::Mutex;

/// The most clients kept between calls at once. The runner keeps one per case in flight and
/// takes it back at the case's next call; a driver of its own that never comes back for a
/// client would otherwise keep its process forever.
pub(super) const MAX_KEPT: usize = 1024;

/// The process that holds each client between its calls, by [`ClientRef::id`]
/// (crate::adapter::ClientRef).
#[derive(Default)]
pub(super) struct Kept(Mutex<HashMap<u64, Holder>>);

enum Holder {
    /// A process that serves one call at a time, out of the pool until the client's next call.
    Single(Single),
    /// A slot in a process that serves calls at once, held between the calls: the process is
    /// not stopped while the client lives (a process that took no new calls since another call
    /// hung is stopped once its last slot goes), and the client's calls go on there.
    /// Taken when a call of the client starts there ([`Kept::remember`]), this slot also keeps
    /// the process for the client when the call gets no answer: the call's own slot is dropped
    /// at its deadline, and the client's next call still goes where the client is, stuck or not.
    Shared(Lease),
}

impl Kept {
    /// Keeps `worker`'s process for client `id`'s next call; gives the worker back when
    /// [`MAX_KEPT`] clients are kept already.
    pub(super) fn keep(&self, id: u64, worker: Worker) -> Option<Worker> {
        let mut kept = self.lock();
        if kept.len() >= MAX_KEPT && !kept.contains_key(&id) {
            return Some(worker);
        }
        let holder = match worker {
            Worker::Single(single) => Holder::Single(single),
            Worker::Shared(lease) => Holder::Shared(lease),
        };
        kept.insert(id, holder);
        None
    }

    /// Remembers the process of `worker`, which is about to serve a call of client `id` that is
    /// not its last: a second slot there, in case the call gets no answer (see
    /// [`Holder::Shared`]). A process with no free slot is not remembered.
    pub(super) fn remember(&self, id: u64, worker: &Worker) {
        let Worker::Shared(lease) = worker else {
            return;
        };
        let mut kept = self.lock();
        if kept.len() < MAX_KEPT {
            if let Ok(slot) = lease.process().lease_kept() {
                kept.insert(id, Holder::Shared(slot));
            }
        }
    }

    /// Forgets client `id`: no next call comes (the case ended at an unsupported call).
    pub(super) fn forget(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// The worker for client `id`'s next call, on the process that served its last; `Err` says
    /// why there is none (it was never kept, the process ended or takes no calls).
    pub(super) fn take(&self, id: u64) -> Result<Worker, String> {
        let holder = self.lock().remove(&id);
        match holder {
            None => Err("no process holds it (its last call ended without an answer)".into()),
            Some(Holder::Single(single)) => single.check_idle().map(Worker::Single),
            Some(Holder::Shared(lease)) => match lease.ended() {
                Some(why) => Err(format!("its process {why}")),
                None => Ok(Worker::Shared(lease)),
            },
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Holder>> {
        // A map of processes is still valid after a panic elsewhere.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

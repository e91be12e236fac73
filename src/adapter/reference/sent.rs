//! Whether a request left the client: what `attempts` counts.
//!
//! A request whose connection was never set up (refused, or the deadline passed while the
//! kernel was still waiting for the server to take it, as when thousands of clients start at
//! once) did not reach the server, and the client must not count it. reqwest does not say how
//! far a request got, so the client's connector is wrapped ([`NoteConnections`]): a connection
//! that comes up marks the request it is for, found through a task-local that [`noting`] sets
//! around the request. With no idle pool (see `build_client`) every request opens its own
//! connection inside the task that sends it, and hyper writes the request as soon as it is up.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

tokio::task_local! {
    /// Set while one request is sent: whether a connection for it came up.
    static CONNECTED: Arc<AtomicBool>;
}

/// Runs `request` (one request's send and read) and says whether a connection for it was set
/// up, that is whether the request went out.
pub(super) async fn noting<F: Future>(request: F) -> (F::Output, bool) {
    let connected = Arc::new(AtomicBool::new(false));
    let output = CONNECTED.scope(Arc::clone(&connected), request).await;
    (output, connected.load(Ordering::SeqCst))
}

/// The connector layer that tells [`noting`] when a connection comes up.
#[derive(Debug, Clone, Copy)]
pub(super) struct NoteConnections;

impl<S> tower_layer::Layer<S> for NoteConnections {
    type Service = Noted<S>;

    fn layer(&self, inner: S) -> Noted<S> {
        Noted(inner)
    }
}

/// A connector that marks the current request's flag when its connection is up.
#[derive(Debug, Clone)]
pub(super) struct Noted<S>(S);

impl<S, R> tower_service::Service<R> for Noted<S>
where
    S: tower_service::Service<R>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, destination: R) -> Self::Future {
        // Called from the task that sends the request, inside its `noting` scope.
        let flag = CONNECTED.try_with(Arc::clone).ok();
        let connecting = self.0.call(destination);
        Box::pin(async move {
            let connection = connecting.await;
            if let (Ok(_), Some(flag)) = (&connection, flag) {
                flag.store(true, Ordering::SeqCst);
            }
            connection
        })
    }
}

//! The requests to the upstream run on a runtime of their own (one thread, [`Upstream`]): the
//! upstream's connections are driven there, and the moment its answer's head is read is noted
//! there. The proxy's own runtime, busy with many clients' bodies, then adds nothing to a
//! recorded wait (`delay_ms`): a server that answers at once is recorded as one, however long
//! the proxy takes to get to the answer.

use super::UPSTREAM_HEAD_TIMEOUT;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The upstream's runtime, on its thread until the recorder stops.
#[derive(Debug)]
pub(super) struct Upstream {
    handle: tokio::runtime::Handle,
}

impl Upstream {
    /// Starts the runtime on a thread of its own, which ends once `stopped` says stop.
    pub(super) fn start(
        mut stopped: watch::Receiver<bool>,
    ) -> std::io::Result<(Upstream, std::thread::JoinHandle<()>)> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        let thread = std::thread::Builder::new()
            .name("record-upstream".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let _ = stopped.wait_for(|stop| *stop).await;
                });
            })?;
        Ok((Upstream { handle }, thread))
    }

    /// Sends `request` on the upstream's runtime; the answer's head, and when it was read.
    pub(super) fn send(&self, request: reqwest::RequestBuilder) -> Sending {
        Sending(self.handle.spawn(async move {
            match tokio::time::timeout(UPSTREAM_HEAD_TIMEOUT, request.send()).await {
                Ok(Ok(response)) => Ok(Answered {
                    response,
                    at: Instant::now(),
                }),
                Ok(Err(e)) => Err(format!("upstream failed: {e}")),
                Err(_) => Err(format!(
                    "upstream sent no status line within {} s",
                    UPSTREAM_HEAD_TIMEOUT.as_secs()
                )),
            }
        }))
    }
}

/// The upstream's answer head.
#[derive(Debug)]
pub(super) struct Answered {
    /// The answer; its body is read from any runtime.
    pub(super) response: reqwest::Response,
    /// When the upstream's runtime had the head.
    pub(super) at: Instant,
}

/// A request on its way; dropping it drops the request (and so its upstream connection).
#[derive(Debug)]
pub(super) struct Sending(JoinHandle<Result<Answered, String>>);

impl Future for Sending {
    type Output = Result<Answered, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx).map(|joined| {
            joined.unwrap_or_else(|_| Err("upstream failed: the recorder is stopping".to_owned()))
        })
    }
}

impl Drop for Sending {
    fn drop(&mut self) {
        self.0.abort();
    }
}

//! The requests to the upstream run on a runtime of their own (one thread, [`Upstream`]): the
//! upstream's connections are driven there, its answers read there, and the moment its
//! answer's head (and each piece of its body) is read is noted there. The proxy's own runtime, busy with many clients' bodies, then adds nothing to a
//! recorded wait (`delay_ms`): a server that answers at once is recorded as one, however long
//! the proxy takes to get to the answer.

use super::UPSTREAM_HEAD_TIMEOUT;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

/// The upstream's runtime, on its thread until the recorder stops.
#[derive(Debug)]
pub(super) struct Upstream {
    handle: tokio::runtime::Handle,
}

impl Upstream {
    /// Starts the runtime on a thread of its own, which ends once `stopped` says stop or its
    /// sender is dropped.
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

    /// Sends `request` on the upstream's runtime; its answer's head, when it was read, and
    /// the body's pieces as they come, each with when it was read. The body is read there too,
    /// so that its end is seen there as soon as it comes, not when the proxy next asks.
    pub(super) fn send(&self, request: reqwest::RequestBuilder) -> Sending {
        let (head, answered) = oneshot::channel();
        let task = self.handle.spawn(async move {
            let sent = tokio::time::timeout(UPSTREAM_HEAD_TIMEOUT, request.send()).await;
            let mut response = match sent {
                Ok(Ok(response)) => response,
                Ok(Err(e)) => {
                    let _ = head.send(Err(format!("upstream failed: {e}")));
                    return;
                }
                Err(_) => {
                    let _ = head.send(Err(format!(
                        "upstream sent no status line within {} s",
                        UPSTREAM_HEAD_TIMEOUT.as_secs()
                    )));
                    return;
                }
            };
            let at = Instant::now();
            let (pieces, taken) = mpsc::channel(PIECES);
            let status = response.status();
            let headers = std::mem::take(response.headers_mut());
            let answered = Answered {
                status,
                headers,
                at,
                pieces: taken,
            };
            if head.send(Ok(answered)).is_err() {
                return;
            }
            loop {
                let piece = tokio::select! {
                    chunk = response.chunk() => match chunk {
                        Ok(Some(chunk)) => Piece::Chunk(chunk, Instant::now()),
                        Ok(None) => Piece::End,
                        Err(_) => Piece::Cut,
                    },
                    // The proxy let go (its client left): drop the upstream connection.
                    () = pieces.closed() => return,
                };
                let last = !matches!(piece, Piece::Chunk(..));
                if pieces.send(piece).await.is_err() || last {
                    return;
                }
            }
        });
        Sending {
            head: answered,
            task: Some(Aborting(task)),
        }
    }
}

/// How many pieces of a body wait for the proxy at most: the upstream is read no further
/// ahead (its own back-pressure).
const PIECES: usize = 8;

/// The upstream's answer head, and its body to come.
#[derive(Debug)]
pub(super) struct Answered {
    /// The status.
    pub(super) status: reqwest::StatusCode,
    /// The headers.
    pub(super) headers: reqwest::header::HeaderMap,
    /// When the upstream's runtime had the head.
    pub(super) at: Instant,
    /// The body's pieces, in order, the last an `End` or a `Cut`.
    pub(super) pieces: mpsc::Receiver<Piece>,
}

/// A piece of an answer's body.
#[derive(Debug)]
pub(super) enum Piece {
    /// Bytes, and when the upstream's runtime read them.
    Chunk(bytes::Bytes, Instant),
    /// The body ended properly.
    End,
    /// The upstream closed or broke the connection before the body's end.
    Cut,
}

/// A request on its way; dropping it (or, once it resolved, the [`Body`] it gave) drops the
/// request and so its upstream connection.
#[derive(Debug)]
pub(super) struct Sending {
    head: oneshot::Receiver<Result<Answered, String>>,
    task: Option<Aborting>,
}

/// The upstream task, aborted when dropped.
#[derive(Debug)]
pub(super) struct Aborting(JoinHandle<()>);

impl Drop for Aborting {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// An answer being read: its head and pieces, and the task that reads them (aborted with it).
#[derive(Debug)]
pub(super) struct Body {
    /// The head and the pieces.
    pub(super) answered: Answered,
    /// The task reading it.
    pub(super) task: Aborting,
}

impl Future for Sending {
    type Output = Result<Body, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Poll::Ready(head) = Pin::new(&mut self.head).poll(cx) else {
            return Poll::Pending;
        };
        let stopping = || "upstream failed: the recorder is stopping".to_owned();
        let answered = head.unwrap_or_else(|_| Err(stopping()));
        Poll::Ready(match (answered, self.task.take()) {
            (Ok(answered), Some(task)) => Ok(Body { answered, task }),
            (Ok(_), None) => Err(stopping()),
            (Err(why), _) => Err(why),
        })
    }
}

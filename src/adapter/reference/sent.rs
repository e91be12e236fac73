//! Whether a request went out: what `attempts` counts.
//!
//! A request whose connection never came up (refused, or the deadline passed while the kernel
//! was still waiting for the server to take it, as when thousands of clients start at once), or
//! whose call was given up between the connection and the write, did not reach the server, and
//! the client must not count it. reqwest does not say how far a request got, so the body of a
//! counted request is one that notes when the HTTP connection takes it to write ([`body`]):
//! hyper pulls the body while it writes the request head and flushes both together.

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

/// Tells whether the request with the paired body went out.
#[derive(Debug, Clone)]
pub(super) struct Sent(Arc<AtomicBool>);

impl Sent {
    /// Whether the connection took the body to write.
    pub(super) fn went_out(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A request body of `text`, and what tells whether it went out. On the wire it is the same as
/// a plain body: its exact length gives the request its `Content-Length`.
pub(super) fn body(text: String) -> (reqwest::Body, Sent) {
    let sent = Sent(Arc::new(AtomicBool::new(false)));
    let bytes = Bytes::from(text);
    let noting = Noting {
        len: bytes.len() as u64,
        bytes: Some(bytes),
        sent: sent.clone(),
    };
    (reqwest::Body::wrap(noting), sent)
}

/// The body: one frame, marked as sent when it is taken.
struct Noting {
    len: u64,
    bytes: Option<Bytes>,
    sent: Sent,
}

impl http_body::Body for Noting {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        Poll::Ready(this.bytes.take().map(|bytes| {
            this.sent.0.store(true, Ordering::SeqCst);
            Ok(Frame::data(bytes))
        }))
    }

    fn is_end_stream(&self) -> bool {
        self.bytes.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body::Body as _;

    #[tokio::test]
    async fn the_body_is_its_text_of_exact_length_and_is_sent_once_taken() {
        let (mut body, sent) = body("{\"a\":1}".into());
        assert_eq!(body.size_hint().exact(), Some(7));
        assert!(!sent.went_out());
        let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
        let data = frame.and_then(|f| f.ok()).and_then(|f| f.into_data().ok());
        assert_eq!(data.as_deref(), Some(&b"{\"a\":1}"[..]));
        assert!(sent.went_out());
    }
}

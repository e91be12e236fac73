//! The request body the proxy sends upstream, in pieces, noting when the HTTP connection took
//! the last one to write: a recorded wait is measured from then to the answer's head, so that
//! the proxy's own upload of a large body (and its turn among busy connections) is not counted
//! as the server's time.

use bytes::Bytes;
use http_body::{Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

/// The size of one piece: hyper asks for the next only once it has room to write it.
const PIECE: usize = 64 * 1024;

/// When the last piece was taken; `None` until then.
#[derive(Debug, Clone, Default)]
pub(super) struct Uploaded(Arc<Mutex<Option<Instant>>>);

impl Uploaded {
    /// Whether the body was all taken to be written.
    #[cfg(test)]
    pub(super) fn done(&self) -> bool {
        self.0.lock().is_ok_and(|at| at.is_some())
    }

    /// When the body was all taken to be written, or `fallback` if it never was.
    pub(super) fn at_or(&self, fallback: Instant) -> Instant {
        self.0.lock().ok().and_then(|at| *at).unwrap_or(fallback)
    }
}

/// `bytes` as a request body of exact length, and what tells when it was all taken.
pub(super) fn body(bytes: Bytes) -> (reqwest::Body, Uploaded) {
    let uploaded = Uploaded::default();
    let pieces = Pieces {
        len: bytes.len() as u64,
        rest: bytes,
        uploaded: uploaded.clone(),
    };
    (reqwest::Body::wrap(pieces), uploaded)
}

struct Pieces {
    len: u64,
    rest: Bytes,
    uploaded: Uploaded,
}

impl http_body::Body for Pieces {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.rest.is_empty() {
            return Poll::Ready(None);
        }
        let piece = this.rest.split_to(PIECE.min(this.rest.len()));
        if this.rest.is_empty()
            && let Ok(mut at) = this.uploaded.0.lock()
        {
            *at = Some(Instant::now());
        }
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty()
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
    async fn the_body_goes_in_pieces_and_notes_when_the_last_was_taken() {
        let text = vec![b'x'; PIECE + 3];
        let (mut body, uploaded) = body(Bytes::from(text.clone()));
        assert_eq!(body.size_hint().exact(), Some(text.len() as u64));
        let never = Instant::now();
        let first = next(&mut body).await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(first.len(), PIECE);
        assert_eq!(uploaded.at_or(never), never, "not all taken yet");
        let last = next(&mut body).await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(last.len(), 3);
        assert!(uploaded.at_or(never) > never);
        assert!(next(&mut body).await.is_none());
    }

    async fn next(body: &mut reqwest::Body) -> Option<Result<Frame<Bytes>, reqwest::Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx)).await
    }
}

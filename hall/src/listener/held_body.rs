//! A response body that holds something (a stream permit, the mark of a connection busy
//! answering) until the body is done with: sent whole, or dropped because the client went
//! away.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use http_body::{Frame, SizeHint};

/// `body`, holding `held` until it is dropped.
pub(crate) struct HeldBody<H> {
    body: Body,
    _held: H,
}

impl<H: Send + Unpin + 'static> HeldBody<H> {
    /// Wraps `body` into a [`Body`] that drops `held` with it.
    pub(crate) fn wrap(body: Body, held: H) -> Body {
        Body::new(HeldBody { body, _held: held })
    }
}

impl<H: Unpin> HttpBody for HeldBody<H> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

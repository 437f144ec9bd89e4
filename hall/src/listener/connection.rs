//! One accepted connection: whether the hall is waiting on it (its TLS handshake, its first
//! request, the next on a kept-alive connection, a request's body still coming) or
//! answering it, counted per address in the [`WaitingRoom`] while it is waited on, and the
//! socket (plain or TLS) that closes itself when it makes the hall wait too long, when the
//! room needs its place, or when its answer cannot be written for too long.
//!
//! The hall serves HTTP/1.1 only (TLS offers `http/1.1`, axum is built without HTTP/2):
//! one request at a time on a connection.

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use http_body::{Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};
use tokio_rustls::server::TlsStream;

use crate::limits::waiting_room::{AddressFull, WaitingRoom};
use crate::limits::Timeouts;

/// The connections waited on, shared by the listener and its connections.
pub(crate) type Room = Arc<Mutex<WaitingRoom<Arc<Closer>>>>;

pub(crate) fn lock(room: &Room) -> MutexGuard<'_, WaitingRoom<Arc<Closer>>> {
    room.lock().unwrap_or_else(|p| p.into_inner())
}

/// Ids of connections, for the waiting room.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Closes a connection from outside: the waiting room needs its place.
#[derive(Default)]
pub(crate) struct Closer {
    closed: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Closer {
    /// Marks the connection closed and wakes whoever reads it.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        self.wake();
    }

    /// Wakes whoever reads the connection, to look at its deadline again (the server
    /// may have asked for the body's bytes before the request began, under the deadline
    /// of an idle connection).
    fn wake(&self) {
        let waker = self.waker.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Ready once [`Closer::close`] was called; wakes `cx` then.
    pub(crate) fn poll_closed(&self, cx: &mut Context<'_>) -> Poll<()> {
        {
            let mut waker = self.waker.lock().unwrap_or_else(|p| p.into_inner());
            if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                *waker = Some(cx.waker().clone());
            }
        }
        if self.closed.load(Ordering::SeqCst) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }
}

/// What a connection is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request, since then; in the waiting room.
    Idle { since: Instant, first: bool },
    /// A request's head has come, its body not all yet (since then, this many bytes read
    /// on the connection); in the waiting room.
    Receiving { since: Instant, bytes: u64 },
    /// Answering (this many requests: one, over HTTP/1.1); out of the waiting room.
    Answering(usize),
}

/// A connection's phase, shared by its socket ([`Conn`]) and its requests.
pub(crate) struct ConnState {
    id: u64,
    ip: IpAddr,
    room: Room,
    closer: Arc<Closer>,
    timeouts: Timeouts,
    phase: Mutex<Phase>,
}

impl ConnState {
    /// A connection of `ip` accepted at `at`, let into `room` if its address has room; with
    /// the connection closed to make room for it, if one was.
    pub(crate) fn accepted(
        ip: IpAddr,
        room: Room,
        timeouts: Timeouts,
        at: Instant,
    ) -> Result<(Arc<ConnState>, Option<Arc<Closer>>), AddressFull> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let closer = Arc::new(Closer::default());
        let made_room = lock(&room).enter(ip, id, closer.clone())?;
        if let Some(other) = &made_room {
            other.close();
        }
        let state = Arc::new(ConnState {
            id,
            ip,
            room,
            closer,
            timeouts,
            phase: Mutex::new(Phase::Idle {
                since: at,
                first: true,
            }),
        });
        Ok((state, made_room))
    }

    fn phase(&self) -> MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What closes this connection from outside (its TLS handshake watches it too).
    pub(crate) fn closer(&self) -> &Arc<Closer> {
        &self.closer
    }

    /// A request has come (`body_done`: with nothing more to read): answering, or still
    /// waited on until its body is read ([`ConnState::body_read`]); the [`Busy`] is
    /// dropped with the answer's body.
    pub(crate) fn begin(this: &Arc<ConnState>, body_done: bool) -> Busy {
        let mut phase = this.phase();
        *phase = match *phase {
            Phase::Idle { .. } if !body_done => {
                lock(&this.room).renew(this.ip, this.id);
                this.closer.wake();
                Phase::Receiving {
                    since: Instant::now(),
                    bytes: 0,
                }
            }
            Phase::Idle { .. } | Phase::Receiving { .. } => {
                lock(&this.room).leave(this.ip, this.id);
                Phase::Answering(1)
            }
            Phase::Answering(n) => Phase::Answering(n + 1),
        };
        Busy {
            state: this.clone(),
        }
    }

    /// The request's body is read (or will not be): answering, out of the waiting room.
    fn body_read(&self) {
        let mut phase = self.phase();
        if let Phase::Receiving { .. } = *phase {
            lock(&self.room).leave(self.ip, self.id);
            *phase = Phase::Answering(1);
        }
    }

    /// When the connection is to be closed if it goes on making the hall wait (`None`
    /// while answering).
    fn deadline(&self) -> Option<Instant> {
        let t = &self.timeouts;
        match *self.phase() {
            Phase::Idle { since, first: true } => Some(since + t.first_request),
            Phase::Idle { since, .. } => Some(since + t.between_requests),
            Phase::Receiving { since, bytes } => {
                let earned = Duration::from_secs_f64(bytes as f64 / t.body_rate.max(1) as f64);
                Some(since + (t.body_grace + earned).min(t.body))
            }
            Phase::Answering(_) => None,
        }
    }

    /// `n` bytes were read on the connection.
    fn read(&self, n: usize) {
        if let Phase::Receiving { bytes, .. } = &mut *self.phase() {
            *bytes += n as u64;
        }
    }
}

impl Drop for ConnState {
    fn drop(&mut self) {
        lock(&self.room).leave(self.ip, self.id);
    }
}

/// A request being answered on a connection; dropped with its answer's body.
pub(crate) struct Busy {
    state: Arc<ConnState>,
}

impl Busy {
    /// Whether the connection may stay open for another request once this one is
    /// answered: its address has room for one more idle connection. The total is not
    /// asked: a connection already open (an arbiter's) stays usable while strangers fill
    /// the hall's idle room, and those coming back are few (they were being answered).
    pub(crate) fn may_stay_open(&self) -> bool {
        lock(&self.state.room).address_has_room(self.state.ip)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let state = &self.state;
        let mut phase = state.phase();
        *phase = match *phase {
            Phase::Answering(n) if n > 1 => Phase::Answering(n - 1),
            _ => {
                // Counted whatever the caps: the answer said `Connection: close` if there
                // was no room, and the connection is closed by its deadline anyway.
                if !state.closer.is_closed() {
                    lock(&state.room).come_back(state.ip, state.id, state.closer.clone());
                }
                Phase::Idle {
                    since: Instant::now(),
                    first: false,
                }
            }
        };
    }
}

/// A request's body that tells its connection when it is read: the connection is waited on
/// (counted, and timed by [`Timeouts::body`] and [`Timeouts::body_rate`]) until then.
pub(crate) struct ReceivedBody {
    body: Body,
    state: Arc<ConnState>,
}

impl ReceivedBody {
    /// `body` of a request on the connection of `state`.
    pub(crate) fn wrap(body: Body, state: Arc<ConnState>) -> Body {
        Body::new(ReceivedBody { body, state })
    }
}

impl HttpBody for ReceivedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        match &polled {
            Poll::Ready(None) | Poll::Ready(Some(Err(_))) => this.state.body_read(),
            Poll::Ready(Some(Ok(_))) if this.body.is_end_stream() => this.state.body_read(),
            _ => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

impl Drop for ReceivedBody {
    fn drop(&mut self) {
        // A handler that answered without reading the body: hyper closes the connection
        // after the answer rather than read the rest.
        self.state.body_read();
    }
}

/// The socket under a connection.
pub(crate) enum Socket {
    /// Plain HTTP.
    Plain(TcpStream),
    /// HTTPS, after its handshake.
    Tls(Box<TlsStream<TcpStream>>),
}

/// An accepted connection as the HTTP server reads and writes it: a read while the hall
/// waits on it past its deadline fails (`TimedOut`), as does any read once the waiting
/// room closed it, and a write that makes no progress for [`Timeouts::write`]; the server
/// then closes it.
pub(crate) struct Conn {
    socket: Socket,
    state: Arc<ConnState>,
    timer: Pin<Box<Sleep>>,
    armed: Option<Instant>,
    /// Armed while a write waits on the client.
    write_timer: Option<Pin<Box<Sleep>>>,
}

impl Conn {
    /// `socket` with its `state`.
    pub(crate) fn new(socket: Socket, state: Arc<ConnState>) -> Conn {
        let timer = Box::pin(tokio::time::sleep(state.timeouts.first_request));
        Conn {
            socket,
            state,
            timer,
            armed: None,
            write_timer: None,
        }
    }

    /// Its state, for the requests that come on it.
    pub(crate) fn state(&self) -> &Arc<ConnState> {
        &self.state
    }

    /// `polled` (a write, flush or shutdown), or `TimedOut` once writes have waited on the
    /// client for [`Timeouts::write`].
    fn written<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match polled {
            Poll::Pending => {
                let within = self.state.timeouts.write;
                let timer = self
                    .write_timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(within)));
                if timer.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the client read nothing of the answer in time",
                    )));
                }
                Poll::Pending
            }
            ready => {
                self.write_timer = None;
                ready
            }
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.state.closer.poll_closed(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "closed to make room for another connection",
            )));
        }
        if let Some(deadline) = this.state.deadline() {
            if this.armed != Some(deadline) {
                this.timer.as_mut().reset(deadline);
                this.armed = Some(deadline);
            }
            if this.timer.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no request, or not its body, in time",
                )));
            }
        }
        let before = buf.filled().len();
        let polled = match &mut this.socket {
            Socket::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        };
        if let Poll::Ready(Ok(())) = polled {
            this.state.read(buf.filled().len() - before);
        }
        polled
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = match &mut this.socket {
            Socket::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        };
        this.written(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = match &mut this.socket {
            Socket::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        };
        this.written(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        match &self.socket {
            Socket::Plain(s) => s.is_write_vectored(),
            Socket::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = match &mut this.socket {
            Socket::Plain(s) => Pin::new(s).poll_flush(cx),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        };
        this.written(cx, polled)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let polled = match &mut this.socket {
            Socket::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        };
        this.written(cx, polled)
    }
}

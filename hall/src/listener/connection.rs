//! One accepted connection: whether it is being answered or idle (its TLS handshake,
//! waiting for its first request, kept alive between requests), counted per address while
//! idle, and the socket (plain or TLS) that closes itself when idle too long.

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};
use tokio_rustls::server::TlsStream;

use crate::limits::address_counts::AddressCounts;
use crate::limits::Timeouts;

/// The idle connections of every address, shared by the listener and its connections.
pub(crate) type IdleCounts = Arc<Mutex<AddressCounts>>;

pub(crate) fn lock(counts: &IdleCounts) -> MutexGuard<'_, AddressCounts> {
    counts.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a connection is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Not being answered, since then; counted in the idle counts.
    Idle { since: Instant, first: bool },
    /// Answering this many requests (more than one only over HTTP/2).
    Busy(usize),
}

/// A connection's phase, shared by its socket ([`Conn`]) and its requests.
pub(crate) struct ConnState {
    ip: IpAddr,
    idle: IdleCounts,
    timeouts: Timeouts,
    phase: Mutex<Phase>,
}

impl ConnState {
    /// A connection of `ip` accepted at `at`, already counted idle in `idle`.
    pub(crate) fn accepted(
        ip: IpAddr,
        idle: IdleCounts,
        timeouts: Timeouts,
        at: Instant,
    ) -> Arc<ConnState> {
        Arc::new(ConnState {
            ip,
            idle,
            timeouts,
            phase: Mutex::new(Phase::Idle {
                since: at,
                first: true,
            }),
        })
    }

    fn phase(&self) -> MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request has come: busy (no longer idle) until the [`Busy`] is dropped with the
    /// answer's body.
    pub(crate) fn begin(this: &Arc<ConnState>) -> Busy {
        let mut phase = this.phase();
        *phase = match *phase {
            Phase::Idle { .. } => {
                lock(&this.idle).give_back(this.ip);
                Phase::Busy(1)
            }
            Phase::Busy(n) => Phase::Busy(n + 1),
        };
        Busy {
            state: this.clone(),
        }
    }

    /// When the connection is to be closed if no request comes (`None` while busy).
    fn deadline(&self) -> Option<Instant> {
        match *self.phase() {
            Phase::Idle { since, first: true } => Some(since + self.timeouts.first_request),
            Phase::Idle { since, .. } => Some(since + self.timeouts.between_requests),
            Phase::Busy(_) => None,
        }
    }
}

impl Drop for ConnState {
    fn drop(&mut self) {
        let idle = matches!(
            *self.phase.get_mut().unwrap_or_else(|p| p.into_inner()),
            Phase::Idle { .. }
        );
        if idle {
            lock(&self.idle).give_back(self.ip);
        }
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
        lock(&self.state.idle).address_has_room(self.state.ip)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let state = &self.state;
        let mut phase = state.phase();
        *phase = match *phase {
            Phase::Busy(n) if n > 1 => Phase::Busy(n - 1),
            _ => {
                // Counted whatever the caps: the answer said `Connection: close` if there
                // was no room, and the connection is closed by its deadline anyway.
                lock(&state.idle).count(state.ip);
                Phase::Idle {
                    since: Instant::now(),
                    first: false,
                }
            }
        };
    }
}

/// The socket under a connection.
pub(crate) enum Socket {
    /// Plain HTTP.
    Plain(TcpStream),
    /// HTTPS, after its handshake.
    Tls(Box<TlsStream<TcpStream>>),
}

/// An accepted connection as the HTTP server reads it: a read while it is idle past its
/// deadline fails (`TimedOut`), and the server closes it.
pub(crate) struct Conn {
    socket: Socket,
    state: Arc<ConnState>,
    timer: Pin<Box<Sleep>>,
    armed: Option<Instant>,
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
        }
    }

    /// Its state, for the requests that come on it.
    pub(crate) fn state(&self) -> &Arc<ConnState> {
        &self.state
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if let Some(deadline) = this.state.deadline() {
            if this.armed != Some(deadline) {
                this.timer.as_mut().reset(deadline);
                this.armed = Some(deadline);
            }
            if this.timer.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "no request in time",
                )));
            }
        }
        match &mut this.socket {
            Socket::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().socket {
            Socket::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().socket {
            Socket::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.socket {
            Socket::Plain(s) => s.is_write_vectored(),
            Socket::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().socket {
            Socket::Plain(s) => Pin::new(s).poll_flush(cx),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().socket {
            Socket::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Socket::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

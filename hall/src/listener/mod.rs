//! The hall's listener (plain HTTP or HTTPS) and the service it hands connections to, so
//! that nothing a stranger can reach exhausts the hall (issues 21 and 34):
//!
//! - it accepts at once, always: no client waits behind another's handshake;
//! - a connection the hall is waiting on ("idle": its TLS handshake, waiting for its first
//!   request, kept alive between requests, or a request whose body is still coming)
//!   counts against its address (`[hall] idle_per_address`, default 8) and against all
//!   ([`Limits::max_idle`]); a new one beyond its address's share is closed at once, so an
//!   attacker's sockets cost only themselves; beyond the total, the connection waiting
//!   longest of the address waited on most is closed to make room, so that addresses
//!   holding connections open cannot keep out one that asks and goes;
//! - the TLS handshake has 3 s, the first request 10 s from the accept, the next on a
//!   kept-alive connection 20 s, a request's body 10 s from its head and no slower than
//!   1 KiB/s after its first 2 s, and an answer may wait 15 s on a client that reads
//!   nothing ([`crate::limits::Timeouts`]); then the connection is closed;
//! - the public's requests being answered are capped per address and in all (the
//!   `busy` caps of [`crate::routes::public_caps`]);
//! - an answer given while its address has no room for another idle connection says
//!   `Connection: close`;
//! - a failing `accept` (out of open files) is logged once per episode, retried every
//!   100 ms.
//!
//! Every request gets `ConnectInfo<`[`ClientAddr`]`>` as `into_make_service_with_connect_info`
//! would give it.

mod accept_errors;
mod connection;
pub(crate) mod held_body;

use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::HttpBody;
use axum::extract::connect_info::ConnectInfo;
use axum::extract::Request;
use axum::http::{header, HeaderValue, Version};
use axum::response::Response;
use axum::serve::{IncomingStream, Listener};
use axum::Router;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tower::{Service, ServiceExt};

use crate::limits::refusal_log::RefusalLog;
use crate::limits::waiting_room::WaitingRoom;
use crate::limits::Limits;
use accept_errors::AcceptErrors;
use connection::{Closer, Conn, ConnState, ReceivedBody, Room, Socket};
use held_body::HeldBody;

/// How long the listener waits before accepting again after `accept` failed.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// The client's address, for the login limit and the stream caps, over plain HTTP or HTTPS.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientAddr(pub(crate) SocketAddr);

/// A listener whose connections come out accepted (and, for HTTPS, after their handshake),
/// within the caps on idle connections. Dropping it stops the accepting (and closes the
/// port).
pub(crate) struct HallListener {
    local: SocketAddr,
    ready: mpsc::Receiver<(Conn, SocketAddr)>,
}

impl HallListener {
    /// Accepts on `tcp` (shaking hands with `tls` if given) in a task of its own until the
    /// listener is dropped.
    pub(crate) fn new(
        tcp: TcpListener,
        tls: Option<TlsAcceptor>,
        limits: &Limits,
    ) -> std::io::Result<HallListener> {
        let local = tcp.local_addr()?;
        let (tx, ready) = mpsc::channel(64);
        let room: Room = Arc::new(Mutex::new(WaitingRoom::new(
            limits.idle_per_address,
            limits.max_idle,
        )));
        let limits = *limits;
        tokio::spawn(async move {
            let mut errors = AcceptErrors::default();
            let mut refusals = RefusalLog::default();
            let mut made_room = RefusalLog::default();
            loop {
                let accepted = tokio::select! {
                    _ = tx.closed() => return,
                    a = tcp.accept() => a,
                };
                let now = tokio::time::Instant::now();
                let (stream, peer) = match accepted {
                    Ok(c) => c,
                    Err(e) if is_connection_error(&e) => continue,
                    Err(e) => {
                        if errors.failed(now.into_std()) {
                            let files = limits
                                .open_files
                                .map_or("none".to_string(), |n| n.to_string());
                            tracing::warn!(
                                "hall: cannot accept connections: {e}; retrying every 100 ms \
                                 and saying it once until it passes (open-files limit: {files}; \
                                 docs/operating.md, \"Sizing a hall\")"
                            );
                        }
                        tokio::time::sleep(ACCEPT_RETRY).await;
                        continue;
                    }
                };
                if let Some(passed) = errors.accepted(now.into_std()) {
                    tracing::info!(
                        "hall: accepting connections again, after {} failed over {:.1} s",
                        passed.failures,
                        passed.lasted.as_secs_f64()
                    );
                }
                let ip = peer.ip();
                let state = match ConnState::accepted(ip, room.clone(), limits.timeouts, now) {
                    Ok((state, None)) => state,
                    Ok((state, Some(_))) => {
                        let why = format!(
                            "closed the connection waiting longest, of the address waited on \
                             most, to make room: {} connections are idle",
                            limits.max_idle
                        );
                        if let Some(line) = made_room.refused(now.into_std(), ip, &why) {
                            tracing::warn!("hall: {line}");
                        }
                        state
                    }
                    Err(_) => {
                        drop(stream);
                        let why = format!(
                            "closed a new connection at once: its address already has {} idle \
                             ([hall] idle_per_address)",
                            limits.idle_per_address
                        );
                        if let Some(line) = refusals.refused(now.into_std(), ip, &why) {
                            tracing::warn!("hall: {line}");
                        }
                        continue;
                    }
                };
                let (tls, tx) = (tls.clone(), tx.clone());
                tokio::spawn(async move {
                    let socket = match tls {
                        None => Socket::Plain(stream),
                        Some(acceptor) => {
                            let closer = state.closer();
                            match handshake(&acceptor, stream, ip, closer, &limits).await {
                                Some(s) => s,
                                None => return,
                            }
                        }
                    };
                    let _ = tx.send((Conn::new(socket, state), peer)).await;
                });
            }
        });
        Ok(HallListener { local, ready })
    }
}

/// The TLS handshake with `ip`, within the handshake's timeout, unless the waiting room
/// closes the connection first.
async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    ip: IpAddr,
    closer: &Closer,
    limits: &Limits,
) -> Option<Socket> {
    let within = limits.timeouts.handshake;
    let shaken = tokio::select! {
        shaken = tokio::time::timeout(within, acceptor.accept(stream)) => shaken,
        () = std::future::poll_fn(|cx| closer.poll_closed(cx)) => {
            tracing::debug!("hall https: handshake with {ip}: closed to make room");
            return None;
        }
    };
    match shaken {
        Ok(Ok(tls)) => Some(Socket::Tls(Box::new(tls))),
        Ok(Err(e)) => {
            tracing::debug!("hall https: handshake with {ip}: {e}");
            None
        }
        Err(_) => {
            tracing::debug!("hall https: handshake with {ip}: timed out");
            None
        }
    }
}

/// Errors of one connection, not of the listener: accept the next at once.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    )
}

impl Listener for HallListener {
    type Io = Conn;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(c) => c,
            // The accepting task ends only when this listener is dropped.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.local)
    }
}

/// The hall's router served on a [`HallListener`]: one [`ConnService`] per connection.
#[derive(Clone)]
pub(crate) struct HallService {
    router: Router,
}

impl HallService {
    /// Serves `router`.
    pub(crate) fn new(router: Router) -> HallService {
        HallService { router }
    }
}

impl Service<IncomingStream<'_, HallListener>> for HallService {
    type Response = ConnService;
    type Error = Infallible;
    type Future = std::future::Ready<Result<ConnService, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, stream: IncomingStream<'_, HallListener>) -> Self::Future {
        std::future::ready(Ok(ConnService {
            router: self.router.clone(),
            peer: *stream.remote_addr(),
            state: stream.io().state().clone(),
        }))
    }
}

/// One connection's requests: each keeps the connection waited on until its body is read,
/// then busy until its answer's body is done, and carries the client's address.
#[derive(Clone)]
pub(crate) struct ConnService {
    router: Router,
    peer: SocketAddr,
    state: Arc<ConnState>,
}

impl Service<Request> for ConnService {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let body_done = req.body().is_end_stream();
        let busy = ConnState::begin(&self.state, body_done);
        let mut req = if body_done {
            req
        } else {
            let state = self.state.clone();
            req.map(|body| ReceivedBody::wrap(body, state))
        };
        req.extensions_mut()
            .insert(ConnectInfo(ClientAddr(self.peer)));
        let http1 = req.version() <= Version::HTTP_11;
        let router = self.router.clone();
        Box::pin(async move {
            let Ok(mut response) = router.oneshot(req).await;
            if http1 && !busy.may_stay_open() {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            Ok(response.map(|body| HeldBody::wrap(body, busy)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Timeouts;
    use axum::body::Bytes;
    use axum::routing::{get, post};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// The size of `/big`'s answer.
    const BIG: usize = 64 << 20;

    fn limits(idle_per_address: usize, max_idle: usize, timeouts: Timeouts) -> Limits {
        Limits {
            open_files: Some(1024),
            idle_per_address,
            max_idle,
            busy_per_address: 10,
            max_busy: 10,
            streams_per_address: 10,
            max_streams: 10,
            timeouts,
        }
    }

    fn long() -> Timeouts {
        Timeouts {
            handshake: Duration::from_secs(30),
            first_request: Duration::from_secs(30),
            between_requests: Duration::from_secs(30),
            body: Duration::from_secs(30),
            body_grace: Duration::from_secs(30),
            body_rate: 1,
            write: Duration::from_secs(30),
        }
    }

    /// The real listener and service on plain HTTP, on a port of its own: `/` answers at
    /// once, `/slow` after 300 ms, `/b/events` is a board's event stream (idle), `POST
    /// /echo` answers the length of the body it reads, `/big` is 64 MiB.
    async fn serve(limits: Limits) -> SocketAddr {
        let feed = tengen_net::live_view::LiveFeed::new();
        let router = Router::new()
            .route("/", get(|| async { "ok" }))
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    "slow"
                }),
            )
            .route(
                "/echo",
                post(|body: Bytes| async move { body.len().to_string() }),
            )
            .route("/big", get(|| async { vec![b'x'; BIG] }))
            .nest_service("/b", tengen_net::live_view::router(feed));
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let listener = HallListener::new(tcp, None, &limits).unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, HallService::new(router)).await });
        addr
    }

    async fn connect(from: &str, to: SocketAddr) -> TcpStream {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
        socket.connect(to).await.unwrap()
    }

    /// Whether the server closed `s` within `within` (EOF or reset), reading what comes.
    async fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
        let mut buf = [0u8; 4096];
        let deadline = tokio::time::Instant::now() + within;
        loop {
            match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
                Err(_) => return false,
                Ok(Ok(0)) | Ok(Err(_)) => return true,
                Ok(Ok(_)) => {}
            }
        }
    }

    /// Reads `s`'s answer's head (the body of `/`, `/slow` and `/echo` is short and comes
    /// with it).
    async fn head_of(s: &mut TcpStream) -> String {
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&out).contains("\r\n\r\n") {
            let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
                .await
                .expect("an answer")
                .unwrap();
            assert!(n > 0, "closed before answering");
            out.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&out).to_ascii_lowercase()
    }

    /// Sends a GET on `s` and reads its answer's head.
    async fn get_on(s: &mut TcpStream, path: &str) -> String {
        let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        head_of(s).await
    }

    /// Sends the head of a POST to `/echo` of a body of `length` bytes on `s`.
    async fn post_head(s: &mut TcpStream, length: usize) {
        let req = format!("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: {length}\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
    }

    #[tokio::test]
    async fn idle_connections_beyond_a_share_are_closed_at_once_and_beyond_all_make_room() {
        let addr = serve(limits(3, 5, long())).await;
        let mut mine = Vec::new();
        for _ in 0..3 {
            mine.push(connect("127.0.0.2", addr).await);
        }
        let mut fourth = connect("127.0.0.2", addr).await;
        assert!(closed_within(&mut fourth, Duration::from_secs(2)).await);
        for s in &mut mine {
            assert!(!closed_within(s, Duration::from_millis(100)).await);
        }
        // Another address has room until all hold the total.
        let mut other = [
            connect("127.0.0.3", addr).await,
            connect("127.0.0.3", addr).await,
        ];
        // Beyond the total, a newcomer is let in and served, and the connection waiting
        // longest of the address waited on most (127.0.0.2, three) is closed instead.
        let mut newcomer = connect("127.0.0.4", addr).await;
        assert!(get_on(&mut newcomer, "/").await.starts_with("http/1.1 200"));
        assert!(closed_within(&mut mine[0], Duration::from_secs(2)).await);
        for s in mine[1..].iter_mut().chain(other.iter_mut()) {
            assert!(!closed_within(s, Duration::from_millis(100)).await);
        }
        // The connections kept are served.
        assert!(get_on(&mut mine[1], "/").await.starts_with("http/1.1 200"));
        assert!(get_on(&mut other[0], "/").await.starts_with("http/1.1 200"));
    }

    #[tokio::test]
    async fn a_silent_or_idle_connection_is_closed_after_its_time_and_a_stream_is_not() {
        let quick = Timeouts {
            handshake: Duration::from_millis(300),
            first_request: Duration::from_millis(300),
            between_requests: Duration::from_millis(300),
            ..long()
        };
        let addr = serve(limits(8, 64, quick)).await;
        let started = tokio::time::Instant::now();
        let mut silent = connect("127.0.0.5", addr).await;
        let mut asking = connect("127.0.0.5", addr).await;
        let mut viewer = connect("127.0.0.5", addr).await;
        let head = get_on(&mut viewer, "/b/events").await;
        assert!(head.contains("text/event-stream"), "{head}");
        assert!(get_on(&mut asking, "/").await.starts_with("http/1.1 200"));
        assert!(closed_within(&mut silent, Duration::from_secs(3)).await);
        assert!(started.elapsed() >= Duration::from_millis(250));
        assert!(closed_within(&mut asking, Duration::from_secs(3)).await);
        // The stream is being answered: it stays however long nothing is sent.
        assert!(!closed_within(&mut viewer, Duration::from_millis(800)).await);
    }

    #[tokio::test]
    async fn an_answer_says_connection_close_when_its_address_has_no_room_left() {
        let addr = serve(limits(2, 64, long())).await;
        let mut a = connect("127.0.0.6", addr).await;
        let head = get_on(&mut a, "/").await;
        assert!(!head.contains("connection: close"), "{head}");
        // a idle again; b asks for something slow, and c comes in meanwhile: once b is
        // answered, the address would hold three idle connections.
        let mut b = connect("127.0.0.6", addr).await;
        let slow = tokio::spawn(async move {
            let head = get_on(&mut b, "/slow").await;
            (head, closed_within(&mut b, Duration::from_secs(2)).await)
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _c = connect("127.0.0.6", addr).await;
        let (head, closed) = slow.await.unwrap();
        assert!(head.contains("connection: close"), "{head}");
        assert!(closed);
    }

    /// Bodies: 2 s at most, judged against 1,000 B/s after their first 400 ms.
    fn bodies() -> Timeouts {
        Timeouts {
            body: Duration::from_secs(2),
            body_grace: Duration::from_millis(400),
            body_rate: 1000,
            ..long()
        }
    }

    #[tokio::test]
    async fn a_body_that_does_not_come_keeps_its_connection_counted_until_its_deadline() {
        let addr = serve(limits(2, 64, bodies())).await;
        let started = tokio::time::Instant::now();
        // The head of a POST, and not a byte of its body: still waited on.
        let mut waiting = connect("127.0.0.7", addr).await;
        post_head(&mut waiting, 100_000).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let _idle = connect("127.0.0.7", addr).await;
        let mut third = connect("127.0.0.7", addr).await;
        assert!(
            closed_within(&mut third, Duration::from_millis(300)).await,
            "the address's share holds the connection whose body has not come"
        );
        // Closed after its grace (nothing came), long before the body's whole deadline.
        assert!(closed_within(&mut waiting, Duration::from_secs(3)).await);
        let took = started.elapsed();
        assert!(
            took >= Duration::from_millis(350) && took < Duration::from_millis(1500),
            "{took:?}"
        );
        // Its place is free again.
        let mut next = connect("127.0.0.7", addr).await;
        assert!(get_on(&mut next, "/").await.starts_with("http/1.1 200"));
    }

    #[tokio::test]
    async fn a_body_slower_than_the_rate_is_cut_and_one_at_the_rate_is_read() {
        let addr = serve(limits(8, 64, bodies())).await;
        // 3,000 bytes at 3,000 B/s: read whole, and answered.
        let mut steady = connect("127.0.0.8", addr).await;
        post_head(&mut steady, 3000).await;
        for _ in 0..10 {
            steady.write_all(&[b'a'; 300]).await.unwrap();
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let head = head_of(&mut steady).await;
        assert!(
            head.starts_with("http/1.1 200") && head.ends_with("3000"),
            "{head}"
        );
        // 20 bytes every 100 ms (200 B/s): cut once it is behind, within about a second,
        // long before it could be whole (1,500 bytes, 7.5 s).
        let mut trickle = connect("127.0.0.8", addr).await;
        post_head(&mut trickle, 1500).await;
        let started = tokio::time::Instant::now();
        let mut cut = false;
        for _ in 0..75 {
            if trickle.write_all(&[b'a'; 20]).await.is_err() {
                cut = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            if started.elapsed() > Duration::from_millis(1200) {
                break;
            }
        }
        assert!(
            cut || closed_within(&mut trickle, Duration::from_millis(500)).await,
            "a body at 200 B/s is still being read after {:?}",
            started.elapsed()
        );
        // A body that comes just at the rate for longer than the deadline is cut there.
        let mut long_body = connect("127.0.0.8", addr).await;
        post_head(&mut long_body, 100_000).await;
        let started = tokio::time::Instant::now();
        let mut closed = false;
        while started.elapsed() < Duration::from_secs(4) {
            if long_body.write_all(&[b'a'; 400]).await.is_err() {
                closed = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(
            closed || closed_within(&mut long_body, Duration::from_millis(500)).await,
            "a body at 4,000 B/s is still being read after 4 s (deadline 2 s)"
        );
    }

    #[tokio::test]
    async fn an_answer_the_client_does_not_read_is_given_up_after_the_write_timeout() {
        let quick_writes = Timeouts {
            write: Duration::from_millis(500),
            ..long()
        };
        let addr = serve(limits(8, 64, quick_writes)).await;
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        socket.bind("127.0.0.9:0".parse().unwrap()).unwrap();
        let mut s = socket.connect(addr).await.unwrap();
        s.write_all(b"GET /big HTTP/1.1\r\nHost: test\r\n\r\n")
            .await
            .unwrap();
        // Read nothing while the server's writes wait, then all there is.
        tokio::time::sleep(Duration::from_millis(2000)).await;
        let mut got = 0usize;
        let mut buf = vec![0u8; 1 << 16];
        let ended = loop {
            match tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf)).await {
                Err(_) => break false,
                Ok(Ok(0)) | Ok(Err(_)) => break true,
                Ok(Ok(n)) => got += n,
            }
        };
        assert!(ended, "the connection is still open after {got} bytes");
        assert!(got < BIG / 2, "the whole answer came ({got} bytes)");
    }
}

//! The hall's listener (plain HTTP or HTTPS) and the service it hands connections to, so
//! that nothing a stranger can reach exhausts the hall (issue 21):
//!
//! - it accepts at once, always: no client waits behind another's handshake;
//! - a connection that is not being answered ("idle": its TLS handshake, waiting for its
//!   first request, kept alive between requests) counts against its address
//!   (`[hall] idle_per_address`, default 8) and against all ([`Limits::max_idle`]); a new
//!   one beyond either is closed at once, so an attacker's sockets cost only themselves;
//! - the TLS handshake has 3 s, the first request 10 s from the accept, the next on a
//!   kept-alive connection 20 s ([`crate::limits::Timeouts`]); then it is closed;
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

use crate::limits::address_counts::{AddressCounts, Over};
use crate::limits::refusal_log::RefusalLog;
use crate::limits::Limits;
use accept_errors::AcceptErrors;
use connection::{lock, Conn, ConnState, IdleCounts, Socket};
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
        let idle: IdleCounts = Arc::new(Mutex::new(AddressCounts::new(
            limits.idle_per_address,
            limits.max_idle,
        )));
        let limits = *limits;
        tokio::spawn(async move {
            let mut errors = AcceptErrors::default();
            let mut refusals = RefusalLog::default();
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
                if let Err(over) = lock(&idle).take(ip) {
                    drop(stream);
                    let why = refusal(over, &limits);
                    if let Some(line) = refusals.refused(now.into_std(), ip, &why) {
                        tracing::warn!("hall: {line}");
                    }
                    continue;
                }
                let state = ConnState::accepted(ip, idle.clone(), limits.timeouts, now);
                let (tls, tx) = (tls.clone(), tx.clone());
                tokio::spawn(async move {
                    let socket = match tls {
                        None => Socket::Plain(stream),
                        Some(acceptor) => match handshake(&acceptor, stream, ip, &limits).await {
                            Some(s) => s,
                            None => return,
                        },
                    };
                    let _ = tx.send((Conn::new(socket, state), peer)).await;
                });
            }
        });
        Ok(HallListener { local, ready })
    }
}

/// The TLS handshake with `ip`, within the handshake's timeout.
async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    ip: IpAddr,
    limits: &Limits,
) -> Option<Socket> {
    let within = limits.timeouts.handshake;
    match tokio::time::timeout(within, acceptor.accept(stream)).await {
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

/// Why a new connection was closed at once.
fn refusal(over: Over, limits: &Limits) -> String {
    match over {
        Over::Address => format!(
            "closed a new connection at once: its address already has {} idle \
             ([hall] idle_per_address)",
            limits.idle_per_address
        ),
        Over::Total => format!(
            "closed a new connection at once: {} connections are idle already",
            limits.max_idle
        ),
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

/// One connection's requests: each marks the connection busy until its answer's body is
/// done, and carries the client's address.
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

    fn call(&mut self, mut req: Request) -> Self::Future {
        let busy = ConnState::begin(&self.state);
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
    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn limits(idle_per_address: usize, max_idle: usize, timeouts: Timeouts) -> Limits {
        Limits {
            open_files: Some(1024),
            idle_per_address,
            max_idle,
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
        }
    }

    /// The real listener and service on plain HTTP, on a port of its own: `/` answers at
    /// once, `/slow` after 300 ms, `/b/events` is a board's event stream (idle).
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

    /// Sends a GET on `s` and reads its answer's head (the body of `/` and `/slow` is short
    /// and comes with it).
    async fn get_on(s: &mut TcpStream, path: &str) -> String {
        let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
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

    #[tokio::test]
    async fn idle_connections_beyond_a_share_are_closed_at_once_and_the_rest_are_served() {
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
        let mut other = vec![
            connect("127.0.0.3", addr).await,
            connect("127.0.0.3", addr).await,
        ];
        let mut beyond = connect("127.0.0.4", addr).await;
        assert!(closed_within(&mut beyond, Duration::from_secs(2)).await);
        // The connections kept are served, and one leaving makes room.
        assert!(get_on(&mut mine[0], "/").await.starts_with("http/1.1 200"));
        drop(other.pop());
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut next = connect("127.0.0.4", addr).await;
        assert!(get_on(&mut next, "/").await.starts_with("http/1.1 200"));
    }

    #[tokio::test]
    async fn a_silent_or_idle_connection_is_closed_after_its_time_and_a_stream_is_not() {
        let quick = Timeouts {
            handshake: Duration::from_millis(300),
            first_request: Duration::from_millis(300),
            between_requests: Duration::from_millis(300),
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
}

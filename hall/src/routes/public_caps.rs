//! The caps on what the public holds of the hall while it is answered (issues 21 and 34).
//!
//! - Event streams: each open live page holds a stream, and each stream an open file, for as
//!   long as the page is open. Beyond `[hall] streams_per_address` from one address, or
//!   `max_streams` in all, a public stream gets `503 Service Unavailable` with `Retry-After`.
//!   The streams: `/board/{t}/{b}/events`, `/board/{t}/{b}/clock/events` and `/clock/events`.
//! - Every other request being answered ("busy": from its head until its answer's body is
//!   written or dropped): beyond `[hall] busy_per_address` from one address, or
//!   [`Limits::max_busy`] in all, it gets `503` with `Retry-After` at once. With the
//!   listener's write timeout this bounds what readers that never read can hold.
//!
//! Arbiters and commentators (a valid login cookie) are neither counted nor refused: the
//! console keeps its room whatever the public does. Every refusal says `Connection: close`.

use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::limits::address_counts::{AddressCounts, Over};
use crate::limits::refusal_log::RefusalLog;
use crate::limits::Limits;
use crate::listener::held_body::HeldBody;
use crate::listener::ClientAddr;
use crate::routes::console_gate::commentator;
use crate::routes::App;

/// Seconds a refused viewer is asked to wait.
const RETRY_AFTER_S: u64 = 30;
/// Seconds a refused request is asked to wait.
const BUSY_RETRY_AFTER_S: u64 = 5;

/// One kind of capped holding (streams, or busy requests): its counts and its refusals.
#[derive(Clone)]
struct Capped {
    counts: Arc<Mutex<AddressCounts>>,
    refusals: Arc<Mutex<RefusalLog>>,
}

impl Capped {
    fn new(per_address: usize, total: usize) -> Capped {
        Capped {
            counts: Arc::new(Mutex::new(AddressCounts::new(per_address, total))),
            refusals: Arc::default(),
        }
    }

    /// One more for `ip`, held until the [`Permit`] is dropped; or why not, said in the log
    /// at most once a minute.
    fn take(&self, ip: IpAddr, why: impl Fn(Over) -> String) -> Result<Permit, Over> {
        let taken = self
            .counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take(ip);
        match taken {
            Ok(()) => Ok(Permit {
                counts: self.counts.clone(),
                ip,
            }),
            Err(over) => {
                let line = self
                    .refusals
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .refused(Instant::now(), ip, &why(over));
                if let Some(line) = line {
                    tracing::warn!("hall: {line}");
                }
                Err(over)
            }
        }
    }
}

/// Whether a request comes from someone logged in (an arbiter or a commentator).
type LoggedIn = Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>;

/// The public's holdings now, and what to say about refusals.
#[derive(Clone)]
pub(crate) struct PublicCaps {
    logged_in: LoggedIn,
    streams: Capped,
    busy: Capped,
    limits: Limits,
}

impl PublicCaps {
    /// The caps of `limits`, logins checked against `app`.
    pub(crate) fn new(app: App, limits: &Limits) -> PublicCaps {
        let logged_in: LoggedIn = Arc::new(move |headers| commentator(&app, headers).is_some());
        PublicCaps::with(logged_in, limits)
    }

    fn with(logged_in: LoggedIn, limits: &Limits) -> PublicCaps {
        PublicCaps {
            logged_in,
            streams: Capped::new(limits.streams_per_address, limits.max_streams),
            busy: Capped::new(limits.busy_per_address, limits.max_busy),
            limits: *limits,
        }
    }
}

/// One held, given back when its answer's body is dropped.
struct Permit {
    counts: Arc<Mutex<AddressCounts>>,
    ip: IpAddr,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.counts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .give_back(self.ip);
    }
}

/// Whether `path` is one of the public event streams.
fn is_public_stream(path: &str) -> bool {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    matches!(
        parts.as_slice(),
        ["board", _, _, "events"] | ["board", _, _, "clock", "events"] | ["clock", "events"]
    )
}

/// `503` with `Retry-After: after`, closing the connection, and `page` as its text.
fn refused(after: u64, page: &'static str) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [
            (header::RETRY_AFTER, HeaderValue::from(after)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            // A refused client does not keep its connection (and its open file) either.
            (header::CONNECTION, HeaderValue::from_static("close")),
        ],
        page,
    )
        .into_response()
}

/// The layer: counts each public stream while it is open and each other public request
/// while it is answered, refuses one beyond the caps.
pub(crate) async fn limit_public(
    State(caps): State<PublicCaps>,
    req: Request,
    next: Next,
) -> Response {
    // Every connection of the hall's listener has its address; a request without one
    // (none comes so) is served as before.
    let Some(ip) = req
        .extensions()
        .get::<ConnectInfo<ClientAddr>>()
        .map(|c| c.0 .0.ip())
    else {
        return next.run(req).await;
    };
    if (caps.logged_in)(req.headers()) {
        return next.run(req).await;
    }
    let limits = &caps.limits;
    let permit = if req.method() == Method::GET && is_public_stream(req.uri().path()) {
        let taken = caps.streams.take(ip, |over| match over {
            Over::Address => format!(
                "refused a public event stream: its address has {} open \
                 ([hall] streams_per_address)",
                limits.streams_per_address
            ),
            Over::Total => format!(
                "refused a public event stream: {} are open ([hall] max_streams)",
                limits.max_streams
            ),
        });
        match taken {
            Ok(p) => p,
            Err(Over::Address) => {
                return refused(
                    RETRY_AFTER_S,
                    "Too many live pages are open from your address. Close some, then \
                     reload this one.\n",
                )
            }
            Err(Over::Total) => {
                return refused(
                    RETRY_AFTER_S,
                    "This hall is showing as many live pages as it can right now. Reload \
                     in a minute.\n",
                )
            }
        }
    } else {
        let taken = caps.busy.take(ip, |over| match over {
            Over::Address => format!(
                "refused a request: its address has {} being answered \
                 ([hall] busy_per_address)",
                limits.busy_per_address
            ),
            Over::Total => format!(
                "refused a request: {} public requests are being answered",
                limits.max_busy
            ),
        });
        match taken {
            Ok(p) => p,
            Err(_) => {
                return refused(
                    BUSY_RETRY_AFTER_S,
                    "This hall is answering as many requests as it can right now. Try again \
                     in a few seconds.\n",
                )
            }
        }
    };
    next.run(req).await.map(|body| HeldBody::wrap(body, permit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Timeouts;
    use axum::body::Body;
    use axum::routing::get;
    use axum::Router;
    use std::net::SocketAddr;
    use std::time::Duration;
    use tower::ServiceExt;

    #[test]
    fn the_public_streams_are_the_event_paths_of_the_public_pages() {
        for yes in [
            "/board/open-2026/hall1-01/events",
            "/board/t/b/clock/events",
            "/clock/events",
        ] {
            assert!(is_public_stream(yes), "{yes}");
        }
        for no in [
            "/board/t/b/",
            "/board/t/b/api/state",
            "/board/t/b/game.sgf",
            "/console/board/t/b/events",
            "/commentary/board/t/b/events",
            "/board/t/events",
            "/events",
            "/api/console/alerts",
        ] {
            assert!(!is_public_stream(no), "{no}");
        }
    }

    /// A router whose `/page` answers only when `open` lets it, behind the caps: 2 busy
    /// requests from one address, 3 in all; a request with a `Cookie` counts as logged in.
    fn capped(open: Arc<tokio::sync::Semaphore>) -> Router {
        let limits = Limits {
            open_files: Some(1024),
            idle_per_address: 8,
            max_idle: 64,
            busy_per_address: 2,
            max_busy: 3,
            streams_per_address: 10,
            max_streams: 10,
            timeouts: Timeouts::default(),
        };
        let logged_in: LoggedIn = Arc::new(|h: &HeaderMap| h.contains_key(header::COOKIE));
        Router::new()
            .route(
                "/page",
                get(move || async move {
                    let _ = open.acquire().await;
                    "page"
                }),
            )
            .layer(axum::middleware::from_fn_with_state(
                PublicCaps::with(logged_in, &limits),
                limit_public,
            ))
    }

    fn from(ip: &str, cookie: bool) -> Request {
        let mut req = Request::get("/page");
        if cookie {
            req = req.header(header::COOKIE, "tengen_session=x");
        }
        let mut req = req.body(Body::empty()).unwrap();
        let addr: SocketAddr = format!("{ip}:4000").parse().unwrap();
        req.extensions_mut().insert(ConnectInfo(ClientAddr(addr)));
        req
    }

    /// The status of `req`, or `None` if it is not answered within 200 ms (being served).
    async fn status(router: &Router, req: Request) -> (Option<StatusCode>, Option<Response>) {
        let call = router.clone().oneshot(req);
        match tokio::time::timeout(Duration::from_millis(200), call).await {
            Ok(Ok(r)) => (Some(r.status()), Some(r)),
            _ => (None, None),
        }
    }

    #[tokio::test]
    async fn the_publics_requests_being_answered_are_capped_per_address_and_in_all() {
        let open = Arc::new(tokio::sync::Semaphore::new(0));
        let router = capped(open.clone());
        // Two from one address are being answered (the handler waits); the third is
        // refused at once, with the wait and the connection closed.
        let serving: Vec<_> = (0..2)
            .map(|_| tokio::spawn(router.clone().oneshot(from("10.0.0.1", false))))
            .collect();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (third, refusal) = status(&router, from("10.0.0.1", false)).await;
        assert_eq!(third, Some(StatusCode::SERVICE_UNAVAILABLE));
        let refusal = refusal.expect("an answer");
        assert_eq!(refusal.headers()[header::RETRY_AFTER], "5");
        assert_eq!(refusal.headers()[header::CONNECTION], "close");
        // Another address has room until all hold the total.
        let other = tokio::spawn(router.clone().oneshot(from("10.0.0.2", false)));
        tokio::time::sleep(Duration::from_millis(50)).await;
        let (beyond, _) = status(&router, from("10.0.0.3", false)).await;
        assert_eq!(beyond, Some(StatusCode::SERVICE_UNAVAILABLE));
        // Someone logged in is neither counted nor refused.
        let (arbiter, _) = status(&router, from("10.0.0.1", true)).await;
        assert_eq!(arbiter, None, "being served, not refused");
        // Answers done (their bodies dropped), room again.
        open.add_permits(100);
        for s in serving {
            drop(s.await.unwrap().unwrap());
        }
        drop(other.await.unwrap().unwrap());
        let (again, _) = status(&router, from("10.0.0.3", false)).await;
        assert_eq!(again, Some(StatusCode::OK));
    }
}

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
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::limits::address_counts::{AddressCounts, Over};
use crate::limits::refusal_log::RefusalLog;
use crate::limits::Limits;
use crate::listener::held_body::HeldBody;
use crate::listener::ClientAddr;
use crate::routes::{commentator, App};

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

/// The public's holdings now, and what to say about refusals.
#[derive(Clone)]
pub(crate) struct PublicCaps {
    app: App,
    streams: Capped,
    busy: Capped,
    limits: Limits,
}

impl PublicCaps {
    /// The caps of `limits`, logins checked against `app`.
    pub(crate) fn new(app: App, limits: &Limits) -> PublicCaps {
        PublicCaps {
            app,
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
    if commentator(&caps.app, req.headers()).is_some() {
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
}

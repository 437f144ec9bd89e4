//! The caps on the public pages' event streams (issue 21): each open live page holds a
//! stream, and each stream an open file, for as long as the page is open. Beyond
//! `[hall] streams_per_address` from one address, or `max_streams` in all, a public stream
//! gets `503 Service Unavailable` with `Retry-After`. Arbiters and commentators (a valid
//! login cookie) are neither counted nor refused: the console keeps its room whatever the
//! public does.
//!
//! The streams: `/board/{t}/{b}/events`, `/board/{t}/{b}/clock/events` and `/clock/events`.
//! The console's own (`/console/board/...`, `/commentary/board/...`) need a login anyway.

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

/// The public streams open now, and what to say about refusals.
#[derive(Clone)]
pub(crate) struct StreamLimit {
    app: App,
    counts: Arc<Mutex<AddressCounts>>,
    refusals: Arc<Mutex<RefusalLog>>,
    limits: Limits,
}

impl StreamLimit {
    /// The caps of `limits`, logins checked against `app`.
    pub(crate) fn new(app: App, limits: &Limits) -> StreamLimit {
        StreamLimit {
            app,
            counts: Arc::new(Mutex::new(AddressCounts::new(
                limits.streams_per_address,
                limits.max_streams,
            ))),
            refusals: Arc::default(),
            limits: *limits,
        }
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, AddressCounts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One public stream open, given back when its body is dropped.
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

/// The layer: counts each public stream while it is open, refuses one beyond the caps.
pub(crate) async fn limit_public_streams(
    State(limit): State<StreamLimit>,
    req: Request,
    next: Next,
) -> Response {
    if req.method() != Method::GET || !is_public_stream(req.uri().path()) {
        return next.run(req).await;
    }
    if commentator(&limit.app, req.headers()).is_some() {
        return next.run(req).await;
    }
    // Every connection of the hall's listener has its address; a request without one
    // (none comes so) is served as before.
    let Some(ip) = req
        .extensions()
        .get::<ConnectInfo<ClientAddr>>()
        .map(|c| c.0 .0.ip())
    else {
        return next.run(req).await;
    };
    let taken = limit.counts().take(ip);
    if let Err(over) = taken {
        let (log, page) = match over {
            Over::Address => (
                format!(
                    "refused a public event stream: its address has {} open \
                     ([hall] streams_per_address)",
                    limit.limits.streams_per_address
                ),
                "Too many live pages are open from your address. Close some, then reload \
                 this one.\n",
            ),
            Over::Total => (
                format!(
                    "refused a public event stream: {} are open ([hall] max_streams)",
                    limit.limits.max_streams
                ),
                "This hall is showing as many live pages as it can right now. Reload in a \
                 minute.\n",
            ),
        };
        let line = limit
            .refusals
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .refused(Instant::now(), ip, &log);
        if let Some(line) = line {
            tracing::warn!("hall: {line}");
        }
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [
                (header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_S)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
                // A refused viewer does not keep its connection (and its open file) either.
                (header::CONNECTION, HeaderValue::from_static("close")),
            ],
            page,
        )
            .into_response();
    }
    let permit = Permit {
        counts: limit.counts.clone(),
        ip,
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

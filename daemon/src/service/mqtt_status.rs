//! `/api/mqtt` on the board's HTTP listener: whether the board reaches its broker and, when
//! it does not, why, in the one line it also logged (a refused login, a TLS listener spoken
//! to in plain MQTT, a certificate that does not verify...):
//! `{"broker":"mqtts://broker.hall.lan:8883","connected":false,"error":"..."}`.

use std::sync::{Arc, OnceLock};

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

use tengen_net::link::{LinkReport, LinkStatus};

/// The link, set once the publisher has started (the HTTP listener starts first).
pub(crate) type SharedLink = Arc<OnceLock<LinkReport>>;

/// The route, reading `link`.
pub(crate) fn router(link: SharedLink) -> Router {
    Router::new()
        .route("/api/mqtt", get(status))
        .with_state(link)
}

async fn status(State(link): State<SharedLink>) -> Json<LinkStatus> {
    Json(match link.get() {
        Some(l) => l.status(),
        None => LinkStatus {
            broker: String::new(),
            connected: false,
            error: None,
        },
    })
}

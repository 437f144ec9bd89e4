//! `/api/broker`: whether the hall reaches its broker and, when it does not, why, in the one
//! line it also logged: `{"broker":"mqtt://...","connected":false,"error":"..."}`. The
//! overview shows it above the boards, so a hall whose login the broker refuses does not
//! just show no boards.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

use tengen_net::link::LinkStatus;

use crate::routes::App;

/// The route; `lib.rs` joins it to the others.
pub(crate) fn routes() -> Router<App> {
    Router::new().route("/api/broker", get(status))
}

async fn status(State(app): State<App>) -> Json<LinkStatus> {
    Json(app.mqtt.status())
}

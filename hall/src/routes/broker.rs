//! The hall's own link to its broker. `/api/broker` (everyone): only whether the hall is
//! connected, `{"connected":false}`: the broker's address and why it refuses (a user name,
//! a certificate) are the arbiters' business (issue 21). `/api/console/broker` (arbiters,
//! behind the console login): the whole status, in the one line the hall also logged:
//! `{"broker":"mqtt://...","connected":false,"error":"..."}`. The overview shows it above
//! the boards, so a hall whose login the broker refuses does not just show no boards.

use axum::extract::State;
use axum::routing::{get, MethodRouter};
use axum::{Json, Router};
use serde_json::json;

use crate::routes::console_gate::Arbiter;
use crate::routes::App;

/// The public route; `lib.rs` joins it to the others.
pub(crate) fn routes() -> Router<App> {
    Router::new().route("/api/broker", get(status))
}

/// The console's API route of this file (see [`super::console_api`]).
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![("/api/console/broker", get(console_status))]
}

/// What anyone may know: connected or not.
async fn status(State(app): State<App>) -> Json<serde_json::Value> {
    Json(json!({"connected": app.mqtt.status().connected}))
}

/// The arbiters' view: the broker and why the link is down.
async fn console_status(State(app): State<App>, _: Arbiter) -> Json<tengen_net::link::LinkStatus> {
    Json(app.mqtt.status())
}

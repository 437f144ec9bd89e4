//! `/api/console/venues` (behind the console login): each venue's link as the hub sees it,
//! for the broadcast's director (docs/venues.md, "What to watch"); `?boards=1` adds each
//! board's `seq` at the hub and at its venue. A hall that is not a hub answers 404.

use std::collections::HashMap;
use std::time::Instant;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::boards::mqtt_client::lock;
use crate::routes::{arbiter, unauthorized, App};
use crate::venues::inbox::lock_hub;

/// The routes; `lib.rs` joins them to the others.
pub(crate) fn routes() -> Router<App> {
    Router::new().route("/api/console/venues", get(venues))
}

async fn venues(
    State(app): State<App>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    if arbiter(&app, &headers).is_none() {
        return unauthorized();
    }
    let Some(hub) = &app.venues else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let boards = q.get("boards").is_some_and(|v| v == "1");
    let hall = lock(&app.hall);
    let v = lock_hub(hub).to_json(&hall, Instant::now(), boards);
    Json(v).into_response()
}

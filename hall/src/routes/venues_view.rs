//! `/console/venues` and `/api/console/venues` (behind the console login): each venue's
//! link as the hub sees it, for the broadcast's director (docs/venues.md, "What to
//! watch"); `?boards=1` adds each board's `seq` at the hub and at its venue. A hall that is
//! not a hub answers 404.

use std::collections::HashMap;
use std::time::Instant;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Json, Router};
use tengen_l10n::Render;

use crate::boards::hall_state::lock;
use crate::routes::{arbiter, unauthorized, App};
use crate::venues::inbox::lock_hub;

/// The page: the venues' links, refreshed every 2 s.
pub(crate) const PAGE: &str = include_str!("venues.html");

/// The routes; `lib.rs` joins them to the others.
pub(crate) fn routes() -> Router<App> {
    Router::new()
        .route("/console/venues", get(page))
        .route("/api/console/venues", get(venues))
}

async fn page(State(app): State<App>, headers: HeaderMap) -> Response {
    if app.venues.is_none() {
        return StatusCode::NOT_FOUND.into_response();
    }
    if arbiter(&app, &headers).is_none() {
        return Redirect::to("/console").into_response();
    }
    Html(Render::served(crate::routes::lang::current()).page(PAGE)).into_response()
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

#[cfg(test)]
mod tests {
    use tengen_l10n::{check_template, Lang, Render};

    use super::PAGE;

    #[test]
    fn the_venues_page_is_in_every_language() {
        assert_eq!(check_template(PAGE), vec![]);
        let ids = tengen_l10n::message_ids(Lang::En);
        for id in PAGE.match_indices("t(\"venues-").map(|(i, _)| {
            let rest = &PAGE[i + 3..];
            &rest[..rest.find('"').unwrap_or(rest.len())]
        }) {
            assert!(ids.contains(&id), "{id} is a message");
        }
        for lang in Lang::ALL {
            let filled = Render::served(lang).page(PAGE);
            assert!(filled.contains(&format!("<html lang=\"{}\">", lang.tag())));
            assert!(!filled.contains("{{"), "every placeholder filled");
        }
    }
}

//! `/console/venues` and `/api/console/venues` (behind the console login): each venue's
//! link as the hub sees it, for the broadcast's director (docs/venues.md, "What to
//! watch"); `?boards=1` adds each board's `seq` at the hub and at its venue. A hall that is
//! not a hub answers 404.

use std::collections::HashMap;
use std::time::Instant;

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::{Json, Router};
use tengen_l10n::Render;

use crate::boards::hall_state::lock;
use crate::routes::console_gate::Arbiter;
use crate::routes::App;
use crate::venues::inbox::lock_hub;

/// The page: the venues' links, refreshed every 2 s.
pub(crate) const PAGE: &str = include_str!("venues.html");

/// The page's route; `lib.rs` joins it to the others.
pub(crate) fn routes() -> Router<App> {
    Router::new().route("/console/venues", get(page))
}

/// The console's API route of this file (see [`super::console_api`]).
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![("/api/console/venues", get(venues))]
}

async fn page(State(app): State<App>, _: Arbiter) -> Response {
    if app.venues.is_none() {
        return StatusCode::NOT_FOUND.into_response();
    }
    Html(Render::served(crate::routes::lang::current()).page(PAGE)).into_response()
}

async fn venues(
    State(app): State<App>,
    _: Arbiter,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
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

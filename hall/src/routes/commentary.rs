//! The commentators' pages, behind the console login of an `[[arbiter]]` entry with
//! `role = "commentator"` (arbiters may read them too): read only, no command, no console.
//! They show the boards live for a closed commentary room (`[hall] commentary = "live"`)
//! or, by default, as the public sees them, behind the broadcast delay:
//!
//! - `/commentary`: the overview page on `/api/commentary/boards`;
//! - `/commentary/board/{t}/{b}/...`: the board page (navigation, game info, variations)
//!   on the live or the public feed.

use std::collections::HashMap;
use std::time::Instant;

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::boards::mqtt_client::lock;
use crate::routes::{
    board_key, commentator, login_page, not_found, one_board, page_redirect, unauthorized, App,
    OVERVIEW,
};

/// The commentary routes.
pub(crate) fn routes() -> Router<App> {
    Router::new()
        .route("/commentary", get(overview))
        .route("/api/commentary/boards", get(boards))
        .route(
            "/commentary/board/{tournament}/{board}",
            get(board_redirect),
        )
        .route("/commentary/board/{tournament}/{board}/", get(board_view))
        .route(
            "/commentary/board/{tournament}/{board}/{*rest}",
            get(board_view),
        )
}

async fn overview(State(app): State<App>, headers: HeaderMap) -> Response {
    if commentator(&app, &headers).is_none() {
        return login_page(StatusCode::UNAUTHORIZED, "");
    }
    Html(OVERVIEW.replacen(
        "const BOARDS = \"/api/boards\";",
        "const BOARDS = \"/api/commentary/boards\";",
        1,
    ))
    .into_response()
}

async fn boards(State(app): State<App>, headers: HeaderMap) -> Response {
    if commentator(&app, &headers).is_none() {
        return unauthorized();
    }
    Json(lock(&app.hall).commentary_boards_json(Instant::now(), app.commentary_live))
        .into_response()
}

async fn board_redirect(
    State(app): State<App>,
    headers: HeaderMap,
    Path((t, b)): Path<(String, String)>,
) -> Response {
    if commentator(&app, &headers).is_none() {
        return login_page(StatusCode::UNAUTHORIZED, "");
    }
    page_redirect("/commentary", &t, &b)
}

/// A board's page for commentators: on the live feed or the public one, as configured.
async fn board_view(
    State(app): State<App>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    if commentator(&app, req.headers()).is_none() {
        return login_page(StatusCode::UNAUTHORIZED, "");
    }
    let key = board_key(&params);
    let feed = key.and_then(|k| {
        let hall = lock(&app.hall);
        if app.commentary_live {
            hall.feed(&k)
        } else {
            hall.public_feed(&k)
        }
    });
    let Some(feed) = feed else {
        return not_found("no such board in this hall");
    };
    one_board(feed, &params, req).await
}

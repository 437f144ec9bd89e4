//! The rounds, public: `/rounds` (the rounds seen, with links to their zips,
//! [`super::round_zip`]) and `/api/rounds` (the same as JSON). Which games a round has, and
//! what the public may see of each, is [`crate::public::round_games`]'s.

use axum::extract::State;
use axum::response::Html;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::Value;
use tengen_l10n::Render;

use crate::public::round_games::{rounds_html, rounds_value};
use crate::routes::App;

/// The rounds' routes.
pub(crate) fn routes() -> Router<App> {
    Router::new()
        .route("/rounds", get(rounds_page))
        .route("/api/rounds", get(rounds_json))
}

async fn rounds_json(State(app): State<App>) -> Json<Value> {
    Json(rounds_value(&app.public))
}

async fn rounds_page(State(app): State<App>) -> Html<String> {
    Html(rounds_html(
        &app.public,
        Render::served(super::lang::current()),
    ))
}

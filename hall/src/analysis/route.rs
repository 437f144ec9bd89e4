//! `GET /board/{tournament}/{board}/api/analysis`: the engine's estimates of a board's
//! public game so far, as the wire contract writes them:
//! `{"engine":"GNU Go 3.8","moves":[{"number":0,"score_lead":0.5,"best":["D4","Q16"]},...]}`.
//! Public, like the board's page. 404 for a board the hall has not heard of, and for every
//! board when the hall has no `[analysis]`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde_json::json;
use tengen_protocol::topics::BoardKey;

use super::Analysis;

/// Whether the hall knows a board (has heard of it on the broker).
pub(crate) type KnowsBoard = Arc<dyn Fn(&BoardKey) -> bool + Send + Sync>;

/// What the route needs.
#[derive(Clone)]
struct RouteState {
    analysis: Option<Analysis>,
    knows: KnowsBoard,
}

/// The route, with its own state: `analysis` (`None` without `[analysis]`) and how to
/// tell a board the hall knows.
pub(crate) fn routes(analysis: Option<Analysis>, knows: KnowsBoard) -> Router {
    Router::new()
        .route(
            "/board/{tournament}/{board}/api/analysis",
            get(analysis_json),
        )
        .with_state(RouteState { analysis, knows })
}

async fn analysis_json(
    State(s): State<RouteState>,
    Path((t, b)): Path<(String, String)>,
) -> Response {
    let Some(analysis) = &s.analysis else {
        return (
            StatusCode::NOT_FOUND,
            "no engine analysis in this hall (hall.toml has no [analysis] section)\n",
        )
            .into_response();
    };
    let Some(key) = BoardKey::new(&t, &b).filter(|k| (s.knows)(k)) else {
        return (StatusCode::NOT_FOUND, "no such board in this hall\n").into_response();
    };
    (
        [(header::CACHE_CONTROL, "no-cache")],
        axum::Json(analysis_value(analysis, &key)),
    )
        .into_response()
}

/// The JSON of `api/analysis` for one board (docs/mqtt-http.md): the engine's name and its estimates
/// of the public positions so far. Also written by the static export.
pub(crate) fn analysis_value(analysis: &Analysis, key: &BoardKey) -> serde_json::Value {
    let (engine, estimates) = analysis.estimates(key);
    let moves: Vec<_> = estimates
        .iter()
        .map(|e| json!({"number": e.number, "score_lead": e.score_lead, "best": e.best}))
        .collect();
    json!({"engine": engine, "moves": moves})
}

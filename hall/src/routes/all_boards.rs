//! The console's hall-wide steps: *pause all* / *resume all* (Art. 14: a stop for the whole
//! hall or one round, `POST /api/console/pause-all` and `/resume-all` with `{}` or
//! `{"round":N}`), and the dismissal of the hall's own `board_offline` alert
//! (`POST /api/console/alert/dismiss`). Arbiters only; the console asks first.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::json;
use std::time::Instant;

use tengen_protocol::topics::BoardKey;

use crate::boards::hall_state::lock;
use crate::routes::{arbiter, not_found, unauthorized, AlertRef, App};

/// The routes; `lib.rs` joins them to the others.
pub(crate) fn routes() -> Router<App> {
    Router::new()
        .route("/api/console/pause-all", post(pause_all))
        .route("/api/console/resume-all", post(resume_all))
        .route("/api/console/alert/dismiss", post(dismiss))
}

/// The body of `pause-all` / `resume-all`: every board in play, or those of one round.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Which {
    round: Option<u32>,
}

async fn pause_all(State(app): State<App>, headers: HeaderMap, body: Json<Which>) -> Response {
    all_boards(app, headers, "pause", body.0).await
}

async fn resume_all(State(app): State<App>, headers: HeaderMap, body: Json<Which>) -> Response {
    all_boards(app, headers, "resume", body.0).await
}

/// Sends `command` to every board in play (of the round); answers
/// `{"sent":[board,...],"skipped":[{"board":..,"why":..,"why_id":..,"why_args":{..}}]}`.
async fn all_boards(app: App, headers: HeaderMap, command: &str, which: Which) -> Response {
    let Some(by) = arbiter(&app, &headers) else {
        return unauthorized();
    };
    let done = lock(&app.hall).all_boards(&by, command, which.round, Instant::now());
    let mut sent = Vec::new();
    let mut skipped: Vec<(BoardKey, String)> = done.skipped;
    for (key, id, out) in done.sent {
        match app.mqtt.publish(out).await {
            Ok(()) => sent.push(key),
            Err(e) => skipped.push((key, format!("not sent ({id}): {e}"))),
        }
    }
    let round = which
        .round
        .map_or("every round".into(), |r| format!("round {r}"));
    tracing::info!(
        "arbiter {by}: {command} all ({round}): sent to {}, not reached: {}",
        sent.len(),
        skipped
            .iter()
            .map(|(k, why)| format!("{} ({why})", k.board))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Json(json!({
        "sent": sent.iter().map(|k| &k.board).collect::<Vec<_>>(),
        // Each reason also as a message of the console's (`console-why--{why_id}`).
        "skipped": skipped
            .iter()
            .map(|(k, why)| {
                let (id, args) = if why == "offline" {
                    ("offline", json!({}))
                } else {
                    ("not-sent", json!({"error": why}))
                };
                json!({"board": k.board, "tournament": k.tournament, "why": why,
                       "why_id": id, "why_args": args})
            })
            .collect::<Vec<_>>(),
    }))
    .into_response()
}

/// `POST /api/console/alert/dismiss`: the hall's own alert on a board is closed by an
/// arbiter (a board's own alerts are dismissed by a `dismiss` command to the board).
async fn dismiss(
    State(app): State<App>,
    headers: HeaderMap,
    Json(body): Json<AlertRef>,
) -> Response {
    let Some(by) = arbiter(&app, &headers) else {
        return unauthorized();
    };
    let Some(key) = BoardKey::new(&body.tournament, &body.board) else {
        return not_found("no such board");
    };
    match lock(&app.hall).dismiss_hall_alert(&key, &body.alert) {
        Ok(()) => {
            tracing::info!(
                "arbiter {by} dismisses the hall's alert {} on {}/{}",
                body.alert,
                key.tournament,
                key.board
            );
            (StatusCode::OK, Json(json!({"dismissed": body.alert}))).into_response()
        }
        Err(e) => not_found(&e.to_string()),
    }
}

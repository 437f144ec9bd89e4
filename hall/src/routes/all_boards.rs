//! The console's hall-wide steps: *pause all* / *resume all* (Art. 14: a stop for the whole
//! hall or one round, `POST /api/console/pause-all` and `/resume-all` with `{}` or
//! `{"round":N}`), and the dismissal of the hall's own `board_offline` alert
//! (`POST /api/console/alert/dismiss`). Arbiters only; the console asks first.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{post, MethodRouter};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use std::time::Instant;

use tengen_protocol::topics::BoardKey;

use crate::boards::hall_state::lock;
use crate::routes::console_gate::Arbiter;
use crate::routes::{no_such_board, not_found, AlertRef, App};

/// The console's API routes of this file (see [`super::console_api`]).
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![
        ("/api/console/pause-all", post(pause_all)),
        ("/api/console/resume-all", post(resume_all)),
        ("/api/console/alert/dismiss", post(dismiss)),
    ]
}

/// The body of `pause-all` / `resume-all`: every board in play, or those of one round.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Which {
    round: Option<u32>,
}

async fn pause_all(State(app): State<App>, by: Arbiter, body: Json<Which>) -> Response {
    all_boards(app, by, "pause", body.0).await
}

async fn resume_all(State(app): State<App>, by: Arbiter, body: Json<Which>) -> Response {
    all_boards(app, by, "resume", body.0).await
}

/// Sends `command` to every board in play (of the round); answers
/// `{"sent":[board,...],"skipped":[{"board":..,"why":..,"why_id":..,"why_args":{..}}]}`.
async fn all_boards(app: App, Arbiter(by): Arbiter, command: &str, which: Which) -> Response {
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
    Arbiter(by): Arbiter,
    Json(body): Json<AlertRef>,
) -> Response {
    let Some(key) = BoardKey::new(&body.tournament, &body.board) else {
        return no_such_board();
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

//! `GET /api/console/board/{tournament}/{board}/frames?from=MS&to=MS[&game=ID]` (arbiters
//! only; docs/operating.md, "The black box"): what a board's sensors saw in a window of its game, as
//! JSON lines (`{"ms":N,"board":"...","presses":[...]}`, the board at `from` first).
//! `?around=TIME` (RFC 3339, an alert's `time`) asks instead for [`AROUND_MS`] either side
//! of that moment of the board's current game, `?move=N` either side of its move N; the
//! moment, in ms since the game started, comes back in the `x-tengen-around-ms` header (the
//! console's *What the sensors saw*); with `?move=N`, the position the board had to show at
//! that move (the record's first N moves, not the position now) in `x-tengen-expected`.
//!
//! The hall keeps no frames: it asks the board with a signed `frames` command (logged with
//! the other commands, so who looked at the black box is on record) and waits up to
//! [`crate::boards::command_ask::ANSWER_WITHIN`] for the reply, which carries the window as a frames file. A window is at
//! most five minutes ([`MAX_FRAMES_WINDOW_MS`]). A board that does not answer is a 504, one
//! that refuses a 502 with its reason, a bad query a 400: one line each.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use serde::Deserialize;

use tengen_protocol::command::MAX_FRAMES_WINDOW_MS;
use tengen_protocol::frames::FramesRecord;
use tengen_protocol::topics::BoardKey;
use tengen_protocol::Timestamp;

use crate::boards::command_ask::{ask_bytes, AskError};
use crate::boards::hall_state::lock;
use crate::routes::console_gate::Arbiter;
use crate::routes::{no_such_board, App};

/// How far either side of `around` the window reaches (ms).
pub(crate) const AROUND_MS: u64 = 10_000;

/// The query.
#[derive(Debug, Deserialize)]
pub(crate) struct FramesQuery {
    from: Option<u64>,
    to: Option<u64>,
    game: Option<String>,
    around: Option<String>,
    /// A move number of the board's current game: 10 s either side of it.
    #[serde(rename = "move")]
    at_move: Option<u32>,
}

/// The route, of the console's API (see [`super::console_api`]).
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![(
        "/api/console/board/{tournament}/{board}/frames",
        get(frames),
    )]
}

fn line(status: StatusCode, text: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text + "\n",
    )
        .into_response()
}

async fn frames(
    State(app): State<App>,
    Arbiter(by): Arbiter,
    Path((tournament, board)): Path<(String, String)>,
    query: Result<Query<FramesQuery>, QueryRejection>,
) -> Response {
    let Some(key) = BoardKey::new(&tournament, &board) else {
        return no_such_board();
    };
    let Ok(Query(query)) = query else {
        return bad_window();
    };
    let game = query.game;
    // A move: the time it was played, from the hall's fold of the board's events, and the
    // position the board had to show then.
    let mut expected = None;
    let around = match query.at_move {
        Some(n) => {
            let played = lock(&app.hall).board_view(&key).and_then(|b| {
                let view = b.live_view();
                let record = view.record();
                let at = record
                    .get((n as usize).wrapping_sub(1))
                    .map(|m| m.played_at.to_string())?;
                Some((at, view.position_at(n)))
            });
            match played {
                Some((at, position)) => {
                    expected = position;
                    Some(at)
                }
                None => {
                    return line(
                        StatusCode::NOT_FOUND,
                        format!(
                            "board {}: no move {n} in the game the hall follows",
                            key.board
                        ),
                    )
                }
            }
        }
        None => query.around,
    };
    let (from, to, around_ms) = match (around, query.from, query.to) {
        (Some(around), _, _) => {
            let Ok(at) = Timestamp::parse(&around) else {
                return line(
                    StatusCode::BAD_REQUEST,
                    format!("around={around}: not an RFC 3339 time"),
                );
            };
            // The game's start: from the hall's fold of the board's events, or (a hall that
            // came in after it began, from the board's retained state) from the header of
            // an empty window the board sends.
            let known = lock(&app.hall)
                .board_view(&key)
                .and_then(|b| b.live_view().started());
            let started = match known {
                Some(started) => started,
                None => match ask(&app, &key, &by, 0, 0, game.clone()).await {
                    Ok(record) => Timestamp::from_millis(record.header().start_ms),
                    Err(response) => return response,
                },
            };
            let centre = at.since(started);
            (
                centre.saturating_sub(AROUND_MS),
                centre + AROUND_MS,
                Some(centre),
            )
        }
        (None, Some(from), Some(to)) if from <= to && to - from <= MAX_FRAMES_WINDOW_MS => {
            (from, to, None)
        }
        _ => return bad_window(),
    };
    let record = match ask(&app, &key, &by, from, to, game).await {
        Ok(record) => record,
        Err(response) => return response,
    };
    let mut response = (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        record.json_lines(from, to),
    )
        .into_response();
    if let Some(ms) = around_ms {
        response
            .headers_mut()
            .insert("x-tengen-around-ms", HeaderValue::from(ms));
    }
    if let Some(v) = expected.and_then(|p| HeaderValue::from_str(&p).ok()) {
        response.headers_mut().insert("x-tengen-expected", v);
    }
    response
}

fn bad_window() -> Response {
    line(
        StatusCode::BAD_REQUEST,
        format!(
            "give from=MS and to=MS (ms since the game started), at most {MAX_FRAMES_WINDOW_MS} ms apart, or around=TIME"
        ),
    )
}

/// A board's frames not had, as the console's one-line response.
fn ask_error_response(e: &AskError) -> Response {
    let status = match e {
        AskError::UnknownBoard(_) => StatusCode::NOT_FOUND,
        AskError::Refused(_) => StatusCode::BAD_REQUEST,
        AskError::Unreachable(_) => StatusCode::SERVICE_UNAVAILABLE,
        AskError::NoAnswer(_) => StatusCode::GATEWAY_TIMEOUT,
        AskError::BadAnswer { .. } => StatusCode::BAD_GATEWAY,
    };
    line(status, e.to_string())
}

/// Asks the board for the window `from..=to` of its game and reads its answer (see
/// [`ask_bytes`]).
async fn ask(
    app: &App,
    key: &BoardKey,
    by: &str,
    from: u64,
    to: u64,
    game: Option<String>,
) -> Result<FramesRecord, Response> {
    let bytes = ask_bytes(&app.hall, &app.mqtt, key, Some(by), from, to, game)
        .await
        .map_err(|e| ask_error_response(&e))?;
    FramesRecord::parse(&bytes).map_err(|e| {
        line(
            StatusCode::BAD_GATEWAY,
            format!("board {}: its frames do not read: {e}", key.board),
        )
    })
}

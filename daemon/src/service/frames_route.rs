//! `GET /api/frames?from=MS&to=MS` on the board's HTTP listener (docs/operating.md, "The black box"):
//! what the sensors saw in that window of the game being played (or of `&game=ID`), as
//! JSON lines (`{"ms":N,"board":"...","presses":[...]}`), the board at `from` first. The
//! file is read on a blocking thread, never on the scan loop's. A window is at most
//! [`MAX_WINDOW_MS`]; a bad query is a 400 with one line, no file a 404, a board already
//! reading [`black_box::READS_AT_ONCE`] windows for five seconds a 503 with `Retry-After`.

use std::path::PathBuf;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Deserialize;

use crate::black_box;

/// The longest window one request may ask for (ms): an hour.
pub(crate) const MAX_WINDOW_MS: u64 = 3_600_000;

/// The query of `/api/frames`.
#[derive(Debug, Deserialize)]
pub(crate) struct FramesQuery {
    from: Option<u64>,
    to: Option<u64>,
    game: Option<String>,
}

/// The route, reading the frames files in `dir`.
pub(crate) fn router(dir: PathBuf) -> Router {
    Router::new()
        .route("/api/frames", get(frames))
        .with_state(dir)
}

fn refuse(status: StatusCode, why: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        why + "\n",
    )
        .into_response()
}

async fn frames(
    State(dir): State<PathBuf>,
    query: Result<Query<FramesQuery>, QueryRejection>,
) -> Response {
    let Ok(Query(q)) = query else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "from and to must be whole numbers of ms since the game started".into(),
        );
    };
    let (Some(from), Some(to)) = (q.from, q.to) else {
        return refuse(StatusCode::BAD_REQUEST, "give from=MS and to=MS".into());
    };
    if from > to || to - from > MAX_WINDOW_MS {
        return refuse(
            StatusCode::BAD_REQUEST,
            format!("from {from} to {to}: a window of at most {MAX_WINDOW_MS} ms, from before to"),
        );
    }
    let path = match &q.game {
        Some(game) => Some(dir.join(black_box::file_name(game))),
        None => black_box::newest(&dir),
    };
    let Some(path) = path.filter(|p| p.is_file()) else {
        return refuse(
            StatusCode::NOT_FOUND,
            "no frames for this game on this board".into(),
        );
    };
    let read = tokio::task::spawn_blocking(move || {
        black_box::read_window(&path, from, to).map(|record| record.json_lines(from, to))
    })
    .await;
    match read {
        Ok(Ok(lines)) => ([(header::CONTENT_TYPE, "application/x-ndjson")], lines).into_response(),
        Ok(Err(e @ black_box::FramesReadError::Busy)) => {
            let mut r = refuse(StatusCode::SERVICE_UNAVAILABLE, e.to_string());
            r.headers_mut()
                .insert(header::RETRY_AFTER, header::HeaderValue::from_static("5"));
            r
        }
        Ok(Err(e)) => refuse(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        Err(e) => refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("reading frames: {e}"),
        ),
    }
}

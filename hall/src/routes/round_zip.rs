//! A round's zip, `/round/{round}.zip`: built by [`crate::public::round_zip`]; for an
//! arbiter with each table's incident log too ([`super::incidents`]). Apart from `rounds`
//! so that the incident log, which reads the round's games, and the zip, which carries the
//! log, do not depend on each other.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::public::round_games::{sanitize, RoundGame};
use crate::public::round_zip::round_zip_bytes;
use crate::routes::{not_found, App};

/// The zip's route.
pub(crate) fn routes() -> Router<App> {
    Router::new().route("/round/{file}", get(round_zip))
}

async fn round_zip(
    State(app): State<App>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(round) = file.strip_suffix(".zip").filter(|r| !r.is_empty()) else {
        return not_found("ask for /round/ROUND.zip");
    };
    // The black boxes are for arbiters: the zip an arbiter downloads carries them. The
    // public's is built at most once a second (issue 34).
    let frames = super::console_gate::arbiter(&app, &headers).is_some();
    let zipped = if frames {
        let incidents = |g: &RoundGame| -> Vec<(String, Vec<u8>)> {
            super::incidents::zip_entry(&app, &g.key, &g.game)
                .into_iter()
                .collect()
        };
        round_zip_bytes(&app.public, round, Some(&incidents))
            .transpose()
            .map(|z| (z.map(axum::body::Bytes::from), std::time::Duration::ZERO))
    } else {
        app.zips.public(round, std::time::Instant::now(), || {
            round_zip_bytes(&app.public, round, None)
        })
    };
    match zipped {
        Ok((Some(bytes), age)) => (
            [
                (header::CONTENT_TYPE, "application/zip".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"round-{}.zip\"", sanitize(round)),
                ),
                (
                    header::HeaderName::from_static(crate::public::overview_cache::AGE_HEADER),
                    age.as_millis().to_string(),
                ),
            ],
            bytes,
        )
            .into_response(),
        Ok((None, _)) => not_found(&format!("no games of round {round} in this hall")),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("zip: {e}\n")).into_response(),
    }
}

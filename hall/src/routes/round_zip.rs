//! A round's zip, `/round/{round}.zip`: its games' records as [`super::rounds`] finds
//! them and, for an arbiter, each game's black box and each table's incident log
//! ([`super::incidents`]). Apart from `rounds` so that the incident log, which reads the
//! round's games, and the zip, which carries the log, do not depend on each other.

use std::collections::BTreeMap;
use std::io::Write;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::boards::archive;
use crate::routes::rounds::{games_of, sanitize, zip_record, RoundGame};
use crate::routes::App;

/// The zip's route.
pub(crate) fn routes() -> Router<App> {
    Router::new().route("/round/{file}", get(round_zip))
}

fn not_found(what: &str) -> Response {
    (StatusCode::NOT_FOUND, format!("{what}\n")).into_response()
}

/// The zip of round `round`'s public records (`/round/{round}.zip`); `None` when the hall
/// has no game of that round. With `frames` (an arbiter asks), each game's black box the
/// archive holds goes in too, as `frames/{table}.frames` (`frames/{board}.frames` for a
/// game without a table).
pub(crate) fn round_zip_bytes(
    app: &App,
    round: &str,
    frames: bool,
) -> Option<Result<Vec<u8>, zip::result::ZipError>> {
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for g in games_of(app, Some(round), true, frames) {
        let name = if g.voided {
            g.name.replacen(".sgf", "-void.sgf", 1)
        } else {
            g.name.clone()
        };
        if g.sgf.trim().is_empty() || files.contains_key(&name) {
            continue;
        }
        // A confirmation goes public with the game's end, not ahead of the delay (issue 34);
        // the arbiters' zip has it at once.
        let confirmed = app
            .tournament
            .as_ref()
            .filter(|_| g.over || frames)
            .and_then(|link| {
                let link = link.lock().unwrap_or_else(|p| p.into_inner());
                link.confirmed_for(&g.key, &g.game)
            });
        let (sgf, _) = zip_record(&g.sgf, &g.key, confirmed.filter(|_| !g.voided));
        if frames {
            if let Some((name, bytes)) = archived_frames(app, &g) {
                files.insert(name, bytes);
            }
            if let Some((name, bytes)) = super::incidents::zip_entry(app, &g.key, &g.game) {
                files.insert(name, bytes);
            }
        }
        files.insert(name, sgf.into_bytes());
    }
    (!files.is_empty()).then(|| zip_games(&files))
}

/// A game's black box as the archive holds it, with its name in the zip.
fn archived_frames(app: &App, g: &RoundGame) -> Option<(String, Vec<u8>)> {
    let shared = app.archive.as_ref()?;
    let (path, table) = {
        let a = archive::lock(shared);
        (
            a.frames_path(&g.key, &g.game).ok()?,
            a.table(&g.key, &g.game),
        )
    };
    let bytes = std::fs::read(path).ok()?;
    let name = table
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| g.key.board.clone());
    Some((format!("frames/{}.frames", sanitize(&name)), bytes))
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
    let frames = super::arbiter(&app, &headers).is_some();
    let zipped = if frames {
        round_zip_bytes(&app, round, true)
            .transpose()
            .map(|z| (z.map(axum::body::Bytes::from), std::time::Duration::ZERO))
    } else {
        app.zips.public(round, std::time::Instant::now(), || {
            round_zip_bytes(&app, round, false)
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

/// The files as one zip archive (deflated), one entry per name.
fn zip_games(files: &BTreeMap<String, Vec<u8>>) -> Result<Vec<u8>, zip::result::ZipError> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        w.start_file(name.as_str(), options)?;
        w.write_all(bytes)?;
    }
    Ok(w.finish()?.into_inner())
}

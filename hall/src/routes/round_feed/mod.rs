//! The public round feed's routes (`/feed/...`, docs/round-feed.md): each file of
//! [`crate::public::round_feed`] by its one path, answered by [`feed_response`] (tags,
//! ranges, gzip). The feed is refreshed here when a request finds it older than 0.2 s.

pub(crate) mod feed_response;

use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::public::round_feed::lock_feed;
use crate::routes::App;

/// The feed's routes: `/feed/...`.
pub(crate) fn routes() -> Router<App> {
    Router::new().route("/feed/{*path}", get(serve))
}

/// Why a request names no file of the feed, whatever the feed holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotAFeedPath {
    /// A query string: the feed takes none (`?bust=N` would make every request another
    /// file to a cache in front).
    Query,
    /// Percent-encoded (`%2F`, `%31`) or other bytes the feed's paths never have.
    Encoded,
}

/// The file a request's `uri` names, by its path as sent (`feed/...`): each file of the
/// feed has one path, letters, digits, `-`, `_`, `.` and `/` between them (issue 34: an
/// alias, `%31` for `1` or `%2F` for `/`, is refused, not decoded, so that a cache keyed on
/// the path sees each file once).
pub(crate) fn feed_path(uri: &Uri) -> Result<String, NotAFeedPath> {
    if uri.query().is_some() {
        return Err(NotAFeedPath::Query);
    }
    let path = uri.path().trim_start_matches('/');
    let plain = path
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'));
    if !plain {
        return Err(NotAFeedPath::Encoded);
    }
    Ok(path.to_string())
}

async fn serve(State(app): State<App>, uri: Uri, headers: HeaderMap) -> Response {
    let path = match feed_path(&uri) {
        Ok(path) => path,
        Err(why) => return feed_response::refused(why),
    };
    let file = {
        let mut feed = lock_feed(&app.feed);
        feed.refresh_if_stale(&app.public);
        feed.file(&path)
    };
    match file {
        Some(file) => feed_response::respond(&file, &headers),
        None => feed_response::not_found(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_of(uri: &str) -> Result<String, NotAFeedPath> {
        feed_path(&uri.parse::<Uri>().expect("a URI"))
    }

    #[test]
    fn a_file_has_one_path_and_aliases_are_refused() {
        assert_eq!(
            path_of("/feed/round/1/index.json").as_deref(),
            Ok("feed/round/1/index.json")
        );
        assert_eq!(
            path_of("/feed/round/r-2_b/7.sgf").as_deref(),
            Ok("feed/round/r-2_b/7.sgf")
        );
        for query in [
            "/feed/round/1/1.sgf?bust=1",
            "/feed/round/1/1.sgf?",
            "/feed/tournament.json?a",
        ] {
            assert_eq!(path_of(query), Err(NotAFeedPath::Query), "{query}");
        }
        for alias in [
            "/feed/round/%31/1.sgf",
            "/feed/round%2F1%2F1.sgf",
            "/feed/round%2f1/1.sgf",
            "/feed/round/1/1%2Esgf",
            "/feed/round/1/1.sgf%00",
        ] {
            assert_eq!(path_of(alias), Err(NotAFeedPath::Encoded), "{alias}");
        }
        // Other shapes are paths the feed has no file at: 404 from the file lookup.
        assert_eq!(
            path_of("/feed//round/1/1.sgf").as_deref(),
            Ok("feed//round/1/1.sgf")
        );
    }
}

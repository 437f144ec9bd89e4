//! The console page's script and style, `/console/console.js` and `/console/console.css`:
//! files of their own (kept in the binary, as the page is) so the page is short and the
//! browser keeps them between visits. Behind the login, like the page: nothing of the
//! console is public.
//!
//! Each is served `Cache-Control: private, no-cache` with an `ETag` of its bytes: the
//! browser keeps its copy (no shared cache does) and asks each time whether it still holds,
//! answered `304` without the body until a new hall serves other bytes.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::OnceLock;

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::console_gate::Arbiter;

/// The console page's script.
pub(crate) const SCRIPT: &str = include_str!("../console/console.js");
/// The console page's style.
const STYLE: &str = include_str!("../console/console.css");
/// How the browser may keep them: its own copy, checked each time.
const CACHE: &str = "private, no-cache";

/// `/console/console.js`.
pub(crate) async fn script(_: Arbiter, headers: HeaderMap) -> Response {
    static TAG: OnceLock<String> = OnceLock::new();
    asset(
        SCRIPT,
        "text/javascript; charset=utf-8",
        TAG.get_or_init(|| etag(SCRIPT)),
        &headers,
    )
}

/// `/console/console.css`.
pub(crate) async fn style(_: Arbiter, headers: HeaderMap) -> Response {
    static TAG: OnceLock<String> = OnceLock::new();
    asset(
        STYLE,
        "text/css; charset=utf-8",
        TAG.get_or_init(|| etag(STYLE)),
        &headers,
    )
}

/// A strong `ETag` of `body`: the same bytes in every run of one hall binary.
fn etag(body: &str) -> String {
    let mut hasher = DefaultHasher::new();
    body.hash(&mut hasher);
    format!("\"{:016x}-{}\"", hasher.finish(), body.len())
}

/// `body` as `content_type` with [`CACHE`] and `tag`, or `304` if the request's
/// `If-None-Match` names `tag`.
fn asset(body: &'static str, content_type: &'static str, tag: &str, req: &HeaderMap) -> Response {
    let tag_value = HeaderValue::from_str(tag).unwrap_or(HeaderValue::from_static("\"0\""));
    let common = [
        (header::CACHE_CONTROL, HeaderValue::from_static(CACHE)),
        (header::ETAG, tag_value),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
    ];
    let matches = req
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == tag || t == "*");
    if matches {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    (
        common,
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use axum::body::{to_bytes, Body};
    use axum::http::Request;
    use axum::routing::get;
    use axum::Router;
    use tower::ServiceExt;

    use super::*;
    use crate::console::auth::COOKIE;
    use crate::routes::console_gate::tests::app;

    async fn ask(router: &Router, path: &str, headers: &[(header::HeaderName, &str)]) -> Response {
        let mut req = Request::builder().uri(path);
        for (name, value) in headers {
            req = req.header(name, *value);
        }
        let req = req.body(Body::empty()).expect("a request");
        match router.clone().oneshot(req).await {
            Ok(r) => r,
            Err(never) => match never {},
        }
    }

    fn text(r: &Response, name: header::HeaderName) -> &str {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// Without an arbiter's login the files are refused; with one each comes with its type,
    /// the cache header and its tag, is the file in the binary, and the tag asked again
    /// answers `304` without a body.
    #[tokio::test]
    async fn the_console_files_are_served_to_arbiters_and_kept_by_their_browsers() {
        let app = app();
        let (arbiter, pundit) = {
            let mut sessions = app.sessions.lock().expect("sessions");
            let now = std::time::Instant::now();
            (sessions.open("chief", now), sessions.open("pundit", now))
        };
        let router = Router::new()
            .route("/console/console.js", get(script))
            .route("/console/console.css", get(style))
            .with_state(app);
        let files = [
            (
                "/console/console.js",
                "text/javascript; charset=utf-8",
                SCRIPT,
            ),
            ("/console/console.css", "text/css; charset=utf-8", STYLE),
        ];
        for (path, content_type, body) in files {
            for cookie in [None, Some(format!("{COOKIE}={pundit}"))] {
                let headers: Vec<_> = cookie
                    .iter()
                    .map(|c| (header::COOKIE, c.as_str()))
                    .collect();
                let r = ask(&router, path, &headers).await;
                assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path} {cookie:?}");
                let got = to_bytes(r.into_body(), usize::MAX).await.expect("a body");
                assert!(!String::from_utf8_lossy(&got).contains(body), "{path}");
            }
            let cookie = format!("{COOKIE}={arbiter}");
            let r = ask(&router, path, &[(header::COOKIE, &cookie)]).await;
            assert_eq!(r.status(), StatusCode::OK, "{path}");
            assert_eq!(text(&r, header::CONTENT_TYPE), content_type);
            assert_eq!(text(&r, header::CACHE_CONTROL), CACHE);
            assert_eq!(text(&r, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
            let tag = text(&r, header::ETAG).to_string();
            assert!(tag.starts_with('"') && tag.len() > 2, "{path}: {tag}");
            let got = to_bytes(r.into_body(), usize::MAX).await.expect("a body");
            assert_eq!(got, body.as_bytes(), "{path}");

            let again = [
                (header::COOKIE, cookie.as_str()),
                (header::IF_NONE_MATCH, &tag),
            ];
            let r = ask(&router, path, &again).await;
            assert_eq!(r.status(), StatusCode::NOT_MODIFIED, "{path}");
            assert_eq!(text(&r, header::ETAG), tag);
            let got = to_bytes(r.into_body(), usize::MAX).await.expect("a body");
            assert!(got.is_empty(), "{path}");

            let other = [
                (header::COOKIE, cookie.as_str()),
                (header::IF_NONE_MATCH, "\"old\""),
            ];
            assert_eq!(ask(&router, path, &other).await.status(), StatusCode::OK);
        }
    }
}

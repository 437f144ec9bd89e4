//! How the hall answers a request for a file of the round feed: `ETag` and
//! `Last-Modified`, 304 on `If-None-Match` (or `If-Modified-Since` without it), the
//! gzipped bytes for `Accept-Encoding: gzip`, one byte range of the plain bytes for
//! `Range: bytes=N-` (a follower of a game's events), and `Cache-Control` from the file.
//! Nginx answers the exported files the same way (config/nginx-feed-origin.conf).

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::public::round_feed::FeedFile;

/// The answer to a request for `file` with `headers`.
pub(crate) fn respond(file: &FeedFile, headers: &HeaderMap) -> Response {
    let gzip_tag = gzip_etag(&file.etag);
    let modified = httpdate::fmt_http_date(file.modified);
    let unchanged = match header_text(headers, header::IF_NONE_MATCH) {
        Some(tags) => tags_match(tags, &file.etag, &gzip_tag),
        None => header_text(headers, header::IF_MODIFIED_SINCE)
            .and_then(|t| httpdate::parse_http_date(t).ok())
            .is_some_and(|since| file.modified <= since),
    };
    let range = header_text(headers, header::RANGE)
        .filter(|_| if_range_holds(headers, file, &gzip_tag))
        .and_then(|r| parse_range(r, file.body.len()));
    let gzip = range.is_none() && accepts_gzip(headers);
    let etag = if gzip { &gzip_tag } else { &file.etag };
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        match range {
            Some(Ok((start, end))) => {
                let mut r = (
                    StatusCode::PARTIAL_CONTENT,
                    Body::from(file.body.slice(start..end)),
                )
                    .into_response();
                set(
                    &mut r,
                    header::CONTENT_RANGE,
                    &format!("bytes {start}-{}/{}", end - 1, file.body.len()),
                );
                r
            }
            Some(Err(())) => {
                let mut r = StatusCode::RANGE_NOT_SATISFIABLE.into_response();
                set(
                    &mut r,
                    header::CONTENT_RANGE,
                    &format!("bytes */{}", file.body.len()),
                );
                r
            }
            None if gzip => {
                let mut r = Body::from(file.gzip.clone()).into_response();
                set(&mut r, header::CONTENT_ENCODING, "gzip");
                r
            }
            None => Body::from(file.body.clone()).into_response(),
        }
    };
    if !unchanged {
        set(
            &mut response,
            header::CONTENT_TYPE,
            file.kind.content_type(),
        );
    }
    set(&mut response, header::ETAG, etag);
    set(&mut response, header::LAST_MODIFIED, &modified);
    set(&mut response, header::CACHE_CONTROL, file.cache_control());
    set(&mut response, header::VARY, "Accept-Encoding");
    set(&mut response, header::ACCEPT_RANGES, "bytes");
    set(&mut response, header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    response
}

/// A path under `/feed/` the feed has no file for (yet): a round not begun, a table not
/// set up. Kept a second by caches, as a live file.
pub(crate) fn not_found() -> Response {
    let mut r = (StatusCode::NOT_FOUND, "no such file in the round feed\n").into_response();
    set(&mut r, header::CACHE_CONTROL, "max-age=1");
    set(&mut r, header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    r
}

/// A request that names no file of the feed whatever it holds (a query string, an encoded
/// path): `400`, one line, kept a second by caches.
pub(crate) fn refused(why: super::NotAFeedPath) -> Response {
    let text = match why {
        super::NotAFeedPath::Query => "the round feed takes no query string\n",
        super::NotAFeedPath::Encoded => {
            "a path of the round feed has letters, digits, - _ . and / only, not encoded\n"
        }
    };
    let mut r = (StatusCode::BAD_REQUEST, text).into_response();
    set(&mut r, header::CACHE_CONTROL, "max-age=1");
    set(&mut r, header::ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    r
}

fn set(response: &mut Response, name: header::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, v);
    }
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The gzipped body's tag: `"abc"` -> `"abc-gz"`.
fn gzip_etag(etag: &str) -> String {
    format!("{}-gz\"", etag.trim_end_matches('"'))
}

/// True when `If-None-Match` (`tags`) names either body's tag, weakly compared, or `*`.
fn tags_match(tags: &str, plain: &str, gzip: &str) -> bool {
    tags.split(',').map(str::trim).any(|t| {
        let t = t.strip_prefix("W/").unwrap_or(t);
        t == "*" || t == plain || t == gzip
    })
}

/// True unless an `If-Range` names another version: then the whole file is sent.
fn if_range_holds(headers: &HeaderMap, file: &FeedFile, gzip_tag: &str) -> bool {
    match header_text(headers, header::IF_RANGE) {
        None => true,
        Some(t) if t.starts_with('"') => t == file.etag || t == gzip_tag,
        Some(t) => httpdate::parse_http_date(t).is_ok_and(|d| file.modified <= d),
    }
}

/// True when `Accept-Encoding` takes gzip (not with `q=0`).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    header_text(headers, header::ACCEPT_ENCODING).is_some_and(|v| {
        v.split(',').any(|part| {
            let mut it = part.split(';');
            let coding = it.next().unwrap_or("").trim();
            let refused = it.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
    })
}

/// One range of `len` bytes, `bytes=A-`, `bytes=A-B` or `bytes=-N`, as `start..end`;
/// `Err` when it is past the end; `None` for a form this does not read (several ranges:
/// one at most, issue 34), answered with the whole file as HTTP allows.
fn parse_range(value: &str, len: usize) -> Option<Result<(usize, usize), ()>> {
    let spec = value.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() {
        let n = b.parse::<usize>().ok()?;
        if n == 0 || len == 0 {
            return Some(Err(()));
        }
        return Some(Ok((len.saturating_sub(n), len)));
    }
    let start = a.parse::<usize>().ok()?;
    if start >= len {
        return Some(Err(()));
    }
    let end = match b.parse::<usize>() {
        Ok(last) if last >= start => (last + 1).min(len),
        Ok(_) => return None,
        Err(_) if b.is_empty() => len,
        Err(_) => return None,
    };
    Some(Ok((start, end)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::public::round_feed::FileKind;
    use axum::body::Bytes;
    use std::time::{Duration, SystemTime};

    fn file(finished: bool) -> FeedFile {
        FeedFile::new(
            Bytes::from_static(b"[\n{\"seq\":1}\n]\n"),
            FileKind::Json,
            finished,
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000),
        )
    }

    fn ask(file: &FeedFile, headers: &[(&str, &str)]) -> Response {
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            map.insert(
                header::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        respond(file, &map)
    }

    fn text(r: &Response, name: header::HeaderName) -> String {
        r.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    }

    #[test]
    fn a_poll_with_the_tag_in_hand_gets_headers_only() {
        let f = file(false);
        let first = ask(&f, &[]);
        assert_eq!(first.status(), StatusCode::OK);
        let tag = text(&first, header::ETAG);
        assert_eq!(text(&first, header::CACHE_CONTROL), "max-age=1");
        let again = ask(&f, &[("if-none-match", &tag)]);
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(text(&again, header::ETAG), tag);
        let gz = ask(&f, &[("accept-encoding", "gzip, br")]);
        assert_eq!(text(&gz, header::CONTENT_ENCODING), "gzip");
        let gz_tag = text(&gz, header::ETAG);
        assert_ne!(gz_tag, tag);
        let again = ask(
            &f,
            &[("accept-encoding", "gzip"), ("if-none-match", &gz_tag)],
        );
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        let since = text(&first, header::LAST_MODIFIED);
        let again = ask(&f, &[("if-modified-since", &since)]);
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        let other = ask(&f, &[("if-none-match", "\"0000\"")]);
        assert_eq!(other.status(), StatusCode::OK);
        assert_eq!(
            text(&ask(&file(true), &[]), header::CACHE_CONTROL),
            "max-age=31536000, immutable"
        );
    }

    #[test]
    fn a_follower_gets_the_bytes_after_the_ones_it_has() {
        let f = file(false);
        let len = f.body.len();
        let r = ask(&f, &[("range", "bytes=2-"), ("accept-encoding", "gzip")]);
        assert_eq!(r.status(), StatusCode::PARTIAL_CONTENT);
        assert_eq!(
            text(&r, header::CONTENT_RANGE),
            format!("bytes 2-{}/{len}", len - 1)
        );
        assert!(
            r.headers().get(header::CONTENT_ENCODING).is_none(),
            "ranges are of the plain bytes"
        );
        let past = ask(&f, &[("range", &format!("bytes={len}-"))]);
        assert_eq!(past.status(), StatusCode::RANGE_NOT_SATISFIABLE);
        assert_eq!(parse_range("bytes=-3", 10), Some(Ok((7, 10))));
        assert_eq!(parse_range("bytes=2-4", 10), Some(Ok((2, 5))));
        assert_eq!(parse_range("lines=1-", 10), None);
        // One range at most (issue 34): two are the whole file, 200, not one 206 of it.
        assert_eq!(parse_range("bytes=1-2,4-5", 10), None);
        let two = ask(&f, &[("range", "bytes=0-1,3-4")]);
        assert_eq!(two.status(), StatusCode::OK);
        assert!(two.headers().get(header::CONTENT_RANGE).is_none());
        let stale = ask(&f, &[("range", "bytes=2-"), ("if-range", "\"0000\"")]);
        assert_eq!(stale.status(), StatusCode::OK, "another version: all of it");
    }

    #[test]
    fn gzip_refused_with_q_zero_is_not_sent() {
        let f = file(false);
        let r = ask(&f, &[("accept-encoding", "gzip;q=0, identity")]);
        assert!(r.headers().get(header::CONTENT_ENCODING).is_none());
    }
}

//! Which language a request gets: `?lang=` first, then the `lang` cookie the pages'
//! language switch sets, then `Accept-Language` (by its q-values), then the configured
//! default.

use http::header::{ACCEPT_LANGUAGE, COOKIE};
use http::HeaderMap;

use crate::Lang;

/// The name of the cookie (and of the query parameter) that holds a chosen language.
pub const COOKIE_NAME: &str = "lang";

/// The language for a request: `query` is the URL's query string (`lang=zh&move=3`),
/// `cookie` the `Cookie` header, `accept_language` the `Accept-Language` header. A value
/// that names no language is passed over, never an error.
pub fn negotiate(
    query: Option<&str>,
    cookie: Option<&str>,
    accept_language: Option<&str>,
    default: Lang,
) -> Lang {
    query
        .and_then(from_query)
        .or_else(|| cookie.and_then(from_cookie))
        .or_else(|| accept_language.and_then(from_accept_language))
        .unwrap_or(default)
}

/// [`negotiate`] on a request's query string and headers.
pub fn from_request(query: Option<&str>, headers: &HeaderMap, default: Lang) -> Lang {
    let accept = headers
        .get_all(ACCEPT_LANGUAGE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",");
    let cookies = headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(";");
    negotiate(
        query,
        (!cookies.is_empty()).then_some(cookies.as_str()),
        (!accept.is_empty()).then_some(accept.as_str()),
        default,
    )
}

/// `lang=` in a query string (the last one that names a language).
fn from_query(query: &str) -> Option<Lang> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .filter(|(k, _)| *k == COOKIE_NAME)
        .filter_map(|(_, v)| Lang::parse(&v.replace("%2D", "-").replace("%2d", "-")).ok())
        .next_back()
}

/// The `lang` cookie in a `Cookie` header.
fn from_cookie(header: &str) -> Option<Lang> {
    header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(k, _)| *k == COOKIE_NAME)
        .find_map(|(_, v)| Lang::parse(v.trim_matches('"')).ok())
}

/// The best language of an `Accept-Language` header: the highest q (1 when not given),
/// the first of equals; q=0 and unknown tags are passed over.
fn from_accept_language(header: &str) -> Option<Lang> {
    let mut best: Option<(f32, Lang)> = None;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or_default().trim();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if q <= 0.0 || !q.is_finite() {
            continue;
        }
        let Ok(lang) = Lang::parse(tag) else {
            continue;
        };
        if best.is_none_or(|(b, _)| q > b) {
            best = Some((q, lang));
        }
    }
    best.map(|(_, lang)| lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_wins_then_the_cookie_then_accept_language_then_the_default() {
        let zh = Some("zh-CN,zh;q=0.9,en;q=0.8");
        assert_eq!(negotiate(None, None, None, Lang::Ja), Lang::Ja);
        assert_eq!(negotiate(None, None, zh, Lang::En), Lang::Zh);
        assert_eq!(
            negotiate(None, Some("a=1; lang=zh-Hant"), zh, Lang::En),
            Lang::ZhHant
        );
        assert_eq!(
            negotiate(Some("move=3&lang=ja"), Some("lang=zh-Hant"), zh, Lang::En),
            Lang::Ja
        );
        // What names no language is passed over.
        assert_eq!(
            negotiate(
                Some("lang=xx"),
                Some("lang=yy"),
                Some("fr, de"),
                Lang::ZhHant
            ),
            Lang::ZhHant
        );
        assert_eq!(
            negotiate(Some("lang=zh%2DTW"), None, None, Lang::En),
            Lang::ZhHant
        );
    }

    #[test]
    fn accept_language_goes_by_q_values() {
        assert_eq!(
            from_accept_language("fr, ja;q=0.5, zh-TW;q=0.8"),
            Some(Lang::ZhHant)
        );
        assert_eq!(from_accept_language("en;q=0, ja"), Some(Lang::Ja));
        assert_eq!(from_accept_language("ja;q=0.7, en;q=0.7"), Some(Lang::Ja));
        assert_eq!(from_accept_language("*"), None);
        assert_eq!(from_accept_language("zh;q=abc"), Some(Lang::Zh));
        assert_eq!(from_accept_language(""), None);
    }

    #[test]
    fn headers_are_read_from_a_request() {
        let mut h = HeaderMap::new();
        h.insert(ACCEPT_LANGUAGE, "zh-CN".parse().unwrap());
        assert_eq!(from_request(None, &h, Lang::En), Lang::Zh);
        h.insert(COOKIE, "lang=ja".parse().unwrap());
        assert_eq!(from_request(None, &h, Lang::En), Lang::Ja);
        assert_eq!(from_request(Some("lang=en"), &h, Lang::Zh), Lang::En);
    }
}

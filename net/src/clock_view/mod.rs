//! What the players see, over HTTP (docs/mqtt-http.md, "HTTP"): `/clock`, the two faces large and side
//! by side for a tablet beside the board (the one facing each player upright for them),
//! and the pictures it and the live page show, drawn by the one pure function the
//! displays use ([`tengen_table::render_in`]):
//!
//! - `/clock/B.png`, `/clock/W.png`: a face as it is now (`?scale=1..8`, default 4), its
//!   words in the language the request asks for (`?lang=`, as the page does), like the page;
//! - `/clock/events`: Server-Sent Events, one `face` event naming the colour (`B`, `W`)
//!   each time a face changes (at most ten times a second each), so a page reloads only
//!   the picture that changed.
//!
//! The board serves it on its own listener from the faces its loop draws for the displays;
//! the hall serves the same router per board (`/board/{t}/{b}/clock`), from faces it draws
//! from its fold of the board's events. The page passes its own query's `key` on to the
//! pictures and the events (the hall's key to a board's live clock).

use std::convert::Infallible;

use axum::extract::{Path, Query, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use tokio::sync::watch;

use tengen_l10n::{Lang, Render};
use tengen_rules::Color;
use tengen_table::PlayerFaces;

/// The tablet page.
const PAGE: &str = include_str!("clock.html");

/// The largest `?scale` of a face picture (1024x512 pixels).
const MAX_SCALE: u32 = 8;

#[derive(Clone)]
struct ClockState {
    faces: watch::Receiver<PlayerFaces>,
    /// Black's face is turned upside down on the tablet by default: Black sits at the far
    /// side of a tablet whose near edge faces south.
    black_far: bool,
    /// The page's language where the request names none.
    lang: Lang,
}

/// The routes of `/clock`, reading the faces from `faces`; `black_far`: Black sits at the
/// far side of the tablet (north or west of the board), so Black's face is turned upside
/// down (the page's `?flip` swaps it). The page's words are in the language the request
/// asks for (`?lang=`, the `lang` cookie, `Accept-Language`), else in `lang`.
pub fn router(faces: watch::Receiver<PlayerFaces>, black_far: bool, lang: Lang) -> Router {
    Router::new()
        .route("/clock", get(page))
        .route("/clock/events", get(events))
        .route("/clock/{face}", get(picture))
        .with_state(ClockState {
            faces,
            black_far,
            lang,
        })
}

async fn page(
    State(state): State<ClockState>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Html<String> {
    let lang = tengen_l10n::from_request(query.as_deref(), &headers, state.lang);
    Html(Render::served(lang).page(PAGE).replace(
        "__BLACK_FAR__",
        if state.black_far { "true" } else { "false" },
    ))
}

#[derive(Deserialize)]
struct PictureQuery {
    scale: Option<u32>,
}

async fn picture(
    State(state): State<ClockState>,
    Path(face): Path<String>,
    Query(q): Query<PictureQuery>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let color = match face.as_str() {
        "B.png" => Color::Black,
        "W.png" => Color::White,
        _ => return (StatusCode::NOT_FOUND, "no such face: B.png or W.png\n").into_response(),
    };
    let scale = q.scale.unwrap_or(4);
    if !(1..=MAX_SCALE).contains(&scale) {
        return (
            StatusCode::BAD_REQUEST,
            format!("scale: {scale} is not in 1..={MAX_SCALE}\n"),
        )
            .into_response();
    }
    let Some(face) = state.faces.borrow().get(color).cloned() else {
        return (StatusCode::SERVICE_UNAVAILABLE, "no face yet\n").into_response();
    };
    // The face's words in the page's language (the page names it: `?lang=`), as the
    // players' displays draw them in theirs (`[display] lang`).
    let lang = tengen_l10n::from_request(query.as_deref(), &headers, state.lang);
    let png = tengen_table::render_in(&face, lang).to_png(scale);
    (
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        png,
    )
        .into_response()
}

/// One `face` event per colour at once, then one each time that colour's face changes.
async fn events(
    State(state): State<ClockState>,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let mut rx = state.faces;
    let first = rx.borrow_and_update().clone();
    let pending: Vec<&'static str> = ["B", "W"]
        .into_iter()
        .filter(|c| first.get(color_of(c)).is_some())
        .collect();
    let stream = stream::unfold(
        (rx, first, pending),
        |(mut rx, mut last, mut pending)| async move {
            loop {
                if let Some(c) = pending.pop() {
                    let event = SseEvent::default().event("face").data(c);
                    return Some((Ok(event), (rx, last, pending)));
                }
                if rx.changed().await.is_err() {
                    return None;
                }
                let now = rx.borrow_and_update().clone();
                for c in ["B", "W"] {
                    let color = color_of(c);
                    if now.get(color) != last.get(color) {
                        pending.push(c);
                    }
                }
                last = now;
            }
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::default())
}

fn color_of(c: &str) -> Color {
    if c == "B" {
        Color::Black
    } else {
        Color::White
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word of the tablet page is a message in every language.
    #[test]
    fn the_tablet_page_is_in_every_language() {
        assert_eq!(tengen_l10n::check_template(PAGE), vec![]);
        for lang in Lang::ALL {
            let page = Render::served(lang).page(PAGE);
            assert!(page.contains(&format!("<html lang=\"{}\">", lang.tag())));
            assert!(!page.contains("{{"));
        }
    }

    /// The face pictures are drawn in the language the page asks for, as the players'
    /// displays draw theirs: `?lang=zh` is not the English picture.
    #[tokio::test]
    async fn the_pictures_speak_the_pages_language() {
        use http_body_util::BodyExt;
        use tower::ServiceExt;
        let idle = tengen_table::Face {
            color: Color::Black,
            screen: tengen_table::face::Screen::Idle {
                board: "hall1-07".into(),
            },
        };
        let (_tx, faces) = watch::channel(PlayerFaces {
            black: Some(idle.clone()),
            white: None,
        });
        let app = router(faces, false, Lang::En);
        let mut pictures = Vec::new();
        for query in ["", "?lang=zh", "?lang=ja"] {
            let req = axum::http::Request::get(format!("/clock/B.png{query}"))
                .body(axum::body::Body::empty())
                .expect("request");
            let resp = app.clone().oneshot(req).await.expect("response");
            assert_eq!(resp.status(), StatusCode::OK);
            let body = resp.into_body().collect().await.expect("body").to_bytes();
            pictures.push(body);
        }
        let expected = |lang| tengen_table::render_in(&idle, lang).to_png(4);
        assert_eq!(pictures[0], expected(Lang::En));
        assert_eq!(pictures[1], expected(Lang::Zh));
        assert_eq!(pictures[2], expected(Lang::Ja));
        assert_ne!(pictures[0], pictures[1]);
    }
}

//! The live web view of one board (docs/mqtt-http.md, "HTTP"): the page, `/game.sgf`, `/events` as
//! Server-Sent Events that resume from `Last-Event-ID`, and `/api/state`, all read from a
//! [`LiveFeed`]. The board serves it on `http.listen`; the hall serves the same router per
//! board under `/board/{tournament}/{board}/`.

mod feed;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;

use axum::extract::{Query, RawQuery, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::stream::{self, Stream};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

pub use feed::LiveFeed;

use tengen_l10n::{Lang, Render};
use tengen_protocol::Envelope;

/// The live page's template: board (SVG), clocks, moves, alerts; rebuilt in the browser
/// from `/events`. `?move=N` opens it at move N (the record's first N moves on the board,
/// not following new ones until *live* is pressed). Its words are placeholders that
/// [`tengen_l10n::Render`] fills in the reader's language.
pub const PAGE: &str = include_str!("page.html");

/// The line of [`PAGE`] that [`PageOptions`] replace.
const OPTIONS_LINE: &str = "const OPTIONS = {};";

/// How a server frames one board's page for its readers: what the page is, what it shows
/// and where its analysis comes from. The board's own page and the hall's public page use
/// the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageOptions {
    /// What the page is, in its heading and title before the board's id
    /// (`Commentary – delayed by 3 moves`); `None`: `tengen`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heading: Option<String>,
    /// A sentence under the heading on what the reader sees.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The sentence instead once the game is over (a delay that lets the whole game out at
    /// its end no longer holds anything back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note_over: Option<String>,
    /// Where the engine analysis is read from; `None`: `api/analysis` beside the page
    /// (the hall's public page; a page without one hides the panel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<String>,
    /// What the analysis panel says of what the engine saw (the public positions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis_note: Option<String>,
    /// A link to the players' live clock for a tablet at the table (for the arbiters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_link: Option<String>,
    /// What the page says of that link (who may have it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_note: Option<String>,
    /// Leave out the players' faces (`clock/...`), which take a second event stream: the
    /// hall's pages keep to one each (a browser opens at most six connections to a host).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hide_faces: bool,
    /// The page's language where the request names none (`?lang=`, the `lang` cookie,
    /// `Accept-Language`): the board's `[board] lang` or the hall's `[hall] lang`.
    #[serde(skip)]
    pub lang: Lang,
}

impl PageOptions {
    /// [`PAGE`] with these options in it, its words as `render` says.
    pub fn page(&self, render: Render) -> String {
        let page = render.page(PAGE);
        if *self
            == (PageOptions {
                lang: self.lang,
                ..PageOptions::default()
            })
        {
            return page;
        }
        let json = serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string());
        // Inside a <script>: no '<' (no `</script>`, no `<!--`), and no line separators.
        let json = json
            .replace('<', "\\u003c")
            .replace('\u{2028}', "\\u2028")
            .replace('\u{2029}', "\\u2029");
        page.replacen(OPTIONS_LINE, &format!("const OPTIONS = {json};"), 1)
    }
}

/// The routes of one board's view, reading from `feed`.
pub fn router(feed: LiveFeed) -> Router {
    router_with(feed, PageOptions::default())
}

/// [`router`] with the page framed by `options`, in the language each request asks for.
pub fn router_with(feed: LiveFeed, options: PageOptions) -> Router {
    Router::new()
        .route(
            "/",
            get(
                move |RawQuery(query): RawQuery, headers: HeaderMap| async move {
                    let lang = tengen_l10n::from_request(query.as_deref(), &headers, options.lang);
                    Html(options.page(Render::served(lang)))
                },
            ),
        )
        .route("/game.sgf", get(sgf))
        .route("/api/state", get(state))
        .route("/events", get(events))
        .with_state(feed)
}

/// Serves `routes` ([`router`], with a board's own routes merged in) on `addr` until the
/// task is stopped. Binding errors are returned at once so the caller can say which address
/// is taken.
pub async fn serve(addr: &str, routes: Router) -> std::io::Result<ServeHandle> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, routes).await {
            tracing::error!("http server stopped: {e}");
        }
    });
    Ok(ServeHandle { addr: local, task })
}

/// A running HTTP server: its bound address; dropping the handle does not stop it, `stop` does.
pub struct ServeHandle {
    /// The address actually bound (useful with port 0).
    pub addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl ServeHandle {
    /// Stops the server.
    pub fn stop(self) {
        self.task.abort();
    }
}

async fn sgf(State(feed): State<LiveFeed>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/x-go-sgf; charset=utf-8")],
        feed.sgf(),
    )
        .into_response()
}

/// The response header of `/api/state` saying how many ms ago the snapshot was taken: the
/// page counts the running clock down from then, not from its own load.
const STATE_AGE_HEADER: &str = "x-tengen-state-age-ms";

async fn state(State(feed): State<LiveFeed>) -> Response {
    let (state, age) = feed.state_with_age();
    if state.is_null() {
        return (StatusCode::SERVICE_UNAVAILABLE, "no game yet\n").into_response();
    }
    let age_ms = u64::try_from(age.as_millis()).unwrap_or(u64::MAX);
    (
        [
            (
                header::HeaderName::from_static(STATE_AGE_HEADER),
                age_ms.to_string(),
            ),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
        axum::Json(state),
    )
        .into_response()
}

/// `?from=SEQ` does what `Last-Event-ID: SEQ` does, for clients that cannot set headers.
#[derive(Deserialize)]
struct EventsQuery {
    from: Option<u64>,
}

/// Room a viewer's queue keeps once its backlog is served.
const QUEUE_KEEP: usize = 16;

/// One viewer of `/events`: what it has yet to send (the backlog, or what it missed), the
/// live events, and the last `seq` sent.
struct Follower {
    feed: LiveFeed,
    rx: broadcast::Receiver<Envelope>,
    queue: VecDeque<Envelope>,
    last: u64,
    /// The feed's journal when this viewer came ([`LiveFeed::journal`]).
    journal: u64,
}

/// What a viewer of `/events` is sent next.
#[derive(Debug, PartialEq)]
enum Next {
    /// An event.
    Event(Box<Envelope>),
    /// The board came back with a new journal: the viewer starts again (the page reloads).
    Restarted,
}

impl Follower {
    /// The next event for this viewer, waiting for it; `None` when the feed is gone.
    async fn next(&mut self) -> Option<Next> {
        loop {
            if self.feed.journal() != self.journal {
                return Some(Next::Restarted);
            }
            if let Some(e) = self.queue.pop_front() {
                if e.seq <= self.last {
                    continue;
                }
                self.last = e.seq;
                return Some(Next::Event(Box::new(e)));
            }
            // The backlog is served: give its room back. A viewer follows for hours, and
            // the emptied room of a game's backlog (a few hundred events) was ~100 kB per
            // viewer, most of a hall's memory with thousands of viewers on one board.
            if self.queue.capacity() > QUEUE_KEEP {
                self.queue.shrink_to(QUEUE_KEEP);
            }
            match self.rx.recv().await {
                Ok(e) => self.queue.push_back(e),
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let missed = self.feed.events_after(self.last);
                    self.queue.extend(missed);
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

async fn events(
    State(feed): State<LiveFeed>,
    headers: HeaderMap,
    Query(q): Query<EventsQuery>,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let from = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .or(q.from)
        .unwrap_or(0);
    // Subscribe before reading the backlog, so nothing falls between the two.
    let rx = feed.subscribe();
    let journal = feed.journal();
    // A viewer past the feed's last event followed a journal the board no longer has.
    let restarted = from > feed.last_seq();
    let queue: VecDeque<Envelope> = feed.events_after(from).into();
    let follower = Follower {
        feed,
        rx,
        queue,
        last: from,
        journal: journal.wrapping_sub(u64::from(restarted)),
    };
    // A new journal ends the stream with a `restart` event: the page loads again.
    let stream = stream::unfold(Some(follower), |f| async move {
        let mut f = f?;
        match f.next().await? {
            Next::Event(e) => Some((Ok(to_sse(&e)), Some(f))),
            Next::Restarted => Some((
                Ok(SseEvent::default().event("restart").data("a new journal")),
                None,
            )),
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

fn to_sse(e: &Envelope) -> SseEvent {
    let data = serde_json::to_string(e).unwrap_or_else(|_| "{}".to_string());
    SseEvent::default().id(e.seq.to_string()).data(data)
}

/// A pass with sequence number `seq`, for the tests of the feed and the stream.
#[cfg(test)]
fn test_envelope(seq: u64) -> Envelope {
    Envelope {
        seq,
        time: tengen_protocol::Timestamp::from_millis(1_764_374_400_000),
        board: "b".into(),
        game: "g".into(),
        by: None,
        event: tengen_protocol::Event::Pass {
            number: seq as u32,
            color: tengen_rules::Color::Black,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::test_envelope as env;
    use super::*;

    /// The options go into the page as one script line, and text from a board or a config
    /// cannot end the script (a name with `</script>` in it stays text).
    #[test]
    fn options_are_written_into_the_page_safely() {
        let en = Render::served(Lang::En);
        assert_eq!(PageOptions::default().page(en), en.page(PAGE));
        assert!(
            PAGE.contains(OPTIONS_LINE),
            "the page has the line to replace"
        );
        let page = PageOptions {
            heading: Some("Commentary \u{2013} delayed by 3 moves".into()),
            note: Some("</script><script>alert(1)</script>\u{2028}".into()),
            ..PageOptions::default()
        }
        .page(en);
        assert!(!page.contains(OPTIONS_LINE));
        let line = page
            .lines()
            .find(|l| l.starts_with("const OPTIONS = "))
            .expect("the options line");
        assert!(!line.contains('<') && !line.contains('\u{2028}'), "{line}");
        let json = line
            .strip_prefix("const OPTIONS = ")
            .and_then(|l| l.strip_suffix(';'))
            .expect("a JSON object");
        let back: serde_json::Value = serde_json::from_str(json).expect("JSON");
        assert_eq!(back["heading"], "Commentary \u{2013} delayed by 3 moves");
        assert_eq!(back["note"], "</script><script>alert(1)</script>\u{2028}");
        assert_eq!(
            page.matches("</script>").count(),
            en.page(PAGE).matches("</script>").count()
        );
    }

    /// Every word the page names is a message in every language, and the page says which
    /// language it is in.
    #[test]
    fn the_page_is_in_every_language() {
        assert_eq!(tengen_l10n::check_template(PAGE), vec![]);
        for lang in Lang::ALL {
            let page = PageOptions::default().page(Render::served(lang));
            assert!(page.contains(&format!("<html lang=\"{}\">", lang.tag())));
            assert!(!page.contains("{{"), "every placeholder filled");
        }
    }

    /// A viewer that joined a long game gets the whole backlog in order, then the live
    /// events, and keeps no room for the backlog once it is sent (thousands of viewers of
    /// one board each held the room of a few hundred events).
    #[tokio::test]
    async fn a_served_backlog_gives_its_room_back() {
        let feed = LiveFeed::new();
        for s in 1..=500 {
            feed.publish(env(s));
        }
        let mut f = Follower {
            rx: feed.subscribe(),
            queue: feed.events_after(0).into(),
            feed: feed.clone(),
            last: 0,
            journal: feed.journal(),
        };
        assert!(f.queue.capacity() >= 500);
        for s in 1..=500 {
            assert_eq!(f.next().await, Some(Next::Event(Box::new(env(s)))));
        }
        feed.publish(env(501));
        assert_eq!(f.next().await, Some(Next::Event(Box::new(env(501)))));
        assert!(
            f.queue.capacity() <= QUEUE_KEEP,
            "capacity {} after the backlog",
            f.queue.capacity()
        );
    }

    /// A board back with a new journal: the feed starts again, and a viewer of the old
    /// journal is told to start again at the new journal's first event, not left waiting
    /// for `seq`s it has already seen.
    #[tokio::test]
    async fn a_viewer_of_an_old_journal_is_told_to_start_again() {
        let feed = LiveFeed::new();
        for s in 1..=3 {
            feed.publish(env(s));
        }
        let mut f = Follower {
            rx: feed.subscribe(),
            queue: feed.events_after(3).into(),
            feed: feed.clone(),
            last: 3,
            journal: feed.journal(),
        };
        feed.restart();
        assert_eq!(feed.last_seq(), 0);
        feed.publish(env(1));
        assert_eq!(feed.events_after(0), vec![env(1)]);
        assert_eq!(f.next().await, Some(Next::Restarted));
    }
}

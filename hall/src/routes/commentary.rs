//! The commentators' pages, behind the console login of an `[[arbiter]]` entry with
//! `role = "commentator"` (arbiters may read them too): read only, no command, no console.
//! They show the boards live for a closed commentary room (`[hall] commentary = "live"`)
//! or, by default, as the public sees them, behind the broadcast delay:
//!
//! - `/commentary`: the overview page on `/api/commentary/boards`;
//! - `/commentary/board/{t}/{b}/...`: the board page (navigation, game info, variations)
//!   on the live or the public feed, with the engine analysis the public page shows (of the
//!   public positions only: a live room's page says the newest moves have none).
//!
//! Every title and heading says which: "Commentary – delayed by 3 moves / 5 min",
//! "Commentary – live (closed room)", or "Commentary – live (no broadcast delay)" when the
//! hall has none.

use std::collections::HashMap;
use std::time::Instant;

use axum::extract::{Path, Request, State};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use tengen_l10n::{text, Lang, Render};
use tengen_net::live_view::PageOptions;

use crate::boards::hall_state::lock;
use crate::config::DelayPolicy;
use crate::public::OVERVIEW;
use crate::routes::console_gate::Commentator;
use crate::routes::{board_key, no_such_board, one_board, page_redirect, App};

/// The commentary routes.
pub(crate) fn routes() -> Router<App> {
    Router::new()
        .route("/commentary", get(overview))
        .route("/api/commentary/boards", get(boards))
        .route(
            "/commentary/board/{tournament}/{board}",
            get(board_redirect),
        )
        .route("/commentary/board/{tournament}/{board}/", get(board_view))
        .route(
            "/commentary/board/{tournament}/{board}/{*rest}",
            get(board_view),
        )
}

/// What the commentators see, in words for their pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// The live boards (`[hall] commentary = "live"`), the public ones behind `delay`.
    Live { delay: Option<DelayPolicy> },
    /// The public boards, behind `delay`.
    Public { delay: Option<DelayPolicy> },
}

impl Seen {
    fn of(app: &App) -> Seen {
        let delay = lock(&app.hall)
            .delay_policy()
            .filter(|d| delay_words(d, Lang::En).is_some());
        if app.commentary_live {
            Seen::Live { delay }
        } else {
            Seen::Public { delay }
        }
    }

    /// The pages' heading: what they are.
    fn heading(self, lang: Lang) -> String {
        let what = match self {
            Seen::Live { .. } => text(lang, "commentary-live-closed", &[]),
            Seen::Public { delay: Some(d) } => text(
                lang,
                "commentary-delayed",
                &[("delay", &delay_words(&d, lang).unwrap_or_default())],
            ),
            Seen::Public { delay: None } => text(lang, "commentary-live-public", &[]),
        };
        text(lang, "commentary-heading", &[("what", &what)])
    }

    /// What a board's page says under the heading.
    fn note(self, lang: Lang) -> String {
        match self {
            Seen::Live { delay: Some(_) } => text(lang, "commentary-note-live-ahead", &[]),
            Seen::Live { delay: None } | Seen::Public { delay: None } => {
                text(lang, "commentary-note-live", &[])
            }
            Seen::Public { delay: Some(d) } => text(
                lang,
                "commentary-note-delayed",
                &[("delay", &delay_words(&d, lang).unwrap_or_default())],
            ),
        }
    }

    /// What the analysis panel says of what the engine saw, where it is not what the page
    /// shows.
    /// The note once the game is over: under a delay that lets a game out whole at its
    /// end, nothing is held back any more.
    fn note_over(self, lang: Lang) -> Option<String> {
        match self {
            Seen::Public { delay: Some(d) } if d.release_at_end => {
                Some(text(lang, "commentary-note-over", &[]))
            }
            _ => None,
        }
    }

    fn analysis_note(self, lang: Lang) -> Option<String> {
        match self {
            Seen::Live { delay: Some(d) } => Some(text(
                lang,
                "commentary-analysis-note",
                &[("delay", &delay_words(&d, lang).unwrap_or_default())],
            )),
            _ => None,
        }
    }
}

/// A broadcast delay in words (`3 moves / 5 min`, `1 move`, `30 s`); `None` when it holds
/// nothing back.
fn delay_words(d: &DelayPolicy, lang: Lang) -> Option<String> {
    let mut parts = Vec::new();
    match d.moves {
        0 => {}
        1 => parts.push(text(lang, "delay-moves-one", &[])),
        n => parts.push(text(lang, "delay-moves", &[("n", &n.to_string())])),
    }
    let ms = d.window_ms;
    let minutes = |n: String| text(lang, "delay-min", &[("n", &n)]);
    if ms >= 60_000 && ms % 60_000 == 0 {
        parts.push(minutes((ms / 60_000).to_string()));
    } else if ms >= 60_000 {
        parts.push(minutes(format!("{:.1}", ms as f64 / 60_000.0)));
    } else if ms > 0 {
        parts.push(text(
            lang,
            "delay-s",
            &[("n", &ms.div_ceil(1000).to_string())],
        ));
    }
    (!parts.is_empty()).then(|| parts.join(" / "))
}

async fn overview(State(app): State<App>, _: Commentator) -> Response {
    let lang = super::lang::current();
    let heading = serde_json::to_string(&Seen::of(&app).heading(lang))
        .unwrap_or_default()
        .replace('<', "\\u003c");
    Html(
        Render::served(lang)
            .page(OVERVIEW)
            .replacen(
                "const BOARDS = \"/api/boards\";",
                "const BOARDS = \"/api/commentary/boards\";",
                1,
            )
            .replacen(
                "const HEADING = \"\";",
                &format!("const HEADING = {heading};"),
                1,
            ),
    )
    .into_response()
}

async fn boards(State(app): State<App>, _: Commentator) -> Response {
    Json(lock(&app.hall).commentary_boards_json(Instant::now())).into_response()
}

async fn board_redirect(_: Commentator, Path((t, b)): Path<(String, String)>) -> Response {
    page_redirect("/commentary", &t, &b)
}

/// A board's page for commentators: on the live feed or the public one, as configured,
/// titled as what it is, with the engine analysis of the public positions.
async fn board_view(
    State(app): State<App>,
    _: Commentator,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    let key = board_key(&params);
    let feed = key
        .as_ref()
        .and_then(|k| lock(&app.hall).commentary_feed(k));
    let (Some(feed), Some(key)) = (feed, key) else {
        return no_such_board();
    };
    let seen = Seen::of(&app);
    let lang = super::lang::current();
    let options = PageOptions {
        heading: Some(seen.heading(lang)),
        note: Some(seen.note(lang)),
        note_over: seen.note_over(lang),
        // The public page's analysis: the same estimates of the same public positions.
        analysis: Some(format!(
            "/board/{}/{}/api/analysis",
            key.tournament, key.board
        )),
        analysis_note: seen.analysis_note(lang),
        ..PageOptions::default()
    };
    one_board(feed, options, &params, req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delay(moves: u32, window_ms: u64) -> Option<DelayPolicy> {
        Some(DelayPolicy {
            moves,
            window_ms,
            release_at_end: true,
        })
    }

    #[test]
    fn a_finished_game_under_a_delay_that_releases_it_says_nothing_is_held_back() {
        assert_eq!(
            Seen::Public { delay: delay(5, 0) }
                .note_over(Lang::Zh)
                .as_deref(),
            Some("对局已结束：所有着手均已显示。")
        );
        let holding = Some(DelayPolicy {
            moves: 5,
            window_ms: 0,
            release_at_end: false,
        });
        assert_eq!(Seen::Public { delay: holding }.note_over(Lang::En), None);
        assert_eq!(Seen::Live { delay: delay(5, 0) }.note_over(Lang::En), None);
    }

    #[test]
    fn every_heading_says_live_or_delayed_and_by_how_much() {
        let heading = |s: Seen| s.heading(Lang::En);
        assert_eq!(
            heading(Seen::Public {
                delay: delay(2, 300_000)
            }),
            "Commentary \u{2013} delayed by 2 moves / 5 min"
        );
        assert_eq!(
            heading(Seen::Public { delay: delay(1, 0) }),
            "Commentary \u{2013} delayed by 1 move"
        );
        assert_eq!(
            heading(Seen::Public {
                delay: delay(0, 90_000)
            }),
            "Commentary \u{2013} delayed by 1.5 min"
        );
        assert_eq!(
            heading(Seen::Public {
                delay: delay(0, 30_000)
            }),
            "Commentary \u{2013} delayed by 30 s"
        );
        assert_eq!(
            heading(Seen::Public { delay: None }),
            "Commentary \u{2013} live (no broadcast delay)"
        );
        assert_eq!(
            heading(Seen::Live { delay: delay(3, 0) }),
            "Commentary \u{2013} live (closed room)"
        );
        assert_eq!(delay_words(&delay(0, 0).unwrap(), Lang::En), None);
        // Only a live room ahead of the broadcast is told its analysis lags.
        assert!(Seen::Live { delay: delay(3, 0) }
            .analysis_note(Lang::En)
            .is_some_and(|n| n.contains("3 moves behind")));
        assert_eq!(
            Seen::Public { delay: delay(3, 0) }.analysis_note(Lang::En),
            None
        );
        assert_eq!(Seen::Live { delay: None }.analysis_note(Lang::En), None);
        assert_eq!(
            Seen::Public {
                delay: delay(2, 300_000)
            }
            .heading(Lang::Zh),
            "解说 \u{2013} 延迟 2手 / 5分钟"
        );
    }
}

//! The incident log per table (issue 31), arbiters only: every alert (those put right on
//! the board too), what was decided about it, by whom and when, every warning, the
//! arbiter's clock changes, restarts, reopenings and their reasons, results, a void game,
//! and the results confirmed or corrected at the hall. Folded from the board's own events
//! ([`tengen_protocol::incidents`]) and the hall's notes, in the reader's language.
//!
//! - `GET /api/console/incidents/{tournament}/{board}[?game=ID]`: one game's log as JSON
//!   (the board's current game when no `game`), each line also in words (`text`).
//! - `GET /console/incidents/{tournament}/{board}[?game=ID]`: the same as a page that prints
//!   cleanly, for an appeals committee.
//! - `GET /console/incidents/round/{round}`: every table of a round, one after the other.
//! - The arbiters' round zip carries each table's page as `incidents/{table}.html`
//!   ([`zip_entry`]), in the hall's language (`[hall] lang`).

use std::time::Instant;

use axum::extract::{Path, Query, State};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::{Json, Router};
use serde_json::{json, Value};
use tengen_l10n::{html_escape, text, Lang, Render};
use tengen_protocol::event::{ClearedHow, EndReason};
use tengen_protocol::incidents::{incidents, Incident, What};
use tengen_protocol::topics::BoardKey;
use tengen_protocol::{Envelope, GameView, Timestamp};
use tengen_rules::Color;

use crate::boards::archive;
use crate::boards::hall_state::lock;
use crate::routes::console_gate::Arbiter;
use crate::routes::{no_such_board, not_found, App};

/// The incident log's pages.
pub(crate) fn routes() -> Router<App> {
    Router::new()
        .route("/console/incidents/round/{round}", get(round_page))
        .route("/console/incidents/{tournament}/{board}", get(log_page))
}

/// The incident log's route of the console's API (see
/// [`super::console_api`]).
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![("/api/console/incidents/{tournament}/{board}", get(log_json))]
}

/// One game's log: who played, and the lines.
struct GameLog {
    key: BoardKey,
    game: String,
    view: GameView,
    lines: Vec<Line>,
}

/// One line: when, at which move, what (in words), who.
struct Line {
    time: Timestamp,
    number: Option<u32>,
    kind: String,
    text: String,
    why: Option<String>,
    by: Option<String>,
}

/// The events of game `game` of board `key` the hall holds: the archive's (whole), else
/// the board's live feed (since the hall followed it); the board's current game when
/// `game` is `None`.
fn events_of(app: &App, key: &BoardKey, game: Option<&str>) -> Option<(String, Vec<Envelope>)> {
    let live = lock(&app.hall).feed(key);
    let game = match game {
        Some(g) => g.to_string(),
        None => live
            .as_ref()?
            .events_after(0)
            .iter()
            .rev()
            .find(|e| !e.game.is_empty())?
            .game
            .clone(),
    };
    if let Some(shared) = &app.archive {
        if let Some(events) = archive::lock(shared).events(key, &game) {
            return Some((game, events));
        }
    }
    let events: Vec<Envelope> = live?
        .events_after(0)
        .into_iter()
        .filter(|e| e.game == game)
        .collect();
    (!events.is_empty()).then_some((game, events))
}

/// The log of game `game` (the current one when `None`) of board `key`, in `lang`.
fn game_log(app: &App, key: &BoardKey, game: Option<&str>, lang: Lang) -> Option<GameLog> {
    let (game, events) = events_of(app, key, game)?;
    let mut view = GameView::new();
    for e in &events {
        let _ = view.apply_envelope(e);
    }
    let mut lines: Vec<Line> = incidents(&events, &game)
        .iter()
        .map(|i| line(lang, i))
        .collect();
    let notes = lock(&app.hall).notes_for(key, &game, Instant::now());
    for (note, at_ms) in notes {
        lines.push(note_line(lang, &note, Timestamp::from_millis(at_ms)));
    }
    lines.sort_by_key(|l| l.time);
    Some(GameLog {
        key: key.clone(),
        game,
        view,
        lines,
    })
}

fn side(lang: Lang, c: Color) -> String {
    text(
        lang,
        match c {
            Color::Black => "console-black",
            Color::White => "console-white",
        },
        &[],
    )
}

/// "Art. 18.2" in `lang` (empty for no article).
fn article(lang: Lang, a: &str) -> String {
    match a.split_once('.') {
        _ if a.is_empty() => String::new(),
        Some((x, y)) => text(lang, "alert-article-clause", &[("a", x), ("c", y)]),
        None => text(lang, "alert-article", &[("a", a)]),
    }
}

/// A result (`W+3.5`, `B+R`, `0`, `Void`) in words, as the console says it.
pub(crate) fn result_words(lang: Lang, r: &str) -> String {
    tengen_l10n::result_words(lang, r)
}

fn clock_text(ms: u64) -> String {
    tengen_protocol::time::clock_text(ms)
}

/// One incident in `lang`.
fn line(lang: Lang, i: &Incident) -> Line {
    let t = |id: &str, args: &[(&str, &str)]| text(lang, id, args);
    let code = |c: &tengen_protocol::event::AlertCode| t(&format!("alert-{}", c.as_str()), &[]);
    let sep = t("console-sep", &[]);
    let mut why = None;
    let (kind, words) = match &i.what {
        What::Alert {
            code: c,
            article: a,
            color,
            points,
            ..
        } => {
            let mut parts = vec![t("incident-alert", &[("what", &code(c))])];
            parts.push(article(lang, a));
            if let Some(c) = color {
                parts.push(side(lang, *c));
            }
            if !points.is_empty() {
                parts.push(points.join(" "));
            }
            parts.retain(|p| !p.is_empty());
            ("alert", parts.join(&sep))
        }
        What::Cleared {
            code: c,
            how,
            warning_pending,
            ..
        } => {
            let what = c.as_ref().map(code).unwrap_or_default();
            let id = match (how, warning_pending) {
                (ClearedHow::Restored, true) => "incident-restored-pending",
                (ClearedHow::Restored, false) => "incident-restored",
                (ClearedHow::Confirmed, _) => "incident-confirmed",
                (ClearedHow::Dismissed, _) => "incident-dismissed",
            };
            ("cleared", t(id, &[("what", &what)]))
        }
        What::Warning {
            color,
            article: a,
            count,
            given,
            reason,
        } => {
            why.clone_from(reason);
            let id = if *given {
                "incident-warning-given"
            } else {
                "incident-warning"
            };
            let n = count.to_string();
            let args = [
                ("side", side(lang, *color)),
                ("article", article(lang, a)),
                ("n", n),
            ];
            let args: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
            ("warning", t(id, &args))
        }
        What::WarningWithdrawn {
            color,
            count,
            reason,
        } => {
            why.clone_from(reason);
            let n = count.to_string();
            (
                "withdrawn",
                t(
                    "incident-withdrawn",
                    &[("side", &side(lang, *color)), ("n", &n)],
                ),
            )
        }
        What::Clock {
            paused,
            black,
            white,
            set,
        } => {
            let id = match (set, paused) {
                (true, _) => "incident-clock-set",
                (false, true) => "incident-paused",
                (false, false) => "incident-resumed",
            };
            let (b, w) = (clock_text(*black), clock_text(*white));
            ("clock", t(id, &[("b", &b), ("w", &w)]))
        }
        What::LateArrival {
            color,
            late_ms,
            deducted_ms,
            taken_ms,
        } => {
            let (late, deducted, taken) = (
                clock_text(*late_ms),
                clock_text(*deducted_ms),
                clock_text(*taken_ms),
            );
            (
                "late",
                t(
                    "incident-late",
                    &[
                        ("side", &side(lang, *color)),
                        ("late", &late),
                        ("taken", &taken),
                        ("deducted", &deducted),
                    ],
                ),
            )
        }
        What::Restarted { off_since } => match off_since {
            Some(since) => {
                let since = since.to_string();
                let hms = since.get(11..19).unwrap_or(&since);
                ("restarted", t("incident-restarted", &[("since", hms)]))
            }
            None => ("restarted", t("incident-restarted-unknown", &[])),
        },
        What::Result { result, reason } => {
            let how = t(&format!("reason-{}", reason_word(*reason)), &[]);
            (
                "result",
                t(
                    "incident-result",
                    &[("result", &result_words(lang, result)), ("how", &how)],
                ),
            )
        }
        What::Reopened {
            previous_result,
            reason,
        } => {
            why.clone_from(reason);
            (
                "reopened",
                t(
                    "incident-reopened",
                    &[("result", &result_words(lang, previous_result))],
                ),
            )
        }
        What::Voided { reason } => {
            why.clone_from(reason);
            ("voided", t("incident-voided", &[]))
        }
    };
    Line {
        time: i.time,
        number: Some(i.number),
        kind: kind.to_string(),
        text: words,
        why,
        by: i.by.clone(),
    }
}

fn reason_word(r: EndReason) -> &'static str {
    r.as_str()
}

/// A note of the hall's (a result confirmed or corrected) in `lang`.
fn note_line(lang: Lang, note: &Value, time: Timestamp) -> Line {
    let c = &note["command"];
    let kind = c["type"].as_str().unwrap_or_default().to_string();
    let og = c["result"].as_str().unwrap_or_default();
    let label = text(lang, &format!("console-og--{og}"), &[]);
    let sgf = c["sgf"].as_str().map(|r| result_words(lang, r));
    let result = match &sgf {
        Some(words) => format!("{label} ({words})"),
        None => label,
    };
    let words = if kind == "correct_result" {
        let from = c["from"].as_str().unwrap_or("?");
        let from = if from.starts_with("RESULT_") {
            text(lang, &format!("console-og--{from}"), &[])
        } else {
            result_words(lang, from)
        };
        text(
            lang,
            "incident-correct-result",
            &[("from", &from), ("to", &result)],
        )
    } else {
        text(lang, "incident-confirm-result", &[("result", &result)])
    };
    Line {
        time,
        number: None,
        kind,
        text: words,
        why: None,
        by: note["by"].as_str().map(str::to_string),
    }
}

/// The query of the log's routes.
#[derive(serde::Deserialize)]
struct GameQuery {
    #[serde(default)]
    game: Option<String>,
}

async fn log_json(
    State(app): State<App>,
    _: Arbiter,
    Path((t, b)): Path<(String, String)>,
    Query(q): Query<GameQuery>,
) -> Response {
    let Some(key) = BoardKey::new(&t, &b) else {
        return no_such_board();
    };
    let lang = super::lang::current();
    let Some(log) = game_log(&app, &key, q.game.as_deref(), lang) else {
        return not_found("no game of this board in this hall");
    };
    let setup = log.view.setup();
    let lines: Vec<Value> = log
        .lines
        .iter()
        .map(|l| {
            json!({"time": l.time, "move": l.number, "kind": l.kind, "text": l.text,
                   "why": l.why, "by": l.by})
        })
        .collect();
    Json(json!({
        "tournament": key.tournament,
        "board": key.board,
        "game": log.game,
        "black": setup.map(|s| s.black.clone()),
        "white": setup.map(|s| s.white.clone()),
        "round": setup.map(|s| s.round.clone()),
        "table": setup.map(|s| s.table.clone()),
        "voided": log.view.voided(),
        "lines": lines,
    }))
    .into_response()
}

async fn log_page(
    State(app): State<App>,
    _: Arbiter,
    Path((t, b)): Path<(String, String)>,
    Query(q): Query<GameQuery>,
) -> Response {
    let Some(key) = BoardKey::new(&t, &b) else {
        return no_such_board();
    };
    let lang = super::lang::current();
    let Some(log) = game_log(&app, &key, q.game.as_deref(), lang) else {
        return not_found("no game of this board in this hall");
    };
    let title = text(lang, "incident-title", &[]);
    Html(page(
        Render::served(lang),
        &title,
        &game_section(lang, &log),
    ))
    .into_response()
}

async fn round_page(State(app): State<App>, _: Arbiter, Path(round): Path<String>) -> Response {
    let lang = super::lang::current();
    let logs = round_logs(&app, &round, lang);
    let title = text(lang, "incident-round-title", &[("round", &round)]);
    let body = if logs.is_empty() {
        format!(
            "<p>{}</p>",
            html_escape(&text(lang, "incident-no-games", &[]))
        )
    } else {
        logs.iter()
            .map(|l| game_section(lang, l))
            .collect::<Vec<_>>()
            .join("\n")
    };
    Html(page(Render::served(lang), &title, &body)).into_response()
}

/// The logs of every game of `round` the hall holds (void ones too), by table.
fn round_logs(app: &App, round: &str, lang: Lang) -> Vec<GameLog> {
    let games = crate::public::round_games::arbiters_games(&app.public, round);
    let mut logs: Vec<GameLog> = games
        .iter()
        .filter_map(|(key, game)| game_log(app, key, Some(game), lang))
        .collect();
    let table = |l: &GameLog| {
        let t = l.view.setup().map(|s| s.table.clone()).unwrap_or_default();
        (t.parse::<u64>().unwrap_or(u64::MAX), t)
    };
    logs.sort_by_key(table);
    logs
}

/// One game's heading and table of lines, as HTML.
fn game_section(lang: Lang, log: &GameLog) -> String {
    let t = |id: &str, args: &[(&str, &str)]| html_escape(&text(lang, id, args));
    let s = log.view.setup();
    let get = |f: fn(&tengen_protocol::event::GameSetup) -> String| s.map(f).unwrap_or_default();
    let (table, round) = (get(|s| s.table.clone()), get(|s| s.round.clone()));
    let heading = t(
        "incident-game",
        &[
            ("table", &table),
            ("round", &round),
            ("board", &log.key.board),
            ("game", &log.game),
        ],
    );
    let players = t(
        "incident-players",
        &[
            ("black", &get(|s| s.black.clone())),
            ("white", &get(|s| s.white.clone())),
        ],
    );
    let void = if log.view.voided() {
        format!(
            " <strong class=\"void\">{}</strong>",
            t("incident-void-mark", &[])
        )
    } else {
        String::new()
    };
    let board_did = t("incident-board-did", &[]);
    let rows: String = log
        .lines
        .iter()
        .map(|l| {
            let when = l.time.to_string();
            let why = l.why.as_ref().map_or(String::new(), |w| {
                format!(
                    "<div class=\"why\">{}</div>",
                    t("incident-why", &[("reason", w)])
                )
            });
            format!(
                "<tr class=\"k-{kind}\"><td><time datetime=\"{when}\">{hms}</time></td>\
                 <td>{num}</td><td>{what}{why}</td><td>{by}</td></tr>\n",
                kind = html_escape(&l.kind),
                when = html_escape(&when),
                hms = html_escape(when.get(11..19).unwrap_or(&when)),
                num = l.number.map_or(String::new(), |n| n.to_string()),
                what = html_escape(&l.text),
                by = l.by.as_deref().map_or(board_did.clone(), html_escape),
            )
        })
        .collect();
    let table_html = if rows.is_empty() {
        format!("<p class=\"none\">{}</p>", t("incident-none", &[]))
    } else {
        format!(
            "<table><thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead>\
             <tbody>\n{rows}</tbody></table>",
            t("incident-th-time", &[]),
            t("incident-th-move", &[]),
            t("incident-th-what", &[]),
            t("incident-th-by", &[]),
        )
    };
    format!(
        "<section class=\"game\"><h2>{heading}{void}</h2><p class=\"players\">{players}</p>\n\
         {table_html}</section>"
    )
}

/// The whole page around `body`.
fn page(render: Render, title: &str, body: &str) -> String {
    let frame = render.page(
        "<!doctype html>\n<html lang=\"{{lang}}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>@TITLE@</title><style>\
         body{font-family:system-ui,sans-serif;margin:1em;color:#111}\
         h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.05em;margin:1.2em 0 .2em 0}\
         .players{margin:.1em 0 .4em 0}.void{color:#b71c1c}\
         table{border-collapse:collapse;width:100%;font-size:.92em}\
         th,td{border:1px solid #bbb;padding:.25em .4em;text-align:left;vertical-align:top}\
         th{background:#eee}td:nth-child(1),td:nth-child(2){white-space:nowrap}\
         .why{color:#444;font-style:italic}.k-alert td:nth-child(3){font-weight:600}\
         .made{color:#555;font-size:.85em}.print{float:right}\
         @media print{.print,.lang-switch{display:none!important}body{margin:0}section.game{break-inside:avoid-page}\
         thead{display:table-header-group}tr{break-inside:avoid}}\
         </style></head>\n<body><button class=\"print\" onclick=\"print()\">{{t:incident-print}}</button>\
         <h1>@TITLE@</h1>\n@BODY@\n<p class=\"made\">{{t:incident-made}}</p>\n\
         <script>for(const e of document.querySelectorAll(\"time[datetime]\")){const d=new Date(e.getAttribute(\"datetime\"));\
         if(!isNaN(d))e.textContent=d.toLocaleTimeString([],{hour:\"2-digit\",minute:\"2-digit\",second:\"2-digit\",hour12:false});}</script>\n\
         {{lang-switch}}\n</body></html>\n",
    );
    frame
        .replace("@TITLE@", &html_escape(title))
        .replacen("@BODY@", body, 1)
}

/// A table's incident log for the arbiters' round zip: `incidents/{table}.html` in the
/// hall's language.
pub(crate) fn zip_entry(app: &App, key: &BoardKey, game: &str) -> Option<(String, Vec<u8>)> {
    let lang = app.lang;
    let log = game_log(app, key, Some(game), lang)?;
    let table = log
        .view
        .setup()
        .map(|s| s.table.clone())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| key.board.clone());
    let title = text(lang, "incident-title", &[]);
    let render = Render {
        lang,
        switch: false,
    };
    let html = page(render, &title, &game_section(lang, &log));
    let name = format!(
        "incidents/{}.html",
        crate::public::round_games::sanitize(&table)
    );
    Some((name, html.into_bytes()))
}

/// For tests: the lines of a game's log as `(kind, by)`.
#[cfg(test)]
fn kinds(lines: &[Line]) -> Vec<(String, Option<String>)> {
    lines
        .iter()
        .map(|l| (l.kind.clone(), l.by.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_said_in_words_in_each_language() {
        assert_eq!(
            result_words(Lang::En, "W+3.5"),
            "White wins by 3.5 points (W+3.5)"
        );
        assert_eq!(
            result_words(Lang::En, "B+R"),
            "Black wins by resignation (B+R)"
        );
        for lang in Lang::ALL {
            assert!(!result_words(lang, "W+T").contains("result-"), "{lang}");
        }
        let note = json!({"by": "chief", "command": {"type": "correct_result",
            "result": "RESULT_WHITEWINS", "sgf": "W+3.5", "from": "B+R"}});
        let l = note_line(Lang::En, &note, Timestamp::from_millis(0));
        assert!(l.text.contains("Black wins by resignation"), "{}", l.text);
        assert!(l.text.contains("W+3.5"), "{}", l.text);
        assert_eq!(
            kinds(&[l]),
            [("correct_result".into(), Some("chief".into()))]
        );
    }

    #[test]
    fn every_incident_has_words_in_every_language() {
        let i = |what: What| Incident {
            seq: 1,
            time: Timestamp::from_millis(0),
            number: 3,
            by: None,
            what,
        };
        let all = [
            i(What::Alert {
                id: "a1".into(),
                code: tengen_protocol::event::AlertCode::Ko,
                article: "18.3".into(),
                color: Some(Color::Black),
                points: vec!["C3".into()],
            }),
            i(What::Cleared {
                id: "a1".into(),
                code: Some(tengen_protocol::event::AlertCode::Ko),
                how: ClearedHow::Restored,
                warning_pending: true,
            }),
            i(What::Warning {
                color: Color::White,
                article: "17.3".into(),
                count: 1,
                given: true,
                reason: Some("x".into()),
            }),
            i(What::WarningWithdrawn {
                color: Color::White,
                count: 0,
                reason: None,
            }),
            i(What::Clock {
                paused: true,
                black: 1000,
                white: 2000,
                set: true,
            }),
            i(What::Restarted { off_since: None }),
            i(What::Result {
                result: "W+R".into(),
                reason: EndReason::Resignation,
            }),
            i(What::Reopened {
                previous_result: "W+R".into(),
                reason: None,
            }),
            i(What::Voided { reason: None }),
        ];
        for lang in Lang::ALL {
            for inc in &all {
                let l = line(lang, inc);
                assert!(
                    !l.text.contains("incident-") && !l.text.contains("{"),
                    "{lang}: {}",
                    l.text
                );
            }
        }
    }
}

//! `POST /api/console/correct` with `{"tournament":..,"board":..,"result":"B+2.5"}` and an
//! optional `"reason"` (arbiters only): the console's *Correct the result*, sequenced by the
//! hall rather than by a browser polling between two commands. The board's game is reopened
//! (`reopen`, with the reason), and once the board has said so, ended with the new result
//! (`set_result`); each step signed by the arbiter and logged with the commands, each reply
//! awaited up to [`ANSWER_WITHIN`]. Both commands are checked before the first is sent, so a
//! bad result never leaves a game reopened.
//!
//! The answer says how far it went, for the console to say in its reader's words:
//! `{"status":"done","ids":[..]}` (200); `{"status":"refused","step":..,"error":..,
//! "reason":{"code":..,"args":..}}` (409) with the board's refusal of that step;
//! `{"status":"no_answer","step":..}` (504); `{"status":"unreachable","step":..}` (503);
//! before anything is sent, a `400` (`404` for an unknown board) with `error`, `error_id`
//! and `args` as `/api/console/command` answers. The hall then rewrites a confirmed result
//! everywhere it is written (the results file, the round zip, the feed), from the board's
//! events, as for any result a board changes.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{post, MethodRouter};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tengen_protocol::command::check_result;
use tengen_protocol::topics::BoardKey;

use crate::boards::command_ask::{ask, AskError, ANSWER_WITHIN};
use crate::boards::command_log::CommandError;
use crate::boards::hall_state::lock;
use crate::routes::console_gate::Arbiter;
use crate::routes::{command_refused, App};

/// The route, of the console's API (see [`super::console_api`]).
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![("/api/console/correct", post(correct))]
}

/// The body: the board and the new result, and why.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Correction {
    tournament: String,
    board: String,
    /// The new result, SGF form (`B+2.5`, `W+R`, `0`).
    result: String,
    /// Why (the slip misread...): the reopen carries it into the record.
    #[serde(default)]
    reason: Option<String>,
}

/// The two steps, in order: their names and bodies.
fn steps(c: &Correction) -> [(&'static str, Map<String, Value>); 2] {
    let mut reopen = Map::new();
    reopen.insert("type".into(), json!("reopen"));
    if let Some(reason) = c.reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
        reopen.insert("reason".into(), json!(reason));
    }
    let mut set = Map::new();
    set.insert("type".into(), json!("set_result"));
    set.insert("result".into(), json!(c.result.trim()));
    [("reopen", reopen), ("set_result", set)]
}

/// A request refused before anything was sent, as `/api/console/command` refuses one
/// (an unknown board a `404`).
fn refused_here(e: &CommandError) -> Response {
    let status = match e {
        CommandError::UnknownBoard(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::BAD_REQUEST,
    };
    command_refused(status, e)
}

async fn correct(
    State(app): State<App>,
    Arbiter(by): Arbiter,
    Json(body): Json<Correction>,
) -> Response {
    let Some(key) = BoardKey::new(&body.tournament, &body.board) else {
        return refused_here(&CommandError::NoBoard);
    };
    if let Err(e) = check_result(body.result.trim()) {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": e.to_string(), "error_id": "bad-result",
                        "args": {"result": body.result}})),
        )
            .into_response();
    }
    let steps = steps(&body);
    {
        let hall = lock(&app.hall);
        for (_, command) in &steps {
            if let Err(e) = hall.check_command(&key, &by, command.clone()) {
                return refused_here(&e);
            }
        }
    }
    tracing::info!(
        "arbiter {by}: correct the result of {}/{} to {}",
        key.tournament,
        key.board,
        body.result
    );
    let mut ids = Vec::new();
    for (step, command) in steps {
        let (status, answer) = match ask(&app.hall, &app.mqtt, &key, Some(&by), command).await {
            Ok((id, reply)) if reply.ok => {
                ids.push(id);
                continue;
            }
            Ok((id, reply)) => {
                ids.push(id);
                (
                    StatusCode::CONFLICT,
                    json!({"status": "refused", "error": reply.error, "reason": reply.reason}),
                )
            }
            Err(e @ AskError::NoAnswer(_)) => (
                StatusCode::GATEWAY_TIMEOUT,
                json!({"status": "no_answer", "error": e.to_string(),
                       "within_s": ANSWER_WITHIN.as_secs()}),
            ),
            Err(e @ AskError::Unreachable(_)) => (
                StatusCode::SERVICE_UNAVAILABLE,
                json!({"status": "unreachable", "error": e.to_string(),
                       "error_id": "unreachable", "args": {}}),
            ),
            Err(e) => (
                StatusCode::BAD_REQUEST,
                json!({"status": "refused", "error": e.to_string()}),
            ),
        };
        tracing::warn!(
            "arbiter {by}: correction of {}/{} stopped at {step}: {answer}",
            key.tournament,
            key.board
        );
        let mut answer = answer;
        if let Value::Object(o) = &mut answer {
            o.insert("step".into(), json!(step));
            o.insert("ids".into(), json!(ids));
        }
        return (status, Json(answer)).into_response();
    }
    Json(json!({"status": "done", "ids": ids})).into_response()
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use axum::body::Body;
    use axum::http::{header, Method, Request};
    use tower::ServiceExt;

    use super::*;
    use crate::boards::hall_state::Shared;
    use crate::console::auth::COOKIE;
    use crate::routes::console_api_router;
    use crate::routes::console_gate::tests::app;

    /// A board `t/b1` the hall has heard of, at the end of its game, answering every
    /// command with `answer` (its type in, the reply out; `None`: silent), as the board's
    /// `cmd/reply` would, until the test ends.
    fn board(hall: &Shared, answer: fn(&str) -> Option<Value>) {
        lock(hall).on_message(
            "tengen/t/b1/status",
            br#"{"state":"online"}"#,
            Instant::now(),
        );
        let hall = hall.clone();
        tokio::spawn(async move {
            let mut answered = std::collections::HashSet::new();
            loop {
                let pending: Vec<(String, String)> = {
                    let h = lock(&hall);
                    let log = h.commands_json(Instant::now());
                    log.as_array()
                        .into_iter()
                        .flatten()
                        .filter(|c| c["status"] == "pending")
                        .filter_map(|c| {
                            Some((
                                c["id"].as_str()?.to_string(),
                                c["command"]["type"].as_str()?.to_string(),
                            ))
                        })
                        .collect()
                };
                for (id, kind) in pending {
                    if !answered.insert(id.clone()) {
                        continue;
                    }
                    if let Some(mut reply) = answer(&kind) {
                        reply["id"] = json!(id);
                        lock(&hall).on_message(
                            "tengen/t/b1/cmd/reply",
                            reply.to_string().as_bytes(),
                            Instant::now(),
                        );
                    }
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        });
    }

    /// `POST /api/console/correct` with `body`, as arbiter `chief`: the status and JSON.
    async fn correct(app: &App, body: Value) -> (StatusCode, Value) {
        let cookie = {
            let mut sessions = app.sessions.lock().expect("sessions");
            sessions.open("chief", Instant::now())
        };
        let req = Request::builder()
            .method(Method::POST)
            .uri("/api/console/correct")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::COOKIE, format!("{COOKIE}={cookie}"))
            .body(Body::from(body.to_string()))
            .expect("a request");
        let response = match console_api_router()
            .with_state(app.clone())
            .oneshot(req)
            .await
        {
            Ok(r) => r,
            Err(never) => match never {},
        };
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .expect("a body");
        (status, serde_json::from_slice(&bytes).expect("JSON"))
    }

    /// The commands the hall sent, oldest first: type, and the reason or result they carry.
    fn sent(app: &App) -> Vec<(String, String)> {
        let log = lock(&app.hall).commands_json(Instant::now());
        let mut sent: Vec<(String, String)> = log
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                let command = &c["command"];
                let detail = command["result"].as_str().or(command["reason"].as_str());
                (
                    command["type"].as_str().unwrap_or("").to_string(),
                    detail.unwrap_or("").to_string(),
                )
            })
            .collect();
        sent.reverse();
        sent
    }

    fn body(result: &str) -> Value {
        json!({"tournament": "t", "board": "b1", "result": result,
               "reason": "the count slip was misread"})
    }

    /// The board reopens, then takes the new result: both commands sent in that order,
    /// signed by the arbiter, the reason with the reopen.
    #[tokio::test]
    async fn the_hall_reopens_then_sets_the_result() {
        let app = app();
        board(&app.hall, |_| Some(json!({"ok": true})));
        let (status, answer) = correct(&app, body("B+2.5")).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
        assert_eq!(answer["status"], "done");
        assert_eq!(answer["ids"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            sent(&app),
            [
                ("reopen".into(), "the count slip was misread".into()),
                ("set_result".into(), "B+2.5".into())
            ]
        );
    }

    /// A board that refuses the reopen gets no new result; the answer names the step and
    /// carries the board's reason for the console's words.
    #[tokio::test]
    async fn a_refused_reopen_stops_there_with_the_boards_reason() {
        let app = app();
        board(&app.hall, |_| {
            Some(json!({"ok": false, "error": "the game is not over",
                        "reason": {"code": "not_over", "args": {}}}))
        });
        let (status, answer) = correct(&app, body("B+2.5")).await;
        assert_eq!(status, StatusCode::CONFLICT, "{answer}");
        assert_eq!(answer["status"], "refused");
        assert_eq!(answer["step"], "reopen");
        assert_eq!(answer["reason"]["code"], "not_over");
        assert_eq!(sent(&app).len(), 1, "{:?}", sent(&app));
    }

    /// A result the board would refuse is refused before anything is sent (a game is never
    /// left reopened by a typo), with the console's message id; so is an unknown board.
    #[tokio::test]
    async fn a_bad_result_or_board_sends_nothing() {
        let app = app();
        board(&app.hall, |_| Some(json!({"ok": true})));
        let (status, answer) = correct(&app, body("B+lots")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
        assert_eq!(answer["error_id"], "bad-result");
        assert_eq!(answer["args"]["result"], "B+lots");
        let mut other = body("B+2.5");
        other["board"] = json!("b9");
        let (status, answer) = correct(&app, other).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
        assert_eq!(answer["error_id"], "unknown-board");
        assert_eq!(sent(&app), Vec::<(String, String)>::new());
        for id in ["bad-result", "unknown-board", "unreachable"] {
            let args = [("result", "B+lots"), ("board", "b9")];
            let words =
                tengen_l10n::text(tengen_l10n::Lang::En, &format!("console-err--{id}"), &args);
            assert!(!words.starts_with("console-"), "{id}: {words}");
        }
    }

    /// A silent board: the hall waits its time, then says which step had no answer; the
    /// set_result is not sent after a reopen nobody confirmed.
    #[tokio::test]
    async fn a_silent_board_is_said_after_the_wait() {
        let app = app();
        board(&app.hall, |_| None);
        let started = Instant::now();
        let (status, answer) = correct(&app, body("W+R")).await;
        assert_eq!(status, StatusCode::GATEWAY_TIMEOUT, "{answer}");
        assert_eq!(answer["status"], "no_answer");
        assert_eq!(answer["step"], "reopen");
        assert!(started.elapsed() >= ANSWER_WITHIN);
        assert_eq!(sent(&app).len(), 1);
    }
}

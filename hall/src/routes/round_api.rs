//! The console's Round view (arbiters only, behind the login; `[tournament]` in
//! `hall.toml`, else 404):
//!
//! - `GET /api/console/round/{round}`: the round's tables, boards, states and results
//!   ([`TournamentLink::round_json`]).
//! - `POST .../round/{round}/start` `{"tables":[..], "force":false, "despite_results":false,
//!   "penalties":"arbiter"|"auto"}`: *Start round*, a signed `new_game` to each table's
//!   board (all tables when `tables` is absent), with the round's penalty mode when given
//!   (else `[tournament] penalties`, else each board's own). A whole round whose results
//!   are already in the file is refused (409, `error_id` `has-results`) unless
//!   `despite_results`: the console says so and asks again.
//! - `POST .../round/{round}/begin` `{"tables":[..]}`: *Begin play*, `resume` to each board
//!   set up with its table's game.
//! - `POST .../round/{round}/confirm` `{"results":[{"table":3,"result":"RESULT_BLACKWINS"}],
//!   "all":false}`: confirms results (`result` absent: the board's), or every pending one
//!   with `"all":true`, and writes the results file.
//!
//! The start and begin answers list what was sent (with each command's id, followed in
//! `/api/console/commands`), what was left out and why, and the paper tables (no board with
//! their id has been heard of) once: `{"sent":[...],"skipped":[{"table","board","why"}],
//! "paper_tables":[4,5]}`, each `why` also as `why_id` and `why_args` (a message of the
//! console's, `console-why--{why_id}`). Errors are `{"error": "...", "error_id": "...",
//! "args": {...}}` (`error_id` when the console has words for it). The Round view's JSON
//! carries `round_in_play`, the round whose games the boards hold now (or null), and
//! `round_to_open`, the round the console opens on (the round in play, else the first
//! whose games lack a result).

use std::sync::Mutex;
use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, MethodRouter};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use tengen_tournament::GameResult;

use crate::boards::hall_state::lock;
use crate::boards::hall_state::HallState;
use crate::routes::console_gate::Arbiter;
use crate::routes::App;
use crate::tournament::link::{LinkError, Plan, StartOptions, TournamentLink, Why};

/// The Round view's routes, all of the console's API (see
/// [`super::console_api`]).
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![
        ("/api/console/round/{round}", get(round_view)),
        ("/api/console/round/{round}/start", post(start)),
        ("/api/console/round/{round}/begin", post(begin)),
        ("/api/console/round/{round}/confirm", post(confirm)),
    ]
}

/// The body of start and begin.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Tables {
    #[serde(default)]
    tables: Option<Vec<u32>>,
    #[serde(default)]
    force: bool,
    #[serde(default)]
    despite_results: bool,
    #[serde(default)]
    penalties: Option<tengen_protocol::event::Penalties>,
}

/// One result in a confirmation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GivenResult {
    table: u32,
    #[serde(default)]
    result: Option<String>,
}

/// The body of confirm.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Confirm {
    #[serde(default)]
    results: Vec<GivenResult>,
    #[serde(default)]
    all: bool,
}

fn error(status: StatusCode, message: impl std::fmt::Display) -> Response {
    (status, Json(json!({"error": message.to_string()}))).into_response()
}

/// A tournament error as the console gets it: its line, and its message id and values
/// when the console has words for it.
fn link_error(status: StatusCode, e: &LinkError) -> Response {
    let mut body = json!({"error": e.to_string()});
    if let Some((id, args)) = e.message() {
        body["error_id"] = json!(id);
        body["args"] = args;
    }
    (status, Json(body)).into_response()
}

/// The answer of a hall without `[tournament]`.
fn no_tournament() -> Response {
    error(
        StatusCode::NOT_FOUND,
        "this hall has no [tournament] in its config",
    )
}

fn link_lock(link: &Mutex<TournamentLink>) -> std::sync::MutexGuard<'_, TournamentLink> {
    link.lock().unwrap_or_else(|p| p.into_inner())
}

async fn round_view(State(app): State<App>, _: Arbiter, Path(round): Path<u32>) -> Response {
    let Some(link) = app.tournament.clone() else {
        return no_tournament();
    };
    // The confirmations held against the boards as they stand now (a correction is
    // written, logged and noted in the history, whichever of this and the watch sees it).
    crate::tournament::watch::reconcile_once(&link, &app.hall);
    let link = link_lock(&link);
    let hall = lock(&app.hall);
    if link.tournament().round(round).is_empty() {
        return error(
            StatusCode::NOT_FOUND,
            format!("round {round} has no games in the tournament file"),
        );
    }
    Json(link.round_json(&hall, round)).into_response()
}

async fn start(
    State(app): State<App>,
    Arbiter(by): Arbiter,
    Path(round): Path<u32>,
    Json(body): Json<Tables>,
) -> Response {
    act(&app, &by, "start round", |link, hall| {
        let start = StartOptions {
            force: body.force,
            despite_results: body.despite_results,
            penalties: body.penalties,
        };
        link.start_round(hall, round, body.tables.as_deref(), &start)
    })
    .await
}

async fn begin(
    State(app): State<App>,
    Arbiter(by): Arbiter,
    Path(round): Path<u32>,
    Json(body): Json<Tables>,
) -> Response {
    act(&app, &by, "begin play", |link, hall| {
        link.begin_play(hall, round, body.tables.as_deref())
    })
    .await
}

/// Plans with the tournament link and the hall as they stand, then sends the plan.
async fn act(
    app: &App,
    by: &str,
    what: &str,
    plan: impl FnOnce(&TournamentLink, &HallState) -> Result<Plan, LinkError>,
) -> Response {
    let Some(link) = app.tournament.clone() else {
        return no_tournament();
    };
    let planned = {
        let link = link_lock(&link);
        let hall = lock(&app.hall);
        plan(&link, &hall)
    };
    send(app, by, planned, what).await
}

/// Sends each planned command as the arbiter's, signed like every console command.
async fn send(app: &App, by: &str, planned: Result<Plan, LinkError>, what: &str) -> Response {
    let plan = match planned {
        Ok(x) => x,
        Err(e @ LinkError::HasResults { .. }) => return link_error(StatusCode::CONFLICT, &e),
        Err(e) => return link_error(StatusCode::BAD_REQUEST, &e),
    };
    let mut sent = Vec::new();
    let skip = |table: u32, board: &str, why: &Why| {
        json!({"table": table, "board": board, "why": why.text, "why_id": why.id,
               "why_args": why.args})
    };
    let mut skipped: Vec<Value> = plan
        .skipped
        .iter()
        .map(|s| skip(s.table, &s.board, &s.why))
        .collect();
    for p in plan.send {
        let prepared = lock(&app.hall).command(&p.key, by, p.body, Instant::now());
        let (id, out) = match prepared {
            Ok(x) => x,
            Err(e) => {
                let why = Why::new("not-sent", json!({"error": e.to_string()}), e.to_string());
                skipped.push(skip(p.table, &p.key.board, &why));
                continue;
            }
        };
        match app.mqtt.publish(out).await {
            Ok(()) => sent.push(json!({
                "table": p.table,
                "tournament": p.key.tournament,
                "board": p.key.board,
                "id": id,
            })),
            Err(e) => {
                let why = Why::new(
                    "not-sent",
                    json!({"error": e.to_string()}),
                    format!("not sent: {e}"),
                );
                skipped.push(skip(p.table, &p.key.board, &why));
            }
        }
    }
    tracing::info!(
        "arbiter {by}: {what}: {} sent, {} left out, {} paper tables",
        sent.len(),
        skipped.len(),
        plan.paper.len()
    );
    (
        StatusCode::ACCEPTED,
        Json(json!({"sent": sent, "skipped": skipped, "paper_tables": plan.paper})),
    )
        .into_response()
}

async fn confirm(
    State(app): State<App>,
    Arbiter(by): Arbiter,
    Path(round): Path<u32>,
    Json(body): Json<Confirm>,
) -> Response {
    let Some(link) = app.tournament.clone() else {
        return no_tournament();
    };
    let mut given = Vec::new();
    for g in &body.results {
        let result = match g.result.as_deref() {
            None => None,
            Some(text) => match GameResult::from_opengotha(text) {
                Some(r) => Some(r),
                None => {
                    return error(
                        StatusCode::BAD_REQUEST,
                        format!("table {}: \"{text}\" is not an OpenGotha result", g.table),
                    )
                }
            },
        };
        given.push((g.table, result));
    }
    let done = {
        let mut link = link_lock(&link);
        let mut hall = lock(&app.hall);
        let done = link.confirm(&hall, round, &given, body.all, &by);
        // Each confirmation goes into the console's history, with its margin and reason.
        if let Ok((tables, _)) = &done {
            let now = Instant::now();
            for &table in tables {
                let (key, note) = link.confirmation_note(&hall, round, table);
                hall.note(key.as_ref(), &by, note, now);
            }
        }
        done
    };
    match done {
        Ok((tables, backup)) => {
            app.zips.clear();
            tracing::info!("arbiter {by}: round {round}: results of tables {tables:?} confirmed");
            Json(json!({
                "confirmed": tables,
                "backup": backup.map(|b| b.display().to_string()),
            }))
            .into_response()
        }
        Err(e @ LinkError::File { .. }) => link_error(StatusCode::INTERNAL_SERVER_ERROR, &e),
        Err(e) => link_error(StatusCode::BAD_REQUEST, &e),
    }
}

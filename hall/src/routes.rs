//! The hall's HTTP routes. Public: `/` (overview), `/api/boards`, `/board/{t}/{b}/...` (the
//! one-board view of [`tengen_net::live_view::router`] per board); `/round/{round}.zip`,
//! `/rounds` and `/api/rounds` are in [`crate::archive_routes`]. Arbiters
//! only, behind a login cookie: `/console`, `/api/console/*`. Public pages neither link to
//! nor reveal anything of the console.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tower::ServiceExt;

use tengen_net::live_view::{self, LiveFeed};
use tengen_protocol::topics::BoardKey;

use crate::archive::SharedArchive;
use crate::config::Arbiter;
use crate::console_auth::{self, Sessions, COOKIE};
use crate::mqtt_client::{lock, MqttLink, Shared};
use crate::overview_cache::OverviewCache;
use crate::tournament_link::TournamentLink;

/// The overview page: every board, small and live.
const OVERVIEW: &str = include_str!("overview.html");
/// The arbiters' console page.
const CONSOLE: &str = include_str!("console.html");
/// The console's login form; `{{error}}` is replaced with a message or nothing.
const LOGIN: &str = include_str!("login.html");

/// What the handlers share.
#[derive(Clone)]
pub(crate) struct App {
    /// The hall's boards and commands.
    pub(crate) hall: Shared,
    /// The MQTT client that publishes commands.
    pub(crate) mqtt: Arc<MqttLink>,
    /// Who may log in.
    pub(crate) arbiters: Arc<Vec<Arbiter>>,
    /// Open console sessions.
    pub(crate) sessions: Arc<Mutex<Sessions>>,
    /// How long a session lasts (the cookie's Max-Age).
    pub(crate) session_lifetime: Duration,
    /// The overview shared by every viewer (built at most once a second).
    pub(crate) overview: Arc<OverviewCache>,
    /// The tournament file's rounds and results (`[tournament]`), if configured.
    pub(crate) tournament: Option<Arc<Mutex<TournamentLink>>>,
    /// Every game the hall has followed (`[hall] archive_dir`), if configured.
    pub(crate) archive: Option<SharedArchive>,
}

/// The hall's routes but the Round view's ([`crate::round_routes`]) and the rounds'
/// ([`crate::archive_routes`]); `lib.rs` joins them.
pub(crate) fn router() -> Router<App> {
    Router::new()
        .route("/", get(overview))
        .route("/api/boards", get(boards))
        .route("/board/{tournament}/{board}", get(board_redirect))
        .route("/board/{tournament}/{board}/", get(board_view))
        .route("/board/{tournament}/{board}/{*rest}", get(board_view))
        .route("/console", get(console))
        .route("/console/login", post(login))
        .route("/console/logout", post(logout))
        .route("/console/board/{tournament}/{board}", get(live_redirect))
        .route("/console/board/{tournament}/{board}/", get(live_view))
        .route(
            "/console/board/{tournament}/{board}/{*rest}",
            get(live_view),
        )
        .route("/api/console/alerts", get(console_alerts))
        .route("/api/console/hardware", get(console_hardware))
        .route("/api/console/commands", get(console_commands))
        .route("/api/console/command", post(console_command))
}

async fn overview() -> Html<&'static str> {
    Html(OVERVIEW)
}

async fn boards(State(app): State<App>) -> Json<Value> {
    Json(app.overview.boards(&app.hall, Instant::now()).await)
}

fn not_found(what: &str) -> Response {
    (StatusCode::NOT_FOUND, format!("{what}\n")).into_response()
}

async fn board_redirect(Path((t, b)): Path<(String, String)>) -> Response {
    match BoardKey::new(&t, &b) {
        Some(k) => {
            Redirect::permanent(&format!("/board/{}/{}/", k.tournament, k.board)).into_response()
        }
        None => not_found("no such board"),
    }
}

/// The public one-board pages: the router of `tengen_net::live_view` on the board's public feed
/// (delayed under `[broadcast]`), with the path below `/board/{t}/{b}` as its own.
async fn board_view(
    State(app): State<App>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    let key = params
        .get("tournament")
        .zip(params.get("board"))
        .and_then(|(t, b)| BoardKey::new(t, b));
    let Some(feed) = key.and_then(|k| lock(&app.hall).public_feed(&k)) else {
        return not_found("no such board in this hall");
    };
    one_board(feed, &params, req).await
}

async fn live_redirect(
    State(app): State<App>,
    headers: HeaderMap,
    Path((t, b)): Path<(String, String)>,
) -> Response {
    if arbiter(&app, &headers).is_none() {
        return login_page(StatusCode::UNAUTHORIZED, "");
    }
    match BoardKey::new(&t, &b) {
        Some(k) => Redirect::permanent(&format!("/console/board/{}/{}/", k.tournament, k.board))
            .into_response(),
        None => not_found("no such board"),
    }
}

/// The arbiters' one-board view: the same pages on the live feed (alerts included, no
/// delay), behind the console login.
async fn live_view(
    State(app): State<App>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    if arbiter(&app, req.headers()).is_none() {
        return login_page(StatusCode::UNAUTHORIZED, "");
    }
    let key = params
        .get("tournament")
        .zip(params.get("board"))
        .and_then(|(t, b)| BoardKey::new(t, b));
    let Some(feed) = key.and_then(|k| lock(&app.hall).feed(&k)) else {
        return not_found("no such board in this hall");
    };
    one_board(feed, &params, req).await
}

/// Serves `req` from the one-board router on `feed`, with the `rest` of the path as its own.
async fn one_board(feed: LiveFeed, params: &HashMap<String, String>, req: Request) -> Response {
    let rest = params.get("rest").map(String::as_str).unwrap_or("");
    let (mut parts, body) = req.into_parts();
    let path_and_query = match parts.uri.query() {
        Some(q) => format!("/{rest}?{q}"),
        None => format!("/{rest}"),
    };
    match path_and_query.parse::<Uri>() {
        Ok(uri) => parts.uri = uri,
        Err(_) => return not_found("bad path"),
    }
    let inner = Request::from_parts(parts, body);
    match live_view::router(feed).oneshot(inner).await {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// The arbiter logged in on this request, if any.
pub(crate) fn arbiter(app: &App, headers: &HeaderMap) -> Option<String> {
    let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
    let id = console_auth::cookie_value(cookies, COOKIE)?;
    app.sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .arbiter(id, Instant::now())
}

fn login_page(status: StatusCode, error: &str) -> Response {
    let escaped = error
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    (status, Html(LOGIN.replace("{{error}}", &escaped))).into_response()
}

async fn console(State(app): State<App>, headers: HeaderMap) -> Response {
    match arbiter(&app, &headers) {
        Some(_) => Html(CONSOLE).into_response(),
        None => login_page(StatusCode::UNAUTHORIZED, ""),
    }
}

/// The login form.
#[derive(Deserialize)]
struct LoginForm {
    name: String,
    password: String,
}

async fn login(State(app): State<App>, Form(f): Form<LoginForm>) -> Response {
    let arbiters = app.arbiters.clone();
    let (name, password) = (f.name, f.password);
    // Argon2 takes tens of milliseconds: not on the async threads.
    let who =
        tokio::task::spawn_blocking(move || console_auth::verify(&arbiters, &name, &password))
            .await
            .ok()
            .flatten();
    let Some(who) = who else {
        return login_page(StatusCode::UNAUTHORIZED, "Wrong name or password.");
    };
    let id = app
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .open(&who, Instant::now());
    let cookie = format!(
        "{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
        app.session_lifetime.as_secs()
    );
    tracing::info!("arbiter {who} logged in to the console");
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (header::LOCATION, "/console".to_string()),
        ],
    )
        .into_response()
}

async fn logout(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(id) = headers
        .get(header::COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|c| console_auth::cookie_value(c, COOKIE))
    {
        app.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .close(id);
    }
    (
        StatusCode::SEE_OTHER,
        [
            (
                header::SET_COOKIE,
                format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
            ),
            (header::LOCATION, "/console".to_string()),
        ],
    )
        .into_response()
}

pub(crate) fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        Json(json!({"error": "log in to the console first"})),
    )
        .into_response()
}

async fn console_alerts(State(app): State<App>, headers: HeaderMap) -> Response {
    if arbiter(&app, &headers).is_none() {
        return unauthorized();
    }
    Json(lock(&app.hall).alerts_json()).into_response()
}

async fn console_hardware(State(app): State<App>, headers: HeaderMap) -> Response {
    if arbiter(&app, &headers).is_none() {
        return unauthorized();
    }
    Json(lock(&app.hall).hardware_json()).into_response()
}

async fn console_commands(State(app): State<App>, headers: HeaderMap) -> Response {
    if arbiter(&app, &headers).is_none() {
        return unauthorized();
    }
    Json(lock(&app.hall).commands_json(Instant::now())).into_response()
}

/// `POST /api/console/command` with `{"tournament":..,"board":..,"type":..,...}`: the
/// command goes to that board's `cmd` topic with `id` and `by` (the arbiter) added.
async fn console_command(
    State(app): State<App>,
    headers: HeaderMap,
    Json(body): Json<Map<String, Value>>,
) -> Response {
    let Some(by) = arbiter(&app, &headers) else {
        return unauthorized();
    };
    let prepared = lock(&app.hall).console_command(&by, body, Instant::now());
    let (key, id, out) = match prepared {
        Ok(x) => x,
        Err(e) => {
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": e.to_string()})),
            )
                .into_response()
        }
    };
    tracing::info!(
        "arbiter {by}: command {id} to {}/{}",
        key.tournament,
        key.board
    );
    if let Err(e) = app.mqtt.publish(out).await {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"id": id, "error": e.to_string()})),
        )
            .into_response();
    }
    (
        StatusCode::ACCEPTED,
        Json(json!({"id": id, "status": "pending"})),
    )
        .into_response()
}

//! The hall's HTTP routes. Public: `/` (overview), `/api/boards`, `/board/{t}/{b}/...` (the
//! one-board view of [`tengen_net::live_view::router`] per board); `/round/{round}.zip`,
//! `/rounds` and `/api/rounds` are in [`crate::routes::rounds`], the round feed
//! (`/feed/...`) in [`crate::routes::round_feed`], all served from [`crate::public`]. Arbiters
//! only, behind a login cookie: `/console` (its script and style in [`console_assets`]),
//! `/api/console/*`, each handler through the one
//! gate of [`console_gate`]. Public pages neither link to nor reveal anything of the
//! console.

pub(crate) mod all_boards;
pub(crate) mod broker;
pub(crate) mod clock;
pub(crate) mod commentary;
pub(crate) mod console_assets;
pub(crate) mod console_gate;
pub(crate) mod correction;
pub(crate) mod frames_view;
pub(crate) mod incidents;
pub(crate) mod lang;
pub(crate) mod public_caps;
pub(crate) mod round_api;
pub(crate) mod round_feed;
pub(crate) mod round_zip;
pub(crate) mod rounds;
pub(crate) mod venues_view;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post, MethodRouter};
use axum::{Form, Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use tower::ServiceExt;

use tengen_l10n::Render;
use tengen_net::live_view::{self, LiveFeed, PageOptions};
use tengen_protocol::topics::BoardKey;

use crate::boards::archive::SharedArchive;
use crate::boards::hall_state::{lock, Shared};
use crate::boards::mqtt_client::MqttLink;
use crate::config::{self, Role};
use crate::console::auth::{self, Sessions, COOKIE};
use crate::console::login_limit::LoginLimiter;
use crate::listener::ClientAddr;
use crate::public::overview_cache::{OverviewCache, AGE_HEADER};
use crate::public::round_feed::SharedFeed;
use crate::public::zip_cache::ZipCache;
use crate::public::{Sources, OVERVIEW};
use crate::tournament::link::TournamentLink;
use console_gate::Arbiter;

/// The arbiters' console page.
const CONSOLE: &str = include_str!("../console/console.html");
/// The console's login form; `{{error}}` is replaced with a message or nothing.
const LOGIN: &str = include_str!("../console/login.html");
/// Argon2 checks at once (each takes 19 MiB and tens of milliseconds of a core); logins
/// beyond wait their turn.
pub(crate) const HASH_CHECKS: usize = 2;

/// What the handlers share.
#[derive(Clone)]
pub(crate) struct App {
    /// The hall's boards and commands.
    pub(crate) hall: Shared,
    /// The MQTT client that publishes commands.
    pub(crate) mqtt: Arc<MqttLink>,
    /// Who may log in.
    pub(crate) arbiters: Arc<Vec<config::Arbiter>>,
    /// Open console sessions.
    pub(crate) sessions: Arc<Mutex<Sessions>>,
    /// How long a session lasts (the cookie's Max-Age).
    pub(crate) session_lifetime: Duration,
    /// Failed logins per address and per name.
    pub(crate) logins: Arc<Mutex<LoginLimiter>>,
    /// Permits for the Argon2 checks ([`HASH_CHECKS`]).
    pub(crate) hash_checks: Arc<tokio::sync::Semaphore>,
    /// Whether the hall serves HTTPS: the session cookie is then `Secure`.
    pub(crate) secure_cookie: bool,
    /// Commentators see the boards live (`[hall] commentary = "live"`), else delayed.
    pub(crate) commentary_live: bool,
    /// The overview shared by every viewer (built at most once a second).
    pub(crate) overview: Arc<OverviewCache>,
    /// The tournament file's rounds and results (`[tournament]`), if configured.
    pub(crate) tournament: Option<Arc<Mutex<TournamentLink>>>,
    /// Every game the hall has followed (`[hall] archive_dir`), if configured.
    pub(crate) archive: Option<SharedArchive>,
    /// The pages' language where a request asks for none (`[hall] lang`).
    pub(crate) lang: tengen_l10n::Lang,
    /// The public round feed, shared by its routes and the export.
    pub(crate) feed: SharedFeed,
    /// Wakes the console store to write at once (`[hall] archive_dir`): an alert taken.
    pub(crate) store_wake: Option<Arc<tokio::sync::Notify>>,
    /// The public round zips, built at most five times a second each.
    pub(crate) zips: Arc<ZipCache>,
    /// A hub's venues and their links (`[hall] venues`), if this hall is one.
    pub(crate) venues: Option<crate::venues::inbox::SharedHub>,
    /// What the public side reads ([`crate::public`]): the same hall, archive and
    /// tournament as above.
    pub(crate) public: Sources,
}

/// The hall's routes but the Round view's ([`crate::routes::round_api`]) and the rounds'
/// ([`crate::routes::rounds`]); `lib.rs` joins them.
pub(crate) fn router() -> Router<App> {
    Router::new()
        .route("/", get(overview))
        .route("/api/boards", get(boards))
        .route("/board/{tournament}/{board}", get(board_redirect))
        .route("/board/{tournament}/{board}/", get(board_view))
        .route("/board/{tournament}/{board}/{*rest}", get(board_view))
        .route("/console", get(console))
        .route("/console/console.js", get(console_assets::script))
        .route("/console/console.css", get(console_assets::style))
        .route("/console/login", post(login))
        .route("/console/logout", post(logout))
        .route("/console/board/{tournament}/{board}", get(live_redirect))
        .route("/console/board/{tournament}/{board}/", get(live_view))
        .route(
            "/console/board/{tournament}/{board}/{*rest}",
            get(live_view),
        )
        .route("/console/overview", get(console_overview))
}

/// The console's API routes of this file (see [`console_api`]).
fn this_files_console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    vec![
        ("/api/console/boards", get(console_boards)),
        ("/api/console/alerts", get(console_alerts)),
        ("/api/console/alert/take", post(take_alert)),
        ("/api/console/hardware", get(console_hardware)),
        ("/api/console/commands", get(console_commands)),
        ("/api/console/command", post(console_command)),
    ]
}

/// Every `/api/console/...` route with its handlers, from each file that has some: the one
/// list [`console_api_router`] is built from and the gate's test walks.
pub(crate) fn console_api() -> Vec<(&'static str, MethodRouter<App>)> {
    [
        this_files_console_api(),
        all_boards::console_api(),
        broker::console_api(),
        correction::console_api(),
        frames_view::console_api(),
        incidents::console_api(),
        round_api::console_api(),
        venues_view::console_api(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The console's API: every route of [`console_api`].
pub(crate) fn console_api_router() -> Router<App> {
    console_api()
        .into_iter()
        .fold(Router::new(), |router, (path, route)| {
            router.route(path, route)
        })
}

async fn overview() -> Html<String> {
    Html(page_in_its_language(OVERVIEW))
}

/// `/api/boards`: the overview's shared copy, with its age in `X-Tengen-Age-Ms`.
async fn boards(State(app): State<App>) -> Response {
    let (bytes, age) = app.overview.boards(&app.hall, Instant::now()).await;
    (
        [
            (header::CONTENT_TYPE, "application/json".to_string()),
            (
                header::HeaderName::from_static(AGE_HEADER),
                age.as_millis().to_string(),
            ),
        ],
        bytes,
    )
        .into_response()
}

/// What the hall answers for a board it has not heard of.
pub(crate) const NO_SUCH_BOARD: &str = "no such board in this hall";

/// `404` with `what`, one line: the hall's one answer for what it does not have.
pub(crate) fn not_found(what: &str) -> Response {
    (StatusCode::NOT_FOUND, format!("{what}\n")).into_response()
}

/// `404`: [`NO_SUCH_BOARD`].
pub(crate) fn no_such_board() -> Response {
    not_found(NO_SUCH_BOARD)
}

async fn board_redirect(Path((t, b)): Path<(String, String)>) -> Response {
    page_redirect("", &t, &b)
}

/// The public one-board pages: the router of `tengen_net::live_view` on the board's public feed
/// (delayed under `[broadcast]`), with the path below `/board/{t}/{b}` as its own.
async fn board_view(
    State(app): State<App>,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    let key = board_key(&params);
    let Some(feed) = key.and_then(|k| lock(&app.hall).public_feed(&k)) else {
        return no_such_board();
    };
    one_board(feed, PageOptions::default(), &params, req).await
}

async fn live_redirect(_: Arbiter, Path((t, b)): Path<(String, String)>) -> Response {
    page_redirect("/console", &t, &b)
}

/// The arbiters' one-board view: the same pages on the live feed (alerts included, no
/// delay), behind the console login.
async fn live_view(
    State(app): State<App>,
    _: Arbiter,
    Path(params): Path<HashMap<String, String>>,
    req: Request,
) -> Response {
    let key = board_key(&params);
    let Some(feed) = key.and_then(|k| lock(&app.hall).feed(&k)) else {
        return no_such_board();
    };
    let lang = lang::current();
    let options = PageOptions {
        heading: Some(tengen_l10n::text(lang, "live-arbiters-heading", &[])),
        clock_link: Some("clock-link".into()),
        clock_note: Some(tengen_l10n::text(lang, "live-arbiters-clock-note", &[])),
        ..PageOptions::default()
    };
    one_board(feed, options, &params, req).await
}

/// The board a one-board route names by its `{tournament}` and `{board}`.
pub(crate) fn board_key(params: &HashMap<String, String>) -> Option<BoardKey> {
    params
        .get("tournament")
        .zip(params.get("board"))
        .and_then(|(t, b)| BoardKey::new(t, b))
}

/// `{pages}/board/{t}/{b}` to the board's page, `{pages}/board/{t}/{b}/` (`pages`: `""`,
/// `/console` or `/commentary`).
pub(crate) fn page_redirect(pages: &str, t: &str, b: &str) -> Response {
    match BoardKey::new(t, b) {
        Some(k) => Redirect::permanent(&format!("{pages}/board/{}/{}/", k.tournament, k.board))
            .into_response(),
        None => no_such_board(),
    }
}

/// Serves `req` from the one-board router on `feed`, with the `rest` of the path as its own
/// and the page framed by `options` (what it is, where its analysis is).
///
/// The hall's board pages leave out the players' faces: their own event stream would make
/// two per page, and a browser opens at most six connections to one host over HTTP/1.1
/// (the hall's), so an arbiter with the console and three board pages open would find the
/// console stalled. The faces are at the board's `clock` (the arbiters' page links it).
pub(crate) async fn one_board(
    feed: LiveFeed,
    options: PageOptions,
    params: &HashMap<String, String>,
    req: Request,
) -> Response {
    let options = PageOptions {
        hide_faces: true,
        lang: lang::current(),
        ..options
    };
    let rest = params.get("rest").map(String::as_str).unwrap_or("");
    serve_at(
        live_view::router_with(feed, options),
        &format!("/{rest}"),
        req,
    )
    .await
}

/// Serves `req` from `router` as if its path were `path` (its query kept), as a request of
/// its own: without the outer route's path parameters, which the inner router's `Path`
/// would read as its own.
pub(crate) async fn serve_at(router: Router, path: &str, req: Request) -> Response {
    let (mut parts, body) = req.into_parts();
    parts.extensions = axum::http::Extensions::new();
    let path_and_query = match parts.uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    match path_and_query.parse::<Uri>() {
        Ok(uri) => parts.uri = uri,
        Err(_) => return not_found("bad path"),
    }
    match router.oneshot(Request::from_parts(parts, body)).await {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// The login form in the request's language, with `error` (a message id of the login's,
/// `""` for none) above it.
pub(crate) fn login_page(status: StatusCode, error: &str) -> Response {
    login_page_with(status, error, &[])
}

fn login_page_with(status: StatusCode, error: &str, args: &[(&str, &str)]) -> Response {
    let lang = lang::current();
    let said = if error.is_empty() {
        String::new()
    } else {
        tengen_l10n::html_escape(&tengen_l10n::text(lang, error, args))
    };
    let page = Render::served(lang).page(LOGIN).replace("{{error}}", &said);
    (status, Html(page)).into_response()
}

/// A page of the hall's in the request's language.
fn page_in_its_language(template: &str) -> String {
    Render::served(lang::current()).page(template)
}

async fn console(State(app): State<App>, headers: HeaderMap) -> Response {
    match console_gate::logged_in(&app, &headers) {
        Some((_, Role::Arbiter)) => Html(page_in_its_language(CONSOLE)).into_response(),
        // A commentator has no console: the boards are on the commentary pages.
        Some((_, Role::Commentator)) => Redirect::to("/commentary").into_response(),
        None => login_page(StatusCode::UNAUTHORIZED, ""),
    }
}

/// The login form.
#[derive(Deserialize)]
struct LoginForm {
    name: String,
    password: String,
}

async fn login(
    State(app): State<App>,
    ConnectInfo(ClientAddr(client)): ConnectInfo<ClientAddr>,
    Form(f): Form<LoginForm>,
) -> Response {
    let (name, password) = (f.name, f.password);
    let addr = client.ip();
    let locked =
        app.logins
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .check(addr, &name, Instant::now());
    if let Err(wait) = locked {
        return too_many(wait);
    }
    // Argon2 takes tens of milliseconds and 19 MiB: not on the async threads, and only
    // HASH_CHECKS at once.
    let Ok(_permit) = app.hash_checks.acquire().await else {
        return login_page(StatusCode::SERVICE_UNAVAILABLE, "login-stopping");
    };
    // Again after the wait: guesses sent all at once must not all pass the check above
    // before the first of them has failed.
    let locked =
        app.logins
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .check(addr, &name, Instant::now());
    if let Err(wait) = locked {
        return too_many(wait);
    }
    let arbiters = app.arbiters.clone();
    let (n, p) = (name.clone(), password);
    let who = tokio::task::spawn_blocking(move || auth::verify(&arbiters, &n, &p))
        .await
        .ok()
        .flatten();
    let Some(who) = who else {
        let now = Instant::now();
        let mut logins = app.logins.lock().unwrap_or_else(|p| p.into_inner());
        logins.failed(addr, &name, now);
        tracing::warn!("console login failed for {:?} from {addr}", truncate(&name));
        if let Err(wait) = logins.check(addr, &name, now) {
            return too_many(wait);
        }
        return login_page(StatusCode::UNAUTHORIZED, "login-wrong");
    };
    app.logins
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .succeeded(addr, &name);
    let id = app
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .open(&who, Instant::now());
    let secure = if app.secure_cookie { "; Secure" } else { "" };
    let cookie = format!(
        "{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{secure}",
        app.session_lifetime.as_secs()
    );
    let role = app
        .arbiters
        .iter()
        .find(|a| a.name == who)
        .map_or(Role::Arbiter, |a| a.role);
    let (what, home) = match role {
        Role::Arbiter => ("arbiter", "/console"),
        Role::Commentator => ("commentator", "/commentary"),
    };
    tracing::info!("{what} {who} logged in from {addr}");
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (header::LOCATION, home.to_string()),
        ],
    )
        .into_response()
}

/// A name as given, cut for the log.
fn truncate(name: &str) -> String {
    name.chars().take(64).collect()
}

/// `429 Too Many Requests` with `Retry-After` (whole seconds, rounded up) and the form.
fn too_many(wait: Duration) -> Response {
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut r = login_page_with(
        StatusCode::TOO_MANY_REQUESTS,
        "login-too-many",
        &[("s", &secs.to_string())],
    );
    r.headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from(secs));
    r
}

async fn logout(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(id) = headers
        .get(header::COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|c| auth::cookie_value(c, COOKIE))
    {
        app.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .close(id);
    }
    let secure = if app.secure_cookie { "; Secure" } else { "" };
    (
        StatusCode::SEE_OTHER,
        [
            (
                header::SET_COOKIE,
                format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0{secure}"),
            ),
            (header::LOCATION, "/console".to_string()),
        ],
    )
        .into_response()
}

/// Refuses (403) every request but `GET`, `HEAD` and `OPTIONS` whose `Origin` (or, without
/// one, `Referer`) does not name the host the request was sent to (`Host`): a page of
/// another site cannot make an arbiter's browser send a command or a login.
pub(crate) async fn same_origin(req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    match origin_problem(req.headers()) {
        None => next.run(req).await,
        Some(why) => {
            tracing::warn!("refused {} {}: {why}", req.method(), req.uri().path());
            (
                StatusCode::FORBIDDEN,
                Json(json!({"error": format!("refused: {why}")})),
            )
                .into_response()
        }
    }
}

/// Why a state-changing request's `Origin`/`Referer` does not match its `Host`, if it does
/// not.
fn origin_problem(headers: &HeaderMap) -> Option<&'static str> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let Some(host) = text(header::HOST) else {
        return Some("no Host header");
    };
    let (source, what) = match (text(header::ORIGIN), text(header::REFERER)) {
        (Some(o), _) => (o, "Origin"),
        (None, Some(r)) => (r, "Referer"),
        (None, None) => return Some("no Origin or Referer header"),
    };
    let Some((scheme, rest)) = source.split_once("://") else {
        return Some(if what == "Origin" {
            "Origin is not this hall"
        } else {
            "Referer is not this hall"
        });
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => "",
    };
    let bare = |a: &str| {
        let a = a.to_ascii_lowercase();
        match a.strip_suffix(default_port) {
            Some(b) if !default_port.is_empty() => b.to_string(),
            _ => a,
        }
    };
    let same = !default_port.is_empty() && !authority.is_empty() && bare(authority) == bare(host);
    match (same, what) {
        (true, _) => None,
        (false, "Origin") => Some("Origin is not this hall"),
        (false, _) => Some("Referer is not this hall"),
    }
}

async fn console_alerts(State(app): State<App>, _: Arbiter) -> Response {
    Json(lock(&app.hall).alerts_json()).into_response()
}

async fn console_hardware(State(app): State<App>, _: Arbiter) -> Response {
    Json(lock(&app.hall).hardware_json()).into_response()
}

async fn console_commands(State(app): State<App>, _: Arbiter) -> Response {
    Json(lock(&app.hall).commands_json(Instant::now())).into_response()
}

/// A command the hall would not send, answered with `status` and one line of JSON the
/// console says in its reader's words: `error` (English), `error_id` and `args`.
pub(crate) fn command_refused(
    status: StatusCode,
    e: &crate::boards::command_log::CommandError,
) -> Response {
    let (id, args) = e.message();
    (
        status,
        Json(json!({"error": e.to_string(), "error_id": id, "args": args})),
    )
        .into_response()
}

/// `POST /api/console/command` with `{"tournament":..,"board":..,"type":..,...}`: the
/// command goes to that board's `cmd` topic with `id` and `by` (the arbiter) added.
async fn console_command(
    State(app): State<App>,
    Arbiter(by): Arbiter,
    Json(body): Json<Map<String, Value>>,
) -> Response {
    let prepared = lock(&app.hall).console_command(&by, body, Instant::now());
    let (key, id, out) = match prepared {
        Ok(x) => x,
        Err(e) => return command_refused(StatusCode::BAD_REQUEST, &e),
    };
    tracing::info!(
        "arbiter {by}: command {id} to {}/{}",
        key.tournament,
        key.board
    );
    if let Err(e) = app.mqtt.publish(out).await {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(
                json!({"id": id, "error": e.to_string(), "error_id": "unreachable",
                        "args": {}}),
            ),
        )
            .into_response();
    }
    (
        StatusCode::ACCEPTED,
        Json(json!({"id": id, "status": "pending"})),
    )
        .into_response()
}

/// The arbiters' overview: the overview page on the live boards (`/api/console/boards`),
/// behind the login, so that arbiters follow every board live while the public overview
/// lags behind the broadcast delay.
async fn console_overview(_: Arbiter) -> Html<String> {
    Html(page_in_its_language(OVERVIEW).replacen(
        "const BOARDS = \"/api/boards\";",
        "const BOARDS = \"/api/console/boards\";",
        1,
    ))
}

/// Every board, live, for the arbiters' overview.
async fn console_boards(State(app): State<App>, _: Arbiter) -> Response {
    Json(lock(&app.hall).live_boards_json(Instant::now())).into_response()
}

/// The body of `POST /api/console/alert/take` and `/alert/dismiss`: one alert of one board.
#[derive(Deserialize)]
pub(crate) struct AlertRef {
    /// The tournament.
    pub(crate) tournament: String,
    /// The board.
    pub(crate) board: String,
    /// The alert's id.
    pub(crate) alert: String,
}

/// `POST /api/console/alert/take` with `{"tournament":..,"board":..,"alert":..}`: the
/// arbiter logged in goes to that alert; every console shows the name on its card.
async fn take_alert(
    State(app): State<App>,
    Arbiter(by): Arbiter,
    Json(body): Json<AlertRef>,
) -> Response {
    let Some(key) = BoardKey::new(&body.tournament, &body.board) else {
        return no_such_board();
    };
    match lock(&app.hall).take_alert(&key, &body.alert, &by) {
        Ok(()) => {
            tracing::info!(
                "arbiter {by} takes alert {} on {}/{}",
                body.alert,
                key.tournament,
                key.board
            );
            // Kept at once: a hall stopped a moment later must not lose who is on the way.
            if let Some(wake) = &app.store_wake {
                wake.notify_one();
            }
            Json(json!({"taken_by": by})).into_response()
        }
        Err(e) => not_found(&e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn origin_or_referer_must_name_the_host() {
        use header::{HOST, ORIGIN, REFERER};
        for ok in [
            headers(&[(HOST, "hall:8090"), (ORIGIN, "http://hall:8090")]),
            headers(&[(HOST, "Hall.lan"), (ORIGIN, "https://hall.lan:443")]),
            headers(&[(HOST, "hall.lan:80"), (ORIGIN, "http://hall.lan")]),
            headers(&[(HOST, "[::1]:8090"), (ORIGIN, "http://[::1]:8090")]),
            headers(&[
                (HOST, "hall:8090"),
                (REFERER, "http://hall:8090/console?x=1"),
            ]),
        ] {
            assert_eq!(origin_problem(&ok), None, "{ok:?}");
        }
        for (bad, why) in [
            (
                headers(&[(HOST, "hall:8090"), (ORIGIN, "http://evil.lan:8090")]),
                "Origin is not this hall",
            ),
            (
                headers(&[(HOST, "hall:8090"), (ORIGIN, "http://hall:8091")]),
                "Origin is not this hall",
            ),
            (
                headers(&[(HOST, "hall:8090"), (ORIGIN, "null")]),
                "Origin is not this hall",
            ),
            (
                headers(&[(HOST, "hall"), (ORIGIN, "http://hall.evil")]),
                "Origin is not this hall",
            ),
            (
                // Origin wins over a matching Referer.
                headers(&[
                    (HOST, "hall:8090"),
                    (ORIGIN, "http://evil"),
                    (REFERER, "http://hall:8090/console"),
                ]),
                "Origin is not this hall",
            ),
            (
                headers(&[(HOST, "hall:8090"), (REFERER, "http://evil/hall:8090")]),
                "Referer is not this hall",
            ),
            (
                headers(&[(HOST, "hall:8090"), (REFERER, "ftp://hall:8090/")]),
                "Referer is not this hall",
            ),
            (
                headers(&[(HOST, "hall:8090")]),
                "no Origin or Referer header",
            ),
            (headers(&[(ORIGIN, "http://hall:8090")]), "no Host header"),
        ] {
            assert_eq!(origin_problem(&bad), Some(why), "{bad:?}");
        }
    }
}

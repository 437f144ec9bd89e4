//! The console's one gate. Every `/console` and `/api/console` handler takes an [`Arbiter`]
//! (the commentary pages a [`Commentator`]): an extractor that reads the login cookie and,
//! without a login, answers `401` itself (the login form for a page, one line of JSON for
//! the API), so a handler cannot forget the check. Every `/api/console/...` route is in one
//! list ([`super::console_api`]) that the router is built from and the gate's test walks.

use std::time::Instant;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

use crate::config::Role;
use crate::console::auth::{self, COOKIE};
use crate::routes::{login_page, App};

/// The arbiter logged in on this request, by name; without one the request is answered
/// `401` (see the module documentation).
pub(crate) struct Arbiter(pub(crate) String);

/// Someone who may read the commentary pages is logged in on this request (a commentator,
/// or an arbiter); without one the request is answered `401`.
pub(crate) struct Commentator;

impl FromRequestParts<App> for Arbiter {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, Self::Rejection> {
        arbiter(app, &parts.headers)
            .map(Arbiter)
            .ok_or_else(|| refused(parts.uri.path()))
    }
}

impl FromRequestParts<App> for Commentator {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, Self::Rejection> {
        commentator(app, &parts.headers)
            .map(|_| Commentator)
            .ok_or_else(|| refused(parts.uri.path()))
    }
}

/// The answer to a request without the login it needs: the login form for a page, one
/// line of JSON for the API (`/api/...`).
fn refused(path: &str) -> Response {
    if path.starts_with("/api/") {
        unauthorized()
    } else {
        login_page(StatusCode::UNAUTHORIZED, "")
    }
}

/// `401` with `{"error":"log in to the console first"}`.
pub(crate) fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        Json(json!({"error": "log in to the console first"})),
    )
        .into_response()
}

/// Who is logged in on this request, with what they may do, if anyone.
pub(crate) fn logged_in(app: &App, headers: &HeaderMap) -> Option<(String, Role)> {
    let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
    let id = auth::cookie_value(cookies, COOKIE)?;
    let name = app
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .arbiter(id, Instant::now())?;
    let role = app.arbiters.iter().find(|a| a.name == name)?.role;
    Some((name, role))
}

/// The arbiter logged in on this request, if any (a commentator is not one): for the pages
/// that show arbiters more (their round zip), not a gate.
pub(crate) fn arbiter(app: &App, headers: &HeaderMap) -> Option<String> {
    logged_in(app, headers).and_then(|(name, role)| (role == Role::Arbiter).then_some(name))
}

/// Whoever may read the commentary pages on this request: a commentator, or an arbiter.
pub(crate) fn commentator(app: &App, headers: &HeaderMap) -> Option<String> {
    logged_in(app, headers).map(|(name, _)| name)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use axum::body::Body;
    use axum::http::{Method, Request};
    use tengen_net::broker::{BrokerUrl, TlsFiles};
    use tower::ServiceExt;

    use super::*;
    use crate::boards::hall_state::HallState;
    use crate::boards::mqtt_client::{ClientSettings, HallInbox, MqttLink};
    use crate::config::Arbiter as Login;
    use crate::console::auth::Sessions;
    use crate::routes::{console_api, console_api_router};

    /// A hall without boards or `[tournament]`, its MQTT client (a real one) pointed at a
    /// port nothing listens on, with an arbiter and a commentator who may log in.
    pub(crate) fn app() -> App {
        let hall = Arc::new(Mutex::new(HallState::new("tengen", None)));
        let settings = ClientSettings {
            url: BrokerUrl::parse("mqtt://127.0.0.1:9").expect("a broker URL"),
            client_id: "gate-test".into(),
            credentials: None,
            tls: TlsFiles::default(),
        };
        let inbox = Box::new(HallInbox {
            hall: hall.clone(),
            archive: false,
        });
        let mqtt = MqttLink::start(&settings, inbox, None, 16).expect("a client");
        let login = |name: &str, role| Login {
            name: name.into(),
            password_hash: None,
            token: None,
            role,
        };
        let lifetime = Duration::from_secs(3600);
        App {
            hall: hall.clone(),
            mqtt: Arc::new(mqtt),
            arbiters: Arc::new(vec![
                login("chief", Role::Arbiter),
                login("pundit", Role::Commentator),
            ]),
            sessions: Arc::new(Mutex::new(Sessions::new(lifetime))),
            session_lifetime: lifetime,
            logins: Arc::default(),
            hash_checks: Arc::new(tokio::sync::Semaphore::new(1)),
            secure_cookie: false,
            commentary_live: false,
            overview: Arc::default(),
            tournament: None,
            archive: None,
            lang: tengen_l10n::Lang::En,
            feed: Arc::default(),
            store_wake: None,
            zips: Arc::default(),
            venues: None,
            public: crate::public::Sources {
                hall,
                archive: None,
                tournament: None,
            },
        }
    }

    /// The answers of every `/api/console/...` route (its `{...}` filled in) to `GET` and
    /// `POST` with `cookie`.
    async fn walk(app: &App, cookie: Option<&str>) -> Vec<(&'static str, [StatusCode; 2])> {
        let router = console_api_router().with_state(app.clone());
        let mut answers = Vec::new();
        for (path, _) in console_api() {
            let uri = path
                .replace("{tournament}", "t")
                .replace("{board}", "b1")
                .replace("{round}", "1");
            let mut got = [StatusCode::OK; 2];
            for (i, method) in [Method::GET, Method::POST].into_iter().enumerate() {
                let mut req = Request::builder()
                    .method(method)
                    .uri(&uri)
                    .header(header::CONTENT_TYPE, "application/json");
                if let Some(c) = cookie {
                    req = req.header(header::COOKIE, format!("{COOKIE}={c}"));
                }
                let req = req.body(Body::from("{}")).expect("a request");
                got[i] = match router.clone().oneshot(req).await {
                    Ok(r) => r.status(),
                    Err(never) => match never {},
                };
            }
            answers.push((path, got));
        }
        answers
    }

    /// Every route of the console's API, from the list the router is built from (a route
    /// added there is walked too): without a login, or with a commentator's, each method
    /// it has answers 401 (the others 405); with an arbiter's, none does.
    #[tokio::test]
    async fn every_console_api_route_answers_401_without_an_arbiters_login() {
        let app = app();
        let (arbiter, pundit) = {
            let mut sessions = app.sessions.lock().expect("sessions");
            let now = std::time::Instant::now();
            (sessions.open("chief", now), sessions.open("pundit", now))
        };
        let unauthorized = StatusCode::UNAUTHORIZED;
        let absent = StatusCode::METHOD_NOT_ALLOWED;
        for cookie in [None, Some("not-a-session"), Some(pundit.as_str())] {
            let answers = walk(&app, cookie).await;
            assert!(answers.len() >= 17, "{answers:?}");
            for (path, got) in answers {
                assert!(path.starts_with("/api/console/"), "{path}");
                assert!(got.contains(&unauthorized), "{path} {cookie:?}: {got:?}");
                assert!(
                    got.iter().all(|s| *s == unauthorized || *s == absent),
                    "{path} {cookie:?}: {got:?}"
                );
            }
        }
        for (path, got) in walk(&app, Some(&arbiter)).await {
            assert!(!got.contains(&unauthorized), "{path}: {got:?}");
            assert!(got.iter().any(|s| *s != absent), "{path}: {got:?}");
        }
    }
}

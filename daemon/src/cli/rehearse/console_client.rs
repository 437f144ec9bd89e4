//! The hall's console as an arbiter's page uses it, over HTTP/1.1: the login form, then
//! the Round view's API with the session cookie and the page's `Origin`. `tengen rehearse
//! --start` starts the round and begins play this way, so a rehearsal goes through the
//! same path an arbiter's clicks do.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::{CONTENT_TYPE, COOKIE, HOST, ORIGIN, SET_COOKIE};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// How long one request may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Why the console could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConsoleError {
    /// The hall could not be reached.
    #[error("the hall at {addr}: {source}")]
    Connect {
        /// Its address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// HTTP failed.
    #[error("the hall at {addr}: {source}")]
    Http {
        /// Its address.
        addr: SocketAddr,
        /// Why.
        source: hyper::Error,
    },
    /// The hall did not answer in time.
    #[error("the hall at {0} did not answer within 10 s")]
    Timeout(SocketAddr),
    /// The login was refused.
    #[error("the console refused the login ({0})")]
    Login(StatusCode),
    /// A request was refused.
    #[error("{path}: {status} {body}")]
    Refused {
        /// What was asked.
        path: String,
        /// The answer's status.
        status: StatusCode,
        /// The answer's body.
        body: String,
    },
}

/// An arbiter logged in to the hall's console.
#[derive(Debug, Clone)]
pub(crate) struct Console {
    addr: SocketAddr,
    cookie: String,
}

impl Console {
    /// Logs in as `name` with `password` (the login form, as the page posts it).
    pub(crate) async fn login(
        addr: SocketAddr,
        name: &str,
        password: &str,
    ) -> Result<Console, ConsoleError> {
        let form = format!(
            "name={}&password={}",
            form_value(name),
            form_value(password)
        );
        let (status, cookie, _) = send(
            addr,
            Method::POST,
            "/console/login",
            None,
            Some(("application/x-www-form-urlencoded", form.into_bytes())),
        )
        .await?;
        match (status, cookie) {
            (StatusCode::SEE_OTHER, Some(cookie)) => Ok(Console { addr, cookie }),
            (status, _) => Err(ConsoleError::Login(status)),
        }
    }

    /// `GET path` as JSON.
    pub(crate) async fn get(&self, path: &str) -> Result<Value, ConsoleError> {
        let (status, _, body) =
            send(self.addr, Method::GET, path, Some(&self.cookie), None).await?;
        json_of(path, status, &body)
    }

    /// `POST path` with a JSON body; the answer as JSON.
    pub(crate) async fn post(&self, path: &str, body: &Value) -> Result<Value, ConsoleError> {
        let bytes = body.to_string().into_bytes();
        let (status, _, body) = send(
            self.addr,
            Method::POST,
            path,
            Some(&self.cookie),
            Some(("application/json", bytes)),
        )
        .await?;
        json_of(path, status, &body)
    }
}

fn json_of(path: &str, status: StatusCode, body: &[u8]) -> Result<Value, ConsoleError> {
    let refused = || ConsoleError::Refused {
        path: path.to_string(),
        status,
        body: String::from_utf8_lossy(body).chars().take(300).collect(),
    };
    if !status.is_success() {
        return Err(refused());
    }
    serde_json::from_slice(body).map_err(|_| refused())
}

/// A form value, percent-encoded (letters, digits and `-._~` as they are).
fn form_value(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One request on its own connection: the status, the session cookie set (`name=value`),
/// and the body.
async fn send(
    addr: SocketAddr,
    method: Method,
    path: &str,
    cookie: Option<&str>,
    body: Option<(&str, Vec<u8>)>,
) -> Result<(StatusCode, Option<String>, Bytes), ConsoleError> {
    let attempt = async {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .map_err(|source| ConsoleError::Connect { addr, source })?;
        let http = |source| ConsoleError::Http { addr, source };
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(http)?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let host = addr.to_string();
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(HOST, host.as_str())
            .header(ORIGIN, format!("http://{host}"));
        if let Some(c) = cookie {
            req = req.header(COOKIE, c);
        }
        let bytes = match body {
            Some((kind, bytes)) => {
                req = req.header(CONTENT_TYPE, kind);
                bytes
            }
            None => Vec::new(),
        };
        // Only the path can make this fail, and the paths are this module's own.
        let req = req
            .body(Full::new(Bytes::from(bytes)))
            .map_err(|e| ConsoleError::Refused {
                path: path.to_string(),
                status: StatusCode::BAD_REQUEST,
                body: e.to_string(),
            })?;
        let resp = sender.send_request(req).await.map_err(http)?;
        let status = resp.status();
        let cookie = resp
            .headers()
            .get(SET_COOKIE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(str::to_string);
        let body = resp.into_body().collect().await.map_err(http)?.to_bytes();
        Ok((status, cookie, body))
    };
    tokio::time::timeout(TIMEOUT, attempt)
        .await
        .map_err(|_| ConsoleError::Timeout(addr))?
}

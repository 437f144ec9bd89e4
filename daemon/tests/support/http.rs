//! A small HTTP/1.1 client for the tests that read the web views over real TCP: one request
//! per connection, read until the server closes or, for event streams, until a marker
//! appears. The same requests go over TLS with `support/tls.rs`.
//!
//! Include with `#[path = "support/http.rs"] mod http;`. Not every test binary uses every
//! helper.
#![allow(dead_code)]

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// One HTTP response: status, raw header block, body.
pub(crate) struct Resp {
    /// The status code.
    pub status: u16,
    /// The status line and headers, as sent.
    pub head: String,
    /// The body (de-chunked unless read up to a marker).
    pub body: Vec<u8>,
}

impl Resp {
    /// The body as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    /// The body as JSON (panics with the body if it is not).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    /// A header's value (case-insensitive name).
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// The `Origin` the hall's console pages send with their POSTs in these tests.
pub(crate) const TEST_ORIGIN: (&str, &str) = ("Origin", "http://test");

/// Posts the hall's console login form, as its page does.
pub(crate) async fn console_login(addr: SocketAddr, name: &str, password: &str) -> Resp {
    let s = TcpStream::connect(addr).await.expect("connect");
    console_login_on(s, name, password).await
}

/// Posts the hall's console login form on `s` (a fresh connection, plain or TLS).
pub(crate) async fn console_login_on<S>(s: S, name: &str, password: &str) -> Resp
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let body = format!("name={name}&password={password}");
    request_on(
        s,
        "POST",
        "/console/login",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            TEST_ORIGIN,
        ],
        body.as_bytes(),
        None,
    )
    .await
}

/// The session cookie (`name=value`) of a successful login (303).
pub(crate) fn session_cookie(r: &Resp) -> String {
    assert_eq!(r.status, 303, "{}", r.text());
    let set = r.header("set-cookie").expect("a session cookie");
    set.split(';').next().unwrap_or_default().to_string()
}

/// Logs in to the hall's console (303) and returns the session cookie (`name=value`).
pub(crate) async fn console_cookie(addr: SocketAddr, name: &str, password: &str) -> String {
    session_cookie(&console_login(addr, name, password).await)
}

/// Sends one request and reads until the server closes (or `until` appears, for streams).
pub(crate) async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    until: Option<&str>,
) -> Resp {
    let s = TcpStream::connect(addr).await.expect("connect");
    request_on(s, method, path, headers, body, until).await
}

/// [`request`] on a connection already open (plain or TLS).
pub(crate) async fn request_on<S>(
    mut s: S,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    until: Option<&str>,
) -> Resp
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    s.write_all(req.as_bytes()).await.expect("write");
    s.write_all(body).await.expect("write body");
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let n = match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Ok(Ok(0)) | Err(_) => break,
            Ok(Ok(n)) => n,
            // A TLS peer that closes without its close_notify.
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Ok(Err(e)) => panic!("read: {e}"),
        };
        out.extend_from_slice(&buf[..n]);
        if until.is_some_and(|u| String::from_utf8_lossy(&out).contains(u)) {
            break;
        }
    }
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(&out)));
    let head = String::from_utf8_lossy(&out[..split]).into_owned();
    let mut body = out[split + 4..].to_vec();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status code");
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
        && until.is_none()
    {
        body = dechunk(&body);
    }
    Resp { status, head, body }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&b[start..(start + size).min(b.len())]);
        b = &b[(start + size + 2).min(b.len())..];
    }
    out
}

/// One GET, read until the server closes.
pub(crate) async fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Resp {
    request(addr, "GET", path, headers, b"", None).await
}

/// The `id:` lines of a Server-Sent Events stream.
pub(crate) fn ids(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix("id:"))
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

/// Polls `check` until it gives `Some` (at most 10 s).
pub(crate) async fn wait_for<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

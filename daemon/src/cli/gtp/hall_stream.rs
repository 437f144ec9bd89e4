//! The board's public stream on the hall, as `tengen gtp` follows it: `/api/state` for
//! where the stream stood when it was opened (its `seq`), then `/events` (Server-Sent
//! Events, `id:` = seq), opened again with `Last-Event-ID` whenever the hall goes away.
//! Only the public paths (`/board/{t}/{b}/...`, behind the broadcast delay) are read.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::{Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::sync::mpsc::UnboundedSender;

use tengen_protocol::Envelope;

/// How long a connection may take to open, and a response to start.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the event stream may stay silent (the hall sends a keep-alive every 15 s)
/// before it is taken as gone and opened again.
const SILENCE: Duration = Duration::from_secs(45);
/// The largest event accepted (a `game_started` or an alert is a few hundred bytes).
const MAX_EVENT: usize = 1 << 20;

/// Why the hall could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HallError {
    /// `--hall` is not a usable URL.
    #[error("--hall {0}: give the hall's address as http://HOST:PORT")]
    BadUrl(String),
    /// The TCP connection failed.
    #[error("cannot reach the hall at {url}: {source}")]
    Connect {
        /// The hall's URL.
        url: String,
        /// Why.
        source: std::io::Error,
    },
    /// The connection opened but did not answer in time.
    #[error("the hall at {0} did not answer within 5 s")]
    Timeout(String),
    /// HTTP failed.
    #[error("the hall at {url}: {source}")]
    Http {
        /// The hall's URL.
        url: String,
        /// Why.
        source: hyper::Error,
    },
    /// The hall does not know the board.
    #[error("no board {0} on the hall")]
    NoBoard(String),
    /// Another status.
    #[error("the hall at {url} answered {status} for {path}")]
    Status {
        /// The hall's URL.
        url: String,
        /// The path asked for.
        path: String,
        /// Its answer.
        status: StatusCode,
    },
}

/// The hall's address and the board's paths on it.
#[derive(Debug, Clone)]
pub(crate) struct BoardOnHall {
    /// The URL as given (for messages).
    url: String,
    /// `host:port` to connect to.
    authority: String,
    /// `/board/{t}/{b}` (below the URL's own path, if it has one).
    base: String,
    /// `T/B`, for messages.
    board: String,
}

impl BoardOnHall {
    /// The board `board` (`T/B`) on the hall at `url` (`http://HOST:PORT[/PREFIX]`).
    pub(crate) fn new(url: &str, board: &str) -> Result<BoardOnHall, HallError> {
        let bad = || HallError::BadUrl(url.to_string());
        let uri: Uri = url.parse().map_err(|_| bad())?;
        if uri.scheme_str() != Some("http") {
            return Err(bad());
        }
        let auth = uri.authority().ok_or_else(bad)?;
        let authority = format!("{}:{}", auth.host(), auth.port_u16().unwrap_or(80));
        let prefix = uri.path().trim_end_matches('/');
        Ok(BoardOnHall {
            url: url.trim_end_matches('/').to_string(),
            authority,
            base: format!("{prefix}/board/{board}"),
            board: board.to_string(),
        })
    }

    /// One GET of `path` below the board's base.
    async fn get(
        &self,
        path: &str,
        last_event_id: Option<u64>,
    ) -> Result<Response<Incoming>, HallError> {
        let full = format!("{}{path}", self.base);
        let attempt = async {
            let stream = tokio::net::TcpStream::connect(&self.authority)
                .await
                .map_err(|source| HallError::Connect {
                    url: self.url.clone(),
                    source,
                })?;
            let http = |source| HallError::Http {
                url: self.url.clone(),
                source,
            };
            let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
                .await
                .map_err(http)?;
            tokio::spawn(async move {
                let _ = conn.await;
            });
            let mut req = hyper::Request::get(full.as_str())
                .header(hyper::header::HOST, self.authority.as_str())
                .header(hyper::header::ACCEPT, "text/event-stream, application/json");
            if let Some(id) = last_event_id {
                req = req.header("last-event-id", id.to_string());
            }
            // Only the path, built above, can fail here: it came from a checked URL and a
            // checked board name.
            let req = req
                .body(Empty::<Bytes>::new())
                .map_err(|_| HallError::BadUrl(self.url.clone()))?;
            sender.send_request(req).await.map_err(http)
        };
        let resp = tokio::time::timeout(CONNECT_TIMEOUT, attempt)
            .await
            .map_err(|_| HallError::Timeout(self.url.clone()))??;
        match resp.status() {
            StatusCode::OK => Ok(resp),
            StatusCode::NOT_FOUND => Err(HallError::NoBoard(self.board.clone())),
            status => Err(HallError::Status {
                url: self.url.clone(),
                path: full,
                status,
            }),
        }
    }

    /// The `seq` of the public stream now (0 while the board has no game).
    async fn public_seq(&self) -> Result<u64, HallError> {
        let resp = match self.get("/api/state", None).await {
            Ok(r) => r,
            Err(HallError::Status { status, .. }) if status == StatusCode::SERVICE_UNAVAILABLE => {
                return Ok(0)
            }
            Err(e) => return Err(e),
        };
        let body = tokio::time::timeout(CONNECT_TIMEOUT, resp.into_body().collect())
            .await
            .map_err(|_| HallError::Timeout(self.url.clone()))?
            .map_err(|source| HallError::Http {
                url: self.url.clone(),
                source,
            })?
            .to_bytes();
        let state: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        Ok(state["seq"].as_u64().unwrap_or(0))
    }
}

/// What the follower tells the session.
#[derive(Debug)]
pub(crate) enum News {
    /// The stream is (again) open; the public game stood at this `seq` when it opened.
    Opened {
        /// The `seq` of `/api/state` just before the stream was opened.
        seq: u64,
    },
    /// One public event, in `seq` order.
    Event(Box<Envelope>),
    /// The hall could not be read (it is tried again).
    Down(String),
}

/// Follows the board's public stream for ever, telling `news` what comes; stops when the
/// receiver is gone.
pub(crate) async fn follow(hall: BoardOnHall, news: UnboundedSender<News>) {
    let mut last: Option<u64> = None;
    let mut pause = Duration::from_millis(200);
    loop {
        let opened = async {
            let seq = hall.public_seq().await?;
            let resp = hall.get("/events", last).await?;
            Ok::<_, HallError>((seq, resp))
        };
        match opened.await {
            Ok((seq, resp)) => {
                pause = Duration::from_millis(200);
                if news.send(News::Opened { seq }).is_err() {
                    return;
                }
                let why = read_events(resp, &mut last, &news).await;
                if news.is_closed() {
                    return;
                }
                let _ = news.send(News::Down(format!(
                    "the hall at {} closed the board's stream{why}; opening it again",
                    hall.url
                )));
            }
            Err(e) => {
                if news.send(News::Down(e.to_string())).is_err() {
                    return;
                }
            }
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

/// Reads one open stream to its end; `last` follows the `seq` of the events passed on.
/// Returns why it ended (`""` when the hall closed it).
async fn read_events(
    resp: Response<Incoming>,
    last: &mut Option<u64>,
    news: &UnboundedSender<News>,
) -> String {
    let mut body = resp.into_body();
    let mut sse = SseReader::default();
    loop {
        let frame = match tokio::time::timeout(SILENCE, body.frame()).await {
            Err(_) => return " (silent for 45 s)".to_string(),
            Ok(None) => return String::new(),
            Ok(Some(Err(e))) => return format!(" ({e})"),
            Ok(Some(Ok(f))) => f,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        for message in sse.push(&data) {
            let envelope: Envelope = match serde_json::from_str(&message.data) {
                Ok(e) => e,
                Err(e) => {
                    eprintln!("tengen gtp: an event the hall sent is not readable: {e}");
                    continue;
                }
            };
            let seq = message.id.unwrap_or(envelope.seq);
            if last.is_some_and(|l| seq <= l) {
                continue;
            }
            *last = Some(seq);
            if news.send(News::Event(Box::new(envelope))).is_err() {
                return String::new();
            }
        }
        if sse.overflowed() {
            return " (an event over 1 MiB)".to_string();
        }
    }
}

/// One Server-Sent Event: its `id` and `data`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseMessage {
    /// The `id:` field, when it is a number.
    pub(crate) id: Option<u64>,
    /// The `data:` lines joined with `\n`.
    pub(crate) data: String,
}

/// Server-Sent Events from a byte stream, sans-IO: bytes in, complete events out.
#[derive(Debug, Default)]
pub(crate) struct SseReader {
    line: Vec<u8>,
    id: Option<u64>,
    data: Option<String>,
    overflow: bool,
}

impl SseReader {
    /// Takes the next bytes; returns the events they complete.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<SseMessage> {
        let mut out = Vec::new();
        for &b in bytes {
            if b != b'\n' {
                if self.line.len() < MAX_EVENT {
                    self.line.push(b);
                } else {
                    self.overflow = true;
                }
                continue;
            }
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if let Some(data) = self.data.take() {
                    out.push(SseMessage {
                        id: self.id.take(),
                        data,
                    });
                }
                self.id = None;
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((&line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => self.id = value.trim().parse().ok(),
                "data" => match self.data.as_mut() {
                    Some(d) if d.len() < MAX_EVENT => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    Some(_) => self.overflow = true,
                    None => self.data = Some(value.to_string()),
                },
                // Comments (`: keep-alive`), `event:`, `retry:`.
                _ => {}
            }
        }
        out
    }

    /// Whether a line or an event was cut at [`MAX_EVENT`]: the stream is not trusted on.
    pub(crate) fn overflowed(&self) -> bool {
        self.overflow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_cut_at_blank_lines_whatever_the_chunks() {
        let text = b": keep-alive\n\nid: 1\ndata: {\"a\":1}\n\nid:2\r\ndata:x\r\ndata: y\r\n\r\n";
        for split in 0..text.len() {
            let mut r = SseReader::default();
            let mut got = r.push(&text[..split]);
            got.extend(r.push(&text[split..]));
            assert_eq!(
                got,
                vec![
                    SseMessage {
                        id: Some(1),
                        data: "{\"a\":1}".into()
                    },
                    SseMessage {
                        id: Some(2),
                        data: "x\ny".into()
                    },
                ],
                "split at {split}"
            );
        }
    }

    #[test]
    fn urls_are_checked() {
        let b = BoardOnHall::new("http://127.0.0.1:8090", "t/b1").unwrap();
        assert_eq!(b.authority, "127.0.0.1:8090");
        assert_eq!(b.base, "/board/t/b1");
        let b = BoardOnHall::new("http://hall.local/tengen/", "t/b1").unwrap();
        assert_eq!(b.authority, "hall.local:80");
        assert_eq!(b.base, "/tengen/board/t/b1");
        for bad in ["127.0.0.1:8090", "https://hall:443", "http://", "not a url"] {
            assert!(BoardOnHall::new(bad, "t/b").is_err(), "{bad}");
        }
    }
}

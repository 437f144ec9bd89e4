//! Many viewers of one board's page (issue 14, load): the first board of the generator
//! (`b0000`), watched by `--page-viewers` clients that do what the page does
//! (`net/src/live_view/page.html`):
//! - `sse`: load the page and `api/state` from the hall, then follow the hall's
//!   `/board/{t}/{b}/events` (Server-Sent Events; after a drop, reconnect 3 s later with
//!   `Last-Event-ID`, as `EventSource` does);
//! - `static`: load the exported page and its `api/state` from the static server, then
//!   `events.json` (every public event so far) at once and every 2 s (`setInterval(once,
//!   2000)`), applying the events with a `seq` beyond the last one seen. A poll that takes
//!   longer than 2 s delays the next one (a browser's `setInterval` would start the next
//!   fetch anyway, on a second connection).
//!
//! Each viewer keeps one HTTP/1.1 connection and reuses it while the server keeps it open
//! (python's `http.server` answers in HTTP/1.0 and closes it after each response: a new
//! connection per poll, as for a browser).
//!
//! Measured: the delay from the board handing an event to its publisher to each viewer
//! seeing it (events published after the viewer's stream was open or its first poll
//! answered), viewers that could not open the page, connections refused, error answers,
//! requests that took over 30 s, SSE streams dropped, viewers still missing events at the
//! end; and once a second, the hall's snapshot of the board (`api/state` on the hall):
//! how many events the hall's intake is behind the board, and for how long.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1::SendRequest;
use hyper::StatusCode;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

use super::{board_id, delay_stats, quantile, Args, Delays, Failure, Sent};

/// How the page viewers follow the board.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PageMode {
    /// The hall's SSE stream, as the live page does.
    Sse,
    /// `events.json` of the static export, every 2 s, as the exported page does.
    Static,
}

/// The static page's poll interval (`setInterval(once, 2000)` in page.html).
const POLL_EVERY: Duration = Duration::from_secs(2);
/// `EventSource`'s wait before it reconnects.
const RECONNECT_AFTER: Duration = Duration::from_secs(3);
/// A request (connect, or answer and body) taking longer than this counts as failed.
const TOO_LONG: Duration = Duration::from_secs(30);

/// What every viewer counts.
#[derive(Default)]
struct Counters {
    /// Viewers that loaded the page and its snapshot.
    opened: AtomicUsize,
    /// Viewers following now (SSE stream open, or polls answered).
    following: AtomicUsize,
    /// Connections that could not be made (refused, reset, timed out).
    connect_failures: AtomicU64,
    /// Requests sent on a connection that failed before the whole answer came.
    request_failures: AtomicU64,
    /// Answers other than 200.
    http_errors: AtomicU64,
    /// Requests (or SSE stream opens) that took longer than [`TOO_LONG`].
    timeouts: AtomicU64,
    /// SSE streams that ended while their viewer was still watching.
    dropped: AtomicU64,
    /// Requests answered 200.
    requests_ok: AtomicU64,
    /// Body bytes received.
    bytes: AtomicU64,
    /// Events seen out of order (a `seq` not one beyond the last, on SSE).
    gaps: AtomicU64,
}

/// One viewer's HTTP/1.1 connection, made again when the server closed it.
struct Client {
    addr: String,
    sender: Option<SendRequest<Empty<Bytes>>>,
}

/// Why a request failed.
enum Miss {
    Connect,
    Request,
    Status,
    Timeout,
}

impl Client {
    fn new(addr: &str) -> Client {
        Client {
            addr: addr.to_string(),
            sender: None,
        }
    }

    async fn connect(&self) -> Result<SendRequest<Empty<Bytes>>, Failure> {
        let stream =
            tokio::time::timeout(TOO_LONG, tokio::net::TcpStream::connect(&self.addr)).await??;
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(sender)
    }

    /// Sends `GET path` (with `Last-Event-ID: last` when `last` is given) on the open
    /// connection, or on a new one when the server closed it; the answer's head.
    async fn send(
        &mut self,
        path: &str,
        last: Option<u64>,
        counters: &Counters,
    ) -> Result<hyper::Response<hyper::body::Incoming>, Miss> {
        // A kept connection the server has closed meanwhile is not a failure: one more try
        // on a new connection.
        for attempt in 0..2 {
            let reused = self.sender.is_some();
            let mut sender = match self.sender.take() {
                Some(s) if !s.is_closed() => s,
                _ => match self.connect().await {
                    Ok(s) => s,
                    Err(_) => {
                        counters.connect_failures.fetch_add(1, Ordering::Relaxed);
                        return Err(Miss::Connect);
                    }
                },
            };
            if sender.ready().await.is_err() {
                if reused && attempt == 0 {
                    continue;
                }
                counters.request_failures.fetch_add(1, Ordering::Relaxed);
                return Err(Miss::Request);
            }
            let mut req = hyper::Request::get(path).header(hyper::header::HOST, &self.addr);
            if let Some(id) = last {
                req = req.header("last-event-id", id.to_string());
            }
            let Ok(req) = req.body(Empty::<Bytes>::new()) else {
                return Err(Miss::Request);
            };
            match tokio::time::timeout(TOO_LONG, sender.send_request(req)).await {
                Err(_) => {
                    counters.timeouts.fetch_add(1, Ordering::Relaxed);
                    return Err(Miss::Timeout);
                }
                Ok(Err(_)) if reused && attempt == 0 => continue,
                Ok(Err(_)) => {
                    counters.request_failures.fetch_add(1, Ordering::Relaxed);
                    return Err(Miss::Request);
                }
                Ok(Ok(resp)) => {
                    self.sender = Some(sender);
                    if resp.status() != StatusCode::OK {
                        counters.http_errors.fetch_add(1, Ordering::Relaxed);
                        // Read the error's body so that the connection can be used again.
                        let _ = tokio::time::timeout(TOO_LONG, resp.into_body().collect()).await;
                        return Err(Miss::Status);
                    }
                    return Ok(resp);
                }
            }
        }
        counters.request_failures.fetch_add(1, Ordering::Relaxed);
        Err(Miss::Request)
    }

    /// `GET path`, the whole body.
    async fn get(&mut self, path: &str, counters: &Counters) -> Result<Bytes, Miss> {
        let resp = self.send(path, None, counters).await?;
        match tokio::time::timeout(TOO_LONG, resp.into_body().collect()).await {
            Err(_) => {
                self.sender = None;
                counters.timeouts.fetch_add(1, Ordering::Relaxed);
                Err(Miss::Timeout)
            }
            Ok(Err(_)) => {
                self.sender = None;
                counters.request_failures.fetch_add(1, Ordering::Relaxed);
                Err(Miss::Request)
            }
            Ok(Ok(body)) => {
                let body = body.to_bytes();
                counters.requests_ok.fetch_add(1, Ordering::Relaxed);
                counters
                    .bytes
                    .fetch_add(body.len() as u64, Ordering::Relaxed);
                Ok(body)
            }
        }
    }
}

/// What the viewers share.
#[derive(Clone)]
struct Probe {
    /// When the watched board handed each event to its publisher (index `seq - 1`).
    sent: Sent,
    delays: Delays,
    counters: Arc<Counters>,
    /// The last `seq` each viewer has seen.
    last_seen: Arc<Vec<AtomicU64>>,
    t0: Instant,
}

impl Probe {
    /// Viewer `k` sees event `seq` now; it counts if it was published after `since`.
    fn saw(&self, k: usize, seq: u64, since: Instant, now: Instant) {
        self.last_seen[k].fetch_max(seq, Ordering::Relaxed);
        let Some(index) = usize::try_from(seq).ok().and_then(|s| s.checked_sub(1)) else {
            return;
        };
        let at = self.sent[0].lock().ok().and_then(|v| v.get(index).copied());
        if let Some(at) = at.filter(|at| *at > since) {
            let d = now.saturating_duration_since(at).as_micros() as u64;
            if let Ok(mut v) = self.delays.lock() {
                v.push((now.duration_since(self.t0).as_secs_f64(), d));
            }
        }
    }
}

/// Loads the page and its snapshot, as a browser does before it follows the board; tries
/// again every 3 s (a viewer reloading) until it works or `until`.
async fn open_page(client: &mut Client, base: &str, until: Instant, probe: &Probe) -> bool {
    while Instant::now() < until {
        let ok = client.get(base, &probe.counters).await.is_ok()
            && client
                .get(&format!("{base}api/state"), &probe.counters)
                .await
                .is_ok();
        if ok {
            probe.counters.opened.fetch_add(1, Ordering::Relaxed);
            return true;
        }
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
    false
}

/// A viewer of the live page: the page, then the hall's SSE stream until `until`.
async fn sse_viewer(
    k: usize,
    hall: String,
    base: String,
    start: Instant,
    until: Instant,
    probe: Probe,
) {
    tokio::time::sleep_until(start.into()).await;
    let mut client = Client::new(&hall);
    if !open_page(&mut client, &base, until, &probe).await {
        return;
    }
    let path = format!("{base}events");
    let mut first_open: Option<Instant> = None;
    let mut last: Option<u64> = None;
    while Instant::now() < until {
        let resp = tokio::select! {
            r = client.send(&path, last, &probe.counters) => r,
            _ = tokio::time::sleep_until(until.into()) => return,
        };
        let Ok(resp) = resp else {
            tokio::time::sleep(RECONNECT_AFTER).await;
            continue;
        };
        let since = *first_open.get_or_insert_with(Instant::now);
        probe.counters.following.fetch_add(1, Ordering::Relaxed);
        let mut body = resp.into_body();
        let mut buf: Vec<u8> = Vec::new();
        let ended = loop {
            let frame = tokio::select! {
                f = body.frame() => f,
                _ = tokio::time::sleep_until(until.into()) => break false,
            };
            let Some(Ok(frame)) = frame else { break true };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let now = Instant::now();
            probe
                .counters
                .bytes
                .fetch_add(data.len() as u64, Ordering::Relaxed);
            buf.extend_from_slice(&data);
            while let Some(nl) = buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buf.drain(..=nl).collect();
                let Some(seq) = line
                    .strip_prefix(b"id:")
                    .and_then(|rest| std::str::from_utf8(rest).ok())
                    .and_then(|s| s.trim().parse::<u64>().ok())
                else {
                    continue;
                };
                if last.is_some_and(|l| seq != l + 1) {
                    probe.counters.gaps.fetch_add(1, Ordering::Relaxed);
                }
                last = Some(seq);
                probe.saw(k, seq, since, now);
            }
        };
        probe.counters.following.fetch_sub(1, Ordering::Relaxed);
        if !ended {
            return;
        }
        // The stream ended while the viewer still watches: EventSource reconnects.
        probe.counters.dropped.fetch_add(1, Ordering::Relaxed);
        client.sender = None;
        tokio::time::sleep(RECONNECT_AFTER).await;
    }
}

/// The `seq`s beyond `last` in `events.json` (a JSON array of envelopes in `seq` order, each
/// `{"seq":N,...}`), oldest first. Read from the end, so a poll costs the generator the new
/// events, not the whole file (a browser parses the whole file).
fn new_seqs(body: &[u8], last: u64) -> Vec<u64> {
    const KEY: &[u8] = b"{\"seq\":";
    let mut out = Vec::new();
    let mut end = body.len();
    while let Some(at) = body[..end].windows(KEY.len()).rposition(|w| w == KEY) {
        let digits = &body[at + KEY.len()..end];
        let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
        let seq = std::str::from_utf8(&digits[..len])
            .ok()
            .and_then(|s| s.parse::<u64>().ok());
        match seq {
            Some(seq) if seq > last => out.push(seq),
            _ => break,
        }
        end = at;
    }
    out.reverse();
    out
}

/// A viewer of the exported page: the page from the static server, then `events.json` at
/// once and every 2 s until `until`.
async fn static_viewer(
    k: usize,
    server: String,
    base: String,
    start: Instant,
    until: Instant,
    probe: Probe,
) {
    tokio::time::sleep_until(start.into()).await;
    let mut client = Client::new(&server);
    if !open_page(&mut client, &base, until, &probe).await {
        return;
    }
    let path = format!("{base}events.json");
    let mut first_answer: Option<Instant> = None;
    let mut last = 0u64;
    let mut tick = tokio::time::interval(POLL_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = tokio::time::sleep_until(until.into()) => break,
        }
        let body = tokio::select! {
            b = client.get(&path, &probe.counters) => b,
            _ = tokio::time::sleep_until(until.into()) => break,
        };
        let now = Instant::now();
        let Ok(body) = body else { continue };
        let since = match first_answer {
            Some(t) => t,
            None => {
                probe.counters.following.fetch_add(1, Ordering::Relaxed);
                *first_answer.insert(now)
            }
        };
        for seq in new_seqs(&body, last) {
            last = seq;
            probe.saw(k, seq, since, now);
        }
    }
    if first_answer.is_some() {
        probe.counters.following.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The hall's intake of the watched board, once a second: (s since start, events the hall
/// is behind the board, ms the oldest of them has waited).
type Intake = Arc<Mutex<Vec<(f64, u64, f64)>>>;

async fn follow_intake(
    hall: String,
    base: String,
    sent: Sent,
    t0: Instant,
    until: Instant,
    out: Intake,
) {
    let counters = Counters::default();
    let mut client = Client::new(&hall);
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    while Instant::now() < until {
        tick.tick().await;
        // What the board had handed over before asking: what the hall could have.
        let (published, times) = match sent[0].lock() {
            Ok(v) => (v.len() as u64, v.clone()),
            Err(_) => continue,
        };
        let Ok(body) = client.get(&format!("{base}api/state"), &counters).await else {
            continue;
        };
        let now = Instant::now();
        let seq = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| v.get("seq").and_then(Value::as_u64))
            .unwrap_or(0);
        let behind = published.saturating_sub(seq);
        let waited = usize::try_from(seq)
            .ok()
            .and_then(|s| times.get(s))
            .map_or(0.0, |at| {
                now.saturating_duration_since(*at).as_secs_f64() * 1000.0
            });
        if let Ok(mut o) = out.lock() {
            o.push((now.duration_since(t0).as_secs_f64(), behind, waited));
        }
    }
}

/// Runs `--page-viewers` viewers of board 0 until `until`; their figures over the steady
/// window, as JSON.
pub(crate) async fn run(args: Arc<Args>, sent: Sent, t0: Instant, until: Instant) -> Value {
    let n = args.page_viewers;
    let base = format!("/board/{}/{}/", args.tournament, board_id(0));
    let probe = Probe {
        sent: sent.clone(),
        delays: Arc::new(Mutex::new(Vec::new())),
        counters: Arc::new(Counters::default()),
        last_seen: Arc::new((0..n).map(|_| AtomicU64::new(0)).collect()),
        t0,
    };
    let intake: Intake = Arc::new(Mutex::new(Vec::new()));
    let following = tokio::spawn(follow_intake(
        args.hall.clone(),
        base.clone(),
        sent.clone(),
        t0,
        until,
        intake.clone(),
    ));
    let first = t0 + Duration::from_secs_f64(args.ramp);
    let mut viewers = Vec::with_capacity(n);
    for k in 0..n {
        let start = first + Duration::from_secs_f64(args.viewer_ramp * k as f64 / n as f64);
        let p = probe.clone();
        viewers.push(match args.page {
            PageMode::Sse => tokio::spawn(sse_viewer(
                k,
                args.hall.clone(),
                base.clone(),
                start,
                until,
                p,
            )),
            PageMode::Static => {
                let server = args.static_server.clone().unwrap_or_default();
                tokio::spawn(static_viewer(k, server, base.clone(), start, until, p))
            }
        });
    }
    let report = tokio::spawn({
        let c = probe.counters.clone();
        async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            while Instant::now() < until {
                tick.tick().await;
                eprintln!(
                    "page viewers: opened {} following {} connect failures {} request failures {} errors {} timeouts {} dropped {}",
                    c.opened.load(Ordering::Relaxed),
                    c.following.load(Ordering::Relaxed),
                    c.connect_failures.load(Ordering::Relaxed),
                    c.request_failures.load(Ordering::Relaxed),
                    c.http_errors.load(Ordering::Relaxed),
                    c.timeouts.load(Ordering::Relaxed),
                    c.dropped.load(Ordering::Relaxed),
                );
            }
        }
    });
    for v in viewers {
        let _ = v.await;
    }
    let _ = following.await;
    report.abort();

    let from = args.ramp + args.viewer_ramp;
    let to = args.duration;
    let published = sent[0].lock().map_or(0, |v| v.len() as u64);
    let behind_at_end = probe
        .last_seen
        .iter()
        .filter(|s| s.load(Ordering::Relaxed) < published)
        .count();
    let delays = probe.delays.lock().map(|d| d.clone()).unwrap_or_default();
    let intake = intake.lock().map(|i| i.clone()).unwrap_or_default();
    let steady: Vec<&(f64, u64, f64)> = intake.iter().filter(|x| x.0 >= from && x.0 < to).collect();
    let mut waited: Vec<u64> = steady.iter().map(|x| x.2 as u64).collect();
    waited.sort_unstable();
    let c = &probe.counters;
    let span = (to - from).max(1e-9);
    json!({
        "mode": match args.page { PageMode::Sse => "sse", PageMode::Static => "static" },
        "viewers": n,
        "opened": c.opened.load(Ordering::Relaxed),
        "connect_failures": c.connect_failures.load(Ordering::Relaxed),
        "request_failures": c.request_failures.load(Ordering::Relaxed),
        "http_errors": c.http_errors.load(Ordering::Relaxed),
        "timeouts": c.timeouts.load(Ordering::Relaxed),
        "sse_dropped": c.dropped.load(Ordering::Relaxed),
        "sse_gaps": c.gaps.load(Ordering::Relaxed),
        "requests_ok": c.requests_ok.load(Ordering::Relaxed),
        "mb_received": (c.bytes.load(Ordering::Relaxed) as f64 / 1e6 * 10.0).round() / 10.0,
        "board_events_published": published,
        "viewers_missing_events_at_end": behind_at_end,
        "delay_publish_to_viewer_steady": delay_stats(&delays, from, to),
        "delay_samples_per_s_steady": (delays.iter().filter(|d| d.0 >= from && d.0 < to).count() as f64 / span).round(),
        "hall_intake_samples_steady": steady.len(),
        "hall_intake_max_events_behind": steady.iter().map(|x| x.1).max().unwrap_or(0),
        "hall_intake_wait_ms_p50": quantile(&waited, 0.5),
        "hall_intake_wait_ms_max": waited.last().copied().unwrap_or(0),
    })
}

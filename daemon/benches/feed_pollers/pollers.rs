//! The pollers: a share of them in one process (a child of the generator, one thread), each
//! a viewer following one game on its own kept-alive connection.
//!
//! - `json` (the feed's follower): `GET /feed/round/1/index.json` once, then the game's
//!   `{table}.json` whole (gzip off), keeping `have = len - 3` (the bytes before `"\n]\n"`)
//!   and the `ETag`; every 2 s `Range: bytes={have}-` with `If-None-Match`: 304 is nothing
//!   new, 206 with a body starting with `,` the new events; anything else (a 200, a 206 not
//!   starting with `,`, a 416) means the whole file again, at once.
//! - `sgf` (a Sabaki-like viewer): the index once, then `{table}.sgf` every 2 s with
//!   `Accept-Encoding: gzip` and `If-None-Match`.
//! - `today` (the exported board page as it is today): `board/{t}/{b}/events.json` whole every
//!   2 s (`fetch(.., {cache: "no-store"})`: no validator), `Accept-Encoding: gzip` as a
//!   browser sends it.
//!
//! Each poller notes when it first saw each move (monotonic µs, the same clock in every
//! process of the machine), every byte it received, and every answer's status.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::client::{find, Answer, Conn, Fail};
use super::{instant_at, mono_us};

/// What every poller process is told.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Plan {
    /// `feed` or `today`.
    pub(crate) mode: String,
    /// The server the pollers ask, `host:port`.
    pub(crate) server: String,
    pub(crate) tournament: String,
    pub(crate) round: String,
    /// Games (tables `1..=boards`, boards `b0000..`).
    pub(crate) boards: usize,
    /// All pollers, over every process.
    pub(crate) pollers: usize,
    /// One poller in this many (per table) follows the SGF; 0: none.
    pub(crate) sgf_every: usize,
    pub(crate) poll_every_ms: u64,
    /// Pollers start spread over `start_us..start_us + ramp_us` (monotonic µs).
    pub(crate) start_us: u64,
    pub(crate) ramp_us: u64,
    /// The measured window.
    pub(crate) steady_from_us: u64,
    pub(crate) steady_to_us: u64,
    /// Pollers stop here.
    pub(crate) end_us: u64,
    /// A request taking longer counts as timed out.
    pub(crate) timeout_ms: u64,
}

/// Upper bound of the latency histogram, in ms (one bucket per ms, the last one open).
pub(crate) const HIST_MS: usize = 10_000;

/// What one poller saw.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct PollerOut {
    pub(crate) j: usize,
    /// `json`, `sgf` or `today`.
    pub(crate) kind: String,
    /// 1-based table (board `table - 1`).
    pub(crate) table: usize,
    /// When its file first answered 200 (0: never).
    pub(crate) first_us: u64,
    /// The highest move in the file then.
    pub(crate) moves_at_first: u32,
    /// The highest move seen by the end.
    pub(crate) moves_at_end: u32,
    /// Bytes (wire: head and body; body: the body as sent) of the start: the index and the
    /// first whole file.
    pub(crate) initial_wire: u64,
    pub(crate) initial_body: u64,
    /// Bytes and requests answered inside the measured window.
    pub(crate) steady_wire: u64,
    pub(crate) steady_body: u64,
    pub(crate) steady_requests: u64,
    /// Bytes after the start, to the end.
    pub(crate) after_wire: u64,
    pub(crate) after_body: u64,
    pub(crate) status_200: u64,
    pub(crate) status_206: u64,
    pub(crate) status_304: u64,
    pub(crate) status_416: u64,
    pub(crate) status_other: u64,
    /// The whole events file fetched again after the start (a 200, a 206 not starting with
    /// `,`, a 416).
    pub(crate) restarts: u64,
    pub(crate) connect_failures: u64,
    pub(crate) io_failures: u64,
    pub(crate) timeouts: u64,
    pub(crate) malformed: u64,
    /// The index's answer was not a 200 with a `games` list.
    pub(crate) index_failed: bool,
    pub(crate) connects: u64,
    /// Polls started more than one period after their tick (this process fell behind).
    pub(crate) late_polls: u64,
    /// (move number, first seen, monotonic µs), for moves beyond `moves_at_first`.
    pub(crate) seen: Vec<(u32, u64)>,
}

/// What a poller process writes.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct PartOut {
    pub(crate) pollers: Vec<PollerOut>,
    /// Requests answered inside the window, by latency (1 ms buckets up to [`HIST_MS`]).
    pub(crate) latency_ms: Vec<u64>,
}

/// Counters of one process, for its progress lines.
#[derive(Default)]
struct Progress {
    following: AtomicU64,
    requests: AtomicU64,
    failures: AtomicU64,
}

/// The highest move number (of a `move` or `pass` event) in `text`, the last one found
/// searching from the end (a file of events in order).
pub(crate) fn last_move_number(text: &[u8]) -> Option<u32> {
    const KEY: &[u8] = b"\"number\":";
    let mut end = text.len();
    while let Some(at) = text[..end].windows(KEY.len()).rposition(|w| w == KEY) {
        let before = &text[..at];
        if before.ends_with(b"\"type\":\"move\",") || before.ends_with(b"\"type\":\"pass\",") {
            let digits = &text[at + KEY.len()..];
            let len = digits.iter().take_while(|b| b.is_ascii_digit()).count();
            if let Some(n) = std::str::from_utf8(&digits[..len])
                .ok()
                .and_then(|s| s.parse().ok())
            {
                return Some(n);
            }
        }
        end = at;
    }
    None
}

/// The moves (and passes) of an SGF record: its `;B[` and `;W[` nodes.
pub(crate) fn sgf_moves(sgf: &[u8]) -> u32 {
    sgf.windows(3)
        .filter(|w| w[0] == b';' && (w[1] == b'B' || w[1] == b'W') && w[2] == b'[')
        .count() as u32
}

fn gunzip(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() * 4);
    flate2::read::GzDecoder::new(body)
        .read_to_end(&mut out)
        .ok()?;
    Some(out)
}

/// One poller's state and accounts.
struct Poller {
    plan: Arc<Plan>,
    hist: Arc<Vec<AtomicU64>>,
    progress: Arc<Progress>,
    conn: Conn,
    host: String,
    out: PollerOut,
    /// The highest move seen so far.
    known: u32,
    /// `json`: the bytes before `"\n]\n"` and the file's ETag.
    have: Option<(usize, Option<String>)>,
    /// `sgf`: the record's ETag.
    etag: Option<String>,
}

impl Poller {
    fn request(&self, path: &str, extra: &str) -> Vec<u8> {
        format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nUser-Agent: tengen-feed-pollers\r\n{extra}\r\n",
            self.host
        )
        .into_bytes()
    }

    /// Sends one request; accounts for its answer (`start`: part of the viewer's start).
    async fn send(&mut self, request: &[u8], start: bool) -> Option<Answer> {
        let asked = mono_us();
        let timeout = Duration::from_millis(self.plan.timeout_ms);
        let result = self.conn.send(request, timeout).await;
        let now = mono_us();
        self.progress.requests.fetch_add(1, Ordering::Relaxed);
        let a = match result {
            Ok(a) => a,
            Err(f) => {
                self.progress.failures.fetch_add(1, Ordering::Relaxed);
                match f {
                    Fail::Connect => self.out.connect_failures += 1,
                    Fail::Io => self.out.io_failures += 1,
                    Fail::Timeout => self.out.timeouts += 1,
                    Fail::Malformed => self.out.malformed += 1,
                }
                return None;
            }
        };
        let (wire, body) = (a.wire as u64, a.body.len() as u64);
        if start {
            self.out.initial_wire += wire;
            self.out.initial_body += body;
        } else {
            self.out.after_wire += wire;
            self.out.after_body += body;
            if now >= self.plan.steady_from_us && now < self.plan.steady_to_us {
                self.out.steady_wire += wire;
                self.out.steady_body += body;
                self.out.steady_requests += 1;
                let ms = ((now - asked) / 1000) as usize;
                if let Some(b) = self.hist.get(ms.min(HIST_MS)) {
                    b.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        match a.status {
            200 => self.out.status_200 += 1,
            206 => self.out.status_206 += 1,
            304 => self.out.status_304 += 1,
            416 => self.out.status_416 += 1,
            _ => {
                self.out.status_other += 1;
                self.progress.failures.fetch_add(1, Ordering::Relaxed);
            }
        }
        Some(a)
    }

    /// The viewer now knows moves up to `n`.
    fn saw(&mut self, n: Option<u32>) {
        let Some(n) = n else { return };
        if self.out.first_us == 0 {
            return;
        }
        let now = mono_us();
        while self.known < n {
            self.known += 1;
            self.out.seen.push((self.known, now));
        }
    }

    /// The first answer of the followed file.
    fn first(&mut self, n: Option<u32>) {
        if self.out.first_us == 0 {
            self.out.first_us = mono_us();
            self.known = n.unwrap_or(0);
            self.out.moves_at_first = self.known;
            self.progress.following.fetch_add(1, Ordering::Relaxed);
        } else {
            self.saw(n);
        }
    }

    fn events_path(&self) -> String {
        format!("/feed/round/{}/{}.json", self.plan.round, self.out.table)
    }

    /// `json`: the whole events file.
    async fn whole_events(&mut self) {
        let req = self.request(&self.events_path(), "");
        let start = self.out.first_us == 0;
        let Some(a) = self.send(&req, start).await else {
            return;
        };
        if a.status == 200 {
            self.take_whole(&a);
        }
    }

    fn take_whole(&mut self, a: &Answer) {
        let n = last_move_number(&a.body);
        self.have = a
            .body
            .ends_with(b"\n]\n")
            .then(|| (a.body.len() - 3, a.etag.clone()));
        self.first(n);
    }

    /// `json`: one poll.
    async fn poll_events(&mut self) {
        let Some((have, etag)) = self.have.clone() else {
            self.whole_events().await;
            return;
        };
        let validator = etag
            .as_deref()
            .map(|e| format!("If-None-Match: {e}\r\n"))
            .unwrap_or_default();
        let req = self.request(
            &self.events_path(),
            &format!("Range: bytes={have}-\r\n{validator}"),
        );
        let Some(a) = self.send(&req, false).await else {
            return;
        };
        match a.status {
            304 => {}
            206 if a.body == b"\n]\n" => {}
            206 if a.body.starts_with(b",") && a.body.ends_with(b"\n]\n") => {
                self.have = Some((have + a.body.len() - 3, a.etag.clone().or(etag)));
                self.saw(last_move_number(&a.body));
            }
            200 => {
                self.out.restarts += 1;
                self.take_whole(&a);
            }
            206 | 416 => {
                self.out.restarts += 1;
                self.have = None;
                self.whole_events().await;
            }
            _ => {}
        }
    }

    /// `sgf`: one poll (the first one is the start).
    async fn poll_sgf(&mut self) {
        let path = format!("/feed/round/{}/{}.sgf", self.plan.round, self.out.table);
        let validator = self
            .etag
            .as_deref()
            .map(|e| format!("If-None-Match: {e}\r\n"))
            .unwrap_or_default();
        let req = self.request(&path, &format!("Accept-Encoding: gzip\r\n{validator}"));
        let start = self.out.first_us == 0;
        let Some(a) = self.send(&req, start).await else {
            return;
        };
        if a.status != 200 {
            return;
        }
        self.etag = a.etag.clone();
        let text = if a.gzip {
            gunzip(&a.body)
        } else {
            Some(a.body)
        };
        let n = text.map(|t| sgf_moves(&t));
        self.first(n);
    }

    /// `today`: one poll of the board's whole `events.json`.
    async fn poll_today(&mut self) {
        let path = format!(
            "/board/{}/{}/events.json",
            self.plan.tournament,
            super::boards::board_id(self.out.table - 1)
        );
        let req = self.request(&path, "Accept-Encoding: gzip\r\n");
        let start = self.out.first_us == 0;
        let Some(a) = self.send(&req, start).await else {
            return;
        };
        if a.status != 200 {
            return;
        }
        let n = if a.gzip {
            gunzip(&a.body).and_then(|t| last_move_number(&t))
        } else {
            last_move_number(&a.body)
        };
        self.first(n);
    }

    /// The round's index, once.
    async fn index(&mut self) {
        let req = self.request(&format!("/feed/round/{}/index.json", self.plan.round), "");
        let ok = match self.send(&req, true).await {
            Some(a) if a.status == 200 => find(&a.body, b"\"games\"").is_some(),
            _ => false,
        };
        self.out.index_failed = !ok;
    }
}

/// Poller `j` from its start to the plan's end.
async fn poller(
    j: usize,
    plan: Arc<Plan>,
    hist: Arc<Vec<AtomicU64>>,
    progress: Arc<Progress>,
) -> PollerOut {
    let table = j % plan.boards + 1;
    let kind = if plan.mode == "today" {
        "today"
    } else if plan.sgf_every > 0 && (j / plan.boards) % plan.sgf_every == plan.sgf_every - 1 {
        "sgf"
    } else {
        "json"
    };
    let start = plan.start_us + plan.ramp_us * j as u64 / plan.pollers.max(1) as u64;
    tokio::time::sleep_until(instant_at(start).into()).await;
    let host = plan.server.clone();
    let mut p = Poller {
        conn: Conn::new(&plan.server),
        plan: plan.clone(),
        hist,
        progress,
        host,
        out: PollerOut {
            j,
            kind: kind.to_string(),
            table,
            ..PollerOut::default()
        },
        known: 0,
        have: None,
        etag: None,
    };
    if kind != "today" {
        p.index().await;
    }
    let every = Duration::from_millis(plan.poll_every_ms);
    let end = instant_at(plan.end_us);
    let mut tick = tokio::time::interval_at(instant_at(start).into(), every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let due = tokio::select! {
            t = tick.tick() => t,
            _ = tokio::time::sleep_until(end.into()) => break,
        };
        if due.elapsed() > every {
            p.out.late_polls += 1;
        }
        let poll = async {
            match kind {
                "json" => p.poll_events().await,
                "sgf" => p.poll_sgf().await,
                _ => p.poll_today().await,
            }
        };
        tokio::select! {
            _ = poll => {}
            _ = tokio::time::sleep_until(end.into()) => break,
        }
    }
    p.out.moves_at_end = p.known;
    p.out.connects = p.conn.connects;
    if p.out.first_us != 0 {
        p.progress.following.fetch_sub(1, Ordering::Relaxed);
    }
    p.out
}

/// A poller process: pollers `first..first + count` of `plan`, on one thread; their
/// figures written to `out`.
pub(crate) fn run_part(
    plan: Plan,
    first: usize,
    count: usize,
    out: &std::path::Path,
) -> Result<(), super::Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let plan = Arc::new(plan);
    let hist: Arc<Vec<AtomicU64>> = Arc::new((0..=HIST_MS).map(|_| AtomicU64::new(0)).collect());
    let progress = Arc::new(Progress::default());
    let pollers = runtime.block_on(async {
        let report = tokio::spawn({
            let progress = progress.clone();
            let end = instant_at(plan.end_us);
            async move {
                let mut tick = tokio::time::interval(Duration::from_secs(10));
                loop {
                    tokio::select! {
                        _ = tick.tick() => {}
                        _ = tokio::time::sleep_until(end.into()) => return,
                    }
                    eprintln!(
                        "pollers {first}..{}: following {} requests {} failures {}",
                        first + count,
                        progress.following.load(Ordering::Relaxed),
                        progress.requests.load(Ordering::Relaxed),
                        progress.failures.load(Ordering::Relaxed),
                    );
                }
            }
        });
        let tasks: Vec<_> = (first..first + count)
            .map(|j| tokio::spawn(poller(j, plan.clone(), hist.clone(), progress.clone())))
            .collect();
        let mut outs = Vec::with_capacity(count);
        for t in tasks {
            if let Ok(o) = t.await {
                outs.push(o);
            }
        }
        report.abort();
        outs
    });
    let part = PartOut {
        pollers,
        latency_ms: hist.iter().map(|b| b.load(Ordering::Relaxed)).collect(),
    };
    let text = serde_json::to_vec(&part)?;
    std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(())
}

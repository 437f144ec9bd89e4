//! Many boards into one hall: a load generator for `tengen hall` (issue 6 item 4, issue 7
//! item 3). Not part of `cargo test`; `bench/hall-scale.sh` starts mosquitto and the hall
//! and runs this at each board count.
//!
//! One process simulates N boards. Each board is a real MQTT client (the product's
//! [`Publisher`], its own client id `tengen-{board}`, clean session off, QoS 1, the same
//! topics and retained payloads as `tengen run`) playing a real simulated game: the SGF
//! games of the repo's fixtures go through the simulator and the whole pipeline (stabiliser,
//! referee) once at start-up; each board then replays one of those runs on the wall clock
//! (`--speed` virtual ms per wall ms), with its own ids, `seq` and times, publishing each
//! batch's events, then the `state` snapshot, the SGF and `alerts/active` as the service
//! does. Boards start spread uniformly over `--ramp` seconds.
//!
//! Measured, with everything in this one process's clock:
//! - delay from a board handing an event to its publisher to a viewer of the hall's SSE
//!   stream (`/board/{t}/{b}/events`) receiving it, for `--watch` boards;
//! - the overview (`/api/boards`, polled every 2 s by `--viewers` clients as the overview
//!   page does): response time, size, and how far the hall's view (`seq` of each board's
//!   state) is behind what the boards published;
//! - CPU (of one core) and resident memory of this process and of every `--pid NAME:PID`
//!   (the hall, mosquitto), from `/proc`, over the steady window after the ramp.
//!
//! With `--page-viewers N` it also opens N viewers of the first board's page
//! ([`page_viewers`], `bench/hall-viewers.sh`): on the hall's SSE stream, or polling the
//! static export (`[broadcast] export_dir`) on a plain static server as the page does.
//!
//! Run: `cargo bench -p tengen-daemon --bench hall_scale -- --broker mqtt://127.0.0.1:1883
//! --hall 127.0.0.1:8090 --boards 500`.

#[path = "hall_scale/page_viewers.rs"]
mod page_viewers;
#[path = "support/proc_sample.rs"]
mod proc_sample;
#[path = "support/simulated_games.rs"]
mod simulated_games;

use proc_sample::{clock_ticks, sample, ProcSample};
use simulated_games::{default_games, simulate, Failure, Game};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use clap::Parser;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tengen_daemon::mqtt::{
    MemorySource, MqttSettings, Publisher, PublisherParts, Retained, Topics,
};
use tengen_net::broker::BrokerUrl;
use tengen_protocol::{Envelope, GameView, Timestamp};

/// The generator's options.
#[derive(Parser, Debug, Clone)]
#[command(about = "Many simulated boards publishing into one tengen hall")]
struct Args {
    /// The broker, `mqtt://host:port`.
    #[arg(long, default_value = "mqtt://127.0.0.1:1883")]
    broker: String,
    /// The hall's HTTP address, `host:port`.
    #[arg(long, default_value = "127.0.0.1:8090")]
    hall: String,
    /// How many boards.
    #[arg(long, default_value_t = 500)]
    boards: usize,
    /// Boards start spread uniformly over this many seconds.
    #[arg(long, default_value_t = 30.0)]
    ramp: f64,
    /// Seconds from the first board's start to the end of publishing.
    #[arg(long, default_value_t = 120.0)]
    duration: f64,
    /// Seconds after publishing stops for the hall to catch up before the final check.
    #[arg(long, default_value_t = 10.0)]
    drain: f64,
    /// Virtual (game) milliseconds per wall millisecond: 1 plays the simulator's human
    /// thinking time (median 4 s a move), 2 twice as fast.
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// Boards whose hall SSE stream is followed to time each event (spread evenly).
    #[arg(long, default_value_t = 100)]
    watch: usize,
    /// Overview viewers polling `/api/boards` every 2 s.
    #[arg(long, default_value_t = 2)]
    viewers: usize,
    /// Topic prefix.
    #[arg(long, default_value = "tengen")]
    prefix: String,
    /// Tournament id of every board.
    #[arg(long, default_value = "scale")]
    tournament: String,
    /// Another process to measure, `NAME:PID` or `NAME:PID,PID,...` (summed: nginx's master
    /// and workers) (repeatable).
    #[arg(long = "pid")]
    pids: Vec<String>,
    /// SGF games to simulate (default: the repo's 19x19 fixture games).
    #[arg(long = "sgf")]
    sgfs: Vec<PathBuf>,
    /// Where to write the JSON summary.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of the simulator's timing.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Viewers of the first board's page (`bench/hall-viewers.sh`); 0: none.
    #[arg(long, default_value_t = 0)]
    page_viewers: usize,
    /// How the page viewers follow the board: `sse` (the hall's `/board/{t}/{b}/events`, as
    /// the live page does) or `static` (`events.json` of the export every 2 s, as the
    /// exported page does, from `--static-server`).
    #[arg(long, value_enum, default_value = "sse")]
    page: page_viewers::PageMode,
    /// The static server serving the hall's `[broadcast] export_dir`, `host:port`.
    #[arg(long)]
    static_server: Option<String>,
    /// The page viewers open the page spread over this many seconds, after `--ramp`.
    #[arg(long, default_value_t = 10.0)]
    viewer_ramp: f64,
    /// Virtual seconds of each game published at once when its board starts (a game well
    /// under way, so that its page and `events.json` have a real size).
    #[arg(long, default_value_t = 0.0)]
    head_start: f64,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// When each board handed each event to its publisher (index `seq - 1`).
type Sent = Arc<Vec<Mutex<Vec<Instant>>>>;

/// Counters shared by every task.
#[derive(Default)]
struct Counters {
    published: AtomicU64,
    acked: AtomicU64,
    connected: AtomicUsize,
    started: AtomicUsize,
    sse_events: AtomicU64,
    sse_gaps: AtomicU64,
    /// Connections lost while publishing (not the clean disconnects at the end).
    disconnects: AtomicUsize,
}

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Board `i`: connect at `start`, replay `game` until `stop`, wait for the acknowledgements,
/// disconnect cleanly. Returns the last `seq` published.
async fn board(
    i: usize,
    args: Arc<Args>,
    game: Arc<Game>,
    start: Instant,
    stop: Instant,
    sent: Sent,
    counters: Arc<Counters>,
) -> Result<u64, Failure> {
    tokio::time::sleep_until(start.into()).await;
    counters.started.fetch_add(1, Ordering::Relaxed);
    let id = board_id(i);
    let game_id = format!("{id}-g1");
    let topics = Topics::new(&args.prefix, &args.tournament, &id)?;
    let url = BrokerUrl::parse(&args.broker)?;
    let settings = MqttSettings::new(url, &id);
    let source = MemorySource::new();
    let publisher = Publisher::start(
        settings,
        PublisherParts {
            topics,
            source: Arc::new(source.clone()),
            ack_file: None,
            ids_file: None,
            commands: None,
            version: "scale".to_string(),
        },
    )?;
    let handle = publisher.handle();
    let mut connected = publisher.connected();
    let counted = counters.clone();
    let closing = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let closed = closing.clone();
    let watch_connected = tokio::spawn(async move {
        let mut was = false;
        loop {
            let now = *connected.borrow_and_update();
            if now != was {
                if now {
                    counted.connected.fetch_add(1, Ordering::Relaxed);
                } else {
                    counted.connected.fetch_sub(1, Ordering::Relaxed);
                    if !closed.load(Ordering::Relaxed) {
                        counted.disconnects.fetch_add(1, Ordering::Relaxed);
                        eprintln!("{}: connection lost", board_id(i));
                    }
                }
                was = now;
            }
            if connected.changed().await.is_err() {
                if was {
                    counted.connected.fetch_sub(1, Ordering::Relaxed);
                }
                return;
            }
        }
    });
    // Built from JSON so that envelope fields added later (absent here) take their defaults.
    let template: Envelope = serde_json::from_value(json!({
        "seq": 0, "time": "2026-01-01T00:00:00.000Z", "board": id, "game": game_id,
        "type": "pass", "number": 0, "color": "B",
    }))?;
    let mut seq = 0u64;
    // The open alerts as the board's outputs fold them.
    let mut view = GameView::new();
    let mut acked_before = 0u64;
    for b in &game.batches {
        let ahead = (b.at as f64 / 1000.0 - args.head_start).max(0.0);
        let due = start + Duration::from_secs_f64(ahead / args.speed);
        if due >= stop {
            break;
        }
        tokio::time::sleep_until(due.into()).await;
        let mut alerts_changed = false;
        for e in &b.events {
            seq += 1;
            let mut env = template.clone();
            env.seq = seq;
            env.time = Timestamp::from_millis(unix_ms());
            env.event = e.clone();
            source.push(&env)?;
            if let Ok(mut v) = sent[i].lock() {
                v.push(Instant::now());
            }
            alerts_changed |= env.event.is_private();
            let _ = view.apply_envelope(&env);
            handle.wake();
            counters.published.fetch_add(1, Ordering::Relaxed);
        }
        let mut state = b.state.clone();
        if let Some(o) = state.as_object_mut() {
            o.insert("seq".into(), seq.into());
            o.insert("board_id".into(), id.clone().into());
            o.insert("game_id".into(), game_id.clone().into());
        }
        handle.set_retained(Retained {
            state: Some(state.to_string()),
            sgf: b.sgf.as_ref().map(|s| s.to_string()),
            alerts_active: (alerts_changed || seq == b.events.len() as u64)
                .then(|| view.active_alerts_json()),
        });
        let acked = *publisher.acked().borrow();
        counters
            .acked
            .fetch_add(acked.saturating_sub(acked_before), Ordering::Relaxed);
        acked_before = acked;
    }
    // A board whose next move falls after the stop stays connected until then, as in a hall.
    tokio::time::sleep_until(stop.into()).await;
    let left = Duration::from_secs_f64(args.drain.max(1.0));
    let result = publisher.wait_acked(seq, left).await;
    let acked = *publisher.acked().borrow();
    counters
        .acked
        .fetch_add(acked.saturating_sub(acked_before), Ordering::Relaxed);
    closing.store(true, Ordering::Relaxed);
    let _ = publisher.shutdown(Duration::from_secs(5)).await;
    watch_connected.abort();
    result.map_err(|e| format!("{id}: {e}"))?;
    Ok(seq)
}

fn board_id(i: usize) -> String {
    format!("b{i:04}")
}

/// One HTTP/1.1 GET to the hall; the response status and body stream.
async fn get(
    addr: &str,
    path: &str,
) -> Result<hyper::Response<hyper::body::Incoming>, Box<dyn std::error::Error + Send + Sync>> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let req = hyper::Request::get(path)
        .header(hyper::header::HOST, addr)
        .body(Empty::<Bytes>::new())?;
    Ok(sender.send_request(req).await?)
}

/// What the SSE viewers measured: (wall time since start in s, delay in µs) per event.
type Delays = Arc<Mutex<Vec<(f64, u64)>>>;

/// What the SSE viewers share: when each event was sent, the delays measured, the counters,
/// and the last `seq` seen per board.
#[derive(Clone)]
struct Probe {
    sent: Sent,
    delays: Delays,
    counters: Arc<Counters>,
    last_seen: Arc<Vec<AtomicU64>>,
}

/// Follows board `i`'s SSE stream on the hall from before it starts until `until`,
/// timing each event published after the stream was open.
async fn watch_board(i: usize, args: Arc<Args>, t0: Instant, until: Instant, probe: Probe) {
    let Probe {
        sent,
        delays,
        counters,
        last_seen,
    } = probe;
    let path = format!("/board/{}/{}/events", args.tournament, board_id(i));
    while Instant::now() < until {
        let resp = match get(&args.hall, &path).await {
            Ok(r) if r.status() == hyper::StatusCode::OK => r,
            _ => {
                tokio::time::sleep(Duration::from_millis(250)).await;
                continue;
            }
        };
        let open_at = Instant::now();
        let mut body = resp.into_body();
        let mut buf: Vec<u8> = Vec::new();
        loop {
            let frame = tokio::select! {
                f = body.frame() => f,
                _ = tokio::time::sleep_until(until.into()) => return,
            };
            let Some(Ok(frame)) = frame else { break };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            let now = Instant::now();
            buf.extend_from_slice(&data);
            while let Some(nl) = buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = buf.drain(..=nl).collect();
                let Some(rest) = line.strip_prefix(b"id:") else {
                    continue;
                };
                let Some(seq) = std::str::from_utf8(rest)
                    .ok()
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .filter(|s| *s >= 1)
                else {
                    continue;
                };
                let prev = last_seen[i].swap(seq, Ordering::Relaxed);
                if prev != 0 && seq != prev + 1 {
                    counters.sse_gaps.fetch_add(1, Ordering::Relaxed);
                }
                counters.sse_events.fetch_add(1, Ordering::Relaxed);
                let at = sent[i]
                    .lock()
                    .ok()
                    .and_then(|v| v.get(seq as usize - 1).copied());
                if let Some(at) = at.filter(|at| *at > open_at) {
                    let d = now.saturating_duration_since(at).as_micros() as u64;
                    if let Ok(mut v) = delays.lock() {
                        v.push((now.duration_since(t0).as_secs_f64(), d));
                    }
                }
            }
        }
    }
}

/// One overview poll: (wall s since start, response ms, bytes, sum of the boards' state seq,
/// boards listed).
type Poll = (f64, f64, usize, u64, usize);

async fn poll_overview(hall: &str) -> Option<(usize, Value)> {
    let resp = get(hall, "/api/boards").await.ok()?;
    let body = resp.into_body().collect().await.ok()?.to_bytes();
    let v: Value = serde_json::from_slice(&body).ok()?;
    Some((body.len(), v))
}

fn seq_sum(v: &Value) -> (u64, usize) {
    let a = v.as_array().map(Vec::as_slice).unwrap_or(&[]);
    (
        a.iter()
            .map(|b| b.get("seq").and_then(Value::as_u64).unwrap_or(0))
            .sum(),
        a.len(),
    )
}

async fn viewer(hall: String, t0: Instant, until: Instant, polls: Arc<Mutex<Vec<Poll>>>) {
    let mut tick = tokio::time::interval(Duration::from_secs(2));
    while Instant::now() < until {
        tick.tick().await;
        let asked = Instant::now();
        if let Some((bytes, v)) = poll_overview(&hall).await {
            let ms = asked.elapsed().as_secs_f64() * 1000.0;
            let (sum, n) = seq_sum(&v);
            if let Ok(mut p) = polls.lock() {
                p.push((asked.duration_since(t0).as_secs_f64(), ms, bytes, sum, n));
            }
        }
    }
}

/// Per-second samples of each measured process: (wall s since start, sample).
type ProcSeries = BTreeMap<String, Vec<(f64, ProcSample)>>;

async fn sampler(
    procs: Vec<(String, String)>,
    t0: Instant,
    until: Instant,
    series: Arc<Mutex<ProcSeries>>,
    counters: Arc<Counters>,
    load: Arc<Mutex<Vec<String>>>,
) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut n = 0u64;
    while Instant::now() < until {
        tick.tick().await;
        let t = t0.elapsed().as_secs_f64();
        if let Ok(mut s) = series.lock() {
            for (name, pid) in &procs {
                if let Some(x) = sample(pid) {
                    s.entry(name.clone()).or_default().push((t, x));
                }
            }
        }
        if n % 10 == 0 {
            let la = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
            let la: String = la.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
            if let Ok(mut l) = load.lock() {
                l.push(la.clone());
            }
            eprintln!(
                "t={t:5.0}s started {} connected {} published {} acked {} sse {} (load {la})",
                counters.started.load(Ordering::Relaxed),
                counters.connected.load(Ordering::Relaxed),
                counters.published.load(Ordering::Relaxed),
                counters.acked.load(Ordering::Relaxed),
                counters.sse_events.load(Ordering::Relaxed),
            );
        }
        n += 1;
    }
}

fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn delay_stats(d: &[(f64, u64)], from: f64, to: f64) -> Value {
    let mut v: Vec<u64> = d
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .map(|x| x.1)
        .collect();
    v.sort_unstable();
    let ms = |us: u64| (us as f64 / 1000.0 * 100.0).round() / 100.0;
    json!({
        "count": v.len(),
        "p50_ms": ms(quantile(&v, 0.5)),
        "p90_ms": ms(quantile(&v, 0.9)),
        "p99_ms": ms(quantile(&v, 0.99)),
        "max_ms": ms(v.last().copied().unwrap_or(0)),
    })
}

/// CPU % of one core between the samples nearest `from` and `to`, the highest 5-s CPU in
/// that window, peak and last RSS, last open-file count.
fn proc_stats(s: &[(f64, ProcSample)], from: f64, to: f64, hz: f64) -> Value {
    let w: Vec<&(f64, ProcSample)> = s.iter().filter(|(t, _)| *t >= from && *t <= to).collect();
    let (Some(first), Some(last)) = (w.first(), w.last()) else {
        return Value::Null;
    };
    let span = (last.0 - first.0).max(1e-9);
    let cpu = (last.1.ticks - first.1.ticks) as f64 / hz / span * 100.0;
    let mut peak5 = 0.0f64;
    for (k, a) in w.iter().enumerate() {
        if let Some(b) = w.get(k + 5) {
            peak5 = peak5.max((b.1.ticks - a.1.ticks) as f64 / hz / (b.0 - a.0) * 100.0);
        }
    }
    let all_last = s.last().map(|x| x.1).unwrap_or_default();
    let peak_fds = s.iter().map(|x| x.1.fds).max().unwrap_or(0);
    json!({
        "cpu_pct_of_one_core": (cpu * 10.0).round() / 10.0,
        "cpu_pct_peak_5s": (peak5 * 10.0).round() / 10.0,
        "rss_mb_end": (all_last.rss_kb as f64 / 1024.0 * 10.0).round() / 10.0,
        "rss_mb_peak": (all_last.hwm_kb as f64 / 1024.0 * 10.0).round() / 10.0,
        "open_fds_peak": peak_fds,
    })
}

fn main() -> Result<(), Failure> {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    if args.boards == 0 || args.speed <= 0.0 || args.duration <= steady_from(&args) {
        return Err(
            "need --boards > 0, --speed > 0 and --duration > --ramp (+ --viewer-ramp)".into(),
        );
    }
    if args.page == page_viewers::PageMode::Static
        && args.page_viewers > 0
        && args.static_server.is_none()
    {
        return Err("--page static needs --static-server HOST:PORT".into());
    }
    // Every board is a broker connection and every viewer a connection to the hall or the
    // static server: as many open files as the hard limit allows.
    match raise_open_files() {
        Ok(n) => eprintln!("open files limit: {n}"),
        Err(e) => eprintln!("open files limit: cannot raise it ({e}); connections may fail"),
    }
    let paths = if args.sgfs.is_empty() {
        default_games()
    } else {
        args.sgfs.clone()
    };
    let made = Instant::now();
    let games: Vec<Arc<Game>> = paths
        .iter()
        .enumerate()
        .map(|(k, p)| simulate(p, args.seed + k as u64).map(Arc::new))
        .collect::<Result<_, _>>()?;
    if games.is_empty() {
        return Err("no games to simulate (--sgf FILE)".into());
    }
    for g in &games {
        let events: usize = g.batches.iter().map(|b| b.events.len()).sum();
        let minutes = g.batches.last().map_or(0, |b| b.at) as f64 / 60_000.0;
        eprintln!(
            "game {}: {events} events in {minutes:.1} virtual minutes",
            g.name
        );
    }
    eprintln!("{} games simulated in {:?}", games.len(), made.elapsed());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run(Arc::new(args), games))
}

/// Raises this process's soft limit of open files to its hard limit; the limit now.
fn raise_open_files() -> std::io::Result<libc::rlim_t> {
    let mut l = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    if l.rlim_cur < l.rlim_max {
        l.rlim_cur = l.rlim_max;
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &l) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(l.rlim_cur)
}

/// Seconds from the start to the steady window: after the boards' ramp, and after the page
/// viewers have opened their pages.
fn steady_from(args: &Args) -> f64 {
    if args.page_viewers > 0 {
        args.ramp + args.viewer_ramp
    } else {
        args.ramp
    }
}

async fn run(args: Arc<Args>, games: Vec<Arc<Game>>) -> Result<(), Failure> {
    let n = args.boards;
    let counters = Arc::new(Counters::default());
    let sent: Sent = Arc::new((0..n).map(|_| Mutex::new(Vec::new())).collect());
    let last_seen: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
    let delays: Delays = Arc::new(Mutex::new(Vec::new()));
    let polls = Arc::new(Mutex::new(Vec::new()));
    let series = Arc::new(Mutex::new(ProcSeries::new()));
    let load = Arc::new(Mutex::new(Vec::new()));
    let t0 = Instant::now() + Duration::from_secs(2);
    let stop = t0 + Duration::from_secs_f64(args.duration);
    let end = stop + Duration::from_secs_f64(args.drain);

    let mut procs = vec![("generator".to_string(), std::process::id().to_string())];
    for p in &args.pids {
        let (name, pid) = p
            .split_once(':')
            .ok_or_else(|| format!("--pid {p}: give NAME:PID"))?;
        procs.push((name.to_string(), pid.to_string()));
    }
    let sampling = tokio::spawn(sampler(
        procs.clone(),
        t0,
        end,
        series.clone(),
        counters.clone(),
        load.clone(),
    ));

    let watched: Vec<usize> = (0..args.watch.min(n))
        .map(|k| k * n / args.watch.min(n))
        .collect();
    let mut watchers = Vec::new();
    for &i in &watched {
        let probe = Probe {
            sent: sent.clone(),
            delays: delays.clone(),
            counters: counters.clone(),
            last_seen: last_seen.clone(),
        };
        watchers.push(tokio::spawn(watch_board(i, args.clone(), t0, end, probe)));
    }
    let page = (args.page_viewers > 0)
        .then(|| tokio::spawn(page_viewers::run(args.clone(), sent.clone(), t0, end)));
    let mut viewers = Vec::new();
    for _ in 0..args.viewers {
        viewers.push(tokio::spawn(viewer(
            args.hall.clone(),
            t0,
            end,
            polls.clone(),
        )));
    }

    let mut boards = Vec::new();
    for i in 0..n {
        let start = t0 + Duration::from_secs_f64(args.ramp * i as f64 / n as f64);
        // Spread the games over the boards, not in the order they start.
        let game = games[(i * 7 + i / games.len()) % games.len()].clone();
        boards.push(tokio::spawn(board(
            i,
            args.clone(),
            game,
            start,
            stop,
            sent.clone(),
            counters.clone(),
        )));
    }
    let mut last = vec![0u64; n];
    let mut failures = Vec::new();
    for (i, b) in boards.into_iter().enumerate() {
        match b.await {
            Ok(Ok(s)) => last[i] = s,
            Ok(Err(e)) => failures.push(e.to_string()),
            Err(e) => failures.push(format!("{}: {e}", board_id(i))),
        }
    }
    for (i, s) in last.iter_mut().enumerate() {
        if *s == 0 {
            *s = sent[i].lock().map(|v| v.len() as u64).unwrap_or(0);
        }
    }
    tokio::time::sleep_until(end.into()).await;
    let page = match page {
        Some(p) => p.await.unwrap_or(Value::Null),
        None => Value::Null,
    };
    let final_view = poll_overview(&args.hall).await;
    for w in watchers.into_iter().chain(viewers) {
        w.abort();
    }
    let _ = sampling.await;

    // The hall's final view against what each board published.
    let mut behind = 0usize;
    let mut missing_boards = 0usize;
    let mut events_behind = 0u64;
    if let Some((_, v)) = &final_view {
        let mut by_board: BTreeMap<String, u64> = BTreeMap::new();
        for b in v.as_array().map(Vec::as_slice).unwrap_or(&[]) {
            if let (Some(id), seq) = (
                b.get("board").and_then(Value::as_str),
                b.get("seq").and_then(Value::as_u64).unwrap_or(0),
            ) {
                by_board.insert(id.to_string(), seq);
            }
        }
        for (i, want) in last.iter().enumerate() {
            match by_board.get(&board_id(i)) {
                Some(have) if have >= want => {}
                Some(have) => {
                    behind += 1;
                    events_behind += want - have;
                }
                None => missing_boards += 1,
            }
        }
    }
    let mut sse_short = 0u64;
    for &i in &watched {
        let seen = last_seen[i].load(Ordering::Relaxed);
        sse_short += last[i].saturating_sub(seen);
    }

    let ramp = steady_from(&args);
    let dur = args.duration;
    let hz = clock_ticks();
    let series = series.lock().map(|s| s.clone()).unwrap_or_default();
    let mut procs_out = serde_json::Map::new();
    for (name, s) in &series {
        procs_out.insert(name.clone(), proc_stats(s, ramp, dur, hz));
    }
    let delays = delays.lock().map(|d| d.clone()).unwrap_or_default();
    let polls = polls.lock().map(|p| p.clone()).unwrap_or_default();
    // Events/s the hall took in: growth of the sum of the boards' state seq on the overview
    // over the steady window.
    let steady: Vec<&Poll> = polls.iter().filter(|p| p.0 >= ramp && p.0 <= dur).collect();
    let hall_rate = match (steady.first(), steady.last()) {
        (Some(a), Some(b)) if b.0 > a.0 => (b.3 as f64 - a.3 as f64) / (b.0 - a.0),
        _ => 0.0,
    };
    let mut poll_ms: Vec<u64> = steady.iter().map(|p| (p.1 * 1000.0) as u64).collect();
    poll_ms.sort_unstable();
    let published: u64 = last.iter().sum();
    let published_steady: usize = sent
        .iter()
        .map(|v| {
            v.lock()
                .map(|v| {
                    v.iter()
                        .filter(|t| {
                            let s = t.saturating_duration_since(t0).as_secs_f64();
                            s >= ramp && s < dur && **t >= t0
                        })
                        .count()
                })
                .unwrap_or(0)
        })
        .sum();
    let summary = json!({
        "boards": n,
        "speed": args.speed,
        "ramp_s": ramp,
        "duration_s": dur,
        "steady_window_s": [ramp, dur],
        "games": games.iter().map(|g| g.name.clone()).collect::<Vec<_>>(),
        "events_published": published,
        "events_acked_by_broker": counters.acked.load(Ordering::Relaxed),
        "events_per_s_published_steady": ((published_steady as f64 / (dur - ramp)) * 10.0).round() / 10.0,
        "events_per_s_into_hall_steady": (hall_rate * 10.0).round() / 10.0,
        "board_failures": failures.len(),
        "connections_lost": counters.disconnects.load(Ordering::Relaxed),
        "board_failure_examples": failures.iter().take(5).collect::<Vec<_>>(),
        "sse_watched_boards": watched.len(),
        "sse_events": counters.sse_events.load(Ordering::Relaxed),
        "sse_gaps": counters.sse_gaps.load(Ordering::Relaxed),
        "sse_events_missing_at_end": sse_short,
        "delay_publish_to_sse_all": delay_stats(&delays, 0.0, f64::MAX),
        "delay_publish_to_sse_steady": delay_stats(&delays, ramp, dur),
        "overview_polls_steady": steady.len(),
        "overview_ms_p50": quantile(&poll_ms, 0.5) as f64 / 1000.0,
        "overview_ms_p99": quantile(&poll_ms, 0.99) as f64 / 1000.0,
        "overview_bytes": polls.last().map_or(0, |p| p.2),
        "hall_boards_listed_at_end": final_view.as_ref().map_or(0, |(_, v)| seq_sum(v).1),
        "hall_boards_missing_at_end": missing_boards,
        "hall_boards_behind_at_end": behind,
        "hall_events_behind_at_end": events_behind,
        "processes": procs_out,
        "page_viewers": page,
        "load_average_samples": *load.lock().map_err(|e| e.to_string())?,
    });
    let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    println!("{text}");
    if let Some(path) = &args.out {
        std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

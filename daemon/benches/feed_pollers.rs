//! Many viewers polling the public round feed (issue 24's load figure): a load generator for
//! `tengen hall`'s `/feed/...` and the same files in `[broadcast] export_dir`, behind nginx
//! as a CDN's cache. Not part of `cargo test`; `bench/feed-pollers.sh` starts mosquitto, the
//! hall and nginx in each mode and runs this.
//!
//! One generator plays a round of `--boards` games (tables `1`..`50`, round `"1"`) into the
//! hall over MQTT with the product's publisher ([`boards`]: simulated 19x19 games, a move
//! every 5-20 s per board after a head start), waits until the round is served, then starts
//! `--pollers` viewers spread over `--poller-ramp` seconds, in child processes of its own
//! (`--processes`; one process cannot hold 20,000 connections under a 20,000 open-files
//! limit), each poller on one kept-alive HTTP/1.1 connection to `--server` ([`pollers`]):
//! - `--mode feed`: every poller reads `index.json` once, then follows one game (spread evenly
//!   over the tables) by `Range` + `If-None-Match` on `{table}.json`, gzip off; one in
//!   `--sgf-every` instead polls `{table}.sgf` whole with `Accept-Encoding: gzip` and
//!   `If-None-Match`;
//! - `--mode today`: every poller fetches its board's whole `events.json` of the static export,
//!   as the exported board page does.
//!
//! Measured over the window after the ramp (`--duration` s), all in one monotonic clock:
//! - visibility: from a move's release (the board handing move `k + --delay-moves` to its
//!   publisher, or `game_over`; with `--delay-moves 0`, the move itself) to each poller first
//!   seeing move `k`; moves released in the window and not seen by the end are counted;
//! - bytes per viewer per move: bytes received in the window (status line, headers and body
//!   of every answer, 304s included; and the bodies alone) over the moves seen in it;
//! - requests, answers by status, failures, request latency;
//! - the origin's requests per file per second, from the access logs given as `--log
//!   NAME:KIND:PATH` (nginx, `log_format` `$msec|$status|$upstream_cache_status|
//!   $upstream_addr|$uri|$bytes_sent`): KIND `upstream` counts the lines of a cache that went
//!   to its origin (`$upstream_addr` set), `all` every line (a static origin's own log);
//! - CPU (% of one core) and peak RSS of this generator (with its poller processes) and of
//!   every `--pid NAME:PID[,PID...]` (the hall, nginx master and workers, mosquitto), from
//!   `/proc`.
//!
//! Run: `cargo bench -p tengen-daemon --bench feed_pollers -- --broker mqtt://127.0.0.1:1883
//! --hall 127.0.0.1:8090 --server 127.0.0.1:8080 --mode feed --pollers 1000`.

#[path = "feed_pollers/boards.rs"]
mod boards;
#[path = "feed_pollers/client.rs"]
mod client;
#[path = "feed_pollers/pollers.rs"]
mod pollers;
#[path = "support/proc_sample.rs"]
mod proc_sample;
#[path = "support/simulated_games.rs"]
mod simulated_games;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use serde_json::{json, Value};

use boards::{board_id, BoardCounters, Published};
use pollers::{PartOut, Plan, PollerOut, HIST_MS};
use proc_sample::{clock_ticks, sample, ProcSample};
use simulated_games::{Failure, Game};

/// The generator's options.
#[derive(Parser, Debug, Clone)]
#[command(about = "Many viewers polling tengen's public round feed")]
struct Args {
    /// `feed` (the round feed's files) or `today` (each board's whole `events.json`).
    #[arg(long, default_value = "feed")]
    mode: String,
    /// A name for this run in the summary (`feed-hall`, `feed-export`, `today`).
    #[arg(long, default_value = "")]
    label: String,
    /// The broker, `mqtt://host:port`.
    #[arg(long, default_value = "mqtt://127.0.0.1:1883")]
    broker: String,
    /// The hall's HTTP address, `host:port` (recorded; the pollers ask `--server`).
    #[arg(long, default_value = "127.0.0.1:8090")]
    hall: String,
    /// What the pollers ask, `host:port`: the cache, or the static server.
    #[arg(long)]
    server: String,
    /// Games in the round (one board each, tables 1..N).
    #[arg(long, default_value_t = 50)]
    boards: usize,
    /// Pollers in all.
    #[arg(long, default_value_t = 1000)]
    pollers: usize,
    /// Poller processes (default: one per 7,000 pollers).
    #[arg(long, default_value_t = 0)]
    processes: usize,
    /// One poller in this many (per table) polls the SGF; 0: none.
    #[arg(long, default_value_t = 10)]
    sgf_every: usize,
    /// Seconds between two polls of a poller.
    #[arg(long, default_value_t = 2.0)]
    poll_every: f64,
    /// Boards start spread over this many seconds.
    #[arg(long, default_value_t = 5.0)]
    board_ramp: f64,
    /// Pollers start spread over this many seconds, once the round is served.
    #[arg(long, default_value_t = 30.0)]
    poller_ramp: f64,
    /// The measured window, seconds after the pollers' ramp (and 2 s more).
    #[arg(long, default_value_t = 60.0)]
    duration: f64,
    /// Seconds the pollers go on after the window (the boards have stopped), so that the
    /// window's last moves are seen.
    #[arg(long, default_value_t = 8.0)]
    drain: f64,
    /// Moves of each game published at once when its board starts.
    #[arg(long, default_value_t = 120)]
    head_moves: u32,
    /// Least and most wall seconds between two moves of a board.
    #[arg(long, default_value_t = 5.0)]
    pace_min: f64,
    #[arg(long, default_value_t = 20.0)]
    pace_max: f64,
    /// The hall's `[broadcast] delay_moves` (0: none): move k is released when the board
    /// publishes move k + this.
    #[arg(long, default_value_t = 0)]
    delay_moves: u32,
    /// A request taking longer than this many seconds counts as failed.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Topic prefix.
    #[arg(long, default_value = "tengen")]
    prefix: String,
    /// Tournament id of every board.
    #[arg(long, default_value = "feed")]
    tournament: String,
    /// Another process to measure, `NAME:PID` or `NAME:PID,PID,...` (summed: nginx's master
    /// and workers) (repeatable).
    #[arg(long = "pid")]
    pids: Vec<String>,
    /// An access log to count origin requests in, `NAME:upstream:PATH` or `NAME:all:PATH`
    /// (repeatable; the first one is the origin figure).
    #[arg(long = "log")]
    logs: Vec<String>,
    /// SGF games to simulate (default: the repo's 19x19 fixture games).
    #[arg(long = "sgf")]
    sgfs: Vec<PathBuf>,
    /// Where to write the JSON summary (the poller processes write beside it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed of the simulator's timing and of the pace.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Internal: run as a poller process with this plan.
    #[arg(long, hide = true)]
    plan: Option<PathBuf>,
    /// Internal: the poller process's first poller and count.
    #[arg(long, hide = true, default_value_t = 0)]
    first: usize,
    #[arg(long, hide = true, default_value_t = 0)]
    count: usize,
    /// Internal: where the poller process writes.
    #[arg(long, hide = true)]
    part_out: Option<PathBuf>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// Microseconds of `CLOCK_MONOTONIC`: one clock for every process of the machine.
pub(crate) fn mono_us() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the struct given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000 + t.tv_nsec as u64 / 1000
}

/// The [`Instant`] of monotonic µs `us` (at most a day ahead).
pub(crate) fn instant_at(us: u64) -> Instant {
    let now_us = mono_us();
    let now = Instant::now();
    if us >= now_us {
        now + Duration::from_micros((us - now_us).min(86_400_000_000))
    } else {
        now.checked_sub(Duration::from_micros(now_us - us))
            .unwrap_or(now)
    }
}

pub(crate) fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

fn unix_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

fn main() -> Result<(), Failure> {
    let args = Args::parse();
    match raise_open_files() {
        Ok(n) if args.plan.is_none() => eprintln!("open files limit: {n}"),
        Ok(_) => {}
        Err(e) => eprintln!("open files limit: cannot raise it ({e}); connections may fail"),
    }
    if let Some(plan) = &args.plan {
        let plan: Plan = serde_json::from_slice(
            &std::fs::read(plan).map_err(|e| format!("{}: {e}", plan.display()))?,
        )?;
        let out = args
            .part_out
            .clone()
            .ok_or("a poller process needs --part-out")?;
        return pollers::run_part(plan, args.first, args.count, &out);
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    if args.boards == 0 || args.pollers == 0 || args.poll_every <= 0.0 || args.duration <= 0.0 {
        return Err("need --boards, --pollers, --poll-every and --duration above 0".into());
    }
    if args.mode != "feed" && args.mode != "today" {
        return Err(format!("--mode {}: feed or today", args.mode).into());
    }
    let paths = if args.sgfs.is_empty() {
        simulated_games::default_games()
    } else {
        args.sgfs.clone()
    };
    let made = Instant::now();
    let games: Vec<Arc<Game>> = paths
        .iter()
        .enumerate()
        .map(|(k, p)| simulated_games::simulate(p, args.seed + k as u64).map(Arc::new))
        .collect::<Result<_, _>>()?;
    if games.is_empty() {
        return Err("no games to simulate (--sgf FILE)".into());
    }
    for g in &games {
        eprintln!("game {}: {} moves", g.name, g.moves());
    }
    eprintln!("{} games simulated in {:?}", games.len(), made.elapsed());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
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

/// Waits until `--server` serves every game with its head start; what it served.
async fn wait_served(args: &Args) -> Result<Value, Failure> {
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut conn = client::Conn::new(&args.server);
    let get = |path: &str| {
        format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nUser-Agent: tengen-feed-pollers\r\n\r\n",
            args.server
        )
        .into_bytes()
    };
    // The head start, as the public sees it behind the delay.
    let head = args.head_moves.saturating_sub(args.delay_moves);
    let mut last = String::new();
    loop {
        if Instant::now() > deadline {
            return Err(format!("the round is not served after 120 s: {last}").into());
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        if args.mode == "today" {
            let mut ready = 0;
            for i in 0..args.boards {
                let path = format!("/board/{}/{}/events.json", args.tournament, board_id(i));
                match conn.send(&get(&path), Duration::from_secs(10)).await {
                    Ok(a) if a.status == 200 => {
                        if pollers::last_move_number(&a.body).unwrap_or(0) >= head {
                            ready += 1;
                        }
                    }
                    Ok(a) => last = format!("{path}: {}", a.status),
                    Err(e) => last = format!("{path}: {e:?}"),
                }
            }
            if ready == args.boards {
                return Ok(json!({"boards_served": ready}));
            }
            last = format!(
                "{ready} of {} boards served with their head start; {last}",
                args.boards
            );
            continue;
        }
        let index = match conn
            .send(&get("/feed/round/1/index.json"), Duration::from_secs(10))
            .await
        {
            Ok(a) if a.status == 200 => a.body,
            Ok(a) => {
                last = format!("index.json: {}", a.status);
                continue;
            }
            Err(e) => {
                last = format!("index.json: {e:?}");
                continue;
            }
        };
        let Ok(v) = serde_json::from_slice::<Value>(&index) else {
            last = "index.json: not JSON".to_string();
            continue;
        };
        let games = v
            .get("games")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let ready = games
            .iter()
            .filter(|g| g.get("moves").and_then(Value::as_u64).unwrap_or(0) >= u64::from(head))
            .count();
        if ready >= args.boards {
            let tournament = match conn
                .send(&get("/feed/tournament.json"), Duration::from_secs(10))
                .await
            {
                Ok(a) => json!({"status": a.status, "body": String::from_utf8_lossy(&a.body)}),
                Err(e) => json!({"error": format!("{e:?}")}),
            };
            let first = games.first().cloned().unwrap_or(Value::Null);
            return Ok(json!({
                "games_listed": games.len(),
                "index_bytes": index.len(),
                "first_game": first,
                "tournament_json": tournament,
            }));
        }
        last = format!(
            "index.json lists {} games, {ready} with their head start",
            games.len()
        );
    }
}

/// The whole machine's busy time (every CPU: user, nice, system, irq, softirq, steal; ticks),
/// as a sample: it holds the kernel's work for loopback TCP that no process is charged for,
/// and whatever else runs on the machine.
fn sample_machine() -> Option<ProcSample> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let f: Vec<u64> = line
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal
    let busy = f.first()? + f.get(1)? + f.get(2)? + f.get(5)? + f.get(6)? + f.get(7)?;
    Some(ProcSample {
        ticks: busy,
        ..ProcSample::default()
    })
}

/// Per-second samples of each measured process: (monotonic µs, sample).
type ProcSeries = BTreeMap<String, Vec<(u64, ProcSample)>>;
/// The processes measured: (name, `PID[,PID...]`).
type Procs = Arc<Mutex<Vec<(String, String)>>>;

async fn sampler(
    procs: Procs,
    until: u64,
    series: Arc<Mutex<ProcSeries>>,
    load: Arc<Mutex<Vec<String>>>,
) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut n = 0u64;
    while mono_us() < until {
        tick.tick().await;
        let t = mono_us();
        let list = procs.lock().map(|p| p.clone()).unwrap_or_default();
        if let Ok(mut s) = series.lock() {
            if let Some(x) = sample_machine() {
                s.entry("machine".to_string()).or_default().push((t, x));
            }
            for (name, pid) in &list {
                if let Some(x) = sample(pid) {
                    s.entry(name.clone()).or_default().push((t, x));
                }
            }
        }
        if n % 10 == 0 {
            let la = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
            let la: String = la.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
            if let Ok(mut l) = load.lock() {
                l.push(la);
            }
        }
        n += 1;
    }
}

/// CPU % of one core between the samples nearest `from` and `to`, the highest 5-s CPU in
/// that window, peak RSS, peak open files.
fn proc_stats(s: &[(u64, ProcSample)], from: u64, to: u64, hz: f64) -> Value {
    let w: Vec<&(u64, ProcSample)> = s.iter().filter(|(t, _)| *t >= from && *t <= to).collect();
    let (Some(first), Some(last)) = (w.first(), w.last()) else {
        return Value::Null;
    };
    let span = (last.0 - first.0).max(1) as f64 / 1e6;
    let cpu = last.1.ticks.saturating_sub(first.1.ticks) as f64 / hz / span * 100.0;
    let mut peak5 = 0.0f64;
    for (k, a) in w.iter().enumerate() {
        if let Some(b) = w.get(k + 5) {
            let dt = (b.0 - a.0).max(1) as f64 / 1e6;
            peak5 = peak5.max(b.1.ticks.saturating_sub(a.1.ticks) as f64 / hz / dt * 100.0);
        }
    }
    json!({
        "cpu_pct_of_one_core": round1(cpu),
        "cpu_pct_peak_5s": round1(peak5),
        "rss_mb_peak": round1(s.iter().map(|x| x.1.hwm_kb).max().unwrap_or(0) as f64 / 1024.0),
        "open_fds_peak": s.iter().map(|x| x.1.fds).max().unwrap_or(0),
    })
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn median_f(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Delays in µs as p50/p90/p99/max in ms.
fn delay_stats(v: &mut [u64]) -> Value {
    v.sort_unstable();
    let ms = |us: u64| round2(us as f64 / 1000.0);
    json!({
        "count": v.len(),
        "p50_ms": ms(quantile(v, 0.5)),
        "p90_ms": ms(quantile(v, 0.9)),
        "p99_ms": ms(quantile(v, 0.99)),
        "max_ms": ms(v.last().copied().unwrap_or(0)),
    })
}

/// The file class of a request's path.
fn class(uri: &str) -> &'static str {
    if uri.ends_with("/index.json") {
        "index"
    } else if uri.ends_with("/tournament.json") {
        "tournament"
    } else if uri.ends_with("/events.json") {
        "events.json"
    } else if uri.starts_with("/feed/") && uri.ends_with(".json") {
        "json"
    } else if uri.ends_with(".sgf") {
        "sgf"
    } else {
        "other"
    }
}

/// The origin's requests per file over the window `from..to` (Unix seconds) in the access
/// log `path`: per class of file, how many files, the mean rate per file (median and max
/// over files), the most in any one second; and the log's lines by cache status.
fn origin_figures(spec: &str, from: f64, to: f64) -> Value {
    let mut parts = spec.splitn(3, ':');
    let (Some(name), Some(kind), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
        return json!({"error": format!("--log {spec}: give NAME:upstream|all:PATH")});
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return json!({"name": name, "error": format!("{path}: {e}")}),
    };
    let seconds = ((to - from).floor() as usize).max(1);
    let mut per_file: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut statuses: BTreeMap<String, u64> = BTreeMap::new();
    let mut lines_in_window = 0u64;
    for line in text.lines() {
        let f: Vec<&str> = line.split('|').collect();
        if f.len() < 6 {
            continue;
        }
        let Ok(t) = f[0].parse::<f64>() else { continue };
        if t < from || t >= from + seconds as f64 {
            continue;
        }
        lines_in_window += 1;
        *statuses.entry(format!("{} {}", f[2], f[1])).or_default() += 1;
        let upstream = !f[3].is_empty() && f[3] != "-";
        if kind == "upstream" && !upstream {
            continue;
        }
        let bin = ((t - from) as usize).min(seconds - 1);
        per_file
            .entry(f[4].to_string())
            .or_insert_with(|| vec![0; seconds])[bin] += 1;
    }
    let mut classes: BTreeMap<&str, Vec<&Vec<u32>>> = BTreeMap::new();
    for (uri, bins) in &per_file {
        classes.entry(class(uri)).or_default().push(bins);
    }
    let mut out = serde_json::Map::new();
    for (c, files) in classes {
        let mut rates: Vec<f64> = files
            .iter()
            .map(|b| b.iter().map(|&x| f64::from(x)).sum::<f64>() / seconds as f64)
            .collect();
        let max_rate = rates.iter().copied().fold(0.0, f64::max);
        let max_second = files
            .iter()
            .flat_map(|b| b.iter())
            .copied()
            .max()
            .unwrap_or(0);
        let mut all_seconds: Vec<u64> = files
            .iter()
            .flat_map(|b| b.iter().map(|&x| u64::from(x)))
            .collect();
        all_seconds.sort_unstable();
        out.insert(
            c.to_string(),
            json!({
                "files": files.len(),
                "requests": files.iter().map(|b| b.iter().map(|&x| u64::from(x)).sum::<u64>()).sum::<u64>(),
                "per_file_per_s_median": round2(median_f(&mut rates)),
                "per_file_per_s_max": round2(max_rate),
                "max_in_one_second": max_second,
                "median_per_second": quantile(&all_seconds, 0.5),
            }),
        );
    }
    json!({
        "name": name,
        "counted": kind,
        "window_s": seconds,
        "log_lines_in_window": lines_in_window,
        "lines_by_cache_status_and_status": statuses,
        "by_file_class": out,
    })
}

/// When move `k` of a board was released: move `k + delay` handed to the publisher, or the
/// game's end.
fn release(published: &Published, k: u32, delay: u32) -> Option<u64> {
    let moves = published.moves.lock().ok()?;
    let over = published.game_over.load(Ordering::Relaxed);
    let at = moves.get((k + delay) as usize - 1).copied();
    match (at, over) {
        (Some(a), 0) => Some(a),
        (Some(a), o) => Some(a.min(o)),
        (None, 0) => None,
        (None, o) if (k as usize) <= moves.len() => Some(o),
        (None, _) => None,
    }
}

/// The figures of one kind of poller.
fn poller_figures(
    pollers: &[&PollerOut],
    published: &[Arc<Published>],
    delay: u32,
    from: u64,
    to: u64,
) -> Value {
    let mut delays = Vec::new();
    let mut missed = 0u64;
    let mut early = 0u64;
    let mut moves_steady = 0u64;
    let mut per_viewer = Vec::new();
    let mut per_viewer_body = Vec::new();
    let (mut wire, mut body, mut requests) = (0u64, 0u64, 0u64);
    let (mut all_wire, mut all_moves) = (0u64, 0u64);
    let mut initial = Vec::new();
    for p in pollers {
        if p.first_us == 0 {
            continue;
        }
        let Some(pubd) = published.get(p.table - 1) else {
            continue;
        };
        let seen: BTreeMap<u32, u64> = p.seen.iter().copied().collect();
        let last_published = pubd.moves.lock().map(|m| m.len() as u32).unwrap_or(0);
        for k in p.moves_at_first + 1..=last_published {
            let Some(r) = release(pubd, k, delay) else {
                continue;
            };
            if r < from || r >= to || r <= p.first_us {
                continue;
            }
            match seen.get(&k) {
                Some(&t) if t >= r => delays.push(t - r),
                Some(_) => early += 1,
                None => missed += 1,
            }
        }
        let m = p.seen.iter().filter(|(_, t)| *t >= from && *t < to).count() as u64;
        moves_steady += m;
        wire += p.steady_wire;
        body += p.steady_body;
        requests += p.steady_requests;
        if m > 0 {
            per_viewer.push(p.steady_wire as f64 / m as f64);
            per_viewer_body.push(p.steady_body as f64 / m as f64);
        }
        all_wire += p.initial_wire + p.after_wire;
        all_moves += p.seen.len() as u64;
        initial.push(p.initial_wire);
    }
    initial.sort_unstable();
    let sum = |f: fn(&PollerOut) -> u64| pollers.iter().map(|p| f(p)).sum::<u64>();
    let span = (to - from) as f64 / 1e6;
    json!({
        "pollers": pollers.len(),
        "following": pollers.iter().filter(|p| p.first_us != 0).count(),
        "index_failed": pollers.iter().filter(|p| p.index_failed).count(),
        "requests_per_s_steady": round1(requests as f64 / span),
        "moves_seen_steady": moves_steady,
        "bytes_per_move_steady": if moves_steady > 0 { round1(wire as f64 / moves_steady as f64) } else { 0.0 },
        "body_bytes_per_move_steady": if moves_steady > 0 { round1(body as f64 / moves_steady as f64) } else { 0.0 },
        "bytes_per_move_per_viewer_median": round1(median_f(&mut per_viewer)),
        "body_bytes_per_move_per_viewer_median": round1(median_f(&mut per_viewer_body)),
        "bytes_per_request_steady": if requests > 0 { round1(wire as f64 / requests as f64) } else { 0.0 },
        "bytes_per_move_whole_run_incl_start": if all_moves > 0 { round1(all_wire as f64 / all_moves as f64) } else { 0.0 },
        "start_bytes_per_viewer_median": quantile(&initial, 0.5),
        "visibility_from_release": delay_stats(&mut delays),
        "moves_missed_by_end": missed,
        "moves_seen_before_release": early,
        "status_200": sum(|p| p.status_200),
        "status_206": sum(|p| p.status_206),
        "status_304": sum(|p| p.status_304),
        "status_416": sum(|p| p.status_416),
        "status_other": sum(|p| p.status_other),
        "restarts": sum(|p| p.restarts),
        "connect_failures": sum(|p| p.connect_failures),
        "io_failures": sum(|p| p.io_failures),
        "timeouts": sum(|p| p.timeouts),
        "malformed": sum(|p| p.malformed),
        "connections_made": sum(|p| p.connects),
        "late_polls": sum(|p| p.late_polls),
    })
}

async fn run(args: Arc<Args>, games: Vec<Arc<Game>>) -> Result<(), Failure> {
    let n = args.boards;
    let counters = Arc::new(BoardCounters::default());
    let published: Vec<Arc<Published>> = (0..n).map(|_| Arc::new(Published::default())).collect();
    let stop = Arc::new(AtomicU64::new(u64::MAX));
    let series = Arc::new(Mutex::new(ProcSeries::new()));
    let load = Arc::new(Mutex::new(Vec::new()));
    let me = std::process::id().to_string();
    let mut list = vec![("generator".to_string(), me.clone())];
    for p in &args.pids {
        let (name, pid) = p
            .split_once(':')
            .ok_or_else(|| format!("--pid {p}: give NAME:PID"))?;
        list.push((name.to_string(), pid.to_string()));
    }
    let procs: Procs = Arc::new(Mutex::new(list));

    let t0 = Instant::now() + Duration::from_secs(1);
    let mut boards = Vec::new();
    for (i, pubd) in published.iter().enumerate() {
        let start = t0 + Duration::from_secs_f64(args.board_ramp * i as f64 / n as f64);
        let game = games[(i * 7 + i / games.len()) % games.len()].clone();
        boards.push(tokio::spawn(boards::board(
            i,
            args.clone(),
            game,
            start,
            stop.clone(),
            pubd.clone(),
            counters.clone(),
        )));
    }
    tokio::time::sleep_until((t0 + Duration::from_secs_f64(args.board_ramp)).into()).await;
    let served_since = Instant::now();
    let served = match wait_served(&args).await {
        Ok(v) => v,
        Err(e) => {
            stop.store(mono_us(), Ordering::Relaxed);
            for b in boards {
                let _ = b.await;
            }
            return Err(e);
        }
    };
    eprintln!(
        "round served {:.1} s after the boards' ramp: {served}",
        served_since.elapsed().as_secs_f64()
    );

    // The schedule, in monotonic µs.
    let start_us = mono_us() + 1_000_000;
    let ramp_us = (args.poller_ramp * 1e6) as u64;
    let steady_from_us = start_us + ramp_us + 2_000_000;
    let steady_to_us = steady_from_us + (args.duration * 1e6) as u64;
    let end_us = steady_to_us + (args.drain * 1e6) as u64;
    stop.store(steady_to_us, Ordering::Relaxed);
    let sampling = tokio::spawn(sampler(procs.clone(), end_us, series.clone(), load.clone()));
    let plan = Plan {
        mode: args.mode.clone(),
        server: args.server.clone(),
        tournament: args.tournament.clone(),
        round: "1".to_string(),
        boards: n,
        pollers: args.pollers,
        sgf_every: args.sgf_every,
        poll_every_ms: (args.poll_every * 1000.0) as u64,
        start_us,
        ramp_us,
        steady_from_us,
        steady_to_us,
        end_us,
        timeout_ms: (args.timeout * 1000.0) as u64,
    };
    let base = args
        .out
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("feed-pollers-{me}.json")));
    let plan_path = base.with_extension("plan.json");
    std::fs::write(&plan_path, serde_json::to_vec(&plan)?)
        .map_err(|e| format!("{}: {e}", plan_path.display()))?;
    let processes = if args.processes > 0 {
        args.processes
    } else {
        args.pollers.div_ceil(7000)
    }
    .min(args.pollers);
    let exe = std::env::current_exe()?;
    let mut children = Vec::new();
    let mut part_paths = Vec::new();
    let mut child_pids = Vec::new();
    for k in 0..processes {
        let first = args.pollers * k / processes;
        let count = args.pollers * (k + 1) / processes - first;
        let part = base.with_extension(format!("part{k}.json"));
        let _ = std::fs::remove_file(&part);
        let child = std::process::Command::new(&exe)
            .arg("--plan")
            .arg(&plan_path)
            .arg("--first")
            .arg(first.to_string())
            .arg("--count")
            .arg(count.to_string())
            .arg("--part-out")
            .arg(&part)
            .arg("--server")
            .arg(&args.server)
            .stdout(std::process::Stdio::null())
            .spawn()?;
        child_pids.push(child.id().to_string());
        children.push(child);
        part_paths.push(part);
    }
    if let Ok(mut p) = procs.lock() {
        p[0].1 = std::iter::once(me.clone())
            .chain(child_pids.iter().cloned())
            .collect::<Vec<_>>()
            .join(",");
    }
    eprintln!(
        "{} pollers in {processes} processes ({}), ramp {} s, window {} s",
        args.pollers,
        child_pids.join(","),
        args.poller_ramp,
        args.duration
    );
    // Progress of the boards, every 10 s until the end.
    let progress = tokio::spawn({
        let counters = counters.clone();
        async move {
            let mut tick = tokio::time::interval(Duration::from_secs(10));
            while mono_us() < end_us {
                tick.tick().await;
                let la = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
                eprintln!(
                    "boards started {} connected {} events published {} (load {})",
                    counters.started.load(Ordering::Relaxed),
                    counters.connected.load(Ordering::Relaxed),
                    counters.published.load(Ordering::Relaxed),
                    la.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
                );
            }
        }
    });
    let waited = tokio::task::spawn_blocking(move || {
        children
            .into_iter()
            .map(|mut c| c.wait().map(|s| s.success()).unwrap_or(false))
            .collect::<Vec<bool>>()
    })
    .await?;
    let mut last = vec![0u64; n];
    let mut failures = Vec::new();
    for (i, b) in boards.into_iter().enumerate() {
        match b.await {
            Ok(Ok(s)) => last[i] = s,
            Ok(Err(e)) => failures.push(e.to_string()),
            Err(e) => failures.push(format!("{}: {e}", board_id(i))),
        }
    }
    tokio::time::sleep_until(instant_at(end_us).into()).await;
    progress.abort();
    let _ = sampling.await;

    let mut parts = Vec::new();
    let mut part_errors = Vec::new();
    for (k, p) in part_paths.iter().enumerate() {
        match std::fs::read(p).map(|b| serde_json::from_slice::<PartOut>(&b)) {
            Ok(Ok(part)) => parts.push(part),
            Ok(Err(e)) => part_errors.push(format!("{}: {e}", p.display())),
            Err(e) => part_errors.push(format!(
                "{} (exit ok: {}): {e}",
                p.display(),
                waited.get(k).copied().unwrap_or(false)
            )),
        }
    }
    let all: Vec<&PollerOut> = parts.iter().flat_map(|p| p.pollers.iter()).collect();
    let mut hist = vec![0u64; HIST_MS + 1];
    for p in &parts {
        for (b, x) in hist.iter_mut().zip(&p.latency_ms) {
            *b += x;
        }
    }
    let total: u64 = hist.iter().sum();
    let at = |q: f64| {
        let want = (total as f64 * q).ceil() as u64;
        let mut acc = 0;
        for (ms, c) in hist.iter().enumerate() {
            acc += c;
            if acc >= want.max(1) {
                return ms;
            }
        }
        HIST_MS
    };
    let latency = json!({
        "requests": total,
        "p50_ms": at(0.5),
        "p99_ms": at(0.99),
        "max_ms": hist.iter().rposition(|&c| c > 0).unwrap_or(0),
        "note": "1 ms buckets: 0 means under 1 ms",
    });
    let mut kinds = serde_json::Map::new();
    for kind in ["json", "sgf", "today"] {
        let these: Vec<&PollerOut> = all.iter().copied().filter(|p| p.kind == kind).collect();
        if !these.is_empty() {
            kinds.insert(
                kind.to_string(),
                poller_figures(
                    &these,
                    &published,
                    args.delay_moves,
                    steady_from_us,
                    steady_to_us,
                ),
            );
        }
    }
    // The logs' window in Unix seconds.
    let offset = unix_us() as f64 - mono_us() as f64;
    let from_unix = (steady_from_us as f64 + offset) / 1e6;
    let to_unix = (steady_to_us as f64 + offset) / 1e6;
    let origin: Vec<Value> = args
        .logs
        .iter()
        .map(|l| origin_figures(l, from_unix, to_unix))
        .collect();
    let hz = clock_ticks();
    let series = series.lock().map(|s| s.clone()).unwrap_or_default();
    let mut procs_out = serde_json::Map::new();
    for (name, s) in &series {
        procs_out.insert(
            name.clone(),
            proc_stats(s, steady_from_us, steady_to_us, hz),
        );
    }
    let released: usize = published
        .iter()
        .map(|p| {
            let m = p.moves.lock().map(|m| m.len() as u32).unwrap_or(0);
            (1..=m)
                .filter(|&k| {
                    release(p, k, args.delay_moves)
                        .is_some_and(|r| r >= steady_from_us && r < steady_to_us)
                })
                .count()
        })
        .sum();
    let summary = json!({
        "label": args.label,
        "mode": args.mode,
        "server": args.server,
        "boards": n,
        "pollers": args.pollers,
        "poller_processes": processes,
        "sgf_every": args.sgf_every,
        "poll_every_s": args.poll_every,
        "poller_ramp_s": args.poller_ramp,
        "window_s": args.duration,
        "head_moves": args.head_moves,
        "pace_s": [args.pace_min, args.pace_max],
        "delay_moves": args.delay_moves,
        "release": if args.delay_moves == 0 { "the board handing the move to its publisher" } else { "the board handing move k + delay_moves (or game_over) to its publisher" },
        "served": served,
        "events_published": last.iter().sum::<u64>(),
        "moves_released_in_window": released,
        "moves_released_per_s": round2(released as f64 / args.duration),
        "board_failures": failures.len(),
        "board_failure_examples": failures.iter().take(5).collect::<Vec<_>>(),
        "connections_lost": counters.disconnects.load(Ordering::Relaxed),
        "poller_process_errors": part_errors,
        "pollers_reported": all.len(),
        "request_latency_steady": latency,
        "by_kind": kinds,
        "origin": origin,
        "processes": procs_out,
        "load_average_samples": *load.lock().map_err(|e| e.to_string())?,
    });
    let text = serde_json::to_string_pretty(&summary)?;
    println!("{text}");
    if let Some(path) = &args.out {
        std::fs::write(path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    // The poller processes' own files (`*.partN.json`: every poller's moves and bytes) stay
    // beside the summary, for a closer look.
    let _ = std::fs::remove_file(&plan_path);
    Ok(())
}

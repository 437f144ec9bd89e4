//! Many venues, one broadcast, nothing lost (issue 37): `bench/venues.sh VENUES BOARDS`
//! builds `tengen` and this bench and runs it. Not part of `cargo test`; needs root.
//!
//! The lab of `tests/support/venue_lab.rs`: a hub and VENUES venues, each in its own
//! network namespace joined to the hub by a veth link, each with its mosquitto and `tengen
//! hall` on the files `tengen broker-config` wrote (the venue's bridge dials out to the hub
//! over TLS). In each venue, BOARDS simulated boards as `bench/hall-scale.sh` makes them:
//! the product's MQTT publisher replaying a 19x19 game that went through the simulator and
//! the board's whole pipeline, each board on its venue's broker with its own account,
//! answering `republish` from its events; all of a venue's boards on one thread that
//! entered the venue's namespace.
//!
//! The chaos, bounded in count and time, one action after another in its own slot of the
//! run and at least `--settle` s (10) after the one before is over: `--cuts` link cuts (in
//! turn: the link down, a share of its packets dropped, throttled; 5 to 20 s each), venue brokers SIGKILLed, the hub's broker SIGKILLed and
//! stopped, venue halls SIGKILLed, the hub's hall SIGKILLed and stopped, each started
//! again at once.
//!
//! Measured: events *lost* at the hub (each board's events 1..N it published, against the
//! hub's archive), *duplicated* (an event written twice in the hub's archive), the hub's
//! archive against each venue hall's, event for event; *catch-up*: after each action is
//! over (a link back, a process started again), for each board the hub was then missing
//! events of, the time until the hub held every event the board published before that
//! moment (the director's `/api/console/venues?boards=1`, polled every 250 ms); what the
//! brokers lost and the hub filled from its venues (`events_filled`); the hub hall's CPU
//! (% of one core) and peak memory over the run. Prints a JSON summary, then, last, `lost
//! N, duplicated N, catch-up p99 S s`.

#[path = "support/proc_sample.rs"]
mod proc_sample;
#[path = "support/simulated_games.rs"]
mod simulated_games;
#[path = "../tests/support/venue_lab.rs"]
mod venue_lab;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tengen_daemon::mqtt::{
    MemorySource, MqttSettings, Publisher, PublisherParts, Retained, Topics,
};
use tengen_net::broker::BrokerUrl;
use tengen_protocol::{Envelope, GameView, Timestamp};

use proc_sample::{clock_ticks, sample, ProcSample};
use simulated_games::{default_games, simulate, Failure, Game};
use venue_lab::{Cut, Lab, LabOptions, DIRECTOR, TOURNAMENT};

/// The bench's options.
#[derive(Parser, Debug, Clone)]
#[command(about = "Venues pushing to one hub through chaos, measured")]
struct Args {
    /// How many venues.
    #[arg(long, default_value_t = 3)]
    venues: usize,
    /// Boards per venue.
    #[arg(long, default_value_t = 100)]
    boards: usize,
    /// Seconds of play, from the first board's start.
    #[arg(long, default_value_t = 600.0)]
    duration: f64,
    /// Boards start spread over this many seconds.
    #[arg(long, default_value_t = 30.0)]
    ramp: f64,
    /// Link cuts (down, lossy, throttled in turn).
    #[arg(long, default_value_t = 20)]
    cuts: usize,
    /// Virtual ms per wall ms (1: the simulator's human pace, median 4 s a move).
    #[arg(long, default_value_t = 1.0)]
    speed: f64,
    /// The fewest seconds between one action's end and the next one's start.
    #[arg(long, default_value_t = 10.0)]
    settle: f64,
    /// The most seconds after play for the hub to hold everything.
    #[arg(long, default_value_t = 180.0)]
    drain: f64,
    /// The chaos's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The `tengen` binary.
    #[arg(long)]
    tengen: PathBuf,
    /// Where the lab (configs, logs, archives) and the summary go.
    #[arg(long)]
    out: PathBuf,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// When each board handed each of its events to its publisher (index `seq - 1`).
type Sent = Arc<Vec<Arc<Mutex<Vec<Instant>>>>>;

fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// One board of a venue: replays `game` from `start` until `stop`, then stays connected
/// (to answer its venue hall's `republish`) until `end`.
#[allow(clippy::too_many_arguments)]
async fn board(
    id: String,
    password: String,
    game: Arc<Game>,
    start: Instant,
    stop: Instant,
    speed: f64,
    sent: Arc<Mutex<Vec<Instant>>>,
    end: Arc<AtomicBool>,
) -> Result<u64, Failure> {
    tokio::time::sleep_until(start.into()).await;
    let game_id = format!("{id}-g1");
    let topics = Topics::new("tengen", TOURNAMENT, &id)?;
    let url = BrokerUrl::parse(&format!("mqtt://127.0.0.1:{}", venue_lab::MQTT_PORT))?;
    let mut settings = MqttSettings::new(url, &id);
    settings.credentials = Some((id.clone(), password));
    settings.keepalive = Duration::from_secs(10);
    let source = MemorySource::new();
    let publisher = Publisher::start(
        settings,
        PublisherParts {
            topics,
            source: Arc::new(source.clone()),
            ack_file: None,
            ids_file: None,
            commands: None,
            version: "venues-bench".to_string(),
        },
    )?;
    let handle = publisher.handle();
    let template: Envelope = serde_json::from_value(json!({
        "seq": 0, "time": "2026-01-01T00:00:00.000Z", "board": id, "game": game_id,
        "type": "pass", "number": 0, "color": "B",
    }))?;
    let mut seq = 0u64;
    let mut view = GameView::new();
    for b in &game.batches {
        let due = start + Duration::from_secs_f64(b.at as f64 / 1000.0 / speed);
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
            if let Ok(mut v) = sent.lock() {
                v.push(Instant::now());
            }
            alerts_changed |= env.event.is_private();
            let _ = view.apply_envelope(&env);
            handle.wake();
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
    }
    while !end.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _ = publisher.shutdown(Duration::from_secs(2)).await;
    Ok(seq)
}

/// One chaos action.
#[derive(Debug, Clone, Copy)]
enum Action {
    /// A venue's link cut for so many seconds.
    Link(usize, Cut, f64),
    /// A venue's broker SIGKILLed.
    VenueBroker(usize),
    /// The hub's broker SIGKILLed (true) or stopped.
    HubBroker(bool),
    /// A venue's hall SIGKILLed.
    VenueHall(usize),
    /// The hub's hall SIGKILLed (true) or stopped.
    HubHall(bool),
}

impl Action {
    fn name(&self) -> &'static str {
        match self {
            Action::Link(_, Cut::Down, _) => "link down",
            Action::Link(_, Cut::Loss(_), _) => "link lossy",
            Action::Link(_, Cut::Throttle(_), _) => "link throttled",
            Action::VenueBroker(_) => "venue broker killed",
            Action::HubBroker(_) => "hub broker restarted",
            Action::VenueHall(_) => "venue hall killed",
            Action::HubHall(_) => "hub hall restarted",
        }
    }

    /// The venue whose boards it touches (`None`: every venue's).
    fn venue(&self) -> Option<usize> {
        match *self {
            Action::Link(v, _, _) | Action::VenueBroker(v) | Action::VenueHall(v) => Some(v),
            Action::HubBroker(_) | Action::HubHall(_) => None,
        }
    }
}

/// The chaos, shuffled by `seed`: `cuts` link cuts, 3 venue brokers killed, the hub's
/// broker twice, 2 venue halls, the hub's hall twice.
fn plan(venues: usize, cuts: usize, seed: u64) -> Vec<Action> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut actions = Vec::new();
    for k in 0..cuts {
        let v = rng.random_range(0..venues);
        let secs = rng.random_range(5.0..20.0);
        let cut = match k % 3 {
            0 => Cut::Down,
            1 => Cut::Loss(rng.random_range(30..=60)),
            _ => Cut::Throttle(rng.random_range(32..=128)),
        };
        actions.push(Action::Link(v, cut, secs));
    }
    for _ in 0..3 {
        actions.push(Action::VenueBroker(rng.random_range(0..venues)));
    }
    actions.push(Action::HubBroker(true));
    actions.push(Action::HubBroker(false));
    for _ in 0..2 {
        actions.push(Action::VenueHall(rng.random_range(0..venues)));
    }
    actions.push(Action::HubHall(true));
    actions.push(Action::HubHall(false));
    // Fisher-Yates with the same generator: the order is the seed's.
    for i in (1..actions.len()).rev() {
        let j = rng.random_range(0..=i);
        actions.swap(i, j);
    }
    actions
}

/// Carries out `a` on the lab; returns when it is over (the link mended, the process
/// started again).
fn act(lab: &mut Lab, a: Action) {
    match a {
        Action::Link(v, cut, secs) => {
            lab.venues[v].cut(cut);
            std::thread::sleep(Duration::from_secs_f64(secs));
            lab.venues[v].mend(cut);
        }
        Action::VenueBroker(v) => {
            lab.venues[v].mosquitto.kill();
            std::thread::sleep(Duration::from_secs(1));
            lab.venues[v].mosquitto.restart();
        }
        Action::HubBroker(kill) => {
            if kill {
                lab.hub.mosquitto.kill();
            } else {
                lab.hub.mosquitto.stop();
            }
            std::thread::sleep(Duration::from_secs(1));
            lab.hub.mosquitto.restart();
        }
        Action::VenueHall(v) => {
            lab.venues[v].hall.kill();
            std::thread::sleep(Duration::from_secs(1));
            lab.venues[v].hall.restart();
        }
        Action::HubHall(kill) => {
            if kill {
                lab.hub.hall.kill();
            } else {
                lab.hub.hall.stop();
            }
            std::thread::sleep(Duration::from_secs(1));
            lab.hub.hall.restart();
        }
    }
}

/// One poll of the director's view: when, each board's `seq` at the hub (by venue and
/// board index), and each venue's `events_filled`.
struct Poll {
    at: Instant,
    seqs: BTreeMap<String, u64>,
    filled: Vec<u64>,
}

/// Polls the hub's `/api/console/venues?boards=1` every 250 ms until `end`, from a thread
/// in the hub's namespace.
fn poller(ns: String, venues: usize, end: Arc<AtomicBool>) -> std::thread::JoinHandle<Vec<Poll>> {
    std::thread::spawn(move || {
        let mut polls = Vec::new();
        let mut cookie = None;
        while !end.load(Ordering::Relaxed) {
            let at = Instant::now();
            if cookie.is_none() {
                cookie = venue_lab::login(&ns, DIRECTOR.0, DIRECTOR.1);
            }
            if let Some(c) = &cookie {
                let (status, _, body) = venue_lab::http(
                    &ns,
                    venue_lab::HTTP_PORT,
                    "GET",
                    "/api/console/venues?boards=1",
                    &[("Cookie", c)],
                    "",
                );
                match serde_json::from_str::<Value>(&body) {
                    Ok(v) if status == 200 => {
                        let mut seqs = BTreeMap::new();
                        let mut filled = vec![0; venues];
                        for (i, venue) in v["venues"].as_array().into_iter().flatten().enumerate() {
                            if let Some(f) = filled.get_mut(i) {
                                *f = venue["events_filled"].as_u64().unwrap_or(0);
                            }
                            for row in venue["board_seqs"].as_array().into_iter().flatten() {
                                if let (Some(b), Some(s)) = (row[1].as_str(), row[2].as_u64()) {
                                    seqs.insert(b.to_string(), s);
                                }
                            }
                        }
                        polls.push(Poll { at, seqs, filled });
                    }
                    _ if status == 401 => cookie = None,
                    _ => {}
                }
            }
            std::thread::sleep(Duration::from_millis(250).saturating_sub(at.elapsed()));
        }
        polls
    })
}

/// The `q` quantile of `v` (sorted).
fn quantile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v[(((v.len() - 1) as f64) * q).round() as usize]
}

/// Why a venue's simulated boards stopped.
#[derive(Debug, thiserror::Error)]
enum VenueBoardsError {
    /// Its thread could not enter the venue's network namespace.
    #[error("{ns}: {source}")]
    Namespace {
        /// The namespace.
        ns: String,
        /// Why not.
        source: std::io::Error,
    },
    /// Its runtime could not be built.
    #[error("its runtime: {0}")]
    Runtime(std::io::Error),
    /// A board's task panicked or was cancelled.
    #[error("a board's task: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// A board failed.
    #[error("{0}")]
    Board(Failure),
}

fn main() -> Result<(), Failure> {
    let args = Args::parse();
    if let Some(what) = venue_lab::missing() {
        return Err(format!("the venues' lab needs {what}").into());
    }
    std::fs::create_dir_all(&args.out)?;
    let games: Vec<Arc<Game>> = default_games()
        .iter()
        .enumerate()
        .map(|(k, p)| simulate(p, 7 + k as u64).map(Arc::new))
        .collect::<Result<_, _>>()?;
    let names: Vec<&str> = games.iter().map(|g| g.name.as_str()).collect();
    eprintln!("{} games simulated: {}", games.len(), names.join(", "));
    let tag = format!("{:03x}", std::process::id() % 0xfff);
    let lab_dir = args.out.join("lab");
    let _ = std::fs::remove_dir_all(&lab_dir);
    std::fs::create_dir_all(&lab_dir)?;
    let mut lab = Lab::start(
        &args.tengen,
        &lab_dir,
        &LabOptions {
            tag,
            venues: args.venues,
            boards: args.boards,
            log: "warn".into(),
            broadcast: None,
        },
    );
    eprintln!("lab up: {} venues of {} boards", args.venues, args.boards);
    let n = args.venues * args.boards;
    let sent: Sent = Arc::new((0..n).map(|_| Arc::default()).collect());
    let end = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now() + Duration::from_secs(2);
    let stop = t0 + Duration::from_secs_f64(args.duration);
    let mut threads = Vec::new();
    let mut ids = Vec::new();
    for (v, venue) in lab.venues.iter().enumerate() {
        let ns = venue.ns.0.clone();
        let boards = venue.boards.clone();
        ids.extend(boards.iter().map(|(b, _)| b.clone()));
        let (games, sent, end, speed, ramp) = (
            games.clone(),
            sent.clone(),
            end.clone(),
            args.speed,
            args.ramp,
        );
        let count = args.boards;
        threads.push(std::thread::spawn(
            move || -> Result<Vec<u64>, VenueBoardsError> {
                venue_lab::enter(&ns).map_err(|source| VenueBoardsError::Namespace {
                    ns: ns.clone(),
                    source,
                })?;
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(VenueBoardsError::Runtime)?;
                rt.block_on(async move {
                    let mut tasks = Vec::new();
                    for (k, (id, pw)) in boards.into_iter().enumerate() {
                        let i = v * count + k;
                        let start = t0 + Duration::from_secs_f64(ramp * k as f64 / count as f64);
                        let game = games[(i * 7 + i / games.len()) % games.len()].clone();
                        let slot = sent[i].clone();
                        tasks.push(tokio::spawn(board(
                            id,
                            pw,
                            game,
                            start,
                            stop,
                            speed,
                            slot,
                            end.clone(),
                        )));
                    }
                    let mut last = Vec::new();
                    for t in tasks {
                        let published = t.await?.map_err(VenueBoardsError::Board)?;
                        last.push(published);
                    }
                    Ok(last)
                })
            },
        ));
    }

    // The hub hall's CPU and memory, each second (its pid changes when it restarts).
    let sampling_end = end.clone();
    let hub_pids: Arc<Mutex<Vec<u32>>> =
        Arc::new(Mutex::new(lab.hub.hall.pid().into_iter().collect()));
    let pids = hub_pids.clone();
    let sampler = std::thread::spawn(move || {
        let mut samples: Vec<(Instant, u32, ProcSample)> = Vec::new();
        while !sampling_end.load(Ordering::Relaxed) {
            let pid = pids.lock().ok().and_then(|p| p.last().copied());
            if let Some(pid) = pid {
                if let Some(s) = sample(&pid.to_string()) {
                    samples.push((Instant::now(), pid, s));
                }
            }
            std::thread::sleep(Duration::from_secs(1));
        }
        samples
    });
    let poll_end = Arc::new(AtomicBool::new(false));
    let polls = poller(lab.hub.ns.0.clone(), args.venues, poll_end.clone());

    // The chaos, one action per slot between the ramp and the last 30 s of play, and at
    // least `--settle` s after the one before is over (so that each catch-up is its own).
    let actions = plan(args.venues, args.cuts, args.seed);
    let window_start = t0 + Duration::from_secs_f64(args.ramp + 10.0);
    let window = (args.duration - args.ramp - 40.0).max(1.0);
    let slot = window / actions.len() as f64;
    let mut restored: Vec<(Action, Instant)> = Vec::new();
    for (k, a) in actions.iter().enumerate() {
        let mut at = window_start + Duration::from_secs_f64(slot * k as f64);
        if let Some((_, over)) = restored.last() {
            at = at.max(*over + Duration::from_secs_f64(args.settle));
        }
        std::thread::sleep(at.saturating_duration_since(Instant::now()));
        eprintln!(
            "t={:5.0}s chaos: {} ({a:?})",
            t0.elapsed().as_secs_f64(),
            a.name()
        );
        act(&mut lab, *a);
        restored.push((*a, Instant::now()));
        if let (Action::HubHall(_), Ok(mut p)) = (a, hub_pids.lock()) {
            p.extend(lab.hub.hall.pid());
        }
    }
    std::thread::sleep(stop.saturating_duration_since(Instant::now()));
    eprintln!(
        "play over at t={:.0}s; the hub catches up",
        t0.elapsed().as_secs_f64()
    );

    // Drain: until the hub holds every event of every board (or `--drain` s).
    let published_now = |i: usize| sent[i].lock().map(|v| v.len() as u64).unwrap_or(0);
    let drain_start = Instant::now();
    let cookie = venue_lab::login(&lab.hub.ns.0, DIRECTOR.0, DIRECTOR.1).unwrap_or_default();
    let caught_up = loop {
        let view = lab.venues_json(&cookie, true).unwrap_or(Value::Null);
        let mut at_hub: BTreeMap<String, u64> = BTreeMap::new();
        for venue in view["venues"].as_array().into_iter().flatten() {
            for row in venue["board_seqs"].as_array().into_iter().flatten() {
                if let (Some(b), Some(s)) = (row[1].as_str(), row[2].as_u64()) {
                    at_hub.insert(b.to_string(), s);
                }
            }
        }
        let behind = (0..n)
            .filter(|&i| at_hub.get(&ids[i]).copied().unwrap_or(0) < published_now(i))
            .count();
        if behind == 0 {
            break Some(drain_start.elapsed().as_secs_f64());
        }
        if drain_start.elapsed().as_secs_f64() > args.drain {
            eprintln!(
                "{behind} boards still behind at the hub after {:.0} s",
                args.drain
            );
            break None;
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    poll_end.store(true, Ordering::Relaxed);
    let polls = polls.join().map_err(|_| "the poller panicked")?;
    end.store(true, Ordering::Relaxed);
    let mut published = vec![0u64; n];
    for t in threads {
        t.join().map_err(|_| "a venue's boards panicked")??;
    }
    for (i, p) in published.iter_mut().enumerate() {
        *p = published_now(i);
    }
    let samples = sampler.join().map_err(|_| "the sampler panicked")?;

    // Lost, duplicated, and the hub against each venue's hall.
    let (hub_held, duplicated) = venue_lab::read_archive(&lab.hub.archive());
    let mut lost = 0u64;
    let mut differ = 0u64;
    for (i, id) in ids.iter().enumerate() {
        let key = (TOURNAMENT.to_string(), id.clone());
        let held = hub_held.get(&key);
        lost += (1..=published[i])
            .filter(|s| !held.is_some_and(|h| h.contains_key(s)))
            .count() as u64;
    }
    for v in &lab.venues {
        let (venue_held, _) = venue_lab::read_archive(&v.archive());
        for (key, events) in &venue_held {
            let hub = hub_held.get(key);
            differ += events
                .iter()
                .filter(|(s, e)| hub.and_then(|h| h.get(*s)) != Some(*e))
                .count() as u64;
        }
    }

    // Catch-up after each action, for each board then behind at the hub.
    let venue_of = |i: usize| i / args.boards;
    let mut catch: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    let mut never = 0usize;
    for (a, at) in &restored {
        for i in 0..n {
            if a.venue().is_some_and(|v| v != venue_of(i)) {
                continue;
            }
            let target = sent[i]
                .lock()
                .map(|v| v.iter().filter(|t| **t < *at).count() as u64)
                .unwrap_or(0);
            let after = polls.iter().filter(|p| p.at >= *at);
            let mut first = true;
            let mut took = None;
            for p in after {
                let seq = p.seqs.get(&ids[i]).copied().unwrap_or(0);
                if seq >= target {
                    if !first {
                        took = Some(p.at.duration_since(*at).as_secs_f64());
                    }
                    break;
                }
                first = false;
            }
            match (first, took) {
                (true, _) => {}
                (false, Some(s)) => catch.entry(a.name()).or_default().push(s),
                (false, None) => never += 1,
            }
        }
    }
    let mut all: Vec<f64> = catch.values().flatten().copied().collect();
    all.sort_by(f64::total_cmp);
    let mut per_kind = serde_json::Map::new();
    for (k, v) in &mut catch {
        v.sort_by(f64::total_cmp);
        per_kind.insert(
            (*k).to_string(),
            json!({"samples": v.len(), "p50_s": quantile(v, 0.5), "p99_s": quantile(v, 0.99),
                   "max_s": v.last().copied().unwrap_or(0.0)}),
        );
    }
    // What the brokers lost: the hub's `events_filled`, summed over its restarts (the
    // counters start again with each hall).
    let mut filled = 0u64;
    for v in 0..args.venues {
        let mut last = 0u64;
        for p in &polls {
            let f = p.filled[v];
            if f < last {
                filled += last;
            }
            last = f;
        }
        filled += last;
    }
    // The hub hall's CPU over the run (each of its processes' own time) and peak memory.
    let hz = clock_ticks();
    let mut cpu_ticks = 0u64;
    let mut span = 0.0f64;
    let mut peak_kb = 0u64;
    let mut by_pid: BTreeMap<u32, Vec<&(Instant, u32, ProcSample)>> = BTreeMap::new();
    for s in &samples {
        by_pid.entry(s.1).or_default().push(s);
        peak_kb = peak_kb.max(s.2.hwm_kb);
    }
    for run in by_pid.values() {
        if let (Some(a), Some(b)) = (run.first(), run.last()) {
            cpu_ticks += b.2.ticks - a.2.ticks;
            span += b.0.duration_since(a.0).as_secs_f64();
        }
    }
    let cpu_pct = if span > 0.0 {
        cpu_ticks as f64 / hz / span * 100.0
    } else {
        0.0
    };
    let p99 = quantile(&all, 0.99);
    let events: u64 = published.iter().sum();
    let summary = json!({
        "venues": args.venues,
        "boards_per_venue": args.boards,
        "duration_s": args.duration,
        "settle_s": args.settle,
        "speed": args.speed,
        "events_published": events,
        "lost": lost,
        "duplicated": duplicated,
        "hub_vs_venue_halls_differing_events": differ,
        "filled_by_the_hub_from_its_venues": filled,
        "chaos": actions.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>(),
        "catch_up": {"samples": all.len(), "p50_s": quantile(&all, 0.5), "p99_s": p99,
                     "max_s": all.last().copied().unwrap_or(0.0), "never": never,
                     "by_action": per_kind},
        "drain_s": caught_up,
        "hub_hall": {"cpu_pct_of_one_core": (cpu_pct * 10.0).round() / 10.0,
                     "rss_mb_peak": (peak_kb as f64 / 1024.0 * 10.0).round() / 10.0,
                     "restarts": by_pid.len().saturating_sub(1)},
        "polls": polls.len(),
        "load_average": std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim(),
    });
    let text = serde_json::to_string_pretty(&summary)?;
    std::fs::write(args.out.join("summary.json"), &text)?;
    println!("{text}");
    drop(lab);
    println!("lost {lost}, duplicated {duplicated}, catch-up p99 {p99:.1} s");
    Ok(())
}

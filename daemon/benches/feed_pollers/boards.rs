//! The boards of the round: real simulated games (the repo's 19x19 fixture games through the
//! simulator and the whole pipeline, as `hall_scale.rs` does), each replayed by one board
//! into the hall over MQTT with the product's publisher, as `tengen run` publishes.
//!
//! What differs from `hall_scale.rs`: every `game_started` and every retained `state` carry
//! round `"1"`, the board's table (`"1"`..`"50"`), names and ranks, so that the hall lists
//! the game in its round feed (the hall takes a board's round from both); `status` online
//! goes out every 5 s, as the service's heartbeat does; a board publishes its game's first `--head-moves` moves at once when it starts (a
//! round well under way), then one move every `--pace-min`..`--pace-max` seconds of wall
//! time (uniformly drawn per move), the events between two moves (clock readings, counting
//! calls) spread between them in proportion to their game time. Each board notes when it
//! handed each move (and `game_over`) to its publisher: the release times of the feed.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use tengen_daemon::mqtt::{
    MemorySource, MqttSettings, Publisher, PublisherParts, Retained, Topics,
};
use tengen_net::broker::BrokerUrl;
use tengen_protocol::{Envelope, Event, GameView, Timestamp};

use super::simulated_games::{Failure, Game};
use super::{instant_at, mono_us, unix_ms, Args};

impl Game {
    /// How many moves and passes the game has.
    pub(crate) fn moves(&self) -> usize {
        self.batches
            .iter()
            .flat_map(|b| &b.events)
            .filter(|e| move_number(e).is_some())
            .count()
    }
}

/// The move number of a move or a pass.
fn move_number(e: &Event) -> Option<u32> {
    match e {
        Event::Move { number, .. } | Event::Pass { number, .. } => Some(*number),
        _ => None,
    }
}

/// When each board handed its moves and its `game_over` to the publisher (monotonic µs).
#[derive(Default)]
pub(crate) struct Published {
    /// Index `k - 1`: move number `k`.
    pub(crate) moves: Mutex<Vec<u64>>,
    pub(crate) game_over: AtomicU64,
}

/// Counters shared by the boards.
#[derive(Default)]
pub(crate) struct BoardCounters {
    pub(crate) published: AtomicU64,
    pub(crate) started: AtomicUsize,
    pub(crate) connected: AtomicUsize,
    /// Connections lost while publishing (not the clean disconnects at the end).
    pub(crate) disconnects: AtomicUsize,
}

/// A small deterministic generator for the pace (splitmix64).
struct Pace(u64);

impl Pace {
    fn next_unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Wall seconds after the board's start at which each batch of `game` is published: the
/// first `head` moves at once, then one move every `min..max` s.
fn schedule(game: &Game, head: u32, min: f64, max: f64, seed: u64) -> Vec<f64> {
    let mut pace = Pace(seed);
    // (virtual ms, wall s) at each batch holding a move beyond the head start.
    let mut knots: Vec<(u64, f64)> = Vec::new();
    let mut head_end = 0u64;
    let mut wall = 0.0;
    for b in &game.batches {
        let Some(n) = b.events.iter().find_map(move_number) else {
            continue;
        };
        if n <= head {
            head_end = b.at;
            continue;
        }
        if knots.is_empty() {
            knots.push((head_end, 0.0));
        }
        wall += min + (max - min) * pace.next_unit();
        knots.push((b.at, wall));
    }
    game.batches
        .iter()
        .map(|b| {
            if b.at <= head_end || knots.is_empty() {
                return 0.0;
            }
            match knots.iter().position(|k| k.0 >= b.at) {
                Some(0) => 0.0,
                Some(i) => {
                    let (a, wa) = knots[i - 1];
                    let (z, wz) = knots[i];
                    wa + (b.at - a) as f64 / (z - a).max(1) as f64 * (wz - wa)
                }
                // After the last move: game time, as played.
                None => {
                    let (a, wa) = knots[knots.len() - 1];
                    wa + (b.at - a) as f64 / 1000.0
                }
            }
        })
        .collect()
}

/// The board id of board `i` (table `i + 1`).
pub(crate) fn board_id(i: usize) -> String {
    format!("b{i:04}")
}

/// Board `i` (table `i + 1`): connects at `start`, publishes its game until `stop` (monotonic
/// µs, read at every batch: set once the pollers' window is known), waits for the broker's
/// acknowledgements, disconnects cleanly. Returns the last `seq` published.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn board(
    i: usize,
    args: Arc<Args>,
    game: Arc<Game>,
    start: Instant,
    stop: Arc<AtomicU64>,
    published: Arc<Published>,
    counters: Arc<BoardCounters>,
) -> Result<u64, Failure> {
    tokio::time::sleep_until(start.into()).await;
    counters.started.fetch_add(1, Ordering::Relaxed);
    let id = board_id(i);
    let table = (i + 1).to_string();
    let game_id = format!("{id}-r1");
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
            version: "feed-pollers".to_string(),
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
    // `status` online again every 5 s, as the service does while its scan loop runs (a
    // board silent for 15 s is `board_offline` in the hall).
    let beating = tokio::spawn({
        let handle = publisher.handle();
        async move {
            let mut tick = tokio::time::interval(Duration::from_secs(5));
            loop {
                tick.tick().await;
                handle.heartbeat();
            }
        }
    });
    // Built from JSON so that envelope fields added later (absent here) take their defaults.
    let template: Envelope = serde_json::from_value(json!({
        "seq": 0, "time": "2026-01-01T00:00:00.000Z", "board": id, "game": game_id,
        "type": "pass", "number": 0, "color": "B",
    }))?;
    let when = schedule(
        &game,
        args.head_moves,
        args.pace_min,
        args.pace_max,
        args.seed.wrapping_mul(1000).wrapping_add(i as u64),
    );
    let mut seq = 0u64;
    let mut view = GameView::new();
    for (b, at) in game.batches.iter().zip(when) {
        let due = start + Duration::from_secs_f64(at);
        let stop_at = instant_at(stop.load(Ordering::Relaxed));
        if due >= stop_at {
            break;
        }
        tokio::time::sleep_until(due.into()).await;
        if Instant::now() >= instant_at(stop.load(Ordering::Relaxed)) {
            break;
        }
        let mut alerts_changed = false;
        for e in &b.events {
            seq += 1;
            let mut env = template.clone();
            env.seq = seq;
            env.time = Timestamp::from_millis(unix_ms());
            env.event = match e {
                Event::GameStarted(setup) => {
                    let mut s = setup.clone();
                    s.round = "1".to_string();
                    s.table.clone_from(&table);
                    s.black = format!("Black {table}");
                    s.white = format!("White {table}");
                    s.black_rank = Some("3d".to_string());
                    s.white_rank = Some("2d".to_string());
                    s.event = Some("Feed bench open".to_string());
                    Event::GameStarted(s)
                }
                other => other.clone(),
            };
            source.push(&env)?;
            let now = mono_us();
            if let Some(n) = move_number(&env.event) {
                if let Ok(mut m) = published.moves.lock() {
                    // Index k - 1 is move k (a retracted move is not in these games).
                    let k = n as usize;
                    if m.len() < k {
                        m.resize(k, now);
                    }
                    m[k - 1] = now;
                }
            }
            if matches!(env.event, Event::GameOver(_)) {
                published.game_over.store(now, Ordering::Relaxed);
            }
            alerts_changed |= env.event.is_private();
            let _ = view.apply_envelope(&env);
            handle.wake();
            counters.published.fetch_add(1, Ordering::Relaxed);
        }
        // The board's own snapshot says what its game_started said (the hall takes the
        // round from it too).
        let mut state = b.state.clone();
        if let Some(o) = state.as_object_mut() {
            o.insert("seq".into(), seq.into());
            o.insert("board_id".into(), id.clone().into());
            o.insert("game_id".into(), game_id.clone().into());
            o.insert("round".into(), "1".into());
            o.insert("table".into(), table.clone().into());
            o.insert("black".into(), format!("Black {table}").into());
            o.insert("white".into(), format!("White {table}").into());
            o.insert("black_rank".into(), "3d".into());
            o.insert("white_rank".into(), "2d".into());
            o.insert("event".into(), "Feed bench open".into());
        }
        handle.set_retained(Retained {
            state: Some(state.to_string()),
            sgf: b.sgf.as_ref().map(|s| s.to_string()),
            alerts_active: (alerts_changed || seq == b.events.len() as u64)
                .then(|| view.active_alerts_json()),
        });
    }
    // A board whose next move falls after the stop stays connected until then.
    loop {
        let stop_at = instant_at(stop.load(Ordering::Relaxed));
        if Instant::now() >= stop_at {
            break;
        }
        tokio::time::sleep_until(stop_at.min(Instant::now() + Duration::from_secs(1)).into()).await;
    }
    beating.abort();
    let result = publisher.wait_acked(seq, Duration::from_secs(10)).await;
    closing.store(true, Ordering::Relaxed);
    let _ = publisher.shutdown(Duration::from_secs(5)).await;
    watch_connected.abort();
    result.map_err(|e| format!("{id}: {e}"))?;
    Ok(seq)
}

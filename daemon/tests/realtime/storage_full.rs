//! A full disk is an alert, not a crash (issue 21): the real `tengen run` on the sim
//! backend, its `storage.dir` a 4 MiB tmpfs (`support/small_fs.rs`: needs root, as CI
//! runs; skipped otherwise), publishing to a real mosquitto, while a game plays at 8x:
//!
//! 1. the disk is filled to 0.6 MB free (below `low_mb = 1`): `storage_low` arrives as an
//!    event;
//! 2. it is filled up: `storage_full` is on the retained `alerts/active` at once, while no
//!    event is published (the journal is the outbox and holds nothing new); the board runs
//!    on: its `state` keeps changing with new moves and the `/clock` faces keep counting;
//! 3. the space is freed: the held events arrive, in order, with no gap in `seq`, the
//!    `storage_full` alert among them, then both alerts are cleared;
//! 4. the disk is filled up again and the board stopped and started: it stays up, says
//!    `storage_full`, and its clocks run after the arbiter's `resume`;
//! 5. space again: what the consumer holds is the journal, event for event.

use crate::board;
use crate::broker;
use crate::http;
use crate::small_fs::SmallFs;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use board::{BoardProcess, Consumer, BOARD};
use serde_json::{json, Value};
use tengen_daemon::journal::Journal;

fn write_config(dir: &Path, storage: &Path, broker_url: &str, http: u16) -> PathBuf {
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"{BOARD}\"\ntournament = \"faults\"\ngame = \"g1\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n\
             [hardware.sim]\nsgf = \"{}\"\nseed = 7\nspeed = 8.0\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"10m\"\nperiods = 3\nperiod = \"30s\"\n\
             [mqtt]\nurl = \"{broker_url}\"\nkeepalive = \"5s\"\n\
             [http]\nlisten = \"127.0.0.1:{http}\"\n\
             [storage]\ndir = \"{}\"\nlow_mb = 1\n",
            board::game_sgf().display(),
            storage.display()
        ),
    )
    .expect("write board.toml");
    path
}

/// The alerts on the latest retained `alerts/active`, as `code id`.
fn active(consumer: &Consumer) -> Vec<String> {
    consumer.with(|s| {
        let Some((_, payload)) = s.latest.get("alerts/active") else {
            return Vec::new();
        };
        let list: Vec<Value> = serde_json::from_slice(payload).unwrap_or_default();
        list.iter()
            .map(|a| {
                format!(
                    "{} {}",
                    a["code"].as_str().unwrap_or(""),
                    a["id"].as_str().unwrap_or("")
                )
            })
            .collect()
    })
}

/// The `alert` events with `code` received, as `(seq, id)`.
fn alert_events(consumer: &Consumer, code: &str) -> Vec<(u64, String)> {
    consumer.with(|s| {
        s.events
            .iter()
            .filter(|(_, e)| e["type"] == "alert" && e["code"] == code)
            .map(|(seq, e)| (*seq, e["id"].as_str().unwrap_or("").to_string()))
            .collect()
    })
}

/// The seq of the `alert_cleared` of `id`, if received.
fn cleared(consumer: &Consumer, id: &str) -> Option<u64> {
    consumer.with(|s| {
        s.events
            .iter()
            .find(|(_, e)| e["type"] == "alert_cleared" && e["id"] == id)
            .map(|(seq, _)| *seq)
    })
}

/// `color`'s face as the board draws it now (the picture `/clock` shows).
async fn face(addr: SocketAddr, color: &str) -> Vec<u8> {
    let start = Instant::now();
    loop {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            let r = http::get(addr, &format!("/clock/{color}.png"), &[]).await;
            if r.status == 200 {
                return r.body;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no face for {color}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Both faces change within a few seconds: the clock runs and the displays are drawn.
async fn clock_runs(addr: SocketAddr, what: &str) {
    let before = (face(addr, "B").await, face(addr, "W").await);
    let start = Instant::now();
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = (face(addr, "B").await, face(addr, "W").await);
        if now.0 != before.0 || now.1 != before.1 {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: the faces stand still"
        );
    }
}

/// Waits (at most 30 s) until `alerts/active` holds an alert for which `want` holds,
/// checking all along that the board has not exited.
async fn wait_active(
    consumer: &Consumer,
    board: &mut BoardProcess,
    want: impl Fn(&str) -> bool,
) -> bool {
    let start = Instant::now();
    loop {
        if active(consumer).iter().any(|a| want(a)) {
            return true;
        }
        if start.elapsed() > Duration::from_secs(30) {
            return false;
        }
        board.assert_running();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The move number of the latest retained `state`.
fn state_number(consumer: &Consumer) -> u64 {
    consumer.with(|s| {
        s.latest
            .get("state")
            .and_then(|(_, p)| serde_json::from_slice::<Value>(p).ok())
            .and_then(|v| v["number"].as_u64())
            .unwrap_or(0)
    })
}

/// A new `state` message arrives (the board shows its game going on).
async fn state_changes(consumer: &Consumer, what: &str) {
    let before = consumer.with(|s| s.latest.get("state").map(|(_, p)| p.clone()));
    let changed = consumer
        .wait_until(Duration::from_secs(10), |s| {
            s.latest.get("state").map(|(_, p)| p.clone()) != before
        })
        .await;
    assert!(changed, "{what}: the state stands still");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_raises_alerts_keeps_the_clock_and_loses_no_event() {
    let Some(mosquitto) = broker::Mosquitto::start() else {
        return;
    };
    let Some(mut fs) = SmallFs::mount(4 << 20) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let http_port = broker::free_port();
    let addr: SocketAddr = format!("127.0.0.1:{http_port}").parse().unwrap();
    let config = write_config(dir.path(), fs.path(), &mosquitto.url(), http_port);
    let consumer = Consumer::connect(mosquitto.port(), "disk-consumer").await;
    let mut board = BoardProcess::start(&config);
    let playing = consumer
        .wait_until(Duration::from_secs(30), |s| s.moves().len() >= 3)
        .await;
    assert!(playing, "the game did not start");

    // 1. Below low_mb: storage_low, published like any event.
    fs.fill_to(600_000);
    let filled = Instant::now();
    let low = consumer
        .wait_until(Duration::from_secs(15), |s| {
            s.events
                .values()
                .any(|e| e["type"] == "alert" && e["code"] == "storage_low")
        })
        .await;
    assert!(
        low,
        "no storage_low below low_mb (free {} bytes)",
        fs.free()
    );
    let low_after = filled.elapsed();

    // 2. Full: storage_full reaches alerts/active while the events wait.
    fs.fill_up();
    let filled = Instant::now();
    let full = wait_active(&consumer, &mut board, |a| a.starts_with("storage_full")).await;
    assert!(
        full,
        "no storage_full on alerts/active: {:?}",
        active(&consumer)
    );
    let full_after = filled.elapsed();
    let published = consumer.with(|s| s.max_seq());
    let moves_then = consumer.with(|s| s.moves().len());
    state_changes(&consumer, "disk full").await;
    clock_runs(addr, "disk full").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    board.assert_running();
    assert_eq!(
        consumer.with(|s| s.max_seq()),
        published,
        "nothing is published while the events wait"
    );
    assert!(alert_events(&consumer, "storage_full").is_empty());
    let start = Instant::now();
    while state_number(&consumer) <= moves_then as u64 {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "no move read while the disk is full (state at move {})",
            state_number(&consumer)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // 3. Space again: the held events, in order, no seq missing; both alerts cleared.
    fs.empty_fillers();
    let freed = Instant::now();
    let written_again = consumer
        .wait_until(Duration::from_secs(20), |s| s.max_seq() > published)
        .await;
    assert!(written_again, "nothing published after the space was freed");
    let flushed_after = freed.elapsed();
    let healed = consumer
        .wait_until(Duration::from_secs(20), |s| {
            let low = s.events.values().find(|e| e["code"] == "storage_low");
            let full = s.events.values().find(|e| e["code"] == "storage_full");
            let clear = |a: Option<&Value>| {
                a.is_some_and(|a| {
                    s.events
                        .values()
                        .any(|e| e["type"] == "alert_cleared" && e["id"] == a["id"])
                })
            };
            clear(low) && clear(full)
        })
        .await;
    assert!(healed, "the held events and the clearings did not arrive");
    let healed_after = freed.elapsed();
    let held = consumer.with(|s| s.max_seq()) - published;
    let (full_seq, full_id) = alert_events(&consumer, "storage_full")[0].clone();
    assert!(
        full_seq > published,
        "storage_full was held, then published"
    );
    assert!(cleared(&consumer, &full_id).unwrap() > full_seq);
    consumer.with(|s| {
        assert!(s.gaps().is_empty(), "seqs missing: {:?}", s.gaps());
        assert_eq!(s.conflicts, 0, "a seq numbered twice");
        let game = board::game_moves();
        let moves = s.moves();
        assert_eq!(moves, game[..moves.len()], "the moves, in order");
    });

    // 4. Full again, stop, start: the board stays up, says storage_full, runs its clock.
    fs.fill_up();
    assert_eq!(board.terminate(), 0, "a clean stop with the disk full");
    board.restart();
    let restarted = Instant::now();
    let said = wait_active(&consumer, &mut board, |a| {
        a.starts_with("storage_full") && a != format!("storage_full {full_id}")
    })
    .await;
    assert!(
        said,
        "restarted on a full disk: no storage_full: {:?}",
        active(&consumer)
    );
    let said_after = restarted.elapsed();
    // The restart paused the clocks (board_restarted); the arbiter resumes them.
    consumer
        .command(&json!({"id": "go-on", "by": "chief", "type": "resume"}))
        .await;
    clock_runs(addr, "restarted on a full disk").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    board.assert_running();

    // 5. Space again: the consumer's copy is the journal's, event for event.
    fs.empty_fillers();
    let online_again = consumer
        .wait_until(Duration::from_secs(20), |s| {
            s.events
                .range(full_seq..)
                .any(|(_, e)| e["type"] == "status" && e["state"] == "online")
                && s.events.range(full_seq..).any(|(_, e)| {
                    e["type"] == "clock" && e["paused"] == false && e["by"] == "chief"
                })
        })
        .await;
    assert!(online_again, "the restart's held events did not arrive");
    assert_eq!(board.terminate(), 0);
    let (journal, _) = Journal::open(fs.path(), BOARD).unwrap();
    let written: Vec<(u64, Value)> = journal
        .reader()
        .read_raw_from(1)
        .unwrap()
        .into_iter()
        .map(|(seq, raw)| (seq, serde_json::from_slice(&raw).unwrap()))
        .collect();
    let last = journal.last_seq();
    let all = consumer
        .wait_until(Duration::from_secs(10), |s| s.max_seq() >= last)
        .await;
    assert!(
        all,
        "published up to {} of {last}",
        consumer.with(|s| s.max_seq())
    );
    consumer.with(|s| {
        assert!(s.gaps().is_empty(), "seqs missing: {:?}", s.gaps());
        assert_eq!(s.conflicts, 0, "a seq numbered twice");
        let got: Vec<(u64, Value)> = s.events.iter().map(|(q, e)| (*q, e.clone())).collect();
        assert_eq!(
            got, written,
            "what was published is the journal, event for event"
        );
    });
    eprintln!(
        "DISK storage_low {} ms after the fill; storage_full on alerts/active {} ms after the \
         disk was full; the held events published from {} ms after the space was freed, all \
         {held} within {} ms (both alerts cleared); restarted on a full disk: storage_full {} ms after the start; {} events \
         in all, none missing",
        low_after.as_millis(),
        full_after.as_millis(),
        flushed_after.as_millis(),
        healed_after.as_millis(),
        said_after.as_millis(),
        written.len()
    );
}

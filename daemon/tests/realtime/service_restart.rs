//! The real `tengen run` stopped mid-game (SIGTERM and SIGKILL) and started again, against
//! a real mosquitto: a clock an arbiter paused is still paused, with no time lost; a board
//! killed while a player is in byo-yomi comes back with the clocks paused exactly as they
//! stood when it went down and a `board_restarted` alert; after the arbiter's `resume` the
//! clock runs and the flag falls when the time left says. Checked on the journal's own
//! event times, so the figures are exact whatever the machine's load.

use crate::board;
use crate::broker;

use std::path::Path;
use std::time::Duration;

use board::{BoardProcess, Consumer, BOARD};
use serde_json::{json, Value};
use tengen_daemon::journal::Journal;
use tengen_protocol::event::{AlertCode, BoardState, ClockReading};
use tengen_protocol::{Event, GameView};
use tengen_rules::Color;

/// Black plays at once; White then thinks "forever" on 4 s of main time and 3 x 3 s.
const SCRIPT: &str = "size 9\nplace B C3\npress B\nwait 600s\nplace W G7\npress W\n";

fn write_config(dir: &Path, broker_url: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("game.txt"), SCRIPT).unwrap();
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"{BOARD}\"\ntournament = \"faults\"\ngame = \"g1\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n[hardware.sim]\nscript = \"game.txt\"\nspeed = 1.0\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"4s\"\nperiods = 3\nperiod = \"3s\"\n\
             [mqtt]\nurl = \"{broker_url}\"\nkeepalive = \"5s\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[storage]\ndir = \"data\"\n"
        ),
    )
    .unwrap();
    path
}

async fn command(consumer: &Consumer, id: &str, kind: &str) {
    consumer
        .command(&json!({"id": id, "by": "chief", "type": kind}))
        .await;
}

/// The latest `clock` event seen above `after` (a seq).
fn clock_after(consumer: &Consumer, after: u64) -> Option<(u64, Value)> {
    consumer.with(|s| {
        s.events
            .range(after + 1..)
            .rfind(|(_, e)| e["type"] == "clock")
            .map(|(seq, e)| (*seq, e.clone()))
    })
}

/// Waits for the board to come back after a stop: its `restoring` above `after`, then the
/// restart's `clock` event; returns the seq of `restoring` and that clock.
async fn back(consumer: &Consumer, after: u64) -> (u64, Value) {
    let came = consumer
        .wait_until(Duration::from_secs(30), |s| {
            let restoring = s
                .events
                .range(after + 1..)
                .find(|(_, e)| e["type"] == "status" && e["state"] == "restoring");
            restoring.is_some_and(|(seq, _)| {
                s.events
                    .range(seq + 1..)
                    .any(|(_, e)| e["type"] == "status" && e["state"] == "online")
            })
        })
        .await;
    assert!(came, "the board did not come back");
    consumer.with(|s| {
        let (seq, _) = s
            .events
            .range(after + 1..)
            .find(|(_, e)| e["type"] == "status" && e["state"] == "restoring")
            .expect("restoring");
        let restart: Vec<&Value> = s.events.range(seq + 1..).map(|(_, e)| e).collect();
        assert!(
            restart
                .iter()
                .any(|e| e["type"] == "alert" && e["code"] == "board_restarted"),
            "no board_restarted alert: {restart:?}"
        );
        let clock = restart
            .iter()
            .find(|e| e["type"] == "clock")
            .copied()
            .cloned()
            .expect("the restart's clock event");
        (*seq, clock)
    })
}

fn times(clock: &Value) -> (Value, Value, Value, Value) {
    (
        clock["B"].clone(),
        clock["W"].clone(),
        clock["periods"].clone(),
        clock["running"].clone(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paused_clocks_stay_paused_and_a_kill_in_byoyomi_loses_no_time() {
    let Some(mosquitto) = broker::Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let cfg = write_config(dir.path(), &mosquitto.url());
    let consumer = Consumer::connect(mosquitto.port(), "restart-consumer").await;
    let mut process = BoardProcess::start(&cfg);

    // Black's press: White's clock runs. The arbiter pauses it (Art. 14).
    let pressed = consumer
        .wait_until(Duration::from_secs(30), |s| {
            s.events
                .values()
                .any(|e| e["type"] == "clock" && e["color"] == "B")
        })
        .await;
    assert!(pressed, "Black never pressed");
    tokio::time::sleep(Duration::from_millis(700)).await;
    command(&consumer, "p1", "pause").await;
    let paused = consumer
        .wait_until(Duration::from_secs(10), |s| {
            s.events
                .values()
                .any(|e| e["type"] == "clock" && e["paused"] == true)
        })
        .await;
    assert!(paused, "the pause was not taken");
    let (seq, pause) = clock_after(&consumer, 0).expect("the pause");
    assert_eq!(pause["paused"], true);

    // SIGTERM, back a second later: still paused, to the millisecond.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(process.terminate(), 0);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    process.restart();
    let (restored, clock) = back(&consumer, seq).await;
    assert_eq!(clock["paused"], true);
    assert_eq!(times(&clock), times(&pause), "no time lost across SIGTERM");

    // SIGKILL, back a second later: the same.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    process.kill();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    process.restart();
    let (restored, clock) = back(&consumer, restored).await;
    assert_eq!(clock["paused"], true);
    assert_eq!(times(&clock), times(&pause), "no time lost across SIGKILL");

    // The arbiter resumes: White's clock runs into byo-yomi; the board is killed 1.5 s into
    // White's first period and comes back 3 s later.
    command(&consumer, "r1", "resume").await;
    let in_byoyomi = consumer
        .wait_until(Duration::from_secs(20), |s| {
            s.events
                .range(restored + 1..)
                .any(|(_, e)| e["type"] == "clock" && e["paused"] == false)
                && s.events.values().any(|e| {
                    e["type"] == "byoyomi" && e["color"] == "W" && e["call"] == "minute_used"
                })
        })
        .await;
    assert!(in_byoyomi, "White never reached byo-yomi");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    process.kill();
    tokio::time::sleep(Duration::from_millis(3000)).await;
    process.restart();
    let last = consumer.with(|s| s.max_seq());
    let (_, clock) = back(&consumer, restored.max(last.saturating_sub(20))).await;
    assert_eq!(clock["paused"], true);
    // Back up and paused for a while: nothing runs, nothing is called.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    command(&consumer, "r2", "resume").await;
    let flagged = consumer
        .wait_until(Duration::from_secs(20), |s| {
            s.events
                .values()
                .any(|e| e["type"] == "alert" && e["code"] == "time_expired")
        })
        .await;
    assert!(flagged, "White's flag never fell");
    assert_eq!(process.terminate(), 0);

    // Exactly, on the journal's times.
    let (journal, _) = Journal::open(&process.data(), BOARD).unwrap();
    let all = journal.read_from(1).unwrap();
    let restarts: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            matches!(
                e.event,
                Event::Status {
                    state: BoardState::Restoring,
                    ..
                }
            )
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(restarts.len(), 3);
    let kill = *restarts.last().unwrap();
    let Event::Status {
        off_since: Some(off_since),
        ..
    } = all[kill].event
    else {
        panic!("restoring without off_since: {:?}", all[kill]);
    };
    // What the clocks read when the board went down, folding what it had journaled...
    let mut before = GameView::new();
    for e in all[..kill].iter().filter(|e| e.seq >= 1) {
        let _ = before.apply_envelope(e);
    }
    let at_kill = before.clocks_at(off_since).expect("clocks");
    assert_eq!(at_kill.running, Some(Color::White));
    assert!(at_kill.periods.white < 3, "in byo-yomi: {at_kill:?}");
    // ...is what it came back with, paused; downtime charged to nobody.
    let restart_clock: ClockReading = all[kill..]
        .iter()
        .find_map(|e| match &e.event {
            Event::Clock(r) => Some(*r),
            _ => None,
        })
        .expect("the restart's clock");
    assert_eq!(restart_clock.paused, Some(true));
    assert_eq!(
        (
            restart_clock.black,
            restart_clock.white,
            restart_clock.periods.white
        ),
        (at_kill.black, at_kill.white, at_kill.periods.white)
    );
    let downtime = all[kill].time.since(off_since);
    assert!(downtime >= 3000, "off for {downtime} ms");
    // The last sign of life was at most the alive file's 2 s before the kill, so White had
    // lost at most that of the 1.5 s it thought before it: some of the period is left.
    assert!(at_kill.white > 0 && at_kill.white <= 3000, "{at_kill:?}");
    // After the resume, the flag falls when White's time left and periods say.
    let resume = all[kill..]
        .iter()
        .find(|e| matches!(&e.event, Event::Clock(r) if r.paused == Some(false)))
        .expect("the resume");
    assert!(all[kill..].iter().any(
        |e| matches!(&e.event, Event::AlertCleared { .. }) && e.by.as_deref() == Some("chief")
    ));
    let flag = all[kill..]
        .iter()
        .find(|e| matches!(&e.event, Event::Alert(a) if a.code == AlertCode::TimeExpired))
        .expect("the flag");
    let expect = u64::from(at_kill.periods.white - 1) * 3000 + at_kill.white;
    let took = flag.time.since(resume.time);
    assert!(
        took >= expect && took <= expect + 50,
        "flag {took} ms after the resume, {expect} ms of time left"
    );
    consumer.stop();
}

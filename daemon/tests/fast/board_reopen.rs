//! Undoing a decision on a real board (issues 20 and 21): a `tengen run` board on the sim
//! backend, a real mosquitto, the arbiter's signed commands. A game resigned by mistake is
//! reopened (`game_reopened`), survives a restart of the board as reopened, and ends again
//! with the result the arbiter records: the retained `sgf` and `state` carry the new
//! result. Every field is checked where it comes in: an `adjust_time` beyond what a clock
//! shows is refused on one line; a place holding SGF's `]` and `\` reaches the record
//! escaped, and sgfmill reads it back as sent. The board logs each command it carries out
//! or refuses, in words, on one line.

use crate::board::{self, BoardProcess, Consumer, ROOT};
use crate::broker::{Mosquitto, Subscriber};
use crate::signed::{ask, ask_until, error, now_ms, sign_commands, signed, wait_up};

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

const WAIT: Duration = Duration::from_secs(20);
/// Names and a place holding what SGF must escape.
const BLACK: &str = r"Lee ]Sedol\";
const PLACE: &str = r"Salle ]B[ \ 2";

/// The service tests' board on an empty sim board (no stone is ever set down), taking
/// only signed commands.
fn config(dir: &Path, broker_url: &str) -> std::path::PathBuf {
    let path = board::write_config(dir, broker_url, 1.0);
    std::fs::write(dir.join("idle.txt"), "size 9\nwait 60m\n").unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let sgf_line = text
        .lines()
        .find(|l| l.starts_with("sgf = "))
        .expect("the sim's game")
        .to_string();
    std::fs::write(&path, text.replace(&sgf_line, "script = \"idle.txt\"")).unwrap();
    sign_commands(&path);
    path
}

/// A signed command to the board, stamped now; its reply.
async fn send(sub: &mut Subscriber, id: &str, body: Value) -> Value {
    let mut body = body;
    body["id"] = json!(id);
    body["by"] = json!("chief");
    let payload = signed(body, "faults", board::BOARD, now_ms());
    ask(sub, ROOT, id, &payload).await
}

async fn done(sub: &mut Subscriber, id: &str, body: Value) {
    let r = send(sub, id, body.clone()).await;
    assert_eq!(r, json!({"id": id, "ok": true}), "{body}");
}

/// The latest retained payload on `topic` as text.
fn latest(consumer: &Consumer, topic: &str) -> String {
    consumer.with(|s| {
        s.latest
            .get(topic)
            .map(|(_, p)| String::from_utf8_lossy(p).into_owned())
            .unwrap_or_default()
    })
}

/// Waits until the retained `topic` satisfies `f`.
async fn wait_latest(consumer: &Consumer, topic: &str, what: &str, f: impl Fn(&str) -> bool) {
    let ok = consumer
        .wait_until(WAIT, |s| {
            s.latest
                .get(topic)
                .is_some_and(|(_, p)| f(&String::from_utf8_lossy(p)))
        })
        .await;
    assert!(ok, "{what}: {}", latest(consumer, topic));
}

/// The first event of `kind` after `seq`, waited for.
async fn event_after(consumer: &Consumer, seq: u64, kind: &str) -> Value {
    let found = |s: &crate::board::Seen| {
        s.events
            .range(seq + 1..)
            .map(|(_, e)| e)
            .find(|e| e["type"] == kind)
            .cloned()
    };
    assert!(
        consumer.wait_until(WAIT, |s| found(s).is_some()).await,
        "no {kind} after seq {seq}"
    );
    consumer.with(found).unwrap()
}

/// What sgfmill reads from an SGF record's root: `PB`, `PC`, `RE`. `None` when python3
/// with sgfmill is missing (and not required).
fn sgfmill_root(sgf: &str) -> Option<Value> {
    let present = Command::new("python3")
        .args(["-c", "import sgfmill"])
        .status()
        .is_ok_and(|s| s.success());
    if !present {
        assert!(
            !crate::broker::oracles_required(),
            "python3 with sgfmill is required (TENGEN_REQUIRE_ORACLES=1)"
        );
        eprintln!("note: python3/sgfmill missing, the record is not read back by it");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.sgf");
    std::fs::write(&file, sgf).unwrap();
    let script = "import json, sys\nfrom sgfmill import sgf\n\
                  root = sgf.Sgf_game.from_bytes(open(sys.argv[1], 'rb').read()).get_root()\n\
                  get = lambda p: root.get(p) if root.has_property(p) else None\n\
                  print(json.dumps({p: get(p) for p in ['PB', 'PW', 'PC', 'RE']}))\n";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(&file)
        .output()
        .expect("run sgfmill");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("sgfmill's JSON"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_resigned_by_mistake_is_reopened_across_a_restart_and_ends_with_the_new_result() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), &broker.url());
    let log = dir.path().join("tengen.log");
    let mut process = BoardProcess::start_logged(&config, &log);
    let consumer = Consumer::connect(broker.port(), "reopen-watcher").await;
    let mut sub = Subscriber::connect(
        &broker.url(),
        "reopen-arbiter",
        &[&format!("{ROOT}/cmd/reply")],
    )
    .await;
    wait_up(&mut sub, ROOT, "probe-1").await;

    // The round's game, its place and names holding `]` and `\`; play begins.
    done(
        &mut sub,
        "r-1",
        json!({"type": "new_game", "game": "r1-t1", "black": BLACK, "white": "Gao",
               "place": PLACE, "round": "1", "table": "1"}),
    )
    .await;
    done(&mut sub, "r-2", json!({"type": "resume"})).await;
    wait_latest(&consumer, "sgf", "the new game's record", |t| {
        t.contains("GN[r1-t1]")
    })
    .await;
    let record = latest(&consumer, "sgf");
    assert!(record.contains(r"PC[Salle \]B[ \\ 2]"), "{record}");
    let back = tengen_rules::sgf::parse(&record).unwrap();
    assert_eq!(back.black_name.as_deref(), Some(BLACK));
    if let Some(root) = sgfmill_root(&record) {
        assert_eq!(root["PB"], BLACK, "{root}");
        assert_eq!(root["PC"], PLACE, "{root}");
    }

    // A time beyond any clock is refused on one line; the largest one is taken.
    let r = send(
        &mut sub,
        "r-3",
        json!({"type": "adjust_time", "color": "W", "ms": u64::MAX}),
    )
    .await;
    assert_eq!(
        error(&r),
        "field \"ms\" is 18446744073709551615 ms; a clock shows at most 99:59:59 (359999000 ms)"
    );
    let r = send(
        &mut sub,
        "r-4",
        json!({"type": "adjust_time", "color": "W", "ms": 60_000, "periods": 100}),
    )
    .await;
    assert_eq!(
        error(&r),
        "field \"periods\" is 100; at most 99 are allowed"
    );
    done(
        &mut sub,
        "r-5",
        json!({"type": "adjust_time", "color": "W", "ms": 359_999_000, "periods": 99}),
    )
    .await;

    // Black resigns by mistake.
    let before = consumer.with(|s| s.max_seq());
    done(&mut sub, "r-6", json!({"type": "resign", "color": "B"})).await;
    let over = event_after(&consumer, before, "game_over").await;
    assert_eq!(over["result"], "W+R");
    wait_latest(&consumer, "sgf", "RE[W+R]", |t| t.contains("RE[W+R]")).await;
    let r = send(
        &mut sub,
        "r-7",
        json!({"type": "withdraw_warning", "color": "B"}),
    )
    .await;
    assert_eq!(
        error(&r),
        "the game is over: reopen it first, then withdraw the warning"
    );

    // Reopened: no result anywhere, clocks paused.
    let before = consumer.with(|s| s.max_seq());
    done(
        &mut sub,
        "r-8",
        json!({"type": "reopen", "reason": "Black resigned by mistake"}),
    )
    .await;
    let reopened = event_after(&consumer, before, "game_reopened").await;
    assert_eq!(
        (
            &reopened["previous_result"],
            &reopened["reason"],
            &reopened["phase"],
            &reopened["by"]
        ),
        (
            &json!("W+R"),
            &json!("Black resigned by mistake"),
            &json!("playing"),
            &json!("chief")
        )
    );
    wait_latest(&consumer, "sgf", "the record without a result", |t| {
        t.contains("GN[r1-t1]") && !t.contains("RE[")
    })
    .await;
    wait_latest(&consumer, "state", "a reopened state", |t| {
        serde_json::from_str::<Value>(t).is_ok_and(|s| {
            s["phase"] == "playing" && s["result"].is_null() && s["clocks"]["paused"] == true
        })
    })
    .await;

    // The board goes down and comes back: still the reopened game, no result.
    assert_eq!(process.terminate(), 0);
    process.restart();
    let restarted = consumer.with(|s| s.max_seq());
    let status = event_after(&consumer, restarted, "status").await;
    assert_eq!(status["state"], "restoring");
    wait_latest(
        &consumer,
        "state",
        "the reopened game after the restart",
        |t| {
            serde_json::from_str::<Value>(t).is_ok_and(|s| {
                s["seq"].as_u64() > Some(restarted)
                    && s["phase"] == "playing"
                    && s["result"].is_null()
                    && s["game_id"] == "r1-t1"
            })
        },
    )
    .await;

    // The arbiter records the result the game really had: it stands everywhere.
    let r = ask_until(
        &mut sub,
        ROOT,
        "r-9",
        &signed(
            json!({"id": "r-9", "by": "chief", "type": "set_result", "result": "W+T",
                   "reason": "time"}),
            "faults",
            board::BOARD,
            now_ms(),
        ),
        |r| r["ok"] == true,
    )
    .await;
    assert_eq!(r, json!({"id": "r-9", "ok": true}));
    let over = event_after(&consumer, restarted, "game_over").await;
    assert_eq!(
        (&over["result"], &over["reason"]),
        (&json!("W+T"), &json!("time"))
    );
    wait_latest(&consumer, "sgf", "RE[W+T]", |t| {
        t.contains("RE[W+T]") && !t.contains("W+R")
    })
    .await;
    let record = latest(&consumer, "sgf");
    assert_eq!(
        tengen_rules::sgf::parse(&record).unwrap().result.as_deref(),
        Some("W+T")
    );
    if let Some(root) = sgfmill_root(&record) {
        assert_eq!(root["RE"], "W+T", "{root}");
    }
    wait_latest(&consumer, "state", "the new result", |t| {
        serde_json::from_str::<Value>(t).is_ok_and(|s| s["result"] == "W+T")
    })
    .await;
    process.assert_running();
    assert_eq!(process.terminate(), 0);

    // One line per command carried out or refused, in words.
    let logged = process.log();
    for line in [
        "command r-2 from chief: resume - done",
        "command r-5 from chief: adjust_time W to 99:59:59, 99 periods - done",
        "command r-6 from chief: resign B - done",
        "command r-7 from chief: withdraw_warning B - refused: the game is over: reopen it first, then withdraw the warning",
        "command r-8 from chief: reopen: \"Black resigned by mistake\" - done",
        "command r-9 from chief: set_result W+T (time) - done",
    ] {
        assert!(logged.contains(line), "{line} not in the log:\n{logged}");
    }
    sub.stop();
    consumer.stop();
}

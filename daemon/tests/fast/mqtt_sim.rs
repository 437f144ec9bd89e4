//! `tengen sim --broker URL` against a real mosquitto: every event of a simulated game
//! reaches a subscriber in order, identical to `--events`, and the retained `sgf` is the
//! recorded game. With `TENGEN_REQUIRE_ORACLES=1` a missing mosquitto fails the test.

use crate::broker;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use broker::{Mosquitto, SubEvent, Subscriber};

fn tengen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sim_publishes_every_event_and_waits_for_acks() {
    let Some(m) = Mosquitto::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/even9_a.sgf");
    let events_out = dir.path().join("events.jsonl");
    let sgf_out = dir.path().join("game.sgf");
    let mut sub = Subscriber::connect(&m.url(), "viewer-sim", &["tengen/#"]).await;

    let out = tokio::task::spawn_blocking({
        let (url, events_out, sgf_out) = (m.url(), events_out.clone(), sgf_out.clone());
        move || {
            tengen()
                .args(["sim", "--seed", "3", "--sgf"])
                .arg(&game)
                .arg("--events")
                .arg(&events_out)
                .arg("--sgf-out")
                .arg(&sgf_out)
                .args(["--broker", &url])
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "tengen sim failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&events_out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() > 20, "a whole game has many events");
    let board = lines[0]["board"].as_str().unwrap().to_string();

    // The process exited only after the broker acknowledged everything, so it is all there.
    let mut got = Vec::new();
    let mut sgf = None;
    while got.len() < lines.len() || sgf.is_none() {
        let Some(SubEvent::Msg(msg)) = sub.next_event(Duration::from_secs(10)).await else {
            panic!("only {} of {} events arrived", got.len(), lines.len());
        };
        if msg.topic.ends_with(&format!("/{board}/events")) {
            got.push(msg.json());
        } else if msg.topic.ends_with(&format!("/{board}/sgf")) {
            sgf = Some(msg.payload);
        }
    }
    assert_eq!(got, lines);
    assert_eq!(sgf.unwrap(), std::fs::read(&sgf_out).unwrap());
    sub.stop();
}

#[test]
fn sim_refuses_a_bad_broker_url() {
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/tests/fixtures/even9_a.sgf");
    let dir = tempfile::tempdir().unwrap();
    let out = tengen()
        .args(["sim", "--sgf"])
        .arg(&game)
        .arg("--events")
        .arg(dir.path().join("e.jsonl"))
        .args(["--broker", "tcp://127.0.0.1:1883"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--broker") && err.contains("tcp://127.0.0.1:1883"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

//! `[analysis]` with GNU Go as the engine (a real engine over GTP) and a real mosquitto: a
//! board's game fed to a hall with `[broadcast] delay_moves = 3`; estimates appear for the
//! positions the public has seen and for none of the last three moves; the engine killed
//! mid-game is started again and the estimates go on, and so is one that hangs past its
//! budget. GNU Go missing is a skip, or a
//! failure under `TENGEN_REQUIRE_ORACLES=1`.
//!
//! KataGo's dialect (`kata-analyze`, a visit budget) through the same route, with a
//! STAND-IN for KataGo (hall/tests/fixtures/katago_standin.py: a Python script answering
//! `kata-analyze` in KataGo's documented format, with values computed from the position;
//! not KataGo, which is not installable here).

use crate::broker;
use crate::http;

use std::path::{Path, PathBuf};
use std::time::Duration;

use broker::{board_envelope as env, oracles_required, Mosquitto, Subscriber};
use http::{get, wait_for, Resp};
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_hall::HallConfig;
use tengen_protocol::event::{Envelope, Event, GameSetup};
use tengen_rules::Point;

/// Marks the test's engine among the processes (GNU Go's `--seed` changes nothing here).
const MARK: &str = "--seed 271828";

/// A game without captures, long enough for the test.
const MOVES: [&str; 15] = [
    "Q16", "D4", "Q4", "D16", "C3", "D3", "C4", "D5", "R10", "K16", "F17", "C14", "P3", "O17", "R6",
];

/// GNU Go, where installed (`/usr/games/gnugo`, or `gnugo` on `PATH`); the GTP tests use
/// it too.
pub(crate) fn gnugo() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("gnugo"));
    let found = std::iter::once(PathBuf::from("/usr/games/gnugo"))
        .chain(on_path)
        .find(|p| p.is_file());
    assert!(
        found.is_some() || !oracles_required(),
        "gnugo is missing and TENGEN_REQUIRE_ORACLES=1: install gnugo"
    );
    if found.is_none() {
        eprintln!("skipped: gnugo is not installed");
    }
    found
}

/// The engines this test process started: children whose command line has [`MARK`].
fn engine_pids() -> Vec<u32> {
    let me = std::process::id();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // `pid (comm) state ppid ...`; comm may hold spaces, so read after the last ')'.
            let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
            let mut fields = after.split_whitespace();
            let state = fields.next();
            let ppid = fields.next().and_then(|p| p.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            ppid == Some(me) && state != Some("Z") && cmdline.contains(MARK)
        })
        .collect()
}

fn move_event(seq: u64) -> Envelope {
    move_at(seq, MOVES[seq as usize - 2])
}

/// Move `seq - 1` of board b1's game at `point` (Black's when odd).
fn move_at(seq: u64, point: &str) -> Envelope {
    env(
        "b1",
        seq,
        crate::broker::move_event((seq - 1) as u32, point),
    )
}

/// A hall on the config `text` that has heard of board `t/b1` (its retained status, so
/// the hall is subscribed and `api/analysis` answers).
async fn hall_hearing_b1(
    mosq: &Mosquitto,
    board: &Subscriber,
    text: &str,
) -> tengen_hall::RunningHall {
    let config = HallConfig::parse(text, Path::new("hall.toml")).expect("a valid config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let status = json!({"state": "online", "version": "0.1.0", "board": "b1"});
    publish(board, "tengen/t/b1/status", status.to_string(), true).await;
    wait_for("the board", || async {
        let r = get(addr, "/board/t/b1/api/analysis", &[]).await;
        (r.status == 200).then_some(())
    })
    .await;
    hall
}

async fn publish(board: &Subscriber, topic: &str, payload: String, retain: bool) {
    board
        .client
        .publish(topic, QoS::AtLeastOnce, retain, payload.into_bytes())
        .await
        .expect("publish");
}

async fn publish_event(board: &Subscriber, e: &Envelope) {
    let json = serde_json::to_string(e).expect("an event");
    publish(board, "tengen/t/b1/events", json, false).await;
}

/// The analysis of board b1, checked against the wire contract's form and against the public
/// position: no estimate of a position the public has not seen.
async fn analysis(addr: std::net::SocketAddr) -> Value {
    let r = get(addr, "/board/t/b1/api/analysis", &[]).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let state = get(addr, "/board/t/b1/api/state", &[]).await;
    let moves = v["moves"].as_array().expect("moves");
    if state.status != 200 {
        assert!(
            moves.is_empty(),
            "estimates without a public game: {v}; api/state: {} {}",
            state.status,
            state.text()
        );
    }
    let public = if state.status == 200 {
        state.json()["number"]
            .as_u64()
            .expect("the public move number")
    } else {
        0
    };
    for m in moves {
        let n = m["number"].as_u64().expect("number");
        assert!(
            n <= public,
            "an estimate of move {n}, the public is at {public}: {v}"
        );
        assert!(m["score_lead"].is_f64(), "{m}");
        let best = m["best"].as_array().expect("best");
        assert!(!best.is_empty() && best.len() <= 5, "{m}");
        for p in best {
            let p = p.as_str().expect("a point");
            assert!(Point::parse_gtp(p, 19).is_ok(), "not a 19x19 point: {p}");
        }
    }
    v
}

fn numbers(v: &Value) -> Vec<u64> {
    v["moves"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m["number"].as_u64()).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn gnugo_analyses_the_public_positions_only_and_survives_being_killed_or_hung() {
    let Some(engine) = gnugo() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let board = Subscriber::connect(&mosq.url(), "fake-board", &["tengen/t/b1/cmd"]).await;
    // The static copy of the public site gets the estimates too.
    let site = tempfile::tempdir().expect("temp dir");
    let text = format!(
        "[broadcast]\ndelay_moves = 3\nexport_dir = \"{}\"\n\n\
         [analysis]\ncommand = \"{} --mode gtp {MARK}\"\nbudget = \"2s\"\nlevel = 1\n",
        site.path().display(),
        engine.display()
    );
    let hall = hall_hearing_b1(&mosq, &board, &text).await;
    let addr = hall.addr;

    // A board heard of, no game yet: no estimate; a board never heard of: 404.
    let v = analysis(addr).await;
    assert_eq!(v["moves"], json!([]), "{v}");
    let r: Resp = get(addr, "/board/t/nope/api/analysis", &[]).await;
    assert_eq!(r.status, 404);
    assert!(r.text().contains("no such board"), "{}", r.text());

    // Ten moves: under the delay the public has seen seven, so positions 0..=7.
    let setup = GameSetup {
        black: "Black".into(),
        white: "White".into(),
        ..GameSetup::default()
    };
    publish_event(&board, &env("b1", 1, Event::GameStarted(setup))).await;
    for seq in 2..=11 {
        publish_event(&board, &move_event(seq)).await;
    }
    let v = wait_for("estimates of positions 0 to 7", || async {
        let v = analysis(addr).await;
        (numbers(&v) == (0..=7).collect::<Vec<u64>>()).then_some(v)
    })
    .await;
    assert!(
        v["engine"]
            .as_str()
            .is_some_and(|e| e.starts_with("GNU Go")),
        "{v}"
    );
    // The last three moves stay unanalysed (their positions are not public).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let v = analysis(addr).await;
    assert_eq!(numbers(&v), (0..=7).collect::<Vec<u64>>(), "{v}");
    // The static copy holds the same estimates.
    wait_for("the exported estimates", || async {
        let path = site.path().join("board/t/b1/api/analysis");
        let exported: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        (exported == analysis(addr).await).then_some(())
    })
    .await;
    // The arbiters' live page of the board has no analysis route.
    let live = get(addr, "/console/board/t/b1/api/analysis", &[]).await;
    assert_ne!(live.status, 200, "{}", live.text());

    // The engine killed mid-game: started again, and the estimates go on.
    let pids = engine_pids();
    assert_eq!(pids.len(), 1, "one engine: {pids:?}");
    let killed = pids[0];
    let rc = std::process::Command::new("kill")
        .args(["-KILL", &killed.to_string()])
        .status()
        .expect("kill");
    assert!(rc.success());
    for seq in 12..=15 {
        publish_event(&board, &move_event(seq)).await;
    }
    let v = wait_for("estimates of positions 0 to 11", || async {
        let v = analysis(addr).await;
        (numbers(&v) == (0..=11).collect::<Vec<u64>>()).then_some(v)
    })
    .await;
    let again = engine_pids();
    assert_eq!(again.len(), 1, "one engine again: {again:?}");
    assert_ne!(again[0], killed, "a new engine process");
    assert!(v["engine"]
        .as_str()
        .is_some_and(|e| e.starts_with("GNU Go")));

    // The engine hangs (stopped with SIGSTOP): past twice the budget (2 s) it is killed and
    // started again, and the position is analysed by the new one.
    let hung = again[0];
    let rc = std::process::Command::new("kill")
        .args(["-STOP", &hung.to_string()])
        .status()
        .expect("kill");
    assert!(rc.success());
    publish_event(&board, &move_event(16)).await;
    wait_for("the estimate of position 12", || async {
        let v = analysis(addr).await;
        (numbers(&v) == (0..=12).collect::<Vec<u64>>()).then_some(())
    })
    .await;
    let after = engine_pids();
    assert_eq!(after.len(), 1, "one engine again: {after:?}");
    assert_ne!(after[0], hung, "the hung engine was replaced");

    // Stopping the hall stops its engine.
    hall.stop();
    wait_for("the engine to stop", || async {
        engine_pids().is_empty().then_some(())
    })
    .await;

    // A hall without [analysis] says so.
    let plain = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &HallConfig::default())
        .await
        .expect("hall starts");
    let r = get(plain.addr, "/board/t/b1/api/analysis", &[]).await;
    assert_eq!(r.status, 404);
    assert!(r.text().contains("[analysis]"), "{}", r.text());
    plain.stop();
    board.stop();
}

#[tokio::test]
async fn kata_analyze_of_a_katago_standin_with_a_visit_budget() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let board = Subscriber::connect(&mosq.url(), "fake-board", &["tengen/t/b1/cmd"]).await;
    let standin = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../hall/tests/fixtures/katago_standin.py"
    );
    // 20 visits come after two lines (0.2 s), long before the 10 s budget.
    let text = format!(
        "[broadcast]\ndelay_moves = 1\n\n\
         [analysis]\ncommand = \"python3 {standin}\"\nbudget = \"10s\"\nvisits = 20\n"
    );
    let hall = hall_hearing_b1(&mosq, &board, &text).await;
    let addr = hall.addr;
    publish_event(
        &board,
        &env("b1", 1, Event::GameStarted(GameSetup::default())),
    )
    .await;
    // The last move stays behind the delay: positions 0 to 4 are public.
    let moves = ["B1", "A1", "D1", "Q16", "C1"];
    for (i, m) in moves.iter().enumerate() {
        publish_event(&board, &move_at(i as u64 + 2, m)).await;
    }
    let started = std::time::Instant::now();
    let v = wait_for("estimates of positions 0 to 4", || async {
        let v = analysis(addr).await;
        (numbers(&v) == [0, 1, 2, 3, 4]).then_some(v)
    })
    .await;
    let took = started.elapsed();
    assert_eq!(v["engine"], "tengen KataGo stand-in 1.0", "{v}");
    // The stand-in's lead for Black is (Black's stones - White's) - komi 7.5, written from
    // the side to move; the hall's is from Black's side whoever is to move. Its candidates
    // are the empty points from A1 on, written worst first with KataGo's `order`.
    let want = [
        (-7.5, ["A1", "B1", "C1", "D1", "E1"]),
        (-6.5, ["A1", "C1", "D1", "E1", "F1"]),
        (-7.5, ["C1", "D1", "E1", "F1", "G1"]),
        (-6.5, ["C1", "E1", "F1", "G1", "H1"]),
        (-7.5, ["C1", "E1", "F1", "G1", "H1"]),
    ];
    for (m, (lead, best)) in v["moves"].as_array().expect("moves").iter().zip(want) {
        assert_eq!(m["score_lead"], json!(lead), "{m}");
        assert_eq!(m["best"], json!(best), "{m}");
    }
    assert!(
        took < Duration::from_secs(8),
        "five positions stopped at 20 visits, not at 10 s each: {took:?}"
    );
    hall.stop();
    board.stop();
}

//! Starting a round of 250 tables from the hall, on the real path: the console's HTTP API,
//! the tournament link's plan, 250 signed `new_game` commands handed to the hall's MQTT
//! client, against a real mosquitto. Baseline, alternated in the same run: the same 250
//! `new_game` commands sent one by one through `POST /api/console/command`, as an arbiter
//! (or a script) had to before *Start round*.
//!
//! The tournament is a generated OpenGotha file of 500 players (the tournament crate's
//! test generator), round 3; 250 boards `hall1-001`.. are published as a board would
//! (retained `status` and `state`). Each *Start round* is forced (the boards are already
//! set up by the previous iteration). What is timed ends when the hall answers, i.e. when
//! every command is in the MQTT client's queue (QoS 1; the broker's acks come later).
//!
//! `cargo bench -p tengen-daemon --bench round_start` (needs /usr/sbin/mosquitto).

#[path = "../tests/support/broker.rs"]
mod broker;
#[path = "../../tournament/tests/support/generate.rs"]
mod generate;
#[path = "../tests/support/http.rs"]
mod http;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use rumqttc::QoS;
use serde_json::{json, Value};

const TABLES: u32 = 250;
const TOKEN: &str = "bench-token-0123";

struct Setup {
    _mosquitto: broker::Mosquitto,
    _dir: tempfile::TempDir,
    addr: SocketAddr,
    cookie: String,
    /// The round's `new_game` bodies, one per table, as *Start round* sends them.
    bodies: Vec<Value>,
    _hall: tengen_hall::RunningHall,
}

async fn setup() -> Option<Setup> {
    let mosquitto = broker::Mosquitto::start()?;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("t.xml"),
        generate::tournament(2 * TABLES as usize, TABLES as usize, 3),
    )
    .expect("tournament file");
    std::fs::write(
        dir.path().join("hall.toml"),
        format!(
            "[tournament]\nfile = \"t.xml\"\nboards = \"hall1-{{table:03}}\"\nid = \"cup\"\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
        ),
    )
    .expect("hall.toml");
    let config = tengen_hall::HallConfig::load(&dir.path().join("hall.toml")).expect("hall config");
    let hall = tengen_hall::start(&mosquitto.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall");
    let boards = broker::Subscriber::connect(&mosquitto.url(), "bench-boards", &["none"]).await;
    for t in 1..=TABLES {
        let root = format!("tengen/cup/hall1-{t:03}");
        for (leaf, payload) in [
            ("status", json!({"state": "online"})),
            (
                "state",
                json!({"game_id": "game-1", "phase": "playing", "number": 0}),
            ),
        ] {
            boards
                .client
                .publish(
                    format!("{root}/{leaf}"),
                    QoS::AtLeastOnce,
                    true,
                    payload.to_string(),
                )
                .await
                .expect("publish");
        }
    }
    let addr = hall.addr;
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let login = format!("name=chief&password={TOKEN}");
    let r = http::request(
        addr,
        "POST",
        "/console/login",
        &[form, ("Origin", "http://test")],
        login.as_bytes(),
        None,
    )
    .await;
    let cookie = r
        .header("set-cookie")
        .and_then(|c| c.split(';').next().map(str::to_string))
        .expect("a session");
    // Wait until the hall knows every board.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let r = http::get(addr, "/api/boards", &[]).await;
        if r.json().as_array().map_or(0, Vec::len) == TABLES as usize {
            break;
        }
        assert!(Instant::now() < deadline, "the hall did not see the boards");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The baseline's bodies: what Start round sends, read from the round's plan.
    let auth = ("Cookie", cookie.as_str());
    let view = http::get(addr, "/api/console/round/3", &[auth])
        .await
        .json();
    let bodies = view["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .map(|t| {
            json!({
                "tournament": "cup", "board": t["board"], "type": "new_game",
                "game": t["game"], "black": t["black"], "white": t["white"],
                "black_rank": t["black_rank"], "white_rank": t["white_rank"],
                "round": "3", "table": t["table"].to_string(), "komi": t["komi"],
            })
        })
        .collect();
    Some(Setup {
        _mosquitto: mosquitto,
        _dir: dir,
        addr,
        cookie,
        bodies,
        _hall: hall,
    })
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let Some(s) = rt.block_on(setup()) else {
        eprintln!("round_start: mosquitto is not installed; nothing measured");
        return;
    };
    let json = ("Content-Type", "application/json");
    let auth = ("Cookie", s.cookie.as_str());
    let mut g = c.benchmark_group("round start, 250 tables");
    g.sample_size(20);
    g.bench_function("Start round (one request)", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let r = http::request(
                        s.addr,
                        "POST",
                        "/api/console/round/3/start",
                        &[json, auth, ("Origin", "http://test")],
                        br#"{"force":true}"#,
                        None,
                    )
                    .await;
                    let sent = r.json()["sent"].as_array().map_or(0, Vec::len);
                    assert_eq!(sent, TABLES as usize, "{}", r.text());
                }
                start.elapsed()
            })
        });
    });
    g.bench_function("baseline: 250 console commands, one by one", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    for body in &s.bodies {
                        let r = http::request(
                            s.addr,
                            "POST",
                            "/api/console/command",
                            &[json, auth, ("Origin", "http://test")],
                            body.to_string().as_bytes(),
                            None,
                        )
                        .await;
                        assert_eq!(r.status, 202, "{}", r.text());
                    }
                }
                start.elapsed()
            })
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

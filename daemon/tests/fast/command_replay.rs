//! Signed commands cannot be replayed (issue 15, finding 1), and `republish` cannot be
//! flooded (finding 11), on real boards and a real mosquitto: a command signed for one
//! board is refused by another, so is one out of its time window or for another
//! tournament, and one taken before a restart of the real `tengen run` is refused after it
//! (with its ids file, as a replay; without it, as issued before the start).

use crate::board::{self, BoardProcess};
use crate::broker::{Mosquitto, Subscriber};
use crate::http::{get, request, wait_for};
use crate::signed::{ask, ask_until, error, now_ms, sign_commands, signed, wait_up, KEY};

use std::path::Path;
use std::time::Duration;

use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_daemon::config::{Config, MqttUrl};
use tengen_daemon::journal::Journal;
use tengen_daemon::service::links::{start_links, LinkOptions, Links, ServiceEnds};
use tengen_daemon::service::outputs::Outputs;
use tengen_daemon::service::scan_loop::Request;
use tengen_protocol::signing::{sign, DEFAULT_WINDOW_MS};
use tengen_protocol::{CommandEnvelope, Timestamp};
use tokio::sync::mpsc::UnboundedReceiver;

const WAIT: Duration = Duration::from_secs(15);

/// A board `id` of tournament `t1` on `broker`, keeping its journal in `dir`, taking only
/// commands signed with [`KEY`] (when `signed`).
fn config(broker: &Mosquitto, dir: &Path, id: &str, signed: bool) -> Config {
    let mut config = Config::default_for(id);
    config.board.tournament = "t1".into();
    config.mqtt.url = MqttUrl::Broker {
        tls: false,
        host: "127.0.0.1".into(),
        port: broker.port(),
    };
    if signed {
        let key_file = dir.join("command.key");
        std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
        config.mqtt.command_key_file = Some(key_file);
    }
    config.storage.dir = dir.to_path_buf();
    config.http.listen = "127.0.0.1:0".parse().unwrap();
    config
}

/// Starts the board's MQTT side with a stand-in for the scan loop that says yes to every
/// command and hands it to the test.
async fn start(config: &Config) -> (Links, UnboundedReceiver<CommandEnvelope>) {
    let (journal, _) = Journal::open(&config.storage.dir, &config.board.id).unwrap();
    let (tx, mut service) = tokio::sync::mpsc::channel::<Request>(8);
    let ends = ServiceEnds {
        journal: journal.reader(),
        outputs: Outputs::new(),
        commands: tx,
    };
    let links = start_links(config, ends, &LinkOptions::default())
        .await
        .unwrap();
    let (taken_tx, taken) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(req) = service.recv().await {
            let _ = taken_tx.send(req.command.clone());
            let _ = req.reply.send(tengen_protocol::Answer::Done);
        }
    });
    (links, taken)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_signed_for_one_board_is_refused_by_another_and_out_of_its_scope() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (b1, mut taken1) = start(&config(&broker, d1.path(), "b1", true)).await;
    let (b2, mut taken2) = start(&config(&broker, d2.path(), "b2", true)).await;
    let mut sub = Subscriber::connect(
        &broker.url(),
        "someone-who-saw-a-command",
        &["tengen/t1/+/cmd/reply"],
    )
    .await;
    let (r1, r2) = ("tengen/t1/b1", "tengen/t1/b2");

    // The arbiter's resign for b1, taken by b1...
    let resign = signed(
        json!({"id":"s-1","type":"resign","color":"B","by":"chief"}),
        "t1",
        "b1",
        now_ms(),
    );
    assert_eq!(
        ask(&mut sub, r1, "s-1", &resign).await,
        json!({"id":"s-1","ok":true})
    );
    // ... and replayed word for word on b2: refused there.
    let r = ask(&mut sub, r2, "s-1", &resign).await;
    assert_eq!(
        error(&r),
        "refused: the command is for board \"b1\", not this one"
    );

    // Out of the window either way, or for another tournament: refused on b1 too.
    let window = DEFAULT_WINDOW_MS;
    let pause = |id: &str| json!({"id": id, "type": "pause", "by": "chief"});
    let stale = signed(pause("s-2"), "t1", "b1", now_ms() - window - 10_000);
    let r = ask(&mut sub, r1, "s-2", &stale).await;
    assert!(
        error(&r).contains("ms ago, more than the 300000 ms the board accepts"),
        "{r}"
    );
    let future = signed(pause("s-3"), "t1", "b1", now_ms() + window + 10_000);
    let r = ask(&mut sub, r1, "s-3", &future).await;
    assert!(error(&r).contains("ahead of the board's clock"), "{r}");
    let other_cup = signed(pause("s-4"), "t2", "b1", now_ms());
    let r = ask(&mut sub, r1, "s-4", &other_cup).await;
    assert_eq!(
        error(&r),
        "refused: the command is for tournament \"t2\", not this board's"
    );
    // Signed the old way (no stamp): refused.
    let Value::Object(mut old) = pause("s-5") else {
        unreachable!()
    };
    sign(KEY.as_bytes(), &mut old);
    let r = ask(&mut sub, r1, "s-5", &Value::Object(old).to_string()).await;
    assert!(error(&r).contains("does not say which tournament"), "{r}");

    // Only the first command reached a service, and only b1's.
    let c = tokio::time::timeout(WAIT, taken1.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(c.id, "s-1");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        taken1.try_recv().is_err(),
        "nothing refused was carried out"
    );
    assert!(taken2.try_recv().is_err(), "b2 carried out nothing");
    sub.stop();
    b1.shutdown(WAIT).await.unwrap();
    b2.shutdown(WAIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hall_stamps_its_commands_for_each_board_and_a_signed_board_takes_them() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (b1, mut taken) = start(&config(&broker, dir.path(), "b1", true)).await;
    let hall_dir = tempfile::tempdir().unwrap();
    let token = "console-token-0123";
    let text = format!(
        "[hall]\nidentity = \"hall-desk\"\ncommand_key_file = \"{}\"\n\
         [[arbiter]]\nname = \"chief\"\ntoken = \"{token}\"\n",
        dir.path().join("command.key").display()
    );
    let hall_toml = hall_dir.path().join("hall.toml");
    std::fs::write(&hall_toml, &text).unwrap();
    let config = tengen_hall::HallConfig::parse(&text, &hall_toml).unwrap();
    let hall = tengen_hall::start(&broker.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    // The console's POSTs come from its own page (the hall checks Origin against Host).
    let origin = crate::http::TEST_ORIGIN;
    let cookie = crate::http::console_cookie(addr, "chief", token).await;
    let auth = ("Cookie", cookie.as_str());
    let json_ct = ("Content-Type", "application/json");
    let cmd = json!({"tournament": "t1", "board": "b1", "type": "pause"}).to_string();
    // The hall knows the board once its retained status has arrived.
    let id = wait_for("the hall to know b1", || async {
        let r = request(
            addr,
            "POST",
            "/api/console/command",
            &[auth, json_ct, origin],
            cmd.as_bytes(),
            None,
        )
        .await;
        (r.status == 202).then(|| r.json()["id"].as_str().unwrap().to_string())
    })
    .await;
    let c = tokio::time::timeout(WAIT, taken.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (c.id.as_str(), c.by.as_deref()),
        (id.as_str(), Some("chief"))
    );
    let status = wait_for("the board's reply", || async {
        let v = get(addr, "/api/console/commands", &[auth]).await.json();
        let s = v[0]["status"].as_str().unwrap_or_default().to_string();
        (s != "pending").then_some(s)
    })
    .await;
    assert_eq!(status, "acked");
    hall.stop();
    b1.shutdown(WAIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_republish_flood_is_answered_with_refusals_after_the_first() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (links, _taken) = start(&config(&broker, dir.path(), "b1", false)).await;
    let mut sub =
        Subscriber::connect(&broker.url(), "a-flooder", &["tengen/t1/b1/cmd/reply"]).await;
    let root = "tengen/t1/b1";
    let first = json!({"id":"f-0","type":"republish","from_seq":1}).to_string();
    assert_eq!(
        ask(&mut sub, root, "f-0", &first).await,
        json!({"id":"f-0","ok":true})
    );
    for i in 1..=20 {
        let flood = json!({"id": format!("f-{i}"), "type":"republish","from_seq":1});
        sub.client
            .publish(
                format!("{root}/cmd"),
                QoS::AtLeastOnce,
                false,
                flood.to_string(),
            )
            .await
            .unwrap();
    }
    let mut refused = 0;
    while refused < 20 {
        let Some(m) = sub.next_on(&format!("{root}/cmd/reply"), WAIT).await else {
            panic!("only {refused} of 20 replies");
        };
        let r = m.json();
        if r["id"] == "f-0" {
            continue;
        }
        assert!(
            error(&r).starts_with(
                "republish refused: this board resends its stream at most once every 10 s; \
                 ask again in "
            ),
            "{r}"
        );
        refused += 1;
    }
    sub.stop();
    links.shutdown(WAIT).await.unwrap();
}

#[test]
fn the_command_window_is_a_config_key() {
    let text = |w: &str| format!("[board]\nid = \"b1\"\n[mqtt]\ncommand_window = \"{w}\"\n");
    let c = Config::from_toml_str(&text("30s"), "board.toml").unwrap();
    assert_eq!(c.mqtt.command_window_ms, 30_000);
    let d = Config::from_toml_str("[board]\nid = \"b1\"\n", "board.toml").unwrap();
    assert_eq!(d.mqtt.command_window_ms, DEFAULT_WINDOW_MS);
    for bad in ["1s", "2h"] {
        let e = Config::from_toml_str(&text(bad), "board.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("mqtt.command_window") && e.contains("between 10s and 1h"),
            "{e}"
        );
    }
}

/// A `tengen run` config of the service tests' board, taking only signed commands.
fn signed_run_config(dir: &Path, broker_url: &str) -> std::path::PathBuf {
    let path = board::write_config(dir, broker_url, 1.0);
    sign_commands(&path);
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_taken_before_a_restart_of_tengen_run_is_refused_after_it() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = signed_run_config(dir.path(), &broker.url());
    let mut process = BoardProcess::start(&config);
    let root = board::ROOT;
    let mut sub = Subscriber::connect(
        &broker.url(),
        "someone-who-saw-a-command",
        &[&format!("{root}/cmd/reply")],
    )
    .await;
    // Signed once the board runs: a board that took no command before refuses what was
    // issued before its first start.
    wait_up(&mut sub, root, "probe-1").await;
    let (tournament, id) = ("faults", board::BOARD);
    let pause = signed(
        json!({"id":"before-restart","type":"pause","by":"chief"}),
        tournament,
        id,
        now_ms(),
    );
    let r = ask(&mut sub, root, "before-restart", &pause).await;
    assert_eq!(r, json!({"id":"before-restart","ok":true}));
    assert_eq!(process.terminate(), 0);
    let ids_file = process.data().join("command-ids");
    let kept = std::fs::read_to_string(&ids_file).unwrap();
    assert!(kept.contains("\"before-restart\""), "{kept}");

    // The same command word for word after the restart: a replay.
    process.restart();
    let r = ask_until(&mut sub, root, "before-restart", &pause, |r| {
        r["ok"] == false
    })
    .await;
    assert_eq!(
        error(&r),
        "refused: the command id \"before-restart\" was taken already (a replay)"
    );
    process.assert_running();
    assert_eq!(process.terminate(), 0);

    // Without the ids file the board still starts, and refuses what was issued before.
    std::fs::remove_file(&ids_file).unwrap();
    process.restart();
    let r = ask_until(&mut sub, root, "before-restart", &pause, |r| {
        r["ok"] == false
    })
    .await;
    assert!(error(&r).contains("issued before the board started"), "{r}");
    // A command issued now is taken.
    let resume = signed(
        json!({"id":"after-restart","type":"resume","by":"chief"}),
        tournament,
        id,
        now_ms(),
    );
    let r = ask(&mut sub, root, "after-restart", &resume).await;
    assert_eq!(r, json!({"id":"after-restart","ok":true}));
    process.assert_running();
    assert_eq!(process.terminate(), 0);

    // That start was written down: restarted again, the board still refuses what was
    // issued before it, and the command taken since is a replay.
    process.restart();
    let r = ask_until(&mut sub, root, "before-restart", &pause, |r| {
        r["ok"] == false
    })
    .await;
    assert!(error(&r).contains("issued before the board started"), "{r}");
    let r = ask_until(&mut sub, root, "after-restart", &resume, |r| {
        r["ok"] == false
    })
    .await;
    assert!(error(&r).contains("was taken already"), "{r}");
    assert_eq!(process.terminate(), 0);
    sub.stop();
}

/// Hall `identity` with its `hall.toml` in `dir`, on `broker`.
async fn hall_as(broker: &Mosquitto, dir: &Path, identity: &str) -> tengen_hall::RunningHall {
    let text = format!("[hall]\nidentity = \"{identity}\"\n");
    let file = dir.join(format!("{identity}.toml"));
    std::fs::write(&file, &text).unwrap();
    let config = tengen_hall::HallConfig::parse(&text, &file).unwrap();
    let hall = tengen_hall::start(&broker.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    wait_for("the board in the hall", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v[0]["status"] == "online").then_some(())
    })
    .await;
    hall
}

/// The `seq`s a hall's live feed of board `t1/b1` holds once it holds `last`, waiting up
/// to 30 s.
async fn feed_until(addr: std::net::SocketAddr, last: u64) -> Vec<u64> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let until = format!("id: {last}\n");
    loop {
        let sse = request(addr, "GET", "/board/t1/b1/events", &[], b"", Some(&until)).await;
        let got = crate::http::ids(&sse.text());
        if got.contains(&last) || tokio::time::Instant::now() > deadline {
            return got;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hall_refused_by_the_republish_limit_asks_again_and_gets_the_history() {
    use tengen_daemon::mqtt::outbox::AckFile;
    use tengen_protocol::event::GameSetup;
    use tengen_protocol::Event;
    use tengen_rules::{Color, Point};

    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // A game of four moves, all published before the halls came.
    let (mut journal, _) = Journal::open(dir.path(), "b1").unwrap();
    journal.set_game("g1");
    let time = Timestamp::now();
    let started = Event::GameStarted(GameSetup {
        black: "Black".into(),
        white: "White".into(),
        ..GameSetup::default()
    });
    journal.append(started, time).unwrap();
    let mv = |number: u32, point: &str| Event::Move {
        number,
        color: if number % 2 == 1 {
            Color::Black
        } else {
            Color::White
        },
        point: Point::parse_gtp(point, 19).unwrap(),
        captured: vec![],
        clock: None,
    };
    for (n, p) in [(1, "Q16"), (2, "D4"), (3, "Q4"), (4, "D16")] {
        journal.append(mv(n, p), time).unwrap();
    }
    AckFile::new(dir.path().join("mqtt-acked"))
        .store(5)
        .unwrap();
    let outputs = Outputs::new();
    let (tx, _service) = tokio::sync::mpsc::channel::<Request>(8);
    let ends = ServiceEnds {
        journal: journal.reader(),
        outputs: outputs.clone(),
        commands: tx,
    };
    let links = start_links(
        &config(&broker, dir.path(), "b1", false),
        ends,
        &LinkOptions::default(),
    )
    .await
    .unwrap();
    let mut replies =
        Subscriber::connect(&broker.url(), "a-watcher", &["tengen/t1/b1/cmd/reply"]).await;

    // Hall A sees move 5 without the history, asks, and gets it.
    let halls = tempfile::tempdir().unwrap();
    let a = hall_as(&broker, halls.path(), "hall-a").await;
    outputs.event(&journal.append(mv(5, "C3"), Timestamp::now()).unwrap());
    assert_eq!(feed_until(a.addr, 6).await, [1, 2, 3, 4, 5, 6]);

    // Hall B comes within 10 s and sees move 6: the board refuses its republish for now...
    let b = hall_as(&broker, halls.path(), "hall-b").await;
    outputs.event(&journal.append(mv(6, "R3"), Timestamp::now()).unwrap());
    let mut said = Vec::new();
    while !said.iter().any(|r: &Value| {
        r["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("republish refused"))
    }) {
        let m = replies
            .next_on("tengen/t1/b1/cmd/reply", WAIT)
            .await
            .expect("the board refuses hall B's republish");
        said.push(m.json());
    }
    // ... and hall B asks again once the board takes one, and holds the whole game.
    assert_eq!(feed_until(b.addr, 7).await, [1, 2, 3, 4, 5, 6, 7]);
    let ok_after_refusal = tokio::time::timeout(WAIT, async {
        loop {
            let r = replies
                .next_on("tengen/t1/b1/cmd/reply", WAIT)
                .await
                .map(|m| m.json());
            if r.as_ref().is_none_or(|r| r["ok"] == true) {
                return r;
            }
        }
    })
    .await;
    assert!(
        matches!(ok_after_refusal, Ok(Some(_))),
        "hall B's second request was taken"
    );
    a.stop();
    b.stop();
    replies.stop();
    links.shutdown(WAIT).await.unwrap();
}

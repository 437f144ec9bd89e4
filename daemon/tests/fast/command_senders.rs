//! Who may command a board, checked twice and independently: the hall broker's ACL
//! (`config/mosquitto/acl`, `tengen broker-config`'s output for eight boards, loaded into a
//! real mosquitto) lets only the hall at the arbiters' desk write `cmd`, and
//! the board itself (`mqtt.arbiters`, `mqtt.command_key_file`) refuses a command whose sender
//! is not an arbiter or whose signature is wrong, even when the broker lets it through.

use crate::broker;

use std::path::Path;
use std::process::Command as Process;
use std::time::Duration;

use broker::{Mosquitto, Subscriber};
use rumqttc::QoS;
use serde_json::{json, Map, Value};
use tengen_daemon::config::{Config, MqttUrl};
use tengen_daemon::journal::Journal;
use tengen_daemon::service::links::{start_links, LinkOptions, ServiceEnds};
use tengen_daemon::service::outputs::Outputs;
use tengen_daemon::service::scan_loop::Request;
use tengen_protocol::signing::{sign_for, Stamp};
use tengen_protocol::Command;
use tengen_protocol::Timestamp;

const WAIT: Duration = Duration::from_secs(15);
/// How long "nothing arrives" is watched for.
const QUIET: Duration = Duration::from_millis(1500);
const PASSWD: &str = "/usr/bin/mosquitto_passwd";

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("test commands are objects"),
    }
}

/// mosquitto with the repository's ACL and a password file for `users` (password = user
/// name + "-pw").
fn hall_broker(users: &[&str]) -> Option<(Mosquitto, tempfile::TempDir)> {
    if !Path::new(PASSWD).exists() {
        assert!(
            !broker::oracles_required(),
            "{PASSWD} is missing and TENGEN_REQUIRE_ORACLES=1: install mosquitto"
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let passwd = dir.path().join("passwd");
    std::fs::write(&passwd, "").unwrap();
    for user in users {
        let status = Process::new(PASSWD)
            .arg("-b")
            .arg(&passwd)
            .arg(user)
            .arg(format!("{user}-pw"))
            .status()
            .unwrap();
        assert!(status.success(), "mosquitto_passwd {user}");
    }
    let acl = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/mosquitto/acl");
    let broker = Mosquitto::start_with(&format!(
        "password_file {}\nacl_file {}\n",
        passwd.display(),
        acl.display()
    ))?;
    Some((broker, dir))
}

/// Waits `QUIET` and returns every message that arrived meanwhile.
async fn drain(sub: &mut Subscriber) -> Vec<broker::Msg> {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + QUIET;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match sub.next_event(left).await {
            Some(broker::SubEvent::Msg(m)) => got.push(m),
            Some(_) => {}
            None => return got,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broker_acl_lets_only_arbiters_write_commands_and_boards_only_their_own_topics() {
    let Some((broker, _passwords)) =
        hall_broker(&["hall1-07", "hall1-08", "viewer", "hall-desk", "hall"])
    else {
        return;
    };
    let url = broker.url();
    let cmd = "tengen/open-2026/hall1-07/cmd";
    let events = "tengen/open-2026/hall1-07/events";
    let mut board = Subscriber::connect_as(&url, "hall1-07", "hall1-07-pw", &[cmd]).await;
    let mut hall = Subscriber::connect_as(&url, "hall", "hall-pw", &["tengen/#"]).await;
    let viewer =
        Subscriber::connect_as(&url, "viewer", "viewer-pw", &["public/open-2026/+/events"]).await;
    let other_board = Subscriber::connect_as(
        &url,
        "hall1-08",
        "hall1-08-pw",
        &["tengen/open-2026/hall1-08/cmd"],
    )
    .await;
    let arbiter = Subscriber::connect_as(
        &url,
        "hall-desk",
        "hall-desk-pw",
        &["tengen/open-2026/hall1-07/cmd/reply"],
    )
    .await;

    // Commands from a viewer and from another board are dropped by the broker; the arbiter's
    // arrives.
    for (client, id) in [(&viewer, "from-viewer"), (&other_board, "from-board")] {
        client
            .client
            .publish(
                cmd,
                QoS::AtLeastOnce,
                false,
                json!({"id": id, "type": "pause"}).to_string(),
            )
            .await
            .unwrap();
    }
    arbiter
        .client
        .publish(
            cmd,
            QoS::AtLeastOnce,
            false,
            json!({"id": "from-arbiter", "type": "pause", "by": "chief"}).to_string(),
        )
        .await
        .unwrap();
    let got = drain(&mut board).await;
    let ids: Vec<Value> = got
        .iter()
        .filter(|m| m.topic == cmd)
        .map(|m| m.json()["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [json!("from-arbiter")],
        "only the arbiter's command reaches the board"
    );

    // A board writes its own events; another board cannot write them.
    other_board
        .client
        .publish(
            events,
            QoS::AtLeastOnce,
            false,
            r#"{"seq":1,"forged":true}"#,
        )
        .await
        .unwrap();
    board
        .client
        .publish(events, QoS::AtLeastOnce, false, r#"{"seq":1}"#)
        .await
        .unwrap();
    let got = drain(&mut hall).await;
    let on_events: Vec<Value> = got
        .iter()
        .filter(|m| m.topic == events)
        .map(|m| m.json())
        .collect();
    assert_eq!(
        on_events,
        [json!({"seq": 1})],
        "the forged event never arrives"
    );
    for s in [board, hall, viewer, other_board, arbiter] {
        s.stop();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_refuses_commands_from_anyone_but_its_signed_arbiters() {
    // The broker lets anyone write `cmd` here (no ACL): the board's own check is the only one.
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let key = "a-secret-of-the-hall-0123456789";
    let key_file = dir.path().join("command.key");
    std::fs::write(&key_file, format!("{key}\n")).unwrap();
    let mut config = Config::default_for("b1");
    config.board.tournament = "t1".into();
    config.mqtt.url = MqttUrl::Broker {
        tls: false,
        host: "127.0.0.1".into(),
        port: broker.port(),
    };
    config.mqtt.arbiters = vec!["chief".into(), "deputy".into()];
    config.mqtt.command_key_file = Some(key_file);
    config.storage.dir = dir.path().to_path_buf();
    config.http.listen = "127.0.0.1:0".parse().unwrap();

    let (journal, _) = Journal::open(dir.path(), "b1").unwrap();
    let (tx, mut service) = tokio::sync::mpsc::channel::<Request>(8);
    let ends = ServiceEnds {
        journal: journal.reader(),
        outputs: Outputs::new(),
        commands: tx,
    };
    let links = start_links(&config, ends, &LinkOptions::default())
        .await
        .unwrap();
    // The scan loop's side: take every command that gets through and say yes.
    let (taken_tx, mut taken) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(req) = service.recv().await {
            let _ = taken_tx.send(req.command.clone());
            let _ = req.reply.send(tengen_protocol::Answer::Done);
        }
    });

    let mut sub = Subscriber::connect(
        &broker.url(),
        "someone-on-the-hall-wifi",
        &["tengen/t1/b1/cmd/reply"],
    )
    .await;
    let mut ask = async |payload: String| -> Value {
        // The board subscribes to `cmd` once connected; until then a command is lost, so it
        // is sent again until a reply comes (the ids are fresh each test run).
        for _ in 0..50 {
            sub.client
                .publish("tengen/t1/b1/cmd", QoS::AtLeastOnce, false, payload.clone())
                .await
                .unwrap();
            if let Some(m) = sub
                .next_on("tengen/t1/b1/cmd/reply", Duration::from_millis(300))
                .await
            {
                return m.json();
            }
        }
        panic!("no reply to {payload}");
    };
    let signed = |body: Value, with: &str| {
        let mut c = object(body);
        let stamp = Stamp::new("t1", "b1", Timestamp::now().millis());
        sign_for(with.as_bytes(), &stamp, &mut c);
        Value::Object(c).to_string()
    };

    let r = ask(json!({"id":"u1","type":"pause","by":"chief"}).to_string()).await;
    assert_eq!(r["ok"], false);
    assert!(r["error"].as_str().unwrap().contains("not signed"), "{r}");

    let r = ask(signed(json!({"id":"u2","type":"pause","by":"kid"}), key)).await;
    assert_eq!(
        r,
        json!({"id":"u2","ok":false,"error":"refused: \"kid\" is not an arbiter of this board"})
    );

    let r = ask(signed(
        json!({"id":"u3","type":"pause","by":"chief"}),
        "a-guessed-key-0123456789",
    ))
    .await;
    assert_eq!(r["ok"], false);
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("signature does not match"),
        "{r}"
    );

    // A forged field after signing breaks the signature.
    let mut tampered: Map<String, Value> = serde_json::from_str(&signed(
        json!({"id":"u4","type":"resign","color":"B","by":"chief"}),
        key,
    ))
    .unwrap();
    tampered.insert("color".into(), json!("W"));
    let r = ask(Value::Object(tampered).to_string()).await;
    assert_eq!(r["ok"], false, "{r}");

    assert!(
        taken.try_recv().is_err(),
        "no refused command reached the service"
    );

    // The real arbiter's signed command is carried out, once, even when delivered twice.
    let good = signed(json!({"id":"u5","type":"pause","by":"deputy"}), key);
    assert_eq!(ask(good.clone()).await, json!({"id":"u5","ok":true}));
    let c = tokio::time::timeout(WAIT, taken.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((c.id.as_str(), c.by.as_deref()), ("u5", Some("deputy")));
    assert_eq!(c.command, Command::Pause {});
    assert_eq!(
        ask(good).await,
        json!({"id":"u5","ok":true}),
        "a replay gets the first answer again"
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        taken.try_recv().is_err(),
        "the replayed command was not carried out again"
    );
    sub.stop();
    links.shutdown(WAIT).await.unwrap();
}

//! MQTT as `tengen run` and `tengen demo` wire it, through the one wiring they use
//! (`service::links::start_links`): the embedded broker from the config (or an external
//! one), the publisher reading the real journal, the service's outputs (events, and what
//! the recorder's fold shows: state, SGF, open alerts) and commands to the scan loop.

use crate::broker;

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use broker::{envelope, Mosquitto, SubEvent, Subscriber};
use rumqttc::QoS;
use serde_json::json;
use tengen_daemon::config::{Config, MqttUrl};
use tengen_daemon::journal::Journal;
use tengen_daemon::service::links::{start_links, LinkOptions, ServiceEnds};
use tengen_daemon::service::outputs::Outputs;
use tengen_daemon::service::recorder::Recorder;
use tengen_daemon::service::scan_loop::Request;
use tengen_protocol::{Command, Event};
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(15);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A board `b1` in tournament `t1` storing in `dir`, its live view on a free port.
fn config(dir: &Path) -> Config {
    let mut config = Config::default_for("b1");
    config.board.tournament = "t1".into();
    config.http.listen = "127.0.0.1:0".parse().unwrap();
    config.storage.dir = dir.to_path_buf();
    config
}

/// What the viewer has received, per topic.
#[derive(Debug, Default)]
struct Seen {
    events: Vec<Vec<u8>>,
    state: Option<serde_json::Value>,
    sgf: Option<Vec<u8>>,
    active: Vec<serde_json::Value>,
}

impl Seen {
    fn collect(&mut self, m: broker::Msg) {
        match m.topic.as_str() {
            "tengen/t1/b1/events" => self.events.push(m.payload),
            "tengen/t1/b1/state" => self.state = Some(m.json()),
            "tengen/t1/b1/sgf" => self.sgf = Some(m.payload),
            "tengen/t1/b1/alerts/active" => self.active.push(m.json()),
            _ => {}
        }
    }

    /// Collects until `done` holds.
    async fn until(&mut self, sub: &mut Subscriber, done: impl Fn(&Seen) -> bool) {
        while !done(self) {
            match sub.next_event(WAIT).await {
                Some(SubEvent::Msg(m)) => self.collect(m),
                Some(SubEvent::Subscribed) => {}
                None => panic!("missing: {self:?}"),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_is_published_through_the_embedded_broker() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    config.mqtt.url = MqttUrl::Embedded;
    config.mqtt.listen = format!("127.0.0.1:{}", broker::free_port())
        .parse()
        .unwrap();
    let url = format!("mqtt://{}", config.mqtt.listen);

    let (journal, _) = Journal::open(dir.path(), "b1").unwrap();
    let outputs = Outputs::new();
    let mut recorder = Recorder::new(journal, outputs.clone(), dir.path()).unwrap();
    let (to_loop, mut scan_loop) = mpsc::channel::<Request>(4);
    let ends = ServiceEnds {
        journal: recorder.reader(),
        outputs,
        commands: to_loop,
    };
    let links = start_links(&config, ends, &LinkOptions::default())
        .await
        .unwrap();
    assert!(links.broker.is_some());
    assert_eq!(links.broker_url, url);

    let mut sub = Subscriber::connect(&url, "viewer", &["tengen/t1/b1/#"]).await;
    let mut seen = Seen::default();
    // A game, two moves, then alert a3: alerts/active shows it.
    let game_started: Event = serde_json::from_value(json!({
        "type": "game_started", "size": 19, "komi": 7.5, "handicap": 0, "rules": "chinese",
        "superko": "situational", "time_control": "none", "black": "Black", "white": "White",
        "round": "1", "table": "1"
    }))
    .unwrap();
    let events = vec![
        game_started,
        envelope(1).event,
        envelope(2).event,
        envelope(3).event,
    ];
    recorder.record(events, now_ms()).unwrap();
    let opened = |s: &Seen| {
        s.active
            .last()
            .and_then(|a| a.as_array())
            .is_some_and(|a| a.iter().any(|x| x["id"] == "a3"))
    };
    seen.until(&mut sub, opened).await;
    // Then it is cleared: alerts/active is empty again; state and SGF follow the game.
    recorder.record(vec![envelope(4).event], now_ms()).unwrap();
    links.publisher().wait_acked(5, WAIT).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mqtt-acked")).unwrap(),
        "tengen-mqtt-acked 5\n"
    );
    seen.until(&mut sub, |s| {
        s.events.len() >= 5
            && s.state.as_ref().is_some_and(|st| st["number"] == 2)
            && s.sgf.is_some()
            && s.active.last() == Some(&json!([]))
    })
    .await;
    // Each event as the journal holds it, byte for byte.
    let raw: Vec<Vec<u8>> = recorder
        .reader()
        .read_raw_from(1)
        .unwrap()
        .into_iter()
        .map(|(_, json)| json)
        .collect();
    assert_eq!(seen.events, raw);
    assert!(String::from_utf8_lossy(seen.sgf.as_ref().unwrap()).starts_with("(;"));

    // A command on `cmd` reaches the scan loop; its answer is the reply.
    let mut arbiter = Subscriber::connect(&url, "arbiter", &["tengen/t1/b1/cmd/reply"]).await;
    arbiter
        .client
        .publish(
            "tengen/t1/b1/cmd",
            QoS::AtLeastOnce,
            false,
            r#"{"id":"c1","type":"pause","by":"chief"}"#,
        )
        .await
        .unwrap();
    let request = tokio::time::timeout(WAIT, scan_loop.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (request.command.id.as_str(), &request.command.command),
        ("c1", &Command::Pause {})
    );
    request
        .reply
        .send(tengen_protocol::Answer::refused("no clock is running"))
        .unwrap();
    let reply = arbiter
        .next_on("tengen/t1/b1/cmd/reply", WAIT)
        .await
        .expect("reply");
    assert_eq!(
        reply.json(),
        json!({"id":"c1","ok":false,"error":"no clock is running"})
    );

    // Stop: offline, everything acknowledged, DISCONNECT.
    links.shutdown(WAIT).await.unwrap();
    let status = sub
        .next_on("tengen/t1/b1/status", WAIT)
        .await
        .expect("offline");
    assert_eq!(status.json()["state"], "offline");
    sub.stop();
    arbiter.stop();
}

/// The journal written by commit 22e2cec (`tests/fixtures/journal-22e2cec`) and what that
/// code published: the same bytes go out today, on start and on `republish`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_older_journal_goes_out_byte_for_byte() {
    let Some(m) = Mosquitto::start() else { return };
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/journal-22e2cec");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture.join("events.journal"),
        dir.path().join("events.journal"),
    )
    .unwrap();
    let published = std::fs::read_to_string(fixture.join("published.jsonl")).unwrap();
    let lines: Vec<&[u8]> = published.lines().map(str::as_bytes).collect();
    assert_eq!(lines.len(), 89);

    let mut config = Config::default_for("fx-01");
    config.board.tournament = "fixture".into();
    config.http.listen = "127.0.0.1:0".parse().unwrap();
    config.storage.dir = dir.path().to_path_buf();
    config.mqtt.url = MqttUrl::Broker {
        tls: false,
        host: "127.0.0.1".into(),
        port: m.port(),
    };
    let events = "tengen/fixture/fx-01/events";
    let reply = "tengen/fixture/fx-01/cmd/reply";
    let mut sub = Subscriber::connect(&m.url(), "viewer-fixture", &[events, reply]).await;

    let (journal, _) = Journal::open(dir.path(), "fx-01").unwrap();
    let (to_loop, _scan_loop) = mpsc::channel::<Request>(4);
    let ends = ServiceEnds {
        journal: journal.reader(),
        outputs: Outputs::new(),
        commands: to_loop,
    };
    let links = start_links(&config, ends, &LinkOptions::default())
        .await
        .unwrap();
    links.publisher().wait_acked(89, WAIT).await.unwrap();
    let mut got = Vec::new();
    while got.len() < 89 {
        let m = sub.next_on(events, WAIT).await.expect("every event");
        got.push(m.payload);
    }
    assert!(
        got.iter().zip(&lines).all(|(g, l)| g == l),
        "what 22e2cec published, byte for byte"
    );

    links
        .publisher()
        .connected()
        .wait_for(|up| *up)
        .await
        .unwrap();
    sub.client
        .publish(
            "tengen/fixture/fx-01/cmd",
            QoS::AtLeastOnce,
            false,
            r#"{"id":"rp","type":"republish","from_seq":50}"#,
        )
        .await
        .unwrap();
    let mut again = Vec::new();
    while again.len() < 40 {
        let m = sub.next_on(events, WAIT).await.expect("republished");
        again.push(m.payload);
    }
    assert!(again.iter().zip(&lines[49..]).all(|(g, l)| g == l));
    links.shutdown(WAIT).await.unwrap();
    sub.stop();
}

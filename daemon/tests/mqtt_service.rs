//! MQTT as `tengen run` wires it: the embedded broker from the config, the publisher on the
//! real journal, and the follower of the service's outputs (events, state, SGF, open alerts).

#[path = "support/broker.rs"]
mod broker;

use std::time::{Duration, SystemTime};

use broker::{envelope, Subscriber};
use serde_json::json;
use tengen_daemon::config::{Config, MqttUrl};
use tengen_daemon::journal::Journal;
use tengen_daemon::mqtt::commands;
use tengen_daemon::mqtt::wiring::MqttService;
use tengen_daemon::service::outputs::Outputs;

const WAIT: Duration = Duration::from_secs(15);

/// What the viewer has received, per topic.
#[derive(Debug, Default)]
struct Seen {
    seqs: Vec<u64>,
    state: Option<serde_json::Value>,
    sgf: Option<Vec<u8>>,
    active: Vec<serde_json::Value>,
}

impl Seen {
    fn collect(&mut self, m: broker::Msg) {
        match m.topic.as_str() {
            "tengen/t1/b1/events" => self.seqs.push(m.json()["seq"].as_u64().unwrap()),
            "tengen/t1/b1/state" => self.state = Some(m.json()),
            "tengen/t1/b1/sgf" => self.sgf = Some(m.payload),
            "tengen/t1/b1/alerts/active" => self.active.push(m.json()),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn service_publishes_the_journal_through_the_embedded_broker() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default_for("b1");
    config.board.tournament = "t1".into();
    config.mqtt.url = MqttUrl::Embedded;
    config.mqtt.listen = format!("127.0.0.1:{}", broker::free_port())
        .parse()
        .unwrap();
    config.storage.dir = dir.path().to_path_buf();
    let url = format!("mqtt://{}", config.mqtt.listen);

    let (mut journal, _) = Journal::open(dir.path(), "b1").unwrap();
    let outputs = Outputs::new();
    let (tx, _service) = commands::channel(4);
    let mqtt = MqttService::start(&config, journal.reader(), outputs.clone(), tx, "test").unwrap();
    assert!(mqtt.broker.is_some());

    let mut sub = Subscriber::connect(&url, "viewer", &["tengen/t1/b1/#"]).await;
    let mut seen = Seen::default();
    let mut append = |seq: u64| {
        let e = journal
            .append(envelope(seq).event, SystemTime::now())
            .unwrap();
        assert_eq!(e.seq, seq);
        outputs.event(&e);
    };
    // Events 1..=3: event 3 opens alert a3, and alerts/active shows it. (Retained updates
    // may be merged while the broker is busy, so each state is waited for in turn.)
    for seq in 1..=3 {
        append(seq);
    }
    loop {
        match sub.next_event(WAIT).await {
            Some(broker::SubEvent::Msg(m)) => {
                let opened = m.topic == "tengen/t1/b1/alerts/active"
                    && m.json()
                        .as_array()
                        .is_some_and(|a| a.iter().any(|x| x["id"] == "a3"));
                seen.collect(m);
                if opened {
                    break;
                }
            }
            Some(_) => continue,
            None => panic!("alert a3 never shown on alerts/active"),
        }
    }
    // Event 4 clears it; then state and SGF.
    append(4);
    outputs.state(json!({"number": 4}));
    outputs.sgf("(;GM[1];B[pd])".into());
    mqtt.publisher.wait_acked(4, WAIT).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mqtt-acked")).unwrap(),
        "tengen-mqtt-acked 4\n"
    );
    loop {
        let done = seen.seqs.len() >= 4
            && seen.state.is_some()
            && seen.sgf.is_some()
            && seen.active.last() == Some(&json!([]));
        if done {
            break;
        }
        match sub.next_event(WAIT).await {
            Some(broker::SubEvent::Msg(m)) => seen.collect(m),
            Some(_) => continue,
            None => panic!("missing: {seen:?}"),
        }
    }
    assert_eq!(seen.seqs, [1, 2, 3, 4]);
    assert_eq!(seen.state.unwrap(), json!({"number": 4}));
    assert_eq!(seen.sgf.unwrap(), b"(;GM[1];B[pd])");
    mqtt.shutdown(WAIT).await.unwrap();
}

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
    for seq in 1..=4 {
        let e = journal
            .append(envelope(seq).event, SystemTime::now())
            .unwrap();
        assert_eq!(e.seq, seq);
        outputs.event(&e);
    }
    outputs.state(json!({"number": 4}));
    outputs.sgf("(;GM[1];B[pd])".into());
    mqtt.publisher.wait_acked(4, WAIT).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mqtt-acked")).unwrap(),
        "tengen-mqtt-acked 4\n"
    );

    // alerts/active: event 3 opens alert a3, event 4 clears it.
    let opened_then_cleared = |v: &Vec<serde_json::Value>| {
        v.iter().any(|x| x[0]["id"] == "a3") && v.last() == Some(&json!([]))
    };
    let mut seqs = Vec::new();
    let (mut state, mut sgf, mut active) = (None, None, Vec::new());
    while seqs.len() < 4 || state.is_none() || sgf.is_none() || !opened_then_cleared(&active) {
        let m = match sub.next_event(WAIT).await {
            Some(broker::SubEvent::Msg(m)) => m,
            Some(_) => continue,
            None => panic!("missing: {seqs:?} {state:?} {sgf:?} {active:?}"),
        };
        match m.topic.as_str() {
            "tengen/t1/b1/events" => seqs.push(m.json()["seq"].as_u64().unwrap()),
            "tengen/t1/b1/state" => state = Some(m.json()),
            "tengen/t1/b1/sgf" => sgf = Some(m.payload),
            "tengen/t1/b1/alerts/active" => active.push(m.json()),
            _ => {}
        }
    }
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert_eq!(state.unwrap(), json!({"number": 4}));
    assert_eq!(sgf.unwrap(), b"(;GM[1];B[pd])");
    mqtt.shutdown(WAIT).await.unwrap();
}

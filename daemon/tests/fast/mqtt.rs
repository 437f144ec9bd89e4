//! The MQTT publisher against real brokers: mosquitto (started here on a free port) and the
//! embedded rumqttd. With `TENGEN_REQUIRE_ORACLES=1` a missing mosquitto fails the tests.

use crate::broker;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use broker::{envelope, is_alert_type, Mosquitto, SubEvent, Subscriber};
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_daemon::mqtt::commands::{self, CommandRequest};
use tengen_daemon::mqtt::outbox::AckFile;
use tengen_daemon::mqtt::{
    MemorySource, MqttSettings, Publisher, PublisherParts, Retained, Topics,
};
use tengen_net::backoff::Backoff;
use tengen_net::broker::BrokerUrl;
use tengen_protocol::Command;
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(15);

fn topics() -> Topics {
    Topics::new("tengen", "t1", "b1").unwrap()
}

fn settings(url: &str) -> MqttSettings {
    let mut s = MqttSettings::new(BrokerUrl::parse(url).unwrap(), "b1");
    // Fast reconnects so a broker restart costs milliseconds, not seconds.
    s.backoff = Backoff::new(Duration::from_millis(20), Duration::from_millis(200));
    s.window = 16;
    s
}

struct Board {
    source: MemorySource,
    publisher: Publisher,
}

impl Board {
    fn start(
        url: &str,
        source: MemorySource,
        ack_file: Option<AckFile>,
        commands: Option<mpsc::Sender<CommandRequest>>,
    ) -> Board {
        let publisher = Publisher::start(
            settings(url),
            PublisherParts {
                topics: topics(),
                source: Arc::new(source.clone()),
                ack_file,
                ids_file: None,
                commands,
                version: "0.1.0-test".into(),
            },
        )
        .unwrap();
        Board { source, publisher }
    }

    /// Appends events `from..=to` to the journal stand-in and tells the publisher.
    fn append(&self, from: u64, to: u64) {
        for seq in from..=to {
            self.source.push(&envelope(seq)).unwrap();
            self.publisher.handle().wake();
        }
    }

    fn set_retained(&self, retained: Retained) {
        self.publisher.handle().set_retained(retained);
    }

    async fn wait_connected(&self) {
        let mut c = self.publisher.connected();
        tokio::time::timeout(WAIT, c.wait_for(|up| *up))
            .await
            .expect("publisher connected in time")
            .unwrap();
    }
}

/// Collects `n` events from `sub` on the events topic, in arrival order.
async fn collect_events(sub: &mut Subscriber, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    while out.len() < n {
        let m = sub
            .next_on(&topics().events(), WAIT)
            .await
            .unwrap_or_else(|| panic!("only {} of {n} events arrived", out.len()));
        out.push(m.json());
    }
    out
}

fn seqs(events: &[Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

// ---- scenarios, run against both brokers ----

async fn in_order(url: &str) {
    let mut sub = Subscriber::connect(url, "viewer-order", &["tengen/t1/b1/#"]).await;
    let board = Board::start(url, MemorySource::new(), None, None);
    board.append(1, 120);
    board.publisher.wait_acked(120, WAIT).await.unwrap();

    let mut events = Vec::new();
    let mut alerts = Vec::new();
    let mut online = false;
    while events.len() < 120 {
        let Some(SubEvent::Msg(m)) = sub.next_event(WAIT).await else {
            panic!("only {} events arrived", events.len());
        };
        let v = m.json();
        if m.topic == topics().events() {
            events.push(v);
        } else if m.topic == topics().alerts() {
            alerts.push(v);
        } else if m.topic == topics().status() && v["state"] == "online" {
            online = true;
        }
    }
    assert!(online, "status online was published");
    assert_eq!(seqs(&events), (1..=120).collect::<Vec<_>>());
    for (i, e) in events.iter().enumerate() {
        assert_eq!(*e, serde_json::to_value(envelope(i as u64 + 1)).unwrap());
    }
    // Alerts arrive on their own topic too (the last may still be on its way).
    while alerts.len() < 36 {
        let m = sub.next_on(&topics().alerts(), WAIT).await.expect("alerts");
        alerts.push(m.json());
    }
    let want: Vec<u64> = (1..=120).filter(|s| matches!(s % 10, 3 | 4 | 7)).collect();
    assert_eq!(seqs(&alerts), want);
    assert!(alerts.iter().all(is_alert_type));

    board.publisher.shutdown(WAIT).await.unwrap();
    let m = sub
        .next_on(&topics().status(), WAIT)
        .await
        .expect("offline");
    assert_eq!(m.json()["state"], "offline");
    sub.stop();
}

async fn late_subscriber_sees_retained(url: &str) {
    let board = Board::start(url, MemorySource::new(), None, None);
    board.set_retained(Retained {
        state: Some(r#"{"number":5}"#.into()),
        sgf: Some("(;GM[1]SZ[19];B[pd])".into()),
        alerts_active: Some("[]".into()),
    });
    board.append(1, 5);
    board.publisher.wait_acked(5, WAIT).await.unwrap();
    board.set_retained(Retained {
        state: Some(r#"{"number":6}"#.into()),
        sgf: Some("(;GM[1]SZ[19];B[pd];W[dd])".into()),
        alerts_active: None,
    });
    board.append(6, 6);
    board.publisher.wait_acked(6, WAIT).await.unwrap();

    let mut late = Subscriber::connect(url, "viewer-late", &["tengen/t1/b1/#"]).await;
    let state = late.next_on(&topics().state(), WAIT).await.expect("state");
    assert!(state.retain);
    assert_eq!(state.json(), json!({"number":6}));
    let mut late = Subscriber::connect(url, "viewer-late-2", &[&topics().sgf()]).await;
    let sgf = late.next_on(&topics().sgf(), WAIT).await.expect("sgf");
    assert_eq!(sgf.payload, b"(;GM[1]SZ[19];B[pd];W[dd])");
    let mut late = Subscriber::connect(url, "viewer-late-3", &[&topics().alerts_active()]).await;
    let active = late
        .next_on(&topics().alerts_active(), WAIT)
        .await
        .expect("alerts/active");
    assert_eq!(active.json(), json!([]));
    let mut late = Subscriber::connect(url, "viewer-late-4", &[&topics().status()]).await;
    let status = late
        .next_on(&topics().status(), WAIT)
        .await
        .expect("status");
    assert_eq!(status.json()["state"], "online");
    board.publisher.shutdown(WAIT).await.unwrap();
}

async fn last_will_after_crash(url: &str) {
    let board = Board::start(url, MemorySource::new(), None, None);
    board.wait_connected().await;
    let mut sub = Subscriber::connect(url, "arbiter-will", &[&topics().status()]).await;
    let m = sub
        .next_on(&topics().status(), WAIT)
        .await
        .expect("retained status");
    assert_eq!(m.json()["state"], "online");
    // A crash: the connection drops without DISCONNECT.
    board.publisher.abort();
    let m = sub
        .next_on(&topics().status(), WAIT)
        .await
        .expect("the last will");
    assert_eq!(
        m.json(),
        json!({"state":"offline","version":"0.1.0-test","board":"b1"})
    );
    sub.stop();
}

async fn commands_are_checked(url: &str) {
    let (tx, mut service) = commands::channel(8);
    let board = Board::start(url, MemorySource::new(), None, Some(tx));
    board.append(1, 4);
    board.publisher.wait_acked(4, WAIT).await.unwrap();
    board.wait_connected().await;
    let mut sub = Subscriber::connect(
        url,
        "arbiter-cmd",
        &[&topics().cmd_reply(), &topics().events()],
    )
    .await;
    let cmd_client = sub.client.clone();
    let send = move |payload: &'static str| {
        let client = cmd_client.clone();
        async move {
            client
                .publish(topics().cmd(), QoS::AtLeastOnce, false, payload)
                .await
                .unwrap();
        }
    };

    // Malformed and unknown commands: an error reply, nothing reaches the service.
    send(r#"{"id":"c1","type":"explode"}"#).await;
    send(r#"{"id":"c2","type":"confirm"}"#).await;
    send("not json").await;
    for want in [json!("c1"), json!("c2"), Value::Null] {
        let r = sub
            .next_on(&topics().cmd_reply(), WAIT)
            .await
            .expect("reply")
            .json();
        assert_eq!(r["id"], want);
        assert_eq!(r["ok"], false);
        assert!(
            r["error"]
                .as_str()
                .unwrap()
                .starts_with("malformed command"),
            "{r}"
        );
    }

    // A valid command goes to the service, whose answer is the reply.
    send(r#"{"id":"c3","type":"pause","by":"chief"}"#).await;
    let req = tokio::time::timeout(WAIT, service.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(req.command.id, "c3");
    assert_eq!(req.command.command, Command::Pause {});
    req.reply
        .send(tengen_protocol::Answer::refused("no clock is running"))
        .unwrap();
    let r = sub
        .next_on(&topics().cmd_reply(), WAIT)
        .await
        .expect("reply")
        .json();
    assert_eq!(
        r,
        json!({"id":"c3","ok":false,"error":"no clock is running"})
    );
    assert!(
        service.try_recv().is_err(),
        "only the valid command reached the service"
    );

    // `republish` sends the stream again from `from_seq`, without the service.
    send(r#"{"id":"c4","type":"republish","from_seq":2}"#).await;
    let mut got = Vec::new();
    let mut reply = None;
    while got.len() < 3 || reply.is_none() {
        let Some(SubEvent::Msg(m)) = sub.next_event(WAIT).await else {
            panic!("republish incomplete: {got:?} {reply:?}");
        };
        if m.topic == topics().events() {
            got.push(m.json()["seq"].as_u64().unwrap());
        } else {
            reply = Some(m.json());
        }
    }
    assert_eq!(got, [2, 3, 4]);
    assert_eq!(reply.unwrap(), json!({"id":"c4","ok":true}));
    assert!(service.try_recv().is_err());
    board.publisher.shutdown(WAIT).await.unwrap();
    sub.stop();
}

// ---- mosquitto ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_every_event_in_order() {
    let Some(m) = Mosquitto::start() else { return };
    in_order(&m.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_late_subscriber_sees_retained_state_and_sgf() {
    let Some(m) = Mosquitto::start() else { return };
    late_subscriber_sees_retained(&m.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_last_will_after_crash() {
    let Some(m) = Mosquitto::start() else { return };
    last_will_after_crash(&m.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_malformed_command_changes_nothing() {
    let Some(m) = Mosquitto::start() else { return };
    commands_are_checked(&m.url()).await;
}

/// A consumer as the hall runs it: keeps events whose `seq` is the next one, and asks for a
/// `republish` from its next `seq` after every (re)connection and whenever it sees a gap.
struct Consumer {
    sub: Subscriber,
    next: u64,
    kept: Vec<u64>,
    asked: Option<(u64, tokio::time::Instant)>,
}

impl Consumer {
    async fn ask(&mut self) {
        let now = tokio::time::Instant::now();
        if let Some((from, at)) = self.asked {
            if from == self.next && now - at < Duration::from_millis(300) {
                return;
            }
        }
        self.asked = Some((self.next, now));
        let cmd =
            json!({"id": format!("rp{}", self.next), "type": "republish", "from_seq": self.next});
        let _ =
            self.sub
                .client
                .try_publish(topics().cmd(), QoS::AtLeastOnce, false, cmd.to_string());
    }

    /// Runs until `last` is kept.
    async fn until(&mut self, last: u64) {
        let deadline = tokio::time::Instant::now() + WAIT;
        while self.next <= last {
            assert!(
                tokio::time::Instant::now() < deadline,
                "consumer stuck at seq {} of {last}",
                self.next
            );
            match self.sub.next_event(Duration::from_millis(300)).await {
                Some(SubEvent::Subscribed) => self.ask().await,
                Some(SubEvent::Msg(m)) if m.topic == topics().events() => {
                    let seq = m.json()["seq"].as_u64().unwrap();
                    if seq == self.next {
                        self.kept.push(seq);
                        self.next += 1;
                    } else if seq > self.next {
                        self.ask().await;
                    }
                }
                Some(SubEvent::Msg(_)) => {}
                // Quiet while something is missing: ask again.
                None => self.ask().await,
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_killed_mid_stream_loses_nothing() {
    let Some(mut m) = Mosquitto::start() else {
        return;
    };
    let url = m.url();
    let sub = Subscriber::connect(
        &url,
        "hall-consumer",
        &[&topics().events(), &topics().cmd_reply()],
    )
    .await;
    let mut consumer = Consumer {
        sub,
        next: 1,
        kept: Vec::new(),
        asked: None,
    };
    let board = Board::start(&url, MemorySource::new(), None, None);
    board.set_retained(Retained {
        state: Some(r#"{"number":1}"#.into()),
        sgf: Some("(;GM[1])".into()),
        alerts_active: Some("[]".into()),
    });
    board.append(1, 100);
    consumer.until(30).await;

    // The broker crashes mid-stream; the game goes on meanwhile.
    m.kill();
    board.append(101, 150);
    let mut connected = board.publisher.connected();
    tokio::time::timeout(WAIT, connected.wait_for(|up| !*up))
        .await
        .unwrap()
        .unwrap();
    m.restart();
    board.append(151, 200);
    consumer.until(200).await;
    assert_eq!(consumer.kept, (1..=200).collect::<Vec<_>>());
    board.publisher.wait_acked(200, WAIT).await.unwrap();

    // The restarted broker lost its retained messages; the board published them again.
    let mut late = Subscriber::connect(&url, "viewer-after-restart", &[&topics().state()]).await;
    let state = late.next_on(&topics().state(), WAIT).await.expect("state");
    assert_eq!(state.json(), json!({"number":1}));
    board.publisher.shutdown(WAIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_restart_resends_only_what_was_not_acknowledged() {
    let Some(mut m) = Mosquitto::start() else {
        return;
    };
    let url = m.url();
    let dir = tempfile::tempdir().unwrap();
    let ack_path = dir.path().join("mqtt-acked");
    let source = MemorySource::new();

    // First run: 1..=20 acknowledged, then 21..=25 written while the broker is down, and
    // the board process dies.
    let board = Board::start(&url, source.clone(), Some(AckFile::new(&ack_path)), None);
    board.append(1, 20);
    board.publisher.wait_acked(20, WAIT).await.unwrap();
    assert_eq!(AckFile::new(&ack_path).load().unwrap(), 20);
    m.kill();
    board.append(21, 25);
    board.publisher.abort();
    assert_eq!(AckFile::new(&ack_path).load().unwrap(), 20);

    // Second run, same journal: exactly 21..=25 go out, in order.
    m.restart();
    let mut sub = Subscriber::connect(&url, "viewer-restart", &[&topics().events()]).await;
    let board = Board::start(&url, source, Some(AckFile::new(&ack_path)), None);
    board.publisher.wait_acked(25, WAIT).await.unwrap();
    let events = collect_events(&mut sub, 5).await;
    assert_eq!(seqs(&events), [21, 22, 23, 24, 25]);
    board.append(26, 26);
    let next = collect_events(&mut sub, 1).await;
    assert_eq!(seqs(&next), [26], "nothing before 21 was sent again");
    board.publisher.shutdown(WAIT).await.unwrap();
    assert_eq!(AckFile::new(&ack_path).load().unwrap(), 26);
    let seen: BTreeSet<u64> = seqs(&events).into_iter().collect();
    assert_eq!(seen.len(), 5);
}

/// Event `seq` as a journal written by another build might hold it: odd spacing and a
/// field this build does not know. It must go out as it is, never written again.
fn odd_json(seq: u64) -> Vec<u8> {
    let j = envelope(seq).to_json();
    let j = j.replacen(',', " ,  ", 1);
    format!("{}, \"future\" : [1, 2]}}", &j[..j.len() - 1]).into_bytes()
}

/// Collects `n` events (with their copies on `alerts`) and checks each payload is exactly
/// the source's bytes; returns their seqs on `events`.
async fn exact_events(sub: &mut Subscriber, n: usize) -> Vec<u64> {
    let mut seqs = Vec::new();
    while seqs.len() < n {
        let Some(SubEvent::Msg(m)) = sub.next_event(WAIT).await else {
            panic!("only {} of {n} events arrived", seqs.len());
        };
        if m.topic != topics().events() && m.topic != topics().alerts() {
            continue;
        }
        let seq = m.json()["seq"].as_u64().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&m.payload),
            String::from_utf8_lossy(&odd_json(seq)),
            "seq {seq} on {}",
            m.topic
        );
        if m.topic == topics().events() {
            seqs.push(seq);
        }
    }
    seqs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_events_are_the_sources_bytes_live_after_a_restart_and_on_republish() {
    let Some(m) = Mosquitto::start() else { return };
    let url = m.url();
    let dir = tempfile::tempdir().unwrap();
    let ack_path = dir.path().join("mqtt-acked");
    let mut sub = Subscriber::connect(
        &url,
        "viewer-bytes",
        &[
            &topics().events(),
            &topics().alerts(),
            &topics().cmd_reply(),
        ],
    )
    .await;
    let source = MemorySource::new();

    // Live.
    let board = Board::start(&url, source.clone(), Some(AckFile::new(&ack_path)), None);
    for seq in 1..=5 {
        source.push_json(odd_json(seq)).unwrap();
        board.publisher.handle().wake();
    }
    board.publisher.wait_acked(5, WAIT).await.unwrap();
    assert_eq!(exact_events(&mut sub, 5).await, [1, 2, 3, 4, 5]);

    // The board dies; events are written meanwhile; the restarted board reads them back.
    board.publisher.abort();
    for seq in 6..=8 {
        source.push_json(odd_json(seq)).unwrap();
    }
    let (tx, _service) = commands::channel(4);
    let board = Board::start(
        &url,
        source.clone(),
        Some(AckFile::new(&ack_path)),
        Some(tx),
    );
    board.publisher.wait_acked(8, WAIT).await.unwrap();
    assert_eq!(exact_events(&mut sub, 3).await, [6, 7, 8]);

    // `republish` re-reads the source.
    board.wait_connected().await;
    sub.client
        .publish(
            topics().cmd(),
            QoS::AtLeastOnce,
            false,
            r#"{"id":"rp","type":"republish","from_seq":2}"#,
        )
        .await
        .unwrap();
    assert_eq!(exact_events(&mut sub, 7).await, [2, 3, 4, 5, 6, 7, 8]);
    board.publisher.shutdown(WAIT).await.unwrap();
    sub.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_large_sgf_fits() {
    let Some(m) = Mosquitto::start() else { return };
    let url = m.url();
    let board = Board::start(&url, MemorySource::new(), None, None);
    // A long game with comments: far beyond rumqttc's 10 KiB default.
    let mut sgf = String::from("(;GM[1]SZ[19]");
    for i in 0..6000 {
        sgf.push_str(&format!(";B[pd]C[move {i} with a comment]"));
    }
    sgf.push(')');
    board.set_retained(Retained {
        sgf: Some(sgf.clone()),
        ..Retained::default()
    });
    board.append(1, 1);
    board.publisher.wait_acked(1, WAIT).await.unwrap();
    let mut late = Subscriber::connect(&url, "viewer-sgf", &[&topics().sgf()]).await;
    let got = late.next_on(&topics().sgf(), WAIT).await.expect("sgf");
    assert!(got.payload.len() > 150_000);
    assert_eq!(got.payload, sgf.into_bytes());
    board.publisher.shutdown(WAIT).await.unwrap();
}

// ---- the embedded rumqttd ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_every_event_in_order() {
    let b = broker::start_embedded();
    in_order(&b.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_late_subscriber_sees_retained_state_and_sgf() {
    let b = broker::start_embedded();
    late_subscriber_sees_retained(&b.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_last_will_after_crash() {
    let b = broker::start_embedded();
    last_will_after_crash(&b.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_malformed_command_changes_nothing() {
    let b = broker::start_embedded();
    commands_are_checked(&b.url()).await;
}

#[test]
fn embedded_broker_refuses_a_taken_address() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let e = tengen_daemon::mqtt::broker::EmbeddedBroker::start(addr, 1 << 20).unwrap_err();
    assert!(
        e.to_string().starts_with("mqtt.listen: cannot listen on"),
        "{e}"
    );
}

/// Figures for BENCHMARKS.md, "MQTT" (`cargo test --test mqtt -- --ignored --nocapture`):
/// events published and acknowledged per second (with mosquitto as Debian ships it, and
/// with `set_tcp_nodelay true`, which keeps it from holding PubAcks back for Nagle's
/// algorithm), and the time from a broker restart until every event written during the
/// outage is acknowledged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement, not a check"]
async fn bench_throughput_and_recovery() {
    if let Some(fast) = Mosquitto::start_with("set_tcp_nodelay true") {
        throughput(&fast.url(), "mosquitto with set_tcp_nodelay").await;
    }
    let Some(mut m) = Mosquitto::start() else {
        return;
    };
    let url = m.url();
    throughput(&url, "mosquitto").await;
    let board = Board::start(&url, MemorySource::new(), None, None);
    board.append(1, 100);
    board.publisher.wait_acked(100, WAIT).await.unwrap();
    m.kill();
    board.append(101, 300);
    let t = std::time::Instant::now();
    m.restart();
    board.publisher.wait_acked(300, WAIT).await.unwrap();
    println!(
        "broker restart: 200 events written during the outage acknowledged {:?} after the broker was back",
        t.elapsed()
    );
    board.publisher.shutdown(WAIT).await.unwrap();
}

/// 5000 events published and acknowledged, with windows of 16 and 64 publishes.
async fn throughput(url: &str, broker: &str) {
    for window in [16usize, 64] {
        let source = MemorySource::new();
        let mut s = settings(url);
        s.window = window;
        s.client_id = format!("bench-{window}");
        let publisher = Publisher::start(
            s,
            PublisherParts {
                topics: topics(),
                source: Arc::new(source.clone()),
                ack_file: None,
                ids_file: None,
                commands: None,
                version: "bench".into(),
            },
        )
        .unwrap();
        let mut c = publisher.connected();
        c.wait_for(|up| *up).await.unwrap();
        let n = 5000;
        let t = std::time::Instant::now();
        for seq in 1..=n {
            source.push(&envelope(seq)).unwrap();
        }
        publisher.handle().wake();
        publisher.wait_acked(n, WAIT).await.unwrap();
        let dt = t.elapsed();
        println!(
            "{broker}, window {window}: {n} events acknowledged in {dt:?} = {:.0} events/s",
            n as f64 / dt.as_secs_f64()
        );
        publisher.shutdown(WAIT).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mosquitto_user_and_password_file() {
    let dir = tempfile::tempdir().unwrap();
    let passwd = dir.path().join("passwd");
    let ok = std::process::Command::new("mosquitto_passwd")
        .args(["-c", "-b"])
        .arg(&passwd)
        .args(["b1", "s3cret"])
        .status();
    if !matches!(ok, Ok(s) if s.success()) {
        assert!(!broker::oracles_required(), "mosquitto_passwd failed");
        return;
    }
    let extra = format!("password_file {}\n", passwd.display());
    let Some(m) = Mosquitto::start_with(&extra) else {
        return;
    };
    let pw_file = dir.path().join("b1.password");

    // The right password (with the file's trailing newline) gets in.
    std::fs::write(&pw_file, "s3cret\n").unwrap();
    let source = MemorySource::new();
    source.push(&envelope(1)).unwrap();
    let s = settings(&m.url())
        .with_password_file("b1", &pw_file)
        .unwrap();
    let parts = |source: &MemorySource| PublisherParts {
        topics: topics(),
        source: Arc::new(source.clone()),
        ack_file: None,
        ids_file: None,
        commands: None,
        version: "test".into(),
    };
    let publisher = Publisher::start(s, parts(&source)).unwrap();
    publisher.wait_acked(1, WAIT).await.unwrap();
    publisher.shutdown(WAIT).await.unwrap();

    // A wrong one is refused: nothing is acknowledged.
    std::fs::write(&pw_file, "guess\n").unwrap();
    let mut s = settings(&m.url())
        .with_password_file("b1", &pw_file)
        .unwrap();
    s.client_id = "tengen-b1-intruder".into();
    let publisher = Publisher::start(s, parts(&source)).unwrap();
    let refused = publisher.wait_acked(1, Duration::from_millis(700)).await;
    assert!(refused.is_err(), "a wrong password must not get in");
    assert!(!*publisher.connected().borrow());
    publisher.abort();
}

//! The public tree beyond the hall (issue 14, part 4): `config/mosquitto/bridge.conf.example`
//! as shipped (only the cluster's address, TLS and password taken out) bridges `public/#`
//! from the hall's mosquitto to a second mosquitto standing for the broadcast cluster. A
//! viewer on the second broker (a persistent session) gets every public event once, in
//! order, across:
//!
//! - a restart of the cluster broker (stopped cleanly, with persistence: its sessions
//!   survive), while the hall keeps publishing;
//! - a restart of the hall's broker;
//! - a cut of the bridge link itself (a TCP relay between the two brokers drops every
//!   connection and refuses new ones for two seconds) while the hall keeps publishing;
//! - a restart of the hall's broker during a cut, with events not yet passed on.
//!
//! MQTT at QoS 1 may deliver a message twice; consumers de-duplicate by `seq` (docs/mqtt-http.md), so
//! the check is: after removing repeats, the `seq` values are exactly 1..=N, in order.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::broker::{free_port, Mosquitto};

/// The example bridge with the cluster at `address`, without the TLS and the credentials
/// of a real cluster (the test's second mosquitto has neither).
fn bridge_config(address: &str) -> String {
    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/mosquitto/bridge.conf.example"),
    )
    .expect("the example bridge config");
    let mut out = String::new();
    for line in example.lines() {
        let key = line.split_whitespace().next().unwrap_or("");
        match key {
            "address" => out.push_str(&format!("address {address}\n")),
            "bridge_cafile" | "bridge_insecure" | "remote_username" | "remote_password" => {}
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    assert!(out.contains("topic public/+/+/events out 1"), "{out}");
    out
}

fn persistent(dir: &Path) -> String {
    format!(
        "persistence true\npersistence_location {}/\nautosave_interval 1\n",
        dir.display()
    )
}

/// A TCP relay from a local port to `target`; while `cut` is set it drops every
/// connection and refuses new ones (a network cut between the brokers).
async fn relay(listener: TcpListener, target: u16, cut: Arc<AtomicBool>) {
    loop {
        let Ok((mut inbound, _)) = listener.accept().await else {
            return;
        };
        if cut.load(Ordering::SeqCst) {
            continue; // dropped at once
        }
        let cut = cut.clone();
        tokio::spawn(async move {
            let Ok(mut outbound) = TcpStream::connect(("127.0.0.1", target)).await else {
                return;
            };
            let copy = tokio::io::copy_bidirectional(&mut inbound, &mut outbound);
            tokio::pin!(copy);
            loop {
                tokio::select! {
                    _ = &mut copy => return,
                    _ = tokio::time::sleep(Duration::from_millis(50)) => {
                        if cut.load(Ordering::SeqCst) {
                            return;
                        }
                    }
                }
            }
        });
    }
}

/// A client that polls its own event loop and hands on the `seq` of every `events`
/// message; reconnects by polling on.
fn client(
    port: u16,
    id: &str,
    clean: bool,
    subscribe: bool,
) -> (AsyncClient, mpsc::UnboundedReceiver<u64>) {
    let mut o = MqttOptions::new(id, "127.0.0.1", port);
    o.set_clean_session(clean);
    o.set_keep_alive(Duration::from_secs(5));
    let (client, mut eventloop) = AsyncClient::new(o, 1000);
    let (tx, rx) = mpsc::unbounded_channel();
    let c = client.clone();
    tokio::spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(Event::Incoming(Packet::ConnAck(_))) if subscribe => {
                    let _ = c.try_subscribe("public/#", QoS::AtLeastOnce);
                }
                Ok(Event::Incoming(Packet::Publish(p))) => {
                    let seq = serde_json::from_slice::<serde_json::Value>(&p.payload)
                        .ok()
                        .and_then(|v| v["seq"].as_u64());
                    if let Some(seq) = seq {
                        if tx.send(seq).is_err() {
                            return;
                        }
                    }
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    });
    (client, rx)
}

/// Collects until `seq` `upto` has arrived (or 30 s passed); every `seq` received, repeats
/// included, in arrival order.
async fn until(rx: &mut mpsc::UnboundedReceiver<u64>, got: &mut Vec<u64>, upto: u64) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !got.contains(&upto) {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(seq)) => got.push(seq),
            _ => panic!("seq {upto} never crossed the bridge; got {got:?}"),
        }
    }
}

async fn publish(hall: &AsyncClient, seqs: std::ops::RangeInclusive<u64>) {
    for seq in seqs {
        let payload = serde_json::json!({"seq": seq, "board": "b1", "type": "move"}).to_string();
        hall.publish("public/cup/b1/events", QoS::AtLeastOnce, false, payload)
            .await
            .expect("queued");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_tree_crosses_the_bridge_whole_and_in_order() {
    let cluster_dir = tempfile::tempdir().unwrap();
    // The cluster broker keeps the viewer's session across its restart.
    let Some(mut cluster) = Mosquitto::start_with(&persistent(cluster_dir.path())) else {
        return;
    };
    let relay_port = free_port();
    let listener = TcpListener::bind(("127.0.0.1", relay_port)).await.unwrap();
    let cut = Arc::new(AtomicBool::new(false));
    tokio::spawn(relay(listener, cluster.port(), cut.clone()));
    let hall_dir = tempfile::tempdir().unwrap();
    let mut hall_broker = Mosquitto::start_with(&format!(
        "{}{}",
        persistent(hall_dir.path()),
        bridge_config(&format!("127.0.0.1:{relay_port}"))
    ))
    .expect("mosquitto");

    let (_viewer, mut seen) = client(cluster.port(), "viewer", false, true);
    let (hall, _) = client(hall_broker.port(), "hall-main", true, false);
    let mut got = Vec::new();

    // The bridge comes up: a probe (`seq` 0) until one crosses, so what follows is about
    // a bridge that was up, not about its start.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        publish(&hall, 0..=0).await;
        if let Ok(Some(0)) = tokio::time::timeout(Duration::from_millis(300), seen.recv()).await {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the bridge never came up"
        );
    }
    publish(&hall, 1..=40).await;
    until(&mut seen, &mut got, 40).await;

    // The cluster broker restarts while the hall goes on publishing.
    cluster.stop();
    publish(&hall, 41..=80).await;
    cluster.restart();
    until(&mut seen, &mut got, 80).await;

    // The hall's broker restarts.
    hall_broker.stop();
    hall_broker.restart();
    publish(&hall, 81..=120).await;
    until(&mut seen, &mut got, 120).await;

    // The link between them is cut for two seconds while the hall goes on publishing.
    cut.store(true, Ordering::SeqCst);
    publish(&hall, 121..=160).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    cut.store(false, Ordering::SeqCst);
    until(&mut seen, &mut got, 160).await;

    // Cut again, and the hall's broker restarts holding what it has not passed on yet.
    cut.store(true, Ordering::SeqCst);
    publish(&hall, 161..=200).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    hall_broker.stop();
    hall_broker.restart();
    cut.store(false, Ordering::SeqCst);
    until(&mut seen, &mut got, 200).await;

    let mut once = Vec::new();
    for seq in &got {
        if *seq > 0 && !once.contains(seq) {
            once.push(*seq);
        }
    }
    assert_eq!(
        once,
        (1..=200).collect::<Vec<_>>(),
        "every public event once, in order (repeats removed: {})",
        got.iter().filter(|s| **s > 0).count() - once.len()
    );
}

//! Test helpers for MQTT: a real mosquitto on a free port (killed when the guard drops, even
//! on panic), the embedded rumqttd, and a subscriber that collects what arrives.
//!
//! Include with `#[path = "support/broker.rs"] mod broker;`. Not every test binary uses every
//! helper.
#![allow(dead_code)]

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, Event, EventLoop, MqttOptions, Packet, QoS, SubscribeFilter};
use tokio::sync::mpsc;

/// Where mosquitto is installed on Debian/Ubuntu.
pub(crate) const MOSQUITTO: &str = "/usr/sbin/mosquitto";

/// A port nobody listens on right now.
pub(crate) fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    l.local_addr().expect("local addr").port()
}

/// Waits until something accepts connections on `port` (at most `timeout`).
pub(crate) fn wait_listening(port: u16, timeout: Duration) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(100)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

/// True when CI demands the external oracles (`TENGEN_REQUIRE_ORACLES=1`).
pub(crate) fn oracles_required() -> bool {
    std::env::var("TENGEN_REQUIRE_ORACLES").is_ok_and(|v| v == "1")
}

/// A mosquitto process on 127.0.0.1 with a generated config; killed on drop.
pub(crate) struct Mosquitto {
    child: Option<Child>,
    port: u16,
    conf: PathBuf,
    _dir: tempfile::TempDir,
}

impl Mosquitto {
    /// Starts mosquitto on a free port. `None` (the test should return, skipped) when it is
    /// not installed, unless `TENGEN_REQUIRE_ORACLES=1`, where that is a failure.
    pub(crate) fn start() -> Option<Mosquitto> {
        Mosquitto::start_with("")
    }

    /// Like [`Mosquitto::start`], with extra lines appended to the config (TLS, users...).
    pub(crate) fn start_with(extra: &str) -> Option<Mosquitto> {
        if !Path::new(MOSQUITTO).exists() {
            assert!(
                !oracles_required(),
                "{MOSQUITTO} is missing and TENGEN_REQUIRE_ORACLES=1: install mosquitto"
            );
            eprintln!("skipped: {MOSQUITTO} is not installed");
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let conf = dir.path().join("mosquitto.conf");
        let text = format!(
            "listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n\
             user root\nlog_dest file {}\n{extra}\n",
            dir.path().join("mosquitto.log").display()
        );
        std::fs::write(&conf, text).expect("write mosquitto.conf");
        let mut m = Mosquitto {
            child: None,
            port,
            conf,
            _dir: dir,
        };
        m.restart();
        Some(m)
    }

    /// The port it listens on.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// `mqtt://127.0.0.1:PORT`.
    pub(crate) fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }

    /// The directory holding its config and log (for certificates and password files).
    pub(crate) fn dir(&self) -> &Path {
        self._dir.path()
    }

    /// Kills it with SIGKILL (a crash: no session or retained message survives).
    pub(crate) fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Stops it with SIGTERM (a clean shutdown: with `persistence true` it saves its
    /// sessions, queued messages and retained topics) and waits for it to exit.
    pub(crate) fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill")
                .args(["-TERM", &c.id().to_string()])
                .status();
            let _ = c.wait();
        }
    }

    /// (Re)starts it on the same port and waits until it accepts connections.
    pub(crate) fn restart(&mut self) {
        self.kill();
        let child = Command::new(MOSQUITTO)
            .arg("-c")
            .arg(&self.conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mosquitto");
        self.child = Some(child);
        assert!(
            wait_listening(self.port, Duration::from_secs(10)),
            "mosquitto did not listen on port {} (log: {})",
            self.port,
            std::fs::read_to_string(self._dir.path().join("mosquitto.log")).unwrap_or_default()
        );
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts the embedded rumqttd on a free port; it lives until the test process exits.
pub(crate) fn start_embedded() -> tengen_daemon::mqtt::broker::EmbeddedBroker {
    let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
    tengen_daemon::mqtt::broker::EmbeddedBroker::start(addr, 1 << 20)
        .expect("start the embedded broker")
}

/// One message as a subscriber saw it.
#[derive(Debug, Clone)]
pub(crate) struct Msg {
    /// Topic.
    pub topic: String,
    /// Payload.
    pub payload: Vec<u8>,
    /// Retain flag as delivered.
    pub retain: bool,
    /// When the client read it off the connection.
    pub at: Instant,
}

impl Msg {
    /// The payload as JSON.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.payload).expect("JSON payload")
    }
}

/// What the subscriber's task reports.
#[derive(Debug)]
pub(crate) enum SubEvent {
    /// (Re)connected and subscribed.
    Subscribed,
    /// A message.
    Msg(Msg),
}

/// A test subscriber: a rumqttc client that (re)subscribes to `filters` on every connection
/// and forwards what arrives.
pub(crate) struct Subscriber {
    /// To publish (commands).
    pub client: AsyncClient,
    rx: mpsc::UnboundedReceiver<SubEvent>,
    task: tokio::task::JoinHandle<()>,
}

impl Subscriber {
    /// Connects to `url` as `client_id` and subscribes to `filters`; returns after the first
    /// SubAck.
    pub(crate) async fn connect(url: &str, client_id: &str, filters: &[&str]) -> Subscriber {
        Subscriber::connect_with(url, client_id, None, filters).await
    }

    /// Like [`Subscriber::connect`], logged in as `user` with `password`.
    pub(crate) async fn connect_as(
        url: &str,
        user: &str,
        password: &str,
        filters: &[&str],
    ) -> Subscriber {
        Subscriber::connect_with(url, user, Some((user, password)), filters).await
    }

    async fn connect_with(
        url: &str,
        client_id: &str,
        login: Option<(&str, &str)>,
        filters: &[&str],
    ) -> Subscriber {
        let rest = url.strip_prefix("mqtt://").expect("mqtt:// url");
        let (host, port) = rest.rsplit_once(':').expect("host:port");
        let mut o = MqttOptions::new(client_id, host, port.parse().expect("port"));
        o.set_max_packet_size(1 << 20, 1 << 20);
        o.set_keep_alive(Duration::from_secs(5));
        if let Some((user, password)) = login {
            o.set_credentials(user, password);
        }
        let (client, eventloop) = AsyncClient::new(o, 100);
        let (tx, rx) = mpsc::unbounded_channel();
        let filters: Vec<String> = filters.iter().map(|s| s.to_string()).collect();
        let task = tokio::spawn(sub_loop(eventloop, client.clone(), filters, tx));
        let mut s = Subscriber { client, rx, task };
        loop {
            match s.next_event(Duration::from_secs(10)).await {
                Some(SubEvent::Subscribed) => break,
                Some(SubEvent::Msg(_)) => {}
                None => panic!("subscriber did not get a SubAck from {url}"),
            }
        }
        s
    }

    /// The next event, or `None` after `timeout`.
    pub(crate) async fn next_event(&mut self, timeout: Duration) -> Option<SubEvent> {
        tokio::time::timeout(timeout, self.rx.recv())
            .await
            .ok()
            .flatten()
    }

    /// The next message on `topic`, or `None` after `timeout`.
    pub(crate) async fn next_on(&mut self, topic: &str, timeout: Duration) -> Option<Msg> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_event(left).await? {
                SubEvent::Msg(m) if m.topic == topic => return Some(m),
                _ => {}
            }
        }
    }

    /// Stops the client.
    pub(crate) fn stop(self) {
        self.task.abort();
    }
}

async fn sub_loop(
    mut eventloop: EventLoop,
    client: AsyncClient,
    filters: Vec<String>,
    tx: mpsc::UnboundedSender<SubEvent>,
) {
    loop {
        match eventloop.poll().await {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                // Sent from the polling task without waiting: the request channel is far
                // from full here.
                let subs = filters
                    .iter()
                    .map(|f| SubscribeFilter::new(f.clone(), QoS::AtLeastOnce));
                if client.try_subscribe_many(subs).is_err() {
                    return;
                }
            }
            Ok(Event::Incoming(Packet::SubAck(_))) => {
                if tx.send(SubEvent::Subscribed).is_err() {
                    return;
                }
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let m = Msg {
                    topic: p.topic.clone(),
                    payload: p.payload.to_vec(),
                    retain: p.retain,
                    at: Instant::now(),
                };
                if tx.send(SubEvent::Msg(m)).is_err() {
                    return;
                }
            }
            Ok(_) => {}
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Event `seq` of board `board` in its game `r1-{board}`, stamped `13:45:{seq}`.
pub(crate) fn board_envelope(
    board: &str,
    seq: u64,
    event: tengen_protocol::Event,
) -> tengen_protocol::Envelope {
    tengen_protocol::Envelope {
        seq,
        time: tengen_protocol::Timestamp::parse(&format!("2026-11-29T13:45:{:02}.000Z", seq % 60))
            .expect("a time"),
        board: board.into(),
        game: format!("r1-{board}"),
        by: None,
        event,
    }
}

/// Move `number` at `point` on a 19x19 board, Black's when odd, without captures or clock.
pub(crate) fn move_event(number: u32, point: &str) -> tengen_protocol::Event {
    use tengen_rules::{Color, Point};
    tengen_protocol::Event::Move {
        number,
        color: if number % 2 == 1 {
            Color::Black
        } else {
            Color::White
        },
        point: Point::parse_gtp(point, 19).expect("a point"),
        captured: vec![],
        clock: None,
    }
}

/// Event number `seq` of a made-up game: moves, with an alert, its clearing and a warning
/// every tenth event so the `alerts` topic has traffic.
pub(crate) fn envelope(seq: u64) -> tengen_protocol::Envelope {
    use tengen_protocol::event::{Alert, AlertCode, ClearedHow, Expected};
    use tengen_protocol::{Envelope, Event, Timestamp};
    use tengen_rules::{Color, Point};
    let color = if seq % 2 == 1 {
        Color::Black
    } else {
        Color::White
    };
    let point = Point::new((seq % 19) as u8, ((seq / 19) % 19) as u8);
    let event = match seq % 10 {
        3 => Event::Alert(Alert {
            id: format!("a{seq}"),
            code: AlertCode::UncapturedStones,
            article: "18.2".into(),
            color: Some(color),
            points: vec![point],
            expected: Expected::new(vec![(point, None)]),
            message: "Captured stones are still on the board.".into(),
            late_ms: None,
        }),
        4 => Event::cleared(format!("a{}", seq - 1), ClearedHow::Restored),
        7 => Event::Warning {
            color,
            article: "18.2".into(),
            count: 1,
        },
        _ => Event::Move {
            number: seq as u32,
            color,
            point,
            captured: vec![],
            clock: None,
        },
    };
    Envelope {
        seq,
        time: Timestamp::parse(&format!(
            "2026-11-29T13:45:{:02}.{:03}Z",
            seq % 60,
            seq % 1000
        ))
        .expect("a time"),
        board: "b1".into(),
        game: "g1".into(),
        by: None,
        event,
    }
}

/// True for the events that also go to `.../alerts`.
pub(crate) fn is_alert_type(v: &serde_json::Value) -> bool {
    matches!(
        v["type"].as_str(),
        Some("alert") | Some("alert_cleared") | Some("warning")
    )
}

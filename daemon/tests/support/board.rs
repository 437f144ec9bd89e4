//! Test helpers for the board service as a process: a `tengen run` child on a sim-backed
//! config (SIGKILL, SIGTERM, restart), a de-duplicating MQTT consumer that records every
//! event with its arrival time, and a TCP proxy the test can cut and restore.
//!
//! Include with `#[path = "support/board.rs"] mod board;` next to `support/broker.rs`.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS, SubscribeFilter};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The 9x9 GNU Go game the service tests play (50 moves, ends in two passes).
pub(crate) fn game_sgf() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../rules/tests/fixtures/gnugo/games/9/game_0000.sgf")
}

/// The game's main line as `(colour, point)` text pairs (`("B", "J8")`, `("W", "pass")`).
pub(crate) fn game_moves() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(game_sgf()).expect("read the fixture game");
    let record = tengen_rules::sgf::parse(&text).expect("parse the fixture game");
    tengen_sim::GameInput::from_record(&record)
        .moves
        .iter()
        .map(|(c, m)| (c.to_string(), m.to_gtp()))
        .collect()
}

/// The board's identity in the tests.
pub(crate) const BOARD: &str = "kill-01";
/// Its topic root.
pub(crate) const ROOT: &str = "tengen/faults/kill-01";

/// Writes a `tengen run` config into `dir`: the fixture game on the sim backend at `speed`,
/// journal in `dir/data`, events to the broker at `broker_url`, MQTT keep-alive 5 s.
pub(crate) fn write_config(dir: &Path, broker_url: &str, speed: f64) -> PathBuf {
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"{BOARD}\"\ntournament = \"faults\"\ngame = \"g1\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n\
             [hardware.sim]\nsgf = \"{}\"\nseed = 7\nspeed = {speed:?}\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"10m\"\nperiods = 3\nperiod = \"30s\"\n\
             [mqtt]\nurl = \"{broker_url}\"\nkeepalive = \"5s\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n[storage]\ndir = \"data\"\n",
            game_sgf().display()
        ),
    )
    .expect("write board.toml");
    path
}

/// A `tengen run` process (killed on drop).
pub(crate) struct BoardProcess {
    child: Option<Child>,
    config: PathBuf,
    /// Where its log goes, at `info` ([`BoardProcess::start_logged`]); errors only, to a
    /// pipe, without.
    log: Option<PathBuf>,
    /// When the current process was started.
    pub started: Instant,
    /// How many times it was started.
    pub starts: u32,
}

impl BoardProcess {
    /// Starts `tengen run --config config`.
    pub(crate) fn start(config: &Path) -> BoardProcess {
        let mut b = BoardProcess {
            child: None,
            config: config.to_path_buf(),
            log: None,
            started: Instant::now(),
            starts: 0,
        };
        b.restart();
        b
    }

    /// Starts `tengen run --config config` logging at `info` to `log` (appended to across
    /// restarts).
    pub(crate) fn start_logged(config: &Path, log: &Path) -> BoardProcess {
        let mut b = BoardProcess {
            child: None,
            config: config.to_path_buf(),
            log: Some(log.to_path_buf()),
            started: Instant::now(),
            starts: 0,
        };
        b.restart();
        b
    }

    /// What it has logged so far ([`BoardProcess::start_logged`]).
    pub(crate) fn log(&self) -> String {
        self.log
            .as_ref()
            .and_then(|l| std::fs::read_to_string(l).ok())
            .unwrap_or_default()
    }

    /// The journal directory.
    pub(crate) fn data(&self) -> PathBuf {
        self.config.parent().expect("config dir").join("data")
    }

    /// Starts it again (after a kill or a stop).
    pub(crate) fn restart(&mut self) {
        assert!(self.child.is_none(), "still running");
        let (level, stderr) = match &self.log {
            Some(path) => {
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .expect("open the board's log");
                ("info", Stdio::from(file))
            }
            None => ("error", Stdio::piped()),
        };
        let child = Command::new(env!("CARGO_BIN_EXE_tengen"))
            .args(["run", "--config"])
            .arg(&self.config)
            .env("RUST_LOG", level)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .expect("spawn tengen run");
        self.started = Instant::now();
        self.starts += 1;
        self.child = Some(child);
    }

    /// SIGKILL (a crash or a power cut as the process sees it), and reaps it.
    pub(crate) fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM, then waits for the exit code.
    pub(crate) fn terminate(&mut self) -> i32 {
        let Some(mut c) = self.child.take() else {
            return -1;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        c.wait().ok().and_then(|s| s.code()).unwrap_or(-1)
    }

    /// True while the process runs; when it has exited, panics with its stderr (a service
    /// that dies by itself is a failure).
    pub(crate) fn assert_running(&mut self) {
        let logged = self.log();
        if let Some(c) = self.child.as_mut() {
            if let Ok(Some(status)) = c.try_wait() {
                let mut err = logged;
                if let Some(mut e) = c.stderr.take() {
                    use std::io::Read;
                    let _ = e.read_to_string(&mut err);
                }
                panic!("tengen run exited by itself ({status}): {err}");
            }
        }
    }
}

impl Drop for BoardProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What the consumer has seen.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    /// The first copy of each event, by seq.
    pub events: BTreeMap<u64, serde_json::Value>,
    /// When each seq first arrived.
    pub arrived: BTreeMap<u64, Instant>,
    /// Messages on `.../events`, duplicates included.
    pub raw: u64,
    /// Messages on `.../events` whose seq was already held.
    pub duplicates: u64,
    /// Duplicates whose content differs from the first copy (an event numbered again):
    /// must stay 0.
    pub conflicts: u64,
    /// The latest message on each other topic (`status`, `state`, `sgf`, `alerts/active`),
    /// with its time.
    pub latest: BTreeMap<String, (Instant, Vec<u8>)>,
    /// Every `status` payload's `state` with its arrival time.
    pub statuses: Vec<(Instant, String)>,
    /// Connections made (ConnAcks).
    pub connections: u32,
}

impl Seen {
    /// The highest seq such that every seq from 1 to it is held.
    pub(crate) fn contiguous(&self) -> u64 {
        let mut n = 0;
        for s in self.events.keys() {
            if *s != n + 1 {
                break;
            }
            n = *s;
        }
        n
    }

    /// The highest seq held.
    pub(crate) fn max_seq(&self) -> u64 {
        self.events.keys().next_back().copied().unwrap_or(0)
    }

    /// The seqs missing below the highest one.
    pub(crate) fn gaps(&self) -> Vec<u64> {
        (1..=self.max_seq())
            .filter(|s| !self.events.contains_key(s))
            .collect()
    }

    /// The first arrival after `t` of a seq above `above`.
    pub(crate) fn first_new_after(&self, t: Instant, above: u64) -> Option<Instant> {
        self.arrived
            .range(above + 1..)
            .map(|(_, at)| *at)
            .filter(|at| *at >= t)
            .min()
    }

    /// True once a `game_over` event is held.
    pub(crate) fn game_over(&self) -> bool {
        self.events.values().any(|e| e["type"] == "game_over")
    }

    /// The moves and passes held, in seq order, as `(colour, point)`.
    pub(crate) fn moves(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for e in self.events.values() {
            match e["type"].as_str() {
                Some("move") => out.push((
                    e["color"].as_str().unwrap_or("").to_string(),
                    e["point"].as_str().unwrap_or("").to_string(),
                )),
                Some("pass") => {
                    out.push((e["color"].as_str().unwrap_or("").to_string(), "pass".into()))
                }
                Some("move_retracted") => {
                    out.pop();
                }
                _ => {}
            }
        }
        out
    }
}

/// A consumer of one board's topics, as a hall would be: a persistent session (so a broker
/// restart keeps its subscription and queue), QoS 1, events de-duplicated by seq.
pub(crate) struct Consumer {
    /// To publish commands (`republish`).
    pub client: AsyncClient,
    seen: Arc<Mutex<Seen>>,
    task: tokio::task::JoinHandle<()>,
}

impl Consumer {
    /// Connects to the broker at `port` as `client_id` and subscribes to the board's
    /// `events`, `status`, `state`, `sgf` and `alerts/active`; returns once subscribed.
    pub(crate) async fn connect(port: u16, client_id: &str) -> Consumer {
        let mut o = MqttOptions::new(client_id, "127.0.0.1", port);
        o.set_max_packet_size(1 << 20, 1 << 20);
        o.set_keep_alive(Duration::from_secs(5));
        o.set_clean_session(false);
        let (client, mut eventloop) = AsyncClient::new(o, 1000);
        let seen = Arc::new(Mutex::new(Seen::default()));
        let (subscribed_tx, mut subscribed) = watch::channel(0u32);
        let task = {
            let seen = Arc::clone(&seen);
            let client = client.clone();
            tokio::spawn(async move {
                loop {
                    match eventloop.poll().await {
                        Ok(Event::Incoming(Packet::ConnAck(_))) => {
                            seen.lock().unwrap().connections += 1;
                            let topics =
                                ["events", "status", "state", "sgf", "alerts/active"].map(|t| {
                                    SubscribeFilter::new(format!("{ROOT}/{t}"), QoS::AtLeastOnce)
                                });
                            if client.try_subscribe_many(topics).is_err() {
                                return;
                            }
                        }
                        Ok(Event::Incoming(Packet::SubAck(_))) => {
                            subscribed_tx.send_modify(|n| *n += 1);
                        }
                        Ok(Event::Incoming(Packet::Publish(p))) => {
                            let now = Instant::now();
                            let mut s = seen.lock().unwrap();
                            let topic = p.topic.strip_prefix(ROOT).unwrap_or(&p.topic);
                            if topic == "/events" {
                                s.raw += 1;
                                let Ok(v) = serde_json::from_slice::<serde_json::Value>(&p.payload)
                                else {
                                    continue;
                                };
                                let Some(seq) = v["seq"].as_u64() else {
                                    continue;
                                };
                                if let Some(first) = s.events.get(&seq) {
                                    let differs = *first != v;
                                    s.duplicates += 1;
                                    if differs {
                                        s.conflicts += 1;
                                    }
                                } else {
                                    s.events.insert(seq, v);
                                    s.arrived.insert(seq, now);
                                }
                            } else {
                                if topic == "/status" {
                                    if let Ok(v) =
                                        serde_json::from_slice::<serde_json::Value>(&p.payload)
                                    {
                                        let state = v["state"].as_str().unwrap_or("").to_string();
                                        s.statuses.push((now, state));
                                    }
                                }
                                s.latest.insert(
                                    topic.trim_start_matches('/').to_string(),
                                    (now, p.payload.to_vec()),
                                );
                            }
                        }
                        Ok(_) => {}
                        Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                    }
                }
            })
        };
        let ok = tokio::time::timeout(Duration::from_secs(10), subscribed.wait_for(|n| *n > 0))
            .await
            .is_ok();
        assert!(ok, "the consumer did not subscribe on port {port}");
        Consumer { client, seen, task }
    }

    /// A look at what has been seen.
    pub(crate) fn with<T>(&self, f: impl FnOnce(&Seen) -> T) -> T {
        f(&self.seen.lock().unwrap())
    }

    /// Waits until `f` holds (checked every 20 ms), at most `timeout`; false on timeout.
    pub(crate) async fn wait_until(&self, timeout: Duration, f: impl Fn(&Seen) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.with(&f) {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Asks the board to send its stream again from `from_seq` (how a consumer fills a
    /// gap, the wire contract's `republish`).
    pub(crate) async fn republish(&self, from_seq: u64) {
        let cmd = serde_json::json!({"id": format!("heal-{from_seq}"), "type": "republish", "from_seq": from_seq});
        self.command(&cmd).await;
    }

    /// Publishes `cmd` on the board's command topic (QoS 1).
    pub(crate) async fn command(&self, cmd: &serde_json::Value) {
        self.client
            .publish(
                format!("{ROOT}/cmd"),
                QoS::AtLeastOnce,
                false,
                cmd.to_string(),
            )
            .await
            .expect("publish a command");
    }

    /// Stops the client.
    pub(crate) fn stop(self) {
        self.task.abort();
    }
}

/// The network between the board and the broker, as the [`Proxy`] plays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Net {
    /// Bytes flow.
    Up,
    /// Nothing flows, nothing is closed (a Wi-Fi that went quiet, a cable pulled between
    /// switches): both ends find out only by their own timeouts. Bytes sent meanwhile are
    /// delivered once the network is back (TCP retransmits), if the ends still listen.
    Silent,
    /// Every connection dropped, new ones refused (a router restarting).
    Cut,
}

/// A TCP proxy in front of the broker: forwards connections until [`Proxy::cut`] drops them
/// all and refuses new ones, or [`Proxy::silence`] stops every byte without closing
/// anything, until [`Proxy::restore`].
pub(crate) struct Proxy {
    /// Where clients connect.
    pub addr: SocketAddr,
    net: watch::Sender<Net>,
    task: tokio::task::JoinHandle<()>,
}

/// Copies `from` to `to` while the network lets it: holds (reads nothing, closes nothing)
/// while it is silent, stops when it is cut or either end closes.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut net: watch::Receiver<Net>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        // Wait out a silence; give up on a cut.
        match net.wait_for(|n| *n != Net::Silent).await.map(|n| *n) {
            Ok(Net::Up) => {}
            _ => return,
        }
        let n = tokio::select! {
            // An error ends the connection like a close.
            r = from.read(&mut buf) => r.unwrap_or_default(),
            _ = net.changed() => continue,
        };
        // What was read (or a close) goes through once the network is up again.
        match net.wait_for(|n| *n != Net::Silent).await.map(|n| *n) {
            Ok(Net::Up) => {}
            _ => return,
        }
        if n == 0 || to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

impl Proxy {
    /// Listens on a free port of 127.0.0.1 and forwards to `target`.
    pub(crate) async fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the proxy");
        let addr = listener.local_addr().expect("proxy address");
        let (net, net_rx) = watch::channel(Net::Up);
        let task = tokio::spawn(async move {
            loop {
                let Ok((inbound, _)) = listener.accept().await else {
                    continue;
                };
                if *net_rx.borrow() == Net::Cut {
                    drop(inbound);
                    continue;
                }
                let mut net = net_rx.clone();
                tokio::spawn(async move {
                    // A connection opened during a silence reaches the broker only once the
                    // network is back.
                    match net.wait_for(|n| *n != Net::Silent).await.map(|n| *n) {
                        Ok(Net::Up) => {}
                        _ => return,
                    }
                    let Ok(outbound) = TcpStream::connect(target).await else {
                        return;
                    };
                    let (a_read, a_write) = inbound.into_split();
                    let (b_read, b_write) = outbound.into_split();
                    tokio::join!(
                        pump(a_read, b_write, net.clone()),
                        pump(b_read, a_write, net.clone()),
                    );
                });
            }
        });
        Proxy { addr, net, task }
    }

    /// Drops every connection and refuses new ones.
    pub(crate) fn cut(&self) {
        self.net.send_replace(Net::Cut);
    }

    /// Stops every byte in both directions without closing anything.
    pub(crate) fn silence(&self) {
        self.net.send_replace(Net::Silent);
    }

    /// Forwards again (what was held back during a silence goes through).
    pub(crate) fn restore(&self) {
        self.net.send_replace(Net::Up);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Median of durations in ms (0 for none).
pub(crate) fn median_ms(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

//! Issue 21, the hall network's trust boundary, against a real mosquitto:
//!
//! - the hall believes only its boards (`[hall] tournaments` and `boards`): a forged
//!   retained alert and a forged game from an account that is not a listed board show
//!   nowhere (`/api/boards`, `/api/console/alerts`, the archive, `/round/1.zip`) while the
//!   listed board's do, and 2,000 made-up tournaments leave `/api/boards` as it was;
//! - `tengen broker-config` writes files the real mosquitto runs on: a board publishes its
//!   own topics and no other board's, `viewer` publishes nothing and reads no `tengen/`, a
//!   wrong password is refused, and `viewer` taking a board's client id does not throw the
//!   board off;
//! - `/api/broker` says only whether the hall is connected; why not (the refused user) is on
//!   the arbiters' `/api/console/broker`.

use crate::broker;
use crate::cli;
use crate::http;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use broker::{free_port, wait_listening, Mosquitto, Subscriber, MOSQUITTO};
use http::{console_login, get, session_cookie, wait_for};
use rumqttc::{AsyncClient, ConnectReturnCode, Event as MqttEvent, MqttOptions, Packet, QoS};
use serde_json::json;
use tengen_hall::HallConfig;
use tengen_protocol::event::{
    Alert, AlertCode, EndReason, Envelope, Event, Expected, GameEnd, GameSetup,
};
use tengen_rules::Point;

const TOKEN: &str = "trust-token-0123456";
const T: &str = "open-2026";

/// Event `seq` of `board`'s game `game`.
fn ev(board: &str, game: &str, seq: u64, event: Event) -> String {
    let e = Envelope {
        game: game.into(),
        ..broker::board_envelope(board, seq, event)
    };
    serde_json::to_string(&e).expect("an event")
}

fn started(table: &str) -> Event {
    Event::GameStarted(GameSetup {
        black: "Black Player".into(),
        white: "White Player".into(),
        round: "1".into(),
        table: table.into(),
        ..GameSetup::default()
    })
}

fn over(result: &str) -> Event {
    Event::GameOver(GameEnd::uncounted(result, EndReason::Resignation))
}

/// `alerts/active` of `board`: one open alert `id`.
fn active_alert(board: &str, id: &str) -> String {
    let alert = Event::Alert(Alert {
        id: id.into(),
        code: AlertCode::UncapturedStones,
        article: "18.2".into(),
        color: None,
        points: vec![Point::parse_gtp("D16", 19).expect("a point")],
        expected: Expected::new(vec![]),
        message: "Captured stones are still on the board.".into(),
        late_ms: None,
    });
    let e = broker::board_envelope(board, 9, alert);
    json!([e]).to_string()
}

async fn publish(c: &Subscriber, topic: &str, payload: String, retain: bool) {
    c.client
        .publish(topic, QoS::AtLeastOnce, retain, payload.into_bytes())
        .await
        .expect("publish");
}

/// (tournament, board) of every board `/api/boards` lists.
async fn listed(addr: std::net::SocketAddr) -> Vec<(String, String)> {
    let v = get(addr, "/api/boards", &[]).await.json();
    v.as_array()
        .expect("a list")
        .iter()
        .map(|b| {
            (
                b["tournament"].as_str().unwrap_or_default().to_string(),
                b["board"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Every `tournament/board` folder of the archive.
fn archived(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for t in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for b in std::fs::read_dir(t.path()).into_iter().flatten().flatten() {
            if b.path().is_dir() {
                out.push(format!(
                    "{}/{}",
                    t.file_name().to_string_lossy(),
                    b.file_name().to_string_lossy()
                ));
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn the_hall_believes_only_its_boards() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let forger = Subscriber::connect(&mosq.url(), "viewer", &["nothing/here"]).await;
    let board = Subscriber::connect(&mosq.url(), "hall1-01", &["tengen/+/+/cmd"]).await;
    // Retained before the hall starts, as after a restart: a forged alert of "viewer", and
    // the listed board's own.
    let forged_alert = format!("tengen/{T}/viewer/alerts/active");
    publish(&forger, &forged_alert, active_alert("viewer", "f1"), true).await;
    let own_alert = format!("tengen/{T}/hall1-01/alerts/active");
    publish(&board, &own_alert, active_alert("hall1-01", "a9"), true).await;

    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("hall.toml");
    std::fs::write(
        &file,
        format!(
            "[hall]\ntournaments = [\"{T}\"]\nboards = [\"hall1-01\"]\narchive_dir = \"archive\"\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
        ),
    )
    .expect("write hall.toml");
    let config = HallConfig::load(&file).expect("a valid hall.toml");
    assert_eq!(config.trust_warning(), None);
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let cookie = session_cookie(&console_login(addr, "chief", TOKEN).await);
    let auth = ("Cookie", cookie.as_str());

    let own = format!("tengen/{T}/hall1-01/events");
    let status = json!({"state": "online", "version": "0.1.0", "board": "hall1-01"});
    publish(
        &board,
        &format!("tengen/{T}/hall1-01/status"),
        status.to_string(),
        true,
    )
    .await;
    wait_for("the listed board", || async {
        (listed(addr).await.len() == 1).then_some(())
    })
    .await;
    publish(
        &board,
        &own,
        ev("hall1-01", "r1-t1", 1, started("1")),
        false,
    )
    .await;
    // The forged games: "viewer" as a board of the tournament (table 3 of round 1, with the
    // pairing's names), a listed board under another tournament, and a board of the
    // right shape that is not listed.
    for topic in [
        format!("tengen/{T}/viewer/events"),
        "tengen/other-2026/hall1-01/events".to_string(),
        format!("tengen/{T}/hall1-02/events"),
    ] {
        publish(
            &forger,
            &topic,
            ev("viewer", "r1-t3", 1, started("3")),
            false,
        )
        .await;
        publish(
            &forger,
            &topic,
            ev("viewer", "r1-t3", 2, over("W+R")),
            false,
        )
        .await;
    }
    publish(&board, &own, ev("hall1-01", "r1-t1", 2, over("B+R")), false).await;

    // The listed board's game is over, in the archive and the round's zip.
    let zip = wait_for("the listed game in /round/1.zip", || async {
        let r = get(addr, "/round/1.zip", &[]).await;
        (r.status == 200).then_some(r.body)
    })
    .await;
    let names: Vec<String> = {
        let z = zip::ZipArchive::new(std::io::Cursor::new(zip)).expect("a zip");
        z.file_names().map(str::to_string).collect()
    };
    assert_eq!(names.len(), 1, "{names:?}");
    assert_eq!(
        listed(addr).await,
        [(T.to_string(), "hall1-01".to_string())]
    );
    let alerts = wait_for("the listed board's alert", || async {
        let v = get(addr, "/api/console/alerts", &[auth]).await.json();
        v.as_array().is_some_and(|a| !a.is_empty()).then_some(v)
    })
    .await;
    let boards: Vec<(&str, &str)> = alerts
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["board"].as_str().unwrap(), a["id"].as_str().unwrap()))
        .collect();
    assert_eq!(boards, [("hall1-01", "a9")], "{alerts}");
    let archive = dir.path().join("archive");
    wait_for("the archive", || async {
        (!archived(&archive).is_empty()).then_some(())
    })
    .await;
    assert_eq!(archived(&archive), [format!("{T}/hall1-01")]);

    // A flood of made-up tournaments, then the listed board clears its alert: once the
    // console shows that, the hall has read every message before it.
    let before = listed(addr).await;
    let flood_started = Instant::now();
    for n in 0..2000 {
        let topic = format!("tengen/fl2-{n}/viewer/events");
        publish(
            &forger,
            &topic,
            ev("viewer", "r1-t3", 1, started("3")),
            false,
        )
        .await;
    }
    let flood_took = flood_started.elapsed();
    publish(&board, &own_alert, "[]".into(), true).await;
    wait_for("the alert cleared", || async {
        let v = get(addr, "/api/console/alerts", &[auth]).await.json();
        (v == json!([])).then_some(())
    })
    .await;
    // /api/boards is built at most once a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(listed(addr).await, before, "the flood left no board");
    let r = get(addr, "/api/boards", &[]).await;
    assert!(r.body.len() < 10_000, "{} bytes", r.body.len());
    assert_eq!(archived(&archive), [format!("{T}/hall1-01")]);
    eprintln!("2,000 made-up tournaments published in {flood_took:?}");

    hall.stop();
    forger.stop();
    board.stop();
}

/// Issue 34, item 4: the `[tournament] boards` pattern believes only the tables the
/// tournament file has (`juvisy.xml`: 19 players, tables 1 to 10). Before, 2,000 made-up
/// boards of the right shape (`hall1-100` ...) each became a board, listed and archived,
/// and grew the hall from 13 to 305 MB.
#[tokio::test]
async fn the_tournament_pattern_believes_only_the_files_tables() {
    // The shipped broker's queue (config/mosquitto/mosquitto.conf): with mosquitto's default
    // of 1,000, a hall slowed by a busy machine fell more than 1,000 messages behind the flood
    // and the broker dropped the real board's game over that came after it (a CI run).
    let Some(mosq) = Mosquitto::start_with("max_queued_messages 10000") else {
        return;
    };
    let forger = Subscriber::connect(&mosq.url(), "viewer", &["nothing/here"]).await;
    let board = Subscriber::connect(&mosq.url(), "hall1-01", &["tengen/+/+/cmd"]).await;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tournament/tests/data/opengotha/juvisy.xml"),
        dir.path().join("cup.xml"),
    )
    .expect("copy the sample");
    let file = dir.path().join("hall.toml");
    std::fs::write(
        &file,
        "[hall]\narchive_dir = \"archive\"\n\
         [tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{table:02}\"\nid = \"cup\"\n",
    )
    .expect("write hall.toml");
    let config = HallConfig::load(&file).expect("a valid hall.toml");
    assert_eq!(config.trust_warning(), None);
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let own = "tengen/cup/hall1-01/events";
    let status = json!({"state": "online", "version": "0.1.0", "board": "hall1-01"});
    let status_topic = "tengen/cup/hall1-01/status";
    publish(&board, status_topic, status.to_string(), true).await;
    wait_for("the table's board", || async {
        (listed(addr).await.len() == 1).then_some(())
    })
    .await;
    publish(&board, own, ev("hall1-01", "r1-t1", 1, started("1")), false).await;
    let archive = dir.path().join("archive");
    wait_for("the archive", || async {
        (!archived(&archive).is_empty()).then_some(())
    })
    .await;
    // Table 10 is the file's (half of 19 players, up); 11 and beyond are not.
    publish(
        &forger,
        "tengen/cup/hall1-10/events",
        ev("hall1-10", "r1-t10", 1, started("10")),
        false,
    )
    .await;
    for n in 11..2011 {
        let b = format!("hall1-{n:02}");
        let topic = format!("tengen/cup/{b}/events");
        publish(&forger, &topic, ev(&b, "r1-t3", 1, started("3")), false).await;
    }
    publish(&board, own, ev("hall1-01", "r1-t1", 2, over("B+R")), false).await;
    wait_for("the table's game over", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        let over = v
            .as_array()
            .into_iter()
            .flatten()
            .any(|b| b["board"] == "hall1-01" && b["result"] == "B+R");
        over.then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let boards = listed(addr).await;
    assert_eq!(
        boards.len(),
        2,
        "{} boards: {:?}",
        boards.len(),
        &boards[..5.min(boards.len())]
    );
    assert_eq!(
        boards,
        [
            ("cup".to_string(), "hall1-01".to_string()),
            ("cup".to_string(), "hall1-10".to_string())
        ]
    );
    let folders = archived(&archive);
    assert_eq!(folders.len(), 2, "{} archive folders", folders.len());
    assert_eq!(folders, ["cup/hall1-01", "cup/hall1-10"]);
    hall.stop();
    forger.stop();
    board.stop();
}

/// A mosquitto run on the config `tengen broker-config` wrote, its listeners replaced by
/// one plain listener on a free port; killed on drop.
struct Broker {
    child: Child,
    port: u16,
}

impl Drop for Broker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The generated config as written, but for the TLS listener (its files are not on this
/// machine: the block from `listener 8883` to the next blank line goes), the loopback
/// listener's port (a free one) and persistence (off, in a test).
fn run_broker(dir: &Path) -> Broker {
    let conf = std::fs::read_to_string(dir.join("mosquitto.conf")).expect("the conf");
    let port = free_port();
    let mut text = String::new();
    let mut in_tls = false;
    for line in conf.lines() {
        if line == "listener 8883" {
            in_tls = true;
        } else if line.is_empty() {
            in_tls = false;
        }
        let key = line.split_whitespace().next().unwrap_or_default();
        if in_tls || key == "persistence" || key == "autosave_interval" {
            continue;
        }
        if line == "listener 1883 127.0.0.1" {
            text.push_str(&format!("listener {port} 127.0.0.1\n"));
        } else {
            text.push_str(&format!("{line}\n"));
        }
    }
    assert!(
        text.contains(&format!(
            "listener {port} 127.0.0.1\nuse_username_as_clientid true\n"
        )),
        "{text}"
    );
    text.push_str(&format!(
        "persistence false\nuser root\nlog_dest file {}\n",
        dir.join("mosquitto.log").display()
    ));
    let test_conf = dir.join("test.conf");
    std::fs::write(&test_conf, text).expect("write the test conf");
    let child = Command::new(MOSQUITTO)
        .arg("-c")
        .arg(&test_conf)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mosquitto");
    let broker = Broker { child, port };
    assert!(
        wait_listening(port, Duration::from_secs(10)),
        "mosquitto did not start: {}",
        std::fs::read_to_string(dir.join("mosquitto.log")).unwrap_or_default()
    );
    broker
}

/// One client logged in as `user` with client id `id`: its CONNACK's code, and the client
/// with its events when accepted.
struct Client {
    client: AsyncClient,
    rx: tokio::sync::mpsc::UnboundedReceiver<MqttEvent>,
    task: tokio::task::JoinHandle<()>,
}

/// Why a test client could not log in to the broker.
#[derive(Debug, thiserror::Error)]
enum LoginError {
    /// No CONNACK within 10 s.
    #[error("no CONNACK")]
    NoConnAck,
    /// The broker refused the login.
    #[error("refused: {0:?}")]
    Refused(ConnectReturnCode),
    /// The connection failed.
    #[error(transparent)]
    Connection(#[from] rumqttc::ConnectionError),
}

async fn login(port: u16, id: &str, user: &str, password: &str) -> Result<Client, LoginError> {
    let mut o = MqttOptions::new(id, "127.0.0.1", port);
    o.set_credentials(user, password);
    o.set_keep_alive(Duration::from_secs(5));
    let (client, mut eventloop) = AsyncClient::new(o, 100);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let polled = tokio::time::timeout_at(deadline, eventloop.poll())
            .await
            .map_err(|_| LoginError::NoConnAck)?;
        match polled {
            Ok(MqttEvent::Incoming(Packet::ConnAck(a))) if a.code == ConnectReturnCode::Success => {
                break
            }
            Ok(MqttEvent::Incoming(Packet::ConnAck(a))) => return Err(LoginError::Refused(a.code)),
            Ok(_) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        loop {
            match eventloop.poll().await {
                Ok(e) => {
                    if tx.send(e).is_err() {
                        return;
                    }
                }
                Err(e) => {
                    // Thrown off: say so once, and stop.
                    let _ = tx.send(MqttEvent::Outgoing(rumqttc::Outgoing::Disconnect));
                    eprintln!("client stopped: {e}");
                    return;
                }
            }
        }
    });
    Ok(Client { client, rx, task })
}

impl Client {
    /// Subscribes to `filter` and returns the QoS the broker granted (`None`: refused).
    async fn subscribe(&mut self, filter: &str) -> Option<u8> {
        self.client
            .subscribe(filter, QoS::AtLeastOnce)
            .await
            .expect("subscribe");
        loop {
            match tokio::time::timeout(Duration::from_secs(10), self.rx.recv()).await {
                Ok(Some(MqttEvent::Incoming(Packet::SubAck(a)))) => {
                    return match a.return_codes.first() {
                        Some(rumqttc::SubscribeReasonCode::Success(q)) => Some(*q as u8),
                        _ => None,
                    };
                }
                Ok(Some(_)) => {}
                _ => panic!("no SUBACK"),
            }
        }
    }

    async fn publish(&self, topic: &str, payload: &str, retain: bool) {
        self.client
            .publish(topic, QoS::AtLeastOnce, retain, payload.as_bytes().to_vec())
            .await
            .expect("publish");
    }

    /// The topics of the messages received within `wait`; panics if the client was thrown
    /// off the broker.
    async fn received(&mut self, wait: Duration) -> Vec<String> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut topics = Vec::new();
        while let Ok(Some(e)) = tokio::time::timeout_at(deadline, self.rx.recv()).await {
            match e {
                MqttEvent::Incoming(Packet::Publish(p)) => topics.push(p.topic.clone()),
                MqttEvent::Outgoing(rumqttc::Outgoing::Disconnect) => {
                    panic!("thrown off the broker")
                }
                _ => {}
            }
        }
        topics
    }

    /// Receives until `topic` arrives (at most 10 s): every topic received, in order.
    async fn until(&mut self, topic: &str) -> Vec<String> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let mut topics = Vec::new();
        loop {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(MqttEvent::Incoming(Packet::Publish(p)))) => {
                    topics.push(p.topic.clone());
                    if p.topic == topic {
                        return topics;
                    }
                }
                Ok(Some(MqttEvent::Outgoing(rumqttc::Outgoing::Disconnect))) => {
                    panic!("thrown off the broker")
                }
                Ok(Some(_)) => {}
                _ => panic!("{topic} never came; got {topics:?}"),
            }
        }
    }

    fn stop(self) {
        self.task.abort();
    }
}

/// `tengen broker-config` into `out`: each account's password.
fn broker_config(out: &Path) -> BTreeMap<String, String> {
    let o = cli::tengen(&[
        "broker-config",
        "--boards",
        "hall1-{table:02}",
        "--count",
        "3",
        "--tournament",
        T,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", cli::stderr(&o));
    let text = cli::stdout(&o);
    let accounts: BTreeMap<String, String> = text
        .lines()
        .map(|l| {
            let (name, pw) = l.split_once(' ').expect("NAME PASSWORD");
            (name.to_string(), pw.to_string())
        })
        .collect();
    assert_eq!(
        accounts.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "hall",
            "hall-desk",
            "hall1-01",
            "hall1-02",
            "hall1-03",
            "viewer"
        ]
    );
    assert_eq!(text.lines().count(), 6);
    accounts
}

#[tokio::test]
async fn broker_config_gives_each_account_only_its_part() {
    if !Path::new(MOSQUITTO).exists() {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let out: PathBuf = tmp.path().join("broker");
    let pw = broker_config(&out);
    for file in ["passwd", "acl", "mosquitto.conf"] {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join(file))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{file}");
    }
    let passwd = std::fs::read_to_string(out.join("passwd")).unwrap();
    for (name, password) in &pw {
        assert!(passwd.contains(&format!("{name}:$7$101$")), "{passwd}");
        assert!(!passwd.contains(password.as_str()), "no password in clear");
    }
    let acl = std::fs::read_to_string(out.join("acl")).unwrap();
    assert!(!acl.lines().any(|l| l.starts_with("pattern")), "{acl}");
    let conf = std::fs::read_to_string(out.join("mosquitto.conf")).unwrap();
    for line in [
        "allow_anonymous false",
        "use_username_as_clientid true",
        &format!("password_file {}", out.join("passwd").display()),
        &format!("acl_file {}", out.join("acl").display()),
    ] {
        assert!(conf.lines().any(|l| l == line), "{line}: {conf}");
    }
    // Never over the files of before (their passwords are in use).
    let again = cli::tengen(&[
        "broker-config",
        "--boards",
        "b{table}",
        "--count",
        "1",
        "--tournament",
        T,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(cli::stderr(&again).lines().count(), 1);
    assert_eq!(std::fs::read_to_string(out.join("passwd")).unwrap(), passwd);

    let broker = run_broker(&out);
    let port = broker.port;
    let mut hall = login(port, "screens", "hall", &pw["hall"])
        .await
        .expect("hall");
    assert_eq!(hall.subscribe("tengen/#").await, Some(1));
    let board = login(port, "tengen-hall1-01", "hall1-01", &pw["hall1-01"])
        .await
        .expect("board hall1-01");

    // A board publishes its own topics, not another board's.
    let own = format!("tengen/{T}/hall1-01/events");
    board
        .publish(&format!("tengen/{T}/hall1-02/events"), "{}", false)
        .await;
    board
        .publish(&format!("tengen/{T}/hall1-02/alerts/active"), "[]", true)
        .await;
    board
        .publish("tengen/other/hall1-01/events", "{}", false)
        .await;
    board.publish(&own, "{}", false).await;
    assert_eq!(hall.until(&own).await, [own.as_str()]);

    // A wrong password, or none, is refused.
    for (user, password) in [("hall1-02", "not-it"), ("viewer", ""), ("nobody", "x")] {
        let r = login(port, "probe", user, password).await;
        assert!(r.is_err(), "{user} logged in with a wrong password");
    }

    // The viewer: reads the public tree only, and writes nothing.
    let mut viewer = login(port, "overlay", "viewer", &pw["viewer"])
        .await
        .expect("viewer");
    viewer.subscribe("tengen/#").await;
    viewer.subscribe("public/#").await;
    for topic in [
        format!("tengen/{T}/viewer/alerts/active"),
        format!("tengen/{T}/viewer/events"),
        format!("tengen/{T}/hall1-01/events"),
        format!("tengen/{T}/hall1-01/cmd"),
        format!("public/{T}/hall1-01/events"),
    ] {
        viewer.publish(&topic, "[]", true).await;
    }
    // hall-desk writes the public tree and a board's command.
    let desk = login(port, "desk", "hall-desk", &pw["hall-desk"])
        .await
        .expect("hall-desk");
    let mut board = board;
    board.subscribe(&format!("tengen/{T}/hall1-01/cmd")).await;
    let cmd = format!("tengen/{T}/hall1-01/cmd");
    desk.publish(&format!("public/{T}/hall1-01/state"), "{}", false)
        .await;
    desk.publish(&cmd, "{}", false).await;
    assert_eq!(
        board.until(&cmd).await,
        [cmd.as_str()],
        "only hall-desk's command"
    );
    assert_eq!(
        hall.until(&cmd).await,
        [cmd.as_str()],
        "nothing of the viewer's"
    );
    let seen = viewer.received(Duration::from_millis(500)).await;
    assert_eq!(
        seen,
        [format!("public/{T}/hall1-01/state")],
        "no tengen/ topic"
    );
    desk.stop();

    // The viewer taking the board's client id does not throw the board off: the broker
    // knows each client by its user name.
    let thief = login(port, "tengen-hall1-01", "viewer", &pw["viewer"])
        .await
        .expect("viewer with the board's client id");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let later = format!("tengen/{T}/hall1-01/status");
    board
        .publish(&later, r#"{"state":"online","version":"0.1.0"}"#, true)
        .await;
    assert_eq!(hall.until(&later).await, [later.as_str()]);
    assert!(board.received(Duration::from_millis(300)).await.is_empty());
    thief.stop();

    // The hall: with hall-desk's password it connects; with a wrong one the public sees
    // only that it is not connected, the arbiters why.
    let dir = tmp.path().join("hall");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("pw"), "not-the-password\n").unwrap();
    let toml = format!(
        "[mqtt]\nusername = \"hall-desk\"\npassword_file = \"pw\"\n\
         [hall]\ntournaments = [\"{T}\"]\nboards = [\"hall1-01\"]\n\
         [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
    );
    std::fs::write(dir.join("hall.toml"), &toml).unwrap();
    let config = HallConfig::load(&dir.join("hall.toml")).expect("valid");
    let refused = tengen_hall::start(&format!("mqtt://127.0.0.1:{port}"), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = refused.addr;
    let cookie = session_cookie(&console_login(addr, "chief", TOKEN).await);
    let detail = wait_for("the refusal", || async {
        let v = get(addr, "/api/console/broker", &[("Cookie", cookie.as_str())])
            .await
            .json();
        v["error"].is_string().then_some(v)
    })
    .await;
    assert!(
        detail["error"].as_str().unwrap().contains("hall-desk"),
        "{detail}"
    );
    assert_eq!(detail["connected"], false);
    let public = get(addr, "/api/broker", &[]).await;
    assert_eq!(public.json(), json!({"connected": false}));
    assert!(!public.text().contains("hall-desk"));
    assert_eq!(get(addr, "/api/console/broker", &[]).await.status, 401);
    refused.stop();

    std::fs::write(dir.join("pw"), format!("{}\n", pw["hall-desk"])).unwrap();
    let config = HallConfig::load(&dir.join("hall.toml")).expect("valid");
    let hall_desk = tengen_hall::start(&format!("mqtt://127.0.0.1:{port}"), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall_desk.addr;
    wait_for("the hall connected", || async {
        let v = get(addr, "/api/broker", &[]).await.json();
        (v == json!({"connected": true})).then_some(())
    })
    .await;
    wait_for("the board in the hall", || async {
        (listed(addr).await == [(T.to_string(), "hall1-01".to_string())]).then_some(())
    })
    .await;
    hall_desk.stop();
    hall.stop();
    board.stop();
    viewer.stop();
}

#[test]
fn broker_config_refuses_bad_arguments_in_one_line() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("x");
    let out = out.to_str().unwrap();
    for (args, says) in [
        (
            vec![
                "--boards",
                "hall1",
                "--count",
                "3",
                "--tournament",
                T,
                "--out",
                out,
            ],
            "--boards: board pattern \"hall1\": no {table} placeholder",
        ),
        (
            vec![
                "--boards",
                "h{table}",
                "--count",
                "-3",
                "--tournament",
                T,
                "--out",
                out,
            ],
            "--count: \"-3\" is not a number of boards from 1 to 9999",
        ),
        (
            vec![
                "--boards",
                "h{table}",
                "--count",
                "3",
                "--tournament",
                "Open",
                "--out",
                out,
            ],
            "--tournament: use 1 to 64 lower-case letters",
        ),
        (
            vec!["--boards", "h{table}", "--count", "3", "--out", out],
            "--tournament: required",
        ),
    ] {
        let mut all = vec!["broker-config"];
        all.extend(args);
        let o = cli::tengen(&all);
        assert_eq!(o.status.code(), Some(2), "{says}");
        let err = cli::stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("tengen: {says}")), "{err}");
        assert!(cli::stdout(&o).is_empty());
    }
    assert!(!Path::new(out).exists(), "nothing written");
}

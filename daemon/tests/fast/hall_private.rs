//! No one but an arbiter sees an alert (issue 34, item 2): a real `tengen hall` on a real
//! mosquitto, a board whose stream carries an `alert`, its `alert_cleared` and a
//! `sensor_fault`. Before, a hall without `[broadcast]` served the live feed as the public
//! one (the alert in `/board/.../events`, in `api/state` while open, as a comment in
//! `game.sgf`, counted in `/api/boards`), and `[hall] commentary = "live"` gave
//! commentators the arbiters' feed.

use crate::broker;
use crate::http;

use std::net::SocketAddr;
use std::path::Path;

use broker::{Mosquitto, Subscriber};
use http::{get, request, wait_for};
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_hall::HallConfig;
use tengen_protocol::event::{
    Alert, AlertCode, ClearedHow, Envelope, Event, Expected, FaultKind, GameSetup,
};
use tengen_rules::{Color, Point};

use broker::board_envelope as env;

const TOKEN: &str = "private-token-0123";
/// Words only the alert carries.
const SECRET: &str = "Stone moved at Q16";

fn pt(gtp: &str) -> Point {
    Point::parse_gtp(gtp, 19).expect("a 19x19 point")
}

fn mv(seq: u64, number: u32, point: &str) -> Envelope {
    env(
        "b1",
        seq,
        Event::Move {
            number,
            color: if number % 2 == 1 {
                Color::Black
            } else {
                Color::White
            },
            point: pt(point),
            captured: vec![],
            clock: None,
        },
    )
}

/// The board's game: two public moves, an alert, a sensor fault and the alert's clearing,
/// then two more moves (seq 7 the last).
fn events() -> Vec<Envelope> {
    let alert = Alert {
        id: "a3".into(),
        code: AlertCode::StoneMoved,
        article: "17.5".into(),
        color: Some(Color::Black),
        points: vec![pt("Q16")],
        expected: Expected::new(vec![(pt("Q16"), Some(Color::Black))]),
        message: SECRET.into(),
        late_ms: None,
    };
    vec![
        env(
            "b1",
            1,
            Event::GameStarted(GameSetup {
                black: "Black".into(),
                white: "White".into(),
                round: "1".into(),
                table: "1".into(),
                ..GameSetup::default()
            }),
        ),
        mv(2, 1, "Q16"),
        env("b1", 3, Event::Alert(alert)),
        env(
            "b1",
            4,
            Event::SensorFault {
                points: vec![pt("J10")],
                kind: FaultKind::Noisy,
            },
        ),
        env("b1", 5, Event::cleared("a3", ClearedHow::Restored)),
        mv(6, 2, "D4"),
        mv(7, 3, "Q4"),
    ]
}

/// A hall with an arbiter and a commentator, commentators live, with `broadcast` added.
fn config(broadcast: &str) -> HallConfig {
    HallConfig::parse(
        &format!(
            "[hall]\ncommentary = \"live\"\n{broadcast}\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n\
             [[arbiter]]\nname = \"anna\"\ntoken = \"commentary-0123\"\nrole = \"commentator\"\n"
        ),
        Path::new("hall.toml"),
    )
    .expect("hall config")
}

async fn cookie(addr: SocketAddr, form: &'static str) -> String {
    let r = request(
        addr,
        "POST",
        "/console/login",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", "http://test"),
        ],
        form.as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let set = r.header("set-cookie").expect("a cookie");
    set.split(';').next().unwrap_or_default().to_string()
}

/// Everything one board's pages under `pages` (`""`, `/commentary`, `/console`) give:
/// `api/state`, `game.sgf` and the event stream's backlog up to `id: last`.
async fn board_pages(addr: SocketAddr, pages: &str, auth: &[(&str, &str)], last: u64) -> String {
    let base = format!("{pages}/board/t/b1");
    let state = get(addr, &format!("{base}/api/state"), auth).await;
    assert_eq!(state.status, 200, "{base}: {}", state.text());
    let sgf = get(addr, &format!("{base}/game.sgf"), auth).await;
    assert_eq!(sgf.status, 200, "{base}");
    let until = format!("id: {last}\n");
    let stream = request(
        addr,
        "GET",
        &format!("{base}/events"),
        auth,
        b"",
        Some(&until),
    )
    .await;
    assert!(stream.text().contains(&until), "{base}: {}", stream.text());
    format!("{}\n{}\n{}", state.text(), sgf.text(), stream.text())
}

/// What of the arbiters' events `text` holds.
fn secrets(text: &str) -> Vec<&'static str> {
    [
        SECRET,
        "\"alert\"",
        "\"alert_cleared\"",
        "\"sensor_fault\"",
        "\"a3\"",
    ]
    .into_iter()
    .filter(|s| text.contains(s))
    .collect()
}

#[tokio::test]
async fn alerts_and_sensor_faults_reach_no_one_but_the_arbiters() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    // No delay (the public pages follow the board live), and a delay of one move.
    let open = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config(""))
        .await
        .expect("hall starts");
    let delayed = tengen_hall::start(
        &mosq.url(),
        "127.0.0.1:0",
        &config("[broadcast]\ndelay_moves = 1"),
    )
    .await
    .expect("hall starts");
    let board = Subscriber::connect(&mosq.url(), "fake-b1", &["nothing/here"]).await;
    let publish = |topic: &str, payload: String, retain: bool| {
        let client = board.client.clone();
        let topic = format!("tengen/t/b1/{topic}");
        async move {
            client
                .publish(topic, QoS::AtLeastOnce, retain, payload.into_bytes())
                .await
                .expect("publish");
        }
    };
    let status = json!({"state": "online", "version": "0.1.0", "board": "b1"});
    publish("status", status.to_string(), true).await;
    for addr in [open.addr, delayed.addr] {
        wait_for("the board in the hall", || async {
            let v = get(addr, "/api/boards", &[]).await.json();
            (v[0]["status"] == "online").then_some(())
        })
        .await;
    }
    let all = events();
    let alert_open = serde_json::to_value(&all[2]).expect("JSON");
    for e in &all[..3] {
        publish("events", serde_json::to_string(e).unwrap(), false).await;
    }
    publish("alerts/active", json!([alert_open]).to_string(), true).await;
    // While the alert is open.
    for addr in [open.addr, delayed.addr] {
        wait_for("the alert in the console", || async {
            let c = cookie(addr, "name=chief&password=private-token-0123").await;
            let v = get(addr, "/api/console/alerts", &[("Cookie", &c)])
                .await
                .json();
            (v.as_array().map(Vec::len) == Some(1)).then_some(())
        })
        .await;
    }
    let commentator = cookie(open.addr, "name=anna&password=commentary-0123").await;
    let auth = [("Cookie", commentator.as_str())];
    let open_now = format!(
        "{}\n{}",
        get(open.addr, "/board/t/b1/api/state", &[]).await.text(),
        get(open.addr, "/commentary/board/t/b1/api/state", &auth)
            .await
            .text()
    );
    assert_eq!(secrets(&open_now), Vec::<&str>::new(), "{open_now}");
    for e in &all[3..] {
        publish("events", serde_json::to_string(e).unwrap(), false).await;
    }
    publish("alerts/active", "[]".into(), true).await;

    for (addr, public_last) in [(open.addr, 7), (delayed.addr, 6)] {
        let arbiter = cookie(addr, "name=chief&password=private-token-0123").await;
        let commentator = cookie(addr, "name=anna&password=commentary-0123").await;
        wait_for("the last move on the arbiters' page", || async {
            let v = get(
                addr,
                "/console/board/t/b1/api/state",
                &[("Cookie", &arbiter)],
            )
            .await
            .json();
            (v["seq"] == 7).then_some(())
        })
        .await;
        // The arbiters see them: the test is not vacuous.
        let theirs = board_pages(addr, "/console", &[("Cookie", &arbiter)], 7).await;
        assert_eq!(
            secrets(&theirs),
            [
                SECRET,
                "\"alert\"",
                "\"alert_cleared\"",
                "\"sensor_fault\"",
                "\"a3\""
            ]
        );
        // The public, behind the delay if any.
        let public = board_pages(addr, "", &[], public_last).await;
        assert_eq!(secrets(&public), Vec::<&str>::new(), "{public}");
        // Commentators in a closed room: live, and without them.
        let auth = [("Cookie", commentator.as_str())];
        let live = board_pages(addr, "/commentary", &auth, 7).await;
        assert_eq!(secrets(&live), Vec::<&str>::new(), "{live}");
        assert!(live.contains("\"number\":3"), "live: {live}");
        // The overviews count no alert but the arbiters'.
        let boards = get(addr, "/api/boards", &[]).await.json();
        assert_eq!(boards[0]["open_alerts"], Value::Null);
        let theirs = get(addr, "/api/commentary/boards", &auth).await.json();
        assert_eq!(theirs[0]["open_alerts"], Value::Null);
        // The round feed: its events and record.
        let index = get(addr, "/feed/round/1/index.json", &[]).await;
        assert_eq!(index.status, 200, "{}", index.text());
        let feed = format!(
            "{}\n{}",
            get(addr, "/feed/round/1/1.json", &[]).await.text(),
            get(addr, "/feed/round/1/1.sgf", &[]).await.text()
        );
        assert!(feed.contains("\"move\""), "{feed}");
        assert_eq!(secrets(&feed), Vec::<&str>::new(), "{feed}");
    }
    open.stop();
    delayed.stop();
    board.stop();
}

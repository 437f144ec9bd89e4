//! `tengen hall` against a real mosquitto: three fake boards publish as boards do (retained
//! `status`, `state`, `sgf`, `alerts/active`, live `events`), and the hall's HTTP side is
//! read over real TCP: the overview, a board's event stream and SGF, a round's zip, and the
//! arbiters' console (login, alerts, a command that is pending until the board replies).

use crate::broker;
use crate::http;

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use broker::{Mosquitto, Subscriber};
use http::{get, ids, request, wait_for, Resp};
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_hall::HallConfig;
use tengen_protocol::event::{Alert, AlertCode, Envelope, Event, Expected, FaultKind, GameSetup};
use tengen_rules::{Color, Point};

const TOKEN: &str = "console-token-0123";
/// What a browser sends with a POST from the hall's own page (the test client sends
/// `Host: test`): the hall refuses state-changing requests without it.
const ORIGIN: (&str, &str) = ("Origin", "http://test");

fn position(stones: &[(usize, char)]) -> String {
    let mut p = vec!['.'; 361];
    for &(i, c) in stones {
        p[i] = c;
    }
    p.into_iter().collect()
}

fn state(board: &str, number: u32, round: &str, stones: &[(usize, char)]) -> Value {
    json!({
        "size": 19, "komi": 7.5, "handicap": 0, "rules": "chinese", "superko": "situational",
        "time_control": "none", "captured": {"B": 0, "W": 0}, "black": format!("Black of {board}"),
        "white": format!("White of {board}"), "round": round, "table": board, "phase": "playing",
        "board": position(stones), "to_move": if number % 2 == 0 { "B" } else { "W" },
        "number": number, "clocks": null, "warnings": {"B": 0, "W": 0}, "alerts": [],
        "result": null, "seq": number + 1, "board_id": board, "game_id": format!("r{round}-{board}"),
    })
}

use broker::board_envelope as env;

/// A point of the 19x19 board (`Q16`).
fn pt(gtp: &str) -> Point {
    Point::parse_gtp(gtp, 19).expect("a 19x19 point")
}

fn game_started(board: &str) -> Envelope {
    env(
        board,
        1,
        Event::GameStarted(GameSetup {
            black: "Black".into(),
            white: "White".into(),
            round: "1".into(),
            table: "1".into(),
            ..GameSetup::default()
        }),
    )
}

fn mv(board: &str, seq: u64, point: &str) -> Envelope {
    env(
        board,
        seq,
        Event::Move {
            number: (seq - 1) as u32,
            color: if seq % 2 == 0 {
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

async fn publish(board: &Subscriber, topic: String, payload: String, retain: bool) {
    board
        .client
        .publish(topic, QoS::AtLeastOnce, retain, payload.into_bytes())
        .await
        .expect("publish");
}

/// Publishes the retained topics of three boards as boards would: b1 (online, move 3),
/// b2 (online, move 5), b3 (offline, no move yet); b1 and b2 in round 1, b3 in round 2.
async fn three_boards(pubc: &Subscriber) {
    let boards = [
        (
            "b1",
            3,
            "1",
            "online",
            vec![(72, 'X'), (60, 'O'), (288, 'X')],
        ),
        ("b2", 5, "1", "online", vec![(0, 'X'), (1, 'O')]),
        ("b3", 0, "2", "offline", vec![]),
    ];
    for (b, n, round, status, stones) in boards {
        let root = format!("tengen/t/{b}");
        let st = state(b, n, round, &stones);
        publish(pubc, format!("{root}/state"), st.to_string(), true).await;
        let status = json!({"state": status, "version": "0.1.0", "board": b});
        publish(pubc, format!("{root}/status"), status.to_string(), true).await;
        let sgf = format!("(;FF[4]GM[1]SZ[19]PB[Black of {b}]RO[{round}])");
        publish(pubc, format!("{root}/sgf"), sgf, true).await;
        publish(pubc, format!("{root}/alerts/active"), "[]".into(), true).await;
    }
}

#[tokio::test]
async fn overview_board_pages_and_round_zip_from_the_broker() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let boards = Subscriber::connect(&mosq.url(), "fake-boards", &["tengen/+/+/cmd"]).await;
    three_boards(&boards).await;

    // The hall starts after the boards: everything comes from retained topics.
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &HallConfig::default())
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let list = wait_for("three boards", || async {
        let r = get(addr, "/api/boards", &[]).await;
        let v = r.json();
        let ready = v
            .as_array()
            .is_some_and(|a| a.len() == 3 && a.iter().all(|b| b["status"].is_string()));
        ready.then_some(v)
    })
    .await;
    let by: Vec<(String, u64, String)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["board"].as_str().unwrap().to_string(),
                b["number"].as_u64().unwrap(),
                b["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        by,
        vec![
            ("b1".into(), 3, "online".into()),
            ("b2".into(), 5, "online".into()),
            ("b3".into(), 0, "offline".into())
        ]
    );
    assert_eq!(
        list[0]["position"].as_str().unwrap().matches('X').count(),
        2
    );
    assert_eq!(list[0]["url"], "/board/t/b1/");
    assert_eq!(list[1]["black"], "Black of b2");

    // Live events of b1 reach its page's stream, in order, duplicates dropped.
    for e in [
        game_started("b1"),
        mv("b1", 2, "Q16"),
        mv("b1", 3, "D4"),
        mv("b1", 3, "D4"),
        mv("b1", 4, "Q4"),
    ] {
        publish(
            &boards,
            "tengen/t/b1/events".into(),
            serde_json::to_string(&e).unwrap(),
            false,
        )
        .await;
    }
    let sse = request(addr, "GET", "/board/t/b1/events", &[], b"", Some("id: 4")).await;
    assert_eq!(sse.status, 200, "{}", sse.head);
    assert_eq!(ids(&sse.text()), vec![1, 2, 3, 4]);
    assert!(sse.text().contains("\"point\":\"Q16\""));
    // ... and resume from Last-Event-ID like the one-board view.
    let sse = request(
        addr,
        "GET",
        "/board/t/b1/events",
        &[("Last-Event-ID", "2")],
        b"",
        Some("id: 4"),
    )
    .await;
    assert_eq!(ids(&sse.text()), vec![3, 4]);

    // The one-board page, mounted so its relative URLs resolve under /board/t/b1/.
    let r = get(addr, "/board/t/b1", &[]).await;
    assert_eq!(r.status, 308);
    assert_eq!(r.header("location").as_deref(), Some("/board/t/b1/"));
    let page = get(addr, "/board/t/b1/", &[]).await;
    assert_eq!(page.status, 200);
    assert!(page
        .text()
        .contains("new EventSource(from ? \"events?from=\" + from : \"events\")"));
    let sgf = get(addr, "/board/t/b2/game.sgf", &[]).await;
    assert_eq!(sgf.text(), "(;FF[4]GM[1]SZ[19]PB[Black of b2]RO[1])");
    let st = get(addr, "/board/t/b2/api/state", &[]).await;
    assert_eq!(st.json()["number"], 5);
    assert_eq!(get(addr, "/board/t/nope/", &[]).await.status, 404);

    // Round 1 is b1 and b2.
    let zip = get(addr, "/round/1.zip", &[]).await;
    assert_eq!(zip.status, 200);
    assert_eq!(
        zip.header("content-type").as_deref(),
        Some("application/zip")
    );
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip.body)).expect("a zip");
    let mut names: Vec<String> = archive.file_names().map(String::from).collect();
    names.sort();
    assert_eq!(names, vec!["t-b1-r1-b1.sgf", "t-b2-r1-b2.sgf"]);
    let mut text = String::new();
    archive
        .by_name("t-b2-r1-b2.sgf")
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert!(text.contains("PB[Black of b2]"));
    assert_eq!(get(addr, "/round/9.zip", &[]).await.status, 404);

    // A board going offline (its last will) shows on the overview.
    publish(
        &boards,
        "tengen/t/b1/status".into(),
        json!({"state": "offline"}).to_string(),
        true,
    )
    .await;
    wait_for("b1 offline", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v[0]["status"] == "offline").then_some(())
    })
    .await;

    // The public side says nothing of the console.
    let overview = get(addr, "/", &[]).await;
    assert_eq!(overview.status, 200);
    assert!(overview.text().contains("/api/boards"));
    assert!(!overview.text().contains("/console"));
    assert!(!overview.text().contains("/api/console"));
    hall.stop();
    boards.stop();
}

fn alert(board: &str) -> Value {
    let e = env(
        board,
        9,
        Event::Alert(Alert {
            id: "a9".into(),
            code: AlertCode::UncapturedStones,
            article: "18.2".into(),
            color: Some(Color::White),
            points: vec![pt("D16")],
            expected: Expected::new(vec![(pt("D16"), None)]),
            message: "Captured stones are still on the board.".into(),
            late_ms: None,
        }),
    );
    serde_json::to_value(e).unwrap()
}

fn session_cookie(r: &Resp) -> String {
    let set = r.header("set-cookie").expect("a session cookie");
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    set.split(';').next().unwrap().to_string()
}

#[tokio::test]
async fn console_needs_a_login_and_commands_wait_for_the_board() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let mut boards = Subscriber::connect(&mosq.url(), "fake-boards", &["tengen/+/+/cmd"]).await;
    three_boards(&boards).await;
    publish(
        &boards,
        "tengen/t/b2/alerts/active".into(),
        json!([alert("b2")]).to_string(),
        true,
    )
    .await;

    let config = HallConfig::parse(
        &format!("[[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"),
        Path::new("hall.toml"),
    )
    .unwrap();
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;

    // Without a login: the form, and no data.
    let r = get(addr, "/console", &[]).await;
    assert_eq!(r.status, 401);
    assert!(r.text().contains("action=\"/console/login\""));
    assert_eq!(get(addr, "/api/console/alerts", &[]).await.status, 401);
    assert_eq!(get(addr, "/api/console/commands", &[]).await.status, 401);
    assert_eq!(get(addr, "/console/overview", &[]).await.status, 401);
    assert_eq!(get(addr, "/api/console/boards", &[]).await.status, 401);
    let forged = [(
        "Cookie",
        "tengen_hall_session=0123456789abcdef0123456789abcdef",
    )];
    assert_eq!(get(addr, "/api/console/alerts", &forged).await.status, 401);
    let cmd =
        json!({"tournament": "t", "board": "b2", "type": "confirm", "alert": "a9"}).to_string();
    let json_ct = ("Content-Type", "application/json");
    let r = request(
        addr,
        "POST",
        "/api/console/command",
        &[json_ct, ORIGIN],
        cmd.as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 401);

    // A wrong token is refused; the right one opens a session.
    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let r = request(
        addr,
        "POST",
        "/console/login",
        &[form, ORIGIN],
        b"name=chief&password=guess",
        None,
    )
    .await;
    assert_eq!(r.status, 401);
    assert!(r.header("set-cookie").is_none());
    let body = format!("name=chief&password={TOKEN}");
    let r = request(
        addr,
        "POST",
        "/console/login",
        &[form, ORIGIN],
        body.as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 303, "{}", r.text());
    let cookie = session_cookie(&r);
    let auth = ("Cookie", cookie.as_str());
    let page = get(addr, "/console", &[auth]).await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("Arbiters' console"));

    // The open alert, with its board and what the board should look like.
    // The hall takes a board's retained state once it has heard of the board: the alert
    // comes with the position to restore once both are in.
    let alerts = wait_for("the alert with the board's position", || async {
        let v = get(addr, "/api/console/alerts", &[auth]).await.json();
        (v.as_array().is_some_and(|a| !a.is_empty())
            && v[0]["should_look"].as_str().is_some_and(|s| !s.is_empty()))
        .then_some(v)
    })
    .await;
    let a = &alerts[0];
    assert_eq!(
        (a["board"].as_str(), a["id"].as_str(), a["article"].as_str()),
        (Some("b2"), Some("a9"), Some("18.2"))
    );
    assert_eq!(a["points"], json!(["D16"]));
    assert_eq!(a["should_look"].as_str().unwrap().len(), 361);
    assert_eq!(a["taken_by"], Value::Null);
    // An arbiter takes it: every console sees who went to the board.
    let take = |alert: &str| json!({"tournament": "t", "board": "b2", "alert": alert}).to_string();
    let json_ct = ("Content-Type", "application/json");
    let path = "/api/console/alert/take";
    let r = request(
        addr,
        "POST",
        path,
        &[json_ct, ORIGIN],
        take("a9").as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 401, "not without a login");
    let r = request(
        addr,
        "POST",
        path,
        &[json_ct, auth, ORIGIN],
        take("a9").as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    let alerts = get(addr, "/api/console/alerts", &[auth]).await.json();
    assert_eq!(alerts[0]["taken_by"], "chief");
    let r = request(
        addr,
        "POST",
        path,
        &[json_ct, auth, ORIGIN],
        take("a1").as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 404, "no such open alert");
    // Public pages show no alert, not even how many are open (issue 34).
    let public = get(addr, "/api/boards", &[]).await.text();
    assert!(!public.contains("Captured stones are still"));
    assert!(!public.contains("\"open_alerts\":1"));
    // The arbiters' overview: the same page, the live boards, links to their live views.
    let page = get(addr, "/console/overview", &[auth]).await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("/api/console/boards"));
    let live = get(addr, "/api/console/boards", &[auth]).await.json();
    let b2 = live
        .as_array()
        .and_then(|a| a.iter().find(|b| b["board"] == "b2"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(b2["url"], "/console/board/t/b2/");
    assert_eq!(b2["open_alerts"], 1);

    // Hardware trouble (a noisy sensor on b1) is listed for arbiters, kept off public pages.
    assert_eq!(get(addr, "/api/console/hardware", &[]).await.status, 401);
    let fault = broker::board_envelope(
        "b1",
        4,
        Event::SensorFault {
            points: vec![pt("J1")],
            kind: FaultKind::Noisy,
        },
    );
    publish(
        &boards,
        "tengen/t/b1/events".into(),
        serde_json::to_string(&fault).unwrap(),
        false,
    )
    .await;
    let hw = wait_for("the hardware report", || async {
        let v = get(addr, "/api/console/hardware", &[auth]).await.json();
        (v.as_array().is_some_and(|a| !a.is_empty())).then_some(v)
    })
    .await;
    assert_eq!(
        (hw[0]["board"].as_str(), hw[0]["kind"].as_str()),
        (Some("b1"), Some("noisy"))
    );
    assert_eq!(hw[0]["points"], json!(["J1"]));
    assert!(!get(addr, "/api/boards", &[]).await.text().contains("noisy"));

    // Confirm: the command reaches the board's cmd topic signed by the arbiter...
    let r = request(
        addr,
        "POST",
        "/api/console/command",
        &[auth, json_ct, ORIGIN],
        cmd.as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.text());
    let id = r.json()["id"].as_str().unwrap().to_string();
    let got = boards
        .next_on("tengen/t/b2/cmd", Duration::from_secs(5))
        .await
        .expect("the command on the board's cmd topic")
        .json();
    assert_eq!(
        got,
        json!({"id": id, "by": "chief", "type": "confirm", "alert": "a9"})
    );
    // ... and is pending until the board replies with the same id.
    let cmds = get(addr, "/api/console/commands", &[auth]).await.json();
    assert_eq!(
        (cmds[0]["id"].as_str(), cmds[0]["status"].as_str()),
        (Some(id.as_str()), Some("pending"))
    );
    // Another id's reply, or the right id from another board, does not count.
    publish(
        &boards,
        "tengen/t/b2/cmd/reply".into(),
        json!({"id": "other", "ok": true}).to_string(),
        false,
    )
    .await;
    publish(
        &boards,
        "tengen/t/b1/cmd/reply".into(),
        json!({"id": id, "ok": true}).to_string(),
        false,
    )
    .await;
    publish(
        &boards,
        "tengen/t/b2/cmd/reply".into(),
        json!({"id": id, "ok": true}).to_string(),
        false,
    )
    .await;
    let cmds = wait_for("the ack", || async {
        let v = get(addr, "/api/console/commands", &[auth]).await.json();
        (v[0]["status"] != "pending").then_some(v)
    })
    .await;
    assert_eq!(cmds[0]["status"], "acked");
    assert_eq!(cmds[0]["by"], "chief");

    // A refused command shows the board's reason; a bad one never leaves the hall.
    let pause = json!({"tournament": "t", "board": "b1", "type": "pause"}).to_string();
    let r = request(
        addr,
        "POST",
        "/api/console/command",
        &[auth, json_ct, ORIGIN],
        pause.as_bytes(),
        None,
    )
    .await;
    let pid = r.json()["id"].as_str().unwrap().to_string();
    let got = boards
        .next_on("tengen/t/b1/cmd", Duration::from_secs(5))
        .await
        .expect("pause")
        .json();
    assert_eq!(got["by"], "chief");
    let refusal = json!({"id": pid, "ok": false, "error": "no game is running"});
    publish(
        &boards,
        "tengen/t/b1/cmd/reply".into(),
        refusal.to_string(),
        false,
    )
    .await;
    wait_for("the refusal", || async {
        let v = get(addr, "/api/console/commands", &[auth]).await.json();
        (v[0]["status"] == "refused" && v[0]["error"] == "no game is running").then_some(())
    })
    .await;
    for bad in [
        json!({"tournament": "t", "board": "b1", "type": "explode"}),
        json!({"tournament": "t", "board": "zz", "type": "pause"}),
        json!({"board": "b1", "type": "pause"}),
    ] {
        let body = bad.to_string();
        let r = request(
            addr,
            "POST",
            "/api/console/command",
            &[auth, json_ct, ORIGIN],
            body.as_bytes(),
            None,
        )
        .await;
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
    }

    // Logging out ends the session.
    let r = request(addr, "POST", "/console/logout", &[auth, ORIGIN], b"", None).await;
    assert_eq!(r.status, 303);
    assert_eq!(get(addr, "/api/console/alerts", &[auth]).await.status, 401);
    hall.stop();
    boards.stop();
}

#[tokio::test]
async fn a_late_hall_with_an_identity_fills_a_boards_history() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let mut board = Subscriber::connect(&mosq.url(), "fake-board", &["tengen/t/b1/cmd"]).await;
    // As a board does: its retained status (by which the hall hears of it) and state.
    publish(
        &board,
        "tengen/t/b1/status".into(),
        json!({"state": "online", "version": "0.1.0", "board": "b1"}).to_string(),
        true,
    )
    .await;
    publish(
        &board,
        "tengen/t/b1/state".into(),
        state("b1", 3, "1", &[]).to_string(),
        true,
    )
    .await;
    let config =
        HallConfig::parse("[hall]\nidentity = \"hall-test\"\n", Path::new("hall.toml")).unwrap();
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;

    // The hall asks the board to send its stream again; the board does, after one live event.
    let ask = board
        .next_on("tengen/t/b1/cmd", Duration::from_secs(10))
        .await
        .expect("a republish request")
        .json();
    assert_eq!(
        (
            ask["type"].as_str(),
            ask["from_seq"].as_u64(),
            ask["by"].as_str()
        ),
        (Some("republish"), Some(1), Some("hall-test"))
    );
    let live = mv("b1", 5, "C3");
    publish(
        &board,
        "tengen/t/b1/events".into(),
        serde_json::to_string(&live).unwrap(),
        false,
    )
    .await;
    let reply = json!({"id": ask["id"], "ok": true}).to_string();
    publish(&board, "tengen/t/b1/cmd/reply".into(), reply, false).await;
    for e in [
        game_started("b1"),
        mv("b1", 2, "Q16"),
        mv("b1", 3, "D4"),
        mv("b1", 4, "Q4"),
        mv("b1", 5, "C3"),
    ] {
        publish(
            &board,
            "tengen/t/b1/events".into(),
            serde_json::to_string(&e).unwrap(),
            false,
        )
        .await;
    }
    let sse = request(addr, "GET", "/board/t/b1/events", &[], b"", Some("id: 5")).await;
    assert_eq!(ids(&sse.text()), vec![1, 2, 3, 4, 5]);
    hall.stop();
    board.stop();
}

/// A commentator (`role = "commentator"`) logs in like an arbiter but gets no console and
/// can send nothing; the commentary pages show the boards live in a hall whose
/// `[hall] commentary = "live"` (a closed commentary room), and behind the broadcast delay
/// in one that keeps the default.
#[tokio::test]
async fn a_commentator_reads_the_boards_and_commands_nothing() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let hall_with = |commentary: &str| {
        HallConfig::parse(
            &format!(
                "[hall]\n{commentary}\n[broadcast]\ndelay_moves = 1\n\
                 [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n\
                 [[arbiter]]\nname = \"anna\"\ntoken = \"commentary-0123\"\nrole = \"commentator\"\n"
            ),
            Path::new("hall.toml"),
        )
        .expect("hall config")
    };
    let live = tengen_hall::start(
        &mosq.url(),
        "127.0.0.1:0",
        &hall_with("commentary = \"live\""),
    )
    .await
    .expect("hall starts");
    let delayed = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &hall_with(""))
        .await
        .expect("hall starts");
    let board = Subscriber::connect(&mosq.url(), "fake-b1", &["nothing/here"]).await;
    let status = json!({"state": "online", "version": "0.1.0", "board": "b1"}).to_string();
    publish(&board, "tengen/t/b1/status".into(), status, true).await;
    for addr in [live.addr, delayed.addr] {
        wait_for("the board in the hall", || async {
            let v = get(addr, "/api/boards", &[]).await.json();
            (v[0]["status"] == "online").then_some(())
        })
        .await;
    }
    let events = [
        game_started("b1"),
        mv("b1", 2, "Q16"),
        mv("b1", 3, "D4"),
        mv("b1", 4, "Q4"),
    ];
    for e in events {
        let text = serde_json::to_string(&e).unwrap();
        publish(&board, "tengen/t/b1/events".into(), text, false).await;
    }
    let snapshot = json!({"seq": 4, "number": 3, "size": 19}).to_string();
    publish(&board, "tengen/t/b1/state".into(), snapshot, true).await;

    let form = ("Content-Type", "application/x-www-form-urlencoded");
    let login = |addr, body: &'static str| async move {
        let r = request(
            addr,
            "POST",
            "/console/login",
            &[form, ORIGIN],
            body.as_bytes(),
            None,
        )
        .await;
        assert_eq!(r.status, 303, "{}", r.text());
        let cookie = r.header("set-cookie").expect("a cookie");
        (
            r.header("location"),
            cookie.split(';').next().unwrap().to_string(),
        )
    };
    // Live in one hall; one move behind, as the public sees it, in the other. Each page
    // is titled as what it is; the analysis is the public page's, and a live room is told
    // the engine sees only the public positions.
    let framing = [
        (
            "Commentary \u{2013} live (closed room)",
            Some("The engine sees only what the public has seen, 1 move behind"),
        ),
        ("Commentary \u{2013} delayed by 1 move", None),
    ];
    for ((addr, number), (heading, analysis_note)) in
        [(live.addr, 3), (delayed.addr, 2)].into_iter().zip(framing)
    {
        assert_eq!(get(addr, "/commentary", &[]).await.status, 401);
        assert_eq!(get(addr, "/api/commentary/boards", &[]).await.status, 401);
        let (home, cookie) = login(addr, "name=anna&password=commentary-0123").await;
        assert_eq!(home.as_deref(), Some("/commentary"));
        let auth = ("Cookie", cookie.as_str());
        // No console, no alert, no command.
        let console = get(addr, "/console", &[auth]).await;
        assert_eq!(console.status, 303, "a commentator has no console");
        assert_eq!(get(addr, "/api/console/alerts", &[auth]).await.status, 401);
        let cmd = json!({"tournament": "t", "board": "b1", "type": "pause"}).to_string();
        let json_ct = ("Content-Type", "application/json");
        let r = request(
            addr,
            "POST",
            "/api/console/command",
            &[auth, json_ct, ORIGIN],
            cmd.as_bytes(),
            None,
        )
        .await;
        assert_eq!(r.status, 401, "a commentator sends nothing");
        // The commentary pages.
        let page = get(addr, "/commentary", &[auth]).await;
        assert_eq!(page.status, 200);
        assert!(page.text().contains("/api/commentary/boards"));
        let boards = get(addr, "/api/commentary/boards", &[auth]).await.json();
        assert_eq!(boards[0]["url"], "/commentary/board/t/b1/");
        wait_for("the board's state at the expected move", || async {
            // 503 "no game yet" until the hall has the game's start.
            let r = get(addr, "/commentary/board/t/b1/api/state", &[auth]).await;
            (r.status == 200 && r.json()["number"] == number).then_some(())
        })
        .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let v = get(addr, "/commentary/board/t/b1/api/state", &[auth])
            .await
            .json();
        assert_eq!(v["number"], number, "and no further");
        let page = get(addr, "/commentary/board/t/b1/", &[auth]).await;
        assert_eq!(page.status, 200);
        let text = page.text();
        let options: serde_json::Value = text
            .lines()
            .find_map(|l| l.strip_prefix("const OPTIONS = "))
            .and_then(|l| l.strip_suffix(';'))
            .and_then(|j| serde_json::from_str(j).ok())
            .expect("the page's options");
        assert_eq!(options["heading"], heading, "{options}");
        assert_eq!(options["analysis"], "/board/t/b1/api/analysis");
        match analysis_note {
            Some(note) => assert!(
                options["analysis_note"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(note)),
                "{options}"
            ),
            None => assert_eq!(options["analysis_note"], serde_json::Value::Null),
        }
        let overview = get(addr, "/commentary", &[auth]).await.text();
        assert!(
            overview.contains(&format!("const HEADING = \"{heading}\";")),
            "the overview's heading"
        );
    }
    // An arbiter may read the commentary pages too.
    let (home, cookie) = login(live.addr, "name=chief&password=console-token-0123").await;
    assert_eq!(home.as_deref(), Some("/console"));
    let r = get(
        live.addr,
        "/api/commentary/boards",
        &[("Cookie", cookie.as_str())],
    )
    .await;
    assert_eq!(r.status, 200);
    live.stop();
    delayed.stop();
    board.stop();
}

//! The hall's `/clock` per board, against a real mosquitto and a board's events: the faces
//! are drawn by `tengen_table` from the hall's fold of the board (pixel for pixel the frame
//! `render` draws for that game), late for the public under a broadcast delay, live for
//! the tablet whose link an arbiter hands out (the board's clock key), and refused with a
//! wrong key or without a login where one is needed.

use crate::broker;
use crate::http;

use std::path::Path;

use broker::{board_envelope as env, Mosquitto, Subscriber};
use http::{console_cookie, get, wait_for};
use rumqttc::QoS;
use serde_json::json;
use tengen_hall::HallConfig;
use tengen_protocol::event::{Envelope, Event, GameSetup};
use tengen_protocol::GameView;
use tengen_rules::{Color, Point};
use tengen_table::{render, Face, MonoFrame};

const TOKEN: &str = "clock-token-0123";

/// Board `b1`'s game: its start (no clock, so a face shows the move number), then `moves`
/// moves.
fn game(moves: &[&str]) -> Vec<Envelope> {
    let mut events = vec![env(
        "b1",
        1,
        Event::GameStarted(GameSetup {
            black: "Vannier Luc".into(),
            black_rank: Some("12k".into()),
            white: "Gao Chuande".into(),
            white_rank: Some("3D".into()),
            round: "1".into(),
            table: "1".into(),
            ..GameSetup::default()
        }),
    )];
    for (i, p) in moves.iter().enumerate() {
        events.push(env(
            "b1",
            i as u64 + 2,
            Event::Move {
                number: i as u32 + 1,
                color: if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
                point: Point::parse_gtp(p, 19).expect("a point"),
                captured: vec![],
                clock: None,
            },
        ));
    }
    events
}

/// The frame `color`'s display shows after `events`, as `tengen_table` draws it.
fn frame_after(events: &[Envelope], color: Color) -> MonoFrame {
    let mut view = GameView::new();
    for e in events {
        view.apply_envelope(e).expect("the fold takes the event");
    }
    let last = events.last().expect("events").time;
    render(&Face::of(&view, color, last))
}

/// `color`'s face at `path` (a `.../clock/{B,W}.png`), once it is `want`.
async fn wait_face(
    addr: std::net::SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    want: &MonoFrame,
) {
    wait_for(path, || async {
        let r = get(addr, path, headers).await;
        assert_eq!(r.status, 200, "{path}: {}", r.text());
        assert_eq!(r.header("content-type").as_deref(), Some("image/png"));
        let got = MonoFrame::from_png(&r.body).expect("a face PNG");
        (got == *want).then_some(())
    })
    .await;
}

#[tokio::test]
async fn the_hall_serves_each_boards_clock_late_for_the_public_live_for_its_tablet() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let config = HallConfig::parse(
        &format!(
            "[broadcast]\ndelay_moves = 2\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
        ),
        Path::new("hall.toml"),
    )
    .expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let board = Subscriber::connect(&mosq.url(), "fake-b1", &["nothing/here"]).await;
    let publish = |topic: &'static str, payload: String, retain: bool| {
        let client = board.client.clone();
        async move {
            client
                .publish(topic, QoS::AtLeastOnce, retain, payload.into_bytes())
                .await
                .expect("publish");
        }
    };
    let status = json!({"state": "online", "version": "0.1.0", "board": "b1"}).to_string();
    publish("tengen/t/b1/status", status, true).await;
    wait_for("the board in the hall", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v[0]["status"] == "online").then_some(())
    })
    .await;
    let events = game(&["Q16", "D4", "Q4", "D16"]);
    for e in &events[..4] {
        publish(
            "tengen/t/b1/events",
            serde_json::to_string(e).unwrap(),
            false,
        )
        .await;
    }

    // The public clock: the tablet page and both faces, two moves behind (move 1 of 3).
    let page = get(addr, "/board/t/b1/clock", &[]).await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("<title>tengen clock</title>"));
    wait_face(
        addr,
        "/board/t/b1/clock/B.png?scale=1",
        &[],
        &frame_after(&events[..2], Color::Black),
    )
    .await;
    wait_face(
        addr,
        "/board/t/b1/clock/W.png?scale=1",
        &[],
        &frame_after(&events[..2], Color::White),
    )
    .await;

    // The tablet's link comes from an arbiter: the live clock with the board's key.
    assert_eq!(
        get(addr, "/console/board/t/b1/clock-link", &[])
            .await
            .status,
        401
    );
    let cookie = console_cookie(addr, "chief", TOKEN).await;
    let auth = ("Cookie", cookie.as_str());
    let r = get(addr, "/console/board/t/b1/clock-link", &[auth]).await;
    assert_eq!(r.status, 303, "{}", r.text());
    let link = r.header("location").expect("the tablet's link");
    let key = link
        .strip_prefix("/board/t/b1/clock?key=")
        .unwrap_or_else(|| panic!("a keyed clock link: {link}"))
        .to_string();
    assert_eq!(get(addr, &link, &[]).await.status, 200);
    let live_b = format!("/board/t/b1/clock/B.png?scale=1&key={key}");
    wait_face(addr, &live_b, &[], &frame_after(&events[..4], Color::Black)).await;
    // The arbiters' own live clock, behind the login.
    let console_w = "/console/board/t/b1/clock/W.png?scale=1";
    assert_eq!(get(addr, console_w, &[]).await.status, 401);
    wait_face(
        addr,
        console_w,
        &[auth],
        &frame_after(&events[..4], Color::White),
    )
    .await;

    // The next move: the live clock shows it, the public one the move it released.
    publish(
        "tengen/t/b1/events",
        serde_json::to_string(&events[4]).unwrap(),
        false,
    )
    .await;
    wait_face(addr, &live_b, &[], &frame_after(&events, Color::Black)).await;
    wait_face(
        addr,
        "/board/t/b1/clock/B.png?scale=1",
        &[],
        &frame_after(&events[..3], Color::Black),
    )
    .await;

    // Wrong keys, unknown boards, mistyped pictures: a clear answer each.
    let other_key = format!("/board/t/b1/clock/B.png?key={}", "0".repeat(key.len()));
    let wrong = get(addr, &other_key, &[]).await;
    assert_eq!(wrong.status, 403);
    assert!(wrong.text().contains("ask an arbiter"), "{}", wrong.text());
    assert_eq!(get(addr, "/board/t/b1/clock?key=", &[]).await.status, 403);
    assert_eq!(get(addr, "/board/t/b9/clock", &[]).await.status, 404);
    assert_eq!(get(addr, "/board/t/b9/clock/B.png", &[]).await.status, 404);
    assert_eq!(get(addr, "/board/t/b1/clock/X.png", &[]).await.status, 404);
    assert_eq!(
        get(addr, "/board/t/b1/clock/B.png?scale=99", &[])
            .await
            .status,
        400
    );
    assert_eq!(
        get(addr, "/commentary/board/t/b1/clock", &[]).await.status,
        401
    );
    // The board's pages are still the one-board view beside the clock, and leave the faces
    // out (a second event stream per page would stall a browser's other pages of the hall).
    for (path, headers) in [
        ("/board/t/b1/", &[][..]),
        ("/console/board/t/b1/", &[auth][..]),
    ] {
        let page = get(addr, path, headers).await;
        assert_eq!(page.status, 200, "{path}");
        assert!(page.text().contains(r#""hide_faces":true"#), "{path}");
    }
    hall.stop();
}

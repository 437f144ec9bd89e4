//! The hall state's unit tests, across its rooms.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengen_protocol::command::RepublishRefused;
use tengen_protocol::topics::BoardKey;
use tengen_protocol::Timestamp;

use super::alerts::expected_position;
use super::*;
use crate::test_support::{active_alert_json, whole_state};

#[test]
fn expected_points_are_drawn_over_the_position() {
    let pos = ".".repeat(9 * 9);
    let exp: tengen_protocol::event::Expected =
        serde_json::from_value(json!({"A9": "B", "J1": "W", "E5": "empty"})).expect("expected");
    let out = expected_position(&pos, 9, Some(&exp));
    assert_eq!(&out[0..1], "X", "A9 is the top-left corner");
    assert_eq!(&out[80..81], "O", "J1 is the bottom-right corner");
    assert_eq!(out.matches('.').count(), 79);
    assert_eq!(expected_position("...", 9, Some(&exp)), "");
}

#[test]
fn messages_build_boards_and_ignore_junk() {
    let now = Instant::now();
    let mut h = HallState::new("tengen", None);
    assert_eq!(h.filters()[0], ("tengen/+/+/events".to_string(), true));
    h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, now);
    h.on_message(
        "tengen/t/b1/state",
        whole_state(json!({"number": 4, "round": "2", "seq": 9}))
            .to_string()
            .as_bytes(),
        now,
    );
    h.on_message("tengen/t/b2/state", b"not json", now);
    h.on_message("tengen/t/b2/events", b"{\"seq\":1}", now);
    h.on_message("elsewhere/t/b3/state", b"{}", now);
    let boards = h.boards_json(now);
    assert_eq!(boards[0]["board"], "b1");
    assert_eq!(boards[0]["status"], "online");
    assert_eq!(boards[0]["number"], 4);
    let current = h.current_games(true);
    assert_eq!(current.len(), 1);
    assert_eq!(
        (current[0].round.as_str(), current[0].sgf.as_str()),
        ("2", "")
    );
    h.on_message("tengen/t/b1/sgf", b"(;GM[1]SZ[9];B[ee]C[an alert])", now);
    let current = h.current_games(true);
    let sgf = tengen_rules::sgf::parse(&current[0].sgf).expect("the public SGF");
    assert_eq!((sgf.size, sgf.moves.len()), (9, 1));
    assert!(!current[0].sgf.contains("alert"), "{}", current[0].sgf);
    assert_eq!(zip_name(&current[0].key, &current[0].game), "t-b1-g1.sgf");
}

fn event(seq: u64, time: &str, body: Value) -> Vec<u8> {
    let mut e = json!({"seq": seq, "time": time, "board": "b1", "game": "g1"});
    if let (Some(o), Value::Object(b)) = (e.as_object_mut(), body) {
        o.extend(b);
    }
    e.to_string().into_bytes()
}

fn game_started() -> Value {
    json!({"type": "game_started", "size": 9, "komi": 7.5, "handicap": 0,
            "rules": "chinese", "superko": "situational", "time_control": "none",
            "black": "B", "white": "W", "round": "1", "table": "1"})
}

fn moved(number: u32, point: &str) -> Value {
    let color = if number % 2 == 1 { "B" } else { "W" };
    json!({"type": "move", "number": number, "color": color, "point": point,
            "captured": [], "clock": null})
}

fn topics(out: &[Outgoing]) -> Vec<(String, bool)> {
    out.iter().map(|o| (o.topic.clone(), o.retain)).collect()
}

#[test]
fn a_delayed_hall_republishes_what_the_delay_releases() {
    let b = crate::config::HallConfig::parse(
        "[broadcast]\ndelay_moves = 1\ndelay_minutes = 1\n",
        std::path::Path::new("hall.toml"),
    )
    .unwrap()
    .broadcast;
    let mut h = HallState::new("tengen", None).with_broadcast(b.as_ref());
    assert!(h.is_delayed());
    let t0 = "2026-11-29T13:00:00.000Z";
    let wall0 = Timestamp::parse(t0).unwrap();
    let now = Instant::now();
    let at = |secs: u64| wall0.plus(secs * 1000);
    let key = BoardKey::new("t", "b1").unwrap();
    let ev = "tengen/t/b1/events";

    // Whether the board is online goes to the public tree at once.
    let status = br#"{"state":"online","version":"0.1.0"}"#;
    let out = h.on_message_at("tengen/t/b1/status", status, now, at(0));
    assert_eq!(topics(&out), vec![("public/t/b1/status".to_string(), true)]);
    assert_eq!(out[0].payload, status.to_vec());

    // Nothing is a minute old yet.
    let out = h.on_message_at(ev, &event(1, t0, game_started()), now, at(0));
    assert!(out.is_empty());
    let out = h.on_message_at(ev, &event(2, t0, moved(1, "E5")), now, at(1));
    assert!(out.is_empty());
    assert_eq!(
        h.feed(&key).unwrap().last_seq(),
        2,
        "the live feed has it all"
    );
    assert_eq!(h.public_feed(&key).unwrap().last_seq(), 0);
    assert_eq!(h.boards_json(now)[0]["number"], Value::Null);

    // A minute later the setup is public; move 1 is the last move: still held.
    let out = h.tick_at(now, at(60));
    assert_eq!(
        topics(&out),
        vec![
            ("public/t/b1/events".to_string(), false),
            ("public/t/b1/state".to_string(), true),
            ("public/t/b1/sgf".to_string(), true),
        ]
    );
    let state: Value = serde_json::from_slice(&out[1].payload).unwrap();
    assert_eq!(
        (state["number"].as_u64(), state["seq"].as_u64()),
        (Some(0), Some(1))
    );

    // An alert, then move 2: move 1 may go (a minute old, no longer the last move), the
    // alert never goes out.
    let alert = json!({"type": "alert", "id": "a1", "code": "stone_moved", "article": "17.5",
            "color": "B", "points": ["E5"], "expected": {}, "message": "secret"});
    h.on_message_at(ev, &event(3, t0, alert), now, at(61));
    let out = h.on_message_at(ev, &event(4, t0, moved(2, "C3")), now, at(62));
    let sent: Vec<Value> = out
        .iter()
        .filter(|o| o.topic.ends_with("/events"))
        .map(|o| serde_json::from_slice(&o.payload).unwrap())
        .collect();
    assert_eq!(sent.len(), 1);
    assert_eq!(
        (sent[0]["type"].as_str(), sent[0]["seq"].as_u64()),
        (Some("move"), Some(2))
    );
    assert!(out
        .iter()
        .all(|o| !String::from_utf8_lossy(&o.payload).contains("secret")));
    let public = h.public_feed(&key).unwrap();
    assert_eq!(public.state()["number"], 1);
    assert_eq!(
        public.state()["seq"],
        3,
        "the alert moved the public seq on"
    );
    assert_eq!(h.boards_json(now)[0]["number"], 1);
    assert_eq!(h.boards_json(now)[0]["open_alerts"], Value::Null);
    assert!(public.sgf().contains(";B[ee]") && !public.sgf().contains(";W["));

    // The game ends: everything is public at once.
    let over = json!({"type": "game_over", "result": "W+R", "reason": "resignation",
            "black_area": null, "white_area": null, "dame": null, "margin_stones": null,
            "margin_points": null});
    let out = h.on_message_at(ev, &event(5, t0, over), now, at(63));
    assert_eq!(
        out.iter().filter(|o| o.topic.ends_with("/events")).count(),
        2
    );
    let public = h.public_feed(&key).unwrap();
    assert_eq!(public.state()["result"], "W+R");
    assert_eq!(public.last_seq(), 5);
}

fn delayed(text: &str) -> HallState {
    let b = crate::config::HallConfig::parse(text, std::path::Path::new("hall.toml"))
        .unwrap()
        .broadcast;
    HallState::new("tengen", None).with_broadcast(b.as_ref())
}

/// The public watch (what the engine analysis is fed) sees the public view only: under
/// `delay_moves = 3`, never one of the last three moves.
#[test]
fn the_public_watch_sees_what_the_public_has_seen_and_no_more() {
    use std::sync::{Arc, Mutex};
    let seen: Arc<Mutex<Vec<usize>>> = Arc::default();
    let log = seen.clone();
    let watch: PublicWatch = Box::new(move |key, view| {
        assert_eq!((key.tournament.as_str(), key.board.as_str()), ("t", "b1"));
        log.lock().unwrap().push(view.record().len());
    });
    let mut h = delayed("[broadcast]\ndelay_moves = 3\n").with_public_watch(Some(watch));
    let now = Instant::now();
    let t0 = "2026-11-29T13:00:00.000Z";
    h.on_message("tengen/t/b1/events", &event(1, t0, game_started()), now);
    for (n, p) in ["C3", "G7", "C7", "G3", "E5"].iter().enumerate() {
        let n = n as u32 + 1;
        let e = event(u64::from(n) + 1, t0, moved(n, p));
        h.on_message("tengen/t/b1/events", &e, now);
        h.tick(now);
    }
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.iter().max(),
        Some(&2),
        "5 moves, 3 held back: {seen:?}"
    );
    assert_eq!(seen.last(), Some(&2));
}

#[test]
fn a_hall_that_never_saw_the_game_start_shows_no_public_position() {
    let mut h = delayed("[broadcast]\ndelay_moves = 1\n");
    let now = Instant::now();
    let t0 = "2026-11-29T13:00:00.000Z";
    let ev = "tengen/t/b1/events";
    let key = BoardKey::new("t", "b1").unwrap();
    // Started mid-game, without an identity to ask for the history.
    h.on_message("tengen/t/b1/state", br#"{"seq":9,"number":4}"#, now);
    for (seq, n, p) in [(10, 5, "E5"), (11, 6, "C3"), (12, 7, "G7")] {
        h.on_message(ev, &event(seq, t0, moved(n, p)), now);
    }
    assert_eq!(h.feed(&key).unwrap().last_seq(), 12, "live: all of it");
    let public = h.public_feed(&key).unwrap();
    assert_eq!(public.last_seq(), 11, "the released events");
    assert_eq!(
        public.state(),
        Value::Null,
        "but no position, never the live one"
    );
    assert_eq!(public.sgf(), "");
    assert_eq!(h.boards_json(now)[0]["number"], Value::Null);
    // The next game is public from its start.
    for (seq, body) in [
        (13, game_started()),
        (14, moved(1, "E5")),
        (15, moved(2, "C3")),
    ] {
        h.on_message(ev, &event(seq, t0, body), now);
    }
    let public = h.public_feed(&key).unwrap();
    assert_eq!(public.state()["number"], 1);
    assert_eq!(public.state()["seq"], 14);
    assert_eq!(h.boards_json(now)[0]["number"], 1);
}

#[test]
fn the_arbiters_overview_is_live_while_the_public_one_lags() {
    let mut h = delayed("[broadcast]\ndelay_moves = 1\n");
    let now = Instant::now();
    let t0 = "2026-11-29T13:00:00.000Z";
    let ev = "tengen/t/b1/events";
    for (seq, body) in [
        (1, game_started()),
        (2, moved(1, "E5")),
        (3, moved(2, "C3")),
    ] {
        h.on_message(ev, &event(seq, t0, body), now);
    }
    // The board's own snapshot after its last event, as it publishes it.
    h.on_message("tengen/t/b1/state", br#"{"seq":3,"number":2}"#, now);
    let public = &h.boards_json(now)[0];
    let live = &h.live_boards_json(now)[0];
    assert_eq!(
        public["number"], 1,
        "the public overview is one move behind"
    );
    assert_eq!(public["open_alerts"], Value::Null, "and shows no alerts");
    assert_eq!(public["url"], "/board/t/b1/");
    assert_eq!(live["number"], 2, "the arbiters see the last move");
    assert_eq!(live["open_alerts"], 0);
    assert_eq!(live["url"], "/console/board/t/b1/");
}

#[test]
fn the_public_clocks_are_what_the_last_public_event_said() {
    let mut h = delayed("[broadcast]\ndelay_moves = 1\n");
    let key = BoardKey::new("t", "b1").unwrap();
    let now = Instant::now();
    let ev = "tengen/t/b1/events";
    let clock = |color: Value, b: u64, w: u64, running: &str| {
        json!({"type": "clock", "color": color, "B": b, "W": w,
                "periods": {"B": 3, "W": 3}, "running": running, "paused": false})
    };
    let timed = |number: u32, point: &str, b: u64, w: u64| {
        let mut m = moved(number, point);
        m["clock"] = json!({"B": b, "W": w});
        m
    };
    let mut setup = game_started();
    setup["time_control"] = json!("byoyomi 10m 3x30s");
    for (seq, time, body) in [
        (1, "2026-11-29T13:00:00.000Z", setup),
        (
            2,
            "2026-11-29T13:00:00.000Z",
            clock(Value::Null, 600_000, 600_000, "B"),
        ),
        (
            3,
            "2026-11-29T13:00:10.000Z",
            timed(1, "E5", 590_000, 600_000),
        ),
        (
            4,
            "2026-11-29T13:00:10.000Z",
            clock(json!("B"), 590_000, 600_000, "W"),
        ),
        (
            5,
            "2026-11-29T13:01:10.000Z",
            timed(2, "C3", 590_000, 540_000),
        ),
        (
            6,
            "2026-11-29T13:01:10.000Z",
            clock(json!("W"), 590_000, 540_000, "B"),
        ),
    ] {
        h.on_message(ev, &event(seq, time, body), now);
    }
    let state = h.public_feed(&key).unwrap().state();
    assert_eq!(state["number"], 1);
    assert_eq!(
        state["clocks"],
        json!({"B": 590_000, "W": 600_000, "periods": {"B": 3, "W": 3},
                "running": "W", "paused": false}),
        "White's clock as it stood at the last public press, not run on to now"
    );
}

#[test]
fn a_hall_that_does_not_republish_keeps_the_delay_to_itself() {
    let b = crate::config::HallConfig::parse(
        "[broadcast]\ndelay_moves = 1\nrepublish = false\n",
        std::path::Path::new("hall.toml"),
    )
    .unwrap()
    .broadcast;
    let mut h = HallState::new("tengen", None).with_broadcast(b.as_ref());
    let now = Instant::now();
    let t0 = "2026-11-29T13:00:00.000Z";
    let ev = "tengen/t/b1/events";
    for (seq, body) in [
        (1, game_started()),
        (2, moved(1, "E5")),
        (3, moved(2, "C3")),
    ] {
        let out = h.on_message_at(ev, &event(seq, t0, body), now, Timestamp::now());
        assert!(out.is_empty());
    }
    let key = BoardKey::new("t", "b1").unwrap();
    assert_eq!(h.public_feed(&key).unwrap().state()["number"], 1);
    assert_eq!(h.feed(&key).unwrap().last_seq(), 3);
}

#[test]
fn the_console_lists_standing_hardware_trouble_newest_first() {
    let mut h = HallState::new("tengen", None);
    let now = Instant::now();
    let fault =
        |kind: &str, points: Value| json!({"type": "sensor_fault", "kind": kind, "points": points});
    for (board, seq, time, body) in [
        ("b1", 1, "2026-11-29T13:00:00.000Z", game_started()),
        (
            "b1",
            2,
            "2026-11-29T13:00:01.000Z",
            fault("noisy", json!(["J1"])),
        ),
        (
            "b2",
            1,
            "2026-11-29T13:00:02.000Z",
            fault("link_lost", json!([])),
        ),
        (
            "b1",
            3,
            "2026-11-29T13:00:03.000Z",
            fault("stuck", json!(["A9", "B9"])),
        ),
        (
            "b2",
            2,
            "2026-11-29T13:00:04.000Z",
            fault("link_restored", json!([])),
        ),
    ] {
        let mut e: Value = serde_json::from_slice(&event(seq, time, body)).unwrap();
        e["board"] = json!(board);
        h.on_message(
            &format!("tengen/t/{board}/events"),
            e.to_string().as_bytes(),
            now,
        );
    }
    let list = h.hardware_json();
    let rows: Vec<(String, String, Value)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["board"].as_str().unwrap().to_string(),
                r["kind"].as_str().unwrap().to_string(),
                r["points"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("b1".to_string(), "stuck".to_string(), json!(["A9", "B9"])),
            ("b1".to_string(), "noisy".to_string(), json!(["J1"])),
        ]
    );
    // A board whose storage is full: standing trouble too, while its alert is open.
    let full = json!([{"seq": 40, "time": "2026-11-29T14:00:00.000Z", "board": "b2",
            "game": "g", "type": "alert", "id": "s40", "code": "storage_full", "article": "",
            "color": null, "points": [], "expected": {}, "message": "full"}]);
    h.on_message(
        "tengen/t/b2/alerts/active",
        full.to_string().as_bytes(),
        now,
    );
    let list = h.hardware_json();
    assert_eq!(list[0]["board"], "b2");
    assert_eq!(list[0]["kind"], "storage_full");
    assert_eq!(list.as_array().map(Vec::len), Some(3));
    h.on_message("tengen/t/b2/alerts/active", b"[]", now);
    assert_eq!(h.hardware_json().as_array().map(Vec::len), Some(2));
}

#[test]
fn without_a_broadcast_section_the_public_side_is_live_without_alerts() {
    let mut h = HallState::new("tengen", None);
    let now = Instant::now();
    let active = json!([active_alert_json("a1")]).to_string();
    h.on_message("tengen/t/b1/alerts/active", active.as_bytes(), now);
    let out = h.on_message(
        "tengen/t/b1/events",
        &event(1, "2026-11-29T13:00:00.000Z", game_started()),
        now,
    );
    assert!(out.is_empty());
    h.on_message(
        "tengen/t/b1/events",
        &event(2, "2026-11-29T13:00:01.000Z", secret_alert()),
        now,
    );
    assert!(h.tick(now).is_empty());
    let key = BoardKey::new("t", "b1").unwrap();
    let public = h.public_feed(&key).unwrap();
    assert_eq!(public.state()["seq"], 2, "as live as the board");
    assert_eq!(public.events_after(0).len(), 1, "no alert");
    assert_eq!(h.feed(&key).unwrap().events_after(0).len(), 2);
    assert_eq!(h.boards_json(now)[0]["open_alerts"], Value::Null);
    assert_eq!(h.commentary_boards_json(now)[0]["open_alerts"], Value::Null);
    assert_eq!(h.live_boards_json(now)[0]["open_alerts"], 1);
    // The console's card: the alert as the board sent it, where it is and who plays there.
    let cards = h.alerts_json();
    let card = &cards[0];
    assert_eq!(
        (&card["id"], &card["code"], &card["seq"], &card["game"]),
        (&json!("a1"), &json!("stone_moved"), &json!(5), &json!("g1"))
    );
    assert_eq!(
        (&card["tournament"], &card["board"], &card["size"]),
        (&json!("t"), &json!("b1"), &json!(9))
    );
    assert_eq!(
        (&card["black"], &card["taken_by"]),
        (&json!("B"), &Value::Null)
    );
    assert_eq!(card["expected"], json!({"D4": "B"}));
    // A list the hall cannot read is dropped whole: the open alerts stay as they were.
    for bad in [&br#"[{"id":"a2"}]"#[..], b"{}", b"not json"] {
        h.on_message("tengen/t/b1/alerts/active", bad, now);
        assert_eq!(h.live_boards_json(now)[0]["open_alerts"], 1);
    }
}

/// An `alert` event whose message is `secret`, as JSON.
fn secret_alert() -> Value {
    let alert = tengen_protocol::Event::Alert(tengen_protocol::event::Alert {
        id: "a1".into(),
        code: tengen_protocol::event::AlertCode::StoneMoved,
        article: "17.5".into(),
        color: None,
        points: vec![],
        expected: Default::default(),
        message: "secret".into(),
        late_ms: None,
    });
    serde_json::to_value(&alert).expect("JSON")
}

#[test]
fn without_the_history_the_public_side_shows_the_boards_state_without_its_alerts() {
    let mut h = HallState::new("tengen", None);
    let now = Instant::now();
    let state = whole_state(json!({"number": 3, "seq": 9, "alerts": [secret_alert()]}));
    h.on_message("tengen/t/b1/state", state.to_string().as_bytes(), now);
    h.on_message("tengen/t/b1/sgf", b"(;GM[1]SZ[19];B[dd]C[secret])", now);
    let key = BoardKey::new("t", "b1").unwrap();
    let live = h.feed(&key).unwrap();
    assert!(live.state().to_string().contains("secret"));
    let public = h.public_feed(&key).unwrap();
    assert_eq!(public.state()["number"], 3);
    assert!(!public.state().to_string().contains("secret"));
    assert!(public.sgf().contains("B[dd]") && !public.sgf().contains("secret"));
}

#[test]
fn followed_events_are_queued_for_the_archive_once_each_in_order() {
    let now = Instant::now();
    let t0 = "2026-11-29T13:00:00.000Z";
    let ev = "tengen/t/b1/events";
    let mut plain = HallState::new("tengen", None);
    plain.on_message(ev, &event(1, t0, game_started()), now);
    assert!(plain.take_archived().is_empty(), "no archive, no queue");

    // With an identity: held back until the history is whole, then in order.
    let mut h = HallState::new("tengen", Some("hall".into())).with_archive(true);
    h.on_message(ev, &event(3, t0, moved(2, "C3")), now);
    assert!(h.take_archived().is_empty());
    h.on_message(ev, &event(1, t0, game_started()), now);
    h.on_message(ev, &event(2, t0, moved(1, "E5")), now);
    h.on_message(ev, &event(2, t0, moved(1, "E5")), now);
    h.on_message(ev, &event(4, t0, moved(3, "D4")), now);
    h.on_message(ev, &event(3, t0, moved(2, "C3")), now);
    let queued: Vec<(String, u64)> = h
        .take_archived()
        .into_iter()
        .map(|(k, e)| (k.board, e.seq))
        .collect();
    assert_eq!(queued, [1, 2, 3, 4].map(|s| ("b1".to_string(), s)).to_vec());
    assert!(h.take_archived().is_empty());
}

#[test]
fn a_hall_with_an_identity_asks_for_missing_history() {
    let now = Instant::now();
    let mut h = HallState::new("tengen", Some("hall-main".into()));
    let out = h.on_message("tengen/t/b1/state", br#"{"seq":9}"#, now);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].topic, "tengen/t/b1/cmd");
    let mut v: Value = serde_json::from_slice(&out[0].payload).unwrap();
    assert_eq!(v["id"].as_str().map(str::len), Some(16), "a random id: {v}");
    v["id"] = json!("random");
    assert_eq!(
        v,
        json!({"id": "random", "by": "hall-main", "type": "republish", "from_seq": 1})
    );
    assert!(h
        .on_message("tengen/t/b1/state", br#"{"seq":10}"#, now)
        .is_empty());
}

#[test]
fn a_hall_asks_again_when_the_board_refuses_its_republish_for_now() {
    let now = Instant::now();
    let wall = Timestamp::parse("2026-11-29T13:45:01.250Z").unwrap();
    let mut h = HallState::new("tengen", Some("hall-main".into()));
    let out = h.on_message_at("tengen/t/b1/state", br#"{"seq":9}"#, now, wall);
    assert_eq!(out.len(), 1, "asked once");
    let first: Value = serde_json::from_slice(&out[0].payload).unwrap();
    // Another hall asked just before: the board's rate limit refuses this one.
    let refusal = RepublishRefused {
        every_s: 10,
        wait_ms: 6_000,
    };
    let reply = json!({"id": first["id"], "ok": false, "error": refusal.to_string()});
    let reply = reply.to_string();
    assert!(h
        .on_message_at("tengen/t/b1/cmd/reply", reply.as_bytes(), now, wall)
        .is_empty());
    assert!(h.tick_at(now + Duration::from_secs(6), wall).is_empty());
    let out = h.tick_at(now + Duration::from_millis(6_100), wall);
    assert_eq!(out.len(), 1, "asked again once the board takes it: {out:?}");
    assert_eq!(out[0].topic, "tengen/t/b1/cmd");
    let mut v: Value = serde_json::from_slice(&out[0].payload).unwrap();
    assert_ne!(v["id"], first["id"]);
    v["id"] = json!("random");
    assert_eq!(
        v,
        json!({"id": "random", "by": "hall-main", "type": "republish", "from_seq": 1})
    );
}

/// A hall that has seen board `b` set up for round 1 and play one move, at `now`.
fn in_play(h: &mut HallState, b: &str, now: Instant) {
    let topic = format!("tengen/t/{b}/events");
    let started = event(1, "2026-11-29T13:45:00Z", game_started());
    h.on_message(&topic, &started, now);
    h.on_message(
        &topic,
        &event(2, "2026-11-29T13:45:01Z", moved(1, "E5")),
        now,
    );
    h.on_message(
        &format!("tengen/t/{b}/status"),
        br#"{"state":"online"}"#,
        now,
    );
}

#[test]
fn a_board_in_play_that_falls_silent_rings_in_the_console_until_it_is_back() {
    let t0 = Instant::now();
    let wall = Timestamp::parse("2026-11-29T13:45:01Z").unwrap();
    let mut h = HallState::new("tengen", None).with_board_silence(Duration::from_secs(15));
    in_play(&mut h, "b1", t0);
    h.on_message("tengen/t/idle/status", br#"{"state":"online"}"#, t0);
    h.tick_at(t0 + Duration::from_secs(14), wall);
    assert_eq!(h.alerts_json(), json!([]));
    h.tick_at(t0 + Duration::from_secs(15), wall);
    let alerts = h.alerts_json();
    let a = alerts.as_array().expect("alerts");
    assert_eq!(a.len(), 1, "the silent board in play only: {alerts}");
    assert_eq!(
        (
            &a[0]["code"],
            &a[0]["board"],
            &a[0]["table"],
            &a[0]["black"]
        ),
        (
            &json!("board_offline"),
            &json!("b1"),
            &json!("1"),
            &json!("B")
        )
    );
    let key = BoardKey::new("t", "b1").unwrap();
    let id = a[0]["id"].as_str().unwrap().to_string();
    h.take_alert(&key, &id, "chief").expect("an arbiter goes");
    assert_eq!(h.alerts_json()[0]["taken_by"], "chief");
    assert_eq!(h.taken_saved().len(), 1, "kept for a restart");

    // The heartbeat again: cleared.
    h.on_message(
        "tengen/t/b1/status",
        br#"{"state":"online"}"#,
        t0 + Duration::from_secs(16),
    );
    h.tick_at(t0 + Duration::from_secs(16), wall);
    assert_eq!(h.alerts_json(), json!([]));

    // The last will: at once.
    h.on_message(
        "tengen/t/b1/status",
        br#"{"state":"offline"}"#,
        t0 + Duration::from_secs(17),
    );
    h.tick_at(t0 + Duration::from_secs(17), wall);
    let id = h.alerts_json()[0]["id"].as_str().unwrap().to_string();
    assert!(h.dismiss_hall_alert(&key, "nope").is_err());
    h.dismiss_hall_alert(&key, &id).expect("dismissed");
    assert_eq!(h.alerts_json(), json!([]));
}

/// Issue 34: the hall's own broker link down is not every board offline. Before, a
/// link down for longer than `board_silence_s` raised `board_offline` for every board in
/// play, and the reconnection cleared them all.
#[test]
fn the_fleet_watch_holds_its_alerts_while_the_halls_own_link_is_down() {
    let t0 = Instant::now();
    let wall = Timestamp::parse("2026-11-29T13:45:01Z").unwrap();
    let at = |s: u64| t0 + Duration::from_secs(s);
    let mut h = HallState::new("tengen", None).with_board_silence(Duration::from_secs(15));
    h.broker_link(true, t0);
    in_play(&mut h, "b1", t0);
    in_play(&mut h, "b2", t0);
    h.broker_link(false, at(5));
    for s in [10, 20, 40, 60] {
        h.tick_at(at(s), wall);
        assert_eq!(h.alerts_json(), json!([]), "link down, {s} s");
    }
    // Back at 61 s: b1 speaks as the hall subscribes again, b2 does not.
    h.broker_link(true, at(61));
    h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, at(61));
    h.tick_at(at(62), wall);
    assert_eq!(h.alerts_json(), json!([]), "nothing raised on the way back");
    h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, at(70));
    h.tick_at(at(76), wall);
    let boards: Vec<Value> = h
        .alerts_json()
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["board"].clone())
        .collect();
    assert_eq!(
        boards,
        [json!("b2")],
        "the one still silent, once the hall has listened"
    );
}

#[test]
fn pause_all_reaches_the_boards_in_play_and_names_the_silent_ones() {
    let t0 = Instant::now();
    let mut h = HallState::new("tengen", None).with_board_silence(Duration::from_secs(15));
    in_play(&mut h, "b1", t0);
    in_play(&mut h, "b2", t0);
    h.on_message("tengen/t/b2/status", br#"{"state":"offline"}"#, t0);
    h.on_message("tengen/t/idle/status", br#"{"state":"online"}"#, t0);
    let done = h.all_boards("chief", "pause", None, t0);
    let sent: Vec<&str> = done.sent.iter().map(|(k, _, _)| k.board.as_str()).collect();
    assert_eq!(sent, ["b1"]);
    let body: Value = serde_json::from_slice(&done.sent[0].2.payload).unwrap();
    assert_eq!(
        (&body["type"], &body["by"]),
        (&json!("pause"), &json!("chief"))
    );
    assert_eq!(done.sent[0].2.topic, "tengen/t/b1/cmd");
    let skipped: Vec<(&str, &str)> = done
        .skipped
        .iter()
        .map(|(k, w)| (k.board.as_str(), w.as_str()))
        .collect();
    assert_eq!(skipped, [("b2", "offline")]);
    assert!(
        h.all_boards("chief", "resume", Some(2), t0).sent.is_empty(),
        "round 2: none"
    );
    assert_eq!(h.all_boards("chief", "resume", Some(1), t0).sent.len(), 1);
}

#[test]
fn a_boards_state_and_sgf_are_taken_only_until_the_hall_folds_its_game() {
    let t0 = Instant::now();
    let mut h = HallState::new("tengen", Some("hall".into()));
    let changes = |h: &mut HallState| -> Vec<(bool, String)> {
        h.take_subscription_changes()
            .into_iter()
            .map(|c| (c.subscribe, c.topic))
            .collect()
    };
    // Heard of mid-game: its state and SGF, until the history is in.
    h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, t0);
    assert_eq!(
        changes(&mut h),
        [
            (true, "tengen/t/b1/state".to_string()),
            (true, "tengen/t/b1/sgf".to_string())
        ]
    );
    let t = "2026-11-29T13:00:00.000Z";
    h.on_message("tengen/t/b1/events", &event(2, t, moved(1, "E5")), t0);
    assert!(changes(&mut h).is_empty(), "still no fold");
    h.on_message("tengen/t/b1/events", &event(1, t, game_started()), t0);
    assert_eq!(
        changes(&mut h),
        [
            (false, "tengen/t/b1/state".to_string()),
            (false, "tengen/t/b1/sgf".to_string())
        ]
    );
    // A minute on, the check: the state alone, dropped once it came.
    h.tick(t0 + Duration::from_secs(61));
    assert_eq!(changes(&mut h), [(true, "tengen/t/b1/state".to_string())]);
    h.on_message(
        "tengen/t/b1/state",
        br#"{"seq":2}"#,
        t0 + Duration::from_secs(61),
    );
    assert_eq!(changes(&mut h), [(false, "tengen/t/b1/state".to_string())]);
    // A board that never started a game in the hall's sight keeps them.
    h.on_message("tengen/t/b2/status", br#"{"state":"online"}"#, t0);
    assert_eq!(changes(&mut h).len(), 2);
    h.tick(t0 + Duration::from_secs(100));
    assert!(changes(&mut h).is_empty());
}

#[test]
fn a_board_back_with_a_new_journal_is_followed_on_every_page() {
    let t0 = Instant::now();
    let b = crate::config::HallConfig::parse(
        "[broadcast]\ndelay_moves = 1\n",
        std::path::Path::new("hall.toml"),
    )
    .unwrap()
    .broadcast;
    let mut h = HallState::new("tengen", None).with_broadcast(b.as_ref());
    in_play(&mut h, "b1", t0);
    let key = BoardKey::new("t", "b1").unwrap();
    assert_eq!(h.feed(&key).unwrap().last_seq(), 2);
    // The spare board: a new journal, the same game set up again, a move elsewhere.
    let started = event(1, "2026-11-29T14:00:00Z", game_started());
    h.on_message("tengen/t/b1/events", &started, t0);
    h.on_message(
        "tengen/t/b1/events",
        &event(2, "2026-11-29T14:00:05Z", moved(1, "D4")),
        t0,
    );
    h.tick(t0);
    let live = h.feed(&key).unwrap().events_after(0);
    assert_eq!(live.len(), 2);
    assert_eq!(
        live[1].time,
        Timestamp::parse("2026-11-29T14:00:05Z").unwrap()
    );
    let public = h.public_feed(&key).unwrap().events_after(0);
    assert_eq!(public.len(), 1, "one move behind");
    assert_eq!(
        public[0].time,
        Timestamp::parse("2026-11-29T14:00:00Z").unwrap()
    );
    // A republished copy of the current journal's event is a duplicate, not a reset.
    h.on_message("tengen/t/b1/events", &started, t0);
    assert_eq!(h.feed(&key).unwrap().events_after(0).len(), 2);
}

#[test]
fn the_overview_text_is_the_summaries_and_follows_every_change() {
    let t0 = Instant::now();
    let mut h = HallState::new("tengen", None);
    in_play(&mut h, "b1", t0);
    h.on_message("tengen/t/b2/status", br#"{"state":"online"}"#, t0);
    let same = |h: &mut HallState, at: Instant| {
        let text: Value = serde_json::from_str(&h.boards_json_text(at)).expect("JSON");
        assert_eq!(text, h.boards_json(at), "the text is the summaries");
    };
    same(&mut h, t0 + Duration::from_millis(300));
    h.on_message(
        "tengen/t/b1/events",
        &event(3, "2026-11-29T13:45:02Z", moved(2, "C3")),
        t0,
    );
    h.on_message("tengen/t/b2/status", br#"{"state":"offline"}"#, t0);
    let active = json!([active_alert_json("1")]).to_string();
    h.on_message("tengen/t/b1/alerts/active", active.as_bytes(), t0);
    same(&mut h, t0 + Duration::from_millis(900));
    let v: Value = serde_json::from_str(&h.boards_json_text(t0)).unwrap();
    assert_eq!(
        (&v[0]["number"], &v[0]["open_alerts"]),
        (&json!(2), &Value::Null),
        "alerts are never public"
    );
    assert_eq!(h.live_boards_json(t0)[0]["open_alerts"], 1);
    assert_eq!(v[1]["status"], "offline");
}

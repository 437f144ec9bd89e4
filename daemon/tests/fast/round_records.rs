//! A corrected result reaches the records (issue 20): against a real mosquitto and a real
//! hall (`[hall] archive_dir`, `[tournament]` on `tournoi-chinois.xml`), two boards end
//! their round-1 games with `W+F` after a second warning:
//!
//! - table 1's warning was a wrong confirm: the arbiter gives Black the win at *Confirm* in
//!   the Round view; the round zip's record then says `RE[B+]` and
//!   `TENGENRESULT[RESULT_BLACKWINS]` (it said `RE[W+F]` before);
//! - table 2's board is reopened and the game ends again, by resignation: the zip's record
//!   has the latest result, `RE[B+R]`;
//! - `tengen results` on that zip (checking each record's board and tournament) writes
//!   `RESULT_BLACKWINS` for both, read back by Python's `xml.etree`; a board's `W+F` after
//!   moves is pending as `RESULT_WHITEWINS` (played), not by default.

use crate::broker;
use crate::cli_tournament::{pairings_of, python, sample, snapshot};
use crate::http;

use std::io::Read;
use std::net::SocketAddr;

use broker::{Mosquitto, Subscriber};
use http::{get, request, wait_for};
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_protocol::event::{EndReason, Envelope, Event, GameEnd, GameSetup};
use tengen_protocol::{GameView, Timestamp};
use tengen_rules::sgf::GameRecord;
use tengen_rules::{Color, Point};

const TOKEN: &str = "records-token-0123";

/// Event `seq` of table `table`'s board in its round-1 game.
fn ev(table: u32, seq: u64, event: Event) -> Envelope {
    Envelope {
        seq,
        time: Timestamp::parse(&format!("2026-11-29T13:45:{:02}.000Z", seq % 60)).unwrap(),
        board: format!("hall1-{table:02}"),
        game: format!("r1-t{table}"),
        by: None,
        event,
    }
}

fn mv(table: u32, seq: u64, number: u32, point: &str) -> Envelope {
    let color = if number % 2 == 1 {
        Color::Black
    } else {
        Color::White
    };
    let point = Point::parse_gtp(point, 19).unwrap();
    ev(
        table,
        seq,
        Event::Move {
            number,
            color,
            point,
            captured: vec![],
            clock: None,
        },
    )
}

fn over(table: u32, seq: u64, result: &str, reason: EndReason) -> Envelope {
    ev(
        table,
        seq,
        Event::GameOver(GameEnd::uncounted(result, reason)),
    )
}

async fn publish(board: &Subscriber, topic: &str, payload: String, retain: bool) {
    board
        .client
        .publish(topic, QoS::AtLeastOnce, retain, payload.into_bytes())
        .await
        .expect("publish");
}

/// The root property `ident` of a record.
fn root<'a>(r: &'a GameRecord, ident: &str) -> Option<&'a str> {
    r.extra_root
        .iter()
        .find(|(i, _)| i == ident)
        .map(|(_, v)| v.as_str())
}

/// The zip's bytes and its records by file name.
async fn round_zip(addr: SocketAddr) -> (Vec<u8>, Vec<(String, GameRecord)>) {
    let r = get(addr, "/round/1.zip", &[]).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(r.body.clone())).expect("a zip");
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let mut text = String::new();
        f.read_to_string(&mut text).unwrap();
        out.push((
            f.name().to_string(),
            tengen_rules::sgf::parse(&text).unwrap(),
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    (r.body, out)
}

#[tokio::test]
async fn a_corrected_result_reaches_the_round_zip_and_tengen_results() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let xml = dir.path().join("cup.xml");
    std::fs::copy(sample("tournoi-chinois.xml"), &xml).unwrap();
    let toml = format!(
        "[hall]\narchive_dir = \"archive\"\n\
         [tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{{table:02}}\"\nid = \"cup\"\n\
         [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
    );
    let hall_toml = dir.path().join("hall.toml");
    std::fs::write(&hall_toml, toml).unwrap();
    let config = tengen_hall::HallConfig::load(&hall_toml).unwrap();
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let boards = Subscriber::connect(&mosq.url(), "two-boards", &["tengen/+/+/cmd"]).await;

    // The hall is subscribed once it shows both boards' retained status.
    for table in [1u32, 2] {
        let status = json!({"state": "online", "version": "0.1.0"}).to_string();
        let topic = format!("tengen/cup/hall1-{table:02}/status");
        publish(&boards, &topic, status, true).await;
    }
    wait_for("the boards in the hall", || async {
        let v = get(hall.addr, "/api/boards", &[]).await.json();
        let online = v
            .as_array()
            .map_or(0, |b| b.iter().filter(|b| b["status"] == "online").count());
        (online == 2).then_some(())
    })
    .await;

    let pairings = pairings_of("tournoi-chinois.xml", 1);
    for table in [1u32, 2] {
        let base = format!("tengen/cup/hall1-{table:02}");
        let (_, black, white) = &pairings[table as usize - 1];
        let started = ev(
            table,
            1,
            Event::GameStarted(GameSetup {
                black: black.clone(),
                white: white.clone(),
                round: "1".into(),
                table: table.to_string(),
                event: Some("Tournoi chinois".into()),
                ..GameSetup::default()
            }),
        );
        // Each event as the board publishes it, and its fold for the board's `state`.
        let mut view = GameView::new();
        let mut events = Vec::new();
        let mut played = |e: Envelope, events: &mut Vec<String>| {
            view.apply_envelope(&e).expect("a game event");
            events.push(serde_json::to_string(&e).unwrap());
        };
        played(started, &mut events);
        played(mv(table, 2, 1, "Q16"), &mut events);
        played(mv(table, 3, 2, "D4"), &mut events);
        // Black's second warning ends the game: White wins by forfeit.
        played(over(table, 4, "W+F", EndReason::Warnings), &mut events);
        if table == 2 {
            // The arbiter reopens the game (the warning was wrong) and Black then wins by
            // resignation: the latest game_over is the result. (`game_reopened` is the
            // board side's new event; the hall's fold takes the game_over after it.)
            events.push(
                json!({"seq": 5, "time": "2026-11-29T13:45:05.000Z", "board": "hall1-02",
                       "game": "r1-t2", "by": "chief", "type": "game_reopened",
                       "previous_result": "W+F", "reason": "a wrong warning"})
                .to_string(),
            );
            played(over(table, 6, "B+R", EndReason::Resignation), &mut events);
        }
        for e in events {
            publish(&boards, &format!("{base}/events"), e, false).await;
        }
        let state = view
            .snapshot(Timestamp::now())
            .expect("a game")
            .to_value()
            .to_string();
        publish(&boards, &format!("{base}/state"), state, true).await;
    }

    let cookie = http::console_cookie(hall.addr, "chief", TOKEN).await;
    let auth = ("Cookie", cookie.as_str());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let view = loop {
        let v = get(hall.addr, "/api/console/round/1", &[auth]).await.json();
        if v["tables"][0]["state"] == "over" && v["tables"][1]["board_result"] == "B+R" {
            break v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "both games over in the Round view: {:#}",
            json!([v["tables"][0], v["tables"][1]])
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    // A forfeit after moves were played is a win, not one by default.
    assert_eq!(view["tables"][0]["result"], "RESULT_WHITEWINS");
    assert_eq!(view["tables"][0]["result_state"], "pending");
    assert_eq!(view["tables"][1]["result"], "RESULT_BLACKWINS");
    assert_eq!(view["round_in_play"], 1);
    let (_, before) = round_zip(hall.addr).await;
    assert_eq!(before[0].0, "cup-hall1-01-r1-t1.sgf");
    assert_eq!(before[0].1.result.as_deref(), Some("W+F"));
    assert_eq!(
        before[1].1.result.as_deref(),
        Some("B+R"),
        "the latest game_over"
    );

    // Table 1: the arbiter gives Black the win; table 2: as the board says.
    let body = json!({"results": [{"table": 1, "result": "RESULT_BLACKWINS"}, {"table": 2}]});
    let r = request(
        hall.addr,
        "POST",
        "/api/console/round/1/confirm",
        &[
            auth,
            ("Content-Type", "application/json"),
            http::TEST_ORIGIN,
        ],
        body.to_string().as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["confirmed"], json!([1, 2]));

    let (bytes, records) = round_zip(hall.addr).await;
    let (name, t1) = &records[0];
    assert_eq!(name, "cup-hall1-01-r1-t1.sgf");
    assert_eq!(
        t1.result.as_deref(),
        Some("B+"),
        "what the arbiter confirmed"
    );
    assert_eq!(root(t1, "TENGENRESULT"), Some("RESULT_BLACKWINS"));
    assert_eq!(root(t1, "TENGENBOARD"), Some("hall1-01"));
    assert_eq!(root(t1, "TENGENTOURNAMENT"), Some("cup"));
    assert_eq!(t1.moves.len(), 2);
    let t2 = &records[1].1;
    assert_eq!(t2.result.as_deref(), Some("B+R"));
    assert_eq!(root(t2, "TENGENRESULT"), Some("RESULT_BLACKWINS"));

    // The director's laptop: tengen results from that zip.
    let zip = dir.path().join("round-1.zip");
    std::fs::write(&zip, bytes).unwrap();
    let out = dir.path().join("cup-out.xml");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("results")
        .arg(&xml)
        .args(["--round", "1", "--zip"])
        .arg(&zip)
        .args([
            "--boards",
            "hall1-{table:02}",
            "--tournament",
            "cup",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let written = snapshot(&out, 1);
    assert_eq!(written["results"]["1"], "RESULT_BLACKWINS");
    assert_eq!(written["results"]["2"], "RESULT_BLACKWINS");
    let _: Value = written;
    hall.stop();
}

//! A confirmed result goes public with the game's end, not ahead of the broadcast delay
//! (issue 34, item 3): a real hall (`[tournament]` on `tournoi-chinois.xml`, `[broadcast]
//! delay_moves = 2` with `release_at_end` and `export_dir`) on a real mosquitto. An arbiter
//! confirms table 1's result while the public still sees the game in play: the round feed's
//! index and record, `/round/1.zip` and the export say nothing of it (before, all of them
//! carried the result at once); the arbiters' zip has it. Once the board ends the game (the
//! delay releases its end) every public record says what the arbiter confirmed.
//!
//! Item 5, the cache side: a game over and confirmed is still served live (`max-age=1`, no
//! `.final` in the export: an arbiter may reopen it; before, the confirmation made it
//! `immutable`), and `immutable` once its board has begun a later game.

use crate::broker;
use crate::cli_tournament::{pairings_of, sample};
use crate::http;

use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;

use broker::{Mosquitto, Subscriber};
use http::{get, request, wait_for};
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_protocol::event::{EndReason, Envelope, Event, GameEnd, GameSetup};
use tengen_protocol::Timestamp;
use tengen_rules::{Color, Point};

const TOKEN: &str = "delay-token-0123";

fn ev(seq: u64, event: Event) -> Envelope {
    Envelope {
        seq,
        time: Timestamp::parse(&format!("2026-11-29T13:45:{:02}.000Z", seq % 60)).unwrap(),
        board: "hall1-01".into(),
        game: "r1-t1".into(),
        by: None,
        event,
    }
}

fn mv(seq: u64, number: u32, point: &str) -> Envelope {
    let color = if number % 2 == 1 {
        Color::Black
    } else {
        Color::White
    };
    ev(
        seq,
        Event::Move {
            number,
            color,
            point: Point::parse_gtp(point, 19).unwrap(),
            captured: vec![],
            clock: None,
        },
    )
}

async fn publish(board: &Subscriber, e: &Envelope) {
    board
        .client
        .publish(
            "tengen/cup/hall1-01/events",
            QoS::AtLeastOnce,
            false,
            serde_json::to_vec(e).unwrap(),
        )
        .await
        .expect("publish");
}

/// The record of table 1 in `/round/1.zip` (the arbiters' with an arbiter's `cookie`), as
/// text.
async fn zipped(addr: SocketAddr, cookie: Option<&str>) -> String {
    let auth: Vec<(&str, &str)> = cookie.map(|c| ("Cookie", c)).into_iter().collect();
    let r = get(addr, "/round/1.zip", &auth).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(r.body)).expect("a zip");
    let mut f = zip
        .by_name("cup-hall1-01-r1-t1.sgf")
        .expect("table 1's record");
    let mut text = String::new();
    f.read_to_string(&mut text).unwrap();
    text
}

/// What the public has of table 1's result: the index line's, the record's `RE` and
/// `TENGENRESULT`, the public zip's, and the export's copies of the index and record.
async fn public_results(addr: SocketAddr, site: &Path) -> Value {
    let index = get(addr, "/feed/round/1/index.json", &[]).await.json();
    let record = get(addr, "/feed/round/1/1.sgf", &[]).await.text();
    let zip = zipped(addr, None).await;
    let export_index: Value =
        serde_json::from_slice(&std::fs::read(site.join("feed/round/1/index.json")).unwrap())
            .unwrap_or_default();
    let export_record = std::fs::read_to_string(site.join("feed/round/1/1.sgf")).unwrap();
    let says = |sgf: &str| {
        json!([
            sgf.contains("RE["),
            sgf.contains("TENGENRESULT[RESULT_BLACKWINS]")
        ])
    };
    json!({
        "index": index["games"][0]["result"],
        "record": says(&record),
        "zip": says(&zip),
        "export_index": export_index["games"][0]["result"],
        "export_record": says(&export_record),
    })
}

#[tokio::test]
async fn a_confirmed_result_is_public_only_once_the_delay_releases_the_games_end() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::copy(sample("tournoi-chinois.xml"), dir.join("cup.xml")).unwrap();
    let toml = format!(
        "[hall]\narchive_dir = \"archive\"\n\
         [tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{{table:02}}\"\nid = \"cup\"\n\
         [broadcast]\ndelay_moves = 2\nrelease_at_end = true\nexport_dir = \"site\"\n\
         [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
    );
    std::fs::write(dir.join("hall.toml"), toml).unwrap();
    let config = tengen_hall::HallConfig::load(&dir.join("hall.toml")).unwrap();
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let site = dir.join("site");
    let board = Subscriber::connect(&mosq.url(), "hall1-01", &["tengen/cup/hall1-01/cmd"]).await;
    let status = json!({"state": "online", "version": "0.1.0"}).to_string();
    board
        .client
        .publish(
            "tengen/cup/hall1-01/status",
            QoS::AtLeastOnce,
            true,
            status.into_bytes(),
        )
        .await
        .unwrap();
    wait_for("the board in the hall", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v[0]["status"] == "online").then_some(())
    })
    .await;
    let pairings = pairings_of("tournoi-chinois.xml", 1);
    let (_, black, white) = &pairings[0];
    let started = ev(
        1,
        Event::GameStarted(GameSetup {
            black: black.clone(),
            white: white.clone(),
            round: "1".into(),
            table: "1".into(),
            ..GameSetup::default()
        }),
    );
    for e in [started, mv(2, 1, "Q16"), mv(3, 2, "D4"), mv(4, 3, "Q4")] {
        publish(&board, &e).await;
    }
    wait_for("one move public", || async {
        let r = get(addr, "/feed/round/1/index.json", &[]).await;
        let v: Value = serde_json::from_slice(&r.body).unwrap_or_default();
        let exported = std::fs::read(site.join("feed/round/1/index.json")).unwrap_or_default();
        let e: Value = serde_json::from_slice(&exported).unwrap_or_default();
        (v["games"][0]["moves"] == 1 && e["games"][0]["moves"] == 1).then_some(())
    })
    .await;

    // The arbiter confirms Black's win while the public sees move 1.
    let cookie = http::console_cookie(addr, "chief", TOKEN).await;
    let body = json!({"results": [{"table": 1, "result": "RESULT_BLACKWINS"}]});
    let r = request(
        addr,
        "POST",
        "/api/console/round/1/confirm",
        &[
            ("Cookie", &cookie),
            ("Content-Type", "application/json"),
            http::TEST_ORIGIN,
        ],
        body.to_string().as_bytes(),
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // Another move comes, so the feed and the export are written again after it.
    publish(&board, &mv(5, 4, "D16")).await;
    wait_for("two moves public", || async {
        let r = get(addr, "/feed/round/1/index.json", &[]).await;
        let v: Value = serde_json::from_slice(&r.body).unwrap_or_default();
        let exported = std::fs::read(site.join("feed/round/1/index.json")).unwrap_or_default();
        let e: Value = serde_json::from_slice(&exported).unwrap_or_default();
        (v["games"][0]["moves"] == 2 && e["games"][0]["moves"] == 2).then_some(())
    })
    .await;
    let nothing = json!({
        "index": null, "record": [false, false], "zip": [false, false],
        "export_index": null, "export_record": [false, false],
    });
    assert_eq!(public_results(addr, &site).await, nothing);
    let theirs = zipped(addr, Some(&cookie)).await;
    assert!(
        theirs.contains("TENGENRESULT[RESULT_BLACKWINS]"),
        "the arbiters' zip has it: {theirs}"
    );

    // The board ends the game: the delay releases it whole, with the confirmation.
    let over = ev(
        6,
        Event::GameOver(GameEnd::uncounted("B+R", EndReason::Resignation)),
    );
    publish(&board, &over).await;
    // (The board's own `B+R` says what the arbiter confirmed, so it is kept.)
    let confirmed = json!({
        "index": "B+R", "record": [true, true], "zip": [true, true],
        "export_index": "B+R", "export_record": [true, true],
    });
    wait_for("the confirmed result public", || async {
        let got = public_results(addr, &site).await;
        (got == confirmed).then_some(())
    })
    .await;

    // Over and confirmed, yet an arbiter may still reopen it: live (issue 34, item 5), in
    // the hall and in the export (no `.final` mark, which nginx-feed-origin.conf reads).
    for path in ["/feed/round/1/1.sgf", "/feed/round/1/1.json"] {
        let r = get(addr, path, &[]).await;
        assert_eq!(
            r.header("cache-control").as_deref(),
            Some("max-age=1"),
            "{path}"
        );
        let mark = site.join(format!("{}.final", path.trim_start_matches('/')));
        assert!(!mark.exists(), "{}", mark.display());
    }
    // Once its board has begun a later game it can no longer be reopened: a year.
    let next = Envelope {
        seq: 7,
        game: "r2-t1".into(),
        ..ev(
            7,
            Event::GameStarted(GameSetup {
                black: white.clone(),
                white: black.clone(),
                round: "2".into(),
                table: "1".into(),
                ..GameSetup::default()
            }),
        )
    };
    publish(&board, &next).await;
    for path in ["/feed/round/1/1.sgf", "/feed/round/1/1.json"] {
        wait_for("the game finished", || async {
            let r = get(addr, path, &[]).await;
            let mark = site.join(format!("{}.final", path.trim_start_matches('/')));
            (r.header("cache-control").as_deref() == Some("max-age=31536000, immutable")
                && mark.exists())
            .then_some(())
        })
        .await;
    }
    // Item 7: the public zip is not built again for each request (a crowd asking for it
    // costs a few builds a second): a second request 20 ms later gets the copy, with its
    // age.
    let mut kept = false;
    for _ in 0..5 {
        let first = get(addr, "/round/1.zip", &[]).await;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let second = get(addr, "/round/1.zip", &[]).await;
        let age = second
            .header("x-tengen-age-ms")
            .and_then(|a| a.parse::<u64>().ok());
        if first.body == second.body && age.is_some_and(|a| a > 0) {
            kept = true;
            break;
        }
    }
    assert!(kept, "the public zip was built for each request");
    hall.stop();
    board.stop();
}

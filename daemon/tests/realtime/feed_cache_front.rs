//! The shipped cache front of the round feed (issue 34, items 5 and 6), nginx as a plain
//! process on the repository's `config/nginx-feed.conf` and `config/nginx-feed-origin.conf`
//! (only ports and folders replaced), in front of a real hall (`[tournament]` on
//! `tournoi-chinois.xml`, `[hall] archive_dir`, `[broadcast] export_dir`) and of a static
//! origin on its export. Table 1 plays a short game and its board begins round 2, so the
//! game is finished (`immutable`).
//!
//! - 40 spellings of the feed's paths that are not its paths (`?bust=N`, `%31`, `%2F`,
//!   `//`, `./`, `..`) are answered by the caches themselves (400 or 404) and never reach
//!   an origin; the hall refuses them too (before, 34 of 40 reached the origin);
//! - `Accept-Encoding: gzip;q=0` is answered plain (before, gzip), `gzip` gzipped;
//! - two byte ranges get the whole file, never a multipart answer;
//! - an arbiter then confirms another result for the finished game: its record changes, and
//!   both caches serve the new one within seconds (before, the cache kept the `immutable`
//!   copy for as long as it had room).

use crate::broker::{self, Mosquitto, Subscriber};
use crate::http::{self, get, request, wait_for, Resp};
use crate::round_feed::{Nginx, NGINX};

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use rumqttc::QoS;
use serde_json::json;
use tengen_protocol::event::{EndReason, Envelope, Event, GameEnd, GameSetup};
use tengen_protocol::Timestamp;
use tengen_rules::{Color, Point};

const TOKEN: &str = "front-token-0123";
/// The finished game's record.
const RECORD: &str = "/feed/round/1/1.sgf";

fn ev(seq: u64, game: &str, event: Event) -> Envelope {
    Envelope {
        seq,
        time: Timestamp::parse(&format!("2026-11-29T13:45:{:02}.000Z", seq % 60)).unwrap(),
        board: "hall1-01".into(),
        game: game.into(),
        by: None,
        event,
    }
}

fn started(seq: u64, round: &str) -> Envelope {
    ev(
        seq,
        &format!("r{round}-t1"),
        Event::GameStarted(GameSetup {
            black: "Black".into(),
            white: "White".into(),
            round: round.into(),
            table: "1".into(),
            ..GameSetup::default()
        }),
    )
}

fn mv(seq: u64, number: u32, point: &str) -> Envelope {
    ev(
        seq,
        "r1-t1",
        Event::Move {
            number,
            color: if number % 2 == 1 {
                Color::Black
            } else {
                Color::White
            },
            point: Point::parse_gtp(point, 19).unwrap(),
            captured: vec![],
            clock: None,
        },
    )
}

/// The 40 spellings: none is a path of the feed, most name the record.
fn aliases() -> Vec<String> {
    let mut out: Vec<String> = (0..20).map(|n| format!("{RECORD}?bust={n}")).collect();
    out.extend(
        [
            "/feed/round/1/1.sgf?",
            "/feed/round/%31/1.sgf",
            "/feed/round/1/%31.sgf",
            "/feed/round%2F1%2F1.sgf",
            "/feed/round%2f1%2f1.sgf",
            "/feed/round/1/1%2Esgf",
            "/feed/%72ound/1/1.sgf",
            "/feed//round/1/1.sgf",
            "/feed/round//1/1.sgf",
            "/feed/./round/1/1.sgf",
            "/feed/round/./1/1.sgf",
            "/feed/round/2/../1/1.sgf",
            "/feed/round/1/1.sgf/",
            "/feed/tournament.json?x=1",
            "/feed/round/1/index.json?t=2",
            "/feed/round/%31/index.json",
            "/feed/round/1/1.json?bust=1",
            "/feed/round/1/%31.json",
            "/feed/round/1/1.json%00",
            "/feed/round/1/./1.json",
        ]
        .map(str::to_string),
    );
    out
}

/// The answer to `GET path` sent as it is written (no normalisation on the way).
async fn raw_get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Resp {
    request(addr, "GET", path, headers, b"", None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_front_keys_each_file_once_and_passes_on_corrections() {
    if !Path::new(NGINX).exists() {
        assert!(
            !broker::oracles_required(),
            "{NGINX} is missing (apt-get install nginx)"
        );
        eprintln!("skipped: {NGINX} is not installed (apt-get install nginx)");
        return;
    }
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tournament/tests/data/opengotha/tournoi-chinois.xml"),
        dir.join("cup.xml"),
    )
    .unwrap();
    let toml = format!(
        "[hall]\narchive_dir = \"archive\"\nbusy_per_address = 256\n\
         [tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{{table:02}}\"\nid = \"cup\"\n\
         [broadcast]\nexport_dir = \"site\"\n\
         [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n"
    );
    std::fs::write(dir.join("hall.toml"), toml).unwrap();
    let config = tengen_hall::HallConfig::load(&dir.join("hall.toml")).unwrap();
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
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
    let over = ev(
        4,
        "r1-t1",
        Event::GameOver(GameEnd::uncounted("B+R", EndReason::Resignation)),
    );
    for e in [
        started(1, "1"),
        mv(2, 1, "Q16"),
        mv(3, 2, "D4"),
        over,
        started(5, "2"),
    ] {
        board
            .client
            .publish(
                "tengen/cup/hall1-01/events",
                QoS::AtLeastOnce,
                false,
                serde_json::to_vec(&e).unwrap(),
            )
            .await
            .unwrap();
    }
    let site = dir.join("site");
    wait_for(
        "round 1's game finished, in the hall and the export",
        || async {
            let r = get(addr, RECORD, &[]).await;
            let exported = site.join("feed/round/1/1.sgf.final").exists();
            (r.header("cache-control").as_deref() == Some("max-age=31536000, immutable")
                && exported)
                .then_some(())
        },
    )
    .await;
    let hall_cache = Nginx::cache_of(addr);
    let export_cache = Nginx::cache_of_export(&site);
    let fronts = [("hall cache", &hall_cache), ("export cache", &export_cache)];
    for (_, front) in fronts {
        for path in ["/feed/tournament.json", "/feed/round/1/index.json", RECORD] {
            let r = get(front.addr(), path, &[]).await;
            assert_eq!(r.status, 200, "{path}: {}", r.text());
        }
    }

    // Item 6: the aliases never reach an origin.
    let mut problems = Vec::new();
    let list = aliases();
    assert_eq!(list.len(), 40);
    for (name, front) in fronts {
        let before = front.origin_requests();
        let mut asked = 0;
        for path in &list {
            let r = raw_get(front.addr(), path, &[]).await;
            let cache = r.header("x-cache-status").unwrap_or_default();
            if !cache.is_empty() && cache != "HIT" {
                asked += 1;
            }
            if r.status != 400 && r.status != 404 {
                problems.push(format!("{name} {path}: {} ({cache})", r.status));
            }
        }
        let origin = front.origin_requests() - before;
        eprintln!("{name}: 40 aliases, {asked} asked of the origin (static origin: {origin})");
        if asked > 0 || origin > 0 {
            problems.push(format!(
                "{name}: {asked} of 40 aliases reached the origin (static origin asked {origin})"
            ));
        }
    }
    let mut hall_served = 0;
    for path in &list {
        let r = raw_get(addr, path, &[]).await;
        if r.status == 200 {
            hall_served += 1;
            problems.push(format!("the hall served {path}"));
        }
    }
    eprintln!("the hall: 40 aliases, {hall_served} served");

    // gzip refused is plain; gzip asked is gzip; two ranges are the whole file.
    let plain = get(addr, RECORD, &[]).await;
    let targets = [
        ("hall", addr),
        ("hall cache", hall_cache.addr()),
        ("export cache", export_cache.addr()),
    ];
    for (name, at) in targets {
        let refused = get(at, RECORD, &[("Accept-Encoding", "gzip;q=0, identity")]).await;
        if refused.header("content-encoding").is_some() || refused.body != plain.body {
            problems.push(format!(
                "{name}: gzip;q=0 answered {:?}",
                refused.header("content-encoding")
            ));
        }
        let gz = get(at, RECORD, &[("Accept-Encoding", "gzip")]).await;
        if gz.header("content-encoding").as_deref() != Some("gzip") {
            problems.push(format!("{name}: gzip answered plain"));
        }
        let two = get(at, RECORD, &[("Range", "bytes=0-1,3-4")]).await;
        let multipart = two
            .header("content-type")
            .is_some_and(|t| t.contains("multipart"));
        if two.status != 200 || multipart || two.body != plain.body {
            problems.push(format!(
                "{name}: two ranges answered {} {:?}",
                two.status,
                two.header("content-type")
            ));
        }
    }

    // Item 5: the finished record changes (an arbiter confirms White's win); both caches
    // have the new one within seconds.
    let cookie = http::console_cookie(addr, "chief", TOKEN).await;
    let body = json!({"results": [{"table": 1, "result": "RESULT_WHITEWINS"}]});
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
    let corrected = "TENGENRESULT[RESULT_WHITEWINS]";
    let deadline = tokio::time::Instant::now() + Duration::from_secs(8);
    for (name, at) in targets {
        loop {
            let r = get(at, RECORD, &[]).await;
            if r.text().contains(corrected) {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                problems.push(format!(
                    "{name}: the corrected record not served 8 s after the confirmation \
                     ({:?}, X-Cache-Status {:?})",
                    r.header("cache-control"),
                    r.header("x-cache-status")
                ));
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
    drop(hall_cache);
    drop(export_cache);
    hall.stop();
    board.stop();
}

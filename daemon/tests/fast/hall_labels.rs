//! The labels the hall takes are bounded, and one file it cannot write does not stop the
//! export (issue 34, item 7): a real hall (`[broadcast] export_dir`) on a real mosquitto;
//! a board sets up a game whose round is 300 characters and whose Black is 1,000, and the
//! export folder has a directory where the overview's list of boards goes. Before, the round named a
//! zip too long for the file system and the export's pass stopped there, at every pass:
//! neither the feed nor anything after it was written again.

use crate::broker;
use crate::http;

use broker::{Mosquitto, Subscriber};
use http::{get, wait_for};
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_hall::HallConfig;
use tengen_protocol::event::{Event, GameSetup};
use tengen_rules::{Color, Point};

use broker::board_envelope as env;

#[tokio::test]
async fn long_labels_are_cut_and_a_file_that_cannot_be_written_stops_no_pass() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let site = dir.join("site");
    // Where `api/boards` goes (the first file of each pass), a folder with something in
    // it: that one file fails.
    std::fs::create_dir_all(site.join("api/boards/x")).unwrap();
    std::fs::write(
        dir.join("hall.toml"),
        "[broadcast]\nexport_dir = \"site\"\n",
    )
    .unwrap();
    let config = HallConfig::load(&dir.join("hall.toml")).unwrap();
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let board = Subscriber::connect(&mosq.url(), "b1", &["nothing/here"]).await;
    let publish = |topic: &'static str, payload: Vec<u8>, retain: bool| {
        let client = board.client.clone();
        async move {
            client
                .publish(
                    format!("tengen/t/b1/{topic}"),
                    QoS::AtLeastOnce,
                    retain,
                    payload,
                )
                .await
                .expect("publish");
        }
    };
    let status = json!({"state": "online", "version": "0.1.0", "board": "b1"});
    publish("status", status.to_string().into_bytes(), true).await;
    wait_for("the board in the hall", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v[0]["status"] == "online").then_some(())
    })
    .await;
    let long_round = "7".repeat(300);
    let started = env(
        "b1",
        1,
        Event::GameStarted(GameSetup {
            black: "B".repeat(1000),
            white: "White\nPlayer".into(),
            round: long_round.clone(),
            table: "1".into(),
            ..GameSetup::default()
        }),
    );
    let moved = env(
        "b1",
        2,
        Event::Move {
            number: 1,
            color: Color::Black,
            point: Point::parse_gtp("Q16", 19).unwrap(),
            captured: vec![],
            clock: None,
        },
    );
    for e in [started, moved] {
        publish("events", serde_json::to_vec(&e).unwrap(), false).await;
    }
    let round = "7".repeat(32);
    let boards = wait_for("the game in the overview", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v[0]["number"] == 1).then_some(v)
    })
    .await;
    assert_eq!(boards[0]["round"], Value::String(round.clone()));
    assert_eq!(boards[0]["black"].as_str().map(str::len), Some(128));
    assert_eq!(boards[0]["white"], "White Player");
    // The feed, the zip and every other file are written, in the hall and in the export.
    let index = format!("feed/round/{round}/index.json");
    let zip = get(addr, &format!("/round/{round}.zip"), &[]).await;
    assert_eq!(zip.status, 200, "{}", zip.text());
    assert_eq!(get(addr, &format!("/{index}"), &[]).await.status, 200);
    wait_for(
        "the export written past the file it cannot write",
        || async {
            let written = [
                index.clone(),
                format!("feed/round/{round}/1.sgf"),
                format!("round/{round}.zip"),
                "rounds/index.html".to_string(),
                "board/t/b1/game.sgf".to_string(),
            ];
            written.iter().all(|f| site.join(f).is_file()).then_some(())
        },
    )
    .await;
    assert!(site.join("api/boards").is_dir(), "the obstacle is left");
    hall.stop();
    board.stop();
}

/// Issue 34, item 7: with `[tournament]`, a board's game sits at its board's table. Board
/// `hall1-03` (table 3) sets up a game saying table 5, after table 5's board began its own:
/// before, the feed's `round/1/5` files became `hall1-03`'s game (the one set up last at a
/// table wins), and table 5's game left the feed.
#[tokio::test]
async fn a_board_that_says_another_table_keeps_its_own() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tournament/tests/data/opengotha/tournoi-chinois.xml"),
        dir.join("cup.xml"),
    )
    .unwrap();
    std::fs::write(
        dir.join("hall.toml"),
        "[tournament]\nfile = \"cup.xml\"\nboards = \"hall1-{table:02}\"\nid = \"cup\"\n",
    )
    .unwrap();
    let config = HallConfig::load(&dir.join("hall.toml")).unwrap();
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let boards = Subscriber::connect(&mosq.url(), "boards", &["nothing/here"]).await;
    for b in ["hall1-03", "hall1-05"] {
        let status = json!({"state": "online", "version": "0.1.0", "board": b});
        boards
            .client
            .publish(
                format!("tengen/cup/{b}/status"),
                QoS::AtLeastOnce,
                true,
                status.to_string().into_bytes(),
            )
            .await
            .unwrap();
    }
    wait_for("both boards in the hall", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v.as_array().map(Vec::len) == Some(2)).then_some(())
    })
    .await;
    let game = |board: &str, game: &str, seq: u64, black: &str| {
        let mut e = env(
            board,
            seq,
            Event::GameStarted(GameSetup {
                black: black.into(),
                white: "White".into(),
                round: "1".into(),
                table: "5".into(),
                ..GameSetup::default()
            }),
        );
        e.game = game.into();
        e
    };
    // Table 5's own game, then hall1-03's, saying table 5, a second later.
    let own = game("hall1-05", "r1-t5", 1, "Table Five");
    let mut other = game("hall1-03", "r1-t3", 1, "Posing");
    other.time = other.time.plus(1000);
    for (b, e) in [("hall1-05", own), ("hall1-03", other)] {
        boards
            .client
            .publish(
                format!("tengen/cup/{b}/events"),
                QoS::AtLeastOnce,
                false,
                serde_json::to_vec(&e).unwrap(),
            )
            .await
            .unwrap();
    }
    let index = wait_for("both games in the feed", || async {
        let r = get(addr, "/feed/round/1/index.json", &[]).await;
        let v: Value = serde_json::from_slice(&r.body).unwrap_or_default();
        (v["games"].as_array().map(Vec::len) == Some(2)).then_some(v)
    })
    .await;
    let seats: Vec<(Value, Value)> = index["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["table"].clone(), g["board"].clone()))
        .collect();
    assert_eq!(
        seats,
        [(json!(3), json!("hall1-03")), (json!(5), json!("hall1-05"))]
    );
    let five = get(addr, "/feed/round/1/5.sgf", &[]).await.text();
    assert!(five.contains("PB[Table Five]"), "{five}");
    hall.stop();
    boards.stop();
}

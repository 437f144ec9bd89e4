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

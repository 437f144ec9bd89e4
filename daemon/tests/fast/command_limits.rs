//! Hostile and careless commands against a running board (`tengen run` on the sim backend,
//! real mosquitto): every field is capped and checked, a refusal is one line, a `new_game`
//! on another board size is refused instead of leaving the board deaf, and the journal the
//! board wrote meanwhile still opens.

use crate::board::{write_config, BoardProcess, BOARD, ROOT};
use crate::broker::{Mosquitto, Subscriber};

use std::time::Duration;

use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_daemon::journal::Journal;
use tengen_protocol::Event;

/// How long the board has to answer.
const WAIT: Duration = Duration::from_secs(30);

/// Sends `payload` on the board's `cmd` until a reply comes (the board subscribes once it
/// is connected; until then a command is lost), and returns the reply.
async fn ask(sub: &mut Subscriber, payload: &str) -> Value {
    let cmd = format!("{ROOT}/cmd");
    let reply = format!("{ROOT}/cmd/reply");
    let deadline = tokio::time::Instant::now() + WAIT;
    while tokio::time::Instant::now() < deadline {
        sub.client
            .publish(&cmd, QoS::AtLeastOnce, false, payload.to_string())
            .await
            .expect("publish a command");
        if let Some(m) = sub.next_on(&reply, Duration::from_millis(500)).await {
            return m.json();
        }
    }
    panic!(
        "no reply to {}",
        payload.chars().take(200).collect::<String>()
    );
}

/// The reply's error, asserted to be a refusal on one line.
fn refusal(reply: &Value) -> String {
    assert_eq!(reply["ok"], false, "{reply}");
    let error = reply["error"]
        .as_str()
        .expect("an error string")
        .to_string();
    assert!(
        !error.is_empty() && !error.contains('\n') && !error.contains('\r'),
        "{error:?}"
    );
    error
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_board_refuses_oversized_unchecked_and_wrong_size_commands_on_one_line() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &broker.url(), 5.0);
    let mut board = BoardProcess::start(&config);
    let events_topic = format!("{ROOT}/events");
    let mut sub = Subscriber::connect(
        &broker.url(),
        "arbiter-tool",
        &[&format!("{ROOT}/cmd/reply"), &events_topic],
    )
    .await;

    // A megabyte id (under the client's 1 MiB packet limit): refused before it is parsed,
    // and not echoed.
    let huge = json!({"id": "x".repeat(1_000_000), "type": "pause"}).to_string();
    let r = ask(&mut sub, &huge).await;
    assert_eq!(r["id"], Value::Null, "the megabyte id is not sent back");
    let e = refusal(&r);
    assert!(e.starts_with("command of 10000"), "{e}");

    // Game ids go into every envelope and the SGF file's name.
    for (id, game) in [("g-slash", "r1/t2"), ("g-upper", "R1-T2"), ("g-dots", "..")] {
        let r = ask(
            &mut sub,
            &json!({"id": id, "type": "new_game", "game": game}).to_string(),
        )
        .await;
        assert_eq!(r["id"], id);
        let e = refusal(&r);
        assert!(e.starts_with("field \"game\" "), "{game}: {e}");
    }
    // Names with a newline or an escape sequence would go into logs and files.
    for (id, field, name) in [
        ("n-newline", "black", "Lee\nSedol"),
        ("n-esc", "white", "\u{1b}[2J\u{1b}[31mOwned"),
    ] {
        let r = ask(
            &mut sub,
            &json!({"id": id, "type": "new_game", field: name}).to_string(),
        )
        .await;
        assert_eq!(
            refusal(&r),
            format!("field \"{field}\" holds a control character")
        );
    }

    // A newline in `type`, or in a field the service quotes back: one line each.
    let r = ask(&mut sub, "{\"id\":\"t-type\",\"type\":\"new\\ngame\"}").await;
    assert_eq!(r["id"], "t-type");
    let e = refusal(&r);
    assert!(e.contains("new\\ngame"), "the newline is escaped: {e}");
    let r = ask(
        &mut sub,
        "{\"id\":\"t-alert\",\"type\":\"confirm\",\"alert\":\"a1\\nb\"}",
    )
    .await;
    refusal(&r);

    // A 13x13 game on this 9x9 board: refused, and the board goes on hearing its sensors.
    let r = ask(
        &mut sub,
        &json!({"id": "s13", "type": "new_game", "game": "g2", "size": 13}).to_string(),
    )
    .await;
    assert_eq!(
        refusal(&r),
        "this board is 9x9; a 13x13 game cannot be played on it"
    );
    let mut moves_after = 0;
    let deadline = tokio::time::Instant::now() + WAIT;
    while moves_after < 2 && tokio::time::Instant::now() < deadline {
        if let Some(m) = sub.next_on(&events_topic, Duration::from_secs(1)).await {
            let event = m.json();
            assert_ne!(event["type"], "game_started", "{event}");
            if event["type"] == "move" {
                moves_after += 1;
            }
        }
        board.assert_running();
    }
    assert_eq!(moves_after, 2, "the board still reads its sensors");

    sub.stop();
    assert_eq!(board.terminate(), 0);
    // Everything the board wrote reads back at the next start, from the one game.
    let (journal, recovery) = Journal::open(&board.data(), BOARD).unwrap();
    assert_eq!(recovery.truncated_bytes, 0);
    let events = journal.read_from(1).unwrap();
    assert_eq!(events.len() as u64, recovery.records);
    assert!(events.iter().all(|e| e.game == "g1"));
    let starts = events
        .iter()
        .filter(|e| matches!(e.event, Event::GameStarted(_)))
        .count();
    assert_eq!(starts, 1);
}

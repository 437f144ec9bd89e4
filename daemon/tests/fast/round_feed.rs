//! The public round feed (issue 24) of a real hall on a real mosquitto, with a broadcast
//! delay of two moves and `[broadcast] export_dir`: two boards play round 1, one ends its
//! game and begins round 2.
//!
//! - `tournament.json` lists the rounds; a round's `index.json` its games with players,
//!   state, the moves the public may see and the result once over;
//! - a game's `.json` holds its public events and not one move the delay still holds; its
//!   `.sgf` the same moves;
//! - a poll with the `ETag` in hand gets 304 and no body; gzip when asked, the same bytes
//!   once inflated; a follower asking for the bytes after the ones it has gets exactly the
//!   new events; `Cache-Control` is a second while the game can change and a year
//!   (`immutable`) once it is over and its board has begun the next one, under a new tag;
//! - the export holds the same bytes at the same paths, each with its `.gz`, and marks the
//!   finished game (`.final`);
//! - a path the feed has no file for gets a one-line 404, `..` included.

use crate::broker;
use crate::http;

use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;

use broker::{Mosquitto, Subscriber};
use http::{get, wait_for, Resp};
use rumqttc::QoS;
use serde_json::Value;
use tengen_hall::HallConfig;
use tengen_protocol::event::{EndReason, Envelope, Event, GameEnd, GameSetup};

/// Event `seq` of `board` in game `game`.
fn ev(board: &str, game: &str, seq: u64, event: Event) -> Envelope {
    Envelope {
        game: game.into(),
        ..broker::board_envelope(board, seq, event)
    }
}

fn started(board: &str, game: &str, seq: u64, round: &str, table: &str) -> Envelope {
    ev(
        board,
        game,
        seq,
        Event::GameStarted(GameSetup {
            black: format!("Black at {table}"),
            white: format!("White at {table}"),
            black_rank: Some("3d".into()),
            round: round.into(),
            table: table.into(),
            ..GameSetup::default()
        }),
    )
}

fn mv(board: &str, game: &str, seq: u64, number: u32, point: &str) -> Envelope {
    ev(board, game, seq, broker::move_event(number, point))
}

async fn publish(board: &Subscriber, e: &Envelope) {
    let topic = format!("tengen/t/{}/events", e.board);
    let text = serde_json::to_string(e).expect("an event");
    board
        .client
        .publish(topic, QoS::AtLeastOnce, false, text.into_bytes())
        .await
        .expect("publish");
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

/// The moves of a game's public events file, as GTP points.
fn moves_in(events: &[u8]) -> Vec<String> {
    let list: Vec<Envelope> = serde_json::from_slice(events).expect("an array of events");
    list.iter()
        .filter_map(|e| match &e.event {
            Event::Move { point, .. } => Some(point.to_gtp()),
            _ => None,
        })
        .collect()
}

async fn feed(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Resp {
    get(addr, path, headers).await
}

#[tokio::test]
async fn the_round_feed_follows_each_game_behind_the_delay() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    let toml = "[hall]\narchive_dir = \"archive\"\n\
                [broadcast]\ndelay_moves = 2\nexport_dir = \"site\"\n";
    std::fs::write(dir.join("hall.toml"), toml).unwrap();
    let config = HallConfig::load(&dir.join("hall.toml")).expect("a valid hall.toml");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let addr = hall.addr;
    let boards = Subscriber::connect(&mosq.url(), "fake-boards", &["tengen/+/+/cmd"]).await;
    for b in ["b1", "b2"] {
        let status = format!("{{\"state\":\"online\",\"version\":\"0.1.0\",\"board\":\"{b}\"}}");
        boards
            .client
            .publish(
                format!("tengen/t/{b}/status"),
                QoS::AtLeastOnce,
                true,
                status.into_bytes(),
            )
            .await
            .unwrap();
    }
    wait_for("both boards in the hall", || async {
        let v = get(addr, "/api/boards", &[]).await.json();
        (v.as_array().map(Vec::len) == Some(2)).then_some(())
    })
    .await;

    for e in [
        started("b1", "r1-t1", 1, "1", "1"),
        mv("b1", "r1-t1", 2, 1, "Q16"),
        mv("b1", "r1-t1", 3, 2, "D4"),
        mv("b1", "r1-t1", 4, 3, "Q4"),
        mv("b1", "r1-t1", 5, 4, "D16"),
        started("b2", "r1-t2", 1, "1", "2"),
        mv("b2", "r1-t2", 2, 1, "K10"),
    ] {
        publish(&boards, &e).await;
    }

    // The index: two games, the moves the delay lets out (4 - 2 and 1 - 2).
    let index = wait_for("round 1's index", || async {
        let r = feed(addr, "/feed/round/1/index.json", &[]).await;
        let v: Value = serde_json::from_slice(&r.body).unwrap_or_default();
        (v["games"][0]["moves"] == 2 && v["games"][1]["state"] == "playing").then_some(v)
    })
    .await;
    assert_eq!(index["format"], 1);
    assert_eq!(index["round"], 1);
    let t1 = &index["games"][0];
    assert_eq!(t1["table"], 1);
    assert_eq!(t1["board"], "b1");
    assert_eq!(t1["game"], "r1-t1");
    assert_eq!(t1["black"], "Black at 1");
    assert_eq!(t1["black_rank"], "3d");
    assert_eq!(t1["white_rank"], Value::Null);
    assert_eq!(t1["result"], Value::Null);
    assert_eq!(t1["sgf"], "/feed/round/1/1.sgf");
    assert_eq!(t1["events"], "/feed/round/1/1.json");
    assert_eq!(index["games"][1]["moves"], 0, "table 2's one move is held");
    let tournament = feed(addr, "/feed/tournament.json", &[]).await.json();
    assert_eq!(tournament["id"], "t");
    assert_eq!(tournament["rounds"][0]["url"], "/feed/round/1/index.json");

    // The game's events: set up and two moves, not the two the delay holds.
    let events = feed(addr, "/feed/round/1/1.json", &[]).await;
    assert_eq!(events.status, 200);
    assert_eq!(moves_in(&events.body), ["Q16", "D4"]);
    assert_eq!(events.header("cache-control").as_deref(), Some("max-age=1"));
    let sgf = feed(addr, "/feed/round/1/1.sgf", &[]).await;
    let record = tengen_rules::sgf::parse(&sgf.text()).expect("an SGF");
    let moves: Vec<String> = record.moves.iter().map(|m| m.mv.to_gtp()).collect();
    assert_eq!(moves, ["Q16", "D4"]);

    // Between two moves a poll costs headers only; gzip is the same bytes.
    let tag = events.header("etag").expect("an ETag");
    let again = feed(addr, "/feed/round/1/1.json", &[("If-None-Match", &tag)]).await;
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    let zipped = feed(addr, "/feed/round/1/1.json", &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(zipped.header("content-encoding").as_deref(), Some("gzip"));
    assert_eq!(gunzip(&zipped.body), events.body);

    // A follower asks for what comes after the bytes it has: the next move, once released.
    let have = events.body.len() - 3;
    let range = format!("bytes={have}-");
    publish(&boards, &mv("b1", "r1-t1", 6, 5, "K10")).await;
    let tail = wait_for("the next move released", || async {
        let r = feed(
            addr,
            "/feed/round/1/1.json",
            &[("Range", &range), ("If-None-Match", &tag)],
        )
        .await;
        (r.status == 206).then_some(r)
    })
    .await;
    let text = tail.text();
    assert!(text.starts_with(",\n{"), "{text}");
    assert!(text.ends_with("\n]\n"), "{text}");
    assert!(
        text.contains("\"Q4\"") && !text.contains("\"D16\""),
        "{text}"
    );
    let mut rebuilt = events.body[..have].to_vec();
    rebuilt.extend_from_slice(&tail.body);
    let whole = feed(addr, "/feed/round/1/1.json", &[]).await;
    assert_eq!(rebuilt, whole.body, "the tail completes the file exactly");

    // The game ends: all of it is out at once, still live (an arbiter may reopen it)...
    let over = Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation));
    publish(&boards, &ev("b1", "r1-t1", 7, over)).await;
    let index = wait_for("table 1 over", || async {
        let v = feed(addr, "/feed/round/1/index.json", &[]).await.json();
        (v["games"][0]["state"] == "over").then_some(v)
    })
    .await;
    assert_eq!(index["games"][0]["result"], "W+R");
    assert_eq!(index["games"][0]["moves"], 5);
    let r = feed(addr, "/feed/round/1/1.json", &[]).await;
    assert_eq!(moves_in(&r.body), ["Q16", "D4", "Q4", "D16", "K10"]);
    assert_eq!(r.header("cache-control").as_deref(), Some("max-age=1"));

    // ... and a year once its board has begun round 2: the same bytes under another tag, so
    // that a cache revalidating its live copy is told the new headers, not 304.
    let live_tag = r.header("etag").expect("an ETag");
    publish(&boards, &started("b1", "r2-t1", 8, "2", "1")).await;
    let r = wait_for("the events finished", || async {
        let r = feed(
            addr,
            "/feed/round/1/1.json",
            &[("If-None-Match", &live_tag)],
        )
        .await;
        (r.status == 200).then_some(r)
    })
    .await;
    assert_eq!(
        r.header("cache-control").as_deref(),
        Some("max-age=31536000, immutable")
    );
    assert_eq!(moves_in(&r.body), ["Q16", "D4", "Q4", "D16", "K10"]);
    let r = wait_for("table 1 finished", || async {
        let r = feed(addr, "/feed/round/1/1.sgf", &[]).await;
        r.header("cache-control")
            .is_some_and(|c| c.contains("immutable"))
            .then_some(r)
    })
    .await;
    assert_eq!(
        r.header("cache-control").as_deref(),
        Some("max-age=31536000, immutable")
    );
    let record = tengen_rules::sgf::parse(&r.text()).expect("an SGF");
    assert_eq!(record.result.as_deref(), Some("W+R"));
    assert_eq!(record.moves.len(), 5);
    if let Some(read) = sgfmill_moves(&r.body) {
        assert_eq!(
            read, "W+R Q16 D4 Q4 D16 K10",
            "sgfmill reads the feed's SGF"
        );
    }
    let tournament = wait_for("round 2 listed", || async {
        let v = feed(addr, "/feed/tournament.json", &[]).await.json();
        (v["rounds"].as_array().map(Vec::len) == Some(2)).then_some(v)
    })
    .await;
    assert_eq!(tournament["rounds"][1]["url"], "/feed/round/2/index.json");

    // The export: the same bytes at the same paths, gzipped beside, the finished game marked.
    let site = dir.join("site");
    for path in [
        "/feed/tournament.json",
        "/feed/round/1/index.json",
        "/feed/round/1/1.json",
        "/feed/round/1/1.sgf",
        "/feed/round/1/2.json",
        "/feed/round/2/index.json",
    ] {
        let served = feed(addr, path, &[]).await.body;
        let copy = wait_for(path, || async {
            let f = exported(&site, path);
            (f == served).then_some(f)
        })
        .await;
        assert_eq!(gunzip(&exported(&site, &format!("{path}.gz"))), copy);
    }
    for f in ["1.json", "1.sgf"] {
        assert!(site.join(format!("feed/round/1/{f}.final")).exists(), "{f}");
    }
    assert!(!site.join("feed/round/1/2.json.final").exists());

    // Paths the feed has no file for; a percent-encoded one is refused (one path per file,
    // issue 34).
    for (path, status) in [
        ("/feed/round/1/9.json", 404),
        ("/feed/round/3/index.json", 404),
        ("/feed/../hall.toml", 404),
        ("/feed/round/1/..%2F..%2Fhall.toml", 400),
        ("/feed/", 404),
    ] {
        let r = feed(addr, path, &[]).await;
        assert_eq!(r.status, status, "{path}: {}", r.head);
        assert!(r.text().lines().count() <= 1, "{path}: {}", r.text());
    }

    hall.stop();
    boards.stop();
}

/// The result and moves of an SGF as sgfmill (an independent reader) reads them, as GTP
/// points; `None` without python3 and sgfmill (required when `TENGEN_REQUIRE_ORACLES=1`).
fn sgfmill_moves(sgf: &[u8]) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    const READ: &str = r#"
import sys
from sgfmill import sgf
g = sgf.Sgf_game.from_bytes(sys.stdin.buffer.read())
cols = 'ABCDEFGHJKLMNOPQRST'
out = [g.get_root().get('RE')]
for node in g.get_main_sequence():
    colour, move = node.get_move()
    if colour is not None:
        out.append('pass' if move is None else cols[move[1]] + str(move[0] + 1))
print(' '.join(out))
"#;
    let child = Command::new("python3")
        .args(["-c", READ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let required = std::env::var("TENGEN_REQUIRE_ORACLES").as_deref() == Ok("1");
    let Ok(mut child) = child else {
        assert!(!required, "python3 is required (TENGEN_REQUIRE_ORACLES=1)");
        return None;
    };
    child.stdin.take()?.write_all(sgf).ok()?;
    let out = child.wait_with_output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !required && err.contains("No module named"),
            "sgfmill cannot read the feed's SGF: {err}"
        );
        eprintln!("note: sgfmill missing, the feed's SGF read by tengen only");
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A file of the export at `path` (a `/feed/...` path), empty when missing.
fn exported(site: &Path, path: &str) -> Vec<u8> {
    std::fs::read(site.join(path.trim_start_matches('/'))).unwrap_or_default()
}

//! The one-board web view over real HTTP: the page, `/game.sgf`, `/api/state`, and `/events`
//! as Server-Sent Events that resume from `Last-Event-ID` without missing or repeating a `seq`.

use std::time::Duration;

use tengen_daemon::event::{Envelope, Event};
use tengen_daemon::http::{serve, LiveFeed};
use tengen_rules::Color;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn pass(seq: u64) -> Envelope {
    Envelope {
        seq,
        time: "2026-11-29T13:45:01.250Z".into(),
        board: "hall1-07".into(),
        game: "r3-t07".into(),
        by: None,
        event: Event::Pass {
            number: seq as u32,
            color: if seq % 2 == 1 {
                Color::Black
            } else {
                Color::White
            },
        },
    }
}

/// Sends one GET and returns what arrives until `until` is found in it (or the timeout).
async fn get(addr: std::net::SocketAddr, path: &str, headers: &str, until: &str) -> String {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nHost: test\r\n{headers}Connection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("write");
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let n = match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Ok(Ok(0)) | Err(_) => break,
            Ok(Ok(n)) => n,
            Ok(Err(e)) => panic!("read: {e}"),
        };
        out.extend_from_slice(&buf[..n]);
        if String::from_utf8_lossy(&out).contains(until) {
            break;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ids(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.strip_prefix("id: ").or_else(|| l.strip_prefix("id:")))
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

#[tokio::test]
async fn page_sgf_and_state_are_served() {
    let feed = LiveFeed::new();
    let server = serve("127.0.0.1:0", feed.clone()).await.expect("bind");
    let page = get(server.addr, "/", "", "</html>").await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("EventSource(\"events\")"));

    let state = get(server.addr, "/api/state", "", "\r\n\r\n").await;
    assert!(
        state.starts_with("HTTP/1.1 503"),
        "no snapshot yet: {state}"
    );
    feed.set_state(serde_json::json!({"to_move": "B", "number": 0}));
    let state = get(server.addr, "/api/state", "", "}").await;
    assert!(state.contains("\"to_move\":\"B\""), "{state}");

    feed.set_sgf("(;FF[4]GM[1]SZ[19];B[pd])".into());
    let sgf = get(server.addr, "/game.sgf", "", ")").await;
    assert!(sgf.contains("application/x-go-sgf"), "{sgf}");
    assert!(sgf.contains("(;FF[4]GM[1]SZ[19];B[pd])"));
    server.stop();
}

#[tokio::test]
async fn events_resume_from_last_event_id() {
    let feed = LiveFeed::new();
    for s in 1..=5 {
        feed.publish(pass(s));
    }
    let server = serve("127.0.0.1:0", feed.clone()).await.expect("bind");

    let all = get(server.addr, "/events", "", "id: 5").await;
    assert!(all.contains("text/event-stream"), "{all}");
    assert_eq!(ids(&all), vec![1, 2, 3, 4, 5]);
    assert!(all.contains("\"type\":\"pass\""));

    let resumed = get(server.addr, "/events", "Last-Event-ID: 3\r\n", "id: 5").await;
    assert_eq!(ids(&resumed), vec![4, 5]);
    let by_query = get(server.addr, "/events?from=4", "", "id: 5").await;
    assert_eq!(ids(&by_query), vec![5]);

    // A viewer following live gets new events as they are published, once each.
    let addr = server.addr;
    let live =
        tokio::spawn(async move { get(addr, "/events", "Last-Event-ID: 5\r\n", "id: 8").await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    for s in 6..=8 {
        feed.publish(pass(s));
    }
    feed.publish(pass(7)); // a duplicate is never shown twice
    let live = live.await.expect("join");
    assert_eq!(ids(&live), vec![6, 7, 8]);
    server.stop();
}

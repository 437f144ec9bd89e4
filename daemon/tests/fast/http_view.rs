//! The one-board web view over real HTTP: the page, `/game.sgf`, `/api/state`, and `/events`
//! as Server-Sent Events that resume from `Last-Event-ID` without missing or repeating a `seq`.

use crate::http;

use std::time::Duration;

use http::ids;

use tengen_net::live_view::{router, serve, LiveFeed};
use tengen_protocol::{Envelope, Event, Timestamp};
use tengen_rules::Color;

fn pass(seq: u64) -> Envelope {
    Envelope {
        seq,
        time: Timestamp::parse("2026-11-29T13:45:01.250Z").unwrap(),
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

/// One GET; the status line, headers and body as they arrive until `until` is found in
/// them (or the timeout).
async fn get(
    addr: std::net::SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    until: &str,
) -> String {
    let r = http::request(addr, "GET", path, headers, b"", Some(until)).await;
    format!("{}\r\n\r\n{}", r.head, r.text())
}

#[tokio::test]
async fn page_sgf_and_state_are_served() {
    let feed = LiveFeed::new();
    let server = serve("127.0.0.1:0", router(feed.clone()))
        .await
        .expect("bind");
    let page = get(server.addr, "/", &[], "</html>").await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(page.contains("new EventSource(from ? \"events?from=\" + from : \"events\")"));

    let state = get(server.addr, "/api/state", &[], "\r\n\r\n").await;
    assert!(
        state.starts_with("HTTP/1.1 503"),
        "no snapshot yet: {state}"
    );
    feed.set_state(serde_json::json!({"to_move": "B", "number": 0}));
    let state = get(server.addr, "/api/state", &[], "}").await;
    assert!(state.contains("\"to_move\":\"B\""), "{state}");

    feed.set_sgf("(;FF[4]GM[1]SZ[19];B[pd])".into());
    let sgf = get(server.addr, "/game.sgf", &[], ")").await;
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
    let server = serve("127.0.0.1:0", router(feed.clone()))
        .await
        .expect("bind");

    let all = get(server.addr, "/events", &[], "id: 5").await;
    assert!(all.contains("text/event-stream"), "{all}");
    assert_eq!(ids(&all), vec![1, 2, 3, 4, 5]);
    assert!(all.contains("\"type\":\"pass\""));

    let resumed = get(server.addr, "/events", &[("Last-Event-ID", "3")], "id: 5").await;
    assert_eq!(ids(&resumed), vec![4, 5]);
    let by_query = get(server.addr, "/events?from=4", &[], "id: 5").await;
    assert_eq!(ids(&by_query), vec![5]);

    // A viewer following live gets new events as they are published, once each.
    let addr = server.addr;
    let live =
        tokio::spawn(async move { get(addr, "/events", &[("Last-Event-ID", "5")], "id: 8").await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    for s in 6..=8 {
        feed.publish(pass(s));
    }
    feed.publish(pass(7)); // a duplicate is never shown twice
    let live = live.await.expect("join");
    assert_eq!(ids(&live), vec![6, 7, 8]);
    server.stop();
}

/// `/api/state` says how old its snapshot is (`x-tengen-state-age-ms`), so a page loaded
/// long after the last clock reading counts the running clock from the reading, not from
/// its own load; a new snapshot starts the age again.
#[tokio::test]
async fn state_says_its_age() {
    let feed = LiveFeed::new();
    let server = serve("127.0.0.1:0", router(feed.clone()))
        .await
        .expect("bind");
    let age = |r: &http::Resp| -> u64 {
        r.header("x-tengen-state-age-ms")
            .expect("the age header")
            .parse()
            .expect("ms")
    };
    feed.set_state(serde_json::json!({"to_move": "B", "number": 0}));
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let r = http::get(server.addr, "/api/state", &[]).await;
    assert_eq!(r.json()["number"], 0);
    let first = age(&r);
    assert!(first >= 1000, "age {first} ms after 1000 ms");
    assert_eq!(r.header("cache-control").as_deref(), Some("no-store"));
    feed.set_state(serde_json::json!({"to_move": "W", "number": 1}));
    let r = http::get(server.addr, "/api/state", &[]).await;
    assert_eq!(r.json()["number"], 1);
    assert!(
        age(&r) < first,
        "a new snapshot is younger: {} ms, the old one was {first} ms",
        age(&r)
    );
    server.stop();
}

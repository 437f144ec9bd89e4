//! A board that comes back with a new journal (a spare board, a re-flashed Pi: its `seq`
//! starts again at 1) is followed on every page of the hall (issue 20, item 9). Before, the
//! hall dropped every event of the new journal as a duplicate: the console, reading the
//! board's retained `state`, showed the new game while the public pages, the hall's own
//! fold behind the broadcast delay, stayed on the old one for good; and a page left open
//! on the old journal waited for good. A real `tengen run`
//! board, a real mosquitto, the hall in process with a broadcast delay of one move.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::board::{write_config, BoardProcess, BOARD};
use crate::broker::Mosquitto;
use crate::http::get;

/// The public summary of the board, once it has one.
async fn public_number(addr: std::net::SocketAddr) -> Option<u64> {
    let v = get(addr, "/api/boards", &[]).await.json();
    v.as_array()?
        .iter()
        .find(|b| b["board"] == BOARD)
        .and_then(|b| b["number"].as_u64())
}

/// Waits up to `secs` for `ok` on the public move number.
async fn wait_number(
    addr: std::net::SocketAddr,
    secs: u64,
    what: &str,
    ok: impl Fn(u64) -> bool,
) -> u64 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(n) = public_number(addr).await.filter(|n| ok(*n)) {
            return n;
        }
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_back_with_a_new_journal_is_followed_on_the_public_pages() {
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let config = tengen_hall::HallConfig::parse(
        "[broadcast]\ndelay_moves = 1\nrelease_at_end = false\n",
        Path::new("hall.toml"),
    )
    .expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = write_config(dir.path(), &mosq.url(), 8.0);
    let mut board = BoardProcess::start(&cfg);

    let before = wait_number(hall.addr, 60, "the first journal's game under way", |n| {
        n >= 12
    })
    .await;
    // A page open on the old journal: its event stream is told to start again.
    let addr = hall.addr;
    let open_page = tokio::spawn(async move {
        let path = format!("/board/faults/{BOARD}/events");
        crate::http::request(addr, "GET", &path, &[], b"", Some("event: restart")).await
    });
    board.terminate();
    // The spare board: same id, an empty journal.
    std::fs::remove_dir_all(board.data()).expect("wipe the journal");
    board.restart();

    // The new game starts over: the public pages follow it from its first moves on.
    let after = wait_number(
        hall.addr,
        60,
        "the new journal's game on the public side",
        |n| n < before.min(8) && n >= 2,
    )
    .await;
    let page: Value = get(hall.addr, &format!("/board/faults/{BOARD}/api/state"), &[])
        .await
        .json();
    let shown = page["number"].as_u64().expect("a move number");
    assert!(
        shown >= after && shown < before,
        "the public page: {shown}, before {before}"
    );
    let told = tokio::time::timeout(Duration::from_secs(30), open_page)
        .await
        .expect("the open page's stream is told of the new journal")
        .expect("the stream task");
    assert!(told.text().contains("event: restart"), "{}", told.text());
    board.assert_running();
    hall.stop();
}

//! `/clock`, the tablet page beside the board, in a real browser (headless Chromium) on a
//! real `tengen run` (sim backend, a whole game at 8x pace) publishing to mosquitto:
//! screenshots at three moments of the game (its first moves, the middle, the end), the
//! faces turned towards their players, updated as the game goes, and at the end showing
//! exactly the frames the board draws for its displays (read back pixel by pixel from the
//! page). The same page served by a hall on that broker (`/board/club/clock-01/clock`,
//! drawn from the hall's fold of the board's events): both faces, a face that changes when
//! a player presses the clock, and at the end the same pixels as the board's own.
//!
//! Needs `/usr/bin/chromium` and `/usr/sbin/mosquitto`; without them the test says so and
//! passes, except with `TENGEN_REQUIRE_ORACLES=1`.

use crate::board;
use crate::broker;
use crate::browser;
use crate::http;

use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengen_hall::HallConfig;
use tengen_table::MonoFrame;

fn write_config(dir: &Path, http: u16, broker: &str) -> std::path::PathBuf {
    let path = dir.join("board.toml");
    std::fs::write(
        &path,
        format!(
            "[board]\nid = \"clock-01\"\ntournament = \"club\"\ngame = \"g1\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n\
             [hardware.sim]\nsgf = \"{}\"\nseed = 3\nspeed = 8.0\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"40s\"\nperiods = 5\nperiod = \"30s\"\n\
             [mqtt]\nurl = \"{broker}\"\n\
             [http]\nlisten = \"127.0.0.1:{http}\"\n[storage]\ndir = \"data\"\n",
            board::game_sgf().display()
        ),
    )
    .unwrap();
    path
}

async fn state(addr: SocketAddr) -> Value {
    if tokio::net::TcpStream::connect(addr).await.is_err() {
        return Value::Null; // not listening yet
    }
    let r = http::get(addr, "/api/state", &[]).await;
    if r.status == 200 {
        r.json()
    } else {
        Value::Null
    }
}

async fn wait_state(addr: SocketAddr, limit: Duration, what: &str, ok: impl Fn(&Value) -> bool) {
    let start = Instant::now();
    loop {
        let s = state(addr).await;
        if ok(&s) {
            return;
        }
        assert!(start.elapsed() < limit, "{what}: state is {s}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The lit pixels of the page's picture of `color`'s face, read back at 128x64.
fn page_pixels(tab: &headless_chrome::Tab, color: &str) -> Vec<bool> {
    let js = format!(
        "(() => {{ const img = document.getElementById('img{color}');
            const c = document.createElement('canvas'); c.width = 128; c.height = 64;
            const g = c.getContext('2d'); g.imageSmoothingEnabled = false;
            g.drawImage(img, 0, 0, 128, 64);
            const d = g.getImageData(0, 0, 128, 64).data; let s = '';
            for (let i = 0; i < d.length; i += 4) s += d[i] > 127 ? '1' : '0';
            return s; }})()"
    );
    browser::eval(tab, &js)
        .as_str()
        .expect("pixels")
        .chars()
        .map(|c| c == '1')
        .collect()
}

/// [`page_pixels`] once a picture is drawn (one may be between two versions when read).
fn drawn(tab: &headless_chrome::Tab, color: &str) -> Vec<bool> {
    let start = Instant::now();
    loop {
        let p = page_pixels(tab, color);
        if p.iter().any(|&lit| lit) {
            return p;
        }
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "{color}'s face is drawn"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A screenshot of `tab`, brought to the front first: a tab behind another may never
/// paint, and its screenshot never comes.
fn shot(tab: &headless_chrome::Tab, name: &str) {
    tab.activate().expect("the tab in front");
    browser::screenshot(tab, env!("CARGO_TARGET_TMPDIR"), name);
}

fn frame_pixels(frame: &MonoFrame) -> Vec<bool> {
    (0..64)
        .flat_map(|y| (0..128).map(move |x| (x, y)))
        .map(|(x, y)| frame.pixel(x, y))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tablet_page_shows_the_boards_faces_through_a_game() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = broker::Mosquitto::start() else {
        return;
    };
    // The hall first, so that it follows the game from its start.
    let hall_config = HallConfig::parse("", Path::new("hall.toml")).expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &hall_config)
        .await
        .expect("hall starts");
    let dir = tempfile::tempdir().unwrap();
    let http_port = broker::free_port();
    let config = write_config(dir.path(), http_port, &mosq.url());
    let mut board = board::BoardProcess::start(&config);
    let addr: SocketAddr = format!("127.0.0.1:{http_port}").parse().unwrap();
    wait_state(addr, Duration::from_secs(20), "the board starts", |s| {
        s["phase"] == "playing"
    })
    .await;

    let b = browser::launch(chromium);
    let tab = b.new_tab().expect("tab");
    tab.navigate_to(&format!("http://{addr}/clock"))
        .expect("navigate")
        .wait_until_navigated()
        .expect("loaded");
    // The same page from the hall, on its fold of the board's events.
    let at_hall = b.new_tab().expect("tab");
    at_hall
        .navigate_to(&format!("http://{}/board/club/clock-01/clock", hall.addr))
        .expect("navigate")
        .wait_until_navigated()
        .expect("loaded");
    let loaded = "['B','W'].every(c => { const i = document.getElementById('img' + c); \
                  return i.complete && i.naturalWidth === 128 && i.naturalHeight === 64; })";
    for t in [&tab, &at_hall] {
        browser::wait_until(
            t,
            loaded,
            json!(true),
            Duration::from_secs(15),
            "both faces",
        );
    }
    // Black sits south of the board (the default): White's face is turned to the far side.
    let turned = |id: &str| {
        browser::eval(
            &tab,
            &format!("getComputedStyle(document.getElementById('{id}')).transform"),
        )
    };
    assert_eq!(turned("faceW"), json!("matrix(-1, 0, 0, -1, 0, 0)"));
    assert_eq!(turned("faceB"), json!("none"));
    let first = drawn(&tab, "B");
    let first_at_hall = drawn(&at_hall, "W");
    // The first face is of a game still being played (the game takes ~30 s at speed 8).
    let early = state(addr).await;
    assert_eq!(
        early["phase"], "playing",
        "the game ended before the page was read: {early}"
    );
    shot(&tab, "clock-1-early.png");
    shot(&at_hall, "hall-clock-1-early.png");

    wait_state(
        addr,
        Duration::from_secs(60),
        "the middle of the game",
        |s| s["number"].as_u64().unwrap_or(0) >= 20,
    )
    .await;
    board.assert_running();
    // The pages follow the board's faces (polled: a loaded machine may be a frame behind):
    // presses since the first picture changed whose clock runs, on the board and the hall.
    for (t, color, before) in [(&tab, "B", &first), (&at_hall, "W", &first_at_hall)] {
        let start = Instant::now();
        loop {
            browser::wait_until(t, loaded, json!(true), Duration::from_secs(15), "faces");
            if drawn(t, color) != *before {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "{color}'s face follows the game"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    shot(&tab, "clock-2-middle.png");
    shot(&at_hall, "hall-clock-2-middle.png");

    wait_state(addr, Duration::from_secs(120), "the end of the game", |s| {
        s["phase"] == "over"
    })
    .await;
    // The faces settle (at most ten redraws a second); then both pages show exactly what
    // the board draws for its displays.
    tokio::time::sleep(Duration::from_millis(400)).await;
    for color in ["B", "W"] {
        let png = http::get(addr, &format!("/clock/{color}.png?scale=1"), &[]).await;
        assert_eq!(png.status, 200);
        assert_eq!(png.header("content-type").as_deref(), Some("image/png"));
        let frame = MonoFrame::from_png(&png.body).expect("a face PNG");
        for (t, which) in [(&tab, "board"), (&at_hall, "hall")] {
            browser::wait_until(t, loaded, json!(true), Duration::from_secs(15), "faces");
            let start = Instant::now();
            while page_pixels(t, color) != frame_pixels(&frame) {
                assert!(
                    start.elapsed() < Duration::from_secs(15),
                    "{color}'s face on the {which}'s page is not the board's frame"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    shot(&tab, "clock-3-over.png");
    shot(&at_hall, "hall-clock-3-over.png");
    // A hostile or mistyped request gets a clear answer, and the board goes on.
    assert_eq!(http::get(addr, "/clock/X.png", &[]).await.status, 404);
    assert_eq!(
        http::get(addr, "/clock/B.png?scale=99", &[]).await.status,
        400
    );
    assert_eq!(
        http::get(addr, "/clock/B.png?scale=-1", &[]).await.status,
        400
    );
    board.assert_running();
    assert_eq!(board.terminate(), 0);
    hall.stop();
}

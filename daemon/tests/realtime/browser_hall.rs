//! The hall in a real browser (headless Chromium over the DevTools protocol), against a real
//! mosquitto and a real board:
//!
//! - four boards published by the test and one `tengen run` board (sim backend, a script
//!   that plays seven moves and then presses the clock with a captured stone still on the
//!   board, so the board sits in an `uncaptured_stones` alert) all show on the overview;
//! - the hall runs with a broadcast delay of three moves: the public board page shows the
//!   game without its last three moves and without the alert, while the arbiters' live
//!   view (behind the console login) shows every move and the alert; the public MQTT tree
//!   carries the delayed stream and never the alert;
//! - an arbiter logs in to the console, sees the alert, clicks confirm: the board's
//!   `warning` event comes back and the console shows the command acknowledged;
//! - GNU Go analyses the public positions (`[analysis]`): the public page draws the
//!   score-lead graph and the candidate moves of the shown position, the arbiters' live
//!   view none, the commentators' page (titled "Commentary – delayed by 3 moves") the same
//!   graph as the public one;
//! - `?move=N` opens a board's page at move N (the link of a console alert);
//! - the overview greys a board the hall has not heard from for 15 s and says for how
//!   long (`last_heard_ms`; a stand-in value where the hall does not send it yet);
//! - the public site kept as static files (`export_dir`) behind python's `http.server`
//!   shows the same delayed page and overview.
//!
//! Screenshots go to `CARGO_TARGET_TMPDIR/screenshots/hall-*.png`. Needs `/usr/bin/chromium`
//! and `/usr/sbin/mosquitto`; without them the test says so and passes, except in CI
//! (`TENGEN_REQUIRE_ORACLES=1`), where a missing tool is a failure.

use crate::board::BoardProcess;
use crate::broker;
use crate::browser;
use crate::http;

use std::path::Path;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use broker::{Mosquitto, Msg, SubEvent, Subscriber};
use browser::{answer_console_dialog, click_text, eval, launch, log_in, screenshot, wait_until};
use headless_chrome::protocol::cdp::Page::AddScriptToEvaluateOnNewDocument;
use rumqttc::QoS;
use serde_json::{json, Value};
use tengen_hall::HallConfig;
use tengen_protocol::event::{Event, FaultKind, GameSetup};
use tengen_rules::{Color, Point};

const TOKEN: &str = "browser-token-0123";
/// The commentator's token (a read-only login).
const DESK_TOKEN: &str = "desk-token-4567";
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// Seven moves on 9x9; Black's E6 captures White's E5, and Black presses the clock with E5
/// still on the board (Art. 18.2). The script ends there: the board stays in the alert.
const SCRIPT: &str = "size 9\n\
place B D5\npress B\nplace W E5\npress W\nplace B F5\npress B\nplace W A1\npress W\n\
place B E4\npress B\nplace W A2\npress W\nplace B E6\npress B\nwait 1s\n";

/// Until the hall sends `last_heard_ms` (ms since it last heard a board, added to
/// `/api/boards` on another branch of issue 20), this stands in for it in the page's
/// `/api/boards` answers where it is missing: board t03 last heard 95 s ago, the others a
/// second ago. Where the hall sends it, the hall's own value is used.
const LAST_HEARD_STANDIN: &str = r#"(() => {
  const heard = {t03: 95000};
  const real = window.fetch.bind(window);
  window.fetch = async (url, opts) => {
    const r = await real(url, opts);
    if (!String(url).endsWith("/api/boards") || !r.ok) return r;
    const boards = await r.json();
    for (const b of boards) if (!("last_heard_ms" in b)) b.last_heard_ms = heard[b.board] ?? 1000;
    return new Response(JSON.stringify(boards), {status: r.status, headers: {"Content-Type": "application/json"}});
  };
})();"#;

/// A `tengen run` board on the simulated script, publishing to the test's broker; killed
/// when dropped, even on a failed assertion.
fn run_board(dir: &Path, broker_port: u16) -> BoardProcess {
    std::fs::write(dir.join("game.txt"), SCRIPT).expect("script");
    // Main time 2 hours: at 20x pace, six minutes of the test before a flag falls (10
    // minutes fell once on a loaded machine and raised a time_expired alert).
    let config = dir.join("board.toml");
    std::fs::write(
        &config,
        format!(
            "[board]\nid = \"t07\"\ntournament = \"open\"\ngame = \"r1-t07\"\nsize = 9\n\
             [hardware]\nbackend = \"sim\"\n\
             [hardware.sim]\nscript = \"{script}\"\nspeed = 20.0\n\
             [game]\nblack = \"Kitani Minoru\"\nwhite = \"Go Seigen\"\nround = \"1\"\ntable = \"7\"\n\
             [time]\nsystem = \"byoyomi\"\nmain = \"2h\"\nperiods = 3\nperiod = \"30s\"\n\
             [mqtt]\nurl = \"mqtt://127.0.0.1:{broker_port}\"\n\
             [http]\nlisten = \"127.0.0.1:0\"\n\
             [storage]\ndir = \"{data}\"\n",
            script = dir.join("game.txt").display(),
            data = dir.join("data").display(),
        ),
    )
    .expect("board config");
    BoardProcess::start(&config)
}

use broker::board_envelope as env;

/// A board the test publishes as a board would (its status is published before): its
/// game's first events.
async fn fake_board(client: &rumqttc::AsyncClient, board: &str, points: &[&str]) {
    let root = format!("tengen/open/{board}");
    let publish = |topic: String, payload: String, retain: bool| async move {
        client
            .publish(topic, QoS::AtLeastOnce, retain, payload.into_bytes())
            .await
            .expect("publish");
    };
    let point = |gtp: &str| Point::parse_gtp(gtp, 19).expect("a 19x19 point");
    let mut events = vec![Event::GameStarted(GameSetup {
        black: format!("Black of {board}"),
        white: format!("White of {board}"),
        round: "1".into(),
        table: board.into(),
        ..GameSetup::default()
    })];
    for (i, p) in points.iter().enumerate() {
        events.push(Event::Move {
            number: i as u32 + 1,
            color: if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            },
            point: point(p),
            captured: vec![],
            clock: None,
        });
    }
    if board == "t03" {
        // A noisy sensor: hardware trouble, listed in the console's Hardware table.
        events.push(Event::SensorFault {
            points: vec![point("J1")],
            kind: FaultKind::Noisy,
        });
    }
    for (i, e) in events.into_iter().enumerate() {
        let e = env(board, i as u64 + 1, e);
        publish(
            format!("{root}/events"),
            serde_json::to_string(&e).expect("event"),
            false,
        )
        .await;
    }
}

/// Publishes the retained `online` status of each of `boards` (tournament `open`) and waits
/// until the hall lists them all: then it is subscribed, and their events (not retained)
/// cannot be published before it listens.
async fn announce(client: &rumqttc::AsyncClient, hall: std::net::SocketAddr, boards: &[&str]) {
    for b in boards {
        client
            .publish(
                format!("tengen/open/{b}/status"),
                QoS::AtLeastOnce,
                true,
                json!({"state": "online", "version": "test"})
                    .to_string()
                    .into_bytes(),
            )
            .await
            .expect("publish status");
    }
    let listed = tokio::time::Instant::now() + Duration::from_secs(10);
    while http::get(hall, "/api/boards", &[])
        .await
        .json()
        .as_array()
        .map(Vec::len)
        != Some(boards.len())
    {
        assert!(
            tokio::time::Instant::now() < listed,
            "the hall lists the test's boards"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Collects every message of `sub` in the background.
fn collect(mut sub: Subscriber) -> Arc<Mutex<Vec<Msg>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let out = seen.clone();
    tokio::spawn(async move {
        while let Some(e) = sub.next_event(Duration::from_secs(3600)).await {
            if let SubEvent::Msg(m) = e {
                out.lock().expect("messages").push(m);
            }
        }
    });
    seen
}

fn on(seen: &Arc<Mutex<Vec<Msg>>>, topic: &str) -> Vec<Value> {
    seen.lock()
        .expect("messages")
        .iter()
        .filter(|m| m.topic == topic)
        .filter_map(|m| serde_json::from_slice(&m.payload).ok())
        .collect()
}

/// JavaScript: how many stones the one-board page draws, and whether it draws `point`.
/// A child process (the static web server), killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn stones_js() -> &'static str {
    "document.querySelectorAll('#board .stone').length"
}

fn has_stone_js(point: &str) -> String {
    format!("document.querySelector('.stone[data-point=\"{point}\"]') !== null")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hall_overview_console_and_delayed_public_page() {
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    // The public site is also kept as static files, served below by a plain static server.
    let site = tempfile::tempdir().expect("temp dir");
    // The test's made-up boards publish no status heartbeat: without a long
    // `board_silence_s` the fleet watch would (rightly) call them offline.
    let config = HallConfig::parse(
        &format!(
            "[hall]\nboard_silence_s = 3600\n\
             [broadcast]\ndelay_moves = 3\ntopic_prefix = \"public\"\nrepublish = true\n\
             export_dir = \"{}\"\n\
             [analysis]\ncommand = \"/usr/games/gnugo --mode gtp\"\nlevel = 1\n\
             [[arbiter]]\nname = \"chief\"\ntoken = \"{TOKEN}\"\n\
             [[arbiter]]\nname = \"desk\"\ntoken = \"{DESK_TOKEN}\"\nrole = \"commentator\"\n",
            site.path().display()
        ),
        Path::new("hall.toml"),
    )
    .expect("hall config");
    let static_port = broker::free_port();
    let _static_server = Server(
        Command::new("python3")
            .args([
                "-m",
                "http.server",
                &static_port.to_string(),
                "--bind",
                "127.0.0.1",
            ])
            .arg("--directory")
            .arg(site.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 -m http.server"),
    );
    assert!(
        broker::wait_listening(static_port, Duration::from_secs(10)),
        "the static server listens"
    );
    let static_base = format!("http://127.0.0.1:{static_port}");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let base = format!("http://{}", hall.addr);
    let watch = Subscriber::connect(
        &mosq.url(),
        "test-watch",
        &["public/#", "tengen/open/t07/events", "tengen/open/t07/cmd"],
    )
    .await;
    let seen = collect(watch);

    // Four boards from the test, one real board.
    let pubc = Subscriber::connect(&mosq.url(), "fake-boards", &["nothing/here"]).await;
    let fakes = [
        ("t01", vec!["Q16", "D4", "Q4", "D16"]),
        ("t02", vec!["C3", "R17"]),
        ("t03", vec!["K10"]),
        ("t04", vec![]),
    ];
    let names: Vec<&str> = fakes.iter().map(|(b, _)| *b).collect();
    announce(&pubc.client, hall.addr, &names).await;
    for (b, points) in &fakes {
        fake_board(&pubc.client, b, points).await;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let _board = run_board(dir.path(), mosq.port());
    // Whether this hall says when it last heard each board (see LAST_HEARD_STANDIN).
    let hall_says_heard = http::get(hall.addr, "/api/boards", &[]).await.json()[0]
        .get("last_heard_ms")
        .is_some();

    let started = std::time::Instant::now();
    let checks = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        let long = Duration::from_secs(30);
        let short = Duration::from_secs(15); // a wait ends once the page shows it; 5 s timed out once on a loaded machine

        // The overview lists every board.
        tab.navigate_to(&format!("{base}/")).expect("overview");
        tab.wait_until_navigated().expect("loaded");
        wait_until(
            &tab,
            "[...document.querySelectorAll('#grid .card')].map(c => c.dataset.board).join(' ')",
            "t01 t02 t03 t04 t07".into(),
            long,
            "every board on the overview",
        );
        wait_until(
            &tab,
            "document.querySelector('.card[data-board=\"t07\"] .players')?.textContent ?? ''",
            "Kitani Minoru – Go Seigen".into(),
            long,
            "the real board's players",
        );
        if !hall_says_heard {
            // Without the field the page shows no silence, and no "NaN" or "undefined".
            assert_eq!(
                eval(
                    &tab,
                    "document.querySelectorAll('.card.silent').length + ' ' + \
                     /NaN|undefined/.test(document.body.innerText)"
                ),
                json!("0 false")
            );
        }
        // Signs of life: a board the hall has not heard from for 15 s is greyed, with how
        // long.
        let quiet = browser.new_tab().expect("tab");
        if !hall_says_heard {
            quiet
                .call_method(AddScriptToEvaluateOnNewDocument {
                    source: LAST_HEARD_STANDIN.into(),
                    world_name: None,
                    include_command_line_api: None,
                    run_immediately: None,
                })
                .expect("the stand-in for last_heard_ms");
        }
        quiet.navigate_to(&format!("{base}/")).expect("overview");
        quiet.wait_until_navigated().expect("loaded");
        wait_until(
            &quiet,
            "(() => { const c = document.querySelector('.card[data-board=\"t03\"]'); \
             return !!c && c.classList.contains('silent') \
             && /^silent \\d+ (s|min)/.test(c.querySelector('.heard')?.textContent ?? ''); })()",
            true.into(),
            long,
            "the silent board greyed, saying for how long",
        );
        if !hall_says_heard {
            assert_eq!(
                eval(
                    &quiet,
                    "[...document.querySelectorAll('.card.silent')].map(c => c.dataset.board \
                     + ': ' + c.querySelector('.heard').textContent).join(', ') + ' | ' \
                     + document.getElementById('count').textContent"
                ),
                json!("t03: silent 1 min | 5 boards \u{b7} 1 silent")
            );
        }
        screenshot(&quiet, TMP, "hall-overview-silent.png");
        // Closed, and the first tab in front again: a tab behind another gets no clicks.
        quiet.close(false).expect("close the tab");
        tab.activate().expect("the first tab in front");

        // The arbiter logs in; the board's alert shows in the console.
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("login form");
        log_in(&tab, "chief", TOKEN);
        wait_until(
            &tab,
            "[...document.querySelectorAll('#alerts .alert')]\
             .map(d => d.querySelector('h3').textContent + ' ' + d.querySelector('.meta').textContent).join('|')",
            "Captured stones left on the board (Art. 18.2) board open/t07 · alert a1 · points E5".into(),
            long,
            "the open alert in the console",
        );
        wait_until(
            &tab,
            "[...document.querySelectorAll('#hardware tr[data-fault]')]\
             .map(r => [...r.cells].slice(0, 3).map(c => c.textContent).join(' ')).join('|')",
            "table t03 (t03) noisy sensor J1".into(),
            long,
            "the noisy sensor in the console's hardware table",
        );
        // The card says where, who, at which move and how long ago.
        wait_until(
            &tab,
            "document.querySelector('#alerts .alert .who').textContent\
             .replace(/ · \\d+ (s|min) ago$/, '')",
            "Table 7, Kitani Minoru – Go Seigen · move 7".into(),
            long,
            "the alert's table, players and move",
        );
        let alert_id = eval(
            &tab,
            "document.querySelector('#alerts .alert').dataset.alert",
        );
        screenshot(&tab, TMP, "hall-console-alert.png");

        // Now every move is in: the public page is three moves behind, the arbiter's live.
        let live = browser.new_tab().expect("tab");
        live.navigate_to(&format!("{base}/console/board/open/t07/"))
            .expect("live view");
        live.wait_until_navigated().expect("loaded");
        wait_until(&live, &has_stone_js("E6"), true.into(), short, "E6 live");
        wait_until(&live, stones_js(), 6.into(), short, "live stones");
        wait_until(
            &live,
            "document.querySelectorAll('#alerts .alert').length",
            1.into(),
            short,
            "the alert on the live view",
        );
        screenshot(&live, TMP, "hall-arbiter-live.png");
        // The page opened at a move, as a console alert links it: move 3 of 7, three
        // stones, not following; titled as the arbiters' live page, with the tablet's
        // clock link.
        live.navigate_to(&format!("{base}/console/board/open/t07/?move=3"))
            .expect("live view at move 3");
        live.wait_until_navigated().expect("loaded");
        wait_until(
            &live,
            "document.getElementById('navAt').textContent",
            "move 3 of 7".into(),
            short,
            "the arbiters' page opened at move 3",
        );
        assert_eq!(eval(&live, stones_js()), json!(3));
        assert_eq!(eval(&live, &has_stone_js("E4")), json!(false));
        assert_eq!(
            eval(&live, "document.title"),
            // Titled by the table (issue 31), not by the board's id.
            json!("Arbiters \u{2013} live \u{b7} table 7")
        );
        assert_eq!(
            eval(
                &live,
                "document.getElementById('clockLink').hidden + ' ' + \
                 document.getElementById('clockLinkA').getAttribute('href')"
            ),
            json!("false clock-link")
        );
        screenshot(&live, TMP, "hall-arbiter-move-3.png");

        let public = browser.new_tab().expect("tab");
        public
            .navigate_to(&format!("{base}/board/open/t07/"))
            .expect("public page");
        public.wait_until_navigated().expect("loaded");
        wait_until(
            &public,
            "document.getElementById('summary').textContent",
            "Move 4: W A1".into(),
            short,
            "the public page three moves behind",
        );
        assert_eq!(eval(&public, stones_js()), json!(4));
        for late in ["E4", "A2", "E6"] {
            assert_eq!(eval(&public, &has_stone_js(late)), json!(false), "{late}");
        }
        assert_eq!(
            eval(
                &public,
                "document.querySelectorAll('#alerts .alert').length"
            ),
            json!(0),
            "no alert on the public page"
        );
        // GNU Go's view of the public positions: the graph, and candidates on the board.
        wait_until(
            &public,
            "document.getElementById('analysis').hidden === false \
             && document.getElementById('leadLine').getAttribute('points').split(' ').length >= 5 \
             && document.querySelectorAll('#board .candidate').length > 0",
            true.into(),
            long,
            "the score graph over the public moves and the candidates of the shown position",
        );
        assert!(
            eval(&public, "document.getElementById('engineName').textContent")
                .as_str()
                .is_some_and(|e| e.starts_with("GNU Go")),
            "the engine's name"
        );
        assert!(
            eval(&public, "document.getElementById('lead').textContent")
                .as_str()
                .is_some_and(|t| t.starts_with("After move 4:")),
            "the lead at the shown position"
        );
        screenshot(&public, TMP, "hall-public-delayed.png");
        // `?move=N` on the public page: within what the public has.
        public
            .navigate_to(&format!("{base}/board/open/t07/?move=2"))
            .expect("public page at move 2");
        public.wait_until_navigated().expect("loaded");
        wait_until(
            &public,
            "document.getElementById('navAt').textContent",
            "move 2 of 4".into(),
            short,
            "the public page opened at move 2",
        );
        assert_eq!(eval(&public, stones_js()), json!(2));
        assert_eq!(
            eval(&live, "document.getElementById('analysis').hidden"),
            json!(true),
            "no analysis on the arbiters' live view"
        );
        // The overview (public) shows the delayed position too: four stones.
        tab.navigate_to(&format!("{base}/")).expect("overview");
        tab.wait_until_navigated().expect("loaded");
        wait_until(
            &tab,
            "document.querySelector('.card[data-board=\"t07\"] .number')?.textContent ?? ''",
            "round 1 · move 4".into(),
            long,
            "the delayed move number on the overview",
        );
        assert_eq!(
            eval(
                &tab,
                "document.querySelectorAll('.card[data-board=\"t07\"] circle').length"
            ),
            json!(4)
        );
        screenshot(&tab, TMP, "hall-overview.png");

        // The arbiters' overview, behind the login (this tab has the console's cookie): the
        // same page on the live feed, move 7 while the public one shows move 4.
        tab.navigate_to(&format!("{base}/console/overview"))
            .expect("arbiters' overview");
        tab.wait_until_navigated().expect("loaded");
        wait_until(
            &tab,
            "document.querySelector('.card[data-board=\"t07\"] .number')?.textContent ?? ''",
            "round 1 · move 7".into(),
            long,
            "the live move number on the arbiters' overview",
        );
        // A board heard only through its events (the test's fake ones publish no `state`):
        // the hall's own fold, live.
        assert_eq!(
            eval(
                &tab,
                "document.querySelector('.card[data-board=\"t01\"] .number')?.textContent ?? ''"
            ),
            json!("round 1 · move 4")
        );
        screenshot(&tab, TMP, "hall-console-overview.png");

        // A commentator logs in with cookies of their own: /commentary, behind the delay as
        // `[hall] commentary` defaults, and no console.
        let context = browser.new_context().expect("a second browser context");
        let desk = context.new_tab().expect("tab");
        desk.navigate_to(&format!("{base}/commentary"))
            .expect("commentary");
        desk.wait_until_navigated().expect("login form");
        log_in(&desk, "desk", DESK_TOKEN);
        wait_until(
            &desk,
            "location.pathname + ' ' + (document.querySelector('.card[data-board=\"t07\"] .number')?.textContent ?? '')",
            "/commentary round 1 · move 4".into(),
            long,
            "the commentators' overview, behind the delay",
        );
        // Titled as what it is: delayed, and by how much (never "arbiters, live").
        assert_eq!(
            eval(
                &desk,
                "document.title + ' | ' + document.querySelector('header h1').textContent"
            ),
            json!(
                "Commentary \u{2013} delayed by 3 moves | Commentary \u{2013} delayed by 3 moves"
            )
        );
        screenshot(&desk, TMP, "hall-commentary-overview.png");
        desk.navigate_to(&format!("{base}/commentary/board/open/t07/"))
            .expect("commentary board page");
        desk.wait_until_navigated().expect("loaded");
        wait_until(
            &desk,
            "document.getElementById('summary').textContent",
            "Move 4: W A1".into(),
            short,
            "the commentators' board page three moves behind",
        );
        assert_eq!(
            eval(&desk, "document.querySelectorAll('#alerts .alert').length"),
            json!(0),
            "no alert on the commentators' delayed page"
        );
        assert_eq!(
            eval(
                &desk,
                "document.title + ' | ' + document.getElementById('title').textContent"
            ),
            json!(
                "Commentary \u{2013} delayed by 3 moves \u{b7} table 7 | \
                 Commentary \u{2013} delayed by 3 moves \u{b7} table 7"
            )
        );
        assert_eq!(
            eval(&desk, "document.getElementById('note').textContent"),
            json!("As the public sees the game: the last 3 moves are not shown yet.")
        );
        // The public page's analysis, of the same public positions.
        wait_until(
            &desk,
            "document.getElementById('analysis').hidden === false \
             && document.getElementById('leadLine').getAttribute('points').split(' ').length >= 5 \
             && document.querySelectorAll('#board .candidate').length > 0",
            true.into(),
            long,
            "the score graph and candidates on the commentators' page",
        );
        assert!(
            eval(&desk, "document.getElementById('lead').textContent")
                .as_str()
                .is_some_and(|t| t.starts_with("After move 4:")),
            "the lead at the shown (public) position"
        );
        screenshot(&desk, TMP, "hall-commentary-board.png");
        desk.navigate_to(&format!("{base}/console"))
            .expect("console");
        desk.wait_until_navigated().expect("loaded");
        assert_eq!(
            eval(&desk, "document.querySelectorAll('#alerts').length"),
            json!(0),
            "a commentator gets no console"
        );

        // The static copy (`export_dir`) behind a plain static server: the same delayed
        // page, polling its files instead of a stream, and the same overview.
        let copy = browser.new_tab().expect("tab");
        copy.navigate_to(&format!("{static_base}/board/open/t07/"))
            .expect("static page");
        copy.wait_until_navigated().expect("loaded");
        wait_until(
            &copy,
            "document.getElementById('summary').textContent",
            "Move 4: W A1".into(),
            long,
            "the static page as far as the delay lets out",
        );
        assert_eq!(eval(&copy, stones_js()), json!(4));
        for late in ["E4", "A2", "E6"] {
            assert_eq!(eval(&copy, &has_stone_js(late)), json!(false), "{late}");
        }
        screenshot(&copy, TMP, "hall-static-copy.png");
        copy.navigate_to(&format!("{static_base}/"))
            .expect("static overview");
        copy.wait_until_navigated().expect("loaded");
        wait_until(
            &copy,
            "document.querySelector('.card[data-board=\"t07\"] .number')?.textContent ?? ''",
            "round 1 · move 4".into(),
            long,
            "the delayed move number on the static overview",
        );

        // Confirm: the board answers with a warning; the console shows the command acked.
        tab.navigate_to(&format!("{base}/console"))
            .expect("console");
        tab.wait_until_navigated().expect("console");
        wait_until(
            &tab,
            "document.querySelectorAll('#alerts .alert').length",
            1.into(),
            short,
            "the alert again",
        );
        // The arbiter takes the alert first: the card says who went to the board.
        click_text(&tab, "#alerts .alert button", "I'll go");
        wait_until(
            &tab,
            "document.querySelector('#alerts .alert .taken')?.textContent ?? ''",
            "Taken by chief".into(),
            short,
            "the card names the arbiter who took it",
        );
        // Confirming gives a warning: the console asks first.
        click_text(&tab, "#alerts .alert button", "Confirm (warning)");
        assert_eq!(
            answer_console_dialog(&tab, true),
            "Table 7, Kitani Minoru – Go Seigen: Black's first warning (captured stones left on the board). \
             One stone comes off Black's count at the end (Art. 24.1)."
        );
        wait_until(
            &tab,
            "document.querySelector('#commands li')?.textContent.replace(/\\d\\d:\\d\\d:\\d\\d/, 'hh:mm:ss') ?? ''",
            "Confirm alert: captured stones left on the board · table 7 · chief · hh:mm:ss · done".into(),
            short,
            "the command acknowledged",
        );
        wait_until(
            &tab,
            "document.querySelectorAll('#alerts .alert').length === 0 && !document.getElementById('noAlert').hidden",
            true.into(),
            short,
            "the alert closed",
        );
        wait_until(
            &live,
            "document.getElementById('subB').textContent.includes('1 warning')",
            true.into(),
            short,
            "the warning on the live view",
        );
        screenshot(&tab, TMP, "hall-console-acked.png");
        alert_id
    });
    let alert_id = checks.await.expect("browser checks");
    eprintln!("browser checks done after {:?}", started.elapsed());

    // What went over MQTT: the command, the board's warning, the public tree.
    let cmd = on(&seen, "tengen/open/t07/cmd");
    assert_eq!(cmd.len(), 1, "{cmd:?}");
    assert_eq!(
        (cmd[0]["type"].as_str(), cmd[0]["by"].as_str()),
        (Some("confirm"), Some("chief"))
    );
    assert_eq!(cmd[0]["alert"], alert_id);
    // The hall has seen the warning; the test's own subscriber gets it from the same broker.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !on(&seen, "tengen/open/t07/events")
        .iter()
        .any(|e| e["type"] == "alert_cleared")
        && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let events = on(&seen, "tengen/open/t07/events");
    let warning = events
        .iter()
        .find(|e| e["type"] == "warning")
        .expect("the board's warning event");
    assert_eq!(
        (warning["color"].as_str(), warning["article"].as_str()),
        (Some("B"), Some("18.2"))
    );
    assert!(events
        .iter()
        .any(|e| e["type"] == "alert_cleared" && e["how"] == "confirmed"));

    let public_events = on(&seen, "public/open/t07/events");
    let types: Vec<&str> = public_events
        .iter()
        .filter_map(|e| e["type"].as_str())
        .collect();
    assert_eq!(
        types.iter().filter(|t| **t == "move").count(),
        4,
        "{types:?}"
    );
    assert!(!types.iter().any(|t| t.starts_with("alert")), "{types:?}");
    let seqs: Vec<u64> = public_events
        .iter()
        .filter_map(|e| e["seq"].as_u64())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order: {seqs:?}");
    let state = on(&seen, "public/open/t07/state");
    let last = state.last().expect("the public state");
    assert_eq!(last["number"], 4);
    assert_eq!(last["alerts"], json!([]));
    assert_eq!(last["black"], "Kitani Minoru");
    let fake_state = on(&seen, "public/open/t01/state");
    assert_eq!(
        fake_state.last().expect("a fake board's public state")["number"],
        1,
        "four moves, three held back"
    );
    hall.stop();
}

/// A board page whose event stream the hall refuses (503 and Retry-After: this address
/// holds all the streams `[hall] streams_per_address` lets it) opens it again by itself once
/// there is room, from the last event it has, and shows the game live: a browser closes a
/// refused EventSource for good, so without the page's own retry a viewer turned away once
/// would look at a frozen board until they reload (issue 21, item 4).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_turned_away_by_a_full_hall_comes_back_when_there_is_room() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Some(chromium) = browser::chromium() else {
        return;
    };
    let Some(mosq) = Mosquitto::start() else {
        return;
    };
    let config = HallConfig::parse("[hall]\nstreams_per_address = 1\n", Path::new("hall.toml"))
        .expect("hall config");
    let hall = tengen_hall::start(&mosq.url(), "127.0.0.1:0", &config)
        .await
        .expect("hall starts");
    let pubc = Subscriber::connect(&mosq.url(), "test-board-full", &["tengen/open/t09/cmd"]).await;
    announce(&pubc.client, hall.addr, &["t09"]).await;
    fake_board(&pubc.client, "t09", &["D4", "Q16"]).await;

    // This address's one stream, held by someone else.
    let mut held = tokio::net::TcpStream::connect(hall.addr)
        .await
        .expect("connect");
    held.write_all(
        format!(
            "GET /board/open/t09/events HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
            hall.addr
        )
        .as_bytes(),
    )
    .await
    .expect("ask for a stream");
    let mut head = [0u8; 12];
    held.read_exact(&mut head).await.expect("the answer");
    assert_eq!(&head, b"HTTP/1.1 200", "the held stream is open");

    let base = format!("http://{}", hall.addr);
    let page = tokio::task::spawn_blocking(move || {
        let browser = launch(chromium);
        let tab = browser.new_tab().expect("tab");
        tab.navigate_to(&format!("{base}/board/open/t09/"))
            .expect("page");
        tab.wait_until_navigated().expect("loaded");
        // Refused: the page saw the position from /api/state but no stream.
        wait_until(
            &tab,
            "window.streamsOpened >= 1",
            true.into(),
            Duration::from_secs(10),
            "the first try",
        );
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(
            eval(&tab, "window.lastSeq || 0"),
            json!(0),
            "no event came through the refused stream"
        );
        (browser, tab)
    })
    .await
    .expect("the page");
    // The other viewer leaves: within the page's first wait (5 s, give or take a quarter)
    // it is back, and the events come.
    drop(held);
    let (browser, tab) = page;
    tokio::task::spawn_blocking(move || {
        wait_until(
            &tab,
            "window.lastSeq",
            json!(3),
            Duration::from_secs(15),
            "the stream opened again",
        );
        assert!(eval(&tab, "window.streamsOpened").as_u64() >= Some(2));
        drop(browser);
    })
    .await
    .expect("the page came back");
    pubc.stop();
    hall.stop();
}

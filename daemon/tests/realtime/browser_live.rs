//! The live page in a real browser (headless Chromium over the DevTools protocol): as a game
//! is played into the board's feed, each new stone, clock change, alert and retraction shows
//! on the page within a second. Screenshots are written under the target directory so a
//! person can look at them.
//!
//! Needs `/usr/bin/chromium` (`apt-get install chromium`). Without it the test says so and
//! passes, except in CI (`TENGEN_REQUIRE_ORACLES=1`), where a missing browser is a failure.

use crate::broker;
use crate::browser;

use std::path::PathBuf;
use std::time::Duration;

use headless_chrome::Tab;
use tengen_net::live_view::{router, serve, LiveFeed};
use tengen_protocol::event::{
    Alert, AlertCode, BoardState, ClearedHow, ClockReading, EndReason, Expected, GameEnd,
    GameSetup, PerColor, RetractReason,
};
use tengen_protocol::{Envelope, Event, GameView, Timestamp};
use tengen_rules::clock::{Call, TimeControl};
use tengen_rules::game::{Game, Superko};
use tengen_rules::{Color, Move, Point};

struct Feeder {
    feed: LiveFeed,
    seq: u64,
}

impl Feeder {
    fn send(&mut self, event: Event) {
        self.seq += 1;
        self.feed.publish(Envelope {
            seq: self.seq,
            time: Timestamp::parse(&format!("2026-11-29T13:00:{:02}.000Z", self.seq % 60))
                .expect("a time"),
            board: "hall1-07".into(),
            game: "r3-t07".into(),
            by: None,
            event,
        });
    }
}

/// Feeds a board's feed as the board does: each event folded into a [`GameView`] and the
/// `state` snapshot of the fold set after it (clocks as the event left them), one second
/// of game time between events.
struct Board {
    feed: LiveFeed,
    view: GameView,
    seq: u64,
    game: String,
}

impl Board {
    fn new(feed: LiveFeed) -> Board {
        Board {
            feed,
            view: GameView::new(),
            seq: 0,
            game: "r3-t07".into(),
        }
    }

    fn send(&mut self, event: Event) {
        self.seq += 1;
        let envelope = Envelope {
            seq: self.seq,
            time: Timestamp::from_millis(1_795_959_900_000 + self.seq * 1000),
            board: "hall1-07".into(),
            game: self.game.clone(),
            by: None,
            event,
        };
        self.view
            .apply_envelope(&envelope)
            .unwrap_or_else(|e| panic!("seq {}: {e}", envelope.seq));
        let state = self.view.snapshot(envelope.time).map(|s| s.to_value());
        self.feed.publish(envelope);
        if let Some(state) = state {
            self.feed.set_state(state);
        }
    }

    /// Black on odd move numbers, no captures unless given, no clock reading.
    fn play(&mut self, number: u32, point: &str, captured: &[&str]) {
        self.send(Event::Move {
            number,
            color: if number % 2 == 1 {
                Color::Black
            } else {
                Color::White
            },
            point: gtp(point),
            captured: captured.iter().map(|p| gtp(p)).collect(),
            clock: None,
        });
    }
}

fn gtp(text: &str) -> Point {
    tengen_protocol::gtp::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn setup(time: &str) -> GameSetup {
    GameSetup {
        komi: 6.5,
        time_control: TimeControl::parse(time).expect("tc"),
        black: "Kuwahara Shusaku".into(),
        white: "Gennan Inseki".into(),
        black_rank: Some("4d".into()),
        white_rank: Some("8d".into()),
        event: Some("Castle games 1846".into()),
        round: "3".into(),
        table: "7".into(),
        ..GameSetup::default()
    }
}

/// Starts the page's server on `feed` and a browser on it; returns the URL.
async fn page_server(feed: &LiveFeed) -> (tengen_net::live_view::ServeHandle, String) {
    let server = serve("127.0.0.1:0", router(feed.clone()))
        .await
        .expect("bind");
    let url = format!("http://{}/", server.addr);
    (server, url)
}

fn open(browser: &headless_chrome::Browser, url: &str) -> std::sync::Arc<Tab> {
    let tab = browser.new_tab().expect("tab");
    tab.navigate_to(url).expect("navigate");
    tab.wait_until_navigated().expect("loaded");
    tab
}

fn text_of(id: &str) -> String {
    format!("document.getElementById('{id}').textContent")
}

fn has_stone(point: &str, color: &str) -> String {
    format!("(document.querySelector('.stone[data-point=\"{point}\"]')?.dataset.color ?? null) === '{color}'")
}

const STONES: &str = "document.querySelectorAll('#board .stone').length";

/// Clicks the board's intersection `point` with the mouse (a real input event at the point's
/// place on the screen).
fn click_board(tab: &Tab, point: &str) {
    let js = format!(
        "(() => {{ const p = parsePoint('{point}'), g = geometry(), svg = document.getElementById('board');\
         const q = svg.createSVGPoint(); q.x = g.margin + g.cell * p.c; q.y = g.margin + g.cell * (G.size - 1 - p.r);\
         const s = q.matrixTransform(svg.getScreenCTM()); return JSON.stringify([s.x, s.y]); }})()"
    );
    let at: serde_json::Value =
        serde_json::from_str(browser::eval(tab, &js).as_str().expect("a point")).expect("json");
    let (x, y) = (at[0].as_f64().expect("x"), at[1].as_f64().expect("y"));
    tab.click_point(headless_chrome::browser::tab::point::Point { x, y })
        .expect("click");
}

/// Polls `js` until it returns `want`; panics with what it saw after one second.
fn within_a_second(tab: &Tab, js: &str, want: serde_json::Value, what: &str) {
    browser::wait_until(tab, js, want, Duration::from_secs(1), what);
}

/// The page's clock format: `h:mm:ss` from an hour up, else `m:ss`, rounding up.
fn shown(ms: u64) -> String {
    let t = ms.div_ceil(1000);
    let (h, m, s) = (t / 3600, t / 60 % 60, t % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

fn screenshot(tab: &Tab, name: &str) -> PathBuf {
    browser::screenshot(tab, env!("CARGO_TARGET_TMPDIR"), name)
}

/// The opening of a real game (the Ear-Reddening game), played through the rules core so
/// each move carries its exact capture set.
fn opening() -> Vec<(Color, Point, Vec<Point>)> {
    let text = include_str!("../../assets/ear-reddening.sgf");
    let record = tengen_rules::sgf::parse(text).expect("bundled game parses");
    let mut game = Game::new(19, Superko::Situational).expect("19x19");
    let mut out = Vec::new();
    for m in record.moves.iter().take(60) {
        let played = game.play_as(m.color, m.mv).expect("legal");
        if let Move::Play(p) = m.mv {
            out.push((m.color, p, played.captured));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_page_follows_a_game() {
    let Some(path) = browser::chromium() else {
        return;
    };
    let feed = LiveFeed::new();
    let server = serve("127.0.0.1:0", router(feed.clone()))
        .await
        .expect("bind");
    let url = format!("http://{}/", server.addr);
    let mut f = Feeder {
        feed: feed.clone(),
        seq: 0,
    };
    f.send(Event::status(BoardState::Online, "test"));
    f.send(Event::GameStarted(GameSetup {
        time_control: TimeControl::parse("byoyomi 60m 5x30s").expect("tc"),
        black: "Kuwahara Shusaku".into(),
        white: "Gennan Inseki".into(),
        round: "3".into(),
        table: "7".into(),
        ..GameSetup::default()
    }));

    let moves = opening();
    let checks = tokio::task::spawn_blocking(move || {
        let browser = browser::launch(path);
        let tab = browser.new_tab().expect("tab");
        tab.navigate_to(&url).expect("navigate");
        tab.wait_until_navigated().expect("loaded");
        within_a_second(
            &tab,
            "document.getElementById('nameB').textContent",
            "Kuwahara Shusaku".into(),
            "players",
        );
        let mut clock_ms = (3_600_000u64, 3_600_000u64);
        let mut on_board = 0i64;
        for (i, (color, point, captured)) in moves.iter().enumerate() {
            let number = i as u32 + 1;
            if *color == Color::Black {
                clock_ms.0 -= 7_000;
            } else {
                clock_ms.1 -= 9_000;
            }
            f.send(Event::Move {
                number,
                color: *color,
                point: *point,
                captured: captured.clone(),
                clock: Some(PerColor {
                    black: clock_ms.0,
                    white: clock_ms.1,
                }),
            });
            on_board += 1 - captured.len() as i64;
            let js = format!(
                "document.querySelector('.stone[data-point=\"{}\"]')?.dataset.color ?? null",
                point.to_gtp()
            );
            within_a_second(&tab, &js, color.letter().into(), &format!("move {number}"));
            within_a_second(
                &tab,
                "document.querySelectorAll('#board .stone').length",
                on_board.into(),
                &format!("stones after move {number}"),
            );
            if number % 10 == 0 {
                // The press that ends the move: the clock shows the new time at once.
                f.send(Event::Clock(ClockReading {
                    color: Some(*color),
                    black: clock_ms.0,
                    white: clock_ms.1,
                    periods: PerColor { black: 5, white: 5 },
                    running: Some(color.opponent()),
                    paused: Some(false),
                }));
                // The side that pressed has a stopped clock: its display is exact.
                let (id, ms) = match color {
                    Color::Black => ("timeB", clock_ms.0),
                    Color::White => ("timeW", clock_ms.1),
                };
                let js = format!("document.getElementById('{id}').textContent");
                within_a_second(
                    &tab,
                    &js,
                    shown(ms).into(),
                    &format!("clock after move {number}"),
                );
                within_a_second(
                    &tab,
                    &format!(
                        "document.getElementById('clock{}').classList.contains('running')",
                        color.opponent().letter()
                    ),
                    true.into(),
                    "running clock highlighted",
                );
            }
        }
        screenshot(&tab, "live-page.png");

        // An arbiter's pause (Art. 14): both clocks stand, and the page says so.
        f.send(Event::Clock(ClockReading {
            color: None,
            black: clock_ms.0,
            white: clock_ms.1,
            periods: PerColor { black: 5, white: 5 },
            running: Some(Color::Black),
            paused: Some(true),
        }));
        within_a_second(
            &tab,
            "document.getElementById('subB').textContent.includes('paused') && !document.getElementById('clockB').classList.contains('running')",
            true.into(),
            "paused clock shown",
        );
        std::thread::sleep(Duration::from_millis(1200));
        within_a_second(
            &tab,
            "document.getElementById('timeB').textContent",
            shown(clock_ms.0).into(),
            "a paused clock does not count down",
        );
        screenshot(&tab, "live-page-paused.png");

        // An alert: a banner naming the article, and its points marked on the board.
        let last_point = moves.last().expect("moves").1;
        let last = last_point.to_gtp();
        f.send(Event::Alert(Alert {
            id: "a1".into(),
            code: AlertCode::StoneMoved,
            article: "17.5".into(),
            color: Some(Color::Black),
            points: vec![last_point],
            expected: Expected::new(vec![(last_point, Some(Color::White))]),
            message: format!("The stone at {last} was moved; put it back."),
            late_ms: None,
        }));
        within_a_second(
            &tab,
            "document.querySelector('#alerts .alert')?.textContent.includes('Art. 17.5') ?? false",
            true.into(),
            "alert banner",
        );
        within_a_second(
            &tab,
            "document.querySelectorAll('#board .alert-point').length",
            1.into(),
            "alert point marked",
        );
        screenshot(&tab, "live-page-alert.png");
        f.send(Event::cleared("a1", ClearedHow::Restored));
        within_a_second(
            &tab,
            "document.querySelectorAll('#alerts .alert').length",
            0.into(),
            "alert cleared",
        );

        // A retracted move disappears from the page.
        let n = moves.len() as u32;
        f.send(Event::MoveRetracted {
            number: n,
            reason: RetractReason::Other("test".into()),
        });
        within_a_second(
            &tab,
            &format!("document.querySelector('.stone[data-point=\"{last}\"]') === null"),
            true.into(),
            "retracted move gone",
        );
    });
    checks.await.expect("browser checks");
    server.stop();
}

/// The board page for commentators: step back, forward, first and last, with the arrow
/// keys, the slider and a move number, while new moves arrive without moving the view;
/// "live" follows again. The game info, the ranks and the move list that never scrolls
/// sideways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_page_navigates_the_moves() {
    let Some(path) = browser::chromium() else {
        return;
    };
    let feed = LiveFeed::new();
    let (server, url) = page_server(&feed).await;
    let mut board = Board::new(feed.clone());
    board.send(Event::status(BoardState::Online, "test"));
    board.send(Event::GameStarted(setup("byoyomi 60m 5x30s")));
    let moves = opening();
    for (i, (color, point, captured)) in moves.iter().enumerate() {
        board.send(Event::Move {
            number: i as u32 + 1,
            color: *color,
            point: *point,
            captured: captured.clone(),
            clock: None,
        });
    }
    let total = moves.len();
    // Stones on the board after the first `n` moves.
    let stones_after = move |n: usize| -> i64 {
        moves[..n]
            .iter()
            .map(|(_, _, c)| 1 - c.len() as i64)
            .sum::<i64>()
    };
    let moves2 = opening();
    let point_of = move |n: usize| moves2[n - 1].1.to_gtp();

    let checks = tokio::task::spawn_blocking(move || {
        let browser = browser::launch(path);
        let tab = open(&browser, &url);
        let short = Duration::from_secs(2);
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            format!("move {total} of {total}").into(),
            short,
            "all moves shown",
        );
        // The game info from `game_started`.
        for (id, want) in [
            ("nameB", "Kuwahara Shusaku"),
            ("rankB", "4d"),
            ("nameW", "Gennan Inseki"),
            ("rankW", "8d"),
            ("infoEvent", "Castle games 1846"),
            ("infoRound", "3"),
            ("infoTable", "7"),
            ("infoTime", "60 min + byo-yomi 5 \u{d7} 30 s"),
            ("infoKomi", "6.5 points"),
            ("infoHandicap", "none"),
        ] {
            assert_eq!(
                browser::eval(&tab, &text_of(id)),
                serde_json::json!(want),
                "{id}"
            );
        }
        // A list of 60 moves scrolls down, never sideways.
        assert_eq!(
            browser::eval(
                &tab,
                "(() => { const m = document.getElementById('moves'); return m.scrollWidth <= m.clientWidth; })()"
            ),
            serde_json::json!(true),
            "the move list fits its width"
        );
        screenshot(&tab, "board-page-info.png");

        // Back twice with the arrow key: the board of move total-2, its last move marked.
        tab.press_key("ArrowLeft").expect("key");
        tab.press_key("ArrowLeft").expect("key");
        let back = total - 2;
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            format!("move {back} of {total}").into(),
            short,
            "two moves back",
        );
        assert_eq!(
            browser::eval(&tab, STONES),
            serde_json::json!(stones_after(back))
        );
        assert_eq!(
            browser::eval(&tab, "document.getElementById('last-move').dataset.point"),
            serde_json::json!(point_of(back)),
            "the shown move is marked"
        );
        assert_eq!(
            browser::eval(
                &tab,
                "document.getElementById('navLive').classList.contains('on')"
            ),
            serde_json::json!(false),
            "going back stops following"
        );

        // A new move arrives: counted, but the board stays where the viewer is.
        board.play(total as u32 + 1, "T19", &[]); // Black
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            format!("move {back} of {}", total + 1).into(),
            short,
            "a new move does not move the view",
        );
        assert_eq!(
            browser::eval(&tab, &has_stone("T19", "B")),
            serde_json::json!(false)
        );

        // Forward one with the button.
        tab.find_element("#navForward")
            .expect("forward")
            .click()
            .expect("click");
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            format!("move {} of {}", back + 1, total + 1).into(),
            short,
            "one forward",
        );
        // Jump to move 10.
        tab.find_element("#navNumber")
            .expect("jump")
            .click()
            .expect("focus");
        tab.type_str("10").expect("type");
        tab.press_key("Enter").expect("enter");
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            format!("move 10 of {}", total + 1).into(),
            short,
            "jump to move 10",
        );
        assert_eq!(
            browser::eval(&tab, STONES),
            serde_json::json!(stones_after(10))
        );
        assert_eq!(
            browser::eval(&tab, "document.getElementById('last-move').dataset.point"),
            serde_json::json!(point_of(10))
        );
        screenshot(&tab, "board-page-move-10.png");
        // First, and the slider.
        tab.find_element("#navFirst")
            .expect("first")
            .click()
            .expect("click");
        browser::wait_until(&tab, STONES, 0.into(), short, "the empty board");
        browser::eval(
            &tab,
            "(() => { const s = document.getElementById('navSlider'); s.value = 30; s.dispatchEvent(new Event('input')); })()",
        );
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            format!("move 30 of {}", total + 1).into(),
            short,
            "the slider at 30",
        );
        assert_eq!(
            browser::eval(&tab, STONES),
            serde_json::json!(stones_after(30))
        );

        // Live: the newest move, and the next one as it comes.
        tab.find_element("#navLive")
            .expect("live")
            .click()
            .expect("click");
        browser::wait_until(
            &tab,
            &has_stone("T19", "B"),
            true.into(),
            short,
            "live again",
        );
        board.play(total as u32 + 2, "A1", &[]);
        browser::wait_until(
            &tab,
            &has_stone("A1", "W"),
            true.into(),
            short,
            "live follows",
        );
        assert_eq!(
            browser::eval(&tab, &text_of("navAt")),
            serde_json::json!(format!("move {} of {}", total + 2, total + 2))
        );
        assert_eq!(
            browser::eval(&tab, "document.getElementById('last-move').dataset.point"),
            serde_json::json!("A1")
        );
        // Stones on columns A and T leave the coordinates readable.
        assert_eq!(
            browser::eval(&tab, COVERED_COORDINATES),
            serde_json::json!(0),
            "coordinates covered by stones"
        );
        screenshot(&tab, "board-page-live.png");
    });
    checks.await.expect("browser checks");
    server.stop();
}

/// How many coordinate labels a stone overlaps on the page.
const COVERED_COORDINATES: &str = "(() => {
  const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect());
  const stones = boxes('#board .stone'), coords = boxes('#board text');
  return coords.filter((c) => stones.some((s) => s.left < c.right && c.left < s.right && s.top < c.bottom && c.top < s.bottom)).length;
})()";

/// The seconds a clock shows (`m:ss`).
fn seconds(text: &serde_json::Value) -> i64 {
    let t = text.as_str().expect("a clock text");
    let (m, s) = t.split_once(':').expect("m:ss");
    m.parse::<i64>().expect("minutes") * 60 + s.parse::<i64>().expect("seconds")
}

/// Clocks: byo-yomi periods, the calls in words, a running clock that keeps its time when
/// the page is reloaded (it counts from the snapshot, not from the page's load); Canadian
/// stones called stones; the result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_page_clocks_periods_and_reload() {
    let Some(path) = browser::chromium() else {
        return;
    };
    // The browser first: launching waits for a free slot (browsers are capped across the
    // tests), and White's clock must not run out while it waits.
    let browser = tokio::task::spawn_blocking(move || browser::launch(path))
        .await
        .expect("chromium");
    let feed = LiveFeed::new();
    let (server, url) = page_server(&feed).await;
    let mut board = Board::new(feed.clone());
    board.send(Event::status(BoardState::Online, "test"));
    board.send(Event::GameStarted(setup("byoyomi 1m 5x30s")));
    board.play(1, "A10", &[]);
    board.play(2, "T10", &[]);
    // White is in byo-yomi: 3 periods left, 25 s of this one, and running.
    board.send(Event::Clock(ClockReading {
        color: Some(Color::Black),
        black: 40_000,
        white: 25_000,
        periods: PerColor { black: 5, white: 3 },
        running: Some(Color::White),
        paused: Some(false),
    }));
    let reading_at = std::time::Instant::now();
    board.send(Event::Byoyomi {
        color: Color::White,
        call: Call::MinuteUsed,
        periods_left: 3,
    });

    let checks = tokio::task::spawn_blocking(move || {
        let tab = open(&browser, &url);
        let short = Duration::from_secs(2);
        browser::wait_until(&tab, &has_stone("T10", "W"), true.into(), short, "moves");
        // Reloaded 4 s later, White's clock has run on those 4 s; it does not start again
        // from the last reading.
        std::thread::sleep(Duration::from_secs(4));
        tab.reload(true, None).expect("reload");
        tab.wait_until_navigated().expect("reloaded");
        browser::wait_until(
            &tab,
            &has_stone("T10", "W"),
            true.into(),
            short,
            "moves again",
        );
        browser::wait_until(
            &tab,
            "document.getElementById('clockW').classList.contains('running')",
            true.into(),
            short,
            "White's clock runs",
        );
        let shown = seconds(&browser::eval(&tab, &text_of("timeW")));
        let elapsed = reading_at.elapsed().as_millis() as i64;
        let want = (25_000 - elapsed + 999) / 1000;
        assert!(
            (shown - want).abs() <= 1,
            "after a reload {elapsed} ms after the reading, White's clock shows {shown} s, want about {want} s"
        );
        assert_eq!(
            browser::eval(&tab, &text_of("timeB")),
            serde_json::json!("0:40")
        );

        assert_eq!(
            browser::eval(&tab, &text_of("subW")),
            serde_json::json!("3 periods \u{b7} 0 captured")
        );
        assert_eq!(
            browser::eval(&tab, &text_of("subB")),
            serde_json::json!("5 periods \u{b7} 0 captured")
        );
        assert_eq!(
            browser::eval(&tab, &text_of("callW")),
            serde_json::json!("period used, 3 left")
        );
        assert_eq!(
            browser::eval(
                &tab,
                "document.querySelector('.clocks').textContent.includes('_')"
            ),
            serde_json::json!(false),
            "no raw call codes"
        );
        assert_eq!(
            browser::eval(&tab, COVERED_COORDINATES),
            serde_json::json!(0),
            "A and T columns"
        );
        screenshot(&tab, "board-page-byoyomi.png");
        // A Canadian game: stones to play, not periods.
        board.send(Event::GameStarted(setup("canadian 10m 15/10m")));
        board.send(Event::Clock(ClockReading {
            color: None,
            black: 600_000,
            white: 420_000,
            periods: PerColor {
                black: 15,
                white: 12,
            },
            running: Some(Color::Black),
            paused: Some(false),
        }));
        browser::wait_until(
            &tab,
            &text_of("subW"),
            "12 stones \u{b7} 0 captured".into(),
            short,
            "Canadian stones",
        );
        assert_eq!(
            browser::eval(&tab, &text_of("infoTime")),
            serde_json::json!("10 min + Canadian 15 stones / 10 min")
        );
        board.send(Event::Move {
            number: 1,
            color: Color::Black,
            point: gtp("D4"),
            captured: vec![],
            clock: None,
        });
        board.send(Event::GameOver(GameEnd::uncounted(
            "B+R",
            EndReason::Resignation,
        )));
        browser::wait_until(
            &tab,
            &text_of("result"),
            "Result: Black wins by resignation (B+R)".into(),
            short,
            "the result, in words",
        );
        // After the end the clocks are neither paused nor counting periods: no "paused".
        assert_eq!(
            browser::eval(&tab, &text_of("subW")),
            serde_json::json!("0 captured")
        );
        assert_eq!(
            browser::eval(&tab, "document.getElementById('sgf').getAttribute('href')"),
            serde_json::json!("game.sgf")
        );
        screenshot(&tab, "board-page-canadian.png");
    });
    checks.await.expect("browser checks");
    server.stop();
}

/// A commentator tries moves from an earlier position: stones go down alternately,
/// captures come off, new game moves arrive meanwhile; "back to game" shows the game as it
/// is, nothing was sent and the feed holds only the board's events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn board_page_variation_leaves_the_game_alone() {
    let Some(path) = browser::chromium() else {
        return;
    };
    let feed = LiveFeed::new();
    let (server, url) = page_server(&feed).await;
    let mut board = Board::new(feed.clone());
    board.send(Event::status(BoardState::Online, "test"));
    board.send(Event::GameStarted(setup("byoyomi 60m 5x30s")));
    // White's D4 is left with one liberty, D3.
    for (n, p) in ["C4", "D4", "E4", "Q16", "D5", "Q4", "R16"]
        .iter()
        .enumerate()
    {
        board.play(n as u32 + 1, p, &[]);
    }
    let checks = tokio::task::spawn_blocking(move || {
        let browser = browser::launch(path);
        let tab = open(&browser, &url);
        let short = Duration::from_secs(2);
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            "move 7 of 7".into(),
            short,
            "moves",
        );
        tab.press_key("ArrowLeft").expect("key");
        browser::wait_until(
            &tab,
            &text_of("navAt"),
            "move 6 of 7".into(),
            short,
            "back one",
        );
        tab.find_element("#varStart")
            .expect("try")
            .click()
            .expect("click");
        // Black to play after White's move 6: D3 takes D4.
        click_board(&tab, "D3");
        browser::wait_until(
            &tab,
            &has_stone("D3", "B"),
            true.into(),
            short,
            "variation stone",
        );
        assert_eq!(
            browser::eval(
                &tab,
                "document.querySelector('.stone[data-point=\"D4\"]') === null"
            ),
            serde_json::json!(true),
            "the capture is applied"
        );
        assert_eq!(
            browser::eval(&tab, &text_of("infoCaptures")),
            serde_json::json!("Black 1, White 0")
        );
        click_board(&tab, "K10");
        browser::wait_until(
            &tab,
            &has_stone("K10", "W"),
            true.into(),
            short,
            "White's turn in the variation",
        );
        click_board(&tab, "D4");
        browser::wait_until(
            &tab,
            &has_stone("D4", "B"),
            true.into(),
            short,
            "Black again",
        );
        assert_eq!(
            browser::eval(
                &tab,
                "document.querySelectorAll('#board .stone.var').length"
            ),
            serde_json::json!(3)
        );
        // The game goes on meanwhile; the variation stays on the board.
        board.play(8, "R4", &[]);
        browser::wait_until(
            &tab,
            "G.moves.length",
            8.into(),
            short,
            "the new move is received",
        );
        assert_eq!(
            browser::eval(&tab, &has_stone("R4", "W")),
            serde_json::json!(false)
        );
        screenshot(&tab, "board-page-variation.png");

        tab.find_element("#varExit")
            .expect("back")
            .click()
            .expect("click");
        browser::wait_until(
            &tab,
            &has_stone("D4", "W"),
            true.into(),
            short,
            "the game's D4 again",
        );
        assert_eq!(
            browser::eval(&tab, &text_of("navAt")),
            serde_json::json!("move 6 of 8")
        );
        for p in ["D3", "K10"] {
            assert_eq!(
                browser::eval(
                    &tab,
                    &format!("document.querySelector('.stone[data-point=\"{p}\"]') === null")
                ),
                serde_json::json!(true),
                "{p} is gone"
            );
        }
        tab.find_element("#navLive")
            .expect("live")
            .click()
            .expect("click");
        browser::wait_until(&tab, &has_stone("R4", "W"), true.into(), short, "live");
        assert_eq!(browser::eval(&tab, STONES), serde_json::json!(8));
        // Nothing reached the board: its feed holds its own 10 events, its state 8 moves.
        assert_eq!(feed.last_seq(), 10);
        assert_eq!(feed.state()["number"], serde_json::json!(8));
        assert_eq!(
            browser::eval(
                &tab,
                "document.getElementById('board').classList.contains('trying')"
            ),
            serde_json::json!(false)
        );
    });
    checks.await.expect("browser checks");
    server.stop();
}

/// The `state` a board with `setup` publishes after `clock`: folded by the protocol's
/// [`GameView`] from the game's events.
fn board_state(board: &str, setup: GameSetup, clock: ClockReading) -> String {
    let mut view = GameView::new();
    let events = [
        Event::GameStarted(setup),
        Event::Move {
            number: 1,
            color: Color::Black,
            point: gtp("Q16"),
            captured: vec![],
            clock: None,
        },
        Event::Clock(clock),
    ];
    let mut at = Timestamp::from_millis(1_795_959_900_000);
    for (i, event) in events.into_iter().enumerate() {
        at = Timestamp::from_millis(at.millis() + 1000);
        let envelope = Envelope {
            seq: i as u64 + 1,
            time: at,
            board: board.into(),
            game: format!("r3-{board}"),
            by: None,
            event,
        };
        view.apply_envelope(&envelope).expect("folds");
    }
    view.snapshot(at).expect("a game").to_value().to_string()
}

/// The hall's overview: long names are shown whole (they wrap, nothing is cut off), and
/// the clocks show the byo-yomi periods or the Canadian stones left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn overview_shows_whole_names_and_periods() {
    use rumqttc::QoS;
    let Some(path) = browser::chromium() else {
        return;
    };
    let Some(mosq) = broker::Mosquitto::start() else {
        return;
    };
    let boards = broker::Subscriber::connect(&mosq.url(), "fake-boards", &["tengen/+/+/cmd"]).await;
    let long_black = "Hon'inbo Shusaku, born Kuwahara Torajiro of Tonoura in Bingo Province";
    let long_white = "Gennan Inseki, eleventh head of the Inoue house";
    let byoyomi = GameSetup {
        black: long_black.into(),
        white: long_white.into(),
        ..setup("byoyomi 60m 5x30s")
    };
    let canadian = setup("canadian 10m 15/10m");
    let reading = |periods: PerColor<u32>| ClockReading {
        color: Some(Color::Black),
        black: 30_000,
        white: 25_000,
        periods,
        running: Some(Color::White),
        paused: Some(false),
    };
    for (board, setup, periods) in [
        ("t01", byoyomi, PerColor { black: 5, white: 3 }),
        (
            "t02",
            canadian,
            PerColor {
                black: 15,
                white: 12,
            },
        ),
    ] {
        let root = format!("tengen/open/{board}");
        let state = board_state(board, setup, reading(periods));
        for (topic, payload) in [
            (format!("{root}/state"), state),
            (
                format!("{root}/status"),
                format!(r#"{{"state":"online","version":"test","board":"{board}"}}"#),
            ),
        ] {
            boards
                .client
                .publish(topic, QoS::AtLeastOnce, true, payload.into_bytes())
                .await
                .expect("publish");
        }
    }
    let hall = tengen_hall::start(
        &mosq.url(),
        "127.0.0.1:0",
        &tengen_hall::HallConfig::default(),
    )
    .await
    .expect("hall starts");
    let url = format!("http://{}/", hall.addr);
    let checks = tokio::task::spawn_blocking(move || {
        let browser = browser::launch(path);
        let tab = open(&browser, &url);
        let card = |board: &str, sel: &str| {
            format!("document.querySelector('.card[data-board=\"{board}\"] {sel}')")
        };
        browser::wait_until(
            &tab,
            &format!(
                "({}?.textContent ?? '').startsWith({})",
                card("t01", ".players"),
                serde_json::json!(long_black)
            ),
            true.into(),
            Duration::from_secs(5),
            "the board's card",
        );
        assert_eq!(
            browser::eval(
                &tab,
                &format!("(() => {{ const e = {}; return e.scrollWidth <= e.clientWidth && getComputedStyle(e).textOverflow !== 'ellipsis'; }})()", card("t01", ".players"))
            ),
            serde_json::json!(true),
            "the names are not cut off"
        );
        assert_eq!(
            browser::eval(&tab, &format!("{}.textContent", card("t01", ".players"))),
            serde_json::json!(format!("{long_black} 4d \u{2013} {long_white} 8d")),
            "the names with their ranks"
        );
        for (board, color, want) in [
            ("t01", "B", "5 periods"),
            ("t01", "W", "3 periods"),
            ("t02", "B", "15 stones"),
            ("t02", "W", "12 stones"),
        ] {
            assert_eq!(
                browser::eval(
                    &tab,
                    &format!(
                        "{}?.textContent ?? ''",
                        card(board, &format!(".clocks [data-color=\"{color}\"] .periods"))
                    )
                ),
                serde_json::json!(want),
                "{board} {color}"
            );
        }
        screenshot(&tab, "overview-names-periods.png");
    });
    checks.await.expect("browser checks");
    hall.stop();
    boards.stop();
}

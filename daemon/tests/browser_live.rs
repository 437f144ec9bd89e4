//! The live page in a real browser (headless Chromium over the DevTools protocol): as a game
//! is played into the board's feed, each new stone, clock change, alert and retraction shows
//! on the page within a second. Screenshots are written under the target directory so a
//! person can look at them.
//!
//! Needs `/usr/bin/chromium` (`apt-get install chromium`). Without it the test says so and
//! passes, except in CI (`TENGEN_REQUIRE_ORACLES=1`), where a missing browser is a failure.

#[path = "support/browser.rs"]
mod browser;

use std::path::PathBuf;
use std::time::Duration;

use headless_chrome::Tab;
use tengen_net::live_view::{router, serve, LiveFeed};
use tengen_protocol::event::{
    Alert, AlertCode, BoardState, ClearedHow, ClockReading, Expected, GameSetup, PerColor,
    RetractReason,
};
use tengen_protocol::{Envelope, Event, Timestamp};
use tengen_rules::clock::TimeControl;
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
    let text = include_str!("../assets/ear-reddening.sgf");
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
        f.send(Event::AlertCleared {
            id: "a1".into(),
            how: ClearedHow::Restored,
        });
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

//! Golden frames: the player displays' faces for real event streams, drawn by `render` and
//! compared pixel for pixel with the PNGs in `tests/fixtures/frames/`.
//!
//! `TENGEN_BLESS=1 cargo test -p tengen-table --test golden_frames` writes the PNGs anew
//! (look at every one before committing them); `TENGEN_FRAMES_PREVIEW=DIR` also writes a
//! copy scaled 4 times into DIR, to look at.

use std::path::PathBuf;

use tengen_protocol::event::{
    Alert, AlertCode, ClockStart, EndReason, Envelope, Expected, GameEnd, GameSetup,
};
use tengen_protocol::view::ClocksNow;
use tengen_protocol::{Event, GameView, Timestamp};
use tengen_rules::clock::{Clock, TimeControl};
use tengen_rules::{Color, Point};
use tengen_table::{glyphs, render, render_in, Face, Lang, MonoFrame};

const T0: u64 = 1_767_225_600_000;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(T0 + ms)
}

fn p(gtp: &str) -> Point {
    tengen_protocol::gtp::parse(gtp).unwrap()
}

/// Points for moves that capture nothing, in the order played.
const OPENING: [&str; 12] = [
    "Q16", "D4", "Q4", "D16", "R10", "C10", "K17", "K3", "O17", "F3", "C6", "R6",
];

/// A board's event stream, built the way the referee writes it: the clocks are a rules
/// clock run beside the stream, and each press is a `clock` event with its reading.
struct Board {
    view: GameView,
    clock: Option<Clock>,
    seq: u64,
    moves: u32,
}

impl Board {
    /// A board with no game yet.
    fn idle() -> Board {
        let mut b = Board {
            view: GameView::new(),
            clock: None,
            seq: 0,
            moves: 0,
        };
        b.event(
            0,
            Event::status(tengen_protocol::event::BoardState::Online, "0.1.0"),
        );
        b
    }

    /// A game of Shusaku (Black) and Gennan (White) under `tc`, Black's clock started at 0.
    fn new(tc: &str) -> Board {
        Board::set_up(tc, ClockStart::Now)
    }

    /// The same game set up with `clock_start` `start`: with `arbiter` or `white`, Black's
    /// clock is started and paused at 0, as the referee does while the game waits.
    fn set_up(tc: &str, start: ClockStart) -> Board {
        Board::with_players(tc, start, ("Shusaku", "4d"), ("Gennan Inseki", "8d"))
    }

    /// A game of `black` and `white`, each a name and a rank, set up as [`Board::set_up`].
    fn with_players(
        tc: &str,
        start: ClockStart,
        black: (&str, &str),
        white: (&str, &str),
    ) -> Board {
        let tc = TimeControl::parse(tc).unwrap();
        let mut b = Board::idle();
        b.event(
            0,
            Event::GameStarted(GameSetup {
                time_control: tc,
                black: black.0.into(),
                white: white.0.into(),
                black_rank: Some(black.1.into()),
                white_rank: Some(white.1.into()),
                round: "3".into(),
                table: "7".into(),
                clock_start: start,
                ..GameSetup::default()
            }),
        );
        if tc != TimeControl::None {
            let mut clock = Clock::new(tc);
            clock.start(Color::Black, T0);
            if !start.is_now() {
                clock.pause(T0);
            }
            let reading = ClocksNow::read(&clock, at(0)).as_event_reading(None);
            b.clock = Some(clock);
            b.event(0, Event::Clock(reading));
        }
        b
    }

    fn event(&mut self, ms: u64, event: Event) {
        self.seq += 1;
        let envelope = Envelope {
            seq: self.seq,
            time: at(ms),
            board: "hall1-07".into(),
            game: "r3-t07".into(),
            by: None,
            event,
        };
        self.view.apply_envelope(&envelope).unwrap();
    }

    /// The side to move sets a stone down at `ms` and presses its clock 1 s later.
    fn play(&mut self, ms: u64) {
        let color = if self.moves % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        self.moves += 1;
        let point = p(OPENING[(self.moves - 1) as usize]);
        let left = self.clock.as_mut().map(|c| {
            c.tick(T0 + ms);
            let now = ClocksNow::read(c, at(ms));
            tengen_protocol::PerColor::new(now.black, now.white)
        });
        self.event(
            ms,
            Event::Move {
                number: self.moves,
                color,
                point,
                captured: vec![],
                clock: left,
            },
        );
        self.press(ms + 1000, color);
    }

    /// `color` presses the clock at `ms`.
    fn press(&mut self, ms: u64, color: Color) {
        if let Some(clock) = self.clock.as_mut() {
            clock.press(color, T0 + ms);
            let reading = ClocksNow::read(clock, at(ms)).as_event_reading(Some(color));
            self.event(ms, Event::Clock(reading));
        }
    }

    /// The arbiter pauses the clocks at `ms`.
    fn pause(&mut self, ms: u64) {
        if let Some(clock) = self.clock.as_mut() {
            clock.pause(T0 + ms);
            let reading = ClocksNow::read(clock, at(ms)).as_event_reading(None);
            self.event(ms, Event::Clock(reading));
        }
    }

    /// The arbiter resumes the clocks at `ms`.
    fn resume(&mut self, ms: u64) {
        if let Some(clock) = self.clock.as_mut() {
            clock.resume(T0 + ms);
            let reading = ClocksNow::read(clock, at(ms)).as_event_reading(None);
            self.event(ms, Event::Clock(reading));
        }
    }

    fn alert(&mut self, ms: u64, code: AlertCode, article: &str, points: &[&str]) {
        let points: Vec<Point> = points.iter().map(|q| p(q)).collect();
        self.event(
            ms,
            Event::Alert(Alert {
                id: format!("a{}", self.seq),
                code,
                article: article.into(),
                color: Some(Color::Black),
                expected: Expected::new(points.iter().map(|&q| (q, None)).collect()),
                points,
                message: "Captured stones are still on the board.".into(),
                late_ms: None,
            }),
        );
    }

    fn face(&self, color: Color, ms: u64) -> Face {
        Face::of(&self.view, color, at(ms))
    }
}

/// Compares `face`'s frame with the fixture `name`.png (writes it under TENGEN_BLESS).
fn check(name: &str, face: &Face) {
    check_in(name, face, Lang::En);
}

/// Compares `face`'s frame in `lang` with the fixture `name`.png.
fn check_in(name: &str, face: &Face, lang: Lang) {
    let frame = render_in(face, lang);
    if lang == Lang::En {
        assert!(frame == render(face), "render is render_in English");
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/frames");
    let path = dir.join(format!("{name}.png"));
    if std::env::var_os("TENGEN_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, frame.to_png(1)).unwrap();
    }
    if let Some(preview) = std::env::var_os("TENGEN_FRAMES_PREVIEW") {
        let preview = PathBuf::from(preview);
        std::fs::create_dir_all(&preview).unwrap();
        std::fs::write(preview.join(format!("{name}.png")), frame.to_png(4)).unwrap();
    }
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (TENGEN_BLESS=1 cargo test -p tengen-table --test golden_frames writes it)",
            path.display()
        )
    });
    let want = MonoFrame::from_png(&bytes).unwrap();
    assert!(
        want == frame,
        "{name}: the frame differs from {}\nface: {face:?}\nwant: {want:?}\ngot: {frame:?}",
        path.display()
    );
}

#[test]
fn no_game() {
    let b = Board::idle();
    check("idle", &b.face(Color::Black, 0));
}

#[test]
fn before_the_first_move_the_names() {
    let b = Board::new("byoyomi 60m 5x60s");
    check("start_black", &b.face(Color::Black, 300));
    check("start_white", &b.face(Color::White, 300));
}

/// OpenGotha's players, ranks as its files write them: a rank is never cut, the name is
/// shortened (marked with a '.') where the line is too narrow for both.
#[test]
fn ranks_are_whole_and_names_give_way() {
    let players = (("Vannier Luc", "12k"), ("Gao Chuande", "3D"));
    let game = |tc| Board::with_players(tc, ClockStart::Now, players.0, players.1);
    // The top bar holds "Vannier Luc 12k" (15 of 18 characters); the bottom line, beside
    // "5x30s", has 11 characters for the opponent: "vs Gao Chu. 3d".
    let b = game("byoyomi 60m 5x30s");
    check("rank_start_black", &b.face(Color::Black, 300));
    // Beside "Sudden death" the opponent would keep no letter of the name: the line is
    // theirs, whole.
    let b = game("absolute 60m");
    check("rank_start_absolute", &b.face(Color::Black, 300));
    // Beside the PAUSED badge, 11 characters: "Gao Chu. 3d".
    let mut b = game("byoyomi 60m 5x30s");
    b.play(30_000);
    b.play(95_000);
    b.pause(400_000);
    check("rank_paused_white", &b.face(Color::White, 500_000));
    // Beside COUNTING, 9 characters (57 px): "Gao C. 3d".
    let mut b = game("byoyomi 60m 5x30s");
    b.play(30_000);
    b.play(60_000);
    b.event(
        90_000,
        Event::Pass {
            number: 3,
            color: Color::Black,
        },
    );
    b.event(
        120_000,
        Event::Pass {
            number: 4,
            color: Color::White,
        },
    );
    b.event(121_000, Event::Counting { dead: vec![] });
    check("rank_counting_white", &b.face(Color::White, 130_000));
}

#[test]
fn waiting_for_the_round_to_begin() {
    // Set up 15 minutes before the round: the names, what play waits for, the full time.
    let b = Board::set_up("byoyomi 60m 5x60s", ClockStart::Arbiter);
    check("waiting_arbiter_black", &b.face(Color::Black, 900_000));
    let b = Board::set_up("byoyomi 60m 5x60s", ClockStart::White);
    check("waiting_white_white", &b.face(Color::White, 900_000));
}

#[test]
fn byoyomi_in_main_time() {
    let mut b = Board::new("byoyomi 60m 5x60s");
    for i in 0..6 {
        b.play(200_000 * (i + 1));
    }
    // Black to move since 1 201 000; 17 min 24.4 s later.
    let now = 1_201_000 + 1_044_400;
    check("byoyomi_main_black", &b.face(Color::Black, now));
    check("byoyomi_main_white", &b.face(Color::White, now));
}

#[test]
fn byoyomi_in_periods() {
    let mut b = Board::new("byoyomi 10m 5x60s");
    b.play(5_000);
    b.play(10_000);
    // Black used 6 s, runs again from 11 s: the base time runs out at 605 s; two periods
    // are used up in full, the third has 42 s left.
    let now = 605_000 + 2 * 60_000 + 18_000;
    let face = b.face(Color::Black, now);
    check("byoyomi_periods", &face);
    // The last period, 7.3 s left.
    let now = 605_000 + 4 * 60_000 + 52_700;
    check("byoyomi_last_period", &b.face(Color::Black, now));
}

#[test]
fn canadian() {
    let mut b = Board::new("canadian 5m 15/10m");
    b.play(1_000);
    b.play(2_000);
    // Black's base time runs out at 301 s; then three stones are played in the first
    // period (12 left).
    let mut t = 304_000;
    for _ in 0..3 {
        b.play(t + 40_000);
        b.play(t + 41_000 + 500);
        t += 43_000;
    }
    check("canadian", &b.face(Color::Black, t + 60_000));
}

#[test]
fn fischer_over_an_hour() {
    let mut b = Board::new("fischer 90m +30s");
    b.play(60_000);
    b.play(120_000);
    b.play(200_000);
    // White to move since 201 s with 90 min + 30 s - 60 s (5370 s): 1:23:45 shown after
    // 5 min 45.5 s.
    check("fischer_white", &b.face(Color::White, 201_000 + 345_500));
}

#[test]
fn absolute() {
    let mut b = Board::new("absolute 30m");
    b.play(754_000);
    b.play(900_000);
    b.play(1_000_000);
    // Black used 855 s (15:45 left); White thinks since 1001 s (25:55 left at 1100 s).
    check("absolute_black_waiting", &b.face(Color::Black, 1_100_000));
    check("absolute_white_running", &b.face(Color::White, 1_100_000));
}

#[test]
fn paused() {
    let mut b = Board::new("byoyomi 60m 5x60s");
    b.play(30_000);
    b.play(95_000);
    b.pause(400_000);
    check("paused_black", &b.face(Color::Black, 900_000));
}

#[test]
fn the_flag() {
    let mut b = Board::new("absolute 10m");
    b.play(30_000);
    b.play(60_000);
    let face = b.face(Color::Black, 700_000);
    check("flag_black", &face);
    check("flag_white", &b.face(Color::White, 700_000));
}

#[test]
fn an_alert_with_points_to_put_right() {
    let mut b = Board::new("byoyomi 60m 5x60s");
    for i in 0..4 {
        b.play(60_000 * (i + 1));
    }
    b.alert(250_000, AlertCode::UncapturedStones, "18.2", &["D4", "E5"]);
    check("alert_points", &b.face(Color::Black, 260_000));
    b.alert(
        251_000,
        AlertCode::BoardDisturbed,
        "17.6",
        &["C3", "C4", "C5", "D3", "D5", "Q16", "R16", "S16"],
    );
    check("alert_many_points", &b.face(Color::White, 260_000));
}

#[test]
fn the_result() {
    let mut b = Board::new("byoyomi 60m 5x60s");
    for i in 0..10 {
        b.play(60_000 * (i + 1));
    }
    b.event(
        700_000,
        Event::GameOver(GameEnd {
            result: "B+1.5".into(),
            reason: EndReason::Count,
            black_area: Some(185.0),
            white_area: Some(176.0),
            dame: Some(0),
            margin_stones: Some(0.75),
            margin_points: Some(1.5),
        }),
    );
    check("result_black", &b.face(Color::Black, 800_000));
    check("result_white", &b.face(Color::White, 800_000));
}

#[test]
fn no_clock() {
    let mut b = Board::new("none");
    for i in 0..7 {
        b.play(10_000 * (i + 1));
    }
    check("no_clock_white", &b.face(Color::White, 90_000));
}

/// Over a stretch of a game sampled every 20 ms, a face differs from the previous one
/// exactly when its frame does: the caller redraws on every change and only then.
#[test]
fn faces_change_exactly_when_frames_do() {
    let mut b = Board::new("byoyomi 1m 3x30s");
    b.play(1_000);
    b.pause(40_000);
    b.resume(60_000);
    let mut last: Option<(Face, MonoFrame)> = None;
    let mut changes = 0;
    let mut t = 20_000;
    while t < 160_000 {
        let face = b.face(Color::White, t);
        let frame = render(&face);
        if let Some((f, fr)) = &last {
            assert_eq!(*f == face, *fr == frame, "at {t} ms: {f:?} / {face:?}");
            changes += usize::from(*f != face);
        }
        last = Some((face, frame));
        t += 20;
    }
    // White's clock ran from 2 s to 40 s and from 60 s on: each shown second and tenth.
    assert!(changes > 100, "{changes}");
}

// --- The faces in Chinese and Japanese -----------------------------------------------------

/// Asserts that every character of `text` is drawn by a glyph of its own: each cell of
/// `text` drawn alone has lit pixels, and none is the 6x10 font's `?` that stands for a
/// glyph no font has.
fn every_glyph_drawn(text: &str, lang: Lang) {
    assert_eq!(glyphs::missing(text), Vec::<char>::new(), "{text}");
    let mut question = MonoFrame::new();
    glyphs::draw(&mut question, "?", 0, 20, true, lang);
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        let mut cell = MonoFrame::new();
        let mut s = [0; 4];
        let after = glyphs::draw(&mut cell, c.encode_utf8(&mut s), 0, 20, true, lang);
        assert_eq!(after, glyphs::advance(c, lang), "{c}");
        assert!(
            cell.lit() >= 3,
            "{c:?} in {text:?}: {} pixels lit",
            cell.lit()
        );
        if c != '?' {
            assert!(cell != question, "{c:?} in {text:?} is drawn as '?'");
        }
    }
}

/// A game of two players of `lang`'s country, set up as [`Board::set_up`].
fn cjk_game(tc: &str, start: ClockStart, black: (&str, &str), white: (&str, &str)) -> Board {
    every_glyph_drawn(black.0, Lang::Zh);
    every_glyph_drawn(white.0, Lang::Zh);
    Board::with_players(tc, start, black, white)
}

/// Ke Jie (Black) and Mi Yuting (White), simplified Chinese: both displays before play,
/// at the start, in periods, paused, at the end.
#[test]
fn chinese_faces() {
    let players = (("柯洁", "9p"), ("芈昱廷", "9p"));
    let b = cjk_game(
        "byoyomi 60m 5x60s",
        ClockStart::Arbiter,
        players.0,
        players.1,
    );
    check_in("zh_waiting_black", &b.face(Color::Black, 900_000), Lang::Zh);
    check_in("zh_waiting_white", &b.face(Color::White, 900_000), Lang::Zh);
    let mut b = cjk_game("byoyomi 10m 5x60s", ClockStart::Now, players.0, players.1);
    check_in("zh_start_black", &b.face(Color::Black, 300), Lang::Zh);
    check_in("zh_start_white", &b.face(Color::White, 300), Lang::Zh);
    b.play(5_000);
    b.play(10_000);
    let now = 605_000 + 2 * 60_000 + 18_000;
    check_in("zh_periods_black", &b.face(Color::Black, now), Lang::Zh);
    check_in("zh_main_white", &b.face(Color::White, now), Lang::Zh);
    let now = 605_000 + 4 * 60_000 + 52_700;
    check_in("zh_last_period_black", &b.face(Color::Black, now), Lang::Zh);
    b.pause(700_000);
    check_in("zh_paused_white", &b.face(Color::White, 710_000), Lang::Zh);
    b.event(
        720_000,
        Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation)),
    );
    check_in("zh_result_black", &b.face(Color::Black, 730_000), Lang::Zh);
    check_in("zh_result_white", &b.face(Color::White, 730_000), Lang::Zh);
}

/// The same players in an English display: the names are drawn, the words are English.
#[test]
fn chinese_names_on_an_english_display() {
    let b = cjk_game(
        "byoyomi 60m 5x60s",
        ClockStart::Now,
        ("柯洁", "9p"),
        ("芈昱廷", "9p"),
    );
    check("en_cjk_start_black", &b.face(Color::Black, 300));
    // The English words are the English frames': only the names differ.
    assert!(render(&b.face(Color::Black, 300)) != render_in(&b.face(Color::Black, 300), Lang::Zh));
}

/// Iyama Yuta (Black) and Ichiriki Ryo (White), Japanese.
#[test]
fn japanese_faces() {
    let players = (("井山裕太", "9p"), ("一力遼", "9p"));
    every_glyph_drawn("井山裕太一力遼", Lang::Ja);
    let b = cjk_game("byoyomi 60m 5x60s", ClockStart::White, players.0, players.1);
    check_in("ja_waiting_black", &b.face(Color::Black, 900_000), Lang::Ja);
    check_in("ja_waiting_white", &b.face(Color::White, 900_000), Lang::Ja);
    let mut b = cjk_game("byoyomi 10m 5x60s", ClockStart::Now, players.0, players.1);
    check_in("ja_start_black", &b.face(Color::Black, 300), Lang::Ja);
    check_in("ja_start_white", &b.face(Color::White, 300), Lang::Ja);
    b.play(5_000);
    b.play(10_000);
    let now = 605_000 + 2 * 60_000 + 18_000;
    check_in("ja_periods_black", &b.face(Color::Black, now), Lang::Ja);
    let mut b = cjk_game("absolute 10m", ClockStart::Now, players.0, players.1);
    b.play(30_000);
    b.play(60_000);
    check_in("ja_flag_black", &b.face(Color::Black, 700_000), Lang::Ja);
}

/// Chou Chun-hsun (Black) and Lai Chun-fu (White), traditional Chinese: 勳, 賴 and 讀 are
/// not in GB2312; they are drawn from the 12-pixel Big5 set like their neighbours.
#[test]
fn traditional_chinese_faces() {
    let players = (("周俊勳", "9p"), ("賴均輔", "9p"));
    every_glyph_drawn("周俊勳賴均輔讀秒", Lang::ZhHant);
    let mut b = cjk_game("byoyomi 10m 5x60s", ClockStart::Now, players.0, players.1);
    check_in(
        "zh_hant_start_black",
        &b.face(Color::Black, 300),
        Lang::ZhHant,
    );
    check_in(
        "zh_hant_start_white",
        &b.face(Color::White, 300),
        Lang::ZhHant,
    );
    b.play(5_000);
    b.play(10_000);
    let now = 605_000 + 2 * 60_000 + 18_000;
    check_in(
        "zh_hant_periods_black",
        &b.face(Color::Black, now),
        Lang::ZhHant,
    );
    b.event(
        700_000,
        Event::GameOver(GameEnd::uncounted("B+T", EndReason::Time)),
    );
    check_in(
        "zh_hant_result_white",
        &b.face(Color::White, 730_000),
        Lang::ZhHant,
    );
}

/// The faces the CJK languages had no frame for: the alert face (Japanese
/// 審判を呼んでください fills 120 of the 128 pixels: no "!" around it), counting, a result
/// by points in each language's unit (8¾子, 17目半), a penalty win (W+F is not 不战而胜),
/// and the traditional Chinese waiting face.
#[test]
fn cjk_alert_counting_points_and_waiting() {
    let players = (("柯洁", "9p"), ("芈昱廷", "3d"));
    for (lang, name) in [
        (Lang::Zh, "zh"),
        (Lang::Ja, "ja"),
        (Lang::ZhHant, "zh_hant"),
    ] {
        let mut b = cjk_game("byoyomi 60m 5x60s", ClockStart::Now, players.0, players.1);
        b.play(5_000);
        b.play(10_000);
        b.alert(11_000, AlertCode::UncapturedStones, "18.2", &["D4", "E5"]);
        check_in(
            &format!("{name}_alert_black"),
            &b.face(Color::Black, 12_000),
            lang,
        );
        let mut b = cjk_game("byoyomi 60m 5x60s", ClockStart::Now, players.0, players.1);
        b.play(5_000);
        b.play(10_000);
        b.event(11_000, Event::Counting { dead: vec![] });
        check_in(
            &format!("{name}_counting_white"),
            &b.face(Color::White, 12_000),
            lang,
        );
        b.event(
            20_000,
            Event::GameOver(GameEnd {
                result: "B+17.5".into(),
                reason: EndReason::Count,
                black_area: Some(189.0),
                white_area: Some(172.0),
                dame: Some(0),
                margin_stones: Some(8.75),
                margin_points: Some(17.5),
            }),
        );
        check_in(
            &format!("{name}_points_black"),
            &b.face(Color::Black, 21_000),
            lang,
        );
    }
    let mut b = cjk_game("byoyomi 60m 5x60s", ClockStart::Now, players.0, players.1);
    b.event(
        20_000,
        Event::GameOver(GameEnd::uncounted("W+F", EndReason::Warnings)),
    );
    check_in("zh_penalty_white", &b.face(Color::White, 21_000), Lang::Zh);
    let b = cjk_game(
        "byoyomi 60m 5x60s",
        ClockStart::Arbiter,
        ("周俊勳", "9p"),
        ("賴均輔", "9p"),
    );
    check_in(
        "zh_hant_waiting_black",
        &b.face(Color::Black, 900_000),
        Lang::ZhHant,
    );
    // The Japanese alert line is whole, and nothing else fits beside it.
    let w = glyphs::width("審判を呼んでください", Lang::Ja);
    assert_eq!(w, 120);
}

// --- The players' check-in and late arrival (Art. 22) -----------------------------------

/// Shusaku (Black) and Gennan (White) at table 7, set up 15 minutes before the round with
/// the players checking in (`late_limit_s` 3600), as a board writes it for `new_game`.
fn checking_in() -> Board {
    let tc = TimeControl::parse("byoyomi 60m 5x60s").unwrap();
    let mut b = Board::idle();
    b.event(
        0,
        Event::GameStarted(GameSetup {
            time_control: tc,
            black: "Shusaku".into(),
            white: "Gennan Inseki".into(),
            black_rank: Some("4d".into()),
            white_rank: Some("8d".into()),
            round: "3".into(),
            table: "7".into(),
            clock_start: ClockStart::Arbiter,
            late_limit_s: Some(3600),
            ..GameSetup::default()
        }),
    );
    let mut clock = Clock::new(tc);
    clock.start(Color::Black, T0);
    clock.pause(T0);
    let reading = ClocksNow::read(&clock, at(0)).as_event_reading(None);
    b.clock = Some(clock);
    b.event(0, Event::Clock(reading));
    b
}

/// Before play begins each face shows the table and asks its player to press their own
/// clock once seated; once checked in, the face says so. Play begins with Black away: their
/// face asks them to press on arrival; arrived 7:12 late, "Late 7:12" and "14:24 taken"
/// (their clock ran the 7:12 and the same again was taken, Art. 22.1) for a minute, in
/// every language.
#[test]
fn players_check_in_and_a_late_arrival_is_said_in_words() {
    let mut b = checking_in();
    check("check_in_black", &b.face(Color::Black, 60_000));
    b.event(
        61_000,
        Event::CheckedIn {
            color: Color::White,
        },
    );
    check("checked_in_white", &b.face(Color::White, 62_000));
    check("check_in_black", &b.face(Color::Black, 62_000));
    for (lang, name) in [
        (Lang::Zh, "zh"),
        (Lang::ZhHant, "zh_hant"),
        (Lang::Ja, "ja"),
    ] {
        check_in(
            &format!("{name}_check_in_black"),
            &b.face(Color::Black, 62_000),
            lang,
        );
        check_in(
            &format!("{name}_checked_in_white"),
            &b.face(Color::White, 62_000),
            lang,
        );
    }
    // Play begins at 15:00 without Black.
    b.resume(900_000);
    check("away_black", &b.face(Color::Black, 960_000));
    // Black sits down and presses 7:12 later: the same again is taken from the base time.
    let (late, arrived) = (432_000, 900_000 + 432_000);
    b.event(
        arrived,
        Event::LateArrival {
            color: Color::Black,
            late_ms: late,
            deducted_ms: late,
        },
    );
    let reading = {
        let clock = b.clock.as_mut().unwrap();
        clock.deduct(Color::Black, late, T0 + arrived);
        ClocksNow::read(clock, at(arrived)).as_event_reading(None)
    };
    b.event(arrived, Event::Clock(reading));
    let face = b.face(Color::Black, arrived + 1_000);
    check("late_black", &face);
    for (lang, name) in [
        (Lang::Zh, "zh"),
        (Lang::ZhHant, "zh_hant"),
        (Lang::Ja, "ja"),
    ] {
        check_in(&format!("{name}_late_black"), &face, lang);
    }
    // A minute later the face is the game's again: the time left is 60:00 less 14:24.
    let later = b.face(Color::Black, arrived + 60_000);
    assert_ne!(later, face);
    match &later.screen {
        tengen_table::face::Screen::Play(p) => {
            assert_eq!(p.seat, None);
            assert_eq!(p.clock.unwrap().time.to_string(), "44:36");
        }
        other => panic!("{other:?}"),
    }
    // The opponent's face never said any of it.
    match &b.face(Color::White, arrived + 1_000).screen {
        tengen_table::face::Screen::Play(p) => assert_eq!(p.seat, None),
        other => panic!("{other:?}"),
    }
}

/// Every word of the face in each language is drawn by its own glyphs.
#[test]
fn every_face_word_has_its_glyphs() {
    for lang in Lang::ALL {
        for id in tengen_table::FACE_MESSAGES {
            let text = tengen_l10n::text(
                lang,
                id,
                &[
                    ("n", "12"),
                    ("period", "60"),
                    ("inc", "5"),
                    ("w", "B"),
                    ("margin", "1.5"),
                    ("s", "8¾"),
                    ("name", "A"),
                ],
            );
            every_glyph_drawn(&text, lang);
        }
    }
}

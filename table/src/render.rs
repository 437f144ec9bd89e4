//! The one pure function from a [`Face`] to the picture: [`render_in`] (and [`render`], its
//! English). The displays, the tablet page, the live page and `tengen sim --clock-frames`
//! all draw with it.
//!
//! The layout of a game face, 128x64, white on black (the words are the English ones; each
//! language's are the `face-*` messages of `l10n/locales/{lang}/clock.ftl`):
//!
//! ```text
//!  rows  0-11  the top bar: the player's stone and name, COUNTING at the right while
//!              counting. Lit (dark text on white) while this player's clock runs; dark
//!              with a lit PAUSED badge while the clocks are paused; lit with
//!              "! CALL ARBITER !" on both faces while an alert is open.
//!  rows 15-46  the time left, in 32 px seven-segment digits (h:mm:ss, m:ss, or 9.7),
//!              centred; a filled triangle at the left edge while this player's clock
//!              runs (outlined while paused: it runs again on resuming). Without a
//!              clock: the move number in the same digits, labelled "Move".
//!  rows 52-63  the bottom line: where the player is in the time control ("then 5x60s",
//!              "3 periods", "LAST PERIOD", "12 stones", "+20s a move", "Sudden death")
//!              and "Move 57" at the right; before the first move "vs <opponent>" and
//!              the overtime in short. Lit with "TIME OUT" once the player's flag fell;
//!              "Fix D4 E5 ..." while an alert names points to put right.
//! ```
//!
//! While a game waits to begin (both clocks stopped until the arbiter's `resume`, or the
//! starting press), the face shows the player's name in the dark top bar, `"vs <opponent>"`,
//! "Waiting for / the arbiter" (or "White starts / the clock") in the middle instead of
//! the time, and the time each player will start with on the bottom line.
//!
//! **Check-in and lateness** (Art. 22, a game whose players check in): until the player
//! checks in, the top bar shows "Table 7" at the right and the middle asks "Press your
//! clock / when seated"; once they have, a lit SEATED badge replaces the table and the
//! middle says what play waits for. A player away when play began reads "Seated? Press
//! clock" on the bottom line; for a minute after a late arrival the top bar says "Late 7:12"
//! in the name's place and the bottom line "14:24 taken" (all the lateness cost them).
//!
//! **Scripts.** Latin-1 is drawn 6x10 pixels a character; Chinese and Japanese characters
//! (names, and the words of the `zh`, `zh-Hant` and `ja` faces) 12 pixels wide and high
//! from WenQuanYi and JIS bitmap fonts (the common traditional characters too), or 10
//! wide for the rare ones of Big5 level 2 ([`crate::glyphs`]). Everything below is measured in pixels, so a line holds 20 Latin
//! characters or 10 CJK ones.
//!
//! **Names and ranks.** The top bar has 111 px for the name (18 Latin characters, 9 CJK),
//! 69 px beside PAUSED, 57 px beside COUNTING; the bottom line has 124 px less the
//! overtime's beside "vs", the waiting face 128. A name and rank that do not fit lose
//! whole characters of the name, marked with a '.', never of the rank: `Gao C. 3D`
//! beside COUNTING, `芈昱. 9p`. Beside the overtime, an opponent who would keep fewer
//! than four characters (or fewer than the whole of a shorter name) gets the whole line
//! (`vs Gao Chuande 3D` with "Sudden death" dropped: the waiting face shows the overtime).
//! Real ranks are at most three characters (`12k`, `3D`, `1p`), so every line keeps them
//! whole.
//!
//! Before any game the face shows "tengen" and the board's id; at the end, the result
//! large with a line saying who won. Drawing allocates nothing: texts are composed in
//! small buffers on the stack, from words read once per language.

use std::fmt::{self, Write as _};

use embedded_graphics::mono_font::iso_8859_1::FONT_10X20;
use embedded_graphics::mono_font::{MonoFont, MonoTextStyle};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::{DrawTarget, Point as Px, Primitive, Size};
use embedded_graphics::primitives::{Circle, PrimitiveStyleBuilder, Rectangle, Triangle};
use embedded_graphics::text::{Baseline, Text};
use embedded_graphics::Drawable;
use tengen_l10n::{Lang, Margin, Rank};
use tengen_rules::{Color, Point};

use crate::face::{ClockFace, Face, Name, Over, Play, Screen, SeatFace, Stage, Waiting};
use crate::frame::{MonoFrame, WIDTH};
use crate::glyphs;
use crate::words::{fill as fill_in, Words};

/// Frame width as drawing coordinates.
const W: i32 = WIDTH as i32;

/// The top bar: rows 0..BAR_H.
const BAR_H: u32 = 12;
/// Top row of the small text in the top bar.
const BAR_TEXT_Y: i32 = 1;
/// Top row of the big digits.
const DIGITS_Y: i32 = 15;
/// The bottom line: rows BOTTOM_Y..64.
const BOTTOM_Y: i32 = 52;
/// Top row of the small text in the bottom line.
const BOTTOM_TEXT_Y: i32 = 53;
/// Left and right margin of the small text.
const MARGIN: i32 = 2;

/// The big digits: seven segments in a DIGIT_W x DIGIT_H box, STROKE thick.
const DIGIT_W: i32 = 16;
const DIGIT_H: i32 = 32;
const STROKE: i32 = 4;
/// Width of ':' and '.'.
const SEP_W: i32 = 4;
/// Space between two big glyphs.
const GAP: i32 = 3;

/// The result at the end and the idle face's title (ASCII: `B+1.5`, `tengen`).
const LARGE: &MonoFont<'static> = &FONT_10X20;

/// Draws `face` with English words: [`render_in`] for [`Lang::En`].
pub fn render(face: &Face) -> MonoFrame {
    render_in(face, Lang::En)
}

/// Draws `face` with `lang`'s words (`[display] lang`): see the module documentation for
/// the layout. Names are drawn as written, in any of the four languages' scripts.
pub fn render_in(face: &Face, lang: Lang) -> MonoFrame {
    let w = Words::of(lang);
    let mut f = MonoFrame::new();
    match &face.screen {
        Screen::Idle { board } => idle(&mut f, w, board),
        Screen::Play(play) => game(&mut f, w, face.color, play),
        Screen::Over(over) => ended(&mut f, w, face.color, over),
    }
    f
}

/// No game yet: "tengen", the board's id, "no game".
fn idle(f: &mut MonoFrame, w: &Words, board: &str) {
    // A corner of the grid with a stone on its centre point: tengen.
    let (cx, cy) = (W / 2, 9);
    for d in [-6, 0, 6] {
        fill(f, cx - 9, cy + d, 19, 1, true);
        fill(f, cx + d, cy - 9, 1, 19, true);
    }
    disc(f, Px::new(cx, cy), 9, Color::White, false);
    large_centred(f, "tengen", 20);
    let board = if board.is_empty() { &w.board } else { board };
    centred(f, w, board, 41, true);
    centred(f, w, &w.no_game, BOTTOM_TEXT_Y, true);
}

/// A game in play.
fn game(f: &mut MonoFrame, w: &Words, color: Color, play: &Play) {
    if let Some(waiting) = play.waiting {
        return waiting_face(f, w, color, play, waiting);
    }
    // The top bar: lit while the player's clock runs, or the alert.
    if play.alert.is_some() {
        fill(f, 0, 0, W, BAR_H as i32, true);
        centred(f, w, &w.call_arbiter, BAR_TEXT_Y, false);
    } else if play.paused {
        // Nobody's clock runs: the bar stays dark, PAUSED stands out lit.
        name_bar(f, w, color, &play.name, Tag::Badge(&w.paused), true);
    } else {
        let running = play.turn;
        if running {
            fill(f, 0, 0, W, BAR_H as i32, true);
        }
        let tag = if play.counting {
            Tag::Text(&w.counting)
        } else {
            Tag::Text("")
        };
        match &play.seat {
            // Just arrived late: how late, in the name's place, for a while.
            Some(SeatFace::Late { late, .. }) => {
                let mut text = Line::new();
                let _ = fill_in(&mut text, &w.late, &[("late", late)]);
                text_bar(f, w, color, text.as_str(), !running);
            }
            _ => name_bar(f, w, color, &play.name, tag, !running),
        }
    }

    // The middle: the time (or the move number without a clock).
    let mut big = Line::new();
    match &play.clock {
        Some(clock) => {
            let _ = write!(big, "{}", clock.time);
        }
        None => {
            let _ = write!(big, "{}", play.moves);
        }
    }
    let width = big_width(big.as_str());
    let x = ((W - width) / 2).max(0);
    big_text(f, big.as_str(), x, DIGITS_Y);
    if play.clock.is_none() {
        // The move number, labelled so that it is not read as a time.
        let label = &w.move_label;
        small(
            f,
            w,
            label,
            x - text_w(w, label) - 4,
            DIGITS_Y + DIGIT_H - 10,
            true,
        );
    }
    if play.turn {
        turn_marker(f, !play.paused);
    }

    // The bottom line.
    let flagged = play.clock.is_some_and(|c| c.flagged);
    let points = play
        .alert
        .as_ref()
        .map(|a| a.points.as_slice())
        .filter(|p| !p.is_empty());
    if flagged {
        time_out(f, w);
    } else if let Some(points) = points {
        fix_line(f, w, points);
    } else {
        match &play.seat {
            Some(SeatFace::Late { taken, .. }) => {
                let mut text = Line::new();
                let _ = fill_in(&mut text, &w.late_taken, &[("taken", taken)]);
                let text = clip_px(w, text.as_str(), W - 2 * MARGIN);
                small(f, w, text, MARGIN, BOTTOM_TEXT_Y, true);
            }
            Some(SeatFace::Away) => {
                let text = clip_px(w, &w.away, W - 2 * MARGIN);
                small(f, w, text, MARGIN, BOTTOM_TEXT_Y, true);
            }
            _ => bottom_line(f, w, color, play),
        }
    }
}

/// A game waiting to begin: the names, what it waits for, the time to start with.
fn waiting_face(f: &mut MonoFrame, w: &Words, color: Color, play: &Play, waiting: Waiting) {
    let mut table = Line::new();
    if play.alert.is_some() {
        fill(f, 0, 0, W, BAR_H as i32, true);
        centred(f, w, &w.call_arbiter, BAR_TEXT_Y, false);
    } else {
        // Checking in: the table at the right, to sit at the right one; checked in: said.
        let tag = match &play.seat {
            Some(SeatFace::CheckIn { table: t }) if !t.is_empty() => {
                let _ = fill_in(&mut table, &w.table, &[("n", &clip(t, usize::MAX))]);
                Tag::Text(table.as_str())
            }
            Some(SeatFace::CheckedIn) => Tag::Badge(&w.checked_in),
            _ => Tag::Text(""),
        };
        name_bar(f, w, color, &play.name, tag, true);
    }
    // Three lines in the middle: 10 pixels apart for Latin text, 12 for CJK words.
    let rows = if w.cjk() {
        [DIGITS_Y, DIGITS_Y + 13, DIGITS_Y + 25]
    } else {
        [DIGITS_Y + 1, DIGITS_Y + 14, DIGITS_Y + 25]
    };
    if let Some(opponent) = &play.opponent {
        let room = W - vs_width(w);
        let mut line = Line::new();
        let name = fit_name(w, shown(w, opponent, color.opponent()), room);
        let _ = fill_in(&mut line, &w.vs, &[("name", &name.as_str())]);
        centred(f, w, line.as_str(), rows[0], true);
    }
    let (first, second) = match waiting {
        // Not checked in yet: asked to press their own clock once seated.
        _ if matches!(play.seat, Some(SeatFace::CheckIn { .. })) => (&w.check_in, &w.check_in_2),
        Waiting::Arbiter => (&w.waiting_arbiter, &w.waiting_arbiter_2),
        Waiting::Press(Color::White) => (&w.starts_white, &w.starts_2),
        Waiting::Press(Color::Black) => (&w.starts_black, &w.starts_2),
    };
    centred(f, w, first, rows[1], true);
    centred(f, w, second, rows[2], true);
    let points = play
        .alert
        .as_ref()
        .map(|a| a.points.as_slice())
        .filter(|p| !p.is_empty());
    if let Some(points) = points {
        fix_line(f, w, points);
        return;
    }
    let Some(clock) = &play.clock else {
        return;
    };
    let mut left = Line::new();
    let _ = write!(left, "{}", clock.time);
    let mut right = Line::new();
    let _ = stage_short(&mut right, w, clock);
    small(f, w, left.as_str(), MARGIN, BOTTOM_TEXT_Y, true);
    let right_w = text_w(w, right.as_str());
    small(
        f,
        w,
        right.as_str(),
        W - MARGIN - right_w,
        BOTTOM_TEXT_Y,
        true,
    );
}

/// What the top bar shows at its right.
#[derive(Clone, Copy)]
enum Tag<'a> {
    /// Plain text.
    Text(&'a str),
    /// Text in a box of the other shade, to stand out.
    Badge(&'a str),
}

/// The stone and the name (shortened to what fits before the tag, the rank kept whole), and
/// the tag at the right; `on` is the colour of the text (false on the lit bar).
fn name_bar(f: &mut MonoFrame, w: &Words, color: Color, name: &Name, tag: Tag<'_>, on: bool) {
    disc(f, Px::new(7, 6), 10, color, !on);
    let (Tag::Text(text) | Tag::Badge(text)) = tag;
    let tag_w = text_w(w, text);
    let tag_x = W - MARGIN - tag_w;
    match tag {
        _ if tag_w == 0 => {}
        Tag::Badge(_) => {
            fill(f, tag_x - 2, 0, W - tag_x + 2, BAR_H as i32, on);
            small(f, w, text, tag_x, BAR_TEXT_Y, !on);
        }
        Tag::Text(_) => small(f, w, text, tag_x, BAR_TEXT_Y, on),
    }
    let name_x = 15;
    let room = if tag_w > 0 { tag_x - 6 } else { W - MARGIN } - name_x;
    let text = fit_name(w, shown(w, name, color), room);
    small(f, w, text.as_str(), name_x, BAR_TEXT_Y, on);
}

/// The stone and `text` in the name's place (cut to the bar), `on` as in [`name_bar`].
fn text_bar(f: &mut MonoFrame, w: &Words, color: Color, text: &str, on: bool) {
    disc(f, Px::new(7, 6), 10, color, !on);
    let name_x = 15;
    let text = clip_px(w, text, W - MARGIN - name_x);
    small(f, w, text, name_x, BAR_TEXT_Y, on);
}

/// A triangle pointing at the time, at the left edge: this player's clock runs (filled),
/// or will run again when the pause ends (outlined).
fn turn_marker(f: &mut MonoFrame, running: bool) {
    let mid = DIGITS_Y + DIGIT_H / 2;
    let style = if running {
        PrimitiveStyleBuilder::new()
            .fill_color(BinaryColor::On)
            .build()
    } else {
        PrimitiveStyleBuilder::new()
            .stroke_color(BinaryColor::On)
            .stroke_width(1)
            .build()
    };
    let _ = Triangle::new(Px::new(0, mid - 9), Px::new(7, mid), Px::new(0, mid + 9))
        .into_styled(style)
        .draw(f);
}

/// The width of "vs " (the `face-vs` message without the name).
fn vs_width(w: &Words) -> i32 {
    let mut vs = Line::new();
    let _ = fill_in(&mut vs, &w.vs, &[("name", &"")]);
    text_w(w, vs.as_str())
}

/// The normal bottom line: the time control's state and the move number, or before the
/// first move the opponent and the overtime.
fn bottom_line(f: &mut MonoFrame, w: &Words, color: Color, play: &Play) {
    let cw = glyphs::advance(' ', w.lang);
    let mut right = Line::new();
    let mut left = Line::new();
    match &play.opponent {
        Some(opponent) => {
            match &play.clock {
                Some(clock) => {
                    let _ = stage_short(&mut right, w, clock);
                }
                None => {
                    let _ = right.write_str(&w.no_clock);
                }
            }
            // The opponent's name beside the overtime, unless that leaves it too short to
            // read: then the line is theirs (the waiting face shows the overtime too).
            let vs = vs_width(w);
            let beside = W - 2 * MARGIN - cw - text_w(w, right.as_str()) - vs;
            let opponent = shown(w, opponent, color.opponent());
            let whole = opponent.name.chars().count();
            let room = if kept(w, opponent, beside) < MIN_NAME.min(whole) {
                right = Line::new();
                W - 2 * MARGIN - vs
            } else {
                beside
            };
            let name = fit_name(w, opponent, room);
            let _ = fill_in(&mut left, &w.vs, &[("name", &name.as_str())]);
        }
        None => match &play.clock {
            Some(clock) => {
                let _ = stage_long(&mut left, w, clock);
                let _ = fill_in(&mut right, &w.move_n, &[("n", &play.moves)]);
            }
            None => {
                let _ = left.write_str(&w.no_clock);
            }
        },
    }
    let right_w = text_w(w, right.as_str());
    let right_x = W - MARGIN - right_w;
    if right_w > 0 {
        small(f, w, right.as_str(), right_x, BOTTOM_TEXT_Y, true);
    }
    let room = if right_w > 0 {
        right_x - cw
    } else {
        W - MARGIN
    } - MARGIN;
    small(
        f,
        w,
        clip_px(w, left.as_str(), room),
        MARGIN,
        BOTTOM_TEXT_Y,
        true,
    );
}

/// Where the player is in the time control, in words.
fn stage_long(out: &mut Line, w: &Words, clock: &ClockFace) -> fmt::Result {
    match clock.stage {
        Stage::Absolute => out.write_str(&w.sudden_death),
        Stage::Fischer { increment_ms } => {
            fill_in(out, &w.fischer, &[("inc", &Dur(increment_ms, w))])
        }
        Stage::ByoyomiMain { periods, period_ms } => fill_in(
            out,
            &w.byoyomi_main,
            &[("n", &periods), ("period", &Dur(period_ms, w))],
        ),
        Stage::Byoyomi { periods_left: 0 } => out.write_str(&w.no_period),
        Stage::Byoyomi { periods_left: 1 } => out.write_str(&w.last_period),
        Stage::Byoyomi { periods_left } => fill_in(out, &w.periods, &[("n", &periods_left)]),
        Stage::CanadianMain { stones, period_ms } => fill_in(
            out,
            &w.canadian_main,
            &[("n", &stones), ("period", &Dur(period_ms, w))],
        ),
        Stage::Canadian { stones_left: 1 } => out.write_str(&w.stones_one),
        Stage::Canadian { stones_left } => fill_in(out, &w.stones, &[("n", &stones_left)]),
    }
}

/// The overtime in short, before the first move.
fn stage_short(out: &mut Line, w: &Words, clock: &ClockFace) -> fmt::Result {
    match clock.stage {
        Stage::Absolute => out.write_str(&w.sudden_death),
        Stage::Fischer { increment_ms } => {
            fill_in(out, &w.fischer_short, &[("inc", &Dur(increment_ms, w))])
        }
        Stage::ByoyomiMain { periods, period_ms } => fill_in(
            out,
            &w.byoyomi_short,
            &[("n", &periods), ("period", &Dur(period_ms, w))],
        ),
        Stage::CanadianMain { stones, period_ms } => fill_in(
            out,
            &w.canadian_short,
            &[("n", &stones), ("period", &Dur(period_ms, w))],
        ),
        _ => stage_long(out, w, clock),
    }
}

/// The flag fell: the bottom line lit, a flag and "TIME OUT".
fn time_out(f: &mut MonoFrame, w: &Words) {
    fill(f, 0, BOTTOM_Y, W, 64 - BOTTOM_Y, true);
    let text = &w.time_out;
    let width = 8 + 4 + text_w(w, text);
    let x = (W - width) / 2;
    // The flag: a pole and a pennant, dark on the lit line.
    fill(f, x, BOTTOM_Y + 2, 1, 9, false);
    let style = PrimitiveStyleBuilder::new()
        .fill_color(BinaryColor::Off)
        .build();
    let _ = Triangle::new(
        Px::new(x + 1, BOTTOM_Y + 2),
        Px::new(x + 8, BOTTOM_Y + 4),
        Px::new(x + 1, BOTTOM_Y + 7),
    )
    .into_styled(style)
    .draw(f);
    small(f, w, text, x + 12, BOTTOM_TEXT_Y, false);
}

/// The points to put right: "Fix D4 E5 Q16 +3", as many as fit.
fn fix_line(f: &mut MonoFrame, w: &Words, points: &[Point]) {
    let room = W - 2 * MARGIN;
    let mut line = Line::new();
    let _ = line.write_str(&w.fix);
    for (i, p) in points.iter().enumerate() {
        let mut word = Line::new();
        let _ = write!(word, " {}", Gtp(*p));
        let rest = points.len() - i - 1;
        // Room for this point, and for " +N" if points still follow it.
        let mut after = Line::new();
        if rest > 0 {
            let _ = write!(after, " +{rest}");
        }
        let need = text_w(w, line.as_str()) + text_w(w, word.as_str()) + text_w(w, after.as_str());
        if need > room {
            let _ = write!(line, " +{}", points.len() - i);
            break;
        }
        let _ = line.write_str(word.as_str());
    }
    small(f, w, line.as_str(), MARGIN, BOTTOM_TEXT_Y, true);
}

/// The end: the result, large, and who won.
fn ended(f: &mut MonoFrame, w: &Words, color: Color, over: &Over) {
    name_bar(f, w, color, &over.name, Tag::Text(""), true);
    large_centred(f, &over.result, 16);
    let mut said = Line::new();
    let _ = say_result(&mut said, w, &over.result);
    centred(f, w, said.as_str(), 38, true);
    small(f, w, &w.game_over, MARGIN, BOTTOM_TEXT_Y, true);
    if over.moves > 0 {
        let mut right = Line::new();
        let _ = fill_in(&mut right, &w.move_n, &[("n", &over.moves)]);
        let x = W - MARGIN - text_w(w, right.as_str());
        small(f, w, right.as_str(), x, BOTTOM_TEXT_Y, true);
    }
}

/// The result in words: "Black wins by 1.5", "黑方胜¾子", "黒の1目半勝ち", "White wins
/// (resign)", "Draw"...
fn say_result(out: &mut Line, w: &Words, result: &str) -> fmt::Result {
    let (winner, how) = match result.split_once('+') {
        Some(("B", how)) => (w.black.as_str(), how),
        Some(("W", how)) => (w.white.as_str(), how),
        _ => {
            return match result {
                "0" | "Draw" | "Jigo" => out.write_str(&w.draw),
                "Void" => out.write_str(&w.void),
                _ => Ok(()),
            }
        }
    };
    let pattern = match how {
        "" => &w.win,
        "R" | "Resign" => &w.win_resign,
        "T" | "Time" => &w.win_time,
        "F" | "Forfeit" => &w.win_forfeit,
        _ => {
            // The margin in the display's unit (`8¾子`, `17目半`, `17.5`); a margin that is
            // not whole half points (typed by hand) as written.
            let mut margin = Short::new();
            match Margin::from_text(how).filter(|m| !m.is_zero()) {
                Some(m) => {
                    let form = match m.form() {
                        "-half-only" => &w.margin_half_only,
                        "-half" => &w.margin_half,
                        "-one" => &w.margin_one,
                        _ => &w.margin,
                    };
                    fill_in(
                        &mut margin,
                        form,
                        &[("n", &m.whole_points()), ("s", &m.stones())],
                    )?;
                }
                None => margin.write_str(how)?,
            }
            return fill_in(out, &w.win_by, &[("w", &winner), ("margin", &margin)]);
        }
    };
    fill_in(out, pattern, &[("w", &winner)])
}

// --- The big digits -------------------------------------------------------------------

/// The segments of each digit: bit 0 = a (top), 1 = b (top right), 2 = c (bottom right),
/// 3 = d (bottom), 4 = e (bottom left), 5 = f (top left), 6 = g (middle).
const SEGMENTS: [u8; 10] = [
    0b011_1111, // 0
    0b000_0110, // 1
    0b101_1011, // 2
    0b100_1111, // 3
    0b110_0110, // 4
    0b110_1101, // 5
    0b111_1101, // 6
    0b000_0111, // 7
    0b111_1111, // 8
    0b110_1111, // 9
];

/// The width `text` takes in big glyphs (digits, ':' and '.'; others are skipped).
fn big_width(text: &str) -> i32 {
    let mut width = 0;
    let mut glyphs = 0;
    for c in text.chars() {
        let w = match c {
            '0'..='9' => DIGIT_W,
            ':' | '.' => SEP_W,
            _ => continue,
        };
        width += w;
        glyphs += 1;
    }
    width + GAP * (glyphs - 1).max(0)
}

/// Draws `text` in big glyphs from (`x`, `y`), the top left.
fn big_text(f: &mut MonoFrame, text: &str, mut x: i32, y: i32) {
    for c in text.chars() {
        match c {
            '0'..='9' => {
                big_digit(f, SEGMENTS[c as usize - '0' as usize], x, y);
                x += DIGIT_W + GAP;
            }
            ':' => {
                let third = DIGIT_H / 3;
                fill(f, x, y + third - STROKE / 2 - 1, SEP_W, STROKE, true);
                fill(f, x, y + 2 * third - STROKE / 2 + 1, SEP_W, STROKE, true);
                x += SEP_W + GAP;
            }
            '.' => {
                fill(f, x, y + DIGIT_H - STROKE, SEP_W, STROKE, true);
                x += SEP_W + GAP;
            }
            _ => {}
        }
    }
}

/// One seven-segment digit in the box at (`x`, `y`).
fn big_digit(f: &mut MonoFrame, segments: u8, x: i32, y: i32) {
    let half = DIGIT_H / 2;
    let upper = half + STROKE / 2;
    let lower_y = half - STROKE / 2;
    // Each segment stops one pixel short of the box's corners: the corners are rounded.
    let rects = [
        (1, 0, DIGIT_W - 2, STROKE),                                // a
        (DIGIT_W - STROKE, 1, STROKE, upper - 1),                   // b
        (DIGIT_W - STROKE, lower_y, STROKE, DIGIT_H - lower_y - 1), // c
        (1, DIGIT_H - STROKE, DIGIT_W - 2, STROKE),                 // d
        (0, lower_y, STROKE, DIGIT_H - lower_y - 1),                // e
        (0, 1, STROKE, upper - 1),                                  // f
        (0, lower_y, DIGIT_W, STROKE),                              // g
    ];
    for (i, (dx, dy, w, h)) in rects.into_iter().enumerate() {
        if segments & (1 << i) != 0 {
            fill(f, x + dx, y + dy, w, h, true);
        }
    }
}

// --- Small pieces ---------------------------------------------------------------------

/// A stone of `color`, `diameter` across, centred on `center`; `on_lit` when drawn on a
/// lit background. A white stone is a lit disc, a black stone a dark one, each with a
/// rim of the other shade so that it shows on either background.
fn disc(f: &mut MonoFrame, center: Px, diameter: u32, color: Color, on_lit: bool) {
    let style = PrimitiveStyleBuilder::new()
        .fill_color(BinaryColor::from(color == Color::White))
        .stroke_color(BinaryColor::from(!on_lit))
        .stroke_width(1)
        .build();
    let _ = Circle::with_center(center, diameter)
        .into_styled(style)
        .draw(f);
}

/// Lights (`on`) or darkens a rectangle.
fn fill(f: &mut MonoFrame, x: i32, y: i32, w: i32, h: i32, on: bool) {
    if w <= 0 || h <= 0 {
        return;
    }
    let area = Rectangle::new(Px::new(x, y), Size::new(w as u32, h as u32));
    let _ = f.fill_solid(&area, BinaryColor::from(on));
}

/// Small text at (`x`, `y`), the top left of its first Latin cell, lit (`on`) or dark.
fn small(f: &mut MonoFrame, w: &Words, text: &str, x: i32, y: i32, on: bool) {
    glyphs::draw(f, clip(text, usize::MAX), x, y, on, w.lang);
}

/// Small text centred across the frame (cut to its width), with its top at `y`.
fn centred(f: &mut MonoFrame, w: &Words, text: &str, y: i32, on: bool) {
    let text = clip_px(w, text, W);
    let width = text_w(w, text);
    glyphs::draw(f, text, (W - width) / 2, y, on, w.lang);
}

/// Large ASCII text (the result, the title) centred across the frame, its top at `y`.
fn large_centred(f: &mut MonoFrame, text: &str, y: i32) {
    let advance = (LARGE.character_size.width + LARGE.character_spacing) as i32;
    let text = clip(text, (W / advance) as usize);
    let width = text.chars().count() as i32 * advance;
    let style = MonoTextStyle::new(LARGE, BinaryColor::On);
    let _ = Text::with_baseline(text, Px::new((W - width) / 2, y), style, Baseline::Top).draw(f);
}

/// The width of small `text` in pixels.
fn text_w(w: &Words, text: &str) -> i32 {
    glyphs::width(text, w.lang)
}

/// The first `chars` characters of `text`, stopping at any control character (a name
/// never breaks the line).
fn clip(text: &str, chars: usize) -> &str {
    let end = text
        .char_indices()
        .enumerate()
        .find(|&(n, (_, c))| n >= chars || c.is_control())
        .map_or(text.len(), |(_, (i, _))| i);
    &text[..end]
}

/// The longest start of `text` of whole characters that is at most `px` pixels wide,
/// stopping at any control character.
fn clip_px<'a>(w: &Words, text: &'a str, px: i32) -> &'a str {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        used += glyphs::advance(c, w.lang);
        if c.is_control() || used > px {
            return &text[..i];
        }
    }
    text
}

/// The fewest characters of a name worth showing beside something else on a line.
const MIN_NAME: usize = 4;

/// A name as drawn: the name (the side's word when the setup names nobody) and the rank in
/// the display's words (`九段`, `3段`, `12级`).
#[derive(Clone, Copy)]
struct Shown<'a> {
    name: &'a str,
    rank: Option<Short>,
}

/// `rank` in the display's words: `9p` is `九段` on a Chinese face, `12k` is `12級` on a
/// Japanese one (`rank-*` of `pages.ftl`); anything else as written.
fn rank_text(w: &Words, rank: &str) -> Short {
    let mut out = Short::new();
    let Some(r) = Rank::parse(rank) else {
        let _ = out.write_str(clip(rank.trim(), usize::MAX));
        return out;
    };
    let pattern = match r {
        Rank::Dan(_) => &w.rank_dan,
        Rank::Kyu(_) => &w.rank_kyu,
        Rank::Pro(_) => &w.rank_pro,
    };
    let numeral = r
        .numeral()
        .then(|| {
            w.rank_numerals
                .split_whitespace()
                .nth(usize::from(r.number()) - 1)
        })
        .flatten();
    let _ = match numeral {
        Some(numeral) => fill_in(&mut out, pattern, &[("n", &numeral)]),
        None => fill_in(&mut out, pattern, &[("n", &r.number())]),
    };
    out
}

/// `name` as `color`'s display draws it.
fn shown<'a>(w: &'a Words, name: &'a Name, color: Color) -> Shown<'a> {
    let base = clip(&name.name, usize::MAX);
    let base = if base.trim().is_empty() {
        match color {
            Color::Black => w.black.as_str(),
            Color::White => w.white.as_str(),
        }
    } else {
        base
    };
    Shown {
        name: base,
        rank: name.rank.as_deref().map(|r| rank_text(w, r)),
    }
}

/// The width of " 3D" (a space and the rank), 0 without a rank.
fn rank_w(w: &Words, name: Shown<'_>) -> i32 {
    name.rank
        .map_or(0, |r| text_w(w, " ") + text_w(w, r.as_str()))
}

/// How many characters of the name [`fit_name`] keeps in `px` pixels (the whole name when
/// it fits with its rank).
fn kept(w: &Words, name: Shown<'_>, px: i32) -> usize {
    let whole = name.name.chars().count();
    if text_w(w, name.name) + rank_w(w, name) <= px {
        return whole;
    }
    // Shortened: the rank and its space, and the '.'.
    let room = px - rank_w(w, name) - text_w(w, ".");
    clip_px(w, name.name, room).chars().count()
}

/// `name` in at most `px` pixels: whole when it fits; else the name shortened by whole
/// characters and marked with a '.', the rank kept whole (`Gao C. 3D`, `芈昱. 9p`). A rank
/// that leaves no room for two characters of the name (free text in a setup, no real rank
/// is that long) is cut with the rest.
fn fit_name(w: &Words, name: Shown<'_>, px: i32) -> Line {
    let mut out = Line::new();
    if text_w(w, name.name) + rank_w(w, name) <= px {
        let _ = out.write_str(name.name);
        if let Some(rank) = name.rank {
            let _ = write!(out, " {rank}");
        }
        return out;
    }
    let room = px - rank_w(w, name) - text_w(w, ".");
    let short = clip_px(w, name.name, room);
    let least = if name.rank.is_some() { 2 } else { 1 };
    if room >= 0 && short.chars().count() >= least {
        let _ = write!(out, "{}.", short.trim_end());
        if let Some(rank) = name.rank {
            let _ = write!(out, " {rank}");
        }
    } else {
        let mut all = Line::new();
        let _ = all.write_str(name.name);
        if let Some(rank) = name.rank {
            let _ = write!(all, " {rank}");
        }
        let _ = out.write_str(clip_px(w, all.as_str(), px));
    }
    out
}

/// A point in GTP notation, written without allocating.
struct Gtp(Point);

impl fmt::Display for Gtp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";
        let col = COLUMNS.get(self.0.col as usize).copied().unwrap_or(b'?');
        write!(f, "{}{}", col as char, u32::from(self.0.row) + 1)
    }
}

/// A duration as the time control is written, in the face's words: `60s`, `10m`, `1h`,
/// `250ms` (`60秒`, `10分`).
struct Dur<'a>(u64, &'a Words);

impl fmt::Display for Dur<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (ms, w) = (self.0, self.1);
        let (n, unit) = if ms >= 3_600_000 && ms % 3_600_000 == 0 {
            (ms / 3_600_000, &w.hours)
        } else if ms > 60_000 && ms % 60_000 == 0 {
            (ms / 60_000, &w.minutes)
        } else if ms % 1000 == 0 {
            (ms / 1000, &w.seconds)
        } else {
            (ms, &w.millis)
        };
        fill_in(f, unit, &[("n", &n)])
    }
}

/// Text composed on the stack, at most `N` bytes; what does not fit is cut at a character.
#[derive(Clone, Copy)]
struct Buf<const N: usize> {
    buf: [u8; N],
    len: usize,
}

/// A line of the face.
type Line = Buf<160>;

/// A few words (a rank).
type Short = Buf<32>;

impl<const N: usize> Buf<N> {
    fn new() -> Buf<N> {
        Buf {
            buf: [0; N],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only whole UTF-8 characters are ever written.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl<const N: usize> fmt::Write for Buf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            let mut tmp = [0; 4];
            let bytes = c.encode_utf8(&mut tmp).as_bytes();
            let end = self.len + bytes.len();
            if end > self.buf.len() {
                return Ok(());
            }
            self.buf[self.len..end].copy_from_slice(bytes);
            self.len = end;
        }
        Ok(())
    }
}

impl<const N: usize> fmt::Display for Buf<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn en() -> &'static Words {
        Words::of(Lang::En)
    }

    #[test]
    fn clips_by_characters_and_pixels() {
        assert_eq!(clip("Shusaku", 3), "Shu");
        assert_eq!(clip("Müller", 2), "Mü");
        assert_eq!(clip("ab\ncd", 10), "ab");
        assert_eq!(clip("ab", 10), "ab");
        assert_eq!(clip("ab", 0), "");
        assert_eq!(clip_px(en(), "Shusaku", 18), "Shu");
        assert_eq!(clip_px(en(), "Shusaku", 23), "Shu");
        assert_eq!(clip_px(en(), "芈昱廷", 24), "芈昱");
        assert_eq!(clip_px(en(), "芈昱廷", 35), "芈昱");
        assert_eq!(clip_px(en(), "ab\ncd", 100), "ab");
    }

    fn name(name: &str, rank: Option<&str>) -> Name {
        Name {
            name: name.into(),
            rank: rank.map(Into::into),
        }
    }

    /// `chars` Latin characters in pixels.
    fn px(chars: i32) -> i32 {
        chars * 6
    }

    #[test]
    fn names_are_shortened_before_ranks() {
        let w = en();
        let fit = |n: &Name, px| {
            fit_name(w, shown(w, n, Color::Black), px)
                .as_str()
                .to_string()
        };
        // English ranks as the EGF writes them: 3d, 12k, 9p.
        let gao = name("Gao Chuande", Some("3D"));
        assert_eq!(fit(&gao, px(18)), "Gao Chuande 3d");
        assert_eq!(fit(&gao, px(14)), "Gao Chuande 3d");
        assert_eq!(fit(&gao, px(13)), "Gao Chuan. 3d");
        // The top bar beside COUNTING: 57 px, 9 characters.
        assert_eq!(fit(&gao, 57), "Gao C. 3d");
        assert_eq!(kept(w, shown(w, &gao, Color::Black), 57), 5);
        let kyu = name("Vannier Luc", Some("12k"));
        assert_eq!(fit(&kyu, px(11)), "Vannie. 12k");
        // Spaces at the cut go: "Gao." not "Gao .".
        assert_eq!(fit(&gao, px(8)), "Gao. 3d");
        assert_eq!(fit(&name("Shusaku", None), px(5)), "Shus.");
        // Too narrow for two letters and the rank, or a rank that is not one: cut as text.
        assert_eq!(fit(&gao, px(4)), "Gao ");
        assert_eq!(
            fit(&name("Ann", Some("a very long rank")), px(10)),
            "Ann a very"
        );
        assert_eq!(fit(&name("Ann\nBob", Some("1p")), px(10)), "Ann 1p");
        // Nobody named: the side, in the display's words.
        assert_eq!(fit(&name("", None), px(10)), "Black");
        let zh = Words::of(Lang::Zh);
        assert_eq!(
            fit_name(zh, shown(zh, &name(" ", None), Color::White), 100).as_str(),
            "白方"
        );
    }

    #[test]
    fn cjk_names_lose_whole_characters_and_keep_the_rank() {
        let w = Words::of(Lang::Zh);
        let fit = |n: &Name, px| {
            fit_name(w, shown(w, n, Color::Black), px)
                .as_str()
                .to_string()
        };
        // A professional's dan in the language's numerals: 九段.
        let mi = name("芈昱廷", Some("9p"));
        // 36 + 6 + 24 = 66 px whole.
        assert_eq!(fit(&mi, 66), "芈昱廷 九段");
        // One pixel less: two characters, the '.', the rank (24 + 6 + 30).
        assert_eq!(fit(&mi, 65), "芈昱. 九段");
        assert_eq!(fit(&mi, 60), "芈昱. 九段");
        // Too narrow for two characters and the rank: cut as text.
        assert_eq!(fit(&mi, 59), "芈昱廷 九");
        assert_eq!(kept(w, shown(w, &mi, Color::Black), 65), 2);
        // Amateur ranks in digits: 3段, 12级; Japanese 12級.
        assert_eq!(fit(&name("柯洁", Some("3d")), 100), "柯洁 3段");
        assert_eq!(fit(&name("柯洁", Some("12K")), 100), "柯洁 12级");
        let ja = Words::of(Lang::Ja);
        assert_eq!(
            fit_name(
                ja,
                shown(ja, &name("一力遼", Some("12k")), Color::Black),
                100
            )
            .as_str(),
            "一力遼 12級"
        );
        // Never half a character: 芈 alone is 12 px.
        assert_eq!(fit(&name("井山裕太", None), 30), "井山.");
    }

    #[test]
    fn h_mm_ss_fits_in_the_width() {
        assert!(big_width("10:00:00") <= W);
        assert_eq!(big_width("9.7"), 2 * DIGIT_W + SEP_W + 2 * GAP);
    }

    fn said(lang: Lang, result: &str) -> String {
        let mut l = Line::new();
        say_result(&mut l, Words::of(lang), result).unwrap();
        l.as_str().to_string()
    }

    #[test]
    fn results_in_words() {
        assert_eq!(said(Lang::En, "B+1.5"), "Black wins by 1.5");
        assert_eq!(said(Lang::En, "W+R"), "White wins (resign)");
        assert_eq!(said(Lang::En, "B+T"), "Black wins on time");
        assert_eq!(said(Lang::En, "0"), "Draw");
        assert_eq!(said(Lang::En, "Void"), "No result");
        assert_eq!(said(Lang::En, "?"), "");
        assert_eq!(said(Lang::En, "W+0.5"), "White wins by 0.5");
        assert_eq!(said(Lang::En, "B+3.3"), "Black wins by 3.3");
        // The Chinese count in stones (Art. 9, 11), the Japanese in 目 and a half.
        assert_eq!(said(Lang::Zh, "B+1.5"), "黑方胜¾子");
        assert_eq!(said(Lang::Zh, "B+17.5"), "黑方胜8¾子");
        assert_eq!(said(Lang::ZhHant, "W+4"), "白方勝2子");
        assert_eq!(said(Lang::Ja, "B+17.5"), "黒の17目半勝ち");
        assert_eq!(said(Lang::Ja, "W+0.5"), "白の半目勝ち");
        assert_eq!(said(Lang::Ja, "W+1"), "白の1目勝ち");
        assert_eq!(said(Lang::Zh, "W+R"), "白方中盘胜");
        assert_eq!(said(Lang::ZhHant, "W+T"), "白方超時勝");
        assert_eq!(said(Lang::Ja, "W+R"), "白の中押し勝ち");
        assert_eq!(said(Lang::Ja, "0"), "持碁");
        // A penalty loss (Art. 24.2) is not a win without play (不战而胜).
        assert_eq!(said(Lang::Zh, "W+F"), "白方胜（对方判负）");
        assert_eq!(said(Lang::ZhHant, "B+F"), "黑方勝（對方判負）");
        assert_eq!(said(Lang::Ja, "W+F"), "白の反則勝ち");
    }

    #[test]
    fn durations_and_points() {
        let d = |ms, lang| Dur(ms, Words::of(lang)).to_string();
        assert_eq!(d(60_000, Lang::En), "60s");
        assert_eq!(d(600_000, Lang::En), "10m");
        assert_eq!(d(3_600_000, Lang::En), "1h");
        assert_eq!(d(250, Lang::En), "250ms");
        assert_eq!(d(60_000, Lang::Zh), "60秒");
        assert_eq!(d(600_000, Lang::Ja), "10分");
        assert_eq!(d(3_600_000, Lang::ZhHant), "1小時");
        assert_eq!(Gtp(Point::new(8, 9)).to_string(), "J10");
    }

    /// Every word of every language fits its place on the face, and has its glyphs.
    #[test]
    fn every_language_s_words_fit_and_are_drawn() {
        for lang in Lang::ALL {
            let w = Words::of(lang);
            for (what, text, room) in [
                ("call the arbiter", w.call_arbiter.as_str(), W),
                // Beside a 4-character name and rank at least.
                ("paused", &w.paused, W - 15 - 6 - 2 - 2 - 48),
                ("counting", &w.counting, W - 15 - 6 - 2 - 48),
                ("waiting", &w.waiting_arbiter, W),
                ("waiting 2", &w.waiting_arbiter_2, W),
                ("starts black", &w.starts_black, W),
                ("starts white", &w.starts_white, W),
                ("starts 2", &w.starts_2, W),
                ("last period", &w.last_period, W - 2 * MARGIN - 48),
                ("no period", &w.no_period, W - 2 * MARGIN - 48),
                ("sudden death", &w.sudden_death, W - 2 * MARGIN - 48),
                ("game over", &w.game_over, W - 2 * MARGIN - 48),
                ("no game", &w.no_game, W),
                ("time out", &w.time_out, W - 12),
                ("no clock", &w.no_clock, W - 2 * MARGIN),
                ("check in", &w.check_in, W),
                ("check in 2", &w.check_in_2, W),
                // Beside a 4-character name and rank at least.
                ("checked in", &w.checked_in, W - 15 - 6 - 2 - 2 - 48),
                ("away", &w.away, W - 2 * MARGIN),
            ] {
                assert!(
                    text_w(w, text) <= room,
                    "{lang} {what}: {text:?} is {} px, room {room}",
                    text_w(w, text)
                );
                assert_eq!(glyphs::missing(text), Vec::<char>::new(), "{lang} {what}");
            }
            // The longest late arrival within the limit: 59:59 late, 1:59:58 taken; the
            // table beside a 4-character name and rank.
            for (what, pattern, arg, value, room) in [
                ("late", &w.late, "late", "59:59", W - 15 - MARGIN),
                ("taken", &w.late_taken, "taken", "1:59:58", W - 2 * MARGIN),
                ("table", &w.table, "n", "999", W - 15 - 6 - 2 - 48),
            ] {
                let mut text = Line::new();
                fill_in(&mut text, pattern, &[(arg, &value)]).unwrap();
                let text = text.as_str();
                assert!(
                    text_w(w, text) <= room,
                    "{lang} {what}: {text:?} is {} px, room {room}",
                    text_w(w, text)
                );
                assert_eq!(glyphs::missing(text), Vec::<char>::new(), "{lang} {what}");
            }
            for result in ["B+1.5", "W+R", "B+T", "W+F", "B+", "0", "Void"] {
                let text = said(lang, result);
                assert!(text_w(w, &text) <= W, "{lang} {result}: {text:?}");
                assert_eq!(
                    glyphs::missing(&text),
                    Vec::<char>::new(),
                    "{lang} {result}"
                );
            }
        }
    }
}

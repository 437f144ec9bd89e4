//! The one pure function from a [`Face`] to the picture: [`render`]. The displays, the
//! tablet page, the live page and `tengen sim --clock-frames` all draw with it.
//!
//! The layout of a game face, 128x64, white on black:
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
//! starting press), the face shows the player's name in the dark top bar, "vs <opponent>",
//! "Waiting for / the arbiter" (or "White starts / the clock") in the middle instead of
//! the time, and the time each player will start with on the bottom line.
//!
//! **Names and ranks.** Small text is 6 px a character: the top bar has 111 px for the name
//! (18 characters), 69 px beside PAUSED (11), 57 px beside COUNTING (9); the bottom line
//! has 19 characters less the overtime's beside "vs", the waiting face 21. A name and rank
//! that do not fit lose letters of the name, marked with a '.', never of the rank:
//! `Gao C. 3D` beside COUNTING. Beside the overtime, an opponent who would keep fewer
//! than four letters gets the whole line (`vs Gao Chuande 3D` with "Sudden death"
//! dropped: the waiting face shows the overtime). Real ranks are at most three characters
//! (`12k`, `3D`, `1p`), so every line keeps them whole.
//!
//! Before any game the face shows "tengen" and the board's id; at the end, the result
//! large with a line saying who won. Drawing allocates nothing: texts are composed in
//! small buffers on the stack.

use std::fmt::{self, Write as _};

use embedded_graphics::mono_font::iso_8859_1::{FONT_10X20, FONT_6X10};
use embedded_graphics::mono_font::{MonoFont, MonoTextStyle};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::{DrawTarget, Point as Px, Primitive, Size};
use embedded_graphics::primitives::{Circle, PrimitiveStyleBuilder, Rectangle, Triangle};
use embedded_graphics::text::{Baseline, Text};
use embedded_graphics::Drawable;
use tengen_rules::{Color, Point};

use crate::face::{ClockFace, Face, Name, Over, Play, Screen, Stage, Waiting};
use crate::frame::{MonoFrame, WIDTH};

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

/// Small text: 6x10 pixels a character, Latin-1 (names with accents draw as written).
const SMALL: &MonoFont<'static> = &FONT_6X10;
/// The result at the end and the idle face's title.
const LARGE: &MonoFont<'static> = &FONT_10X20;

/// Draws `face`: see the module documentation for the layout.
pub fn render(face: &Face) -> MonoFrame {
    let mut f = MonoFrame::new();
    match &face.screen {
        Screen::Idle { board } => idle(&mut f, board),
        Screen::Play(play) => game(&mut f, face.color, play),
        Screen::Over(over) => ended(&mut f, face.color, over),
    }
    f
}

/// No game yet: "tengen", the board's id, "no game".
fn idle(f: &mut MonoFrame, board: &str) {
    // A corner of the grid with a stone on its centre point: tengen.
    let (cx, cy) = (W / 2, 9);
    for d in [-6, 0, 6] {
        fill(f, cx - 9, cy + d, 19, 1, true);
        fill(f, cx + d, cy - 9, 1, 19, true);
    }
    disc(f, Px::new(cx, cy), 9, Color::White, false);
    centred(f, LARGE, "tengen", 20, true);
    let board = if board.is_empty() { "board" } else { board };
    centred(f, SMALL, board, 41, true);
    centred(f, SMALL, "no game", BOTTOM_TEXT_Y, true);
}

/// A game in play.
fn game(f: &mut MonoFrame, color: Color, play: &Play) {
    if let Some(waiting) = play.waiting {
        return waiting_face(f, color, play, waiting);
    }
    // The top bar: lit while the player's clock runs, or the alert.
    if play.alert.is_some() {
        fill(f, 0, 0, W, BAR_H as i32, true);
        centred(f, SMALL, "! CALL ARBITER !", BAR_TEXT_Y, false);
    } else if play.paused {
        // Nobody's clock runs: the bar stays dark, PAUSED stands out lit.
        name_bar(f, color, &play.name, Tag::Badge("PAUSED"), true);
    } else {
        let running = play.turn;
        if running {
            fill(f, 0, 0, W, BAR_H as i32, true);
        }
        let tag = if play.counting {
            Tag::Text("COUNTING")
        } else {
            Tag::Text("")
        };
        name_bar(f, color, &play.name, tag, !running);
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
        small(
            f,
            "Move",
            x - 4 * char_w(SMALL) - 4,
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
        time_out(f);
    } else if let Some(points) = points {
        fix_line(f, points);
    } else {
        bottom_line(f, play);
    }
}

/// A game waiting to begin: the names, what it waits for, the time to start with.
fn waiting_face(f: &mut MonoFrame, color: Color, play: &Play, waiting: Waiting) {
    if play.alert.is_some() {
        fill(f, 0, 0, W, BAR_H as i32, true);
        centred(f, SMALL, "! CALL ARBITER !", BAR_TEXT_Y, false);
    } else {
        name_bar(f, color, &play.name, Tag::Text(""), true);
    }
    if let Some(opponent) = &play.opponent {
        let mut line = Line::new();
        let vs = "vs ".len();
        let room = chars_in(W).saturating_sub(vs);
        let _ = write!(line, "vs {}", fit_name(opponent, room).as_str());
        centred(f, SMALL, line.as_str(), DIGITS_Y + 1, true);
    }
    let (first, second) = match waiting {
        Waiting::Arbiter => ("Waiting for", "the arbiter"),
        Waiting::Press(Color::White) => ("White starts", "the clock"),
        Waiting::Press(Color::Black) => ("Black starts", "the clock"),
    };
    centred(f, SMALL, first, DIGITS_Y + 14, true);
    centred(f, SMALL, second, DIGITS_Y + 25, true);
    let points = play
        .alert
        .as_ref()
        .map(|a| a.points.as_slice())
        .filter(|p| !p.is_empty());
    if let Some(points) = points {
        fix_line(f, points);
        return;
    }
    let Some(clock) = &play.clock else {
        return;
    };
    let mut left = Line::new();
    let _ = write!(left, "{}", clock.time);
    let mut right = Line::new();
    let _ = stage_short(&mut right, clock);
    small(f, left.as_str(), MARGIN, BOTTOM_TEXT_Y, true);
    let right_chars = right.as_str().chars().count() as i32;
    small(
        f,
        right.as_str(),
        W - MARGIN - right_chars * char_w(SMALL),
        BOTTOM_TEXT_Y,
        true,
    );
}

/// What the top bar shows at its right.
#[derive(Clone, Copy)]
enum Tag {
    /// Plain text.
    Text(&'static str),
    /// Text in a box of the other shade, to stand out.
    Badge(&'static str),
}

/// The stone and the name (shortened to what fits before the tag, the rank kept whole), and
/// the tag at the right; `on` is the colour of the text (false on the lit bar).
fn name_bar(f: &mut MonoFrame, color: Color, name: &Name, tag: Tag, on: bool) {
    disc(f, Px::new(7, 6), 10, color, !on);
    let (Tag::Text(text) | Tag::Badge(text)) = tag;
    let tag_chars = text.chars().count() as i32;
    let tag_x = W - MARGIN - tag_chars * char_w(SMALL);
    match tag {
        _ if tag_chars == 0 => {}
        Tag::Badge(_) => {
            fill(f, tag_x - 2, 0, W - tag_x + 2, BAR_H as i32, on);
            small(f, text, tag_x, BAR_TEXT_Y, !on);
        }
        Tag::Text(_) => small(f, text, tag_x, BAR_TEXT_Y, on),
    }
    let name_x = 15;
    let room = if tag_chars > 0 { tag_x - 6 } else { W - MARGIN } - name_x;
    let text = fit_name(name, chars_in(room));
    small(f, text.as_str(), name_x, BAR_TEXT_Y, on);
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

/// The normal bottom line: the time control's state and the move number, or before the
/// first move the opponent and the overtime.
fn bottom_line(f: &mut MonoFrame, play: &Play) {
    let cw = char_w(SMALL);
    let mut right = Line::new();
    let mut left = Line::new();
    match &play.opponent {
        Some(opponent) => {
            match &play.clock {
                Some(clock) => {
                    let _ = stage_short(&mut right, clock);
                }
                None => {
                    let _ = right.write_str("No clock");
                }
            }
            // The opponent's name beside the overtime, unless that leaves it too short to
            // read: then the line is theirs (the waiting face shows the overtime too).
            let vs = "vs ".len();
            let beside = chars_in(W - 2 * MARGIN - cw)
                .saturating_sub(right.len())
                .saturating_sub(vs);
            let room = if kept(opponent, beside) < MIN_NAME.min(opponent.name.chars().count()) {
                right = Line::new();
                chars_in(W - 2 * MARGIN) - vs
            } else {
                beside
            };
            let _ = write!(left, "vs {}", fit_name(opponent, room).as_str());
        }
        None => match &play.clock {
            Some(clock) => {
                let _ = stage_long(&mut left, clock);
                let _ = write!(right, "Move {}", play.moves);
            }
            None => {
                let _ = left.write_str("No clock");
            }
        },
    }
    let right_chars = right.as_str().chars().count() as i32;
    let right_x = W - MARGIN - right_chars * cw;
    if right_chars > 0 {
        small(f, right.as_str(), right_x, BOTTOM_TEXT_Y, true);
    }
    let room = if right_chars > 0 {
        right_x - cw
    } else {
        W - MARGIN
    } - MARGIN;
    small(
        f,
        clip(left.as_str(), room / cw),
        MARGIN,
        BOTTOM_TEXT_Y,
        true,
    );
}

/// Where the player is in the time control, in words.
fn stage_long(out: &mut Line, clock: &ClockFace) -> fmt::Result {
    match clock.stage {
        Stage::Absolute => out.write_str("Sudden death"),
        Stage::Fischer { increment_ms } => write!(out, "+{} a move", Dur(increment_ms)),
        Stage::ByoyomiMain { periods, period_ms } => {
            write!(out, "then {periods}x{}", Dur(period_ms))
        }
        Stage::Byoyomi { periods_left: 0 } => out.write_str("No period"),
        Stage::Byoyomi { periods_left: 1 } => out.write_str("LAST PERIOD"),
        Stage::Byoyomi { periods_left } => write!(out, "{periods_left} periods"),
        Stage::CanadianMain { stones, period_ms } => {
            write!(out, "then {stones}/{}", Dur(period_ms))
        }
        Stage::Canadian { stones_left: 1 } => out.write_str("1 stone"),
        Stage::Canadian { stones_left } => write!(out, "{stones_left} stones"),
    }
}

/// The overtime in short, before the first move.
fn stage_short(out: &mut Line, clock: &ClockFace) -> fmt::Result {
    match clock.stage {
        Stage::Absolute => out.write_str("Sudden death"),
        Stage::Fischer { increment_ms } => write!(out, "+{}", Dur(increment_ms)),
        Stage::ByoyomiMain { periods, period_ms } => write!(out, "{periods}x{}", Dur(period_ms)),
        Stage::CanadianMain { stones, period_ms } => write!(out, "{stones}/{}", Dur(period_ms)),
        _ => stage_long(out, clock),
    }
}

/// The flag fell: the bottom line lit, a flag and "TIME OUT".
fn time_out(f: &mut MonoFrame) {
    fill(f, 0, BOTTOM_Y, W, 64 - BOTTOM_Y, true);
    let text = "TIME OUT";
    let width = 8 + 4 + text.len() as i32 * char_w(SMALL);
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
    small(f, text, x + 12, BOTTOM_TEXT_Y, false);
}

/// The points to put right: "Fix D4 E5 Q16 +3", as many as fit.
fn fix_line(f: &mut MonoFrame, points: &[Point]) {
    let room = ((W - 2 * MARGIN) / char_w(SMALL)) as usize;
    let mut line = Line::new();
    let _ = line.write_str("Fix");
    for (i, p) in points.iter().enumerate() {
        let mut word = Line::new();
        let _ = write!(word, " {}", Gtp(*p));
        let rest = points.len() - i - 1;
        // Room for this point, and for "+N" if points still follow it.
        let after = if rest > 0 { 2 + digits(rest) } else { 0 };
        if line.len() + word.len() + after > room {
            let _ = write!(line, " +{}", points.len() - i);
            break;
        }
        let _ = line.write_str(word.as_str());
    }
    small(f, line.as_str(), MARGIN, BOTTOM_TEXT_Y, true);
}

/// The end: the result, large, and who won.
fn ended(f: &mut MonoFrame, color: Color, over: &Over) {
    name_bar(f, color, &over.name, Tag::Text(""), true);
    centred(f, LARGE, &over.result, 16, true);
    let mut said = Line::new();
    let _ = say_result(&mut said, &over.result);
    centred(f, SMALL, said.as_str(), 38, true);
    small(f, "Game over", MARGIN, BOTTOM_TEXT_Y, true);
    if over.moves > 0 {
        let mut right = Line::new();
        let _ = write!(right, "Move {}", over.moves);
        let x = W - MARGIN - right.len() as i32 * char_w(SMALL);
        small(f, right.as_str(), x, BOTTOM_TEXT_Y, true);
    }
}

/// The result in words: "Black wins by 1.5", "White wins (resign)", "Draw"...
fn say_result(out: &mut Line, result: &str) -> fmt::Result {
    let (winner, how) = match result.split_once('+') {
        Some(("B", how)) => ("Black", how),
        Some(("W", how)) => ("White", how),
        _ => {
            return match result {
                "0" | "Draw" | "Jigo" => out.write_str("Draw"),
                "Void" => out.write_str("No result"),
                _ => Ok(()),
            }
        }
    };
    match how {
        "" => write!(out, "{winner} wins"),
        "R" | "Resign" => write!(out, "{winner} wins (resign)"),
        "T" | "Time" => write!(out, "{winner} wins on time"),
        "F" | "Forfeit" => write!(out, "{winner} wins (forfeit)"),
        margin => write!(out, "{winner} wins by {margin}"),
    }
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

/// Small text at (`x`, `y`), the top left, lit (`on`) or dark.
fn small(f: &mut MonoFrame, text: &str, x: i32, y: i32, on: bool) {
    write_text(f, SMALL, text, x, y, on);
}

/// Text in `font`, centred across the frame, with its top at `y`.
fn centred(f: &mut MonoFrame, font: &MonoFont<'static>, text: &str, y: i32, on: bool) {
    let text = clip(text, W / char_w(font));
    let width = text.chars().count() as i32 * char_w(font);
    write_text(f, font, text, (W - width) / 2, y, on);
}

fn write_text(f: &mut MonoFrame, font: &MonoFont<'static>, text: &str, x: i32, y: i32, on: bool) {
    let style = MonoTextStyle::new(font, BinaryColor::from(on));
    let _ = Text::with_baseline(text, Px::new(x, y), style, Baseline::Top).draw(f);
}

/// A character's advance in `font`.
fn char_w(font: &MonoFont<'static>) -> i32 {
    (font.character_size.width + font.character_spacing) as i32
}

/// The first `chars` characters of `text`, stopping at any control character (a name
/// never breaks the line).
fn clip(text: &str, chars: i32) -> &str {
    let chars = chars.max(0) as usize;
    let end = text
        .char_indices()
        .enumerate()
        .find(|&(n, (_, c))| n >= chars || c.is_control())
        .map_or(text.len(), |(_, (i, _))| i);
    &text[..end]
}

/// The fewest characters of a name worth showing beside something else on a line.
const MIN_NAME: usize = 4;

/// How many small characters fit in `px` pixels.
fn chars_in(px: i32) -> usize {
    (px.max(0) / char_w(SMALL)) as usize
}

/// How many characters of `name.name` [`fit_name`] keeps in `chars` (the whole name when
/// it fits with its rank).
fn kept(name: &Name, chars: usize) -> usize {
    let whole = clip(&name.name, i32::MAX).chars().count();
    let rank = name
        .rank
        .as_deref()
        .map_or(0, |r| clip(r, i32::MAX).chars().count() + 1);
    if whole + rank <= chars {
        return whole;
    }
    // Shortened: the rank and its space, and one character for the '.'.
    chars.saturating_sub(rank + 1).min(whole)
}

/// `name` in at most `chars` characters: whole when it fits; else the name shortened and
/// marked with a '.', the rank kept whole (`Gao C. 3D`). A rank that leaves no room for
/// two characters of the name (free text in a setup, no real rank is that long) is cut
/// with the rest.
fn fit_name(name: &Name, chars: usize) -> Line {
    let mut out = Line::new();
    let base = clip(&name.name, i32::MAX);
    let rank = name.rank.as_deref().map(|r| clip(r, i32::MAX));
    let whole = base.chars().count() + rank.map_or(0, |r| r.chars().count() + 1);
    if whole <= chars {
        let _ = out.write_str(base);
        if let Some(rank) = rank {
            let _ = write!(out, " {rank}");
        }
        return out;
    }
    let rank_room = rank.map_or(0, |r| r.chars().count() + 1);
    match chars.checked_sub(rank_room + 1) {
        Some(room) if room >= 2 || (rank.is_none() && room >= 1) => {
            let short = clip(base, room as i32).trim_end();
            let _ = write!(out, "{short}.");
            if let Some(rank) = rank {
                let _ = write!(out, " {rank}");
            }
        }
        _ => {
            let mut all = Line::new();
            let _ = all.write_str(base);
            if let Some(rank) = rank {
                let _ = write!(all, " {rank}");
            }
            let _ = out.write_str(clip(all.as_str(), chars as i32));
        }
    }
    out
}

/// Decimal digits of `n`.
fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
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

/// A duration as the time control is written: `60s`, `10m`, `1h`, `250ms`.
struct Dur(u64);

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0;
        if ms >= 3_600_000 && ms % 3_600_000 == 0 {
            write!(f, "{}h", ms / 3_600_000)
        } else if ms > 60_000 && ms % 60_000 == 0 {
            write!(f, "{}m", ms / 60_000)
        } else if ms % 1000 == 0 {
            write!(f, "{}s", ms / 1000)
        } else {
            write!(f, "{ms}ms")
        }
    }
}

/// A line of text composed on the stack; what does not fit is cut at a character.
struct Line {
    buf: [u8; 64],
    len: usize,
}

impl Line {
    fn new() -> Line {
        Line {
            buf: [0; 64],
            len: 0,
        }
    }

    fn as_str(&self) -> &str {
        // Only whole UTF-8 characters are ever written.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }

    /// Length in characters.
    fn len(&self) -> usize {
        self.as_str().chars().count()
    }
}

impl fmt::Write for Line {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_by_characters() {
        assert_eq!(clip("Shusaku", 3), "Shu");
        assert_eq!(clip("Müller", 2), "Mü");
        assert_eq!(clip("ab\ncd", 10), "ab");
        assert_eq!(clip("ab", 10), "ab");
        assert_eq!(clip("ab", -1), "");
    }

    fn name(name: &str, rank: Option<&str>) -> Name {
        Name {
            name: name.into(),
            rank: rank.map(Into::into),
        }
    }

    #[test]
    fn names_are_shortened_before_ranks() {
        let fit = |n: &Name, chars| fit_name(n, chars).as_str().to_string();
        let gao = name("Gao Chuande", Some("3D"));
        assert_eq!(fit(&gao, 18), "Gao Chuande 3D");
        assert_eq!(fit(&gao, 14), "Gao Chuande 3D");
        assert_eq!(fit(&gao, 13), "Gao Chuan. 3D");
        // The top bar beside COUNTING: 57 px, 9 characters.
        assert_eq!(fit(&gao, chars_in(57)), "Gao C. 3D");
        assert_eq!(kept(&gao, 9), 5);
        let kyu = name("Vannier Luc", Some("12k"));
        assert_eq!(fit(&kyu, 11), "Vannie. 12k");
        // Spaces at the cut go: "Gao." not "Gao .".
        assert_eq!(fit(&gao, 8), "Gao. 3D");
        assert_eq!(fit(&name("Shusaku", None), 5), "Shus.");
        // Too narrow for two letters and the rank, or a rank that is not one: cut as text.
        assert_eq!(fit(&gao, 4), "Gao ");
        assert_eq!(
            fit(&name("Ann", Some("a very long rank")), 10),
            "Ann a very"
        );
        assert_eq!(fit(&name("Ann\nBob", Some("1p")), 10), "Ann 1p");
    }

    #[test]
    fn h_mm_ss_fits_in_the_width() {
        assert!(big_width("10:00:00") <= W);
        assert_eq!(big_width("9.7"), 2 * DIGIT_W + SEP_W + 2 * GAP);
    }

    #[test]
    fn results_in_words() {
        let said = |r: &str| {
            let mut l = Line::new();
            say_result(&mut l, r).unwrap();
            l.as_str().to_string()
        };
        assert_eq!(said("B+1.5"), "Black wins by 1.5");
        assert_eq!(said("W+R"), "White wins (resign)");
        assert_eq!(said("B+T"), "Black wins on time");
        assert_eq!(said("0"), "Draw");
        assert_eq!(said("Void"), "No result");
        assert_eq!(said("?"), "");
    }

    #[test]
    fn durations_and_points() {
        assert_eq!(Dur(60_000).to_string(), "60s");
        assert_eq!(Dur(600_000).to_string(), "10m");
        assert_eq!(Dur(3_600_000).to_string(), "1h");
        assert_eq!(Dur(250).to_string(), "250ms");
        assert_eq!(Gtp(Point::new(8, 9)).to_string(), "J10");
    }
}

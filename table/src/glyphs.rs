//! Small text on the displays in any script: Latin-1 in the 6x10 font the faces have always
//! used (so digits, ranks and Go notation look the same in every language), everything
//! else from U8g2's CJK bitmap fonts ([`u8g2_fonts`]), tried in an order that suits the
//! display's language:
//!
//! - `u8g2_font_wqy12_t_gb2312` (WenQuanYi 12 px): all 6,763 hanzi of GB2312, kana;
//! - `u8g2_font_b12_t_japanese3` (12 px): kana and the JIS X 0208 level 1 kanji (黒, 読,
//!   対, and many traditional forms: 勳, 誠, 暫, 時, 還, 後);
//! - WenQuanYi 12 px for Big5 level 1 (`BIG5_12`, `fonts/wqy12_big5.bin`, written by
//!   `table/tools/big5_12.py` from the same WenQuanYi Bitmap Song): the 2,073 common
//!   traditional characters GB2312 lacks (讀, 對, 數, 賴, 勳), at the size of the others;
//! - `u8g2_font_boutique_bitmap_9x9_t_all` (9 px, 12,406 glyphs): every Big5 hanzi and
//!   JIS X 0208 kanji, so the rarer characters no 12 px font here has (Big5 level 2) are
//!   drawn, smaller, rather than missed.
//!
//! Simplified Chinese (and English) tries WenQuanYi first, Japanese the JIS font first (its
//! kanji have the Japanese shapes), traditional Chinese the Big5 set first, then WenQuanYi
//! (Chinese shapes throughout), then the JIS font. A character no font has is drawn as the 6x10 font's `?`
//! and reported by [`missing`]; [`drawable`] says whether a character has a glyph.
//!
//! Coordinates: `y` is the top of the 6x10 cell, as the faces have always placed their
//! small text; a CJK glyph sits on the baseline `y + 9`, 12 pixels high from `y - 1`.

use embedded_graphics::mono_font::iso_8859_1::FONT_6X10;
use embedded_graphics::mono_font::{MonoFont, MonoTextStyle};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::Point as Px;
use embedded_graphics::text::{Baseline, Text};
use embedded_graphics::Drawable;
use tengen_l10n::Lang;
use u8g2_fonts::types::{FontColor, VerticalPosition};
use u8g2_fonts::{fonts, FontRenderer};

use crate::frame::MonoFrame;

/// The Latin-1 font: 6x10 pixels a character.
pub(crate) const LATIN: &MonoFont<'static> = &FONT_6X10;

/// WenQuanYi 12 px, GB2312.
static WQY12: FontRenderer = FontRenderer::new::<fonts::u8g2_font_wqy12_t_gb2312>();
/// 12 px, JIS X 0208 level 1.
static JIS12: FontRenderer = FontRenderer::new::<fonts::u8g2_font_b12_t_japanese3>();
/// Boutique bitmap 9x9, Big5 and JIS X 0208 whole.
static ALL9: FontRenderer = FontRenderer::new::<fonts::u8g2_font_boutique_bitmap_9x9_t_all>();

/// Where a CJK glyph's baseline is below the top of the 6x10 cell.
const CJK_BASELINE: i32 = 9;

/// WenQuanYi Bitmap Song 12 px, the Big5 level 1 hanzi that GB2312 lacks (see
/// `table/tools/big5_12.py` for the format): every glyph 11x11 on the baseline's row and
/// above, 12 px apart.
static BIG5_12: &[u8] = include_bytes!("fonts/wqy12_big5.bin");
const BIG5_W: u32 = 11;
const BIG5_H: usize = 11;
const BIG5_ADVANCE: i32 = 12;

/// The number of glyphs in [`BIG5_12`] (0 if its header is not the expected one).
fn big5_count() -> usize {
    match BIG5_12 {
        [b'T', b'G', b'F', b'1', lo, hi, ..] => usize::from(u16::from_le_bytes([*lo, *hi])),
        _ => 0,
    }
}

/// The index of `c` in [`BIG5_12`], by binary search of its code points.
fn big5_index(c: char) -> Option<usize> {
    let n = big5_count();
    let at = |i: usize| {
        let o = 6 + 4 * i;
        BIG5_12
            .get(o..o + 4)
            .map_or(u32::MAX, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match at(mid).cmp(&u32::from(c)) {
            std::cmp::Ordering::Equal => return Some(mid),
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    None
}

/// Draws glyph `i` of [`BIG5_12`] with its baseline at `baseline` (the row the glyph's
/// bottom row sits on), from column `x`: its lit pixels in `color`.
fn big5_draw(f: &mut MonoFrame, i: usize, x: i32, baseline: i32, color: bool) {
    let start = 6 + 4 * big5_count() + 2 * BIG5_H * i;
    let Some(rows) = BIG5_12.get(start..start + 2 * BIG5_H) else {
        return;
    };
    for (r, row) in rows.chunks_exact(2).enumerate() {
        let bits = u16::from_be_bytes([row[0], row[1]]);
        // The bottom row is on the baseline's row; the top one 10 rows above it.
        let y = baseline - (BIG5_H as i32 - 1) + r as i32;
        for col in 0..BIG5_W {
            if bits & (0x8000 >> col) != 0 {
                let px = x + col as i32;
                if px >= 0 && y >= 0 {
                    f.set_pixel(px as u32, y as u32, color);
                }
            }
        }
    }
}

/// A CJK font the displays draw with.
#[derive(Clone, Copy)]
enum Font {
    /// One of U8g2's.
    U8g2(&'static FontRenderer),
    /// [`BIG5_12`].
    Big5,
}

/// The CJK fonts in the order `lang` tries them.
fn cjk_fonts(lang: Lang) -> [Font; 4] {
    use Font::{Big5, U8g2};
    match lang {
        Lang::En | Lang::Zh => [U8g2(&WQY12), U8g2(&JIS12), Big5, U8g2(&ALL9)],
        Lang::Ja => [U8g2(&JIS12), U8g2(&WQY12), Big5, U8g2(&ALL9)],
        Lang::ZhHant => [Big5, U8g2(&WQY12), U8g2(&JIS12), U8g2(&ALL9)],
    }
}

/// How one character is drawn.
#[derive(Clone, Copy)]
enum Glyph {
    /// From the 6x10 font.
    Latin,
    /// From a CJK font of U8g2's, with its advance.
    Cjk(&'static FontRenderer, i32),
    /// From [`BIG5_12`], its index there.
    Big5(usize),
    /// No font has it: the 6x10 font's replacement.
    Missing,
}

/// A character the 6x10 font draws itself (printable Latin-1).
fn is_latin(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{A0}'..='\u{FF}')
}

fn glyph(c: char, lang: Lang) -> Glyph {
    if is_latin(c) {
        return Glyph::Latin;
    }
    for font in cjk_fonts(lang) {
        match font {
            Font::U8g2(font) => {
                if let Ok(d) =
                    font.get_rendered_dimensions(c, Px::zero(), VerticalPosition::Baseline)
                {
                    return Glyph::Cjk(font, d.advance.x);
                }
            }
            Font::Big5 => {
                if let Some(i) = big5_index(c) {
                    return Glyph::Big5(i);
                }
            }
        }
    }
    Glyph::Missing
}

/// Whether some font of the displays has a glyph for `c`.
pub fn drawable(c: char) -> bool {
    !matches!(glyph(c, Lang::En), Glyph::Missing)
}

/// The characters of `text` that no font of the displays has (each once, in order).
pub fn missing(text: &str) -> Vec<char> {
    let mut out: Vec<char> = Vec::new();
    for c in text.chars().filter(|&c| !c.is_control() && !drawable(c)) {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// The width of `c` in pixels, in the font `lang` draws it with.
pub fn advance(c: char, lang: Lang) -> i32 {
    match glyph(c, lang) {
        Glyph::Cjk(_, advance) => advance,
        Glyph::Big5(_) => BIG5_ADVANCE,
        Glyph::Latin | Glyph::Missing => latin_advance(),
    }
}

fn latin_advance() -> i32 {
    (LATIN.character_size.width + LATIN.character_spacing) as i32
}

/// The width of `text` in pixels, as `lang` draws it.
pub fn width(text: &str, lang: Lang) -> i32 {
    text.chars().map(|c| advance(c, lang)).sum()
}

/// Draws `text` from (`x`, `y`) (see the module documentation), lit (`on`) or dark; returns
/// the x after it.
pub fn draw(f: &mut MonoFrame, text: &str, mut x: i32, y: i32, on: bool, lang: Lang) -> i32 {
    let color = BinaryColor::from(on);
    let style = MonoTextStyle::new(LATIN, color);
    // Runs of Latin-1 are drawn as one text, as the faces always drew them.
    let mut run_start: Option<(usize, i32)> = None;
    for (i, c) in text.char_indices() {
        let g = glyph(c, lang);
        if matches!(g, Glyph::Latin | Glyph::Missing) {
            if run_start.is_none() {
                run_start = Some((i, x));
            }
            x += latin_advance();
            continue;
        }
        if let Some((start, sx)) = run_start.take() {
            let _ =
                Text::with_baseline(&text[start..i], Px::new(sx, y), style, Baseline::Top).draw(f);
        }
        match g {
            Glyph::Cjk(font, advance) => {
                let _ = font.render(
                    c,
                    Px::new(x, y + CJK_BASELINE),
                    VerticalPosition::Baseline,
                    FontColor::Transparent(color),
                    f,
                );
                x += advance;
            }
            Glyph::Big5(i) => {
                big5_draw(f, i, x, y + CJK_BASELINE, on);
                x += BIG5_ADVANCE;
            }
            Glyph::Latin | Glyph::Missing => {}
        }
    }
    if let Some((start, sx)) = run_start {
        let _ = Text::with_baseline(&text[start..], Px::new(sx, y), style, Baseline::Top).draw(f);
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_and_words_have_glyphs() {
        // Chinese, Japanese and Taiwanese players; the simplified and traditional rules'
        // words; kana.
        for text in [
            "柯洁",
            "芈昱廷",
            "井山裕太",
            "周俊勳",
            "王立誠",
            "賴均輔",
            "讀秒暫停對數",
            "ひらがなカタカナ",
            "Müller",
        ] {
            assert_eq!(missing(text), Vec::<char>::new(), "{text}");
        }
        // Devanagari and Hangul: no font of the displays has them; nor anything past U+FFFF.
        assert_eq!(missing("aक한क😀b"), vec!['क', '한', '😀']);
        assert!(drawable('…') && drawable('€') && drawable('×'));
    }

    #[test]
    fn widths_by_script() {
        assert_eq!(width("Gao 3D", Lang::En), 36);
        assert_eq!(width("柯洁", Lang::Zh), 24);
        assert_eq!(width("柯洁 9p", Lang::Zh), 42);
        // Traditional characters at 12 px like their neighbours (讀 was 9 px, 10 apart).
        for c in ['讀', '勳', '賴', '對', '數', '秒'] {
            assert_eq!(advance(c, Lang::ZhHant), 12, "{c}");
        }
    }

    /// The Big5 set is WenQuanYi 12 px: a character it shares with U8g2's GB2312 font is
    /// not in it (GB2312 has it), and its glyphs sit where U8g2's WenQuanYi glyphs sit.
    #[test]
    fn the_big5_set_is_drawn_like_its_neighbours() {
        assert_eq!(big5_count(), 2073);
        assert!(big5_index('讀').is_some() && big5_index('賴').is_some());
        assert_eq!(big5_index('秒'), None, "in GB2312");
        assert_eq!(big5_index('a'), None);
        // 讀 drawn from (0, 1): rows 0 to 10 at most, like 秒 from U8g2's font.
        let rows = |c: char| {
            let mut f = MonoFrame::new();
            draw(&mut f, &c.to_string(), 0, 1, true, Lang::ZhHant);
            let lit: Vec<u32> = (0..64)
                .filter(|&y| (0..12).any(|x| f.pixel(x, y)))
                .collect();
            (lit.first().copied(), lit.last().copied())
        };
        let (top, bottom) = rows('讀');
        let (top_u8g2, bottom_u8g2) = rows('秒');
        assert!(
            top >= Some(0) && top <= top_u8g2.map(|t| t + 1),
            "{top:?} {top_u8g2:?}"
        );
        assert_eq!(bottom, bottom_u8g2);
    }
}

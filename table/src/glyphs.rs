//! Small text on the displays in any script: Latin-1 in the 6x10 font the faces have always
//! used (so digits, ranks and Go notation look the same in every language), everything
//! else from U8g2's CJK bitmap fonts ([`u8g2_fonts`]), tried in an order that suits the
//! display's language:
//!
//! - `u8g2_font_wqy12_t_gb2312` (WenQuanYi 12 px): all 6,763 hanzi of GB2312, kana;
//! - `u8g2_font_b12_t_japanese3` (12 px): kana and the JIS X 0208 level 1 kanji (黒, 読,
//!   対, and many traditional forms: 勳, 誠, 暫, 時, 還, 後);
//! - `u8g2_font_boutique_bitmap_9x9_t_all` (9 px, 12,406 glyphs): every Big5 hanzi and
//!   JIS X 0208 kanji, so the traditional characters the 12 px fonts lack (讀, 對, 數, 賴)
//!   are drawn, smaller, rather than missed.
//!
//! Simplified Chinese (and English) tries WenQuanYi first, Japanese the JIS font first (its
//! kanji have the Japanese shapes), traditional Chinese the JIS font first (more of its
//! characters are traditional). A character no font has is drawn as the 6x10 font's `?`
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

/// The CJK fonts in the order `lang` tries them.
fn cjk_fonts(lang: Lang) -> [&'static FontRenderer; 3] {
    match lang {
        Lang::En | Lang::Zh => [&WQY12, &JIS12, &ALL9],
        Lang::Ja | Lang::ZhHant => [&JIS12, &WQY12, &ALL9],
    }
}

/// How one character is drawn.
#[derive(Clone, Copy)]
enum Glyph {
    /// From the 6x10 font.
    Latin,
    /// From a CJK font, with its advance.
    Cjk(&'static FontRenderer, i32),
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
        if let Ok(d) = font.get_rendered_dimensions(c, Px::zero(), VerticalPosition::Baseline) {
            return Glyph::Cjk(font, d.advance.x);
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
        if let Glyph::Cjk(font, advance) = g {
            let _ = font.render(
                c,
                Px::new(x, y + CJK_BASELINE),
                VerticalPosition::Baseline,
                FontColor::Transparent(color),
                f,
            );
            x += advance;
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
        // 讀 is only in the 9 px font.
        assert_eq!(advance('讀', Lang::ZhHant), 10);
        assert_eq!(advance('秒', Lang::ZhHant), 12);
    }
}

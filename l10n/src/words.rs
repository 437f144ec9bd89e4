//! Sentences made of several messages, said the same way in Rust and in the pages'
//! JavaScript (`words.js`, which goes into every page with its messages):
//!
//! - a result (`B+17.5`, `W+F`, `0`) in words: [`result_words`];
//! - a margin or a komi in points, in the unit the language counts in ([`Margin`]): stones
//!   in Chinese as the rules count them (Art. 9, 11: `17.5` points is `8¾子`), 目 with 半 in
//!   Japanese (`17目半`), points in English;
//! - a rank (`9p`, `3d`, `12k`) as the language writes it ([`rank_words`]): `九段`, `3段`,
//!   `12级`, `12級`;
//! - the sentence of an alert for its article ([`alert_check_id`]): a time-out under byo-yomi
//!   (Art. 22.5) and under sudden death (Art. 12.4) are ruled by different articles.
//!
//! The messages a margin is said with come in four forms (`…-margin`, `…-margin-one`,
//! `…-margin-half`, `…-margin-half-only`, [`Margin::form`]) with the placeables `$n` (whole
//! points) and `$s` (stones, `8¾`); a language uses either or both.

use std::fmt;

use crate::{text, Lang};

/// A margin (or a komi) of a whole number of half points: 17.5 points, that is 8¾ stones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Margin {
    /// The margin in half points, which are quarters of a stone.
    halves: u64,
}

impl Margin {
    /// `points` as a margin: `None` unless it is a whole number of half points from 0 up
    /// (a result typed as `B+3.3` is said as written, not rounded).
    pub fn from_points(points: f64) -> Option<Margin> {
        let halves = points * 2.0;
        if !halves.is_finite() || !(0.0..=1e9).contains(&halves) || halves.fract() != 0.0 {
            return None;
        }
        // A whole number from 0 to 1e9: exact as an integer.
        Some(Margin {
            halves: halves as u64,
        })
    }

    /// The margin written as an SGF result writes it (`17.5`, `2`).
    pub fn from_text(points: &str) -> Option<Margin> {
        if points.is_empty() || !points.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return None;
        }
        points.parse().ok().and_then(Margin::from_points)
    }

    /// No margin at all (a komi of 0).
    pub fn is_zero(self) -> bool {
        self.halves == 0
    }

    /// The whole points (`17` of 17.5): the placeable `$n`.
    pub fn whole_points(self) -> u64 {
        self.halves / 2
    }

    /// The margin in stones (`8¾`): the placeable `$s`.
    pub fn stones(self) -> Stones {
        Stones {
            quarters: self.halves,
        }
    }

    /// Which form of the message says it, as the end of its id: `-half-only` for half a
    /// point (半目), `-half` for a whole number and a half (`17目半`), `-one` for one point,
    /// `` otherwise.
    pub fn form(self) -> &'static str {
        match self.halves {
            1 => "-half-only",
            h if h % 2 == 1 => "-half",
            2 => "-one",
            _ => "",
        }
    }
}

/// A number of stones in quarters, written with the fractions the rules write (`3¾`, `¼`,
/// `8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stones {
    quarters: u64,
}

impl fmt::Display for Stones {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, part) = (self.quarters / 4, self.quarters % 4);
        if whole > 0 || part == 0 {
            write!(f, "{whole}")?;
        }
        f.write_str(["", "¼", "½", "¾"][part as usize])
    }
}

/// `margin` in `lang`'s words, from the messages `{prefix}`, `{prefix}-one`,
/// `{prefix}-half` and `{prefix}-half-only` (`result-margin`: `8¾子`, `17目半`, `17.5
/// points`).
pub fn margin_words(lang: Lang, prefix: &str, margin: Margin) -> String {
    let n = margin.whole_points().to_string();
    let s = margin.stones().to_string();
    text(
        lang,
        &format!("{prefix}{}", margin.form()),
        &[("n", &n), ("s", &s)],
    )
}

/// A komi (in points, as the setup gives it) in `lang`'s words: `3¾子`, `6目半`, `7.5
/// points`; as written when it is not a whole number of half points from 0 up.
pub fn komi_words(lang: Lang, komi: f64) -> String {
    match Margin::from_points(komi) {
        Some(m) => margin_words(lang, "result-margin", m),
        None => komi.to_string(),
    }
}

/// `side` (`B` or `W`) in `lang`'s words: `side-black`, `side-white`.
fn side(lang: Lang, letter: &str) -> String {
    text(
        lang,
        if letter == "B" {
            "side-black"
        } else {
            "side-white"
        },
        &[],
    )
}

/// A result in words, the result itself kept in brackets: `黑方胜8¾子（B+17.5）`,
/// `Black wins by resignation (B+R)`, `白方胜（对方判负，W+F）`. Anything that is not an SGF
/// result is given back as it is.
pub fn result_words(lang: Lang, result: &str) -> String {
    match result {
        "0" | "Draw" | "Jigo" => return text(lang, "result-draw", &[]),
        "Void" => return text(lang, "result-void", &[]),
        "?" => return text(lang, "result-unknown", &[]),
        _ => {}
    }
    let Some((who @ ("B" | "W"), how)) = result.split_once('+') else {
        return result.to_string();
    };
    let w = side(lang, who);
    let plain = |id: &str| text(lang, id, &[("w", &w), ("r", result)]);
    match how {
        "R" | "Resign" => plain("result-resign"),
        "T" | "Time" => plain("result-time"),
        "F" | "Forfeit" => plain("result-forfeit"),
        _ => match Margin::from_text(how).filter(|m| !m.is_zero()) {
            Some(m) => {
                let margin = margin_words(lang, "result-margin", m);
                text(
                    lang,
                    "result-points",
                    &[("w", &w), ("margin", &margin), ("r", result)],
                )
            }
            None => plain("result-win"),
        },
    }
}

/// A rank as tournament files and setups write it: amateur dan, kyu, professional dan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rank {
    /// `3d`, `3D`: an amateur dan.
    Dan(u8),
    /// `12k`: a kyu.
    Kyu(u8),
    /// `9p`: a professional dan.
    Pro(u8),
}

impl Rank {
    /// Reads `3d`, `3D`, `12k`, `9p` (a space before the letter allowed); `None` for
    /// anything else (a rank is then shown as written).
    pub fn parse(rank: &str) -> Option<Rank> {
        let rank = rank.trim();
        let letter = rank.chars().last()?;
        let digits = rank[..rank.len() - letter.len_utf8()].trim_end();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: u8 = digits.parse().ok().filter(|&n| n > 0)?;
        match letter.to_ascii_lowercase() {
            'd' => Some(Rank::Dan(n)),
            'k' => Some(Rank::Kyu(n)),
            'p' => Some(Rank::Pro(n)),
            _ => None,
        }
    }

    /// The message that says it (`rank-dan`, `rank-kyu`, `rank-pro`).
    pub fn message_id(self) -> &'static str {
        match self {
            Rank::Dan(_) => "rank-dan",
            Rank::Kyu(_) => "rank-kyu",
            Rank::Pro(_) => "rank-pro",
        }
    }

    /// The number.
    pub fn number(self) -> u8 {
        match self {
            Rank::Dan(n) | Rank::Kyu(n) | Rank::Pro(n) => n,
        }
    }

    /// Whether the number is written with the language's own numerals (`rank-numerals`):
    /// a professional's dan, 1 to 9 (`九段`).
    pub fn numeral(self) -> bool {
        matches!(self, Rank::Pro(1..=9))
    }
}

/// `rank` in `lang`'s words (`9p`: `九段`; `3d`: `3段`; `12k`: `12级`); as written when it
/// is not one of those.
pub fn rank_words(lang: Lang, rank: &str) -> String {
    let Some(r) = Rank::parse(rank) else {
        return rank.trim().to_string();
    };
    let numerals = text(lang, "rank-numerals", &[]);
    let n = if r.numeral() {
        numerals
            .split_whitespace()
            .nth(usize::from(r.number()) - 1)
            .map_or_else(|| r.number().to_string(), str::to_string)
    } else {
        r.number().to_string()
    };
    text(lang, r.message_id(), &[("n", &n)])
}

/// The message of an alert's sentence: `alert-CODE-check-ART` where the article has one of
/// its own (the article with `-` for `.`: `alert-time_expired-check-12-4`), else
/// `alert-CODE-check`.
pub fn alert_check_id(lang: Lang, code: &str, article: &str) -> String {
    let own = format!("alert-{code}-check-{}", article.replace('.', "-"));
    if !article.is_empty() && crate::try_text(lang, &own, &[]).is_ok() {
        own
    } else {
        format!("alert-{code}-check")
    }
}

/// The JavaScript of the same functions, for the pages (after `t` and `L10N`).
pub(crate) const SCRIPT: &str = include_str!("words.js");

#[cfg(test)]
mod tests {
    use super::*;

    fn m(points: f64) -> Margin {
        Margin::from_points(points).unwrap()
    }

    #[test]
    fn margins_in_points_and_stones() {
        assert_eq!(m(17.5).stones().to_string(), "8¾");
        assert_eq!(m(7.5).stones().to_string(), "3¾");
        assert_eq!(m(1.5).stones().to_string(), "¾");
        assert_eq!(m(0.5).stones().to_string(), "¼");
        assert_eq!(m(1.0).stones().to_string(), "½");
        assert_eq!(m(4.0).stones().to_string(), "2");
        assert_eq!(m(0.0).stones().to_string(), "0");
        assert_eq!(
            [m(0.5), m(17.5), m(1.0), m(4.0), m(0.0)].map(Margin::form),
            ["-half-only", "-half", "-one", "", ""]
        );
        assert_eq!(m(17.5).whole_points(), 17);
        assert_eq!(Margin::from_points(3.3), None);
        assert_eq!(Margin::from_points(-1.0), None);
        assert_eq!(Margin::from_points(f64::NAN), None);
        assert_eq!(Margin::from_text("17.5"), Some(m(17.5)));
        assert_eq!(Margin::from_text("1e3"), None);
        assert_eq!(Margin::from_text(""), None);
    }

    #[test]
    fn results_in_each_language() {
        let cases = [
            (Lang::Zh, "B+17.5", "黑方胜8¾子（B+17.5）"),
            (Lang::ZhHant, "W+0.5", "白方勝¼子（W+0.5）"),
            (Lang::Ja, "B+17.5", "黒の17目半勝ち（B+17.5）"),
            (Lang::Ja, "W+0.5", "白の半目勝ち（W+0.5）"),
            (Lang::Ja, "W+2", "白の2目勝ち（W+2）"),
            (Lang::En, "B+17.5", "Black wins by 17.5 points (B+17.5)"),
            (Lang::En, "W+1", "White wins by 1 point (W+1)"),
            (Lang::En, "W+0.5", "White wins by half a point (W+0.5)"),
            (Lang::Zh, "W+F", "白方胜（对方判负，W+F）"),
            (Lang::ZhHant, "W+F", "白方勝（對方判負，W+F）"),
            (Lang::Ja, "W+F", "白の反則勝ち（W+F）"),
            (Lang::Zh, "B+R", "黑方中盘胜（B+R）"),
            (Lang::Zh, "B+3.3", "黑方胜（B+3.3）"),
            (Lang::Ja, "0", "持碁（0）"),
            (Lang::En, "Void", "no result (Void)"),
            (Lang::En, "nonsense", "nonsense"),
        ];
        for (lang, result, want) in cases {
            assert_eq!(result_words(lang, result), want, "{lang} {result}");
        }
        assert_eq!(komi_words(Lang::Zh, 7.5), "3¾子");
        assert_eq!(komi_words(Lang::Ja, 6.5), "6目半");
        assert_eq!(komi_words(Lang::Ja, 0.5), "半目");
        assert_eq!(komi_words(Lang::En, -1.0), "-1");
    }

    #[test]
    fn ranks_in_each_language() {
        assert_eq!(Rank::parse("3D"), Some(Rank::Dan(3)));
        assert_eq!(Rank::parse("12 k"), Some(Rank::Kyu(12)));
        assert_eq!(Rank::parse("9p"), Some(Rank::Pro(9)));
        assert_eq!(Rank::parse("0d"), None);
        assert_eq!(Rank::parse("123k"), None);
        assert_eq!(Rank::parse("pro"), None);
        assert_eq!(Rank::parse("段"), None);
        assert_eq!(rank_words(Lang::Zh, "9p"), "九段");
        assert_eq!(rank_words(Lang::Zh, "3D"), "3段");
        assert_eq!(rank_words(Lang::Zh, "12k"), "12级");
        assert_eq!(rank_words(Lang::ZhHant, "12k"), "12級");
        assert_eq!(rank_words(Lang::Ja, "12k"), "12級");
        assert_eq!(rank_words(Lang::Ja, "1p"), "一段");
        assert_eq!(rank_words(Lang::En, "9p"), "9p");
        assert_eq!(rank_words(Lang::En, "3D"), "3d");
        assert_eq!(rank_words(Lang::Zh, "10p"), "10段");
        assert_eq!(rank_words(Lang::Zh, " ? "), "?");
    }

    #[test]
    fn an_alert_reads_the_sentence_of_its_article() {
        assert_eq!(
            alert_check_id(Lang::Zh, "time_expired", "12.4"),
            "alert-time_expired-check-12-4"
        );
        assert_eq!(
            alert_check_id(Lang::Zh, "time_expired", "22.5"),
            "alert-time_expired-check"
        );
        assert_eq!(alert_check_id(Lang::Ja, "ko", ""), "alert-ko-check");
    }
}

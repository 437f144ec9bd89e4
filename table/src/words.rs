//! The words a player display shows, in its language: the `face-*` messages of
//! `l10n/locales/{lang}/clock.ftl` and the ranks' `rank-*` of `pages.ftl`, read once per
//! language.
//!
//! A message with placeables (`Move { $n }`) is kept with a private-use character in place
//! of each placeable ([`HOLES`]), so that drawing a face fills it on the stack
//! ([`fill`]) without formatting through Fluent for every frame.

use std::fmt;
use std::sync::OnceLock;

use tengen_l10n::Lang;

/// The placeables the face's messages use, each with the character that stands for it in
/// a kept message (Unicode private use: never in a translation).
pub(crate) const HOLES: [(&str, char); 9] = [
    ("n", '\u{E000}'),
    ("period", '\u{E001}'),
    ("inc", '\u{E002}'),
    ("w", '\u{E003}'),
    ("margin", '\u{E004}'),
    ("name", '\u{E005}'),
    ("s", '\u{E006}'),
    ("late", '\u{E007}'),
    ("taken", '\u{E008}'),
];

/// The character standing for the placeable `var`.
pub(crate) fn hole(var: &str) -> char {
    HOLES
        .iter()
        .find(|(name, _)| *name == var)
        .map_or('\u{E0FF}', |(_, c)| *c)
}

macro_rules! words {
    ($($field:ident = $id:literal,)*) => {
        /// One language's words of the face, each a message with its placeables kept as
        /// [`HOLES`].
        pub(crate) struct Words {
            /// The language.
            pub(crate) lang: Lang,
            $(
                #[doc = concat!("`", $id, "`.")]
                pub(crate) $field: String,
            )*
        }

        impl Words {
            fn load(lang: Lang) -> Words {
                Words {
                    lang,
                    $($field: kept(lang, $id),)*
                }
            }
        }

        /// Every message id a face draws (the `face-*` of `clock.ftl`, and the ranks' words
        /// of `pages.ftl`).
        pub const FACE_MESSAGES: &[&str] = &[$($id),*];
    };
}

words! {
    call_arbiter = "face-call-arbiter",
    paused = "face-paused",
    counting = "face-counting",
    black = "face-black",
    white = "face-white",
    vs = "face-vs",
    waiting_arbiter = "face-waiting-arbiter",
    waiting_arbiter_2 = "face-waiting-arbiter-2",
    starts_black = "face-starts-black",
    starts_white = "face-starts-white",
    starts_2 = "face-starts-2",
    no_clock = "face-no-clock",
    move_n = "face-move",
    move_label = "face-move-label",
    sudden_death = "face-sudden-death",
    fischer = "face-fischer",
    fischer_short = "face-fischer-short",
    byoyomi_main = "face-byoyomi-main",
    byoyomi_short = "face-byoyomi-short",
    no_period = "face-no-period",
    last_period = "face-last-period",
    periods = "face-periods",
    canadian_main = "face-canadian-main",
    canadian_short = "face-canadian-short",
    stones_one = "face-stones-one",
    stones = "face-stones",
    time_out = "face-time-out",
    fix = "face-fix",
    game_over = "face-game-over",
    win = "face-win",
    win_resign = "face-win-resign",
    win_time = "face-win-time",
    win_forfeit = "face-win-forfeit",
    win_by = "face-win-by",
    margin = "face-margin",
    margin_one = "face-margin-one",
    margin_half = "face-margin-half",
    margin_half_only = "face-margin-half-only",
    draw = "face-draw",
    void = "face-void",
    no_game = "face-no-game",
    board = "face-board",
    hours = "face-h",
    minutes = "face-m",
    seconds = "face-s",
    millis = "face-ms",
    table = "face-table",
    check_in = "face-check-in",
    check_in_2 = "face-check-in-2",
    checked_in = "face-checked-in",
    away = "face-away",
    late = "face-late",
    late_taken = "face-late-taken",
    rank_dan = "rank-dan",
    rank_kyu = "rank-kyu",
    rank_pro = "rank-pro",
    rank_numerals = "rank-numerals",
}

impl Words {
    /// `lang`'s words, read from the message files at first use.
    pub(crate) fn of(lang: Lang) -> &'static Words {
        static WORDS: OnceLock<[Words; 4]> = OnceLock::new();
        let all = WORDS.get_or_init(|| Lang::ALL.map(Words::load));
        let i = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
        &all[i]
    }

    /// The words are not English: lines hold CJK glyphs, 12 pixels high.
    pub(crate) fn cjk(&self) -> bool {
        self.lang != Lang::En
    }
}

/// The message `id` in `lang` with each placeable as its [`hole`].
fn kept(lang: Lang, id: &str) -> String {
    let vars = tengen_l10n::message_vars(lang, id).unwrap_or_default();
    let holes: Vec<(&str, String)> = vars.iter().map(|v| (*v, hole(v).to_string())).collect();
    let args: Vec<(&str, &str)> = holes.iter().map(|(v, h)| (*v, h.as_str())).collect();
    tengen_l10n::text(lang, id, &args)
}

/// Writes `pattern` to `out` with each hole replaced by its argument (`args`: placeable
/// name and value); a hole without an argument is left out.
pub(crate) fn fill(
    out: &mut impl fmt::Write,
    pattern: &str,
    args: &[(&str, &dyn fmt::Display)],
) -> fmt::Result {
    for c in pattern.chars() {
        match HOLES.iter().find(|(_, h)| *h == c) {
            Some((var, _)) => {
                if let Some((_, value)) = args.iter().find(|(name, _)| name == var) {
                    write!(out, "{value}")?;
                }
            }
            None => out.write_char(c)?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_face_message_is_in_every_language_with_its_placeables_known() {
        for lang in Lang::ALL {
            for id in FACE_MESSAGES {
                let vars = tengen_l10n::message_vars(lang, id)
                    .unwrap_or_else(|| panic!("{lang}: no message {id}"));
                for var in vars {
                    assert_ne!(hole(var), '\u{E0FF}', "{lang} {id}: ${var} has no hole");
                }
            }
        }
    }

    #[test]
    fn kept_messages_are_filled_with_their_arguments() {
        let fmt = |lang, pattern: fn(&Words) -> &str, args: &[(&str, &dyn fmt::Display)]| {
            let mut s = String::new();
            fill(&mut s, pattern(Words::of(lang)), args).unwrap();
            s
        };
        assert_eq!(fmt(Lang::En, |w| &w.move_n, &[("n", &57)]), "Move 57");
        assert_eq!(fmt(Lang::Zh, |w| &w.move_n, &[("n", &57)]), "已下57手");
        assert_eq!(fmt(Lang::Ja, |w| &w.move_n, &[("n", &57)]), "57手まで");
        assert_eq!(fmt(Lang::ZhHant, |w| &w.periods, &[("n", &3)]), "剩3次讀秒");
        assert_eq!(
            fmt(
                Lang::Zh,
                |w| &w.win_by,
                &[("w", &"黑方"), ("margin", &"¾子")]
            ),
            "黑方胜¾子"
        );
        assert_eq!(Words::of(Lang::Zh).paused, "暂停");
        assert_eq!(Words::of(Lang::Ja).paused, "一時停止");
        assert!(!Words::of(Lang::En).cjk());
        assert!(Words::of(Lang::Ja).cjk());
    }
}

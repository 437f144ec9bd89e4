//! The words of tengen's pages in English, Chinese (simplified and traditional) and Japanese
//! (docs/languages.md), with Project Fluent: one `.ftl` file per language
//! and area under `l10n/locales/{en,zh,zh-Hant,ja}/` (`pages`, `console`, `alerts`,
//! `clock`, `venues`), read into one bundle per language when first asked.
//!
//! - [`Lang`]: the four languages and their tags;
//! - [`negotiate`] / [`from_request`]: `?lang=`, then the `lang` cookie, then
//!   `Accept-Language`, then the configured default;
//! - [`text`]: one message with its arguments;
//! - [`result_words`], [`rank_words`], [`Margin`]: sentences made of several messages (a
//!   result, a margin in the language's unit, a rank), the same in the pages' script;
//! - [`Render`]: a page template's placeholders (`{{lang}}`, `{{t:ID}}`, `{{lang-switch}}`,
//!   `{{l10n:PREFIXES}}`) filled in;
//! - [`check_catalog`], [`check_template`]: what CI holds to (every id in every language,
//!   the same placeables as the English, every id a template names).
//!
//! Events on the wire do not change: the pages pick their words by the events' codes.

#[cfg(test)]
mod glossary;
mod lang;
mod messages;
mod negotiate;
mod page;
mod words;

pub use lang::{Lang, LangError};
pub use messages::{check_catalog, message_ids, message_vars, text, try_text, L10nError};
pub use negotiate::{from_request, negotiate, COOKIE_NAME};
pub use page::{check_template, html_escape, lang_switch, messages_script, script_json, Render};
pub use words::{
    alert_check_id, komi_words, margin_words, rank_words, result_words, Margin, Rank, Stones,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_is_in_every_language_with_the_same_placeables() {
        let problems = check_catalog();
        assert!(
            problems.is_empty(),
            "{} problems:\n{}",
            problems.len(),
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert!(message_ids(Lang::En).len() > 200);
    }

    #[test]
    fn messages_are_formatted_with_their_arguments() {
        assert_eq!(text(Lang::En, "clock-periods", &[("n", "3")]), "3 periods");
        assert_eq!(text(Lang::En, "clock-periods-one", &[]), "1 period");
        assert!(text(Lang::Zh, "alert-double_move-check", &[]).contains("第17条"));
        assert!(text(Lang::ZhHant, "alert-double_move-check", &[]).contains("第17條"));
        assert_eq!(
            try_text(Lang::Ja, "no-such-message", &[]),
            Err(L10nError::UnknownMessage {
                lang: Lang::Ja,
                id: "no-such-message".into()
            })
        );
        assert_eq!(text(Lang::Ja, "no-such-message", &[]), "no-such-message");
    }

    #[test]
    fn a_template_is_filled_and_escaped() {
        let page = Render::served(Lang::Zh).page(
            "<html lang=\"{{lang}}\"><title>{{t:overview-title}}</title>{{lang-switch}}\
             {{l10n:result-}}{{unknown}}",
        );
        assert!(page.starts_with("<html lang=\"zh\"><title>"));
        assert!(!page.contains("{{t:"), "{page}");
        assert!(page.contains("<script id=\"l10n\" type=\"application/json\">{"));
        assert!(page.contains("function t(id, args)"));
        assert!(page.contains("data-lang=\"zh-Hant\""));
        assert!(
            page.contains("{{unknown}}"),
            "an unknown placeholder is kept"
        );
        let plain = Render {
            lang: Lang::En,
            switch: false,
        }
        .page("a{{lang-switch}}b");
        assert_eq!(plain, "ab");
        assert_eq!(
            html_escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(
            script_json(&serde_json::json!({"a": "</script>\u{2028}"})),
            "{\"a\":\"\\u003c/script>\\u2028\"}"
        );
    }

    #[test]
    fn the_page_json_keeps_placeables_for_the_script() {
        let script = messages_script(Lang::Zh, &["clock-periods"]);
        assert!(script.contains("\"clock-periods\":\""), "{script}");
        assert!(script.contains("{ $n }"), "{script}");
    }

    #[test]
    fn a_template_naming_an_unknown_message_is_reported() {
        assert!(check_template("{{t:overview-title}} t(\"reason-count\")").is_empty());
        let problems = check_template("{{t:nope}} x.split(\"a\") t(\"nope-either\")");
        assert_eq!(problems.len(), 8, "{problems:?}");
    }
}

//! The language of each request (`?lang=`, the `lang` cookie, `Accept-Language`, then
//! `[hall] lang`), found once by a middleware and read by any handler that writes words:
//! the pages, the login page wherever it is served from.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tengen_l10n::Lang;

tokio::task_local! {
    static LANG: Lang;
}

/// Runs the request's handler with its language at hand ([`current`]).
pub(crate) async fn in_its_language(
    State(default): State<Lang>,
    req: Request,
    next: Next,
) -> Response {
    let lang = tengen_l10n::from_request(req.uri().query(), req.headers(), default);
    LANG.scope(lang, next.run(req)).await
}

/// The language of the request being answered; English outside one (a test calling a
/// handler's helper directly).
pub(crate) fn current() -> Lang {
    LANG.try_with(|l| *l).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use tengen_l10n::{check_template, message_ids, Render};

    use super::*;
    use crate::public::OVERVIEW;
    use crate::routes::console_assets::SCRIPT;
    use crate::routes::{CONSOLE, LOGIN};

    /// The names after `marker` in `text` (`T.name`, `say("name"`).
    fn names_after<'a>(text: &'a str, marker: &str) -> BTreeSet<&'a str> {
        text.match_indices(marker)
            // `T.x`, not `WAIT.x` or `/…T/.test`.
            .filter(|(i, _)| {
                !text[..*i]
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/')
            })
            .map(|(i, _)| {
                let rest = &text[i + marker.len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[..end]
            })
            .filter(|n| !n.is_empty())
            .collect()
    }

    #[test]
    fn every_page_of_the_hall_is_in_every_language() {
        for page in [OVERVIEW, CONSOLE, LOGIN] {
            assert_eq!(check_template(page), vec![]);
            for lang in Lang::ALL {
                let filled = Render::served(lang).page(page);
                assert!(filled.contains(&format!("<html lang=\"{}\">", lang.tag())));
                assert!(
                    !filled.replace("{{error}}", "").contains("{{"),
                    "every placeholder filled"
                );
                assert!(filled.contains("class=\"lang-switch\""));
            }
        }
    }

    /// A kebab-case key in camelCase, as the console's script turns a message's id into its
    /// key in `T`.
    fn camel(kebab: &str) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in kebab.chars() {
            match c {
                '-' => upper = true,
                c if upper => {
                    out.extend(c.to_uppercase());
                    upper = false;
                }
                c => out.push(c),
            }
        }
        out
    }

    /// Every id of the console's messages is kebab-case, as every other message's.
    #[test]
    fn the_consoles_ids_are_kebab_case() {
        let camel_case: Vec<String> = message_ids(Lang::En)
            .into_iter()
            .filter(|id| id.starts_with("console-"))
            .filter(|id| {
                let key = id.split("--").next().unwrap_or(id);
                key.chars().any(|c| c.is_ascii_uppercase() || c == '_')
            })
            .map(|id| id.to_string())
            .collect();
        assert_eq!(camel_case, Vec::<String>::new());
        assert_eq!(camel("th-table"), "thTable");
    }

    /// The console's table `T` is built from the messages: every word it looks up is one.
    #[test]
    fn every_word_the_console_looks_up_is_a_message() {
        let ids = message_ids(Lang::En);
        // `console-th-table` is `T.thTable` (the script's `camel`).
        let console: BTreeSet<String> = ids
            .iter()
            .filter_map(|id| id.strip_prefix("console-"))
            .map(|id| camel(id.split("--").next().unwrap_or(id)))
            .collect();
        // Built by the page from alerts.ftl and clock.ftl rather than console.ftl.
        let built = ["codes", "checks", "faults"];
        let script = &SCRIPT[SCRIPT.find("const T = (() => {").expect("the table")..];
        let mut used = names_after(script, "T.");
        used.extend(names_after(script, "say(\""));
        let missing: Vec<&str> = used
            .into_iter()
            .filter(|n| !console.contains(*n) && !built.contains(n))
            .collect();
        assert_eq!(missing, Vec::<&str>::new());
        for id in [
            "result-draw",
            "result-resign",
            "alert-article-clause",
            "rank-dan",
        ] {
            assert!(ids.contains(&id), "{id}");
        }
        // Results, ranks, articles and an alert's sentence come with the messages
        // (l10n's words.js, in the page before its script): the console calls them, it
        // does not say them itself.
        let page = Render::served(Lang::Zh).page(CONSOLE);
        for f in ["resultWords", "rankWords", "articleWords", "alertCheck"] {
            assert!(page.contains(&format!("function {f}(")), "{f}");
            assert!(SCRIPT.contains(&format!("{f}(")), "{f} unused");
            assert!(
                !SCRIPT.contains(&format!("function {f}(")),
                "{f} said twice"
            );
        }
    }
}

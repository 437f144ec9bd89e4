//! Pages in a language: the placeholders an HTML template keeps, filled by the server.
//!
//! - `{{lang}}`: the language's tag (for `<html lang="{{lang}}">`);
//! - `{{t:ID}}`: the message `ID`, HTML-escaped;
//! - `{{lang-switch}}`: the language switch (links that set the `lang` cookie and reload);
//! - `{{l10n:PREFIX PREFIX…}}`: every message whose id starts with one of the prefixes, as
//!   one JSON object in `<script id="l10n" type="application/json">`, and the helper
//!   `t(id, args)` that the page's JavaScript calls to fill their `{ $name }` placeables,
//!   and the sentences made of several messages (`resultWords`, `rankWords`...: the
//!   JavaScript of [`crate::words`]).

use std::collections::BTreeMap;

use crate::messages::{message_ids, pattern_text, L10nError};
use crate::{text, Lang};

/// The JavaScript helper that goes with the messages: `t(id, {name: value})`.
const HELPER: &str = "<script>\"use strict\";\n\
const L10N = JSON.parse(document.getElementById(\"l10n\").textContent);\n\
/** The message `id` with its `{ $name }` placeables filled from `args`. */\n\
function t(id, args) {\n\
  const s = L10N[id] === undefined ? id : L10N[id];\n\
  return s.replace(/\\{ *\\$([A-Za-z0-9_-]+) *\\}/g, (m, k) => (args && args[k] != null ? String(args[k]) : m));\n\
}\n</script>";

/// The switch's look and behaviour: small, in a corner, remembered in the `lang` cookie; on
/// a phone it is not fixed but sits after the page's end, so it never covers a button or
/// the bottom-left of a page (issue 31).
const SWITCH_SCRIPT: &str = "<script>for (const a of document.querySelectorAll(\".lang-switch a\")) \
a.addEventListener(\"click\", (e) => { e.preventDefault(); \
document.cookie = \"lang=\" + a.dataset.lang + \"; path=/; max-age=31536000; SameSite=Lax\"; \
const u = new URL(location.href); u.searchParams.delete(\"lang\"); location.replace(u.href); });</script>";

const SWITCH_STYLE: &str = "<style>.lang-switch{position:fixed;left:.4em;bottom:.3em;z-index:50;font:12px system-ui,sans-serif;\
background:#fffd;border-radius:.4em;padding:.1em .4em;box-shadow:0 1px 2px #0003}\
.lang-switch a{color:#1565c0;margin:0 .25em;text-decoration:none}\
.lang-switch a[aria-current]{color:#222;font-weight:700}\
@media (max-width:700px){.lang-switch{position:static;display:block;width:max-content;margin:1.2em .4em .6em auto;box-shadow:none}}</style>";

/// `s` safe inside HTML text and attribute values.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `value` as JSON that is safe inside a `<script>`: no `<` (no `</script>`, no `<!--`)
/// and no line separators.
pub fn script_json(value: &serde_json::Value) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".to_string())
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// The language switch: a link per language to the same page, the current one marked.
pub fn lang_switch(lang: Lang) -> String {
    let mut out = format!(
        "{SWITCH_STYLE}<nav class=\"lang-switch\" aria-label=\"{}\">",
        html_escape(&text(lang, "lang-switch-label", &[]))
    );
    for l in Lang::ALL {
        let current = if l == lang {
            " aria-current=\"true\""
        } else {
            ""
        };
        out.push_str(&format!(
            "<a href=\"?lang={tag}\" data-lang=\"{tag}\" lang=\"{tag}\" hreflang=\"{tag}\"{current}>{name}</a>",
            tag = l.tag(),
            name = html_escape(l.name())
        ));
    }
    out.push_str("</nav>");
    out.push_str(SWITCH_SCRIPT);
    out
}

/// The messages under `prefixes` as the page's JSON and its `t` helper.
pub fn messages_script(lang: Lang, prefixes: &[&str]) -> String {
    let mut map = BTreeMap::new();
    for id in message_ids(lang) {
        if prefixes.iter().any(|p| id.starts_with(p)) {
            if let Some(s) = pattern_text(lang, id) {
                map.insert(id.to_string(), serde_json::Value::String(s));
            }
        }
    }
    format!(
        "<script id=\"l10n\" type=\"application/json\">{}</script>\n{HELPER}\n{}",
        script_json(&serde_json::Value::Object(map.into_iter().collect())),
        crate::words::SCRIPT
    )
}

/// How a page is rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Render {
    /// The page's language.
    pub lang: Lang,
    /// Whether `{{lang-switch}}` becomes the switch (a static copy has no server to read its
    /// cookie: it shows none).
    pub switch: bool,
}

impl Render {
    /// A page served in `lang`, with its switch.
    pub fn served(lang: Lang) -> Render {
        Render { lang, switch: true }
    }

    /// `template` with its placeholders filled in.
    pub fn page(self, template: &str) -> String {
        let mut out = String::with_capacity(template.len() + 4096);
        let mut rest = template;
        while let Some(start) = rest.find("{{") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find("}}") else {
                out.push_str(&rest[start..]);
                rest = "";
                break;
            };
            let inner = &after[..end];
            match self.placeholder(inner) {
                Some(filled) => out.push_str(&filled),
                None => {
                    out.push_str("{{");
                    out.push_str(inner);
                    out.push_str("}}");
                }
            }
            rest = &after[end + 2..];
        }
        out.push_str(rest);
        out
    }

    fn placeholder(self, inner: &str) -> Option<String> {
        if inner == "lang" {
            Some(self.lang.tag().to_string())
        } else if inner == "lang-switch" {
            Some(if self.switch {
                lang_switch(self.lang)
            } else {
                String::new()
            })
        } else if let Some(id) = inner.strip_prefix("t:") {
            Some(html_escape(&text(self.lang, id, &[])))
        } else {
            inner.strip_prefix("l10n:").map(|prefixes| {
                let prefixes: Vec<&str> = prefixes.split_whitespace().collect();
                messages_script(self.lang, &prefixes)
            })
        }
    }
}

/// Every message a template names that does not exist in every language: its `{{t:ID}}`
/// placeholders and the `t("ID"` calls of its script. Empty when all are there.
pub fn check_template(template: &str) -> Vec<L10nError> {
    let mut ids: Vec<&str> = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("{{t:") {
        rest = &rest[i + 4..];
        if let Some(end) = rest.find("}}") {
            ids.push(&rest[..end]);
        }
    }
    let mut rest = template;
    while let Some(i) = rest.find("t(\"") {
        let before = template.len() - rest.len() + i;
        rest = &rest[i + 3..];
        // `t(` alone, not the end of a longer name (`split(`, `getElementById(`).
        let prev = template[..before].chars().last();
        if prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        // A whole id (`t("x")`, `t("x", {…})`), not the start of one made at run time
        // (`t("status-" + s)`).
        if let Some(end) = rest.find('"') {
            if matches!(rest[end + 1..].chars().next(), Some(')' | ',')) {
                ids.push(&rest[..end]);
            }
        }
    }
    let mut problems = Vec::new();
    for lang in Lang::ALL {
        let known = message_ids(lang);
        for id in &ids {
            if known.binary_search(id).is_err() {
                problems.push(L10nError::UnknownMessage {
                    lang,
                    id: id.to_string(),
                });
            }
        }
    }
    problems
}

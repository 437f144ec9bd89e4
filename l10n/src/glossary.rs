//! The terminology test: each language's glossary (`l10n/glossary/{lang}.toml`) lists the
//! words its messages may not use (mainland words in Taiwan's Chinese, 警告 for an alert in
//! Japanese, 目 in a Chinese margin...) and what results said in words must and must not
//! hold (a `W+F` is not 不战而胜). Run by `cargo test -p tengen-l10n`.
//!
//! The same test keeps the generated parts of `docs/languages.md` true: the number of
//! messages in each file and the glossary's words (`TENGEN_BLESS=1` writes them anew).

use std::fmt::Write as _;

use fluent_syntax::ast;
use serde::Deserialize;

use crate::messages::{message_ids, pattern_text, AREAS, SOURCES};
use crate::{result_words, Lang};

/// A language's glossary.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Glossary {
    #[serde(default)]
    forbid: Vec<Forbid>,
    #[serde(default)]
    result: Vec<ResultRule>,
}

/// Words a language's messages may not use.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Forbid {
    /// The words (a message's text with its placeables as `{ $name }`).
    words: Vec<String>,
    /// The messages it applies to (`id`, or `prefix*`); every message when empty.
    #[serde(default)]
    ids: Vec<String>,
    /// Messages left out.
    #[serde(default)]
    except: Vec<String>,
    /// What to write instead.
    #[serde(rename = "use")]
    instead: String,
    /// Why.
    why: String,
}

/// What a result said in words must hold.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultRule {
    result: String,
    #[serde(default)]
    require: Vec<String>,
    #[serde(default)]
    forbid: Vec<String>,
}

/// The glossaries, in the order of [`Lang::ALL`].
const GLOSSARIES: [(Lang, &str); 4] = [
    (Lang::En, include_str!("../glossary/en.toml")),
    (Lang::Zh, include_str!("../glossary/zh.toml")),
    (Lang::ZhHant, include_str!("../glossary/zh-Hant.toml")),
    (Lang::Ja, include_str!("../glossary/ja.toml")),
];

fn glossary(lang: Lang, source: &str) -> Glossary {
    toml::from_str(source).unwrap_or_else(|e| panic!("glossary/{}.toml: {e}", lang.tag()))
}

/// `id` is named by `pattern` (`id`, or `prefix*`).
fn names(pattern: &str, id: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => id.starts_with(prefix),
        None => pattern == id,
    }
}

/// Every breach of `lang`'s glossary, one line each.
fn breaches(lang: Lang, g: &Glossary) -> Vec<String> {
    let mut out = Vec::new();
    for rule in &g.forbid {
        for pattern in rule.ids.iter().chain(&rule.except) {
            assert!(
                message_ids(lang).iter().any(|id| names(pattern, id)),
                "glossary/{}.toml names no message {pattern:?}",
                lang.tag()
            );
        }
        for id in message_ids(lang) {
            let applies = (rule.ids.is_empty() || rule.ids.iter().any(|p| names(p, id)))
                && !rule.except.iter().any(|p| names(p, id));
            if !applies {
                continue;
            }
            let text = pattern_text(lang, id).unwrap_or_default();
            for word in rule.words.iter().filter(|w| text.contains(w.as_str())) {
                out.push(format!(
                    "{lang} {id}: {word:?} in {text:?}; use {} ({})",
                    rule.instead, rule.why
                ));
            }
        }
    }
    for rule in &g.result {
        let said = result_words(lang, &rule.result);
        for word in &rule.require {
            if !said.contains(word.as_str()) {
                out.push(format!("{lang} {}: {said:?} lacks {word:?}", rule.result));
            }
        }
        for word in &rule.forbid {
            if said.contains(word.as_str()) {
                out.push(format!("{lang} {}: {word:?} in {said:?}", rule.result));
            }
        }
    }
    out
}

#[test]
fn every_language_keeps_to_its_glossary() {
    let mut all = Vec::new();
    for (lang, source) in GLOSSARIES {
        all.extend(breaches(lang, &glossary(lang, source)));
    }
    assert!(
        all.is_empty(),
        "{} breaches:\n{}",
        all.len(),
        all.join("\n")
    );
}

/// The glossary's test fails on the slips it was written for (a rule that matched nothing
/// would pass whatever the messages say).
#[test]
fn the_glossary_catches_the_slips_it_names() {
    let g = glossary(Lang::Zh, GLOSSARIES[1].1);
    let fails = |rule: &str, id: &str, text: &str| {
        g.forbid
            .iter()
            .filter(|f| f.ids.is_empty() || f.ids.iter().any(|p| names(p, id)))
            .filter(|f| f.words.iter().any(|w| w == rule))
            .any(|f| f.words.iter().any(|w| text.contains(w.as_str())))
    };
    assert!(fails(
        "不战而胜",
        "result-forfeit",
        "{ $w }不战而胜（{ $r }）"
    ));
    assert!(fails("目", "result-margin-half", "{ $n }.5目"));
    assert!(fails("目", "face-win-by", "{ $w }胜{ $margin }目"));
    assert!(!fails(
        "不战",
        "console-og--RESULT_BLACKWINS_BYDEF",
        "黑不战而胜"
    ));
    let hant = glossary(Lang::ZhHant, GLOSSARIES[2].1);
    assert!(hant
        .forbid
        .iter()
        .any(|f| f.words.iter().any(|w| w == "服務器") && f.ids.is_empty()));
}

/// The messages of each file, counted from the English files (the others have the same ids:
/// `check_catalog`).
fn counts() -> Vec<(&'static str, usize)> {
    AREAS
        .iter()
        .zip(SOURCES[0])
        .map(|(area, source)| {
            let resource = match fluent_syntax::parser::parse(source) {
                Ok(r) | Err((r, _)) => r,
            };
            let n = resource
                .body
                .iter()
                .filter(|e| matches!(e, ast::Entry::Message(_)))
                .count();
            (*area, n)
        })
        .collect()
}

/// The generated parts of docs/languages.md.
fn generated() -> Vec<(&'static str, String)> {
    let counts = counts();
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let faces = message_ids(Lang::En)
        .iter()
        .filter(|id| id.starts_with("face-"))
        .count();
    let mut c = format!(
        "{total} messages in each of the four languages (the same ids in each, checked in CI), \
         {faces} of them the players' displays' `face-*`:\n\n| file | messages |\n|---|---|\n"
    );
    for (area, n) in counts {
        let _ = writeln!(c, "| `{area}.ftl` | {n} |");
    }
    let mut g = String::from("| language | not | but | why |\n|---|---|---|---|\n");
    for (lang, source) in GLOSSARIES {
        for rule in glossary(lang, source).forbid {
            let words: Vec<String> = rule.words.iter().map(|w| format!("`{w}`")).collect();
            let mut why = rule.why.clone();
            if !rule.ids.is_empty() {
                let _ = write!(why, " (in {})", rule.ids.join(", "));
            }
            let _ = writeln!(
                g,
                "| {} | {} | {} | {} |",
                lang.tag(),
                words.join(" "),
                rule.instead.replace('|', "\\|"),
                why.replace('|', "\\|")
            );
        }
    }
    vec![("counts", c), ("glossary", g)]
}

/// `docs` with each generated part (between `<!-- generated: NAME -->` and `<!-- end:
/// NAME -->`) replaced.
fn with_generated(docs: &str) -> String {
    let mut out = docs.to_string();
    for (name, body) in generated() {
        let start = format!("<!-- generated: {name} -->\n");
        let end = format!("<!-- end: {name} -->");
        let (Some(a), Some(b)) = (out.find(&start), out.find(&end)) else {
            panic!("docs/languages.md has no {start:?} ... {end:?}");
        };
        out.replace_range(a + start.len()..b, &body);
    }
    out
}

#[test]
fn the_docs_counts_and_glossary_are_generated() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/languages.md");
    let docs = std::fs::read_to_string(path).expect("docs/languages.md");
    let want = with_generated(&docs);
    if std::env::var_os("TENGEN_BLESS").is_some() {
        std::fs::write(path, &want).expect("write docs/languages.md");
        return;
    }
    assert!(
        docs == want,
        "docs/languages.md is not what the messages and glossaries say: \
         `TENGEN_BLESS=1 cargo test -p tengen-l10n` writes it anew"
    );
}

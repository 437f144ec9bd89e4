//! The messages: one Fluent bundle per language, built once from the `.ftl` files under
//! `l10n/locales/{lang}/`, and what a message's placeables are.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use fluent_syntax::ast;

use crate::Lang;

/// The areas, one `.ftl` file each per language.
pub(crate) const AREAS: [&str; 5] = ["pages", "console", "alerts", "clock", "venues"];

macro_rules! sources {
    ($($lang:literal),*) => {
        [$(
            [
                include_str!(concat!("../locales/", $lang, "/pages.ftl")),
                include_str!(concat!("../locales/", $lang, "/console.ftl")),
                include_str!(concat!("../locales/", $lang, "/alerts.ftl")),
                include_str!(concat!("../locales/", $lang, "/clock.ftl")),
                include_str!(concat!("../locales/", $lang, "/venues.ftl")),
            ],
        )*]
    };
}

/// The `.ftl` sources, in the order of [`Lang::ALL`] and [`AREAS`].
pub(crate) const SOURCES: [[&str; 5]; 4] = sources!("en", "zh", "zh-Hant", "ja");

/// Why a message could not be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum L10nError {
    /// No message has this id in this language.
    #[error("no message {id:?} in {lang}")]
    UnknownMessage {
        /// The language asked for.
        lang: Lang,
        /// The id asked for.
        id: String,
    },
    /// The message is there but could not be formatted (a missing argument, say).
    #[error("message {id:?} in {lang}: {detail}")]
    Format {
        /// The language asked for.
        lang: Lang,
        /// The message's id.
        id: String,
        /// What went wrong, in Fluent's words.
        detail: String,
    },
    /// A `.ftl` file does not parse, or repeats an id.
    #[error("{lang}/{area}.ftl: {detail}")]
    Source {
        /// The file's language.
        lang: Lang,
        /// The file's area (`pages`, `console`, `alerts`, `clock`, `venues`).
        area: &'static str,
        /// What is wrong, in Fluent's words.
        detail: String,
    },
}

/// One language's messages.
struct Catalog {
    bundle: FluentBundle<FluentResource>,
    /// Every message id with the variables its value uses.
    vars: BTreeMap<String, BTreeSet<String>>,
    /// What went wrong while reading the files (the check test wants none).
    problems: Vec<L10nError>,
}

fn catalogs() -> &'static [Catalog; 4] {
    static CATALOGS: OnceLock<[Catalog; 4]> = OnceLock::new();
    CATALOGS.get_or_init(|| Lang::ALL.map(build))
}

fn catalog(lang: Lang) -> &'static Catalog {
    let i = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    &catalogs()[i]
}

fn build(lang: Lang) -> Catalog {
    let i = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    let id: unic_langid::LanguageIdentifier = lang.tag().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // No Unicode isolation marks around placeables: the pages put the words in HTML and
    // JSON themselves, and tests compare them as plain text.
    bundle.set_use_isolating(false);
    let mut vars = BTreeMap::new();
    let mut problems = Vec::new();
    for (area, source) in AREAS.iter().zip(SOURCES[i]) {
        let resource = match FluentResource::try_new(source.to_string()) {
            Ok(r) => r,
            Err((r, errors)) => {
                problems.extend(errors.into_iter().map(|e| L10nError::Source {
                    lang,
                    area,
                    detail: format!("{e:?}"),
                }));
                r
            }
        };
        for entry in resource.entries() {
            if let ast::Entry::Message(m) = entry {
                let mut used = BTreeSet::new();
                if let Some(p) = &m.value {
                    pattern_vars(p, &mut used);
                }
                vars.insert(m.id.name.to_string(), used);
            }
        }
        if let Err(errors) = bundle.add_resource(resource) {
            problems.extend(errors.into_iter().map(|e| L10nError::Source {
                lang,
                area,
                detail: e.to_string(),
            }));
        }
    }
    Catalog {
        bundle,
        vars,
        problems,
    }
}

fn pattern_vars(p: &ast::Pattern<&str>, out: &mut BTreeSet<String>) {
    for element in &p.elements {
        if let ast::PatternElement::Placeable { expression } = element {
            expression_vars(expression, out);
        }
    }
}

fn expression_vars(e: &ast::Expression<&str>, out: &mut BTreeSet<String>) {
    match e {
        ast::Expression::Inline(i) => inline_vars(i, out),
        ast::Expression::Select { selector, variants } => {
            inline_vars(selector, out);
            for v in variants {
                pattern_vars(&v.value, out);
            }
        }
    }
}

fn inline_vars(e: &ast::InlineExpression<&str>, out: &mut BTreeSet<String>) {
    match e {
        ast::InlineExpression::VariableReference { id } => {
            out.insert(id.name.to_string());
        }
        ast::InlineExpression::FunctionReference { arguments, .. } => {
            for a in &arguments.positional {
                inline_vars(a, out);
            }
            for a in &arguments.named {
                inline_vars(&a.value, out);
            }
        }
        ast::InlineExpression::Placeable { expression } => expression_vars(expression, out),
        _ => {}
    }
}

/// The message `id` in `lang` with `args` (`$name` → value; a value that reads as a number
/// is given to Fluent as one, for plural forms).
pub fn try_text(lang: Lang, id: &str, args: &[(&str, &str)]) -> Result<String, L10nError> {
    let bundle = &catalog(lang).bundle;
    let pattern = bundle
        .get_message(id)
        .and_then(|m| m.value())
        .ok_or_else(|| L10nError::UnknownMessage {
            lang,
            id: id.to_string(),
        })?;
    let mut fluent_args = FluentArgs::new();
    for (name, value) in args {
        fluent_args.set(*name, FluentValue::try_number(value));
    }
    let mut errors = Vec::new();
    let text = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
    match errors.first() {
        None => Ok(text.into_owned()),
        Some(e) => Err(L10nError::Format {
            lang,
            id: id.to_string(),
            detail: e.to_string(),
        }),
    }
}

/// The message `id` in `lang` with `args`; where it cannot be given, the English one, and
/// where that cannot either, the id itself (a page never shows nothing).
pub fn text(lang: Lang, id: &str, args: &[(&str, &str)]) -> String {
    try_text(lang, id, args)
        .or_else(|_| try_text(Lang::En, id, args))
        .unwrap_or_else(|_| id.to_string())
}

/// The message `id` in `lang` with its placeables left as `{ $name }`, for the page's
/// JavaScript to fill (`t(id, args)`).
pub(crate) fn pattern_text(lang: Lang, id: &str) -> Option<String> {
    let vars = catalog(lang).vars.get(id)?;
    let holes: Vec<String> = vars.iter().map(|v| format!("{{ ${v} }}")).collect();
    let args: Vec<(&str, &str)> = vars
        .iter()
        .map(String::as_str)
        .zip(holes.iter().map(String::as_str))
        .collect();
    // Given as strings, the holes never select a plural form: such messages have a
    // variant per number instead (`…-one`).
    let bundle = &catalog(lang).bundle;
    let pattern = bundle.get_message(id)?.value()?;
    let mut fluent_args = FluentArgs::new();
    for (name, value) in args {
        fluent_args.set(name, FluentValue::from(value));
    }
    let mut errors = Vec::new();
    Some(
        bundle
            .format_pattern(pattern, Some(&fluent_args), &mut errors)
            .into_owned(),
    )
}

/// Every message id of `lang`, sorted.
pub fn message_ids(lang: Lang) -> Vec<&'static str> {
    catalog(lang).vars.keys().map(String::as_str).collect()
}

/// The variables (`$name`) the message `id` uses in `lang`; `None` when there is no such
/// message.
pub fn message_vars(lang: Lang, id: &str) -> Option<Vec<&'static str>> {
    catalog(lang)
        .vars
        .get(id)
        .map(|v| v.iter().map(String::as_str).collect())
}

/// Messages whose placeables a language chooses among (any, all or none of them: `半目`): a
/// margin or a komi is said in whole points (`$n`, Japanese `17目半`, English `17.5 points`), in
/// stones (`$s`, Chinese `8¾子` as the rules count, Art. 9 and 11) or both.
const EITHER: &[(&str, &[&str])] = &[("result-margin", &["n", "s"]), ("face-margin", &["n", "s"])];

/// Whether a translation's placeables `v` are the English ones `en` for the message `id`.
fn same_placeables(id: &str, v: &BTreeSet<String>, en: &BTreeSet<String>) -> bool {
    match EITHER.iter().find(|(prefix, _)| id.starts_with(prefix)) {
        Some((_, alternatives)) => {
            let rest = |s: &BTreeSet<String>| -> BTreeSet<String> {
                s.iter()
                    .filter(|x| !alternatives.contains(&x.as_str()))
                    .cloned()
                    .collect()
            };
            rest(v) == rest(en)
        }
        None => v == en,
    }
}

/// Everything wrong with the message files: parse errors, repeated ids, an id missing in a
/// language, and a translation whose placeables are not the English ones (a margin may be
/// said in points or in stones: `EITHER`). Empty when all is
/// well (a test holds it so in CI).
pub fn check_catalog() -> Vec<L10nError> {
    let mut problems: Vec<L10nError> = Vec::new();
    for lang in Lang::ALL {
        problems.extend(catalog(lang).problems.iter().cloned());
    }
    let en = &catalog(Lang::En).vars;
    for lang in Lang::ALL.into_iter().skip(1) {
        let other = &catalog(lang).vars;
        for (id, vars) in en {
            match other.get(id) {
                None => problems.push(L10nError::UnknownMessage {
                    lang,
                    id: id.clone(),
                }),
                Some(v) if !same_placeables(id, v, vars) => problems.push(L10nError::Format {
                    lang,
                    id: id.clone(),
                    detail: format!("uses {v:?}, the English uses {vars:?}"),
                }),
                Some(_) => {}
            }
        }
        for id in other.keys().filter(|id| !en.contains_key(*id)) {
            problems.push(L10nError::UnknownMessage {
                lang: Lang::En,
                id: id.clone(),
            });
        }
    }
    problems
}

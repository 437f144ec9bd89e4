//! The four languages and their tags.

use std::fmt;
use std::str::FromStr;

/// A language the pages speak (docs/languages.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Lang {
    /// English, `en` (the default).
    #[default]
    En,
    /// Chinese in simplified characters, `zh`.
    Zh,
    /// Chinese in traditional characters, `zh-Hant`.
    ZhHant,
    /// Japanese, `ja`.
    Ja,
}

/// A language tag that names none of the four languages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown language {0:?}: give en, zh, zh-Hant or ja")]
pub struct LangError(pub String);

impl Lang {
    /// Every language, English first.
    pub const ALL: [Lang; 4] = [Lang::En, Lang::Zh, Lang::ZhHant, Lang::Ja];

    /// The BCP 47 tag the pages write in `<html lang>` and `?lang=`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
            Lang::ZhHant => "zh-Hant",
            Lang::Ja => "ja",
        }
    }

    /// The language's name in itself, as the language switch shows it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Zh => "简体中文",
            Lang::ZhHant => "繁體中文",
            Lang::Ja => "日本語",
        }
    }

    /// Reads a tag, tolerant of case, `_` for `-`, regions and scripts: `zh-CN`, `zh-Hans`
    /// and `zh-SG` are [`Lang::Zh`]; `zh-TW`, `zh-HK`, `zh-MO` and `zh-Hant-*` are
    /// [`Lang::ZhHant`]; `ja-JP` is [`Lang::Ja`]; `en-GB` is [`Lang::En`].
    pub fn parse(tag: &str) -> Result<Lang, LangError> {
        let lower = tag.trim().to_ascii_lowercase().replace('_', "-");
        let mut parts = lower.split('-');
        let primary = parts.next().unwrap_or_default();
        let rest: Vec<&str> = parts.collect();
        match primary {
            "en" => Ok(Lang::En),
            "ja" => Ok(Lang::Ja),
            "zh" => {
                let traditional = rest
                    .iter()
                    .take_while(|p| **p != "hans")
                    .any(|p| matches!(*p, "hant" | "tw" | "hk" | "mo"));
                Ok(if traditional { Lang::ZhHant } else { Lang::Zh })
            }
            _ => Err(LangError(tag.to_string())),
        }
    }
}

impl FromStr for Lang {
    type Err = LangError;

    fn from_str(s: &str) -> Result<Lang, LangError> {
        Lang::parse(s)
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_read_with_their_regions_and_scripts() {
        for (tag, lang) in [
            ("en", Lang::En),
            ("EN-gb", Lang::En),
            ("zh", Lang::Zh),
            ("zh-CN", Lang::Zh),
            ("zh-Hans", Lang::Zh),
            ("zh_SG", Lang::Zh),
            ("zh-Hans-HK", Lang::Zh),
            ("zh-Hant", Lang::ZhHant),
            ("zh-TW", Lang::ZhHant),
            ("zh-hk", Lang::ZhHant),
            ("zh-Hant-TW", Lang::ZhHant),
            ("ja", Lang::Ja),
            ("ja-JP", Lang::Ja),
        ] {
            assert_eq!(Lang::parse(tag), Ok(lang), "{tag}");
        }
        for lang in Lang::ALL {
            assert_eq!(lang.tag().parse::<Lang>(), Ok(lang));
        }
        assert!(Lang::parse("fr").is_err());
        assert!(Lang::parse("").is_err());
        assert_eq!(
            Lang::parse("de").unwrap_err().to_string(),
            "unknown language \"de\": give en, zh, zh-Hant or ja"
        );
    }
}

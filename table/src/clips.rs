//! The voice's clips: what each clip of [`clip_names`] says in each language ([`text`], and
//! [`speech`], the same words as espeak-ng reads them), and a [`ClipSet`], every clip loaded
//! from a folder (`{dir}/{name}.wav`, as `tengen voice` writes them, or recordings under
//! the same names) at one sample rate.
//!
//! The texts follow Art. 12.3: "30, 40, 50, 55, 58 seconds", "1 minute used, N left", and in
//! the last period the count 1 .. 10, one a second.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tengen_l10n::Lang;
use thiserror::Error;

use crate::sound::{clip_names, Sound};
use crate::wav::{Pcm, WavError};

/// A language the voice speaks, with how `tengen voice` renders it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// The language (`[voice] lang` and `tengen voice --lang` write its tag: `en`, `zh`,
    /// `ja`).
    pub lang: Lang,
    /// Its name in English.
    pub name: &'static str,
    /// The espeak-ng voice `tengen voice` renders it with.
    pub espeak_voice: &'static str,
    /// espeak-ng's speed (`-s`, words per minute) to start from.
    pub espeak_speed: u32,
}

/// Every language the voice speaks, in the order `tengen voice` lists them: English,
/// Chinese (Mandarin, written in simplified characters), Japanese (`[voice] lang`). The
/// pages' traditional Chinese (`zh-Hant`) has no voice of its own.
pub fn languages() -> [Lang; 3] {
    [Lang::En, Lang::Zh, Lang::Ja]
}

/// Every language with its name and espeak-ng voice, in the order of [`languages`].
///
/// Chinese is rendered from pinyin with espeak-ng's Mandarin voice that reads latin text as
/// pinyin (`cmn-latn-pinyin`): its dictionary for characters reads some of them (七, for
/// one) as English letters. Japanese is rendered from kana, which espeak-ng's `ja` voice
/// reads; it spells kanji out as "Chinese letter".
pub fn language_list() -> &'static [Language] {
    const LANGUAGES: [Language; 3] = [
        Language {
            lang: Lang::En,
            name: "English",
            espeak_voice: "en",
            espeak_speed: 175,
        },
        Language {
            lang: Lang::Zh,
            name: "Chinese (Mandarin)",
            espeak_voice: "cmn-latn-pinyin",
            espeak_speed: 175,
        },
        Language {
            lang: Lang::Ja,
            name: "Japanese",
            espeak_voice: "ja",
            espeak_speed: 175,
        },
    ];
    &LANGUAGES
}

/// How the voice speaks `lang`; `None` for a language it does not speak (`zh-Hant`).
pub fn language(lang: Lang) -> Option<&'static Language> {
    language_list().iter().find(|l| l.lang == lang)
}

/// What clip `clip` (a name of [`clip_names`]) says in language `lang`, written as a reader
/// of that language writes it: `text(Lang::En, "55")` = "fifty-five", `text(Lang::Zh,
/// "55")` = "五十五秒", `text(Lang::Ja, "periods_2")` = "残り二回". `None` for a language
/// the voice does not speak, or an unknown clip.
pub fn text(lang: Lang, clip: &str) -> Option<String> {
    let call = ClipCall::parse(clip)?;
    match lang {
        Lang::En => Some(english(call)),
        Lang::Zh => Some(chinese(call).0),
        Lang::Ja => Some(japanese(call).0),
        Lang::ZhHant => None,
    }
}

/// The same words as [`text`], as espeak-ng is given them: English as written, Chinese in
/// numbered pinyin (`wu3 shi2 wu3 miao3`), Japanese in kana (`ごじゅうごびょう`).
pub fn speech(lang: Lang, clip: &str) -> Option<String> {
    let call = ClipCall::parse(clip)?;
    match lang {
        Lang::En => Some(english(call)),
        Lang::Zh => Some(chinese(call).1),
        Lang::Ja => Some(japanese(call).1),
        Lang::ZhHant => None,
    }
}

/// A clip name, parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ClipCall {
    /// "30" .. "58": seconds used in the period.
    Seconds(u32),
    /// "minute_used".
    MinuteUsed,
    /// "1" .. "10".
    Count(usize),
    /// "periods_1" .. "periods_10".
    PeriodsLeft(usize),
}

impl ClipCall {
    fn parse(clip: &str) -> Option<ClipCall> {
        let small = |n: &str| n.parse::<usize>().ok().filter(|n| (1..=10).contains(n));
        match clip {
            "30" => Some(ClipCall::Seconds(30)),
            "40" => Some(ClipCall::Seconds(40)),
            "50" => Some(ClipCall::Seconds(50)),
            "55" => Some(ClipCall::Seconds(55)),
            "58" => Some(ClipCall::Seconds(58)),
            "minute_used" => Some(ClipCall::MinuteUsed),
            _ => match clip.strip_prefix("periods_") {
                Some(n) => small(n).map(ClipCall::PeriodsLeft),
                // "01" is not a clip name.
                None if !clip.starts_with('0') => small(clip).map(ClipCall::Count),
                None => None,
            },
        }
    }
}

const EN_NUMBERS: [&str; 11] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];

fn english(call: ClipCall) -> String {
    match call {
        ClipCall::Seconds(s) => match s {
            30 => "thirty",
            40 => "forty",
            50 => "fifty",
            55 => "fifty-five",
            _ => "fifty-eight",
        }
        .to_string(),
        ClipCall::MinuteUsed => "one minute used".to_string(),
        ClipCall::Count(n) => EN_NUMBERS[n].to_string(),
        ClipCall::PeriodsLeft(1) => "one period left".to_string(),
        ClipCall::PeriodsLeft(n) => format!("{} periods left", EN_NUMBERS[n]),
    }
}

/// Chinese numerals 0 .. 10, and their pinyin.
const ZH_NUMBERS: [(&str, &str); 11] = [
    ("零", "ling2"),
    ("一", "yi1"),
    ("二", "er4"),
    ("三", "san1"),
    ("四", "si4"),
    ("五", "wu3"),
    ("六", "liu4"),
    ("七", "qi1"),
    ("八", "ba1"),
    ("九", "jiu3"),
    ("十", "shi2"),
];

/// What a Chinese referee says (Art. 12.3): "三十秒" .. "五十八秒", "一分钟" (a minute
/// used), the count "一" .. "十", "还剩两次" (N left).
fn chinese(call: ClipCall) -> (String, String) {
    match call {
        ClipCall::Seconds(s) => {
            let (tens, units) = ((s / 10) as usize, (s % 10) as usize);
            let (t, tp) = ZH_NUMBERS[tens];
            if units == 0 {
                (format!("{t}十秒"), format!("{tp} shi2 miao3"))
            } else {
                let (u, up) = ZH_NUMBERS[units];
                (format!("{t}十{u}秒"), format!("{tp} shi2 {up} miao3"))
            }
        }
        // 一 takes the fourth tone before a first tone.
        ClipCall::MinuteUsed => ("一分钟".to_string(), "yi4 fen1 zhong1".to_string()),
        ClipCall::Count(n) => {
            let (c, p) = ZH_NUMBERS[n];
            (c.to_string(), p.to_string())
        }
        ClipCall::PeriodsLeft(n) => {
            // 两 counts things; 一 takes the second tone before a fourth tone (次).
            let (c, p) = match n {
                1 => ("一", "yi2"),
                2 => ("两", "liang3"),
                _ => ZH_NUMBERS[n],
            };
            (format!("还剩{c}次"), format!("huan2 sheng4 {p} ci4"))
        }
    }
}

/// Japanese numerals 0 .. 10, their reading, and their reading before 回.
const JA_NUMBERS: [(&str, &str, &str); 11] = [
    ("零", "れい", "れいかい"),
    ("一", "いち", "いっかい"),
    ("二", "に", "にかい"),
    ("三", "さん", "さんかい"),
    ("四", "よん", "よんかい"),
    ("五", "ご", "ごかい"),
    ("六", "ろく", "ろっかい"),
    ("七", "なな", "ななかい"),
    ("八", "はち", "はちかい"),
    ("九", "きゅう", "きゅうかい"),
    ("十", "じゅう", "じゅっかい"),
];

/// What a Japanese clock says: "三十秒" .. "五十八秒", "一回使用" (a period used), the
/// count "一" .. "十", "残り二回" (N left).
fn japanese(call: ClipCall) -> (String, String) {
    match call {
        ClipCall::Seconds(s) => {
            let (tens, units) = ((s / 10) as usize, (s % 10) as usize);
            let (t, tk, _) = JA_NUMBERS[tens];
            if units == 0 {
                (format!("{t}十秒"), format!("{tk}じゅうびょう"))
            } else {
                let (u, uk, _) = JA_NUMBERS[units];
                (format!("{t}十{u}秒"), format!("{tk}じゅう{uk}びょう"))
            }
        }
        ClipCall::MinuteUsed => ("一回使用".to_string(), "いっかいしよう".to_string()),
        ClipCall::Count(n) => {
            let (c, k, _) = JA_NUMBERS[n];
            (c.to_string(), k.to_string())
        }
        ClipCall::PeriodsLeft(n) => {
            let (c, _, kk) = JA_NUMBERS[n];
            (format!("残り{c}回"), format!("のこり{kk}"))
        }
    }
}

/// How loud the clips are made: their peak, as a fraction of full scale.
pub const CLIP_PEAK: f32 = 0.9;

/// What counts as silence around a clip's sound: samples below this fraction of the clip's
/// peak.
pub const SILENCE_FRACTION: f32 = 0.02;

/// The pause between two clips of one call ("one minute used", pause, "two periods left").
pub const CLIP_GAP_MS: u64 = 120;

/// The quietest peak a clip may have (1 % of full scale, -40 dBFS): below it, it is
/// silence (or the dither of silence).
pub const MIN_PEAK: u16 = 328;

/// A clip as the voice plays it: the silence before and after the sound cut off (below
/// [`SILENCE_FRACTION`] of its peak), so that the sound starts at sample 0, and the peak
/// brought to [`CLIP_PEAK`]. Empty when it is silent (its peak under [`MIN_PEAK`]).
pub fn clean_clip(pcm: &Pcm) -> Pcm {
    let peak = pcm.peak();
    if peak < MIN_PEAK {
        return Pcm::new(pcm.rate, Vec::new());
    }
    let threshold = (f32::from(peak) * SILENCE_FRACTION) as u16;
    pcm.trim(threshold).normalize(CLIP_PEAK)
}

/// A clip that cannot be used. Its message is one line naming the file and saying how to
/// make the clips.
#[derive(Debug, Error)]
pub enum ClipError {
    /// A clip file is missing.
    #[error(
        "{}: missing clip; render the clips with `tengen voice --lang LANG --out {}` (LANG: {}) or record it",
        path.display(), dir.display(), codes()
    )]
    Missing {
        /// The file that should be there.
        path: PathBuf,
        /// The folder of the clips.
        dir: PathBuf,
    },
    /// A clip file cannot be read.
    #[error(
        "{source}; render the clips again with `tengen voice --lang LANG --out {}` (LANG: {})",
        dir.display(), codes()
    )]
    Bad {
        /// The folder of the clips.
        dir: PathBuf,
        /// What is wrong with the file.
        #[source]
        source: WavError,
    },
    /// A clip file holds only silence.
    #[error(
        "{}: the clip is silent; render the clips again with `tengen voice --lang LANG --out {}` (LANG: {})",
        path.display(), dir.display(), codes()
    )]
    Silent {
        /// The file.
        path: PathBuf,
        /// The folder of the clips.
        dir: PathBuf,
    },
    /// A set of clips built in memory lacks one.
    #[error("the clip {name:?} is missing")]
    MissingName {
        /// The clip name.
        name: String,
    },
}

/// The language codes, for messages: `en, zh, ja`.
fn codes() -> String {
    languages().map(Lang::tag).join(", ")
}

/// Every clip of [`clip_names`], at one sample rate, ready to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipSet {
    rate: u32,
    clips: HashMap<String, Pcm>,
}

impl ClipSet {
    /// Loads `{dir}/{name}.wav` for every name of [`clip_names`] (any WAV [`Pcm::read`]
    /// takes), each made ready with [`clean_clip`] and resampled to `rate`.
    pub fn load(dir: &Path, rate: u32) -> Result<ClipSet, ClipError> {
        let mut clips = HashMap::new();
        for name in clip_names() {
            let path = dir.join(format!("{name}.wav"));
            if !path.is_file() {
                return Err(ClipError::Missing {
                    path,
                    dir: dir.to_path_buf(),
                });
            }
            let pcm = Pcm::read(&path).map_err(|source| ClipError::Bad {
                dir: dir.to_path_buf(),
                source,
            })?;
            let clip = clean_clip(&pcm);
            if clip.is_empty() {
                return Err(ClipError::Silent {
                    path,
                    dir: dir.to_path_buf(),
                });
            }
            clips.insert(name, clip.resample(rate));
        }
        Ok(ClipSet { rate, clips })
    }

    /// A set from clips in memory (each resampled to `rate`, used as given otherwise);
    /// every name of [`clip_names`] must be there, others are ignored.
    pub fn from_clips(
        rate: u32,
        clips: impl IntoIterator<Item = (String, Pcm)>,
    ) -> Result<ClipSet, ClipError> {
        let mut given: HashMap<String, Pcm> = clips.into_iter().collect();
        let mut set = HashMap::new();
        for name in clip_names() {
            let pcm = given
                .remove(&name)
                .ok_or_else(|| ClipError::MissingName { name: name.clone() })?;
            set.insert(name, pcm.resample(rate));
        }
        Ok(ClipSet { rate, clips: set })
    }

    /// The sample rate of every clip.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// The clip `name`.
    pub fn get(&self, name: &str) -> Option<&Pcm> {
        self.clips.get(name)
    }

    /// What the voice plays for `sound`: its [`Sound::clips`] one after the other,
    /// [`CLIP_GAP_MS`] apart. The sound starts at sample 0.
    pub fn pcm_for(&self, sound: &Sound) -> Pcm {
        let mut out = Pcm::new(self.rate, Vec::new());
        for (i, name) in sound.clips().iter().enumerate() {
            let Some(clip) = self.clips.get(name) else {
                continue;
            };
            if i > 0 {
                out.append(&Pcm::silence(self.rate, CLIP_GAP_MS));
            }
            out.append(clip);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_protocol::Timestamp;
    use tengen_rules::clock::Call;
    use tengen_rules::Color;

    #[test]
    fn every_clip_has_a_text_in_every_language() {
        let langs: Vec<Lang> = language_list().iter().map(|l| l.lang).collect();
        assert_eq!(langs, languages());
        for lang in languages() {
            for name in clip_names() {
                let t = text(lang, &name).unwrap();
                let s = speech(lang, &name).unwrap();
                assert!(!t.is_empty() && !s.is_empty(), "{lang} {name}");
            }
        }
        assert_eq!(text(Lang::ZhHant, "30"), None);
        assert_eq!(language(Lang::ZhHant), None);
        assert_eq!(text(Lang::En, "31"), None);
        assert_eq!(text(Lang::En, "11"), None);
        assert_eq!(text(Lang::En, "01"), None);
        assert_eq!(text(Lang::En, "periods_0"), None);
        assert_eq!(
            language(Lang::Zh).map(|l| l.espeak_voice),
            Some("cmn-latn-pinyin")
        );
    }

    #[test]
    fn the_texts_are_what_a_referee_says() {
        let en: Vec<_> = [
            "30",
            "55",
            "58",
            "minute_used",
            "1",
            "10",
            "periods_1",
            "periods_3",
        ]
        .iter()
        .map(|c| text(Lang::En, c).unwrap())
        .collect();
        assert_eq!(
            en,
            [
                "thirty",
                "fifty-five",
                "fifty-eight",
                "one minute used",
                "one",
                "ten",
                "one period left",
                "three periods left"
            ]
        );
        let zh: Vec<_> = [
            "30",
            "55",
            "minute_used",
            "7",
            "10",
            "periods_2",
            "periods_10",
        ]
        .iter()
        .map(|c| text(Lang::Zh, c).unwrap())
        .collect();
        assert_eq!(
            zh,
            [
                "三十秒",
                "五十五秒",
                "一分钟",
                "七",
                "十",
                "还剩两次",
                "还剩十次"
            ]
        );
        assert_eq!(speech(Lang::Zh, "58").unwrap(), "wu3 shi2 ba1 miao3");
        assert_eq!(
            speech(Lang::Zh, "periods_1").unwrap(),
            "huan2 sheng4 yi2 ci4"
        );
        let ja: Vec<_> = ["40", "58", "4", "periods_3"]
            .iter()
            .map(|c| text(Lang::Ja, c).unwrap())
            .collect();
        assert_eq!(ja, ["四十秒", "五十八秒", "四", "残り三回"]);
        assert_eq!(speech(Lang::Ja, "55").unwrap(), "ごじゅうごびょう");
        assert_eq!(speech(Lang::Ja, "periods_6").unwrap(), "のこりろっかい");
    }

    fn tone(rate: u32, ms: u64, level: i16) -> Pcm {
        let n = crate::wav::samples_in(rate, ms);
        Pcm::new(
            rate,
            (0..n)
                .map(|i| if i % 2 == 0 { level } else { -level })
                .collect(),
        )
    }

    #[test]
    fn a_folder_of_clips_loads_trimmed_and_resampled() {
        let dir = tempfile::tempdir().unwrap();
        for (i, name) in clip_names().iter().enumerate() {
            let mut pcm = Pcm::silence(16000, 50);
            pcm.append(&tone(16000, 100 + i as u64, 1000));
            pcm.append(&Pcm::silence(16000, 30));
            pcm.write(&dir.path().join(format!("{name}.wav"))).unwrap();
        }
        let set = ClipSet::load(dir.path(), 48000).unwrap();
        assert_eq!(set.rate(), 48000);
        let one = set.get("30").unwrap();
        assert_eq!(one.rate, 48000);
        assert_eq!(one.samples.len(), 4800);
        assert!(one.samples[0].unsigned_abs() > 20000);
        assert_eq!(one.peak(), (0.9f64 * 32767.0).round() as u16);

        let used = Sound {
            at: Timestamp::from_millis(0),
            color: Color::White,
            call: Call::MinuteUsed,
            periods_left: 2,
        };
        let pcm = set.pcm_for(&used);
        let parts = set.get("minute_used").unwrap().samples.len()
            + set.get("periods_2").unwrap().samples.len();
        assert_eq!(pcm.samples.len(), parts + 48 * CLIP_GAP_MS as usize);
        assert_eq!(
            &pcm.samples[..10],
            &set.get("minute_used").unwrap().samples[..10]
        );
    }

    #[test]
    fn a_missing_or_bad_clip_names_the_file_and_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let e = ClipSet::load(dir.path(), 22050).unwrap_err().to_string();
        assert!(e.contains("30.wav: missing clip"), "{e}");
        assert!(e.contains("tengen voice --lang LANG --out"), "{e}");
        for name in clip_names() {
            tone(8000, 100, 500)
                .write(&dir.path().join(format!("{name}.wav")))
                .unwrap();
        }
        std::fs::write(dir.path().join("7.wav"), b"RIFF....WAVEjunk").unwrap();
        let e = ClipSet::load(dir.path(), 22050).unwrap_err().to_string();
        assert!(e.contains("7.wav: not a readable WAV file"), "{e}");
        assert!(e.contains("tengen voice --lang LANG"), "{e}");
        assert!(!e.contains('\n'));
        tone(8000, 100, 300)
            .write(&dir.path().join("7.wav"))
            .unwrap();
        let e = ClipSet::load(dir.path(), 22050).unwrap_err().to_string();
        assert!(e.contains("7.wav: the clip is silent"), "{e}");
        let e = ClipSet::from_clips(8000, []).unwrap_err().to_string();
        assert_eq!(e, "the clip \"30\" is missing");
    }
}

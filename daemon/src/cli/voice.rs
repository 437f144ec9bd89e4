//! `tengen voice --lang LANG --out DIR` (docs/operating.md, "Commands"): renders the clock's
//! spoken calls (Art. 12.3) to WAV clips with espeak-ng, one per clip name of
//! [`clip_names`]: `DIR/30.wav` ... `DIR/minute_used.wav`, `DIR/1.wav` ... `DIR/10.wav`,
//! `DIR/periods_1.wav` ... `DIR/periods_10.wav`.
//!
//! Each clip is one `espeak-ng -v VOICE -s SPEED -w FILE TEXT` run (the texts and voices of
//! [`tengen_table::clips`]), then cut to its sound (no silence before or after, so the board
//! starts it on the instant), normalised, and written as 16-bit PCM mono at espeak-ng's
//! rate (22050 Hz). The count "1" .. "10" is said once a second: a count clip longer than
//! [`COUNT_MAX_MS`] is rendered again faster.
//!
//! Exit 2 for an unknown language (the message lists the known ones); exit 1 when
//! espeak-ng is missing or fails, or a file cannot be written. Prints one summary line.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::Command;

use tengen_table::clips::{clean_clip, language, language_list, speech, Language};
use tengen_table::sound::clip_names;
use tengen_table::wav::Pcm;
use tengen_table::Lang;

use super::args::VoiceArgs;
use super::CliError;

/// The program that speaks.
const ESPEAK: &str = "espeak-ng";

/// The longest a count clip may last, in ms: well under the second between two counts.
const COUNT_MAX_MS: u64 = 800;

/// The fastest espeak-ng is asked to speak (words per minute).
const MAX_SPEED: u32 = 450;

/// Runs `tengen voice`.
pub(super) fn run(args: VoiceArgs) -> Result<(), CliError> {
    let lang = Lang::parse(&args.lang)
        .ok()
        .and_then(language)
        .ok_or_else(|| {
            let known: Vec<String> = language_list()
                .iter()
                .map(|l| format!("{} ({})", l.lang, l.name))
                .collect();
            CliError::input(format!(
                "--lang: unknown language {:?}; the voice speaks {}",
                args.lang,
                known.join(", ")
            ))
        })?;
    check_espeak()?;
    fs::create_dir_all(&args.out).map_err(|e| {
        CliError::work(format!(
            "{}: cannot create the folder ({e})",
            args.out.display()
        ))
    })?;
    let scratch = tempfile::Builder::new()
        .prefix("tengen-voice")
        .tempdir()
        .map_err(|e| CliError::work(format!("cannot make a temporary folder ({e})")))?;

    let mut rate = 0;
    let mut counts: Vec<u64> = Vec::new();
    let mut fastest = lang.espeak_speed;
    let names = clip_names();
    for name in &names {
        let text = speech(lang.lang, name)
            .ok_or_else(|| CliError::work(format!("no {} text for the clip {name}", lang.lang)))?;
        let is_count = name.parse::<u32>().is_ok_and(|n| (1..=10).contains(&n));
        let mut speed = lang.espeak_speed;
        let clip = loop {
            let raw = scratch.path().join(format!("{name}.wav"));
            let pcm = espeak(lang, &text, speed, &raw)?;
            let clip = clean_clip(&pcm);
            if clip.is_empty() {
                return Err(CliError::work(format!(
                    "{ESPEAK} -v {} rendered the clip {name} ({text:?}) as silence",
                    lang.espeak_voice
                )));
            }
            if !is_count || clip.duration_ms() <= COUNT_MAX_MS {
                break clip;
            }
            if speed >= MAX_SPEED {
                return Err(CliError::work(format!(
                    "the count clip {name} ({text:?}) lasts {} ms even at {ESPEAK} -s {speed}; \
                     a count must last under {COUNT_MAX_MS} ms",
                    clip.duration_ms()
                )));
            }
            speed = (speed * 5 / 4).min(MAX_SPEED);
        };
        if is_count {
            counts.push(clip.duration_ms());
        }
        fastest = fastest.max(speed);
        rate = clip.rate;
        write_clip(&clip, &args.out.join(format!("{name}.wav")))?;
    }

    let shortest = counts.iter().min().copied().unwrap_or(0);
    let longest = counts.iter().max().copied().unwrap_or(0);
    let faster = if fastest > lang.espeak_speed {
        format!(", counts at -s {fastest}")
    } else {
        String::new()
    };
    println!(
        "tengen voice: {} clips in {} ({}, espeak-ng voice {}{faster}, {rate} Hz, 16-bit mono); \
         the counts last {:.2} to {:.2} s",
        names.len(),
        args.out.display(),
        lang.name,
        lang.espeak_voice,
        shortest as f64 / 1000.0,
        longest as f64 / 1000.0,
    );
    Ok(())
}

/// Exit 1 with the way to install espeak-ng when it cannot be run.
fn check_espeak() -> Result<(), CliError> {
    match Command::new(ESPEAK).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(CliError::work(format!(
            "{ESPEAK} --version failed ({}): reinstall it with `apt install espeak-ng`",
            first_line(&out.stderr, out.status)
        ))),
        Err(e) if e.kind() == ErrorKind::NotFound => Err(CliError::work(format!(
            "{ESPEAK} is not installed: apt install espeak-ng"
        ))),
        Err(e) => Err(CliError::work(format!(
            "{ESPEAK} cannot be run ({e}): apt install espeak-ng"
        ))),
    }
}

/// One clip as espeak-ng says it, read back from `file`.
fn espeak(lang: &Language, text: &str, speed: u32, file: &Path) -> Result<Pcm, CliError> {
    let out = Command::new(ESPEAK)
        .args(["-v", lang.espeak_voice, "-s", &speed.to_string(), "-w"])
        .arg(file)
        .arg(text)
        .output()
        .map_err(|e| {
            CliError::work(format!(
                "{ESPEAK} cannot be run ({e}): apt install espeak-ng"
            ))
        })?;
    if !out.status.success() {
        return Err(CliError::work(format!(
            "{ESPEAK} -v {} failed on {text:?}: {}",
            lang.espeak_voice,
            first_line(&out.stderr, out.status)
        )));
    }
    Pcm::read(file).map_err(|e| CliError::work(format!("{ESPEAK} wrote no usable clip: {e}")))
}

/// Writes a clip through a temporary name, so that a clip file is whole or absent.
fn write_clip(clip: &Pcm, path: &Path) -> Result<(), CliError> {
    let mut tmp = PathBuf::from(path);
    tmp.set_extension("wav.tmp");
    clip.write(&tmp)
        .map_err(|e| CliError::work(e.to_string()))?;
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        CliError::work(format!("{}: cannot write the clip ({e})", path.display()))
    })
}

/// The first line of a program's error output, or its exit status.
fn first_line(stderr: &[u8], status: std::process::ExitStatus) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map_or_else(|| status.to_string(), str::to_string)
}

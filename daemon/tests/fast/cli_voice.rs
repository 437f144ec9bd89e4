//! `tengen voice` run as a binary with the real espeak-ng, for every language: every clip
//! is there, a 16-bit PCM mono WAV (its header read byte by byte, its samples by hound),
//! starting with sound, the counts well under a second, and each file non-silent as
//! `sox FILE -n stat` (an independent reader) measures it. An unknown language exits 2, a
//! missing espeak-ng exits 1.
//!
//! Without espeak-ng or sox the tests say so and skip; with `TENGEN_REQUIRE_ORACLES=1` that
//! is a failure.

use crate::cli;

use cli::*;

use std::path::Path;
use std::process::Command;

use tengen_table::clips::ClipSet;
use tengen_table::sound::clip_names;
use tengen_table::wav::Pcm;

/// True when CI demands the external oracles (`TENGEN_REQUIRE_ORACLES=1`).
fn oracles_required() -> bool {
    std::env::var("TENGEN_REQUIRE_ORACLES").is_ok_and(|v| v == "1")
}

/// Whether `program --version` runs; a failure when it does not and the oracles are
/// required.
fn installed(program: &str, package: &str) -> bool {
    let ok = Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !oracles_required(),
            "{program} is missing and TENGEN_REQUIRE_ORACLES=1: apt install {package}"
        );
        eprintln!("skipped: {program} is not installed (apt install {package})");
    }
    ok
}

/// What `sox FILE -n stat` says about a file.
struct SoxStat {
    length_s: f64,
    max_amplitude: f64,
    rms_amplitude: f64,
}

fn sox_stat(file: &Path) -> SoxStat {
    let out = Command::new("sox")
        .arg(file)
        .args(["-n", "stat"])
        .output()
        .expect("run sox");
    assert!(
        out.status.success(),
        "sox {}: {}",
        file.display(),
        stderr(&out)
    );
    // sox writes the statistics on standard error.
    let text = stderr(&out);
    let field = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| {
                let (key, value) = l.split_once(':')?;
                (key.split_whitespace().collect::<Vec<_>>().join(" ") == name)
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or_else(|| panic!("sox stat of {} has no {name:?}:\n{text}", file.display()))
    };
    SoxStat {
        length_s: field("Length (seconds)"),
        max_amplitude: field("Maximum amplitude").max(-field("Minimum amplitude")),
        rms_amplitude: field("RMS amplitude"),
    }
}

/// The WAV header as bytes: PCM (1), 1 channel, 16 bits, and the sample rate.
fn header(file: &Path) -> (u16, u16, u16, u32) {
    let bytes = std::fs::read(file).expect("read clip");
    assert!(bytes.len() > 44, "{}", file.display());
    assert_eq!(&bytes[0..4], b"RIFF");
    assert_eq!(&bytes[8..16], b"WAVEfmt ");
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let rate = u32::from_le_bytes([bytes[24], bytes[25], bytes[26], bytes[27]]);
    (u16_at(20), u16_at(22), u16_at(34), rate)
}

fn renders(lang: &str) {
    if !installed("espeak-ng", "espeak-ng") || !installed("sox", "sox") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("voice");
    let out_arg = out.to_string_lossy().into_owned();
    let o = tengen(&["voice", "--lang", lang, "--out", &out_arg]);
    assert_eq!(o.status.code(), Some(0), "{lang}: {}", stderr(&o));
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("tengen voice: 26 clips in "),
        "{}",
        lines[0]
    );
    eprintln!("{lang}: {}", lines[0]);

    let mut report = Vec::new();
    for name in clip_names() {
        let file = out.join(format!("{name}.wav"));
        assert!(file.is_file(), "{lang}: {} is missing", file.display());
        assert_eq!(header(&file), (1, 1, 16, 22050), "{}", file.display());
        let pcm = Pcm::read(&file).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(pcm.rate, 22050);
        // It starts with sound: above 1% of full scale within 10 ms.
        let first = pcm
            .samples
            .iter()
            .position(|s| s.unsigned_abs() > 328)
            .unwrap_or(usize::MAX);
        assert!(
            first <= 220,
            "{lang} {name}: {first} samples of silence first"
        );
        // And ends with it: no trailing silence over 10 ms either.
        let last = pcm
            .samples
            .iter()
            .rposition(|s| s.unsigned_abs() > 328)
            .unwrap_or(0);
        assert!(
            pcm.samples.len() - last <= 220,
            "{lang} {name}: silence at the end"
        );

        let sox = sox_stat(&file);
        assert!(
            sox.max_amplitude > 0.5,
            "{lang} {name}: peak {}",
            sox.max_amplitude
        );
        assert!(
            sox.rms_amplitude > 0.02,
            "{lang} {name}: rms {}",
            sox.rms_amplitude
        );
        let ms = pcm.duration_ms();
        assert!(
            (sox.length_s * 1000.0 - ms as f64).abs() < 2.0,
            "{lang} {name}: sox says {} s, hound {ms} ms",
            sox.length_s
        );
        if name.parse::<u32>().is_ok_and(|n| (1..=10).contains(&n)) {
            assert!(sox.length_s < 0.9, "{lang} {name}: {} s", sox.length_s);
        }
        assert!(ms > 50, "{lang} {name}: {ms} ms");
        report.push(format!("{name} {:.2}", sox.length_s));
    }
    eprintln!("{lang} clip lengths (s): {}", report.join(", "));
    // The board can load them.
    let set = ClipSet::load(&out, 48000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(set.rate(), 48000);
}

#[test]
fn english_clips() {
    renders("en");
}

#[test]
fn chinese_clips() {
    renders("zh");
}

#[test]
fn japanese_clips() {
    renders("ja");
}

#[test]
fn an_unknown_language_exits_2_and_lists_the_known_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().to_string_lossy().into_owned();
    let o = tengen(&["voice", "--lang", "fr", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    for known in [
        "\"fr\"",
        "en (English)",
        "zh (Chinese (Mandarin))",
        "ja (Japanese)",
    ] {
        assert!(err.contains(known), "{err}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).expect("read dir").count(), 0);
}

#[test]
fn without_espeak_it_exits_1_saying_what_to_install() {
    let dir = tempfile::tempdir().expect("tempdir");
    let empty = dir.path().join("bin");
    std::fs::create_dir(&empty).expect("mkdir");
    let out = dir.path().join("voice");
    let o = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["voice", "--lang", "en", "--out"])
        .arg(&out)
        .env("PATH", &empty)
        .output()
        .expect("run tengen");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("apt install espeak-ng"), "{err}");
    assert!(!out.exists());
}

/// A stand-in for espeak-ng in a folder of its own: `script` is its body after the
/// `--version` answer.
fn fake_espeak(dir: &Path, script: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let file = bin.join("espeak-ng");
    let text =
        format!("#!/bin/sh\nif [ \"$1\" = --version ]; then echo fake; exit 0; fi\n{script}\n");
    std::fs::write(&file, text).expect("write script");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", bin.display())
}

fn tengen_with_path(path: &str, out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["voice", "--lang", "en", "--out"])
        .arg(out)
        .env("PATH", path)
        .output()
        .expect("run tengen")
}

#[test]
fn a_count_too_slow_for_its_second_is_rendered_faster() {
    if !installed("sox", "sox") {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // Says every clip as a tone lasting 175/speed s: 1 s at espeak-ng's usual speed.
    let path = fake_espeak(
        dir.path(),
        "speed=175; file=\n\
         while [ $# -gt 0 ]; do case \"$1\" in -s) speed=$2; shift 2;; -w) file=$2; shift 2;; \
         -v) shift 2;; *) shift;; esac; done\n\
         exec sox -n -r 22050 -b 16 -c 1 \"$file\" synth $(awk \"BEGIN{print 175/$speed}\") sine 440",
    );
    let out = dir.path().join("voice");
    let o = tengen_with_path(&path, &out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // 175 -> 218 (0.80 s, still too long) -> 272 (0.64 s).
    let line = stdout(&o);
    assert!(line.contains("counts at -s 272"), "{line}");
    assert!(line.contains("the counts last 0.64 to 0.64 s"), "{line}");
    for name in clip_names() {
        let pcm = Pcm::read(&out.join(format!("{name}.wav"))).unwrap_or_else(|e| panic!("{e}"));
        let count = name.parse::<u32>().is_ok_and(|n| (1..=10).contains(&n));
        let want = if count { 643 } else { 1000 };
        assert!(
            pcm.duration_ms().abs_diff(want) <= 2,
            "{name}: {}",
            pcm.duration_ms()
        );
    }
}

#[test]
fn a_failing_espeak_exits_1_with_its_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = fake_espeak(dir.path(), "echo 'no voice here' >&2; exit 1");
    let out = dir.path().join("voice");
    let o = tengen_with_path(&path, &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("espeak-ng -v en failed on \"thirty\": no voice here"),
        "{err}"
    );
    // A silent clip is a failure too, not a silent board.
    if !installed("sox", "sox") {
        return;
    }
    let path = fake_espeak(
        dir.path(),
        "while [ $# -gt 1 ]; do [ \"$1\" = -w ] && file=$2; shift; done\n\
         exec sox -n -r 22050 -b 16 -c 1 \"$file\" trim 0 0.5",
    );
    let o = tengen_with_path(&path, &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("rendered the clip 30 (\"thirty\") as silence"),
        "{}",
        stderr(&o)
    );
}

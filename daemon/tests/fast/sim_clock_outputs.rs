//! `tengen sim --clock-frames DIR --audio-out FILE.wav` (docs/operating.md, "Commands"), run as a
//! user runs it, on a scripted byo-yomi game: White uses a whole period, then the last one
//! runs out.
//!
//! - The sound track is measured by reading the WAV here (its format checked by `sox`):
//!   each call of the game (its `byoyomi` events) starts within 30 ms of its instant, and
//!   nothing else is audible.
//! - The frames are checked against the game as this test folds it from `--events`: each
//!   PNG is the face of that moment, drawn by the one renderer; a face is written when it
//!   changes and at most ten times a second.

use crate::broker;
use crate::cli;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use tengen_protocol::{Envelope, GameView, Timestamp};
use tengen_rules::Color;
use tengen_table::{Face, MonoFrame};

const SCRIPT: &str = "size 9
time byoyomi 0s 2x60s
place B E5 1s
press B 500ms
wait 130s
";

fn config(dir: &Path, style: &str, clips: Option<&Path>) -> String {
    let mut text = format!("[board]\nid = \"sim\"\n[voice]\nstyle = \"{style}\"\n");
    if let Some(clips) = clips {
        text.push_str(&format!("dir = \"{}\"\n", clips.display()));
    }
    let path = dir.join(format!("{style}.toml"));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

struct Run {
    events: Vec<Envelope>,
    frames: std::path::PathBuf,
    track: std::path::PathBuf,
}

fn run(dir: &Path, config: &str) -> Run {
    let script = dir.join("byoyomi.txt");
    std::fs::write(&script, SCRIPT).unwrap();
    let (events, frames, track) = (
        dir.join("events.jsonl"),
        dir.join("frames"),
        dir.join("track.wav"),
    );
    let out = cli::tengen(&[
        "sim",
        "--script",
        script.to_str().unwrap(),
        "--config",
        config,
        "--events",
        events.to_str().unwrap(),
        "--clock-frames",
        frames.to_str().unwrap(),
        "--audio-out",
        track.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", cli::stderr(&out));
    let events = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Run {
        events,
        frames,
        track,
    }
}

/// A mono 16-bit PCM WAV, read here: (rate, samples).
fn read_wav(path: &Path) -> (u32, Vec<i16>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[0..4], b"RIFF");
    assert_eq!(&bytes[8..12], b"WAVE");
    let mut at = 12;
    let (mut rate, mut samples) = (0, Vec::new());
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        let body = &bytes[at + 8..at + 8 + len];
        if id == b"fmt " {
            assert_eq!(u16::from_le_bytes([body[0], body[1]]), 1, "PCM");
            assert_eq!(u16::from_le_bytes([body[2], body[3]]), 1, "mono");
            rate = u32::from_le_bytes(body[4..8].try_into().unwrap());
            assert_eq!(u16::from_le_bytes([body[14], body[15]]), 16, "16-bit");
        } else if id == b"data" {
            samples = body
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
        }
        at += 8 + len + (len & 1);
    }
    (rate, samples)
}

/// Where sound starts after at least `gap_ms` of silence, in ms from the start.
fn onsets(rate: u32, samples: &[i16], threshold: i16, gap_ms: u64) -> Vec<u64> {
    let gap = (u64::from(rate) * gap_ms / 1000) as usize;
    let mut quiet = usize::MAX;
    let mut out = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        if s.unsigned_abs() > threshold.unsigned_abs() {
            if quiet >= gap {
                out.push(i as u64 * 1000 / u64::from(rate));
            }
            quiet = 0;
        } else {
            quiet = quiet.saturating_add(1);
        }
    }
    out
}

/// The instants of the game's calls, in ms from its first event.
fn call_instants(events: &[Envelope]) -> Vec<u64> {
    let t0 = events[0].time.millis();
    events
        .iter()
        .filter(|e| e.event.kind() == "byoyomi")
        .map(|e| e.time.millis() - t0)
        .collect()
}

fn sox_says(track: &Path) -> Option<String> {
    let out = Command::new("soxi").arg(track).output();
    match out {
        Ok(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).into_owned()),
        _ => {
            assert!(!broker::oracles_required(), "sox (soxi) is required");
            eprintln!("soxi missing: the WAV's format is only checked here");
            None
        }
    }
}

fn check_track(run: &Run, gap_ms: u64) {
    if let Some(info) = sox_says(&run.track) {
        assert!(info.contains("Channels       : 1"), "{info}");
        assert!(info.contains("16-bit Signed Integer PCM"), "{info}");
    }
    let (rate, samples) = read_wav(&run.track);
    let instants = call_instants(&run.events);
    // 30, 40, 50, 55, 58, minute used; 30, 40, 50, 1 .. 10.
    assert_eq!(instants.len(), 6 + 13, "{instants:?}");
    let heard = onsets(rate, &samples, 300, gap_ms);
    assert_eq!(
        heard.len(),
        instants.len(),
        "heard {heard:?}\nsaid {instants:?}"
    );
    for (h, i) in heard.iter().zip(&instants) {
        assert!(h.abs_diff(*i) <= 30, "a call at {i} ms is heard at {h} ms");
    }
    // Nothing else: every loud sample is within the second after a call.
    for (k, s) in samples.iter().enumerate() {
        if s.unsigned_abs() > 300 {
            let ms = k as u64 * 1000 / u64::from(rate);
            assert!(
                instants.iter().any(|&i| ms >= i && ms < i + 2_600),
                "sound at {ms} ms, no call there"
            );
        }
    }
    // The track runs to the last event, and on until the last call ("10") is said.
    let end = run.events.last().unwrap().time.millis() - run.events[0].time.millis();
    let length = samples.len() as u64 * 1000 / u64::from(rate);
    assert!(
        length > end && length < end + 2_600,
        "{length} ms for {end} ms"
    );
}

#[test]
fn the_beeps_start_on_their_instants_and_nothing_else_is_heard() {
    let dir = tempfile::tempdir().unwrap();
    let run = run(dir.path(), &config(dir.path(), "beep", None));
    // Two beeps make "55" and "58": one onset each with a 100 ms gap.
    check_track(&run, 100);
}

#[test]
fn the_voice_says_each_call_on_its_instant() {
    let dir = tempfile::tempdir().unwrap();
    let clips = dir.path().join("clips");
    let made = cli::tengen(&["voice", "--lang", "en", "--out", clips.to_str().unwrap()]);
    if !made.status.success() {
        assert!(
            !broker::oracles_required(),
            "tengen voice failed: {}",
            cli::stderr(&made)
        );
        eprintln!("skipped: tengen voice: {}", cli::stderr(&made));
        return;
    }
    let run = run(dir.path(), &config(dir.path(), "voice", Some(&clips)));
    // Words have short pauses inside ("one minute used, one period left"): a call is one
    // onset after 300 ms of silence.
    check_track(&run, 300);
}

#[test]
fn each_frame_is_the_face_of_its_moment() {
    let dir = tempfile::tempdir().unwrap();
    let run = run(dir.path(), &config(dir.path(), "off", None));
    let t0 = run.events[0].time.millis();
    let mut frames: Vec<(u64, Color, std::path::PathBuf)> = std::fs::read_dir(&run.frames)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let (ms, c) = name.split_once('-').expect("{ms}-{B|W}.png");
            let color = match c {
                "B" => Color::Black,
                "W" => Color::White,
                other => panic!("{other}"),
            };
            (ms.parse().unwrap(), color, path)
        })
        .collect();
    frames.sort_by_key(|f| (f.0, f.1.index()));
    assert!(frames.len() > 100, "{}", frames.len());
    assert_eq!(
        (frames[0].0, frames[1].0),
        (0, 0),
        "both faces at the start"
    );
    for color in [Color::Black, Color::White] {
        let times: Vec<u64> = frames
            .iter()
            .filter(|f| f.1 == color)
            .map(|f| f.0)
            .collect();
        assert!(
            times.windows(2).all(|w| w[1] - w[0] >= 100),
            "{color:?}: at most ten frames a second"
        );
    }
    let mut view = GameView::new();
    let mut next = 0;
    let mut previous: [Option<MonoFrame>; 2] = [None, None];
    let mut checked = 0;
    for (ms, color, path) in &frames {
        while next < run.events.len() && run.events[next].time.millis() - t0 <= *ms {
            view.apply_envelope(&run.events[next]).unwrap();
            next += 1;
        }
        let png = std::fs::read(path).unwrap();
        let frame = MonoFrame::from_png(&png).unwrap();
        let face = Face::of(&view, *color, Timestamp::from_millis(t0 + ms));
        assert_eq!(frame, tengen_table::render(&face), "{}", path.display());
        assert_ne!(
            previous[color.index()].as_ref(),
            Some(&frame),
            "{}: a frame is written when it changes",
            path.display()
        );
        previous[color.index()] = Some(frame);
        checked += 1;
    }
    assert_eq!(checked, frames.len());
    // White's last seconds are drawn in tenths: ten frames a second at the end.
    let last_second: Vec<u64> = frames
        .iter()
        .filter(|f| f.1 == Color::White)
        .map(|f| f.0)
        .filter(|&ms| {
            let flag = call_instants(&run.events).last().copied().unwrap_or(0);
            ms + 1000 > flag && ms <= flag
        })
        .collect();
    assert!(last_second.len() >= 9, "{last_second:?}");
    let value: Value = serde_json::to_value(&run.events[0]).unwrap();
    assert_eq!(value["type"], "game_started");
}

/// `[display] lang = "zh"`: the same game's frames are written in Chinese, with the
/// players' Chinese names drawn: each is the face of its moment drawn in `zh`, and not the
/// English frame of that moment (the `en` run writes the English ones).
#[test]
fn the_frames_follow_the_display_language() {
    let dir = tempfile::tempdir().unwrap();
    let frames_in = |lang: &str| {
        let sub = dir.path().join(lang);
        std::fs::create_dir_all(&sub).unwrap();
        let path = sub.join("config.toml");
        std::fs::write(
            &path,
            format!(
                "[board]\nid = \"sim\"\n[voice]\nstyle = \"off\"\n[game]\nblack = \"柯洁\"\n\
                 white = \"芈昱廷\"\n[display]\nlang = \"{lang}\"\n"
            ),
        )
        .unwrap();
        let run = run(&sub, path.to_str().unwrap());
        let mut names: Vec<String> = std::fs::read_dir(&run.frames)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        (run, names)
    };
    let (zh, zh_names) = frames_in("zh");
    let (en, en_names) = frames_in("en");
    assert!(zh_names.len() > 100, "{}", zh_names.len());
    assert_eq!(zh_names, en_names, "the same frames at the same instants");
    let t0 = zh.events[0].time.millis();
    let mut view = GameView::new();
    let mut next = 0;
    let mut times: Vec<(u64, Color, &String)> = zh_names
        .iter()
        .map(|n| {
            let (ms, c) = n.trim_end_matches(".png").split_once('-').unwrap();
            let color = if c == "B" { Color::Black } else { Color::White };
            (ms.parse().unwrap(), color, n)
        })
        .collect();
    times.sort_by_key(|t| (t.0, t.1.index()));
    for (ms, color, name) in times {
        while next < zh.events.len() && zh.events[next].time.millis() - t0 <= ms {
            view.apply_envelope(&zh.events[next]).unwrap();
            next += 1;
        }
        let read =
            |dir: &Path| MonoFrame::from_png(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        let (zh_frame, en_frame) = (read(&zh.frames), read(&en.frames));
        let face = Face::of(&view, color, Timestamp::from_millis(t0 + ms));
        assert_eq!(
            zh_frame,
            tengen_table::render_in(&face, tengen_table::Lang::Zh),
            "{name}"
        );
        assert_eq!(en_frame, tengen_table::render(&face), "{name}");
        assert_ne!(
            zh_frame, en_frame,
            "{name}: the Chinese frame is not the English one"
        );
    }
}

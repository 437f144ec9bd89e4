//! The board's sound track on a game's timeline (`tengen sim --audio-out`): each [`Sound`]
//! placed at the moment the board starts playing it, in the voice or as beeps, and the
//! whole as one mono 16-bit [`Pcm`] whose time 0 is the game's first event.
//!
//! The board never queues a call late: a sound that starts while the previous one still
//! plays cuts it off (with a short fade), and the new one starts on time. [`onsets`]
//! measures where sounds start in a track, as a WAV reader would.

use std::f64::consts::TAU;
use std::path::Path;

use tengen_protocol::Timestamp;

use crate::clips::{ClipSet, CLIP_PEAK};
use crate::sound::{Beep, Sound, VoiceStyle};
use crate::wav::{samples_in, Pcm, WavError};

/// The buzzer's pitch, in Hz.
pub const BEEP_HZ: f64 = 2000.0;

/// A beep's fade in and fade out, in ms (no clicks).
pub const BEEP_FADE_MS: u64 = 5;

/// The fade out of a sound cut off by the next one, in ms.
pub const CUT_FADE_MS: u64 = 3;

/// How a track sounds: [`VoiceStyle`], with the clips for the voice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrackStyle {
    /// The clips of a voice.
    Voice(ClipSet),
    /// A 2 kHz tone in each sound's [`Sound::beeps`] pattern.
    Beep,
    /// Silence.
    Off,
}

impl TrackStyle {
    /// The `[voice] style` it plays.
    pub fn style(&self) -> VoiceStyle {
        match self {
            TrackStyle::Voice(_) => VoiceStyle::Voice,
            TrackStyle::Beep => VoiceStyle::Beep,
            TrackStyle::Off => VoiceStyle::Off,
        }
    }
}

/// One sound on the timeline.
#[derive(Debug, Clone)]
struct Placed {
    /// The first sample.
    start: usize,
    sound: Sound,
}

/// The sounds of a game on its timeline, and the track they make.
#[derive(Debug, Clone)]
pub struct SoundTrack {
    style: TrackStyle,
    volume: f64,
    rate: u32,
    origin: Timestamp,
    placed: Vec<Placed>,
}

impl SoundTrack {
    /// An empty track: sounds in `style` at `volume` (`0.0..=1.0` of the clips' level or of
    /// the buzzer's full level; clamped, NaN is silence), `rate` samples per second (at
    /// least 1), time 0 at `origin` (the game's first event).
    pub fn new(style: TrackStyle, volume: f32, rate: u32, origin: Timestamp) -> SoundTrack {
        let volume = if volume.is_nan() {
            0.0
        } else {
            f64::from(volume.clamp(0.0, 1.0))
        };
        SoundTrack {
            style,
            volume,
            rate: rate.max(1),
            origin,
            placed: Vec::new(),
        }
    }

    /// The sample rate.
    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// How many sounds were added.
    pub fn len(&self) -> usize {
        self.placed.len()
    }

    /// True when no sound was added.
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty()
    }

    /// Places `sound` so that it starts at `start` (the moment the board starts playing
    /// it; before the origin counts as the origin), on the first sample at or after that
    /// instant. A sound starting while an earlier one still plays cuts that one off there.
    pub fn add(&mut self, sound: &Sound, start: Timestamp) {
        let ms = start.millis().saturating_sub(self.origin.millis());
        let start = usize::try_from(ms.saturating_mul(u64::from(self.rate)).div_ceil(1000))
            .unwrap_or(usize::MAX);
        self.placed.push(Placed {
            start,
            sound: *sound,
        });
    }

    /// One sound alone as this track plays it, from its first sample.
    pub fn render(&self, sound: &Sound) -> Pcm {
        match &self.style {
            TrackStyle::Voice(clips) => {
                let pcm = clips.pcm_for(sound);
                let pcm = if pcm.rate == self.rate {
                    pcm
                } else {
                    pcm.resample(self.rate)
                };
                pcm.scale(self.volume)
            }
            TrackStyle::Beep => beeps(&sound.beeps(), self.rate, self.volume),
            TrackStyle::Off => Pcm::new(self.rate, Vec::new()),
        }
    }

    /// The track from the origin to `end`: every sound at its place, each cut off where the
    /// next one starts, silence elsewhere.
    pub fn finish(&self, end: Timestamp) -> Pcm {
        let ms = end.millis().saturating_sub(self.origin.millis());
        let len = samples_in(self.rate, ms);
        let mut out = vec![0i16; len];
        let mut order: Vec<&Placed> = self.placed.iter().collect();
        // Stable: of two sounds at one instant, the one added last is heard.
        order.sort_by_key(|p| p.start);
        let cut_fade = samples_in(self.rate, CUT_FADE_MS).max(1);
        for (i, p) in order.iter().enumerate() {
            if p.start >= len {
                continue;
            }
            let next = order.get(i + 1).map_or(usize::MAX, |n| n.start);
            let pcm = self.render(&p.sound);
            let room = next.min(len) - p.start;
            let n = pcm.samples.len().min(room);
            let target = &mut out[p.start..p.start + n];
            target.copy_from_slice(&pcm.samples[..n]);
            if pcm.samples.len() > next - p.start {
                let fade = cut_fade.min(n);
                for (k, s) in target[n - fade..].iter_mut().enumerate() {
                    let gain = (fade - 1 - k) as f64 / fade as f64;
                    *s = (f64::from(*s) * gain).round() as i16;
                }
            }
        }
        Pcm::new(self.rate, out)
    }

    /// Writes [`SoundTrack::finish`] as a mono 16-bit PCM WAV file.
    pub fn write_wav(&self, end: Timestamp, path: &Path) -> Result<(), WavError> {
        self.finish(end).write(path)
    }
}

/// A buzzer pattern as sound: a [`BEEP_HZ`] tone with [`BEEP_FADE_MS`] fades, at `volume`
/// of the clips' peak.
fn beeps(pattern: &[Beep], rate: u32, volume: f64) -> Pcm {
    let place = |ms: u32| samples_in(rate, u64::from(ms));
    let total = pattern
        .iter()
        .map(|b| place(b.offset_ms) + place(b.length_ms))
        .max()
        .unwrap_or(0);
    let mut samples = vec![0i16; total];
    let amplitude = volume * f64::from(CLIP_PEAK) * 32767.0;
    let fade = samples_in(rate, BEEP_FADE_MS).max(1);
    for b in pattern {
        let (start, n) = (place(b.offset_ms), place(b.length_ms));
        for (j, s) in samples[start..start + n].iter_mut().enumerate() {
            let envelope = (j.min(n - 1 - j) as f64 / fade as f64).min(1.0);
            let phase = TAU * BEEP_HZ * j as f64 / f64::from(rate);
            *s = (amplitude * envelope * phase.sin()).round() as i16;
        }
    }
    Pcm::new(rate, samples)
}

/// Where sounds start in `pcm`, in ms from its first sample (rounded down): each sample
/// louder than `threshold` (absolute value) that comes after at least `min_gap_ms` of
/// samples no louder (or at the very start).
pub fn onsets(pcm: &Pcm, threshold: u16, min_gap_ms: u64) -> Vec<u64> {
    let gap = samples_in(pcm.rate, min_gap_ms);
    let mut quiet = usize::MAX;
    let mut found = Vec::new();
    for (i, s) in pcm.samples.iter().enumerate() {
        if s.unsigned_abs() > threshold {
            if quiet >= gap {
                found.push(i as u64 * 1000 / u64::from(pcm.rate.max(1)));
            }
            quiet = 0;
        } else {
            quiet = quiet.saturating_add(1);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sound::clip_names;
    use tengen_rules::clock::Call;
    use tengen_rules::Color;

    const T0: u64 = 1_764_423_901_250;

    fn at(ms: u64) -> Timestamp {
        Timestamp::from_millis(T0 + ms)
    }

    fn sound(call: Call, periods_left: u32) -> Sound {
        Sound {
            at: at(0),
            color: Color::Black,
            call,
            periods_left,
        }
    }

    /// Clips that tell each other apart: clip `i` is a square wave of level `1000 + i`,
    /// 400 ms long at 16 kHz.
    fn square_clips() -> ClipSet {
        let clips = clip_names().into_iter().enumerate().map(|(i, name)| {
            let level = 1000 + i as i16;
            let samples = (0..6400)
                .map(|j| if j % 2 == 0 { level } else { -level })
                .collect();
            (name, Pcm::new(16000, samples))
        });
        ClipSet::from_clips(16000, clips).unwrap()
    }

    fn level_of(name: &str) -> i16 {
        1000 + clip_names().iter().position(|n| n == name).unwrap() as i16
    }

    #[test]
    fn a_new_sound_cuts_the_one_still_playing() {
        let mut track = SoundTrack::new(TrackStyle::Voice(square_clips()), 1.0, 16000, at(0));
        track.add(&sound(Call::S50, 1), at(1000));
        // 200 ms into the 400 ms "50": the "1" starts now, not when "50" ends.
        track.add(&sound(Call::Count(1), 1), at(1200));
        track.add(&sound(Call::Count(2), 1), at(2200));
        let pcm = track.finish(at(3000));
        assert_eq!(pcm.samples.len(), 48000);
        let s = |ms: usize| pcm.samples[ms * 16].unsigned_abs() as i16;
        assert_eq!(s(999), 0);
        assert_eq!(s(1000), level_of("50"));
        assert_eq!(s(1190), level_of("50"));
        assert_eq!(s(1200), level_of("1"));
        assert_eq!(s(1599), level_of("1"));
        assert_eq!(s(1600), 0);
        assert_eq!(s(2200), level_of("2"));
        // The cut sound fades out just before the new one starts.
        assert_eq!(pcm.samples[1200 * 16 - 1], 0);
        assert_eq!(onsets(&pcm, 10, 20), [1000, 2200]);
        // Added out of order, the same track.
        let mut shuffled = SoundTrack::new(TrackStyle::Voice(square_clips()), 1.0, 16000, at(0));
        shuffled.add(&sound(Call::Count(2), 1), at(2200));
        shuffled.add(&sound(Call::Count(1), 1), at(1200));
        shuffled.add(&sound(Call::S50, 1), at(1000));
        assert_eq!(shuffled.finish(at(3000)), pcm);
    }

    #[test]
    fn a_call_of_several_clips_and_the_volume() {
        let mut track = SoundTrack::new(TrackStyle::Voice(square_clips()), 0.5, 16000, at(0));
        track.add(&sound(Call::MinuteUsed, 3), at(100));
        let pcm = track.finish(at(2000));
        let s = |ms: usize| pcm.samples[ms * 16].unsigned_abs() as i16;
        let half = |level: i16| (f64::from(level) * 0.5).round() as i16;
        assert_eq!(s(100), half(level_of("minute_used")));
        assert_eq!(s(500), 0);
        let second = 100 + 400 + crate::clips::CLIP_GAP_MS as usize;
        assert_eq!(s(second), half(level_of("periods_3")));
        assert_eq!(s(second + 400), 0);
        // The end of the track cuts what is still playing.
        assert_eq!(track.finish(at(300)).samples.len(), 300 * 16);
        assert_eq!(track.finish(at(0)).samples.len(), 0);
        let off = SoundTrack::new(TrackStyle::Off, 1.0, 8000, at(0));
        assert!(off.render(&sound(Call::S30, 1)).is_empty());
    }

    #[test]
    fn beeps_follow_the_pattern() {
        let mut track = SoundTrack::new(TrackStyle::Beep, 1.0, 48000, at(0));
        track.add(&sound(Call::S55, 1), at(2000));
        track.add(&sound(Call::Count(10), 1), at(5000));
        let pcm = track.finish(at(7000));
        assert_eq!(onsets(&pcm, 100, 40), [2000, 2160, 5000]);
        let loud: Vec<usize> = pcm
            .samples
            .iter()
            .enumerate()
            .filter(|(_, s)| s.unsigned_abs() > 100)
            .map(|(i, _)| i)
            .collect();
        let first_beep_end = loud.iter().filter(|&&i| i < 2100 * 48).max().unwrap();
        assert!((2075 * 48..2080 * 48).contains(first_beep_end));
        let last = *loud.last().unwrap();
        assert!((5995 * 48..6000 * 48).contains(&last));
        assert!(pcm.peak() > 29000 && pcm.peak() <= 29491, "{}", pcm.peak());
        // The tone is 2 kHz: 80 ms of it cross zero 320 times.
        let first: Vec<i16> = pcm.samples[2000 * 48..2100 * 48].to_vec();
        let crossings = first
            .windows(2)
            .filter(|w| (w[0] < 0) != (w[1] < 0))
            .count();
        assert!((315..=321).contains(&crossings), "{crossings}");
    }

    #[test]
    fn onsets_of_a_synthetic_track_are_exact_to_the_ms() {
        let instants = [1u64, 1003, 2999, 4321, 5000, 7777, 9001, 12_345];
        for rate in [8000, 16000, 22050, 44100, 48000] {
            let mut beep = SoundTrack::new(TrackStyle::Beep, 1.0, rate, at(0));
            let mut voice = SoundTrack::new(TrackStyle::Voice(square_clips()), 1.0, rate, at(0));
            for &ms in &instants {
                beep.add(&sound(Call::Count(3), 1), at(ms));
                voice.add(&sound(Call::S30, 1), at(ms));
            }
            let pcm = beep.finish(at(13_000));
            assert_eq!(onsets(&pcm, 200, 30), instants, "beeps at {rate} Hz");
            let pcm = voice.finish(at(13_000));
            assert_eq!(onsets(&pcm, 200, 30), instants, "voice at {rate} Hz");
        }
    }

    #[test]
    fn a_track_is_written_as_a_wav_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("track.wav");
        let mut track = SoundTrack::new(TrackStyle::Beep, 0.8, 22050, at(0));
        track.add(&sound(Call::S30, 1), at(500));
        track.write_wav(at(1500), &path).unwrap();
        let back = Pcm::read(&path).unwrap();
        assert_eq!(back, track.finish(at(1500)));
        assert_eq!(back.duration_ms(), 1500);
        assert_eq!(onsets(&back, 200, 30), [500]);
        let e = track
            .write_wav(at(1500), &dir.path().join("no/such/dir.wav"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no/such/dir.wav: cannot write"), "{e}");
    }
}

//! What the board says, as data: a [`Sound`] is one spoken call (Art. 12.3) for one player
//! at one instant, and how it sounds in each [`VoiceStyle`]: the clip names a voice plays
//! ([`Sound::clips`], the names `tengen voice` writes) or the beeps a buzzer makes
//! ([`Sound::beeps`]).

use tengen_protocol::Timestamp;
use tengen_rules::clock::Call;
use tengen_rules::Color;

/// How the board speaks (`[voice] style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VoiceStyle {
    /// Recorded or rendered clips, played through the audio output.
    #[default]
    Voice,
    /// Beeps on the buzzer (the indicator pin), for boards without a speaker.
    Beep,
    /// Silent: the calls are still published as `byoyomi` events.
    Off,
}

impl VoiceStyle {
    /// The config word: `voice`, `beep` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            VoiceStyle::Voice => "voice",
            VoiceStyle::Beep => "beep",
            VoiceStyle::Off => "off",
        }
    }

    /// Reads the config word.
    pub fn parse(word: &str) -> Option<VoiceStyle> {
        match word {
            "voice" => Some(VoiceStyle::Voice),
            "beep" => Some(VoiceStyle::Beep),
            "off" => Some(VoiceStyle::Off),
            _ => None,
        }
    }
}

/// One call to be spoken: Art. 12.3's count in byo-yomi (the `byoyomi` event's `call`), and
/// its equivalent in the last minute of absolute, Fischer and Canadian time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sound {
    /// The instant it is due, on the board's clock.
    pub at: Timestamp,
    /// Whose clock is counted.
    pub color: Color,
    /// The call.
    pub call: Call,
    /// For [`Call::MinuteUsed`], the periods left after the one that ran out ("1 minute
    /// used, N left"); otherwise the periods left including the one counted (0 outside
    /// byo-yomi).
    pub periods_left: u32,
}

/// The most "N periods left" clips `tengen voice` renders (`periods_1` .. `periods_10`); a
/// count above it is said as "1 minute used" alone.
pub const MAX_PERIODS_CLIP: u32 = 10;

/// One beep of a buzzer pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Beep {
    /// From the start of the sound, in ms.
    pub offset_ms: u32,
    /// How long the buzzer sounds, in ms.
    pub length_ms: u32,
}

impl Sound {
    /// The clip names a voice plays for this call, one after the other: `"30"`, ...,
    /// `"minute_used"` then `"periods_{n}"`, `"1"` .. `"10"` (docs/operating.md, "Commands").
    pub fn clips(&self) -> Vec<String> {
        let mut names = vec![self.call.as_str().to_string()];
        if self.call == Call::MinuteUsed
            && self.periods_left > 0
            && self.periods_left <= MAX_PERIODS_CLIP
        {
            names.push(format!("periods_{}", self.periods_left));
        }
        names
    }

    /// The buzzer pattern for this call: one beep for 30, 40 and 50 s, two short ones for
    /// 55 and 58 s, a short tick for each second of the last count, a long one when a
    /// period is used and when the last one runs out.
    pub fn beeps(&self) -> Vec<Beep> {
        let beep = |offset_ms, length_ms| Beep {
            offset_ms,
            length_ms,
        };
        match self.call {
            Call::S30 | Call::S40 | Call::S50 => vec![beep(0, 150)],
            Call::S55 | Call::S58 => vec![beep(0, 80), beep(160, 80)],
            Call::MinuteUsed => vec![beep(0, 600)],
            Call::Count(10) => vec![beep(0, 1000)],
            Call::Count(_) => vec![beep(0, 60)],
        }
    }
}

/// A buzzer playing one call's beeps, as a pure function of time: the driver sets its pin
/// to [`BeepPlayer::on`] at each turn of its loop. A new call replaces the one playing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BeepPlayer {
    start: u64,
    beeps: Vec<Beep>,
}

impl BeepPlayer {
    /// Silent.
    pub fn new() -> BeepPlayer {
        BeepPlayer::default()
    }

    /// Starts `sound`'s pattern at `now` (ms), cutting whatever was playing.
    pub fn play(&mut self, sound: &Sound, now: u64) {
        self.start = now;
        self.beeps = sound.beeps();
    }

    /// Whether the buzzer sounds at `now` (ms).
    pub fn on(&self, now: u64) -> bool {
        let t = now.saturating_sub(self.start);
        now >= self.start
            && self.beeps.iter().any(|b| {
                let from = u64::from(b.offset_ms);
                t >= from && t < from + u64::from(b.length_ms)
            })
    }
}

/// Every clip name a voice needs: the calls of `byoyomi` events and `periods_1` ..
/// `periods_10`, in the order `tengen voice` renders them.
pub fn clip_names() -> Vec<String> {
    let mut names: Vec<String> = [
        Call::S30,
        Call::S40,
        Call::S50,
        Call::S55,
        Call::S58,
        Call::MinuteUsed,
    ]
    .iter()
    .map(|c| c.as_str().to_string())
    .collect();
    names.extend((1..=10).map(|n| Call::Count(n).as_str().to_string()));
    names.extend((1..=MAX_PERIODS_CLIP).map(|n| format!("periods_{n}")));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sound(call: Call, periods_left: u32) -> Sound {
        Sound {
            at: Timestamp::from_millis(0),
            color: Color::Black,
            call,
            periods_left,
        }
    }

    #[test]
    fn a_used_period_says_how_many_are_left() {
        assert_eq!(
            sound(Call::MinuteUsed, 2).clips(),
            ["minute_used", "periods_2"]
        );
        assert_eq!(sound(Call::MinuteUsed, 11).clips(), ["minute_used"]);
        assert_eq!(sound(Call::S30, 3).clips(), ["30"]);
        assert_eq!(sound(Call::Count(7), 1).clips(), ["7"]);
    }

    #[test]
    fn every_clip_a_sound_can_ask_for_is_in_the_list() {
        let names = clip_names();
        assert_eq!(names.len(), 6 + 10 + 10);
        for call in [
            Call::S30,
            Call::S55,
            Call::MinuteUsed,
            Call::Count(1),
            Call::Count(10),
        ] {
            for p in 0..=10 {
                for clip in sound(call, p).clips() {
                    assert!(names.contains(&clip), "{clip}");
                }
            }
        }
    }

    #[test]
    fn the_buzzer_follows_the_pattern_and_a_new_call_cuts_the_old() {
        let mut p = BeepPlayer::new();
        assert!(!p.on(0));
        p.play(&sound(Call::S55, 2), 1000);
        let on: Vec<u64> = (990..1300).filter(|&t| p.on(t)).collect();
        assert_eq!(on.first(), Some(&1000));
        assert_eq!(on.len(), 160);
        assert!(p.on(1079) && !p.on(1080) && !p.on(1159) && p.on(1160) && !p.on(1240));
        p.play(&sound(Call::Count(3), 1), 1050);
        assert!(p.on(1050) && p.on(1109) && !p.on(1110) && !p.on(1160));
    }

    #[test]
    fn beeps_of_the_last_count_fit_in_their_second() {
        for n in 1..=9 {
            let end = sound(Call::Count(n), 1)
                .beeps()
                .iter()
                .map(|b| b.offset_ms + b.length_ms)
                .max()
                .unwrap();
            assert!(end < 1000);
        }
        for style in [VoiceStyle::Voice, VoiceStyle::Beep, VoiceStyle::Off] {
            assert_eq!(VoiceStyle::parse(style.as_str()), Some(style));
        }
    }
}

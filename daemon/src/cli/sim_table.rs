//! The players' side of `tengen sim` (docs/operating.md, "Commands"): `--clock-frames DIR` writes
//! each distinct frame of the two player displays as a PNG (`DIR/{ms}-B.png`,
//! `DIR/{ms}-W.png`, `ms` = virtual ms since the first event; in `[display] lang`) and `--audio-out FILE.wav` the
//! board's sound track (mono 16-bit PCM, time 0 at the first event) in the configured voice
//! or beeps. Both come from the table's [`Schedule`] polled after every scan, exactly as a
//! board's loop polls it, so a frame appears and a call starts when they would on a board.

use std::path::PathBuf;

use tengen_protocol::{Event, GameView, Timestamp};
use tengen_rules::Color;
use tengen_table::clips::ClipSet;
use tengen_table::track::{SoundTrack, TrackStyle};
use tengen_table::{Lang, Schedule, VoiceStyle};

use super::args::SimArgs;
use super::CliError;
use crate::config::Config;

/// The sample rate of `--audio-out` (the rate `tengen voice` renders clips at).
const TRACK_RATE: u32 = 22_050;

/// The scale of a `--clock-frames` PNG: the display's own pixels.
const FRAME_SCALE: u32 = 1;

/// What `--clock-frames` and `--audio-out` ask for, as the run goes.
pub(super) struct SimTable {
    schedule: Schedule,
    frames: Option<PathBuf>,
    /// The language of the frames' words (`[display] lang`).
    lang: Lang,
    /// The track, once the first event gave time 0, and where it goes.
    track: Option<(PathBuf, Option<SoundTrack>)>,
    style: Option<TrackStyle>,
    volume: f32,
    origin: Option<Timestamp>,
    /// When the last sound placed ends (the track runs at least that long).
    sounds_end: Timestamp,
}

impl SimTable {
    /// `None` when neither option is given. Checks what can be checked before the run: the
    /// frames folder can be made, the clips of a voice load.
    pub(super) fn new(args: &SimArgs, config: &Config) -> Result<Option<SimTable>, CliError> {
        if args.clock_frames.is_none() && args.audio_out.is_none() {
            return Ok(None);
        }
        if let Some(dir) = &args.clock_frames {
            std::fs::create_dir_all(dir)
                .map_err(|e| CliError::work(format!("--clock-frames: {}: {e}", dir.display())))?;
        }
        let style = match (&args.audio_out, config.voice.style) {
            (None, _) => None,
            (Some(_), VoiceStyle::Voice) => Some(TrackStyle::Voice(
                ClipSet::load(&config.voice.dir, TRACK_RATE)
                    .map_err(|e| CliError::input(format!("voice.dir: {e}")))?,
            )),
            (Some(_), VoiceStyle::Beep) => Some(TrackStyle::Beep),
            (Some(_), VoiceStyle::Off) => Some(TrackStyle::Off),
        };
        Ok(Some(SimTable {
            schedule: Schedule::new(),
            frames: args.clock_frames.clone(),
            lang: config.display.lang,
            track: args.audio_out.clone().map(|path| (path, None)),
            style,
            volume: config.voice.volume as f32,
            origin: None,
            sounds_end: Timestamp::default(),
        }))
    }

    /// An event as the board records it.
    pub(super) fn on_event(&mut self, event: &Event, at: Timestamp) {
        if self.origin.is_none() {
            self.origin = Some(at);
            if let (Some((_, track)), Some(style)) = (&mut self.track, self.style.take()) {
                *track = Some(SoundTrack::new(style, self.volume, TRACK_RATE, at));
            }
        }
        self.schedule.on_event(event, at);
    }

    /// One turn of the board's loop at `now`: the faces that changed are written, the call
    /// that is due starts now.
    pub(super) fn poll(&mut self, view: &GameView, now: Timestamp) -> Result<(), CliError> {
        let due = self.schedule.poll(view, now);
        let ms = now
            .millis()
            .saturating_sub(self.origin.map_or(now.millis(), Timestamp::millis));
        if let Some(dir) = &self.frames {
            for (color, face) in &due.faces {
                let letter = if *color == Color::Black { "B" } else { "W" };
                let path = dir.join(format!("{ms}-{letter}.png"));
                let png = tengen_table::render_in(face, self.lang).to_png(FRAME_SCALE);
                std::fs::write(&path, png).map_err(|e| {
                    CliError::work(format!("--clock-frames: {}: {e}", path.display()))
                })?;
            }
        }
        if let (Some(sound), Some((_, Some(track)))) = (due.sound, &mut self.track) {
            track.add(&sound, now);
            let length = track.render(&sound).duration_ms();
            self.sounds_end = Timestamp::from_millis(now.millis() + length);
        }
        Ok(())
    }

    /// Writes the sound track up to `end` (the last event), or to the end of the last
    /// sound when it is still playing then (the "10" of a flag).
    pub(super) fn finish(self, end: Timestamp) -> Result<(), CliError> {
        let end = end.max(self.sounds_end);
        if let Some((path, track)) = self.track {
            let origin = self.origin.unwrap_or(end);
            let track = match (track, self.style) {
                (Some(track), _) => track,
                // No event at all: an empty track.
                (None, style) => SoundTrack::new(
                    style.unwrap_or(TrackStyle::Off),
                    self.volume,
                    TRACK_RATE,
                    origin,
                ),
            };
            track
                .write_wav(end, &path)
                .map_err(|e| CliError::work(format!("--audio-out: {e}")))?;
        }
        Ok(())
    }
}

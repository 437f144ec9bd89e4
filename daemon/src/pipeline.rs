//! The one pipeline that `tengen sim`, `tengen run` and `tengen demo` all use:
//! frame -> classify -> stabiliser -> referee (with the clock) -> events.
//!
//! Sans-IO: the caller brings each scan (a [`Frame`] stamped with its time) and the
//! clock-button events since the previous scan, and gets the events to write.

use tengen_hal::calibration::{AdcBits, Calibration};
use tengen_hal::classify::Classifier;
use tengen_hal::{ButtonEvent, Frame, FrameData, Millis, PointState};

use crate::command::CommandEnvelope;
use crate::event::Event;
use crate::referee::{Referee, RefereeError, RefereeSettings};
use crate::stabiliser::Stabiliser;

/// Why a scan could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The frame does not have one reading per point.
    #[error("frame has {found} readings, the board has {expected} points")]
    WrongLength {
        /// Points on the board.
        expected: usize,
        /// Readings in the frame.
        found: usize,
    },
    /// The calibration for raw frames could not be set up.
    #[error("calibration: {0}")]
    Calibration(String),
}

/// Frame -> classify -> stabiliser -> referee.
#[derive(Debug, Clone)]
pub struct Pipeline {
    classifier: Option<Classifier>,
    calibration: Option<Calibration>,
    stabiliser: Stabiliser,
    referee: Referee,
}

impl Pipeline {
    /// A pipeline for a new game at `now`; returns it with the game's first events.
    /// `calibration` classifies raw frames (the default calibration of a 12-bit ADC when
    /// `None`); classified frames bypass it.
    pub fn new(
        settings: RefereeSettings,
        calibration: Option<Calibration>,
        now: Millis,
    ) -> Result<(Pipeline, Vec<Event>), RefereeError> {
        let stable_ms = settings.stable_ms;
        let (referee, events) = Referee::new(settings, now)?;
        let size = referee.settings().size;
        let stabiliser = Stabiliser::new(size, stable_ms, Some(referee.physical()));
        Ok((
            Pipeline {
                classifier: None,
                calibration,
                stabiliser,
                referee,
            },
            events,
        ))
    }

    /// A pipeline around a referee restored from the event log; the stabiliser starts from
    /// what the board should show, and the first stable scans correct it.
    pub fn from_referee(referee: Referee, calibration: Option<Calibration>) -> Pipeline {
        let stabiliser = Stabiliser::new(
            referee.settings().size,
            referee.settings().stable_ms,
            Some(&referee.expected_physical()),
        );
        Pipeline {
            classifier: None,
            calibration,
            stabiliser,
            referee,
        }
    }

    /// The referee (record, alerts, snapshot, SGF).
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// Puts another referee in (one restored from the event log), telling it what the
    /// stabiliser sees now.
    pub fn replace_referee(&mut self, mut referee: Referee) {
        referee.resync_physical(self.stabiliser.stable());
        self.referee = referee;
    }

    /// The stabiliser (the stable physical board).
    pub fn stabiliser(&self) -> &Stabiliser {
        &self.stabiliser
    }

    /// One scan and the button events since the previous one.
    pub fn step(
        &mut self,
        frame: &Frame,
        buttons: &[ButtonEvent],
    ) -> Result<Vec<Event>, PipelineError> {
        let now = frame.time;
        let changes = match &frame.data {
            FrameData::Classified(states) => self.feed(now, states)?,
            FrameData::Raw(_) => {
                let classifier = self.classifier()?;
                let states = classifier
                    .classify(frame)
                    .map_err(|e| PipelineError::Calibration(e.to_string()))?;
                let states: Vec<PointState> = states.to_vec();
                self.feed(now, &states)?
            }
        };
        let mut events = Vec::new();
        if !changes.is_empty() {
            events.extend(self.referee.on_changes(&changes, now));
        }
        if !buttons.is_empty() {
            // Presses count at the scan that reports them: every input of the referee is on
            // the scan's time base (10 ms at 100 Hz), so the event log replays exactly.
            let at_scan: Vec<ButtonEvent> = buttons
                .iter()
                .map(|b| ButtonEvent { time: now, ..*b })
                .collect();
            events.extend(self.referee.on_buttons(&at_scan));
        }
        events.extend(self.referee.tick(now));
        Ok(events)
    }

    fn feed(
        &mut self,
        now: Millis,
        states: &[PointState],
    ) -> Result<Vec<crate::stabiliser::Change>, PipelineError> {
        self.stabiliser
            .feed(now, states)
            .map_err(|found| PipelineError::WrongLength {
                expected: self.stabiliser.stable().len(),
                found,
            })
    }

    fn classifier(&mut self) -> Result<&mut Classifier, PipelineError> {
        if self.classifier.is_none() {
            let size = self.stabiliser.size();
            let cal = match self.calibration.take() {
                Some(c) => c,
                None => Calibration::default_for(size, AdcBits::Twelve)
                    .map_err(|e| PipelineError::Calibration(e.to_string()))?,
            };
            self.classifier = Some(Classifier::new(&cal));
        }
        self.classifier
            .as_mut()
            .ok_or_else(|| PipelineError::Calibration("no classifier".to_string()))
    }

    /// An arbiter command at `now`. A `new_game` restarts the stabiliser too.
    pub fn command(&mut self, cmd: &CommandEnvelope, now: Millis) -> Result<Vec<Event>, String> {
        let size_before = self.referee.settings().size;
        let events = self.referee.on_command(cmd, now)?;
        if self.referee.settings().size != size_before {
            self.stabiliser = Stabiliser::new(
                self.referee.settings().size,
                self.referee.settings().stable_ms,
                None,
            );
        }
        Ok(events)
    }
}

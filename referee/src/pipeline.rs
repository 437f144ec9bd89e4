//! The one pipeline that `tengen sim`, `tengen run` and `tengen demo` all use:
//! frame -> classify -> stabiliser -> referee (with the clock) -> events, with the
//! classified readings also watched for noisy and stuck sensors ([`SensorHealth`]).
//!
//! Sans-IO: the caller brings each scan (a [`Frame`] stamped with its time) and the
//! clock-button events since the previous scan, and gets the events to write.
//!
//! A clock press waits while the presser's stone (or a capture they are lifting) is still
//! on its way through the stabiliser: it is handed to the referee once that change is
//! released or has gone, and at the latest `pass_grace_ms` after the press. Without this,
//! a press within the stable time of a stone's touch-down (a quick hand, or scans lost on
//! the serial link just then) would read as a pass.

use std::collections::VecDeque;
use tengen_hal::calibration::{AdcBits, Calibration};
use tengen_hal::classify::Classifier;

use tengen_hal::{Button, ButtonAction, ButtonEvent, Frame, FrameData, Millis, PointState};
use tengen_rules::Color;

use tengen_protocol::event::FaultKind;
use tengen_protocol::{Command, CommandEnvelope, Event};

use crate::referee::{CommandRefused, Referee, RefereeError, RefereeSettings};
use crate::sensor_check::SensorCheck;
use crate::sensor_health::SensorHealth;
use crate::stabiliser::{Change, Stabiliser};

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
    /// Presses waiting for a change in the stabiliser, oldest first, at their scan's time.
    presses: VecDeque<ButtonEvent>,
    health: SensorHealth,
    /// The sensor check before play, and the points it found stuck.
    check: SensorCheck,
    /// The last scan's classified readings, as the sensors gave them (the black box's).
    seen: Vec<PointState>,
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
        let (referee, events) = Referee::start(settings, now)?;
        let size = referee.settings().game.size;
        let stabiliser = Stabiliser::new(size, stable_ms, Some(referee.physical()));
        Ok((
            Pipeline {
                classifier: None,
                calibration,
                stabiliser,
                referee,
                presses: VecDeque::new(),
                health: SensorHealth::new(size),
                check: SensorCheck::start(size, now),
                seen: Vec::new(),
            },
            events,
        ))
    }

    /// A pipeline around a referee restored from the event log; the stabiliser starts from
    /// what the board should show, and the first stable scans correct it.
    pub fn from_referee(referee: Referee, calibration: Option<Calibration>) -> Pipeline {
        let size = referee.settings().game.size;
        let health = SensorHealth::new(size);
        // A game taken up after a restart is not checked again; the points its check found
        // stay read as the board expects.
        let mut check = SensorCheck::idle(size);
        check.mark_found(
            referee
                .view()
                .faults()
                .iter()
                .filter(|f| f.kind == FaultKind::Stuck)
                .flat_map(|f| f.points.iter().copied()),
        );
        let stabiliser = Stabiliser::new(
            referee.settings().game.size,
            referee.settings().stable_ms,
            Some(&referee.expected_physical()),
        );
        Pipeline {
            classifier: None,
            calibration,
            stabiliser,
            referee,
            presses: VecDeque::new(),
            health,
            check,
            seen: Vec::new(),
        }
    }

    /// The last scan's classified readings as the sensors gave them (row-major, top row
    /// first; empty before the first scan): what the black box records.
    pub fn seen(&self) -> &[PointState] {
        &self.seen
    }

    /// The referee (record, alerts, snapshot, SGF).
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// Puts in a referee rebuilt from the journal ([`Referee::replay`]) in place of this
    /// one, telling it what the stabiliser sees now: how a rebuilt referee is checked
    /// against the one it replaces, from the same physical board on.
    pub fn replace_referee(&mut self, mut referee: Referee) {
        referee.resync_physical(self.stabiliser.stable());
        self.referee = referee;
    }

    /// The referee, to restart it ([`Referee::restart`]).
    pub fn referee_mut(&mut self) -> &mut Referee {
        &mut self.referee
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
        let (changes, faults) = match &frame.data {
            FrameData::Classified(states) => self.feed(now, states, None)?,
            FrameData::Raw(raw) => {
                let classifier = self.classifier()?;
                let states = classifier
                    .classify(frame)
                    .map_err(|e| PipelineError::Calibration(e.to_string()))?;
                let states: Vec<PointState> = states.to_vec();
                self.feed(now, &states, Some(raw))?
            }
        };
        let mut events = faults;
        if !changes.is_empty() {
            events.extend(self.referee.on_changes(&changes, now));
        }
        // Presses count at the scan that reports them (or, held, at the scan that releases
        // them): every input of the referee is on the scan's time base (10 ms at 100 Hz),
        // so the event log replays exactly.
        self.presses.extend(
            buttons
                .iter()
                .filter(|b| b.action == ButtonAction::Press)
                .map(|b| ButtonEvent { time: now, ..*b }),
        );
        let ready = self.ready_presses(now);
        if !ready.is_empty() {
            events.extend(self.referee.on_buttons(&ready));
        }
        events.extend(self.referee.tick(now));
        Ok(events)
    }

    /// The held presses that may go to the referee at `now`, in order: a press waits while
    /// its side's change that began by then is settling, at most `pass_grace_ms`.
    fn ready_presses(&mut self, now: Millis) -> Vec<ButtonEvent> {
        let grace = self.referee.settings().pass_grace_ms;
        let mut ready = Vec::new();
        while let Some(first) = self.presses.front() {
            let color = match first.button {
                Button::Black => Color::Black,
                Button::White => Color::White,
            };
            let waiting = self.stabiliser.settling(color, first.time)
                && now < first.time.saturating_add(grace);
            if waiting {
                break;
            }
            if let Some(press) = self.presses.pop_front() {
                ready.push(ButtonEvent { time: now, ..press });
            }
        }
        ready
    }

    fn feed(
        &mut self,
        now: Millis,
        states: &[PointState],
        raw: Option<&[u16]>,
    ) -> Result<(Vec<Change>, Vec<Event>), PipelineError> {
        self.seen.clear();
        self.seen.extend_from_slice(states);
        let mut faults = Vec::new();
        if self.check.running() {
            let waiting = self.referee.view().waiting().is_some();
            let stable = self.stabiliser.stable();
            let found = self
                .check
                .feed(now, raw, states, |i| reading_of(stable.get(i)), waiting);
            if !found.is_empty() {
                faults.push(Event::SensorFault {
                    points: tengen_protocol::gtp::sorted(found),
                    kind: FaultKind::Stuck,
                });
            }
        }
        // Points found stuck read as the board expects: a stuck reading is never a move.
        let masked: Vec<PointState>;
        let states = match self.check.found() {
            Some(found) if found.len() == states.len() => {
                let stable = self.stabiliser.stable();
                masked = states
                    .iter()
                    .zip(found)
                    .enumerate()
                    .map(|(i, (&s, &stuck))| if stuck { reading_of(stable.get(i)) } else { s })
                    .collect();
                &masked[..]
            }
            _ => states,
        };
        let changes =
            self.stabiliser
                .feed(now, states)
                .map_err(|found| PipelineError::WrongLength {
                    expected: self.stabiliser.stable().len(),
                    found,
                })?;
        faults.extend(self.health.feed(now, states));
        Ok((changes, faults))
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

    /// An arbiter command at `now`. A `new_game` on another size than the sensors read
    /// (the stabiliser's, set up from the hardware's) is refused
    /// ([`CommandRefused::BoardSize`]): taken, it would leave the board deaf, every scan
    /// dropped for its length.
    pub fn command(
        &mut self,
        cmd: &CommandEnvelope,
        now: Millis,
    ) -> Result<Vec<Event>, CommandRefused> {
        if let Command::NewGame {
            size: Some(asked), ..
        } = cmd.command
        {
            let board = self.stabiliser.size();
            if asked != board {
                return Err(CommandRefused::BoardSize { asked, board });
            }
        }
        let events = self.referee.on_command(cmd, now)?;
        if matches!(cmd.command, Command::NewGame { .. }) {
            self.check = SensorCheck::start(self.stabiliser.size(), now);
        }
        Ok(events)
    }
}

/// The reading a point's stable stone gives.
fn reading_of(stone: Option<&Option<Color>>) -> PointState {
    match stone {
        Some(Some(Color::Black)) => PointState::Black,
        Some(Some(Color::White)) => PointState::White,
        _ => PointState::Empty,
    }
}

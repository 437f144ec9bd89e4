//! Raw Hall readings -> `Empty` / `Black` / `White` / `Unknown`, per point, with
//! hysteresis.
//!
//! Each point's reading is measured as a distance from its baseline towards its black or
//! its white level (whichever side it is on). The classifier remembers every point's last
//! state: a point enters a stone state at `stone_enter` of the swing and keeps it down to
//! `stone_leave`; it enters `Empty` within `empty_enter` and keeps it out to `empty_leave`
//! (see [`Hysteresis`](crate::calibration::Hysteresis)). A reading sitting on any one
//! threshold therefore cannot make a point flicker between two states.

use thiserror::Error;

use crate::calibration::{Calibration, PointThresholds, SideThresholds};
use crate::traits::{Frame, FrameData, PointState};

/// Why a frame could not be classified.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClassifyError {
    /// The frame does not have one reading per point.
    #[error("frame has {found} readings, the calibration covers {expected} points")]
    WrongLength {
        /// Points in the calibration.
        expected: usize,
        /// Readings in the frame.
        found: usize,
    },
}

/// Classifies whole frames, keeping each point's last state for the hysteresis. Holds its
/// output buffer, so classifying a frame allocates nothing.
#[derive(Debug, Clone)]
pub struct Classifier {
    size: u8,
    thresholds: Vec<PointThresholds>,
    states: Vec<PointState>,
}

impl Classifier {
    /// A classifier for a calibration; every point starts `Unknown`.
    pub fn new(calibration: &Calibration) -> Classifier {
        let thresholds = calibration.thresholds();
        let states = vec![PointState::Unknown; thresholds.len()];
        Classifier {
            size: calibration.size(),
            thresholds,
            states,
        }
    }

    /// The board size.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// Every point's current state, row-major with row 0 at the top.
    pub fn states(&self) -> &[PointState] {
        &self.states
    }

    /// Forgets the history: every point back to `Unknown`.
    pub fn reset(&mut self) {
        self.states.fill(PointState::Unknown);
    }

    /// Classifies a frame: raw readings go through the thresholds, already classified
    /// frames (from a scanning microcontroller) are taken as they are.
    pub fn classify(&mut self, frame: &Frame) -> Result<&[PointState], ClassifyError> {
        match &frame.data {
            FrameData::Raw(raw) => self.classify_raw(raw),
            FrameData::Classified(states) => {
                self.check_len(states.len())?;
                self.states.copy_from_slice(states);
                Ok(&self.states)
            }
        }
    }

    /// Classifies raw readings (row-major, row 0 at the top).
    pub fn classify_raw(&mut self, raw: &[u16]) -> Result<&[PointState], ClassifyError> {
        self.check_len(raw.len())?;
        for ((state, t), &r) in self.states.iter_mut().zip(&self.thresholds).zip(raw) {
            *state = next_state(*state, t, r);
        }
        Ok(&self.states)
    }

    /// Like [`Classifier::classify`], then copies the states into `out` (reusing its
    /// allocation).
    pub fn classify_into(
        &mut self,
        frame: &Frame,
        out: &mut Vec<PointState>,
    ) -> Result<(), ClassifyError> {
        let states = self.classify(frame)?;
        out.clear();
        out.extend_from_slice(states);
        Ok(())
    }

    fn check_len(&self, found: usize) -> Result<(), ClassifyError> {
        if found == self.states.len() {
            Ok(())
        } else {
            Err(ClassifyError::WrongLength {
                expected: self.states.len(),
                found,
            })
        }
    }
}

/// One point's next state from its previous state, thresholds and reading.
pub fn next_state(prev: PointState, t: &PointThresholds, reading: u16) -> PointState {
    let towards_black = (i32::from(reading) - t.baseline) * t.black_sign;
    let (distance, side, stone) = if towards_black >= 0 {
        (towards_black, &t.black, PointState::Black)
    } else {
        (-towards_black, &t.white, PointState::White)
    };
    side_state(prev, distance, side, stone)
}

fn side_state(prev: PointState, d: i32, t: &SideThresholds, stone: PointState) -> PointState {
    if d >= t.stone_enter || (prev == stone && d >= t.stone_leave) {
        stone
    } else if d <= t.empty_enter || (prev == PointState::Empty && d < t.empty_leave) {
        PointState::Empty
    } else {
        PointState::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::{AdcBits, Calibration, PointLevels};

    fn one_point() -> Classifier {
        // 2x2 board (smallest), every point: baseline 500, black 700, white 300.
        let cal = Calibration::uniform(
            2,
            AdcBits::Ten,
            PointLevels {
                baseline: 500,
                black: 700,
                white: 300,
            },
        )
        .unwrap();
        Classifier::new(&cal)
    }

    fn run(c: &mut Classifier, r: u16) -> PointState {
        c.classify_raw(&[r; 4]).unwrap()[0]
    }

    #[test]
    fn bands_from_unknown() {
        // Swing 200: empty_enter 40, empty_leave 60, stone_leave 80, stone_enter 110.
        let mut c = one_point();
        assert_eq!(run(&mut c, 500), PointState::Empty);
        c.reset();
        assert_eq!(run(&mut c, 580), PointState::Unknown);
        assert_eq!(run(&mut c, 610), PointState::Black);
        c.reset();
        assert_eq!(run(&mut c, 390), PointState::White);
        c.reset();
        assert_eq!(run(&mut c, 540), PointState::Empty);
    }

    #[test]
    fn stone_kept_down_to_leave_threshold() {
        let mut c = one_point();
        assert_eq!(run(&mut c, 700), PointState::Black);
        assert_eq!(run(&mut c, 580), PointState::Black);
        assert_eq!(run(&mut c, 579), PointState::Unknown);
        assert_eq!(run(&mut c, 600), PointState::Unknown);
        assert_eq!(run(&mut c, 610), PointState::Black);
    }

    #[test]
    fn empty_kept_out_to_leave_threshold() {
        let mut c = one_point();
        assert_eq!(run(&mut c, 500), PointState::Empty);
        assert_eq!(run(&mut c, 559), PointState::Empty);
        assert_eq!(run(&mut c, 441), PointState::Empty);
        assert_eq!(run(&mut c, 560), PointState::Unknown);
        assert_eq!(run(&mut c, 545), PointState::Unknown);
        assert_eq!(run(&mut c, 540), PointState::Empty);
    }
}

//! The pure logic of a guided calibration (`tengen calibrate` wraps it): feed frames of the
//! empty board, then frames with black stones (a full board, or a few at a time moved
//! around), then white; [`Calibrator::finish`] computes every point's levels and flags the
//! points that cannot be trusted.

use std::fmt;

use tengen_rules::{Color, Point};

use super::{default_levels, AdcBits, Calibration, CalibrationError, Hysteresis, PointLevels};
use crate::traits::{Frame, FrameData};

/// Which step of the procedure a frame belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The board is empty (and no hand is near it).
    Empty,
    /// Black stones lie on some or all points.
    Black,
    /// White stones lie on some or all points.
    White,
}

/// What is wrong with one point after a calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IssueKind {
    /// The empty-board readings spread over more than the smallest accepted swing.
    NoisyBaseline {
        /// Largest minus smallest empty reading.
        spread: u16,
    },
    /// No frame ever showed a stone of this colour on the point.
    NotSeen {
        /// The colour missing.
        color: Color,
    },
    /// The stone moves the reading too little to be told from noise.
    SmallSwing {
        /// The colour.
        color: Color,
        /// |level - baseline|.
        swing: u16,
        /// The smallest swing accepted for this point.
        min: u16,
    },
    /// Black and white stones move the reading the same way: a broken or saturated sensor.
    SameSide,
    /// Black moves this point's reading the other way from most points: the sensor is
    /// mounted upside down. Classification still works (levels are per point); a warning.
    ReversedPolarity,
}

impl IssueKind {
    /// True for the issues that make the point's levels unusable (everything but
    /// [`IssueKind::ReversedPolarity`]).
    pub fn is_fault(&self) -> bool {
        !matches!(self, IssueKind::ReversedPolarity)
    }
}

/// One flagged point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointIssue {
    /// The point.
    pub point: Point,
    /// What is wrong.
    pub kind: IssueKind,
}

impl fmt::Display for PointIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.point.to_gtp();
        let name = |c: Color| match c {
            Color::Black => "black",
            Color::White => "white",
        };
        match self.kind {
            IssueKind::NoisyBaseline { spread } => {
                write!(
                    f,
                    "{p}: empty readings spread over {spread} counts (noisy sensor)"
                )
            }
            IssueKind::NotSeen { color } => write!(f, "{p}: no {} stone seen", name(color)),
            IssueKind::SmallSwing { color, swing, min } => write!(
                f,
                "{p}: a {} stone moves the reading {swing} counts, less than {min}",
                name(color)
            ),
            IssueKind::SameSide => write!(
                f,
                "{p}: black and white stones move the reading the same way (faulty sensor)"
            ),
            IssueKind::ReversedPolarity => {
                write!(f, "{p}: polarity reversed (sensor mounted upside down?)")
            }
        }
    }
}

/// The result of a calibration: a usable calibration (faulty points get default levels
/// around their baseline so the board still works) and every flagged point.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The calibration to save.
    pub calibration: Calibration,
    /// Flagged points, in board order (row 0 at the top first).
    pub issues: Vec<PointIssue>,
}

impl Outcome {
    /// True when no point has a fault (warnings allowed): the calibration is trustworthy.
    pub fn is_clean(&self) -> bool {
        !self.issues.iter().any(|i| i.kind.is_fault())
    }
}

/// Collects frames of a guided calibration and computes the levels.
///
/// Empty-board frames must come first: the baseline is fixed by the first stone frame.
/// In the stone stages each point keeps only readings that moved clearly away from its
/// baseline, so stones may be laid a few at a time and moved around the board; its level
/// is the median of the readings near its strongest one (the stone right on top, not a
/// neighbour's weaker field).
#[derive(Debug, Clone)]
pub struct Calibrator {
    size: u8,
    bits: AdcBits,
    empty: Vec<Vec<u16>>,
    baseline: Option<Vec<u16>>,
    black: Vec<Vec<u16>>,
    white: Vec<Vec<u16>>,
    frames: [usize; 3],
}

impl Calibrator {
    /// A calibrator for a board of `size` lines read by a `bits` ADC.
    pub fn new(size: u8, bits: AdcBits) -> Result<Calibrator, CalibrationError> {
        tengen_rules::point::check_size(size).map_err(|_| CalibrationError::BadSize(size))?;
        let n = usize::from(size) * usize::from(size);
        Ok(Calibrator {
            size,
            bits,
            empty: vec![Vec::new(); n],
            baseline: None,
            black: vec![Vec::new(); n],
            white: vec![Vec::new(); n],
            frames: [0; 3],
        })
    }

    /// Feeds one scanned frame (it must hold raw readings).
    pub fn feed(&mut self, stage: Stage, frame: &Frame) -> Result<(), CalibrationError> {
        match &frame.data {
            FrameData::Raw(raw) => self.feed_raw(stage, raw),
            FrameData::Classified(_) => Err(CalibrationError::Procedure(
                "calibration needs raw readings, the backend sends classified frames".into(),
            )),
        }
    }

    /// Feeds one frame of raw readings (row-major, row 0 at the top).
    pub fn feed_raw(&mut self, stage: Stage, raw: &[u16]) -> Result<(), CalibrationError> {
        let n = self.empty.len();
        if raw.len() != n {
            return Err(CalibrationError::Procedure(format!(
                "a frame has {} readings, a {s}x{s} board needs {n}",
                raw.len(),
                s = self.size
            )));
        }
        if let Some(&bad) = raw.iter().find(|&&r| r > self.bits.max()) {
            return Err(CalibrationError::Procedure(format!(
                "reading {bad} is above the {} maximum {}",
                self.bits,
                self.bits.max()
            )));
        }
        match stage {
            Stage::Empty => {
                if self.baseline.is_some() {
                    return Err(CalibrationError::Procedure(
                        "empty-board frames must come before the stones".into(),
                    ));
                }
                for (samples, &r) in self.empty.iter_mut().zip(raw) {
                    samples.push(r);
                }
                self.frames[0] += 1;
            }
            Stage::Black | Stage::White => {
                let baseline = self.fixed_baseline()?.to_vec();
                let gate = i32::from(self.bits.min_swing() / 2);
                let (store, slot) = if stage == Stage::Black {
                    (&mut self.black, 1)
                } else {
                    (&mut self.white, 2)
                };
                for ((samples, &r), &b) in store.iter_mut().zip(raw).zip(&baseline) {
                    if (i32::from(r) - i32::from(b)).abs() >= gate {
                        samples.push(r);
                    }
                }
                self.frames[slot] += 1;
            }
        }
        Ok(())
    }

    /// How many frames were fed for a stage.
    pub fn frames(&self, stage: Stage) -> usize {
        match stage {
            Stage::Empty => self.frames[0],
            Stage::Black => self.frames[1],
            Stage::White => self.frames[2],
        }
    }

    /// The points that have not shown a stone yet in a stone stage (all points for
    /// [`Stage::Empty`] until an empty frame came): what the operator still has to cover.
    pub fn missing(&self, stage: Stage) -> Vec<Point> {
        let lists = match stage {
            Stage::Empty => &self.empty,
            Stage::Black => &self.black,
            Stage::White => &self.white,
        };
        lists
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_empty())
            .map(|(i, _)| Point::from_index(i, self.size))
            .collect()
    }

    /// Computes the calibration and flags the untrustworthy points.
    pub fn finish(&self) -> Result<Outcome, CalibrationError> {
        if self.frames[0] == 0 {
            return Err(CalibrationError::Procedure(
                "no frame of the empty board was given".into(),
            ));
        }
        let baselines = self.baselines();
        let n = baselines.len();
        let min_swing = self.bits.min_swing();
        let spreads: Vec<u16> = self.empty.iter().map(|s| spread(s)).collect();
        let measured: Vec<(Option<u16>, Option<u16>)> = baselines
            .iter()
            .zip(self.black.iter().zip(&self.white))
            .map(|(&base, (b, w))| (level(b, base), level(w, base)))
            .collect();
        // The board's polarity: the way black moves most points with a sane pair of levels.
        let mut votes = 0i64;
        for (i, m) in measured.iter().enumerate() {
            if let (Some(b), Some(w)) = *m {
                let (db, dw) = (signed(b, baselines[i]), signed(w, baselines[i]));
                if db.signum() * dw.signum() < 0 {
                    votes += i64::from(db.signum());
                }
            }
        }
        let board_sign = if votes < 0 { -1 } else { 1 };

        let mut issues = Vec::new();
        let mut points = Vec::with_capacity(n);
        for i in 0..n {
            let point = Point::from_index(i, self.size);
            let base = baselines[i];
            let mut faults = Vec::new();
            if spreads[i] > min_swing {
                faults.push(IssueKind::NoisyBaseline { spread: spreads[i] });
            }
            let need = min_swing.max(spreads[i].saturating_mul(3));
            let (b, w) = measured[i];
            for (color, lvl) in [(Color::Black, b), (Color::White, w)] {
                match lvl {
                    None => faults.push(IssueKind::NotSeen { color }),
                    Some(l) => {
                        let swing = signed(l, base).unsigned_abs() as u16;
                        if swing < need {
                            faults.push(IssueKind::SmallSwing {
                                color,
                                swing,
                                min: need,
                            });
                        }
                    }
                }
            }
            if let (Some(b), Some(w)) = (b, w) {
                let (db, dw) = (signed(b, base), signed(w, base));
                if db.signum() * dw.signum() >= 0 {
                    faults.push(IssueKind::SameSide);
                }
            }
            let levels = match (b, w) {
                (Some(black), Some(white)) if faults.is_empty() => {
                    if signed(black, base).signum() != board_sign {
                        issues.push(PointIssue {
                            point,
                            kind: IssueKind::ReversedPolarity,
                        });
                    }
                    PointLevels {
                        baseline: base,
                        black,
                        white,
                    }
                }
                _ => fallback(base, board_sign, self.bits),
            };
            issues.extend(faults.into_iter().map(|kind| PointIssue { point, kind }));
            points.push(levels);
        }
        let calibration = Calibration::new(self.size, self.bits, Hysteresis::default(), points)?;
        Ok(Outcome {
            calibration,
            issues,
        })
    }

    fn fixed_baseline(&mut self) -> Result<&[u16], CalibrationError> {
        if self.baseline.is_none() {
            if self.frames[0] == 0 {
                return Err(CalibrationError::Procedure(
                    "calibrate the empty board first".into(),
                ));
            }
            self.baseline = Some(self.baselines());
        }
        Ok(self.baseline.as_deref().unwrap_or_default())
    }

    fn baselines(&self) -> Vec<u16> {
        match &self.baseline {
            Some(b) => b.clone(),
            None => self
                .empty
                .iter()
                .map(|s| median(s).unwrap_or(self.bits.mid()))
                .collect(),
        }
    }
}

fn signed(level: u16, base: u16) -> i32 {
    i32::from(level) - i32::from(base)
}

fn median(samples: &[u16]) -> Option<u16> {
    if samples.is_empty() {
        return None;
    }
    let mut s = samples.to_vec();
    s.sort_unstable();
    Some(s[s.len() / 2])
}

fn spread(samples: &[u16]) -> u16 {
    match (samples.iter().max(), samples.iter().min()) {
        (Some(hi), Some(lo)) => hi - lo,
        _ => 0,
    }
}

/// A stone level from the readings that passed the gate: the median of those on the side
/// of the strongest reading and at least 70% as far from the baseline.
fn level(samples: &[u16], base: u16) -> Option<u16> {
    let peak = samples
        .iter()
        .map(|&r| signed(r, base))
        .max_by_key(|d| d.abs())?;
    let near: Vec<u16> = samples
        .iter()
        .copied()
        .filter(|&r| {
            let d = signed(r, base);
            d.signum() == peak.signum() && d.abs() * 10 >= peak.abs() * 7
        })
        .collect();
    median(&near)
}

/// Default levels around a measured baseline, in the board's polarity, for a faulty point.
fn fallback(base: u16, board_sign: i32, bits: AdcBits) -> PointLevels {
    let swing = bits.default_swing();
    if base < swing || base > bits.max() - swing {
        let d = default_levels(bits);
        return if board_sign < 0 {
            PointLevels {
                black: d.white,
                white: d.black,
                ..d
            }
        } else {
            d
        };
    }
    let (up, down) = (base + swing, base - swing);
    if board_sign < 0 {
        PointLevels {
            baseline: base,
            black: down,
            white: up,
        }
    } else {
        PointLevels {
            baseline: base,
            black: up,
            white: down,
        }
    }
}

//! Per-point calibration of the Hall sensors: the model (baseline, black level, white level
//! and the hysteresis fractions the thresholds derive from), its versioned file format
//! (TOML or JSON) and a sensible default for a given ADC resolution.
//!
//! The guided procedure that measures a calibration lives in [`crate::calibration::guided`].

pub mod guided;

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tengen_rules::Point;
use thiserror::Error;

pub use guided::{Calibrator, IssueKind, Outcome, PointIssue, Stage};

/// The calibration file format version this build reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// The resolution of the ADC that produced the readings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum AdcBits {
    /// A 10-bit converter (MCP3008 class): readings 0..=1023.
    Ten,
    /// A 12-bit converter (MCP3208 class): readings 0..=4095.
    Twelve,
}

impl AdcBits {
    /// The number of bits.
    pub const fn bits(self) -> u8 {
        match self {
            AdcBits::Ten => 10,
            AdcBits::Twelve => 12,
        }
    }

    /// The largest reading the converter produces.
    pub const fn max(self) -> u16 {
        (1u16 << self.bits()) - 1
    }

    /// The reading of a sensor at mid-supply (no magnet on an ideal sensor).
    pub const fn mid(self) -> u16 {
        1u16 << (self.bits() - 1)
    }

    /// The smallest stone swing (|level - baseline|) a calibration accepts: 2% of full scale.
    pub const fn min_swing(self) -> u16 {
        (self.max() as u32 * 2 / 100) as u16
    }

    /// The swing of the default calibration: 15% of full scale (about 0.5 V on a 3.3 V
    /// reference, what a 6x2 mm N52 disc magnet gives an SS49E-class sensor through 3-4 mm
    /// of wood).
    pub const fn default_swing(self) -> u16 {
        (self.max() as u32 * 15 / 100) as u16
    }
}

impl TryFrom<u8> for AdcBits {
    type Error = String;

    fn try_from(bits: u8) -> Result<Self, Self::Error> {
        match bits {
            10 => Ok(AdcBits::Ten),
            12 => Ok(AdcBits::Twelve),
            other => Err(format!("adc_bits must be 10 or 12, not {other}")),
        }
    }
}

impl From<AdcBits> for u8 {
    fn from(bits: AdcBits) -> u8 {
        bits.bits()
    }
}

impl fmt::Display for AdcBits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-bit", self.bits())
    }
}

/// Where the classification thresholds sit, as fractions of each point's swing
/// (|level - baseline|, measured separately towards black and towards white).
///
/// A reading enters a stone state at `stone_enter` of the swing and keeps it down to
/// `stone_leave`; it enters `Empty` within `empty_enter` of the baseline and keeps it out to
/// `empty_leave`. In between, and between the bands, it is `Unknown`. So a reading
/// hovering at any single threshold cannot flicker between two states.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hysteresis {
    /// Within this fraction of the swing around the baseline a point becomes `Empty`.
    pub empty_enter: f32,
    /// An `Empty` point stays `Empty` until the reading moves this far from the baseline.
    pub empty_leave: f32,
    /// A stone state is kept while the reading stays at least this far towards the level.
    pub stone_leave: f32,
    /// From this fraction of the swing on, the point holds a stone.
    pub stone_enter: f32,
}

impl Default for Hysteresis {
    fn default() -> Self {
        Hysteresis {
            empty_enter: 0.20,
            empty_leave: 0.30,
            stone_leave: 0.40,
            stone_enter: 0.55,
        }
    }
}

impl Hysteresis {
    /// Checks `0 < empty_enter < empty_leave <= stone_leave < stone_enter < 1`.
    pub fn validate(&self) -> Result<(), CalibrationError> {
        let h = self;
        let ordered = 0.0 < h.empty_enter
            && h.empty_enter < h.empty_leave
            && h.empty_leave <= h.stone_leave
            && h.stone_leave < h.stone_enter
            && h.stone_enter < 1.0;
        if ordered {
            Ok(())
        } else {
            Err(CalibrationError::BadHysteresis(format!(
                "need 0 < empty_enter ({}) < empty_leave ({}) <= stone_leave ({}) < stone_enter ({}) < 1",
                h.empty_enter, h.empty_leave, h.stone_leave, h.stone_enter
            )))
        }
    }
}

/// One point's measured levels (raw ADC units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointLevels {
    /// The reading with no stone on the point (and none nearby).
    pub baseline: u16,
    /// The reading with a black stone on the point.
    pub black: u16,
    /// The reading with a white stone on the point.
    pub white: u16,
}

/// The thresholds of one direction (towards black or towards white), as distances from
/// the baseline in raw ADC units, derived from a swing and the [`Hysteresis`] fractions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SideThresholds {
    /// Within this distance the point becomes `Empty`.
    pub empty_enter: i32,
    /// An `Empty` point stays `Empty` while closer than this.
    pub empty_leave: i32,
    /// A stone is kept while at least this far.
    pub stone_leave: i32,
    /// A stone is seen from this far on.
    pub stone_enter: i32,
}

/// One point's derived thresholds: everything the classifier needs, in integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointThresholds {
    /// The baseline reading.
    pub baseline: i32,
    /// +1 when a black stone raises the reading, -1 when it lowers it.
    pub black_sign: i32,
    /// Thresholds towards the black level.
    pub black: SideThresholds,
    /// Thresholds towards the white level.
    pub white: SideThresholds,
}

impl PointLevels {
    /// The signed swing towards black (`black - baseline`).
    pub fn black_swing(&self) -> i32 {
        i32::from(self.black) - i32::from(self.baseline)
    }

    /// The signed swing towards white (`white - baseline`).
    pub fn white_swing(&self) -> i32 {
        i32::from(self.white) - i32::from(self.baseline)
    }

    /// Derives the integer thresholds from these levels and the hysteresis fractions.
    pub fn thresholds(&self, h: &Hysteresis) -> PointThresholds {
        let side = |swing: i32| {
            let s = swing.unsigned_abs() as f32;
            let at = |f: f32| (s * f).round() as i32;
            SideThresholds {
                empty_enter: at(h.empty_enter),
                empty_leave: at(h.empty_leave),
                stone_leave: at(h.stone_leave),
                stone_enter: at(h.stone_enter),
            }
        };
        PointThresholds {
            baseline: i32::from(self.baseline),
            black_sign: if self.black_swing() >= 0 { 1 } else { -1 },
            black: side(self.black_swing()),
            white: side(self.white_swing()),
        }
    }
}

/// A whole board's calibration, validated: every point has a black and a white level on
/// opposite sides of its baseline, each at least [`AdcBits::min_swing`] away.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    size: u8,
    adc_bits: AdcBits,
    hysteresis: Hysteresis,
    points: Vec<PointLevels>,
}

/// Why a calibration could not be loaded, saved or built. Every message is one line.
#[derive(Debug, Error)]
pub enum CalibrationError {
    /// The file could not be read or written.
    #[error("calibration file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not valid TOML/JSON or does not have the expected fields.
    #[error("calibration file{where_}: {message}")]
    Syntax {
        /// ` PATH` and/or ` line N`, or empty.
        where_: String,
        /// The parser's message, on one line.
        message: String,
    },
    /// A format version this build does not read.
    #[error("calibration format version {found} is not supported (this build reads version {FORMAT_VERSION})")]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// The board size is not one the rules support.
    #[error("calibration board size {0} is not supported (2..=25)")]
    BadSize(u8),
    /// The calibration is for another board size.
    #[error("calibration is for a {found}x{found} board, but the board is {expected}x{expected}")]
    WrongSize {
        /// The board's size.
        expected: u8,
        /// The calibration's size.
        found: u8,
    },
    /// A per-point list does not have one entry per point.
    #[error(
        "calibration list `{field}` has {found} entries, a {size}x{size} board needs {expected}"
    )]
    WrongLength {
        /// The list's name.
        field: &'static str,
        /// The board size.
        size: u8,
        /// `size * size`.
        expected: usize,
        /// What the file holds.
        found: usize,
    },
    /// A level is above the ADC's full scale.
    #[error("calibration point {point}: {field} level {value} is above the {bits} maximum {max}")]
    OutOfRange {
        /// The point (GTP).
        point: String,
        /// `baseline`, `black` or `white`.
        field: &'static str,
        /// The level.
        value: u16,
        /// The ADC resolution.
        bits: AdcBits,
        /// The largest valid reading.
        max: u16,
    },
    /// Black and white levels are on the same side of the baseline (or on it).
    #[error("calibration point {point}: black ({black}) and white ({white}) levels are on the same side of the baseline ({baseline})")]
    SameSide {
        /// The point (GTP).
        point: String,
        /// Its baseline.
        baseline: u16,
        /// Its black level.
        black: u16,
        /// Its white level.
        white: u16,
    },
    /// A level too close to the baseline to tell a stone from noise.
    #[error("calibration point {point}: {color} swing {swing} is below the minimum {min}")]
    SmallSwing {
        /// The point (GTP).
        point: String,
        /// `black` or `white`.
        color: &'static str,
        /// |level - baseline|.
        swing: u16,
        /// The smallest accepted swing.
        min: u16,
    },
    /// The hysteresis fractions are not in order.
    #[error("calibration hysteresis: {0}")]
    BadHysteresis(String),
    /// A guided calibration was fed frames in the wrong order or of the wrong shape.
    #[error("calibration: {0}")]
    Procedure(String),
}

/// The on-disk form (TOML or JSON). Lists are row-major, row 0 at the top of the board
/// (the order of `tengen_rules::Point::index`).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CalibrationFile {
    version: u32,
    size: u8,
    adc_bits: AdcBits,
    #[serde(default)]
    hysteresis: Hysteresis,
    levels: LevelsFile,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LevelsFile {
    baseline: Vec<u16>,
    black: Vec<u16>,
    white: Vec<u16>,
}

/// The GTP name of the point at row-major index `index` on a `size` board.
pub(crate) fn point_name(index: usize, size: u8) -> String {
    Point::from_index(index, size).to_gtp()
}

impl Calibration {
    /// Builds and validates a calibration from per-point levels (row-major, row 0 at the top).
    pub fn new(
        size: u8,
        adc_bits: AdcBits,
        hysteresis: Hysteresis,
        points: Vec<PointLevels>,
    ) -> Result<Calibration, CalibrationError> {
        tengen_rules::point::check_size(size).map_err(|_| CalibrationError::BadSize(size))?;
        hysteresis.validate()?;
        let expected = usize::from(size) * usize::from(size);
        if points.len() != expected {
            return Err(CalibrationError::WrongLength {
                field: "levels",
                size,
                expected,
                found: points.len(),
            });
        }
        for (i, p) in points.iter().enumerate() {
            validate_point(i, size, adc_bits, p)?;
        }
        Ok(Calibration {
            size,
            adc_bits,
            hysteresis,
            points,
        })
    }

    /// The same levels at every point: baseline, black and white readings given directly.
    pub fn uniform(
        size: u8,
        adc_bits: AdcBits,
        levels: PointLevels,
    ) -> Result<Calibration, CalibrationError> {
        let n = usize::from(size) * usize::from(size);
        Calibration::new(size, adc_bits, Hysteresis::default(), vec![levels; n])
    }

    /// The default calibration of an ideal board: baseline at mid-scale, black stones
    /// (south pole down) [`AdcBits::default_swing`] above it, white stones the same below.
    /// Used by the simulator and by tests, and by a board that was never calibrated.
    pub fn default_for(size: u8, adc_bits: AdcBits) -> Result<Calibration, CalibrationError> {
        Calibration::uniform(size, adc_bits, default_levels(adc_bits))
    }

    /// The board size.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The ADC resolution the levels are in.
    pub fn adc_bits(&self) -> AdcBits {
        self.adc_bits
    }

    /// The hysteresis fractions.
    pub fn hysteresis(&self) -> Hysteresis {
        self.hysteresis
    }

    /// Every point's levels, row-major with row 0 at the top.
    pub fn points(&self) -> &[PointLevels] {
        &self.points
    }

    /// One point's levels.
    pub fn levels(&self, point: Point) -> Option<PointLevels> {
        if point.on_board(self.size) {
            self.points.get(point.index(self.size)).copied()
        } else {
            None
        }
    }

    /// Every point's derived thresholds, row-major with row 0 at the top.
    pub fn thresholds(&self) -> Vec<PointThresholds> {
        self.points
            .iter()
            .map(|p| p.thresholds(&self.hysteresis))
            .collect()
    }

    /// Fails unless this calibration is for a board of `size` lines.
    pub fn check_size(&self, size: u8) -> Result<(), CalibrationError> {
        if self.size == size {
            Ok(())
        } else {
            Err(CalibrationError::WrongSize {
                expected: size,
                found: self.size,
            })
        }
    }

    /// Parses a calibration in TOML.
    pub fn from_toml_str(text: &str) -> Result<Calibration, CalibrationError> {
        let file: CalibrationFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| {
                    format!(
                        " line {}",
                        1 + text[..s.start.min(text.len())].matches('\n').count()
                    )
                })
                .unwrap_or_default();
            CalibrationError::Syntax {
                where_: line,
                message: one_line(e.message()),
            }
        })?;
        Calibration::from_file(file)
    }

    /// Parses a calibration in JSON.
    pub fn from_json_str(text: &str) -> Result<Calibration, CalibrationError> {
        let file: CalibrationFile =
            serde_json::from_str(text).map_err(|e| CalibrationError::Syntax {
                where_: String::new(),
                message: one_line(&e.to_string()),
            })?;
        Calibration::from_file(file)
    }

    /// Writes the calibration as TOML.
    pub fn to_toml_string(&self) -> String {
        // Serialising plain numbers and lists cannot fail.
        toml::to_string(&self.to_file()).unwrap_or_default()
    }

    /// Writes the calibration as JSON.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(&self.to_file()).unwrap_or_default()
    }

    /// Loads a calibration file: JSON when the name ends in `.json`, TOML otherwise.
    pub fn load(path: &Path) -> Result<Calibration, CalibrationError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| CalibrationError::Io {
            path: shown.clone(),
            source,
        })?;
        let parsed = if is_json(path) {
            Calibration::from_json_str(&text)
        } else {
            Calibration::from_toml_str(&text)
        };
        parsed.map_err(|e| match e {
            CalibrationError::Syntax { where_, message } => CalibrationError::Syntax {
                where_: format!(" {shown}{where_}"),
                message,
            },
            other => other,
        })
    }

    /// Loads a calibration file and checks it is for a board of `size` lines.
    pub fn load_for(path: &Path, size: u8) -> Result<Calibration, CalibrationError> {
        let c = Calibration::load(path)?;
        c.check_size(size)?;
        Ok(c)
    }

    /// Saves the calibration: JSON when the name ends in `.json`, TOML otherwise. Writes a
    /// temporary file beside it and renames it, so a crash never leaves half a file.
    pub fn save(&self, path: &Path) -> Result<(), CalibrationError> {
        let text = if is_json(path) {
            self.to_json_string()
        } else {
            self.to_toml_string()
        };
        let io = |source| CalibrationError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, text).map_err(io)?;
        std::fs::rename(&tmp, path).map_err(io)
    }

    fn from_file(file: CalibrationFile) -> Result<Calibration, CalibrationError> {
        if file.version != FORMAT_VERSION {
            return Err(CalibrationError::Version {
                found: file.version,
            });
        }
        let size = file.size;
        tengen_rules::point::check_size(size).map_err(|_| CalibrationError::BadSize(size))?;
        let expected = usize::from(size) * usize::from(size);
        let lists = [
            ("baseline", &file.levels.baseline),
            ("black", &file.levels.black),
            ("white", &file.levels.white),
        ];
        for (field, list) in lists {
            if list.len() != expected {
                return Err(CalibrationError::WrongLength {
                    field,
                    size,
                    expected,
                    found: list.len(),
                });
            }
        }
        let points = (0..expected)
            .map(|i| PointLevels {
                baseline: file.levels.baseline[i],
                black: file.levels.black[i],
                white: file.levels.white[i],
            })
            .collect();
        Calibration::new(size, file.adc_bits, file.hysteresis, points)
    }

    fn to_file(&self) -> CalibrationFile {
        CalibrationFile {
            version: FORMAT_VERSION,
            size: self.size,
            adc_bits: self.adc_bits,
            hysteresis: self.hysteresis,
            levels: LevelsFile {
                baseline: self.points.iter().map(|p| p.baseline).collect(),
                black: self.points.iter().map(|p| p.black).collect(),
                white: self.points.iter().map(|p| p.white).collect(),
            },
        }
    }
}

/// The default levels of one point for an ADC resolution (see [`Calibration::default_for`]).
pub fn default_levels(adc_bits: AdcBits) -> PointLevels {
    let mid = adc_bits.mid();
    let swing = adc_bits.default_swing();
    PointLevels {
        baseline: mid,
        black: mid + swing,
        white: mid - swing,
    }
}

fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn validate_point(
    index: usize,
    size: u8,
    bits: AdcBits,
    p: &PointLevels,
) -> Result<(), CalibrationError> {
    let max = bits.max();
    for (field, value) in [
        ("baseline", p.baseline),
        ("black", p.black),
        ("white", p.white),
    ] {
        if value > max {
            return Err(CalibrationError::OutOfRange {
                point: point_name(index, size),
                field,
                value,
                bits,
                max,
            });
        }
    }
    let (b, w) = (p.black_swing(), p.white_swing());
    if b.signum() * w.signum() >= 0 {
        return Err(CalibrationError::SameSide {
            point: point_name(index, size),
            baseline: p.baseline,
            black: p.black,
            white: p.white,
        });
    }
    let min = bits.min_swing();
    for (color, swing) in [("black", b), ("white", w)] {
        let swing = swing.unsigned_abs() as u16;
        if swing < min {
            return Err(CalibrationError::SmallSwing {
                point: point_name(index, size),
                color,
                swing,
                min,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adc_constants() {
        assert_eq!(AdcBits::Ten.max(), 1023);
        assert_eq!(AdcBits::Twelve.max(), 4095);
        assert_eq!(AdcBits::Ten.mid(), 512);
        assert_eq!(AdcBits::Twelve.mid(), 2048);
        assert_eq!(AdcBits::Ten.min_swing(), 20);
        assert_eq!(AdcBits::Ten.default_swing(), 153);
    }

    #[test]
    fn thresholds_follow_the_swing_direction() {
        let p = PointLevels {
            baseline: 500,
            black: 300,
            white: 700,
        };
        let t = p.thresholds(&Hysteresis::default());
        assert_eq!(t.black_sign, -1);
        assert_eq!(t.black.stone_enter, 110);
        assert_eq!(t.black.stone_leave, 80);
        assert_eq!(t.white.empty_enter, 40);
        assert_eq!(t.white.empty_leave, 60);
    }
}

//! The physical model: the true board, the magnetic field each sensor sees, the hands over
//! the board, stuck sensors and sensor noise, and how one scan turns all that into a frame.
//!
//! Fields are measured in units of one stone's magnet sitting on its own point: `+1.0` is a
//! black stone, `-1.0` a white one. A stone also leaks [`RawModel::crosstalk`] of its field
//! into each of its four neighbours. A hand carrying a stone adds a partial field where it
//! passes (see [`crate::choreography`]). A sensor classifies its field as a stone at
//! `|field| >= STONE_FIELD`, empty at `|field| <= EMPTY_FIELD`, and `Unknown` in between.

use rand::RngCore;
use rand_chacha::ChaCha8Rng;
use tengen_hal::calibration::{default_levels, AdcBits, PointLevels};
use tengen_hal::{FrameData, PointState};
use tengen_rules::{Color, Point};

/// A field at least this strong (in stone units) reads as a stone.
pub const STONE_FIELD: f32 = 0.475;
/// A field at most this strong (in stone units) reads as an empty point.
pub const EMPTY_FIELD: f32 = 0.25;
/// The field a wrong or stuck `Unknown` reading is given (between the two bands).
pub const UNKNOWN_FIELD: f32 = 0.375;

/// The field of a stone of `color` on its own point, in stone units.
pub fn stone_field(color: Color) -> f32 {
    match color {
        Color::Black => 1.0,
        Color::White => -1.0,
    }
}

/// Classifies a field (stone units) into the state a sane calibration reads from it.
pub fn classify_field(field: f32) -> PointState {
    let a = field.abs();
    if a >= STONE_FIELD {
        if field > 0.0 {
            PointState::Black
        } else {
            PointState::White
        }
    } else if a <= EMPTY_FIELD {
        PointState::Empty
    } else {
        PointState::Unknown
    }
}

/// How fields become raw ADC readings: a linear Hall sensor reads `baseline` with no magnet
/// and swings to `black_level` over a black stone and to `white_level` over a white one
/// (on opposite sides of the baseline), plus uniform jitter of up to `jitter` counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RawModel {
    /// ADC resolution in bits (10 or 12); readings are clamped to `0..2^bits`.
    pub bits: u8,
    /// The reading with no magnet near (mid-scale).
    pub baseline: u16,
    /// The reading with a black stone on the point.
    pub black_level: u16,
    /// The reading with a white stone on the point.
    pub white_level: u16,
    /// The fraction of a stone's field its four neighbours' sensors see (cross-talk).
    pub crosstalk: f32,
    /// Uniform jitter added to every raw reading, in counts (kept well inside the bands).
    pub jitter: u16,
}

impl RawModel {
    /// A model on given levels (one point's calibration), with cross-talk and jitter.
    pub fn from_levels(
        bits: AdcBits,
        levels: PointLevels,
        crosstalk: f32,
        jitter: u16,
    ) -> RawModel {
        RawModel {
            bits: bits.bits(),
            baseline: levels.baseline,
            black_level: levels.black,
            white_level: levels.white,
            crosstalk,
            jitter,
        }
    }

    /// The model for a 12-bit ADC on `tengen_hal`'s default calibration (baseline 2048 at
    /// mid-scale, black 2662 = +15% of full scale, white 1434), 4% cross-talk per
    /// neighbour, ±8 counts of jitter (1.3% of the swing).
    pub fn adc12() -> RawModel {
        RawModel::from_levels(AdcBits::Twelve, default_levels(AdcBits::Twelve), 0.04, 8)
    }

    /// The model for a 10-bit ADC on `tengen_hal`'s default calibration (baseline 512,
    /// black 665, white 359), 4% cross-talk, ±2 counts of jitter.
    pub fn adc10() -> RawModel {
        RawModel::from_levels(AdcBits::Ten, default_levels(AdcBits::Ten), 0.04, 2)
    }

    /// The largest reading the ADC can give.
    pub fn max_reading(&self) -> u16 {
        ((1u32 << self.bits.min(16)) - 1) as u16
    }

    /// The raw reading for a field (stone units), before jitter.
    pub fn reading(&self, field: f32) -> f32 {
        let base = self.baseline as f32;
        if field >= 0.0 {
            base + field * (self.black_level as f32 - base)
        } else {
            base - field * (self.white_level as f32 - base)
        }
    }

    /// The raw reading for a field with `jitter_draw` (any u32) turned into jitter, clamped.
    fn sample(&self, field: f32, jitter_draw: u32) -> u16 {
        let span = 2 * self.jitter as u32 + 1;
        let jitter = (jitter_draw % span) as f32 - self.jitter as f32;
        (self.reading(field) + jitter)
            .round()
            .clamp(0.0, self.max_reading() as f32) as u16
    }

    /// The reading for a field with no noise at all, clamped (a stuck sensor's).
    pub fn exact(&self, field: f32) -> u16 {
        self.reading(field)
            .round()
            .clamp(0.0, self.max_reading() as f32) as u16
    }

    /// The field (stone units) a raw reading stands for: the inverse of [`RawModel::reading`].
    pub fn field_of(&self, raw: u16) -> f32 {
        let base = self.baseline as f32;
        let r = raw as f32;
        let up = self.black_level as f32 - base;
        let down = self.white_level as f32 - base;
        if (r - base) * up >= 0.0 {
            (r - base) / up
        } else {
            -(r - base) / down
        }
    }

    /// Classifies a raw reading with the same bands as [`classify_field`].
    pub fn classify(&self, raw: u16) -> PointState {
        classify_field(self.field_of(raw))
    }
}

impl Default for RawModel {
    fn default() -> RawModel {
        RawModel::adc12()
    }
}

/// Which kind of frames the simulated board produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrameKind {
    /// `FrameData::Classified`: states straight from the model (the fast path).
    #[default]
    Classified,
    /// `FrameData::Raw`: ADC readings per [`RawModel`], for the classifier to work on.
    Raw,
}

/// The state of the physical board at one instant, and the scanner that reads it.
#[derive(Debug, Clone)]
pub struct World {
    size: u8,
    stones: Vec<Option<Color>>,
    hand: Vec<f32>,
    stuck: Vec<Option<PointState>>,
    field: Vec<f32>,
    clean: Vec<PointState>,
    dirty: bool,
    noise: f64,
    noise_threshold: u64,
    rng: ChaCha8Rng,
    raw: RawModel,
}

impl World {
    /// An empty board of `size` lines; `rng` draws noise and jitter.
    pub fn new(size: u8, raw: RawModel, rng: ChaCha8Rng) -> World {
        let n = size as usize * size as usize;
        World {
            size,
            stones: vec![None; n],
            hand: vec![0.0; n],
            stuck: vec![None; n],
            field: vec![0.0; n],
            clean: vec![PointState::Empty; n],
            dirty: false,
            noise: 0.0,
            noise_threshold: 0,
            rng,
            raw,
        }
    }

    /// The board size.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The stone truly on a point (ground truth), if any.
    pub fn stone(&self, p: Point) -> Option<Color> {
        self.stones[p.index(self.size)]
    }

    /// The true stones, in `Point::index` order.
    pub fn stones(&self) -> &[Option<Color>] {
        &self.stones
    }

    /// The current noise probability.
    pub fn noise(&self) -> f64 {
        self.noise
    }

    /// The sensors that are stuck, with the state each reads.
    pub fn stuck(&self) -> impl Iterator<Item = (Point, PointState)> + '_ {
        let size = self.size;
        self.stuck
            .iter()
            .enumerate()
            .filter_map(move |(i, s)| s.map(|s| (Point::from_index(i, size), s)))
    }

    /// Puts a stone on a point, or clears it.
    pub fn set_stone(&mut self, p: Point, stone: Option<Color>) {
        self.stones[p.index(self.size)] = stone;
        self.dirty = true;
    }

    /// Sets the field a hand adds at a point (0.0: no hand there).
    pub fn set_hand(&mut self, p: Point, field: f32) {
        self.hand[p.index(self.size)] = field;
        self.dirty = true;
    }

    /// Makes a sensor read `state` whatever is there (`None` frees it).
    pub fn set_stuck(&mut self, p: Point, state: Option<PointState>) {
        self.stuck[p.index(self.size)] = state;
    }

    /// Sets the probability that a point reads wrong in one scan (clamped to 0..=1).
    pub fn set_noise(&mut self, p: f64) {
        let p = if p.is_finite() {
            p.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.noise = p;
        self.noise_threshold = (p * 4_294_967_296.0) as u64;
    }

    /// The field (stone units) at each point, without noise: stones, cross-talk, hands.
    pub fn fields(&mut self) -> &[f32] {
        self.refresh();
        &self.field
    }

    /// What each sensor reads with no noise and no stuck sensors.
    pub fn clean_states(&mut self) -> &[PointState] {
        self.refresh();
        &self.clean
    }

    fn refresh(&mut self) {
        if !self.dirty {
            return;
        }
        let s = self.size as usize;
        let c = self.raw.crosstalk;
        for i in 0..s * s {
            let (r, col) = (i / s, i % s);
            let mut f = self.stones[i].map_or(0.0, stone_field) + self.hand[i];
            let mut leak = |j: usize| {
                if let Some(color) = self.stones[j] {
                    f += c * stone_field(color);
                }
            };
            if r > 0 {
                leak(i - s);
            }
            if r + 1 < s {
                leak(i + s);
            }
            if col > 0 {
                leak(i - 1);
            }
            if col + 1 < s {
                leak(i + 1);
            }
            self.field[i] = f;
            self.clean[i] = classify_field(f);
        }
        self.dirty = false;
    }

    /// A state other than `truth`, chosen by `draw`: what a wrong reading shows.
    pub(crate) fn wrong_state(truth: PointState, draw: u32) -> PointState {
        const ALL: [PointState; 4] = [
            PointState::Empty,
            PointState::Black,
            PointState::White,
            PointState::Unknown,
        ];
        let others = ALL.iter().copied().filter(|s| *s != truth);
        others
            .cycle()
            .nth((draw % 3) as usize)
            .unwrap_or(PointState::Unknown)
    }

    /// The field (stone units) that reads as `state`, in the middle of its band;
    /// `draw` picks the polarity of an `Unknown`.
    pub(crate) fn field_for(state: PointState, draw: u32) -> f32 {
        match state {
            PointState::Empty => 0.0,
            PointState::Black => 1.0,
            PointState::White => -1.0,
            PointState::Unknown => {
                if draw & 1 == 0 {
                    UNKNOWN_FIELD
                } else {
                    -UNKNOWN_FIELD
                }
            }
        }
    }

    /// One scan: every point's state, with stuck sensors and noise applied.
    pub fn scan_classified(&mut self) -> Vec<PointState> {
        self.refresh();
        let mut out = self.clean.clone();
        for (i, state) in out.iter_mut().enumerate() {
            if let Some(stuck) = self.stuck[i] {
                *state = stuck;
            } else if self.noise_threshold > 0
                && (self.rng.next_u32() as u64) < self.noise_threshold
            {
                *state = World::wrong_state(*state, self.rng.next_u32());
            }
        }
        out
    }

    /// One scan as raw readings: the model's readings with jitter (the analog noise of a
    /// live Hall sensor), stuck sensors reading their state's level exactly, with no
    /// jitter, and noisy points reading a level of another state.
    pub fn scan_raw(&mut self) -> Vec<u16> {
        self.refresh();
        let raw = self.raw;
        let mut out = Vec::with_capacity(self.field.len());
        for i in 0..self.field.len() {
            let draw = self.rng.next_u32();
            if let Some(stuck) = self.stuck[i] {
                // A dead sensor holds one exact reading: no analog noise moves it.
                out.push(raw.exact(World::field_for(stuck, 0)));
                continue;
            }
            let field = if self.noise_threshold > 0
                && (self.rng.next_u32() as u64) < self.noise_threshold
            {
                let pick = self.rng.next_u32();
                World::field_for(World::wrong_state(self.clean[i], pick), pick >> 8)
            } else {
                self.field[i]
            };
            out.push(raw.sample(field, draw));
        }
        out
    }

    /// One scan in the given kind.
    pub fn scan(&mut self, kind: FrameKind) -> FrameData {
        match kind {
            FrameKind::Classified => FrameData::Classified(self.scan_classified()),
            FrameKind::Raw => FrameData::Raw(self.scan_raw()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn world(size: u8) -> World {
        World::new(size, RawModel::adc12(), ChaCha8Rng::seed_from_u64(7))
    }

    #[test]
    fn stones_read_as_their_colour_and_crosstalk_stays_empty() {
        let mut w = world(5);
        let centre = Point::new(2, 2);
        for p in [
            Point::new(1, 2),
            Point::new(3, 2),
            Point::new(2, 1),
            Point::new(2, 3),
        ] {
            w.set_stone(p, Some(Color::Black));
        }
        // Four black neighbours: the empty centre sees 4 x 4% and still reads empty.
        assert_eq!(w.clean_states()[centre.index(5)], PointState::Empty);
        assert!((w.fields()[centre.index(5)] - 0.16).abs() < 1e-6);
        // A white stone surrounded by black still reads white.
        w.set_stone(centre, Some(Color::White));
        assert_eq!(w.clean_states()[centre.index(5)], PointState::White);
        assert_eq!(
            w.clean_states()[Point::new(1, 2).index(5)],
            PointState::Black
        );
    }

    #[test]
    fn raw_readings_sit_in_their_bands_and_round_trip() {
        let mut w = world(3);
        w.set_stone(Point::new(0, 0), Some(Color::Black));
        w.set_stone(Point::new(2, 2), Some(Color::White));
        let raw = w.scan_raw();
        let m = RawModel::adc12();
        for (i, r) in raw.iter().enumerate() {
            let truth = w.clean_states()[i];
            assert_eq!(m.classify(*r), truth, "point {i} raw {r}");
        }
        assert!(raw[Point::new(0, 0).index(3)] > 2600);
        assert!(raw[Point::new(2, 2).index(3)] < 1500);
        assert!((m.field_of(m.reading(0.3) as u16) - 0.3).abs() < 0.01);
        assert_eq!(
            (m.baseline, m.black_level, m.white_level),
            (2048, 2662, 1434)
        );
        let t = RawModel::adc10();
        assert_eq!(
            (t.baseline, t.black_level, t.white_level, t.max_reading()),
            (512, 665, 359, 1023)
        );
        assert!((m.field_of(m.reading(-0.7) as u16) + 0.7).abs() < 0.01);
    }

    #[test]
    fn stuck_sensors_read_their_state_whatever_is_there() {
        let mut w = world(3);
        let p = Point::new(1, 1);
        w.set_stuck(p, Some(PointState::Black));
        assert_eq!(w.scan_classified()[p.index(3)], PointState::Black);
        w.set_stone(p, Some(Color::White));
        assert_eq!(w.scan_classified()[p.index(3)], PointState::Black);
        let m = RawModel::adc12();
        assert_eq!(m.classify(w.scan_raw()[p.index(3)]), PointState::Black);
        w.set_stuck(p, None);
        assert_eq!(w.scan_classified()[p.index(3)], PointState::White);
        assert_eq!(w.stuck().count(), 0);
    }

    #[test]
    fn a_wrong_state_is_never_the_truth_and_covers_the_others() {
        for truth in [
            PointState::Empty,
            PointState::Black,
            PointState::White,
            PointState::Unknown,
        ] {
            let got: std::collections::HashSet<_> =
                (0..3).map(|d| World::wrong_state(truth, d)).collect();
            assert_eq!(got.len(), 3);
            assert!(!got.contains(&truth));
        }
    }

    #[test]
    fn noise_one_makes_every_point_wrong() {
        let mut w = world(9);
        w.set_noise(1.0);
        let s = w.scan_classified();
        assert!(s.iter().all(|s| *s != PointState::Empty));
    }
}

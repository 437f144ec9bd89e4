//! Flickering sensors: a sensor that reads a wrong state in some scans, each with its own
//! probability, on top of what the [`crate::physics`] model reads (a loose connection, a
//! failing Hall sensor). Unlike the model's noise, which hits every point alike, a flicker
//! belongs to one sensor and is applied to each scan's frame after it is taken.

use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;
use tengen_hal::FrameData;

use crate::physics::{RawModel, World};

/// Sensors that flicker: each reads a wrong state in each scan with its probability.
#[derive(Debug, Clone)]
pub struct Flickers {
    points: Vec<(usize, f64)>,
    rng: ChaCha8Rng,
    raw: RawModel,
}

impl Flickers {
    /// No flickering sensor yet; `rng` draws the wrong readings, `raw` makes raw ones.
    pub fn new(rng: ChaCha8Rng, raw: RawModel) -> Flickers {
        Flickers {
            points: Vec::new(),
            rng,
            raw,
        }
    }

    /// Sets the probability for the point with this index (0 stops its flicker).
    pub fn set(&mut self, index: usize, probability: f64) {
        self.points.retain(|(i, _)| *i != index);
        if probability > 0.0 {
            self.points.push((index, probability.min(1.0)));
        }
    }

    /// True when no sensor flickers.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Makes the flickering sensors of one scan read wrong, each with its probability: a
    /// classified state becomes one of the three others; a raw reading becomes the
    /// middle of another state's band (an `Unknown` on the black side of the baseline).
    pub fn apply(&mut self, data: &mut FrameData) {
        for &(i, p) in &self.points {
            if !self.rng.random_bool(p) {
                continue;
            }
            let pick = self.rng.next_u32();
            match data {
                FrameData::Classified(states) => {
                    if let Some(s) = states.get_mut(i) {
                        *s = World::wrong_state(*s, pick);
                    }
                }
                FrameData::Raw(readings) => {
                    if let Some(r) = readings.get_mut(i) {
                        let state = World::wrong_state(self.raw.classify(*r), pick);
                        let field = World::field_for(state, 0);
                        *r = self.raw.reading(field).round().max(0.0) as u16;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use tengen_hal::PointState;

    #[test]
    fn flicker_reads_wrong_at_its_rate_and_only_there() {
        let mut f = Flickers::new(ChaCha8Rng::seed_from_u64(3), RawModel::adc12());
        f.set(4, 0.3);
        let mut wrong = 0;
        for _ in 0..10_000 {
            let mut data = FrameData::Classified(vec![PointState::Empty; 9]);
            f.apply(&mut data);
            let FrameData::Classified(s) = data else {
                unreachable!()
            };
            assert!(s
                .iter()
                .enumerate()
                .all(|(i, s)| i == 4 || *s == PointState::Empty));
            wrong += usize::from(s[4] != PointState::Empty);
        }
        assert!((2700..3300).contains(&wrong), "{wrong} wrong of 10000");
        f.set(4, 0.0);
        assert!(f.is_empty());
        // Raw readings: a wrong one classifies as another state.
        let m = RawModel::adc12();
        f.set(0, 1.0);
        let mut data = FrameData::Raw(vec![m.reading(1.0) as u16; 4]);
        f.apply(&mut data);
        let FrameData::Raw(r) = data else {
            unreachable!()
        };
        assert_ne!(m.classify(r[0]), PointState::Black);
        assert_eq!(m.classify(r[1]), PointState::Black);
    }
}

//! Classification: levels classify as what they are whatever each point's polarity, and
//! the hysteresis keeps a reading jittering around any threshold from flickering.

use proptest::prelude::*;
use tengen_hal::calibration::{AdcBits, Calibration, Hysteresis, PointLevels};
use tengen_hal::classify::{Classifier, ClassifyError};
use tengen_hal::{Frame, FrameData, PointState};

/// Per-point levels: a baseline, a swing each way, and which way black goes.
fn levels() -> impl Strategy<Value = PointLevels> {
    (300u16..700, 40u16..300, 40u16..300, any::<bool>()).prop_map(|(base, up, down, black_up)| {
        if black_up {
            PointLevels {
                baseline: base,
                black: base + up,
                white: base - down,
            }
        } else {
            PointLevels {
                baseline: base,
                black: base - down,
                white: base + up,
            }
        }
    })
}

fn cal_of(points: Vec<PointLevels>) -> Calibration {
    Calibration::new(2, AdcBits::Ten, Hysteresis::default(), points).unwrap()
}

proptest! {
    /// Readings at a point's own levels classify as that state, from any previous state.
    #[test]
    fn levels_classify_as_themselves(
        pts in prop::collection::vec(levels(), 4),
        order in prop::collection::vec(0usize..3, 1..12),
    ) {
        let cal = cal_of(pts.clone());
        let mut c = Classifier::new(&cal);
        for which in order {
            let (raw, want): (Vec<u16>, PointState) = match which {
                0 => (pts.iter().map(|p| p.baseline).collect(), PointState::Empty),
                1 => (pts.iter().map(|p| p.black).collect(), PointState::Black),
                _ => (pts.iter().map(|p| p.white).collect(), PointState::White),
            };
            let states = c.classify_raw(&raw).unwrap();
            prop_assert!(states.iter().all(|&s| s == want), "{:?} for {:?}", states, want);
        }
    }

    /// A reading wandering inside a window narrower than the smallest hysteresis gap
    /// changes the point's state at most once, wherever the window sits: no flicker.
    #[test]
    fn jitter_narrower_than_the_gaps_never_flickers(
        p in levels(),
        centre in 0u16..1024,
        jitter in prop::collection::vec(0.0f64..1.0, 2..60),
    ) {
        let cal = cal_of(vec![p; 4]);
        // The default hysteresis keeps every pair of thresholds a tenth of the swing apart;
        // a window a little narrower than that (allowing for rounding) may straddle any one
        // threshold but never two.
        let swing = p.black_swing().abs().min(p.white_swing().abs());
        let width = f64::from(swing / 10 - 2);
        let lo = f64::from(centre) - width / 2.0;
        let mut c = Classifier::new(&cal);
        let mut changes = 0;
        let mut last = None;
        for j in jitter {
            let r = (lo + j * width).round().clamp(0.0, 1023.0) as u16;
            let s = c.classify_raw(&[r; 4]).unwrap()[0];
            if last.is_some_and(|l| l != s) {
                changes += 1;
            }
            last = Some(s);
        }
        prop_assert!(changes <= 1, "{changes} changes around {centre} (width {width})");
    }
}

/// A stone being lifted: the reading falls from the black level to the baseline through
/// the bands, and the states follow in order without going back.
#[test]
fn lifting_a_stone_goes_black_unknown_empty() {
    let p = PointLevels {
        baseline: 512,
        black: 712,
        white: 312,
    };
    let mut c = Classifier::new(&cal_of(vec![p; 4]));
    let mut seen = Vec::new();
    for r in (512..=712).rev().step_by(5) {
        let s = c.classify_raw(&[r; 4]).unwrap()[0];
        if seen.last() != Some(&s) {
            seen.push(s);
        }
    }
    assert_eq!(
        seen,
        vec![PointState::Black, PointState::Unknown, PointState::Empty]
    );
}

#[test]
fn frames_of_either_kind_and_wrong_lengths() {
    let cal = Calibration::default_for(2, AdcBits::Twelve).unwrap();
    let mut c = Classifier::new(&cal);
    assert_eq!(c.size(), 2);
    assert!(c.states().iter().all(|&s| s == PointState::Unknown));
    let ptr = c.states().as_ptr();
    let raw = Frame {
        time: 5,
        data: FrameData::Raw(vec![2048, 2048 + 614, 2048 - 614, 2048 + 300]),
    };
    let mut out = Vec::new();
    c.classify_into(&raw, &mut out).unwrap();
    assert_eq!(
        out,
        vec![
            PointState::Empty,
            PointState::Black,
            PointState::White,
            PointState::Unknown
        ]
    );
    // The classifier reuses its buffer.
    assert_eq!(c.states().as_ptr(), ptr);
    let given = vec![PointState::White; 4];
    let classified = Frame {
        time: 6,
        data: FrameData::Classified(given.clone()),
    };
    assert_eq!(c.classify(&classified).unwrap(), &given[..]);
    let short = Frame {
        time: 7,
        data: FrameData::Raw(vec![0; 3]),
    };
    assert_eq!(
        c.classify(&short).unwrap_err(),
        ClassifyError::WrongLength {
            expected: 4,
            found: 3
        }
    );
    assert_eq!(
        c.classify_raw(&[0; 5]).unwrap_err().to_string(),
        "frame has 5 readings, the calibration covers 4 points"
    );
    c.reset();
    assert!(c.states().iter().all(|&s| s == PointState::Unknown));
}

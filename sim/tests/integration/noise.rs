//! Sensor noise: the measured wrong-read rate matches the probability asked for, in both
//! frame kinds; raw frames read right through the hal's own classifier and default
//! calibration.

use crate::common;

use common::{pt, states};
use tengen_hal::calibration::{AdcBits, Calibration};
use tengen_hal::classify::Classifier;
use tengen_hal::{FrameData, PointState};
use tengen_sim::{FrameKind, RawModel, SimOptions, Simulation};

/// A 19x19 board with a few stones (some touching, for cross-talk), then a long wait.
fn board_script(noise: f64) -> String {
    format!(
        "noise {noise}\nplace B D4\nplace W D5\nplace B E5\nplace W Q16\nplace B Q17\n\
         place W R16\nplace B K10\nplace W K11\nplace B J10\nwait 30s\n"
    )
}

/// Wrong reads and point-reads over the frames after the last stone is down, measured
/// against the model's noise-free reading.
fn measure(noise: f64, kind: FrameKind, seed: u64) -> (u64, u64) {
    let options = SimOptions {
        seed,
        frames: kind,
        ..SimOptions::default()
    };
    let mut sim = Simulation::from_script(&board_script(noise), &options).unwrap();
    let settled = sim.actions().last().unwrap().start;
    let model = RawModel::adc12();
    let (mut wrong, mut reads) = (0u64, 0u64);
    while let Some((frame, _)) = sim.next_scan() {
        if frame.time < settled {
            continue;
        }
        let clean = sim.world().clean_states().to_vec();
        let read: Vec<PointState> = match &frame.data {
            FrameData::Classified(s) => s.clone(),
            FrameData::Raw(r) => r.iter().map(|v| model.classify(*v)).collect(),
        };
        for (a, b) in read.iter().zip(&clean) {
            reads += 1;
            wrong += u64::from(a != b);
        }
    }
    (wrong, reads)
}

#[test]
fn wrong_read_rate_is_within_tolerance_of_p() {
    for (p, kind) in [
        (0.01, FrameKind::Classified),
        (0.001, FrameKind::Classified),
        (0.01, FrameKind::Raw),
    ] {
        let (wrong, reads) = measure(p, kind, 3);
        let expected = p * reads as f64;
        let sigma = (reads as f64 * p * (1.0 - p)).sqrt();
        let rate = wrong as f64 / reads as f64;
        assert!(
            (wrong as f64 - expected).abs() < 5.0 * sigma,
            "{kind:?} p={p}: measured {rate:.5} over {reads} reads ({wrong} wrong, expected {expected:.0} ± {sigma:.0})"
        );
    }
}

#[test]
fn no_noise_means_no_wrong_reads() {
    assert_eq!(measure(0.0, FrameKind::Classified, 1).0, 0);
    assert_eq!(measure(0.0, FrameKind::Raw, 1).0, 0);
}

#[test]
fn a_noise_action_changes_the_rate_from_then_on() {
    let text = "place B D4\nwait 5s\nnoise 0.05\nwait 5s\n";
    let mut sim = Simulation::from_script(text, &SimOptions::default()).unwrap();
    let switch = sim.actions()[2].start;
    let (mut before, mut after, mut scans_after) = (0u64, 0u64, 0u64);
    while let Some((frame, _)) = sim.next_scan() {
        let clean = sim.world().clean_states().to_vec();
        let wrong = states(&frame)
            .iter()
            .zip(&clean)
            .filter(|(a, b)| a != b)
            .count() as u64;
        if frame.time < switch {
            before += wrong;
        } else {
            after += wrong;
            scans_after += 1;
        }
    }
    assert_eq!(before, 0);
    // 5 s and the 1 s tail: about 600 scans x 361 points x 0.05.
    let reads = (scans_after * 361) as f64;
    let sigma = (reads * 0.05 * 0.95).sqrt();
    assert!(scans_after >= 590, "{scans_after}");
    assert!(
        (after as f64 - reads * 0.05).abs() < 5.0 * sigma,
        "{after} of {reads}"
    );
}

#[test]
fn raw_frames_classify_to_the_truth_with_the_hal_default_calibration() {
    let options = SimOptions {
        frames: FrameKind::Raw,
        ..SimOptions::default()
    };
    let mut sim = Simulation::from_script(&board_script(0.0), &options).unwrap();
    let calibration = Calibration::default_for(19, AdcBits::Twelve).unwrap();
    let mut classifier = Classifier::new(&calibration);
    let mut last = Vec::new();
    while let Some((frame, _)) = sim.next_scan() {
        last = classifier.classify(&frame).unwrap().to_vec();
    }
    for (i, s) in last.iter().enumerate() {
        assert_eq!(*s, common::state_of(sim.true_board()[i]), "point {i}");
    }
    assert_eq!(last[pt("D5", 19).index(19)], PointState::White);
    assert_eq!(last[pt("E5", 19).index(19)], PointState::Black);
}

#[test]
fn a_whole_game_in_raw_frames_reads_right_through_the_hal_classifier() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
    let record =
        tengen_rules::sgf::parse(&std::fs::read_to_string(format!("{dir}even9_b.sgf")).unwrap())
            .unwrap();
    let options = SimOptions {
        frames: FrameKind::Raw,
        ..SimOptions::seeded(12)
    };
    let play = tengen_sim::GameOptions {
        think: tengen_sim::ThinkTime::brisk(),
        ..Default::default()
    };
    let mut sim = Simulation::from_sgf(&record, &options, &play).unwrap();
    let calibration = Calibration::default_for(9, AdcBits::Twelve).unwrap();
    let mut classifier = Classifier::new(&calibration);
    let mut wrong_since = [None::<u64>; 81];
    let mut unknowns = 0;
    let mut last = Vec::new();
    while let Some((frame, _)) = sim.next_scan() {
        last = classifier.classify(&frame).unwrap().to_vec();
        for (i, st) in last.iter().enumerate() {
            let truth = common::state_of(sim.true_board()[i]);
            unknowns += usize::from(*st == PointState::Unknown);
            let wrong = *st != PointState::Unknown && *st != truth;
            match (wrong, wrong_since[i]) {
                (true, None) => wrong_since[i] = Some(frame.time),
                (true, Some(t0)) => assert!(frame.time - t0 < 100, "point {i} at {}", frame.time),
                (false, _) => wrong_since[i] = None,
            }
        }
    }
    assert!(
        unknowns > 100,
        "hands and half-set stones read Unknown: {unknowns}"
    );
    for (i, s) in last.iter().enumerate() {
        assert_eq!(*s, common::state_of(sim.true_board()[i]), "point {i}");
    }
}

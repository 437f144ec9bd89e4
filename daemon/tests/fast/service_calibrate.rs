//! `tengen calibrate`: the guided procedure over a scanner of raw frames and a scripted
//! terminal, the file it writes, and the refusal to calibrate the simulator.

use std::io::Cursor;
use std::process::Command;

use tengen_daemon::cli::calibrate::{guide, save, ScanError, FRAMES_PER_ROUND};
use tengen_daemon::config::Config;
use tengen_hal::calibration::{AdcBits, Calibration};
use tengen_hal::{Frame, FrameData};

const SIZE: u8 = 5;
const N: usize = (SIZE as usize) * (SIZE as usize);

/// A board whose sensors read 2048 when empty, +600 under black, -600 under white, with a
/// little deterministic jitter; `covered` says which points have a stone in each scan.
fn scanner(plan: Vec<(i32, Vec<bool>)>) -> impl FnMut() -> Result<Frame, ScanError> {
    let mut n = 0usize;
    move || {
        // Each plan entry lasts one round of scans.
        let (offset, covered) = &plan[(n / FRAMES_PER_ROUND).min(plan.len() - 1)];
        let raw = (0..N)
            .map(|i| {
                let jitter = ((i * 7 + n * 13) % 9) as i32 - 4;
                let v = 2048 + jitter + if covered[i] { *offset } else { 0 };
                v as u16
            })
            .collect();
        n += 1;
        Ok(Frame {
            time: n as u64 * 10,
            data: FrameData::Raw(raw),
        })
    }
}

#[test]
fn a_full_procedure_calibrates_every_point() {
    let all = vec![true; N];
    let none = vec![false; N];
    let mut scan = scanner(vec![(0, none), (600, all.clone()), (-600, all)]);
    let mut input = Cursor::new("\n\n\n");
    let mut out = Vec::new();
    let outcome = guide(&mut scan, SIZE, AdcBits::Twelve, &mut input, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("Step 1 of 3: clear the board"), "{text}");
    assert!(
        text.contains("every point has seen a black stone"),
        "{text}"
    );
    assert!(
        text.contains("every point has seen a white stone"),
        "{text}"
    );
    assert!(outcome.is_clean(), "{:?}", outcome.issues);
    for p in outcome.calibration.points() {
        assert!((2040..=2056).contains(&p.baseline), "{p:?}");
        assert!(p.black.abs_diff(2648) <= 8, "{p:?}");
        assert!(p.white.abs_diff(1448) <= 8, "{p:?}");
    }

    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default_for("cal");
    config.board.size = SIZE;
    config.hardware.calibration = dir.path().join("cal").join("calibration.json");
    let mut said = Vec::new();
    save(&config, &outcome, &mut said).unwrap();
    assert!(String::from_utf8(said)
        .unwrap()
        .contains("every point is usable"));
    let back = Calibration::load_for(&config.hardware.calibration, SIZE).unwrap();
    assert_eq!(back, outcome.calibration);
}

#[test]
fn missing_points_are_asked_for_until_seen_or_done() {
    let all = vec![true; N];
    let half: Vec<bool> = (0..N).map(|i| i < N / 2).collect();
    let rest: Vec<bool> = (0..N).map(|i| i >= N / 2).collect();
    // Black: half the board, then the other half after the prompt; white: half, then 'done'.
    let mut scan = scanner(vec![
        (0, vec![false; N]),
        (600, half.clone()),
        (600, rest),
        (-600, half),
        (-600, all),
    ]);
    let mut input = Cursor::new("\n\n\n\ndone\n");
    let mut out = Vec::new();
    let outcome = guide(&mut scan, SIZE, AdcBits::Twelve, &mut input, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains(&format!("{} points still need a black stone", N - N / 2)),
        "{text}"
    );
    assert!(
        text.contains("every point has seen a black stone"),
        "{text}"
    );
    assert!(text.contains("points still need a white stone"), "{text}");
    // White was finished early with half the board unseen: those points are flagged.
    assert!(!outcome.is_clean());
    assert_eq!(
        outcome
            .issues
            .iter()
            .filter(|i| i.to_string().contains("no white stone seen"))
            .count(),
        N - N / 2
    );
}

#[test]
fn end_of_input_cancels() {
    let mut scan = scanner(vec![(0, vec![false; N])]);
    let mut out = Vec::new();
    let err = guide(
        &mut scan,
        SIZE,
        AdcBits::Twelve,
        &mut Cursor::new(""),
        &mut out,
    )
    .unwrap_err();
    assert_eq!(err.code, 1);
    assert!(err.message.contains("cancelled"), "{}", err.message);
}

#[test]
fn the_simulator_cannot_be_calibrated() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sim.toml");
    std::fs::write(
        &path,
        "[board]\nid = \"s\"\n[hardware]\nbackend = \"sim\"\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["calibrate", "--config", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs real hardware"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

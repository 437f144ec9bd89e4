//! Calibration: the file format (round trips, one-line errors for every kind of bad file)
//! and the guided calibrator on a synthetic board with planted faults.

use std::path::Path;

use tengen_hal::calibration::{
    AdcBits, Calibration, CalibrationError, Calibrator, Hysteresis, IssueKind, PointLevels, Stage,
};
use tengen_hal::{Frame, FrameData};
use tengen_rules::{Color, Point};

/// A calibration whose levels differ from point to point (and one reversed point).
fn varied(size: u8) -> Calibration {
    let n = usize::from(size) * usize::from(size);
    let points = (0..n)
        .map(|i| {
            let base = 480 + (i % 61) as u16;
            let swing = 120 + (i % 37) as u16;
            if i == 5 {
                PointLevels {
                    baseline: base,
                    black: base - swing,
                    white: base + swing + 3,
                }
            } else {
                PointLevels {
                    baseline: base,
                    black: base + swing,
                    white: base - swing + 7,
                }
            }
        })
        .collect();
    Calibration::new(size, AdcBits::Ten, Hysteresis::default(), points).unwrap()
}

#[test]
fn toml_and_json_files_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let cal = varied(19);
    for name in ["cal.toml", "cal.json"] {
        let path = dir.path().join(name);
        cal.save(&path).unwrap();
        let back = Calibration::load_for(&path, 19).unwrap();
        assert_eq!(back, cal, "{name}");
    }
    let toml = std::fs::read_to_string(dir.path().join("cal.toml")).unwrap();
    assert!(
        toml.starts_with("version = 1\nsize = 19\nadc_bits = 10\n"),
        "{toml}"
    );
    let json = std::fs::read_to_string(dir.path().join("cal.json")).unwrap();
    assert!(json.contains("\"adc_bits\": 10"));
}

#[test]
fn default_calibration_is_mid_scale_with_black_above() {
    for (bits, mid, swing) in [(AdcBits::Ten, 512, 153), (AdcBits::Twelve, 2048, 614)] {
        let cal = Calibration::default_for(19, bits).unwrap();
        assert_eq!(cal.points().len(), 361);
        let p = cal.levels(Point::new(3, 3)).unwrap();
        assert_eq!(
            p,
            PointLevels {
                baseline: mid,
                black: mid + swing,
                white: mid - swing
            }
        );
    }
}

/// The TOML text of a 2x2 calibration with the given lists.
fn small(version: u32, size: u8, baseline: &str, black: &str, white: &str) -> String {
    format!(
        "version = {version}\nsize = {size}\nadc_bits = 10\n\n[levels]\nbaseline = {baseline}\nblack = {black}\nwhite = {white}\n"
    )
}

fn err(text: &str) -> String {
    let e = Calibration::from_toml_str(text).unwrap_err().to_string();
    assert!(!e.contains('\n'), "not one line: {e}");
    e
}

#[test]
fn bad_files_get_clear_one_line_errors() {
    let ok = small(
        1,
        2,
        "[500, 500, 500, 500]",
        "[700, 700, 700, 700]",
        "[300, 300, 300, 300]",
    );
    assert!(Calibration::from_toml_str(&ok).is_ok());

    assert_eq!(
        err(&small(2, 2, "[500]", "[700]", "[300]")),
        "calibration format version 2 is not supported (this build reads version 1)"
    );
    assert_eq!(
        err(&small(
            1,
            2,
            "[500, 500, 500]",
            "[700, 700, 700, 700]",
            "[300, 300, 300, 300]"
        )),
        "calibration list `baseline` has 3 entries, a 2x2 board needs 4"
    );
    assert_eq!(
        err(&small(1, 2, "[500, 500, 500, 500]", "[700, 700, 400, 700]", "[300, 300, 300, 300]")),
        "calibration point A1: black (400) and white (300) levels are on the same side of the baseline (500)"
    );
    assert_eq!(
        err(&small(
            1,
            2,
            "[500, 500, 500, 500]",
            "[700, 1100, 700, 700]",
            "[300, 300, 300, 300]"
        )),
        "calibration point B2: black level 1100 is above the 10-bit maximum 1023"
    );
    assert_eq!(
        err(&small(
            1,
            2,
            "[500, 500, 500, 500]",
            "[700, 700, 700, 700]",
            "[300, 300, 300, 490]"
        )),
        "calibration point B1: white swing 10 is below the minimum 20"
    );
    assert_eq!(
        err(&small(1, 1, "[500]", "[700]", "[300]")),
        "calibration board size 1 is not supported (2..=25)"
    );
    let e = err(&ok.replace("adc_bits = 10", "adc_bits = 11"));
    assert!(e.starts_with("calibration file line 3: "), "{e}");
    assert!(e.contains("adc_bits must be 10 or 12"), "{e}");
    let e = err(&format!("{ok}colour = 3\n"));
    assert!(e.contains("unknown field `colour`"), "{e}");
    let e = err("version = 1\nsize = [\n");
    assert!(e.starts_with("calibration file line "), "{e}");
    let e = err(&ok.replace("[levels]", "[hysteresis]\nempty_enter = 0.5\nempty_leave = 0.3\nstone_leave = 0.4\nstone_enter = 0.55\n\n[levels]"));
    assert!(
        e.starts_with("calibration hysteresis: need 0 < empty_enter (0.5) < empty_leave (0.3)"),
        "{e}"
    );
}

#[test]
fn load_names_the_file_and_checks_the_size() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    let e = Calibration::load(&missing).unwrap_err();
    assert!(matches!(e, CalibrationError::Io { .. }));
    assert!(e
        .to_string()
        .starts_with(&format!("calibration file {}: ", missing.display())));

    let path = dir.path().join("c.json");
    std::fs::write(&path, "{\"version\": 1,").unwrap();
    let e = Calibration::load(&path).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("calibration file {}: ", path.display())),
        "{e}"
    );
    assert!(!e.contains('\n'));

    let path = dir.path().join("c9.toml");
    varied(9).save(&path).unwrap();
    assert_eq!(
        Calibration::load_for(&path, 19).unwrap_err().to_string(),
        "calibration is for a 9x9 board, but the board is 19x19"
    );
    assert!(!Path::new(&format!("{}.tmp", path.display())).exists());
}

/// A synthetic 9x9 board: what each point truly reads with nothing, black or white on it.
struct Truth {
    size: u8,
    levels: Vec<PointLevels>,
}

impl Truth {
    fn new() -> Truth {
        let size = 9;
        let levels = (0..81)
            .map(|i| {
                let base = 490 + (i * 7 % 41) as u16;
                let up = 140 + (i * 13 % 29) as u16;
                let down = 130 + (i * 11 % 31) as u16;
                match i {
                    // C9 (index 2): sensor mounted upside down.
                    2 => PointLevels {
                        baseline: base,
                        black: base - down,
                        white: base + up,
                    },
                    // E5 (index 40): a dead sensor, barely moves.
                    40 => PointLevels {
                        baseline: base,
                        black: base + 14,
                        white: base - 4,
                    },
                    // J1 (index 80): saturates the same way for both.
                    80 => PointLevels {
                        baseline: base,
                        black: base + up,
                        white: base + up / 2,
                    },
                    _ => PointLevels {
                        baseline: base,
                        black: base + up,
                        white: base - down,
                    },
                }
            })
            .collect();
        Truth { size, levels }
    }

    /// The readings with stones of `color` on the `stones` points; a stone also moves its
    /// four neighbours by 10% of their swing (cross-talk). `jitter` adds +-2 counts.
    fn frame(&self, stones: &[usize], color: Color, jitter: u64) -> Vec<u16> {
        let s = usize::from(self.size);
        let mut r: Vec<i32> = self.levels.iter().map(|l| i32::from(l.baseline)).collect();
        for &i in stones {
            let lv = self.levels[i];
            let target = i32::from(if color == Color::Black {
                lv.black
            } else {
                lv.white
            });
            r[i] += target - i32::from(lv.baseline);
            let (x, y) = (i % s, i / s);
            let mut near = vec![];
            if x > 0 {
                near.push(i - 1)
            }
            if x + 1 < s {
                near.push(i + 1)
            }
            if y > 0 {
                near.push(i - s)
            }
            if y + 1 < s {
                near.push(i + s)
            }
            for j in near {
                if stones.contains(&j) {
                    continue;
                }
                let lj = self.levels[j];
                let tj = i32::from(if color == Color::Black {
                    lj.black
                } else {
                    lj.white
                });
                r[j] += (tj - i32::from(lj.baseline)) / 10;
            }
        }
        r.iter()
            .enumerate()
            .map(|(i, &v)| (v + ((i as u64 * 31 + jitter * 17) % 5) as i32 - 2) as u16)
            .collect()
    }
}

#[test]
fn guided_calibration_finds_levels_and_flags_planted_faults() {
    let truth = Truth::new();
    let mut c = Calibrator::new(9, AdcBits::Ten).unwrap();
    // Stones before the empty board: refused.
    assert!(c
        .feed_raw(Stage::Black, &truth.frame(&[], Color::Black, 0))
        .is_err());
    for k in 0..20 {
        let frame = Frame {
            time: k,
            data: FrameData::Raw(truth.frame(&[], Color::Black, k)),
        };
        c.feed(Stage::Empty, &frame).unwrap();
    }
    // Black: a full board of stones.
    let all: Vec<usize> = (0..81).collect();
    for k in 0..10 {
        c.feed_raw(Stage::Black, &truth.frame(&all, Color::Black, k))
            .unwrap();
    }
    // Empty frames after the stones: refused (the baseline is fixed).
    assert!(c
        .feed_raw(Stage::Empty, &truth.frame(&[], Color::Black, 0))
        .is_err());
    // White: point by point, five stones at a time, moved along the board.
    for chunk in all.chunks(5) {
        for k in 0..4 {
            c.feed_raw(Stage::White, &truth.frame(chunk, Color::White, k))
                .unwrap();
        }
    }
    assert!(c.missing(Stage::White).iter().all(|p| p.index(9) == 40));
    assert_eq!(c.frames(Stage::Empty), 20);
    assert_eq!(c.frames(Stage::Black), 10);
    assert_eq!(c.frames(Stage::White), 68);

    let out = c.finish().unwrap();
    assert!(!out.is_clean());
    let issues: Vec<(usize, IssueKind)> = out
        .issues
        .iter()
        .map(|i| (i.point.index(9), i.kind))
        .collect();
    assert!(
        issues.contains(&(2, IssueKind::ReversedPolarity)),
        "{issues:?}"
    );
    assert!(issues.contains(&(80, IssueKind::SameSide)), "{issues:?}");
    assert!(
        issues.iter().any(|&(i, k)| i == 40
            && matches!(
                k,
                IssueKind::SmallSwing {
                    color: Color::Black,
                    ..
                }
            )),
        "{issues:?}"
    );
    assert!(
        issues.contains(&(
            40,
            IssueKind::NotSeen {
                color: Color::White
            }
        )),
        "{issues:?}"
    );
    // Nothing else is flagged.
    assert!(
        issues.iter().all(|(i, _)| [2, 40, 80].contains(i)),
        "{issues:?}"
    );
    let messages: Vec<String> = out.issues.iter().map(|i| i.to_string()).collect();
    assert!(
        messages.contains(&"C9: polarity reversed (sensor mounted upside down?)".to_string()),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"E5: no white stone seen".to_string()),
        "{messages:?}"
    );

    // Measured levels are within the jitter of the truth, reversed point included.
    let cal = &out.calibration;
    for (i, (got, want)) in cal.points().iter().zip(&truth.levels).enumerate() {
        if i == 40 || i == 80 {
            // Faulty: default swing around the measured baseline, in the board's polarity.
            assert!(got.baseline.abs_diff(want.baseline) <= 2);
            assert_eq!(got.black, got.baseline + AdcBits::Ten.default_swing());
            assert_eq!(got.white, got.baseline - AdcBits::Ten.default_swing());
            continue;
        }
        assert!(
            got.baseline.abs_diff(want.baseline) <= 2,
            "{i}: {got:?} vs {want:?}"
        );
        assert!(
            got.black.abs_diff(want.black) <= 2,
            "{i}: {got:?} vs {want:?}"
        );
        assert!(
            got.white.abs_diff(want.white) <= 2,
            "{i}: {got:?} vs {want:?}"
        );
    }
}

#[test]
fn a_clean_board_calibrates_clean_and_bad_frames_are_refused() {
    let mut c = Calibrator::new(2, AdcBits::Twelve).unwrap();
    assert!(c.finish().is_err());
    assert_eq!(
        c.feed_raw(Stage::Empty, &[2000; 3])
            .unwrap_err()
            .to_string(),
        "calibration: a frame has 3 readings, a 2x2 board needs 4"
    );
    assert_eq!(
        c.feed_raw(Stage::Empty, &[2000, 2000, 5000, 2000])
            .unwrap_err()
            .to_string(),
        "calibration: reading 5000 is above the 12-bit maximum 4095"
    );
    let classified = Frame {
        time: 0,
        data: FrameData::Classified(vec![]),
    };
    assert!(c.feed(Stage::Empty, &classified).is_err());
    c.feed_raw(Stage::Empty, &[2000, 2010, 1990, 2005]).unwrap();
    c.feed_raw(Stage::Black, &[1400, 1410, 1390, 1405]).unwrap();
    c.feed_raw(Stage::White, &[2600, 2610, 2590, 2605]).unwrap();
    let out = c.finish().unwrap();
    assert!(out.is_clean(), "{:?}", out.issues);
    assert!(out.issues.is_empty());
    // Black lowers the reading on this board: no point is "reversed".
    assert_eq!(
        out.calibration.points()[1],
        PointLevels {
            baseline: 2010,
            black: 1410,
            white: 2610
        }
    );
}

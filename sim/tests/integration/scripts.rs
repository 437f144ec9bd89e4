//! Scripts: every error names its line in one line, whatever the text, and never panics.

use proptest::prelude::*;
use tengen_sim::{Script, SimOptions, Simulation};

fn error(text: &str) -> String {
    Simulation::from_script(text, &SimOptions::default())
        .unwrap_err()
        .with_source("script.txt")
        .to_string()
}

#[test]
fn errors_while_carrying_out_name_the_line() {
    assert_eq!(
        error("size 9\nplace B C3\n\n# a comment\nplace B Q16\n"),
        "script.txt:5: Q16 is off a 9x9 board"
    );
    assert_eq!(
        error("place B C3\nlift D4\n"),
        "script.txt:2: lift D4: there is no stone on D4"
    );
    assert_eq!(
        error("place B C3\nplace W C3\n"),
        "script.txt:2: place W C3: C3 is taken"
    );
    assert_eq!(
        error("place B C3\nplace W D3\nslide C3 D3\n"),
        "script.txt:3: slide C3 D3: D3 is taken"
    );
    assert_eq!(
        error("size 8\nhandicap 5\nplace W C3\n"),
        "script.txt:2: handicap 5 is not available on a 8x8 board (0 or 2..=4)"
    );
}

#[test]
fn parse_errors_name_the_line_and_the_fault() {
    for (text, want) in [
        ("plaec B D4\n", "script.txt:1: unknown action 'plaec'"),
        (
            "size 19\nkomi seven\n",
            "script.txt:2: komi 'seven' is not a number of points",
        ),
        ("time byoyomi 60m\n", "script.txt:1: "),
        ("wait 3 s\n", "script.txt:1: expected 'wait TIME'"),
        (
            "place B\n",
            "script.txt:1: expected 'place B|W POINT [TIME]'",
        ),
        ("press\n", "script.txt:1: expected 'press B|W [TIME]'"),
        (
            "hover 200ms\n",
            "script.txt:1: expected 'hover [B|W] POINT... [TIME]'",
        ),
        (
            "knock many\n",
            "script.txt:1: knock: 'many' is not a number of stones",
        ),
        ("seed -1\n", "script.txt:1: seed '-1' is not a whole number"),
        (
            "place B C3\nnoise 1.5\n",
            "script.txt:2: noise '1.5' is not a probability from 0 to 1",
        ),
    ] {
        let got = error(text);
        assert!(got.starts_with(want), "{text:?}: {got}");
        assert!(!got.contains('\n'), "{got}");
    }
}

proptest! {
    #[test]
    fn any_text_parses_or_fails_with_a_line(text in "\\PC{0,200}") {
        match Script::parse(&text) {
            Ok(s) => prop_assert!(s.steps.len() <= text.lines().count()),
            Err(e) => prop_assert!(e.line >= 1 && e.line <= text.lines().count()),
        }
    }

    #[test]
    fn any_action_lines_run_or_fail_cleanly(
        lines in proptest::collection::vec(
            prop_oneof![
                Just("place B"), Just("place W"), Just("lift"), Just("slide"), Just("hover"),
                Just("press B"), Just("press W"), Just("knock 3"), Just("wait 150ms"),
                Just("noise 0.01"), Just("stuck"), Just("size 5"), Just("place B"),
            ].prop_flat_map(|kw| (Just(kw), "[A-HJ][1-9]", "[A-HJ][1-9]", 0u8..4)),
            0..25,
        ),
        seed in 0u64..1000,
    ) {
        let text: String = lines
            .iter()
            .map(|(kw, a, b, extra)| match (*kw, extra) {
                ("slide", _) => format!("slide {a} {b}\n"),
                ("hover", _) => format!("hover {a} {b} 90ms\n"),
                ("stuck", 0) => format!("stuck {a} B\n"),
                ("stuck", _) => format!("stuck {a} off\n"),
                ("lift", _) => format!("lift {a}\n"),
                (k, 0) if k.starts_with("place") => format!("{k} {a} 60ms\n"),
                (k, _) if k.starts_with("place") => format!("{k} {a}\n"),
                (k, _) => format!("{k}\n"),
            })
            .collect();
        let options = SimOptions { size: 9, ..SimOptions::seeded(seed) };
        match Simulation::from_script(&text, &options) {
            Ok(mut sim) => {
                let mut last = None;
                while let Some((frame, _)) = sim.next_scan() {
                    last = Some(frame.time);
                }
                prop_assert_eq!(last.map(|t| t / 10 * 10), last);
                prop_assert!(sim.is_finished());
            }
            Err(e) => prop_assert!(e.line >= 1 && e.line <= lines.len(), "{}", e),
        }
    }
}

#[test]
fn steps_built_in_code_are_checked_like_script_lines() {
    use tengen_rules::{Color, Point};
    use tengen_sim::{Action, Setup, Step};
    let steps = [
        Step::new(Action::Place {
            color: Color::Black,
            point: Point::new(2, 2),
        }),
        Step::new(Action::Hover {
            color: None,
            points: vec![],
        }),
    ];
    let err = Simulation::from_steps(Setup::default(), &steps, &SimOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "line 2: hover: no point given");
    let steps = [Step::new(Action::PlaceTogether {
        color: Color::White,
        points: vec![],
    })];
    let err = Simulation::from_steps(Setup::default(), &steps, &SimOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "line 1: place: no point given");
    let steps = [Step::new(Action::Place {
        color: Color::White,
        point: Point::new(19, 0),
    })];
    let err = Simulation::from_steps(Setup::default(), &steps, &SimOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), "line 1: U1 is off a 19x19 board");
}

//! Each physical action as the sensors see it: placements arrive through transients and
//! then hold, slides cross the points between, knocks displace several stones at once,
//! stuck sensors ignore the board, buttons press and release on time.

use crate::common;

use common::{pt, run, runs, state_of, states};
use tengen_hal::{Button, ButtonAction, ClockButtons, PointState, SensorMatrix};
use tengen_rules::Color;
use tengen_sim::{Action, SimOptions, Simulation};

fn sim(text: &str, seed: u64) -> Simulation {
    Simulation::from_script(text, &SimOptions::seeded(seed)).unwrap()
}

#[test]
fn a_placement_makes_transients_then_a_stable_reading() {
    for seed in 0..20 {
        let mut s = sim("size 9\nplace B E5\nwait 2s\n", seed);
        let (frames, _) = run(&mut s);
        let e5 = pt("E5", 9).index(9);
        let r = runs(&frames, e5);
        // Empty, then a half-set stone (Unknown), then black until the end.
        assert_eq!(
            r.first().unwrap().0,
            PointState::Empty,
            "seed {seed}: {r:?}"
        );
        assert_eq!(r.last().unwrap().0, PointState::Black, "seed {seed}: {r:?}");
        assert!(
            r.iter().any(|x| x.0 == PointState::Unknown),
            "seed {seed}: {r:?}"
        );
        assert!(r.last().unwrap().2 - r.last().unwrap().1 >= 2000);
        // The hand came in from Black's side (south): E4 or E3 (or a neighbour of E3) saw
        // it, briefly, and reads empty again.
        let approach: Vec<_> = ["D3", "E3", "F3", "E4"]
            .iter()
            .map(|p| runs(&frames, pt(p, 9).index(9)))
            .filter(|r| r.len() > 1)
            .collect();
        assert!(
            !approach.is_empty(),
            "seed {seed}: no transient on the way in"
        );
        for r in approach {
            assert_eq!(r.last().unwrap().0, PointState::Empty);
            for run in &r[1..r.len() - 1] {
                assert!(run.2 - run.1 < 100, "seed {seed}: transient {run:?}");
            }
        }
        assert_eq!(s.truth(pt("E5", 9)), Some(Color::Black));
    }
}

#[test]
fn white_reaches_from_the_north() {
    let mut s = sim("size 9\nplace W E5\n", 3);
    let (frames, _) = run(&mut s);
    let south: usize = ["D4", "E4", "F4", "E3"]
        .iter()
        .map(|p| runs(&frames, pt(p, 9).index(9)).len() - 1)
        .sum();
    let north: usize = ["D7", "E7", "F7", "E6"]
        .iter()
        .map(|p| runs(&frames, pt(p, 9).index(9)).len() - 1)
        .sum();
    assert_eq!(south, 0);
    assert!(north > 0);
}

#[test]
fn no_wrong_definite_reading_lasts_as_long_as_the_stable_time() {
    // Every action kind at noise 0: whenever a point reads a definite state (empty,
    // black, white) that differs from the truth, it lasts well under 150 ms.
    let text =
        "size 9\nplace B C3\npress B\nplace W D3\npress W\nplace B E3\nhover W E4 F4 G4 400ms\n\
                slide E3 G5\nplace W C4\nlift C3\nplace B B3\nknock 3\nwait 1s\nhover B A1 1s\n";
    for seed in 0..10 {
        let mut s = sim(text, seed);
        let mut wrong_since = vec![None::<u64>; 81];
        while let Some((frame, _)) = s.next_scan() {
            for (i, st) in states(&frame).iter().enumerate() {
                let truth = state_of(s.true_board()[i]);
                let wrong = *st != PointState::Unknown && *st != truth;
                match (wrong, wrong_since[i]) {
                    (true, None) => wrong_since[i] = Some(frame.time),
                    (true, Some(t0)) => {
                        assert!(
                            frame.time - t0 < 100,
                            "seed {seed} point {i} at {}",
                            frame.time
                        )
                    }
                    (false, _) => wrong_since[i] = None,
                }
            }
        }
    }
}

#[test]
fn a_slide_crosses_the_points_between_and_ends_on_the_target() {
    let mut s = sim("size 9\nplace B C3\nslide C3 F3\nwait 1s\n", 5);
    let slide_start = s.actions()[1].start;
    let (frames, _) = run(&mut s);
    let (c3, d3, e3, f3) = (
        pt("C3", 9).index(9),
        pt("D3", 9).index(9),
        pt("E3", 9).index(9),
        pt("F3", 9).index(9),
    );
    for mid in [d3, e3] {
        let r = runs(&frames, mid);
        assert!(r.len() >= 3, "{r:?}");
        assert!(r.iter().any(|x| x.0 == PointState::Unknown));
        assert_eq!(r.last().unwrap().0, PointState::Empty);
        for x in &r[1..r.len() - 1] {
            assert!(x.2 - x.1 < 150, "{x:?}");
        }
    }
    assert_eq!(runs(&frames, c3).last().unwrap().0, PointState::Empty);
    assert_eq!(runs(&frames, f3).last().unwrap().0, PointState::Black);
    assert_eq!(s.truth(pt("C3", 9)), None);
    assert_eq!(s.truth(pt("F3", 9)), Some(Color::Black));
    // The crossing is quick: F3 reads black within half a second of the push.
    let black_at = frames
        .iter()
        .find(|f| states(f)[f3] == PointState::Black)
        .unwrap()
        .time;
    assert!(black_at - slide_start < 500);
}

#[test]
fn a_knock_displaces_several_stones_at_once() {
    let text = "size 9\nplace B C3\nplace W D3\nplace B E3\nplace W C4\nplace B D4\nplace W E4\n\
                wait 1s\nknock 4\nwait 2s\n";
    for seed in 0..10 {
        let mut s = sim(text, seed);
        let knock = s.actions()[7].start;
        let before: Vec<_> = {
            let mut probe = sim(text, seed);
            probe.advance_to(knock - 1);
            probe.true_board().to_vec()
        };
        let (frames, _) = run(&mut s);
        let after = s.final_board().to_vec();
        let changed: Vec<usize> = (0..81).filter(|i| before[*i] != after[*i]).collect();
        // Four stones leave their points, and each lands on a free point nearby: at least
        // 4 points lose a stone and the colours are kept.
        let lost = (0..81)
            .filter(|i| before[*i].is_some() && after[*i].is_none())
            .count();
        assert!(lost >= 1 && changed.len() >= 4, "seed {seed}: {changed:?}");
        for c in [Color::Black, Color::White] {
            let n = |b: &[Option<Color>]| b.iter().filter(|s| **s == Some(c)).count();
            assert_eq!(n(&before), n(&after), "seed {seed}");
        }
        // Every change shows within 200 ms of the knock.
        for i in changed {
            let settled = frames
                .iter()
                .find(|f| f.time >= knock && states(f)[i] == state_of(after[i]))
                .unwrap()
                .time;
            assert!(
                settled - knock <= 200,
                "seed {seed} point {i}: {}",
                settled - knock
            );
        }
    }
}

#[test]
fn stuck_sensors_read_their_state_whatever_is_there() {
    let text = "size 9\nstuck E5 B\nplace W E5\nwait 1s\nlift E5\nwait 1s\nstuck E5 off\nwait 1s\n\
                stuck A1 U\nwait 500ms\n";
    let mut s = sim(text, 1);
    let stuck_at = s.actions()[0].start;
    let freed_at = s.actions()[5].start;
    let (frames, _) = run(&mut s);
    let e5 = pt("E5", 9).index(9);
    for f in &frames {
        if f.time >= stuck_at && f.time < freed_at {
            assert_eq!(states(f)[e5], PointState::Black, "at {}", f.time);
        }
        if f.time > freed_at {
            assert_eq!(states(f)[e5], PointState::Empty);
        }
    }
    let last = frames.last().unwrap();
    assert_eq!(states(last)[pt("A1", 9).index(9)], PointState::Unknown);
}

#[test]
fn hover_leaves_the_board_as_it_was() {
    let mut s = sim(
        "size 9\nplace B E5\nwait 1s\nhover W E6 F6 G6 300ms\nwait 1s\n",
        2,
    );
    let hover = s.actions()[2].clone();
    assert_eq!(hover.end - hover.start, 300);
    let (frames, _) = run(&mut s);
    for p in ["E6", "F6", "G6"] {
        let r = runs(&frames, pt(p, 9).index(9));
        assert!(r.len() >= 3, "{p}: {r:?}");
        assert_eq!(r.last().unwrap().0, PointState::Empty);
        for x in &r[1..r.len() - 1] {
            assert!(x.1 >= hover.start && x.2 < hover.end + 10, "{p}: {x:?}");
        }
    }
    assert_eq!(s.final_board().iter().flatten().count(), 1);
}

#[test]
fn presses_come_with_the_scan_that_follows_them() {
    let mut s = sim("size 9\npress B\npress W 200ms\npress W\n", 4);
    let mut prev = None;
    let mut events = Vec::new();
    while let Some((frame, buttons)) = s.next_scan() {
        for b in &buttons {
            assert!(b.time <= frame.time);
            if let Some(p) = prev {
                assert!(b.time > p);
            }
        }
        prev = Some(frame.time);
        events.extend(buttons);
    }
    let seq: Vec<_> = events.iter().map(|e| (e.button, e.action)).collect();
    assert_eq!(
        seq,
        vec![
            (Button::Black, ButtonAction::Press),
            (Button::Black, ButtonAction::Release),
            (Button::White, ButtonAction::Press),
            (Button::White, ButtonAction::Release),
            (Button::White, ButtonAction::Press),
            (Button::White, ButtonAction::Release),
        ]
    );
    // `press W 200ms`: the next press starts 200 ms after this one starts.
    let a = s.actions();
    assert_eq!(a[2].start - a[1].start, 200);
    assert!(events[2].time < a[1].start + 200);
}

#[test]
fn the_hal_traits_follow_virtual_time_given_by_the_caller() {
    let mut s = sim("size 9\nplace B E5\npress B\n", 8);
    let placed = s.actions()[0].end;
    let pressed = s.actions()[1].end;
    let before = s.scan(placed - 100).unwrap();
    assert_eq!(states(&before)[pt("E5", 9).index(9)], PointState::Empty);
    let after = s.scan(placed + 5).unwrap();
    assert_eq!(after.time, placed + 5);
    assert_eq!(states(&after)[pt("E5", 9).index(9)], PointState::Black);
    assert_eq!(s.size(), 9);
    let presses = s.poll(pressed).unwrap();
    assert_eq!(presses.len(), 2);
    assert!(s.poll(pressed + 1000).unwrap().is_empty());
}

#[test]
fn budgets_set_the_pace_and_compress_the_motion() {
    let mut s = sim("size 9\nplace B E5 50ms\nlift E5 40ms\nplace W E5\n", 6);
    let a = s.actions().to_vec();
    assert_eq!(a[1].start - a[0].start, 50);
    assert_eq!(a[2].start - a[1].start, 40);
    assert!(a[0].end <= a[0].start + 50);
    run(&mut s);
    assert_eq!(s.truth(pt("E5", 9)), Some(Color::White));
}

#[test]
fn handicap_stones_are_set_down_first() {
    let mut s = sim("size 9\nhandicap 3\nplace W E5\n", 1);
    let kinds: Vec<_> = s.actions().iter().map(|a| a.action.clone()).collect();
    assert_eq!(kinds.len(), 4);
    assert!(kinds[..3].iter().all(|a| matches!(
        a,
        Action::Place {
            color: Color::Black,
            ..
        }
    )));
    run(&mut s);
    for p in ["C3", "G7", "C7", "E5"] {
        assert!(s.truth(pt(p, 9)).is_some(), "{p}");
    }
}

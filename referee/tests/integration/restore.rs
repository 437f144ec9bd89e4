//! Rebuilding from the event log: for every prefix of a game's events, a referee replayed
//! from that prefix (the same `apply` as the live one) and fed the rest of the game emits
//! exactly what the uninterrupted run emitted.

use crate::common;

use common::{brisk, fixture_games, settings};
use tengen_hal::{ButtonEvent, Frame};
use tengen_protocol::{Event, Timestamp};
use tengen_referee::{Pipeline, Referee};
use tengen_rules::clock::TimeControl;
use tengen_sim::{SimOptions, Simulation, Violation, ViolationKind};

fn check_game(kind: ViolationKind, time: TimeControl, seed: u64) {
    let games = fixture_games(9);
    let mut play = brisk();
    play.violations = vec![Violation { at_move: 10, kind }];
    let Some((record, mut sim)) = games.iter().find_map(|(_, r)| {
        let mut o = SimOptions::seeded(seed);
        o.noise = 0.001;
        Simulation::from_sgf(r, &o, &play)
            .ok()
            .map(|s| (r.clone(), s))
    }) else {
        panic!("no fixture game allows {kind:?}");
    };
    let settings = settings(&record, time);
    let (mut pipeline, first) = Pipeline::new(settings.clone(), None, 0).expect("pipeline");
    let mut events: Vec<(u64, Event)> = first.into_iter().map(|e| (0, e)).collect();
    let mut scans: Vec<(Frame, Vec<ButtonEvent>)> = Vec::new();
    // (scan index after which we cut, events so far, the pipeline then)
    let mut cuts: Vec<(usize, usize, Pipeline)> = vec![(0, events.len(), pipeline.clone())];
    while let Some((frame, buttons)) = sim.next_scan() {
        let out = pipeline.step(&frame, &buttons).expect("step");
        let t = frame.time;
        scans.push((frame, buttons));
        if !out.is_empty() {
            events.extend(out.into_iter().map(|e| (t, e)));
            cuts.push((scans.len(), events.len(), pipeline.clone()));
        }
    }
    assert!(events.len() > 20);
    for (scan, count, mut cut) in cuts {
        let past: Vec<(Timestamp, Event)> = events[..count]
            .iter()
            .map(|(t, e)| (Timestamp::from_millis(*t), e.clone()))
            .collect();
        let (mut rebuilt, skipped) = Referee::replay(settings.clone(), &past).expect("replay");
        assert!(skipped.is_empty(), "{skipped:?}");
        let live = cut.referee().view();
        let at = Timestamp::from_millis(past.last().map_or(0, |(t, _)| t.millis()));
        assert_eq!(
            rebuilt.view().snapshot(at),
            live.snapshot(at),
            "state after {count} events"
        );
        assert_eq!(rebuilt.view().sgf(true), live.sgf(true));
        rebuilt.resync_physical(cut.stabiliser().stable());
        cut.replace_referee(rebuilt);
        let mut rest = Vec::new();
        for (frame, buttons) in &scans[scan..] {
            for e in cut.step(frame, buttons).expect("step") {
                rest.push((frame.time, e));
            }
        }
        assert_eq!(
            rest,
            events[count..].to_vec(),
            "{kind:?}: continuing after {count} events differs"
        );
    }
}

#[test]
fn replay_then_continue_equals_uninterrupted_without_clock() {
    check_game(ViolationKind::LeaveCapture, TimeControl::None, 3);
    check_game(ViolationKind::MoveStone, TimeControl::None, 4);
}

#[test]
fn replay_then_continue_equals_uninterrupted_with_byoyomi() {
    let tc = TimeControl::parse("byoyomi 1m 3x10s").expect("tc");
    check_game(ViolationKind::DoubleMove, tc, 5);
    check_game(ViolationKind::LeaveCapture, tc, 6);
}

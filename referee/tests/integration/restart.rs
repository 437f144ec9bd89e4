//! A board that was off during a game (issue 11): it comes back with the clocks paused as
//! they stood when it went down, never charging the downtime to the player to move, with a
//! `board_restarted` alert for the arbiter; after the arbiter's `resume` both clocks run
//! and flags fall when they should. A flag that fell before the board went down stays
//! fallen. All on virtual time, exactly.

use crate::common;

use tengen_hal::{ButtonEvent, Frame, Millis};
use tengen_protocol::event::{AlertCode, BoardState, ClockReading};
use tengen_protocol::{Command, CommandEnvelope, Event, Timestamp};
use tengen_referee::{Pipeline, Referee};
use tengen_rules::clock::Call;
use tengen_rules::Color;
use tengen_sim::{Script, SimOptions, Simulation};

/// Black plays at once; White then thinks for a long time on a byo-yomi clock of 10 s and
/// 3 x 10 s.
const SCRIPT: &str =
    "size 9\ntime byoyomi 10s 3x10s\nplace B C3\npress B\nwait 90s\nplace W G7\npress W\n";

struct Run {
    scans: Vec<(Frame, Vec<ButtonEvent>)>,
    events: Vec<(Millis, Event)>,
    pipeline: Pipeline,
    settings: tengen_referee::RefereeSettings,
}

/// Plays the script up to virtual time `until`.
fn play_until(until: Millis) -> Run {
    let script = Script::parse(SCRIPT).expect("script");
    let settings = common::settings_for_script(&script);
    let mut sim = Simulation::from_parsed(&script, &SimOptions::seeded(1)).expect("sim");
    let (mut pipeline, first) = Pipeline::new(settings.clone(), None, 0).expect("pipeline");
    let mut events: Vec<(Millis, Event)> = first.into_iter().map(|e| (0, e)).collect();
    let mut scans = Vec::new();
    while let Some((frame, buttons)) = sim.next_scan() {
        if frame.time > until {
            scans.push((frame, buttons));
            continue;
        }
        for e in pipeline.step(&frame, &buttons).expect("step") {
            events.push((frame.time, e));
        }
    }
    Run {
        scans,
        events,
        pipeline,
        settings,
    }
}

fn replayed(run: &Run) -> Referee {
    let past: Vec<(Timestamp, Event)> = run
        .events
        .iter()
        .map(|(t, e)| (Timestamp::from_millis(*t), e.clone()))
        .collect();
    let (referee, skipped) = Referee::replay(run.settings.clone(), &past).expect("replay");
    assert!(skipped.is_empty(), "{skipped:?}");
    referee
}

fn clock_of(events: &[Event]) -> ClockReading {
    events
        .iter()
        .find_map(|e| match e {
            Event::Clock(r) => Some(*r),
            _ => None,
        })
        .expect("a clock event")
}

fn command(command: Command) -> CommandEnvelope {
    CommandEnvelope {
        id: "c1".into(),
        by: Some("chief".into()),
        command,
    }
}

#[test]
fn killed_in_byoyomi_and_back_a_minute_later_the_clocks_stand_paused_until_resumed() {
    // White's clock started at Black's press; at 18 s White is 8 s into the first period
    // or so (main time 10 s): the board goes down then, its last sign of life.
    let kill = 18_000;
    let run = play_until(kill);
    let live = run
        .pipeline
        .referee()
        .view()
        .clocks_at(Timestamp::from_millis(kill))
        .expect("clocks");
    assert_eq!(live.running, Some(Color::White));
    assert!(live.white < 10_000 && live.periods.white == 3, "{live:?}");

    // Back a minute later.
    let back = kill + 60_000;
    let mut referee = replayed(&run);
    let out = referee.restart(Timestamp::from_millis(kill), back, "test");
    assert!(matches!(
        &out[0],
        Event::Status {
            state: BoardState::Restoring,
            off_since: Some(t),
            ..
        } if t.millis() == kill
    ));
    let alert = out
        .iter()
        .find_map(|e| match e {
            Event::Alert(a) => Some(a.clone()),
            _ => None,
        })
        .expect("an alert for the arbiter");
    assert_eq!(alert.code, AlertCode::BoardRestarted);
    assert!(alert.message.contains("off for 1:00"), "{}", alert.message);
    let shown = clock_of(&out);
    assert_eq!(shown.paused, Some(true));
    assert_eq!(
        (shown.black, shown.white, shown.periods, shown.running),
        (live.black, live.white, live.periods, live.running),
        "the same times as when it went down"
    );
    assert!(
        !out.iter().any(|e| matches!(e, Event::Byoyomi { .. })),
        "nothing counted for the downtime"
    );

    // The board runs on (scans 60 s later than the simulator's timeline): the clocks
    // stand still, whatever the time.
    let mut pipeline = Pipeline::from_referee(referee, None);
    let shift = 60_000;
    let mut rest = run.scans.into_iter().map(|(mut f, mut b)| {
        f.time += shift;
        for x in &mut b {
            x.time += shift;
        }
        (f, b)
    });
    let mut step_until = |pipeline: &mut Pipeline, until: Millis| -> Vec<(Millis, Event)> {
        let mut out = Vec::new();
        for (frame, buttons) in rest.by_ref() {
            let t = frame.time;
            out.extend(
                pipeline
                    .step(&frame, &buttons)
                    .expect("step")
                    .into_iter()
                    .map(|e| (t, e)),
            );
            if t >= until {
                break;
            }
        }
        out
    };
    let quiet = step_until(&mut pipeline, back + 30_000);
    assert!(
        quiet
            .iter()
            .all(|(_, e)| !matches!(e, Event::Byoyomi { .. } | Event::Alert(_))),
        "{quiet:?}"
    );
    let still = pipeline
        .referee()
        .view()
        .clocks_at(Timestamp::from_millis(back + 30_000))
        .expect("clocks");
    assert_eq!((still.white, still.paused), (live.white, true));

    // The arbiter resumes: the restart alert is dealt with, White's clock runs on.
    let resumed_at = back + 30_000;
    let out = pipeline
        .command(&command(Command::Resume {}), resumed_at)
        .expect("resume");
    assert_eq!(clock_of(&out).paused, Some(false));
    assert!(out
        .iter()
        .any(|e| matches!(e, Event::AlertCleared { id, .. } if *id == alert.id)));
    // White's period runs out at resume + what was left, then two more periods of 10 s:
    // the flag falls exactly then (the last period's "10"), not a moment before.
    let flag_at = resumed_at + live.white + 2 * 10_000;
    let after = step_until(&mut pipeline, flag_at + 1_000);
    let used: Vec<Millis> = after
        .iter()
        .filter(|(_, e)| {
            matches!(
                e,
                Event::Byoyomi {
                    call: Call::MinuteUsed,
                    ..
                }
            )
        })
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(used.len(), 2, "two periods used: {after:?}");
    let expired: Vec<Millis> = after
        .iter()
        .filter(|(_, e)| matches!(e, Event::Alert(a) if a.code == AlertCode::TimeExpired))
        .map(|(t, _)| *t)
        .collect();
    assert_eq!(expired.len(), 1, "{after:?}");
    // Scans come every 10 ms: the flag is seen at the first scan at or after it falls.
    assert!(
        expired[0] >= flag_at && expired[0] < flag_at + 10,
        "flag at {} for {flag_at}",
        expired[0]
    );
}

#[test]
fn a_flag_that_fell_before_the_board_went_down_stays_fallen() {
    // White's 10 s + 3 x 10 s run out 40 s after Black's press (about 1 s in): the flag
    // falls at about 41 s; the board goes down at 50 s and comes back at 70 s.
    let run = play_until(50_000);
    assert!(run
        .events
        .iter()
        .any(|(_, e)| matches!(e, Event::Alert(a) if a.code == AlertCode::TimeExpired)));
    let mut referee = replayed(&run);
    let out = referee.restart(Timestamp::from_millis(50_000), 70_000, "test");
    let shown = clock_of(&out);
    assert_eq!(
        (shown.white, shown.running, shown.paused),
        (0, None, Some(true))
    );
    assert!(
        !out.iter()
            .any(|e| matches!(e, Event::Alert(a) if a.code == AlertCode::TimeExpired)),
        "the flag's alert is open already, not raised twice"
    );
    assert_eq!(
        referee.view().clock().and_then(|c| c.flagged()),
        Some(Color::White)
    );
}

#[test]
fn a_flag_due_while_the_board_was_dying_falls_at_the_restart() {
    // The journal's last event is Black's press (about 1 s); the board stayed alive until
    // 45 s (its alive file) without journaling the flag that fell at about 41 s (the
    // write was lost): it falls at the restart, and the clocks stand as of 45 s.
    let run = play_until(1_500);
    let mut referee = replayed(&run);
    let out = referee.restart(Timestamp::from_millis(45_000), 60_000, "test");
    assert!(
        out.iter()
            .any(|e| matches!(e, Event::Alert(a) if a.code == AlertCode::TimeExpired && a.color == Some(Color::White))),
        "{out:?}"
    );
}

#[test]
fn a_board_that_was_off_before_the_game_ended_says_nothing_after_it() {
    let script = "size 9\nplace B H1 J1\npress B\n";
    let script = Script::parse(script).expect("script");
    let mut sim = Simulation::from_parsed(&script, &SimOptions::seeded(1)).expect("sim");
    let run = common::run(&mut sim, common::settings_for_script(&script));
    assert!(run
        .events
        .iter()
        .any(|(_, e)| matches!(e, Event::GameOver(_))));
    let past: Vec<(Timestamp, Event)> = run
        .events
        .iter()
        .map(|(t, e)| (Timestamp::from_millis(*t), e.clone()))
        .collect();
    let (mut referee, _) =
        Referee::replay(common::settings_for_script(&script), &past).expect("replay");
    let out = referee.restart(Timestamp::from_millis(10_000), 20_000, "test");
    assert_eq!(out.len(), 1, "only status restoring: {out:?}");
}

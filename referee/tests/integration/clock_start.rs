//! Clocks start when the round starts (issue 13, part 7): a game set up by `new_game` waits
//! with both clocks stopped until the arbiter's `resume` (`game.clock_start = "arbiter"`,
//! the default), or also White's press (`"white"`), or runs at once (`"now"`). Exactly, on
//! virtual time, through the sans-IO referee. A player's first press before play begins is
//! their check-in (issue 32, `arrival.rs`), never a clock press.

use serde_json::json;
use tengen_hal::{Button, ButtonAction, ButtonEvent, Millis};
use tengen_protocol::event::{AlertCode, BoardState, ClockStart, GameSetup};
use tengen_protocol::{Command, CommandEnvelope, Event, Timestamp};
use tengen_referee::{Change, Referee, RefereeSettings};
use tengen_rules::clock::TimeControl;
use tengen_rules::Color;

/// Ten minutes of absolute time: 15 minutes of a running clock would flag.
const MAIN: u64 = 600_000;
/// The round is set up at 1 s; play begins a quarter of an hour later.
const SET_UP: Millis = 1_000;
const BEGIN: Millis = SET_UP + 15 * 60_000;

fn settings(new_game: ClockStart) -> RefereeSettings {
    RefereeSettings {
        game: GameSetup {
            size: 9,
            time_control: TimeControl::parse("absolute 10m").unwrap(),
            ..GameSetup::default()
        },
        clock_start: new_game,
        ..RefereeSettings::default()
    }
}

pub(crate) fn command(command: serde_json::Value) -> CommandEnvelope {
    CommandEnvelope {
        id: "c1".into(),
        by: Some("chief".into()),
        command: serde_json::from_value::<Command>(command).unwrap(),
    }
}

pub(crate) fn press(color: Color, time: Millis) -> Vec<ButtonEvent> {
    let button = match color {
        Color::Black => Button::Black,
        Color::White => Button::White,
    };
    vec![ButtonEvent {
        time,
        button,
        action: ButtonAction::Press,
    }]
}

/// A referee whose power-on game runs at once, then the hall's "Start round" at `SET_UP`.
/// Returns it and every event with its time.
fn round_set_up(new_game: ClockStart, extra: serde_json::Value) -> (Referee, Vec<(Millis, Event)>) {
    let (mut r, first) = Referee::start(settings(new_game), 0).unwrap();
    let mut events: Vec<(Millis, Event)> = first.into_iter().map(|e| (0, e)).collect();
    let mut cmd =
        json!({"type": "new_game", "game": "r1-t1", "black": "Shusaku", "white": "Gennan"});
    if let (Some(cmd), Some(extra)) = (cmd.as_object_mut(), extra.as_object()) {
        cmd.extend(extra.clone());
    }
    let out = r.on_command(&command(cmd), SET_UP).unwrap();
    events.extend(out.into_iter().map(|e| (SET_UP, e)));
    (r, events)
}

fn clocks(r: &Referee, at: Millis) -> tengen_protocol::view::ClocksNow {
    r.view().clocks_at(Timestamp::from_millis(at)).unwrap()
}

/// `color` presses to check in at `at`: `checked_in`, and nothing else.
fn check_in(r: &mut Referee, color: Color, at: Millis) {
    let out = r.on_buttons(&press(color, at));
    assert!(
        matches!(out.as_slice(), [Event::CheckedIn { color: c }] if *c == color),
        "{out:?}"
    );
}

fn no_flag(events: &[Event]) -> bool {
    !events
        .iter()
        .any(|e| matches!(e, Event::Alert(a) if a.code == AlertCode::TimeExpired))
}

#[test]
fn arbiter_a_quarter_of_an_hour_waiting_costs_nobody_anything_until_resume() {
    let (mut r, events) = round_set_up(ClockStart::Arbiter, json!({}));
    let set_up: Vec<&Event> = events
        .iter()
        .filter(|(t, _)| *t == SET_UP)
        .map(|(_, e)| e)
        .collect();
    match set_up.as_slice() {
        [Event::GameStarted(s), Event::Clock(c)] => {
            assert_eq!(s.clock_start, ClockStart::Arbiter);
            assert_eq!((c.black, c.white), (MAIN, MAIN));
            assert_eq!(c.running, Some(Color::Black));
            assert_eq!(c.paused, Some(true), "the clock event says the game waits");
        }
        other => panic!("{other:?}"),
    }
    // Every minute for a quarter of an hour: nothing happens, nothing is charged.
    let mut t = SET_UP;
    while t < BEGIN {
        t += 60_000;
        let out = r.tick(t);
        assert!(out.is_empty(), "at {t}: {out:?}");
    }
    let c = clocks(&r, BEGIN);
    assert_eq!((c.black, c.white), (MAIN, MAIN));
    assert!(c.paused);
    assert_eq!(c.waiting, Some(ClockStart::Arbiter));
    let state = r.view().snapshot(Timestamp::from_millis(BEGIN)).unwrap();
    let state = state.to_value();
    assert_eq!(state["clocks"]["paused"], json!(true));
    assert_eq!(state["clocks"]["waiting"], json!("arbiter"));
    assert_eq!(state["clocks"]["B"], json!(MAIN));
    // Presses before play begins are check-ins, not passes, and start nothing; a second
    // press does nothing at all.
    check_in(&mut r, Color::Black, BEGIN - 2_000);
    check_in(&mut r, Color::White, BEGIN - 1_000);
    assert!(r.on_buttons(&press(Color::Black, BEGIN - 500)).is_empty());
    assert!(r.view().record().is_empty());

    // The arbiter begins play: Black's clock runs from the full time.
    let out = r
        .on_command(&command(json!({"type": "resume"})), BEGIN)
        .unwrap();
    match out.as_slice() {
        [Event::Clock(c)] => {
            assert_eq!(c.color, None);
            assert_eq!((c.black, c.white), (MAIN, MAIN));
            assert_eq!((c.running, c.paused), (Some(Color::Black), Some(false)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(r.view().waiting(), None);
    let c = clocks(&r, BEGIN + 90_500);
    assert_eq!((c.black, c.white, c.paused), (MAIN - 90_500, MAIN, false));
    assert_eq!(c.waiting, None);
    // And Black's flag falls ten minutes after play began, not after the set-up.
    assert!(no_flag(&r.tick(BEGIN + MAIN - 1)));
    assert!(!no_flag(&r.tick(BEGIN + MAIN)));
}

#[test]
fn white_a_press_of_white_starts_blacks_clock_and_is_not_a_pass() {
    let (mut r, _) = round_set_up(ClockStart::White, json!({}));
    assert!(r.tick(BEGIN).is_empty());
    assert_eq!(r.view().waiting(), Some(ClockStart::White));
    // Black's press checks Black in and does nothing else; so does White's first.
    check_in(&mut r, Color::Black, BEGIN - 500);
    check_in(&mut r, Color::White, BEGIN - 400);
    assert!(r.on_buttons(&press(Color::Black, BEGIN - 300)).is_empty());
    let out = r.on_buttons(&press(Color::White, BEGIN));
    match out.as_slice() {
        [Event::Clock(c)] => {
            assert_eq!(c.color, Some(Color::White));
            assert_eq!((c.black, c.white), (MAIN, MAIN));
            assert_eq!((c.running, c.paused), (Some(Color::Black), Some(false)));
        }
        other => panic!("a clock event only, no pass, no alert: {other:?}"),
    }
    assert!(r.view().record().is_empty(), "not a pass");
    assert_eq!(r.view().open_alerts().count(), 0);
    assert_eq!(r.view().waiting(), None);
    let c = clocks(&r, BEGIN + 30_000);
    assert_eq!((c.black, c.white, c.paused), (MAIN - 30_000, MAIN, false));
    // From now on a White press is an ordinary one (not White's turn: nothing).
    assert!(r
        .on_buttons(&press(Color::White, BEGIN + 31_000))
        .is_empty());
    // The arbiter's resume would have done the same; now there is nothing to resume.
    assert!(r
        .on_command(&command(json!({"type": "resume"})), BEGIN + 32_000)
        .is_err());
}

#[test]
fn white_in_a_handicap_game_black_starts_whites_clock() {
    let (mut r, _) = round_set_up(ClockStart::White, json!({"handicap": 2}));
    assert_eq!(clocks(&r, BEGIN).running, Some(Color::White));
    check_in(&mut r, Color::White, BEGIN - 2);
    check_in(&mut r, Color::Black, BEGIN - 1);
    assert!(r.on_buttons(&press(Color::White, BEGIN - 1)).is_empty());
    let out = r.on_buttons(&press(Color::Black, BEGIN));
    assert!(
        matches!(out.as_slice(), [Event::Clock(c)] if c.running == Some(Color::White) && c.paused == Some(false)),
        "{out:?}"
    );
    let c = clocks(&r, BEGIN + 10_000);
    assert_eq!((c.black, c.white), (MAIN, MAIN - 10_000));
}

#[test]
fn arbiter_mode_ignores_a_white_press_and_resume_starts_white_in_a_handicap_game() {
    let (mut r, _) = round_set_up(ClockStart::Arbiter, json!({"handicap": 3}));
    check_in(&mut r, Color::Black, BEGIN - 2);
    check_in(&mut r, Color::White, BEGIN - 1);
    assert!(r.on_buttons(&press(Color::White, BEGIN - 1)).is_empty());
    assert_eq!(r.view().waiting(), Some(ClockStart::Arbiter));
    r.on_command(&command(json!({"type": "resume"})), BEGIN)
        .unwrap();
    let c = clocks(&r, BEGIN + 5_000);
    assert_eq!(
        (c.black, c.white, c.running),
        (MAIN, MAIN - 5_000, Some(Color::White))
    );
}

#[test]
fn now_the_clock_runs_from_the_set_up_as_before() {
    let (mut r, events) = round_set_up(ClockStart::Now, json!({}));
    let started = events.iter().find_map(|(t, e)| match e {
        Event::GameStarted(s) if *t == SET_UP => Some(s.clone()),
        _ => None,
    });
    assert_eq!(started.unwrap().clock_start, ClockStart::Now);
    assert_eq!(r.view().waiting(), None);
    let c = clocks(&r, SET_UP + 60_000);
    assert_eq!((c.black, c.white, c.paused), (MAIN - 60_000, MAIN, false));
    // Ten minutes after the set-up Black's flag has fallen.
    assert!(!no_flag(&r.tick(SET_UP + MAIN)));
    // The JSON of `game_started` is as before: no `clock_start` for `now`.
    let json = serde_json::to_value(&events[events.len() - 2].1).unwrap();
    assert!(json.get("clock_start").is_none(), "{json}");
}

#[test]
fn the_power_on_game_follows_the_setup_clock_start() {
    let mut s = settings(ClockStart::Now);
    s.game.clock_start = ClockStart::Arbiter;
    let (mut r, events) = Referee::start(s, 0).unwrap();
    assert!(matches!(&events[1], Event::Clock(c) if c.paused == Some(true)));
    assert!(r.tick(BEGIN).is_empty());
    assert_eq!(clocks(&r, BEGIN).black, MAIN);
    assert_eq!(r.view().waiting(), Some(ClockStart::Arbiter));
    // A `new_game` then follows `clock_start` of the settings (here `now`).
    let out = r
        .on_command(&command(json!({"type": "new_game"})), BEGIN)
        .unwrap();
    assert!(matches!(&out[1], Event::Clock(c) if c.paused == Some(false)));
}

#[test]
fn a_stone_set_down_while_waiting_is_read_as_during_a_pause() {
    let (mut r, _) = round_set_up(ClockStart::Arbiter, json!({}));
    let c3 = tengen_protocol::gtp::parse("C3").unwrap();
    let out = r.on_changes(
        &[Change {
            point: c3,
            from: None,
            to: Some(Color::Black),
            onset: BEGIN - 10_000,
        }],
        BEGIN - 9_850,
    );
    assert!(
        matches!(
            out.as_slice(),
            [
                Event::CheckedIn {
                    color: Color::Black
                },
                Event::Move { number: 1, .. }
            ]
        ),
        "Black's check-in and a move, as during a pause: {out:?}"
    );
    // Its press completes it; the clocks stay stopped, still waiting.
    let out = r.on_buttons(&press(Color::Black, BEGIN - 9_000));
    assert!(
        matches!(out.as_slice(), [Event::Clock(c)] if c.paused == Some(true)),
        "{out:?}"
    );
    assert!(r.tick(BEGIN).is_empty());
    let c = clocks(&r, BEGIN);
    assert_eq!((c.black, c.white, c.paused), (MAIN, MAIN, true));
    assert_eq!(r.view().waiting(), Some(ClockStart::Arbiter));
    // Play begins on White's time: Black has moved.
    r.on_command(&command(json!({"type": "resume"})), BEGIN)
        .unwrap();
    let c = clocks(&r, BEGIN + 7_000);
    assert_eq!(
        (c.black, c.white, c.running),
        (MAIN, MAIN - 7_000, Some(Color::White))
    );
}

#[test]
fn a_board_restarted_while_waiting_is_still_waiting_and_charges_nobody() {
    let (r, events) = round_set_up(ClockStart::Arbiter, json!({}));
    drop(r);
    // The journal's current game, from the last `game_started`.
    let start = events
        .iter()
        .rposition(|(_, e)| matches!(e, Event::GameStarted(_)))
        .unwrap();
    let past: Vec<(Timestamp, Event)> = events[start..]
        .iter()
        .map(|(t, e)| (Timestamp::from_millis(*t), e.clone()))
        .collect();
    let (mut r, skipped) = Referee::replay(settings(ClockStart::Arbiter), &past).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    // Off from 5 minutes after the set-up, back 5 minutes later.
    let off = SET_UP + 5 * 60_000;
    let back = off + 5 * 60_000;
    let out = r.restart(Timestamp::from_millis(off), back, "test");
    assert!(
        matches!(
            &out[0],
            Event::Status {
                state: BoardState::Restoring,
                ..
            }
        ),
        "{out:?}"
    );
    assert!(
        !out.iter().any(|e| matches!(e, Event::Alert(_))),
        "no board_restarted before play began: {out:?}"
    );
    assert!(
        out.iter()
            .any(|e| matches!(e, Event::Clock(c) if c.paused == Some(true) && c.black == MAIN)),
        "{out:?}"
    );
    assert_eq!(r.view().waiting(), Some(ClockStart::Arbiter));
    assert!(r.tick(BEGIN).is_empty());
    let c = clocks(&r, BEGIN);
    assert_eq!((c.black, c.white, c.paused), (MAIN, MAIN, true));
    // The restarted referee rebuilt from all of it is still waiting too.
    let mut all = past.clone();
    all.extend(out.into_iter().map(|e| (Timestamp::from_millis(back), e)));
    let (again, _) = Referee::replay(settings(ClockStart::Arbiter), &all).unwrap();
    assert_eq!(again.view().waiting(), Some(ClockStart::Arbiter));
    // The arbiter begins play: Black runs from the full time.
    r.on_command(&command(json!({"type": "resume"})), BEGIN)
        .unwrap();
    let c = clocks(&r, BEGIN + 1_000);
    assert_eq!((c.black, c.white, c.paused), (MAIN - 1_000, MAIN, false));
}

#[test]
fn white_a_stone_black_set_down_early_is_started_by_its_own_press_not_by_whites() {
    let (mut r, _) = round_set_up(ClockStart::White, json!({}));
    let c3 = tengen_protocol::gtp::parse("C3").unwrap();
    let out = r.on_changes(
        &[Change {
            point: c3,
            from: None,
            to: Some(Color::Black),
            onset: BEGIN - 10_000,
        }],
        BEGIN - 9_850,
    );
    assert!(
        matches!(
            out.as_slice(),
            [
                Event::CheckedIn {
                    color: Color::Black
                },
                Event::Move { number: 1, .. }
            ]
        ),
        "{out:?}"
    );
    // White's press checks White in; pressed again, it would start the mover's clock
    // while White thinks: it does nothing.
    check_in(&mut r, Color::White, BEGIN - 9_500);
    assert!(r.on_buttons(&press(Color::White, BEGIN - 9_000)).is_empty());
    assert_eq!(r.view().waiting(), Some(ClockStart::White));
    let c = clocks(&r, BEGIN - 8_000);
    assert_eq!((c.black, c.white, c.paused), (MAIN, MAIN, true));
    // Black's press completes the move and starts White's clock.
    let out = r.on_buttons(&press(Color::Black, BEGIN));
    assert!(
        matches!(out.as_slice(), [Event::Clock(c)] if c.running == Some(Color::White) && c.paused == Some(false)),
        "{out:?}"
    );
    assert_eq!(r.view().waiting(), None);
    let c = clocks(&r, BEGIN + 20_000);
    assert_eq!(
        (c.black, c.white, c.running),
        (MAIN, MAIN - 20_000, Some(Color::White))
    );
}

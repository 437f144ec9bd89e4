//! The players' arrival (issue 32, Art. 22.1-22.4), exactly, on virtual time, through the
//! sans-IO referee: check-in by a press before play begins, a late arrival by a press or
//! by a first stone (twice the lateness in all, the rest of it taken from the base time),
//! one player or both away at the limit (`absent`, inclusive), 22.4's clock running out
//! while away, and the arbiter's default recorded as a forfeit.

use serde_json::json;
use tengen_hal::Millis;
use tengen_protocol::event::{AlertCode, ClearedHow, ClockStart, EndReason, GameSetup};
use tengen_protocol::{Event, Timestamp};
use tengen_referee::{Change, Referee, RefereeSettings};
use tengen_rules::clock::{LatePolicy, LateRule, TimeControl};
use tengen_rules::Color;

use crate::clock_start::{command, press};

const M: u64 = 60_000;
/// The round is set up at 1 s; play begins ten minutes later.
const SET_UP: Millis = 1_000;
const BEGIN: Millis = SET_UP + 10 * M;

fn referee(time: &str, late: LatePolicy) -> Referee {
    let settings = RefereeSettings {
        game: GameSetup {
            size: 9,
            time_control: TimeControl::parse(time).unwrap(),
            ..GameSetup::default()
        },
        clock_start: ClockStart::Arbiter,
        late: Some(late),
        ..RefereeSettings::default()
    };
    let (mut r, _) = Referee::start(settings, 0).unwrap();
    let out = r
        .on_command(
            &command(
                json!({"type": "new_game", "game": "r1-t1", "black": "Shusaku", "white": "Gennan"}),
            ),
            SET_UP,
        )
        .unwrap();
    match out.first() {
        Some(Event::GameStarted(s)) => {
            assert_eq!(s.late_limit_s, Some((late.limit_ms / 1_000) as u32));
            assert_eq!(s.late_rule, Some(late.rule));
        }
        other => panic!("{other:?}"),
    }
    r
}

fn begin(r: &mut Referee) {
    r.on_command(&command(json!({"type": "resume"})), BEGIN)
        .unwrap();
}

fn stone(r: &mut Referee, point: &str, color: Color, at: Millis) -> Vec<Event> {
    let point = tengen_protocol::gtp::parse(point).unwrap();
    r.on_changes(
        &[Change {
            point,
            from: None,
            to: Some(color),
            onset: at - 150,
        }],
        at,
    )
}

fn ticks(r: &mut Referee, from: Millis, to: Millis, step: Millis) -> Vec<(Millis, Event)> {
    let mut out = Vec::new();
    let mut t = from;
    while t <= to {
        out.extend(r.tick(t).into_iter().map(|e| (t, e)));
        t += step;
    }
    out
}

fn left(r: &Referee, color: Color, at: Millis) -> u64 {
    let c = r.view().clocks_at(Timestamp::from_millis(at)).unwrap();
    match color {
        Color::Black => c.black,
        Color::White => c.white,
    }
}

#[test]
fn both_checked_in_before_play_begins_nobody_is_late() {
    let mut r = referee("absolute 60m", LatePolicy::default());
    let out = r.on_buttons(&press(Color::White, SET_UP + M));
    assert!(
        matches!(
            out.as_slice(),
            [Event::CheckedIn {
                color: Color::White
            }]
        ),
        "{out:?}"
    );
    let out = r.on_buttons(&press(Color::Black, SET_UP + 2 * M));
    assert!(
        matches!(
            out.as_slice(),
            [Event::CheckedIn {
                color: Color::Black
            }]
        ),
        "{out:?}"
    );
    begin(&mut r);
    // Black plays at once: a move, no lateness.
    let out = stone(&mut r, "E5", Color::Black, BEGIN + 5_000);
    assert!(
        matches!(out.as_slice(), [Event::Move { number: 1, .. }]),
        "{out:?}"
    );
    let out = r.on_buttons(&press(Color::Black, BEGIN + 6_000));
    assert!(matches!(out.as_slice(), [Event::Clock(_)]), "{out:?}");
    assert!(ticks(&mut r, BEGIN, BEGIN + 120 * M, M)
        .iter()
        .all(|(_, e)| !matches!(e, Event::Alert(a) if a.code == AlertCode::Absent)));
    let seats = r
        .view()
        .snapshot(Timestamp::from_millis(BEGIN + M))
        .unwrap();
    let seats = serde_json::to_value(seats).unwrap()["seats"].clone();
    assert_eq!(seats["B"]["state"], "seated");
    assert_eq!(seats["W"]["state"], "seated");
}

#[test]
fn white_late_by_a_press_pays_twice_the_lateness_in_all() {
    let mut r = referee("absolute 60m", LatePolicy::default());
    r.on_buttons(&press(Color::Black, SET_UP + M));
    begin(&mut r);
    // Black plays after one minute: from then on White's (absent) clock runs.
    stone(&mut r, "E5", Color::Black, BEGIN + M - 1_000);
    r.on_buttons(&press(Color::Black, BEGIN + M));
    // White sits down 7:12 after play began and presses.
    let at = BEGIN + 7 * M + 12_000;
    let out = r.on_buttons(&press(Color::White, at));
    match out.as_slice() {
        [Event::LateArrival {
            color: Color::White,
            late_ms,
            deducted_ms,
        }, Event::Clock(c)] => {
            assert_eq!(*late_ms, 7 * M + 12_000);
            // White's clock ran 6:12; 14:24 in all: 8:12 more.
            assert_eq!(*deducted_ms, 8 * M + 12_000);
            assert_eq!(c.white, 60 * M - 2 * (7 * M + 12_000));
            assert_eq!(
                c.running,
                Some(Color::White),
                "still White's turn: not a pass"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(left(&r, Color::White, at), 60 * M - 2 * (7 * M + 12_000));
    assert!(r.view().record().len() == 1, "the press was not a pass");
    // The snapshot says it.
    let state =
        serde_json::to_value(r.view().snapshot(Timestamp::from_millis(at)).unwrap()).unwrap();
    assert_eq!(state["seats"]["W"]["state"], "arrived");
    assert_eq!(state["seats"]["W"]["late_ms"], 7 * M + 12_000);
    assert_eq!(state["seats"]["W"]["taken_ms"], 2 * (7 * M + 12_000));
    // Nothing more at the limit: White is there.
    assert!(ticks(&mut r, at, BEGIN + 61 * M, M)
        .iter()
        .all(|(_, e)| !matches!(e, Event::Alert(a) if a.code == AlertCode::Absent)));
}

#[test]
fn black_late_by_a_first_stone_arrives_then_moves() {
    let mut r = referee("byoyomi 60m 5x30s", LatePolicy::default());
    r.on_buttons(&press(Color::White, SET_UP + M));
    begin(&mut r);
    let at = BEGIN + 3 * M;
    let out = stone(&mut r, "E5", Color::Black, at);
    match out.as_slice() {
        [Event::LateArrival {
            color: Color::Black,
            late_ms,
            deducted_ms,
        }, Event::Clock(_), Event::Move { number: 1, .. }] => {
            assert_eq!(*late_ms, 3 * M);
            assert_eq!(*deducted_ms, 3 * M, "Black's clock ran the whole time");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(left(&r, Color::Black, at), 54 * M);
}

#[test]
fn one_away_at_the_limit_is_one_absent_alert_and_the_arbiter_defaults_the_game() {
    let limit = LatePolicy {
        limit_ms: LatePolicy::VENUE_TOGETHER_MS,
        rule: LateRule::Double,
    };
    let mut r = referee("byoyomi 60m 5x30s", limit);
    r.on_buttons(&press(Color::Black, SET_UP + M));
    begin(&mut r);
    stone(&mut r, "E5", Color::Black, BEGIN + 30_000);
    r.on_buttons(&press(Color::Black, BEGIN + 31_000));
    let events = ticks(&mut r, BEGIN + 14 * M, BEGIN + 16 * M, 1_000);
    let alerts: Vec<_> = events
        .iter()
        .filter_map(|(t, e)| match e {
            Event::Alert(a) if a.code == AlertCode::Absent => Some((*t, a.clone())),
            _ => None,
        })
        .collect();
    let [(t, a)] = alerts.as_slice() else {
        panic!("{alerts:?}");
    };
    assert_eq!(*t, BEGIN + 15 * M, "the limit is inclusive");
    assert_eq!((a.color, a.article.as_str()), (Some(Color::White), "22.2"));
    assert_eq!(a.late_ms, Some(15 * M));
    assert!(a.message.contains("22.2"), "{}", a.message);
    // No automatic result: the game goes on until the arbiter decides.
    assert!(events.iter().all(|(_, e)| !matches!(e, Event::GameOver(_))));
    let out = r
        .on_command(
            &command(json!({"type": "set_result", "result": "B+F", "reason": "absent"})),
            BEGIN + 17 * M,
        )
        .unwrap();
    assert!(out.iter().any(
        |e| matches!(e, Event::AlertCleared { id, how: ClearedHow::Confirmed, .. } if *id == a.id)
    ));
    assert!(
        out.iter().any(|e| matches!(e, Event::GameOver(g) if g.result == "B+F" && g.reason == EndReason::Absent)),
        "{out:?}"
    );
    // The record says why.
    let sgf = r.view().sgf(true);
    assert!(sgf.contains("RE[B+F]"), "{sgf}");
    assert!(sgf.contains("White was not seated within 15:00"), "{sgf}");
    // Undone like any result: the game is back in play.
    let out = r
        .on_command(
            &command(json!({"type": "reopen", "reason": "White was in the hall"})),
            BEGIN + 18 * M,
        )
        .unwrap();
    assert!(
        out.iter().any(|e| matches!(e, Event::GameReopened { .. })),
        "{out:?}"
    );
}

#[test]
fn both_away_at_the_limit_is_one_alert_for_both_and_both_lose() {
    let mut r = referee("byoyomi 90m 5x30s", LatePolicy::default());
    begin(&mut r);
    let events = ticks(&mut r, BEGIN, BEGIN + 61 * M, M);
    let alerts: Vec<_> = events
        .iter()
        .filter_map(|(t, e)| match e {
            Event::Alert(a) if a.code == AlertCode::Absent => Some((*t, a.clone())),
            _ => None,
        })
        .collect();
    let [(t, a)] = alerts.as_slice() else {
        panic!("{alerts:?}");
    };
    assert_eq!(*t, BEGIN + 60 * M);
    assert_eq!((a.color, a.article.as_str()), (None, "22.3"));
    let out = r
        .on_command(
            &command(json!({"type": "set_result", "result": "Void", "reason": "absent"})),
            BEGIN + 62 * M,
        )
        .unwrap();
    assert!(
        out.iter().any(|e| matches!(e, Event::GameOver(g) if g.result == "Void" && g.reason == EndReason::Absent)),
        "{out:?}"
    );
    assert!(r.view().sgf(true).contains("both lose by default"));
}

#[test]
fn under_22_4_the_absent_clock_runs_out_as_an_absence_not_a_time_out() {
    let quick = LatePolicy {
        limit_ms: LatePolicy::VENUE_APART_MS,
        rule: LateRule::Byoyomi,
    };
    let mut r = referee("byoyomi 0s 3x30s", quick);
    r.on_buttons(&press(Color::White, SET_UP + M));
    begin(&mut r);
    let events = ticks(&mut r, BEGIN, BEGIN + 2 * M, 1_000);
    let alerts: Vec<_> = events
        .iter()
        .filter_map(|(_, e)| match e {
            Event::Alert(a) => Some(a.clone()),
            _ => None,
        })
        .collect();
    let [a] = alerts.as_slice() else {
        panic!("{alerts:?}");
    };
    assert_eq!(
        (a.code, a.color, a.article.as_str()),
        (AlertCode::Absent, Some(Color::Black), "22.4")
    );
}

#[test]
fn a_late_arrival_within_22_4_costs_nothing_more() {
    let quick = LatePolicy {
        limit_ms: LatePolicy::VENUE_APART_MS,
        rule: LateRule::Byoyomi,
    };
    let mut r = referee("byoyomi 0s 3x30s", quick);
    r.on_buttons(&press(Color::White, SET_UP + M));
    begin(&mut r);
    ticks(&mut r, BEGIN, BEGIN + 40_000, 1_000);
    let out = r.on_buttons(&press(Color::Black, BEGIN + 40_000));
    assert!(
        matches!(
            out.as_slice(),
            [
                Event::LateArrival {
                    deducted_ms: 0,
                    late_ms: 40_000,
                    ..
                },
                Event::Clock(_)
            ]
        ),
        "{out:?}"
    );
}

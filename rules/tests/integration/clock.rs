//! The clock (Art. 12, 14, 22): every call at its exact millisecond, each exactly once
//! whatever the tick spacing, flag fall, pause, arbiter adjustment, Canadian carry-over,
//! Fischer increment, forfeit after a flag.

use proptest::prelude::*;
use tengen_rules::clock::{format_duration, parse_duration, Call, Clock, ClockEvent, TimeControl};
use tengen_rules::Color::{self, Black, White};

const S: u64 = 1_000;
const M: u64 = 60_000;

/// Ticks every millisecond from `from` to `to` (inclusive) and records when each event
/// came out.
fn tick_every_ms(clock: &mut Clock, from: u64, to: u64) -> Vec<(u64, ClockEvent)> {
    let mut out = Vec::new();
    for now in from..=to {
        for e in clock.tick(now) {
            out.push((now, e));
        }
    }
    out
}

fn call(color: Color, call: Call, periods_left: u32) -> ClockEvent {
    ClockEvent::Call {
        color,
        call,
        periods_left,
    }
}

fn byoyomi(main_ms: u64, periods: u32, period_ms: u64) -> TimeControl {
    TimeControl::Byoyomi {
        main_ms,
        periods,
        period_ms,
    }
}

#[test]
fn time_controls_parse_and_print_in_spec_form() {
    let cases = [
        ("byoyomi 60m 5x60s", byoyomi(60 * M, 5, 60 * S)),
        ("absolute 30m", TimeControl::Absolute { main_ms: 30 * M }),
        (
            "canadian 10m 15/10m",
            TimeControl::Canadian {
                main_ms: 10 * M,
                stones: 15,
                period_ms: 10 * M,
            },
        ),
        (
            "fischer 10m +20s",
            TimeControl::Fischer {
                main_ms: 10 * M,
                increment_ms: 20 * S,
            },
        ),
        ("none", TimeControl::None),
    ];
    for (text, tc) in cases {
        assert_eq!(TimeControl::parse(text), Ok(tc), "{text}");
        assert_eq!(tc.to_string(), text);
    }
    assert_eq!(
        TimeControl::parse("  Byoyomi   1h  3x30s "),
        Ok(byoyomi(60 * M, 3, 30 * S))
    );
    assert_eq!(
        TimeControl::parse("byoyomi 0s 1x250ms"),
        Ok(byoyomi(0, 1, 250))
    );
    for bad in [
        "",
        "sudden 30m",
        "absolute",
        "absolute 30",
        "absolute 30x",
        "absolute -5m",
        "byoyomi 60m 5*60s",
        "byoyomi 60m 0x60s",
        "byoyomi 60m 5x0s",
        "canadian 10m 15-10m",
        "canadian 10m 0/10m",
        "fischer 10m 20s",
        "none 5m",
        "absolute 99999999999999999999m",
    ] {
        let err = TimeControl::parse(bad).expect_err(bad);
        assert!(!err.to_string().contains('\n'), "one line: {err}");
    }
}

#[test]
fn durations_read_back_what_is_written() {
    assert_eq!(parse_duration("250ms"), Ok(250));
    assert_eq!(parse_duration("3s"), Ok(3 * S));
    assert_eq!(parse_duration("2m"), Ok(2 * M));
    assert_eq!(parse_duration("1h"), Ok(60 * M));
    assert!(parse_duration("1.5m").is_err());
    assert!(parse_duration("m").is_err());
    assert_eq!(format_duration(90 * M), "90m");
    assert_eq!(format_duration(1_500), "1500ms");
    for ms in [0, 1, 999, 1_000, 59_999, 60_000, 61_000, 3_600_000] {
        assert_eq!(parse_duration(&format_duration(ms)), Ok(ms));
    }
}

#[test]
fn call_names_are_spec_names() {
    let names: Vec<&str> = [
        Call::S30,
        Call::S40,
        Call::S50,
        Call::S55,
        Call::S58,
        Call::MinuteUsed,
        Call::Count(1),
        Call::Count(10),
    ]
    .iter()
    .map(|c| c.as_str())
    .collect();
    assert_eq!(
        names,
        ["30", "40", "50", "55", "58", "minute_used", "1", "10"]
    );
}

/// Art. 12.3 with 60 s periods, two of them, after 10 s of base time: the exact count.
#[test]
fn byoyomi_calls_each_at_its_millisecond() {
    let mut clock = Clock::new(byoyomi(10 * S, 2, 60 * S));
    let t0 = 5_000;
    clock.start(Black, t0);
    let got = tick_every_ms(&mut clock, t0, t0 + 10 * S + 121 * S);
    let p1 = t0 + 10 * S; // first period starts when base time is gone
    let p2 = p1 + 60 * S;
    let mut want = vec![
        (p1 + 30 * S, call(Black, Call::S30, 2)),
        (p1 + 40 * S, call(Black, Call::S40, 2)),
        (p1 + 50 * S, call(Black, Call::S50, 2)),
        (p1 + 55 * S, call(Black, Call::S55, 2)),
        (p1 + 58 * S, call(Black, Call::S58, 2)),
        (p2, call(Black, Call::MinuteUsed, 1)),
        (p2 + 30 * S, call(Black, Call::S30, 1)),
        (p2 + 40 * S, call(Black, Call::S40, 1)),
        (p2 + 50 * S, call(Black, Call::S50, 1)),
    ];
    for k in 1..=9u8 {
        want.push((p2 + (50 + k as u64) * S, call(Black, Call::Count(k), 1)));
    }
    want.push((p2 + 60 * S, call(Black, Call::Count(10), 1)));
    want.push((p2 + 60 * S, ClockEvent::Flag { color: Black }));
    assert_eq!(got, want);
    assert_eq!(clock.flagged(), Some(Black));
    assert_eq!(clock.running(), None);
    assert_eq!(clock.remaining(Black, p2 + 70 * S), 0);
    assert_eq!(clock.remaining(White, p2 + 70 * S), 10 * S);
}

/// The documented scaling: calls keep their time-left, those before the period's start
/// are dropped.
#[test]
fn short_periods_keep_the_calls_at_the_same_time_left() {
    let mut clock = Clock::new(byoyomi(0, 2, 30 * S));
    clock.start(White, 0);
    let got = tick_every_ms(&mut clock, 0, 61 * S);
    let mut want = vec![
        (10 * S, call(White, Call::S40, 2)),
        (20 * S, call(White, Call::S50, 2)),
        (25 * S, call(White, Call::S55, 2)),
        (28 * S, call(White, Call::S58, 2)),
        (30 * S, call(White, Call::MinuteUsed, 1)),
        (40 * S, call(White, Call::S40, 1)),
        (50 * S, call(White, Call::S50, 1)),
    ];
    for k in 1..=9u8 {
        want.push((50 * S + k as u64 * S, call(White, Call::Count(k), 1)));
    }
    want.push((60 * S, call(White, Call::Count(10), 1)));
    want.push((60 * S, ClockEvent::Flag { color: White }));
    assert_eq!(got, want);

    // A 5 s last period: only the counts that fall inside it.
    let mut clock = Clock::new(byoyomi(0, 1, 5 * S));
    clock.start(Black, 0);
    let got: Vec<(u64, ClockEvent)> = tick_every_ms(&mut clock, 0, 6 * S);
    let counts: Vec<(u64, &str)> = got
        .iter()
        .filter_map(|(t, e)| match e {
            ClockEvent::Call { call, .. } => Some((*t, call.as_str())),
            ClockEvent::Flag { .. } => None,
        })
        .collect();
    assert_eq!(
        counts,
        [
            (1000, "6"),
            (2000, "7"),
            (3000, "8"),
            (4000, "9"),
            (5000, "10")
        ]
    );
}

#[test]
fn a_move_inside_a_period_costs_nothing_and_a_press_on_the_last_ms_is_late() {
    let mut clock = Clock::new(byoyomi(0, 3, 60 * S));
    clock.start(Black, 0);
    // Black moves after 59.999 s: still 3 periods, the period starts afresh next turn.
    let ev = clock.press(Black, 60 * S - 1);
    assert_eq!(ev.len(), 5, "30 40 50 55 58: {ev:?}");
    assert_eq!(clock.periods_left(Black), 3);
    assert_eq!(clock.running(), Some(White));
    assert_eq!(clock.remaining(Black, 60 * S), 60 * S);
    // White's base time is 0 too; White moves at once.
    assert!(clock.press(White, 60 * S).is_empty());
    // Black presses exactly when the period runs out: the period is used.
    let ev = clock.press(Black, 120 * S);
    assert_eq!(ev.last(), Some(&call(Black, Call::MinuteUsed, 2)));
    assert_eq!(clock.periods_left(Black), 2);
    assert_eq!(clock.running(), Some(White));
}

#[test]
fn absolute_flag_falls_at_the_exact_ms() {
    let mut clock = Clock::new(TimeControl::Absolute { main_ms: 1_500 });
    clock.start(Black, 100);
    assert!(clock.tick(1_599).is_empty());
    assert_eq!(clock.remaining(Black, 1_599), 1);
    assert_eq!(clock.tick(1_600), [ClockEvent::Flag { color: Black }]);
    assert!(clock.tick(5_000).is_empty(), "a flag falls once");
    // A press after the flag does nothing.
    assert!(clock.press(Black, 5_000).is_empty());
    assert_eq!(clock.running(), None);
    assert_eq!(clock.flagged(), Some(Black));
    // A press that comes late reports the flag instead of switching.
    let mut clock = Clock::new(TimeControl::Absolute { main_ms: 1_000 });
    clock.start(White, 0);
    assert_eq!(
        clock.press(White, 3_000),
        [ClockEvent::Flag { color: White }]
    );
    assert_eq!(clock.running(), None);
}

#[test]
fn time_used_is_charged_only_to_the_side_to_move() {
    let mut clock = Clock::new(TimeControl::Absolute { main_ms: 10 * M });
    clock.start(Black, 0);
    clock.press(Black, 7 * S);
    clock.press(White, 10 * S);
    clock.press(Black, 12 * S);
    assert_eq!(clock.remaining(Black, 20 * S), 10 * M - 9 * S);
    assert_eq!(clock.remaining(White, 20 * S), 10 * M - 3 * S - 8 * S);
    // Pressing out of turn changes nothing.
    assert!(clock.press(Black, 21 * S).is_empty());
    assert_eq!(clock.running(), Some(White));
}

#[test]
fn a_first_press_starts_the_opponents_clock() {
    let mut clock = Clock::new(TimeControl::Absolute { main_ms: M });
    assert_eq!(clock.running(), None);
    clock.press(White, 1_000);
    assert_eq!(clock.running(), Some(Black));
    assert_eq!(clock.remaining(Black, 3_000), M - 2_000);
    assert_eq!(clock.remaining(White, 3_000), M);
}

#[test]
fn pause_stops_both_clocks_and_resume_continues() {
    let mut clock = Clock::new(byoyomi(0, 1, 60 * S));
    clock.start(Black, 0);
    clock.pause(25 * S);
    assert!(clock.is_paused());
    assert!(
        clock.tick(10 * M).is_empty(),
        "nothing happens in the pause"
    );
    assert_eq!(clock.remaining(Black, 10 * M), 35 * S);
    // Presses are ignored while paused.
    assert!(clock.press(Black, 10 * M).is_empty());
    assert_eq!(clock.running(), Some(Black));
    clock.resume(10 * M);
    assert!(!clock.is_paused());
    assert_eq!(clock.tick(10 * M + 5 * S - 1), []);
    assert_eq!(clock.tick(10 * M + 5 * S), [call(Black, Call::S30, 1)]);
    // A call that fell due right before the pause is not lost.
    let mut clock = Clock::new(byoyomi(0, 1, 60 * S));
    clock.start(Black, 0);
    clock.pause(31 * S);
    assert_eq!(clock.tick(40 * S), [call(Black, Call::S30, 1)]);
}

#[test]
fn arbiter_adjustment_sets_time_and_periods() {
    let mut clock = Clock::new(byoyomi(10 * M, 5, 60 * S));
    clock.start(Black, 0);
    clock.adjust(Black, 2 * M, Some(3), 30 * S);
    assert_eq!(clock.remaining(Black, 30 * S), 2 * M);
    assert_eq!(clock.periods_left(Black), 3);
    // The other side can be adjusted while not running.
    clock.adjust(White, 90 * S, None, 31 * S);
    assert_eq!(clock.remaining(White, 40 * S), 90 * S);
    assert_eq!(clock.periods_left(White), 5);
    // Black's base time now runs out at 30 s + 2 min; then the periods count.
    let ev = clock.tick(30 * S + 2 * M + 30 * S);
    assert_eq!(ev, [call(Black, Call::S30, 3)]);
    // Adjusting a flagged side lifts the flag and its clock runs again.
    let mut clock = Clock::new(TimeControl::Absolute { main_ms: S });
    clock.start(White, 0);
    assert_eq!(clock.tick(S), [ClockEvent::Flag { color: White }]);
    clock.adjust(White, 5 * S, None, 2 * S);
    assert_eq!(clock.flagged(), None);
    assert_eq!(clock.running(), Some(White));
    assert_eq!(clock.remaining(White, 3 * S), 4 * S);
}

#[test]
fn canadian_counts_stones_and_carries_time_over() {
    let tc = TimeControl::Canadian {
        main_ms: 0,
        stones: 3,
        period_ms: 60 * S,
    };
    let mut clock = Clock::new(tc);
    clock.start(Black, 0);
    let mut now = 0;
    // Black plays 3 stones in 10 s each; White answers at once.
    for _ in 0..3 {
        now += 10 * S;
        assert!(clock.press(Black, now).is_empty());
        clock.press(White, now);
    }
    // 30 s left over carry into the next period: 90 s for the next 3 stones.
    assert_eq!(clock.periods_left(Black), 3);
    assert_eq!(clock.remaining(Black, now), 90 * S);
    now += 20 * S;
    clock.press(Black, now);
    assert_eq!(clock.periods_left(Black), 2);
    assert_eq!(clock.remaining(Black, now), 70 * S);
    clock.press(White, now);
    // The period runs out with 2 stones to play: flag at the exact ms, no calls.
    assert!(clock.tick(now + 70 * S - 1).is_empty());
    assert_eq!(
        clock.tick(now + 70 * S),
        [ClockEvent::Flag { color: Black }]
    );
}

#[test]
fn canadian_enters_periods_after_base_time() {
    let tc = TimeControl::Canadian {
        main_ms: 60 * S,
        stones: 2,
        period_ms: 30 * S,
    };
    let mut clock = Clock::new(tc);
    clock.start(Black, 0);
    // The move that crosses into overtime is the period's first stone.
    clock.press(Black, 70 * S);
    assert!(clock.in_overtime(Black));
    assert_eq!(clock.periods_left(Black), 1);
    assert_eq!(clock.remaining(Black, 70 * S), 20 * S);
}

#[test]
fn fischer_adds_the_increment_at_each_press() {
    let tc = TimeControl::Fischer {
        main_ms: 60 * S,
        increment_ms: 5 * S,
    };
    let mut clock = Clock::new(tc);
    clock.start(Black, 0);
    clock.press(Black, 20 * S);
    assert_eq!(clock.remaining(Black, 20 * S), 45 * S);
    clock.press(White, 21 * S);
    assert_eq!(clock.remaining(White, 21 * S), 64 * S);
    assert_eq!(
        clock.tick(21 * S + 45 * S),
        [ClockEvent::Flag { color: Black }]
    );
}

#[test]
fn forfeit_after_flag_continues_the_same_byoyomi() {
    let mut clock = Clock::new(byoyomi(0, 1, 60 * S));
    clock.start(Black, 0);
    let ev = clock.tick(60 * S);
    assert_eq!(ev.last(), Some(&ClockEvent::Flag { color: Black }));
    // The wrong side cannot forfeit.
    clock.forfeit_turn_after_flag(White, 61 * S);
    assert_eq!(clock.flagged(), Some(Black));
    clock.forfeit_turn_after_flag(Black, 61 * S);
    assert_eq!(clock.flagged(), None);
    assert_eq!(clock.running(), Some(White));
    assert_eq!(clock.periods_left(Black), 1);
    assert_eq!(clock.remaining(Black, 61 * S), 60 * S);
    // White moves; Black's fresh last period counts again.
    clock.press(White, 62 * S);
    assert_eq!(clock.tick(62 * S + 30 * S), [call(Black, Call::S30, 1)]);
}

#[test]
fn no_time_control_never_flags() {
    let mut clock = Clock::new(TimeControl::None);
    clock.start(Black, 0);
    assert!(clock.tick(u64::MAX / 2).is_empty());
    assert_eq!(clock.remaining(Black, 1), u64::MAX);
    clock.press(Black, 10);
    assert_eq!(clock.running(), Some(White));
    assert_eq!(clock.periods_left(Black), 0);
}

#[test]
fn a_side_with_no_time_left_flags_as_its_clock_starts() {
    let mut clock = Clock::new(TimeControl::Absolute { main_ms: 0 });
    clock.start(Black, 7);
    assert_eq!(clock.tick(7), [ClockEvent::Flag { color: Black }]);
}

/// Runs a scripted game (presses at given moments) with ticks at the given moments, and
/// returns every event with the moment it came out, tagged by the moment it was *due*
/// relative to the tick schedule removed: only the order and content matter here.
fn run(tc: TimeControl, presses: &[u64], ticks: &[u64]) -> Vec<ClockEvent> {
    let mut clock = Clock::new(tc);
    clock.start(Black, 0);
    let mut actions: Vec<(u64, bool)> = presses.iter().map(|&t| (t, true)).collect();
    actions.extend(ticks.iter().map(|&t| (t, false)));
    // Presses sort before ticks at the same moment so that both schedules agree on
    // what happens at that moment.
    actions.sort_by_key(|&(t, press)| (t, !press));
    let mut out = Vec::new();
    for (t, press) in actions {
        if press {
            if let Some(c) = clock.running() {
                out.extend(clock.press(c, t));
            }
        } else {
            out.extend(clock.tick(t));
        }
    }
    out.extend(clock.tick(u64::MAX / 4));
    out
}

fn time_controls() -> impl Strategy<Value = TimeControl> {
    prop_oneof![
        (0u64..20_000).prop_map(|main_ms| TimeControl::Absolute { main_ms }),
        (0u64..20_000, 1u32..4, 1u64..70_000).prop_map(|(main_ms, periods, period_ms)| {
            TimeControl::Byoyomi {
                main_ms,
                periods,
                period_ms,
            }
        }),
        (0u64..20_000, 1u32..4, 1u64..40_000).prop_map(|(main_ms, stones, period_ms)| {
            TimeControl::Canadian {
                main_ms,
                stones,
                period_ms,
            }
        }),
        (0u64..20_000, 0u64..5_000).prop_map(|(main_ms, increment_ms)| TimeControl::Fischer {
            main_ms,
            increment_ms
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any tick schedule gives the same events as one tick per millisecond... checked
    /// cheaply: as ticking only at the presses and at the end.
    #[test]
    fn any_tick_schedule_gives_the_same_events(
        tc in time_controls(),
        gaps in proptest::collection::vec(0u64..90_000, 0..12),
        ticks in proptest::collection::vec(0u64..800_000, 0..200),
    ) {
        let mut presses = Vec::new();
        let mut t = 0;
        for g in gaps {
            t += g;
            presses.push(t);
        }
        let sparse = run(tc, &presses, &[]);
        let random = run(tc, &presses, &ticks);
        prop_assert_eq!(&sparse, &random);
        // Every call appears at most once per period and at most one flag falls.
        let flags = sparse.iter().filter(|e| matches!(e, ClockEvent::Flag { .. })).count();
        prop_assert!(flags <= 1);
    }

    /// Fine ticks (every 7 ms up to a minute and a half) against one coarse tick.
    #[test]
    fn fine_and_coarse_ticks_agree(tc in time_controls(), step in 1u64..2_000) {
        let fine: Vec<u64> = (0..90_000u64).step_by(step as usize).collect();
        prop_assert_eq!(run(tc, &[], &fine), run(tc, &[], &[90_000]));
    }

    /// `remaining` is a pure look-ahead: it agrees with the time left after ticking to
    /// the same moment, and a pause freezes it.
    #[test]
    fn remaining_agrees_with_ticking_and_pause_freezes_it(tc in time_controls(), a in 0u64..200_000, b in 0u64..200_000) {
        let (a, b) = (a.min(b), a.max(b));
        let mut clock = Clock::new(tc);
        clock.start(White, 0);
        let ra = clock.remaining(White, a);
        clock.tick(a);
        prop_assert_eq!(clock.remaining(White, a), ra);
        clock.pause(a);
        prop_assert_eq!(clock.remaining(White, b), ra);
        prop_assert!(clock.tick(b).is_empty());
    }
}

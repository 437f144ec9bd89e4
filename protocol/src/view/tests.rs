//! The fold, event by event.

use serde_json::{json, Value};
use tengen_rules::clock::TimeControl;
use tengen_rules::{Color, Point};

use super::*;
use crate::event::{ClockReading, EndReason, Expected, GameEnd, ReopenedPhase, RetractReason};

const T0: u64 = 1_767_225_600_000;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_millis(T0 + ms)
}

fn p(gtp: &str) -> Point {
    crate::gtp::parse(gtp).unwrap()
}

fn setup(size: u8, handicap: u8, tc: &str) -> Event {
    Event::GameStarted(GameSetup {
        size,
        handicap,
        time_control: TimeControl::parse(tc).unwrap(),
        black: "Shusaku".into(),
        white: "Gennan".into(),
        round: "3".into(),
        table: "7".into(),
        ..GameSetup::default()
    })
}

fn mv(number: u32, color: Color, point: &str) -> Event {
    Event::Move {
        number,
        color,
        point: p(point),
        captured: vec![],
        clock: None,
    }
}

fn reading(color: Option<Color>, b: u64, w: u64, running: Option<Color>, paused: bool) -> Event {
    Event::Clock(ClockReading {
        color,
        black: b,
        white: w,
        periods: PerColor::new(0, 0),
        running,
        paused: Some(paused),
    })
}

fn envelope(seq: u64, ms: u64, event: Event) -> Envelope {
    Envelope {
        seq,
        time: at(ms),
        board: "b1".into(),
        game: "g1".into(),
        by: None,
        event,
    }
}

fn fold(events: &[(u64, Event)]) -> GameView {
    let mut v = GameView::new();
    for (i, (ms, e)) in events.iter().enumerate() {
        v.apply_envelope(&envelope(i as u64 + 1, *ms, e.clone()))
            .unwrap_or_else(|err| panic!("event {}: {err}", i + 1));
    }
    v
}

/// The 9x9 board string with stones at (GTP point, 'X'/'O').
fn rows(stones: &[(&str, char)]) -> String {
    let mut cells = vec!['.'; 81];
    for (q, c) in stones {
        cells[p(q).index(9)] = *c;
    }
    cells.into_iter().collect()
}

#[test]
fn nothing_before_the_setup() {
    let mut v = GameView::new();
    let e = v.apply(&mv(1, Color::Black, "C3"), at(0)).unwrap_err();
    assert_eq!(e.to_string(), "move before any game_started");
    assert!(v.snapshot(at(0)).is_none());
    assert_eq!(v.sgf(true), "");
}

#[test]
fn rebuilds_position_captures_and_the_snapshot() {
    let mut events = vec![(0, setup(9, 0, "none"))];
    // White's E5 is captured by Black's four stones around it.
    for (i, (q, c)) in [
        ("D5", Color::Black),
        ("E5", Color::White),
        ("F5", Color::Black),
        ("A1", Color::White),
        ("E4", Color::Black),
        ("A2", Color::White),
    ]
    .iter()
    .enumerate()
    {
        events.push((1000 * i as u64, mv(i as u32 + 1, *c, q)));
    }
    events.push((
        7000,
        Event::Move {
            number: 7,
            color: Color::Black,
            point: p("E6"),
            captured: vec![p("E5")],
            clock: None,
        },
    ));
    let v = fold(&events);
    assert_eq!(v.captures_to_lift(), &[p("E5")]);
    assert_eq!(v.awaiting_press(), Some(Color::Black));
    let s = v.snapshot(at(8000)).unwrap().to_value();
    assert_eq!(
        s["board"],
        rows(&[
            ("D5", 'X'),
            ("F5", 'X'),
            ("E4", 'X'),
            ("E6", 'X'),
            ("A1", 'O'),
            ("A2", 'O')
        ])
    );
    assert_eq!(s["captured"], json!({"B": 1, "W": 0}));
    assert_eq!(s["number"], 7);
    assert_eq!(s["to_move"], "W");
    assert_eq!(s["clocks"], Value::Null);
    assert_eq!(s["seq"], 8);
    assert_eq!(s["board_id"], "b1");
    assert_eq!(s["game_id"], "g1");
    assert_eq!(s["alerts"], json!([]));
    assert_eq!(s["black"], "Shusaku");
    assert_eq!(s["phase"], "playing");
    assert_eq!(s["time_control"], "none");
    // The position the board had to show at each move (the black box's expected board).
    assert_eq!(v.position_at(0).as_deref(), Some(rows(&[]).as_str()));
    assert_eq!(
        v.position_at(2).as_deref(),
        Some(rows(&[("D5", 'X'), ("E5", 'O')]).as_str())
    );
    assert_eq!(
        v.position_at(6).as_deref(),
        Some(
            rows(&[
                ("D5", 'X'),
                ("E5", 'O'),
                ("F5", 'X'),
                ("E4", 'X'),
                ("A1", 'O'),
                ("A2", 'O')
            ])
            .as_str()
        ),
        "before the capture"
    );
    assert_eq!(
        v.position_at(7).as_deref(),
        Some(s["board"].as_str().unwrap())
    );
    assert_eq!(v.position_at(8), None, "past the record");
}

#[test]
fn a_retraction_takes_out_the_numbered_move_only() {
    let v = fold(&[
        (0, setup(9, 0, "none")),
        (1, mv(1, Color::Black, "E5")),
        (
            2,
            Event::Pass {
                number: 2,
                color: Color::White,
            },
        ),
        (
            3,
            Event::MoveRetracted {
                number: 2,
                reason: RetractReason::ClockBeforeMove,
            },
        ),
        (4, mv(2, Color::White, "C3")),
    ]);
    assert_eq!(v.game().unwrap().move_number(), 2);
    assert_eq!(
        v.awaiting_press(),
        None,
        "the withdrawn pass's press counts for the stone"
    );
    // An earlier move retracted: the later ones are replayed.
    let mut v = fold(&[
        (0, setup(9, 0, "none")),
        (1, mv(1, Color::Black, "E5")),
        (2, mv(2, Color::White, "C3")),
        (3, mv(3, Color::Black, "G7")),
    ]);
    v.apply(
        &Event::MoveRetracted {
            number: 2,
            reason: RetractReason::Other("arbiter".into()),
        },
        at(4),
    )
    .unwrap();
    let s = v.snapshot(at(5)).unwrap();
    assert_eq!(s.number, 2);
    assert_eq!(
        s.board,
        rows(&[("E5", 'X'), ("G7", 'X')]).replace(['X'], "X")
    );
    // ...which Black then cannot follow with another black stone: reported, not applied.
    let e = v
        .apply(
            &Event::MoveRetracted {
                number: 7,
                reason: RetractReason::ClockBeforeMove,
            },
            at(6),
        )
        .unwrap_err();
    assert_eq!(e, FoldError::NoSuchMove(7));
}

#[test]
fn a_move_that_does_not_replay_is_reported_and_skipped() {
    let mut v = fold(&[(0, setup(9, 0, "none")), (1, mv(1, Color::Black, "E5"))]);
    let e = v.apply(&mv(2, Color::White, "E5"), at(2)).unwrap_err();
    assert!(e.to_string().contains("does not replay: occupied"), "{e}");
    let e = v.apply(&mv(2, Color::White, "T19"), at(2)).unwrap_err();
    assert!(matches!(e, FoldError::OffBoard { .. }), "{e}");
    assert_eq!(v.game().unwrap().move_number(), 1);
}

/// A byo-yomi game where Black is to move: `main` ms each, then 3 x 10 s.
fn clocked() -> Vec<(u64, Event)> {
    vec![
        (0, setup(9, 0, "byoyomi 60s 3x10s")),
        (0, reading(None, 60_000, 60_000, Some(Color::Black), false)),
    ]
}

fn left(v: &GameView, ms: u64) -> (u64, u64, Option<Color>, bool) {
    let c = v.clocks_at(at(ms)).unwrap();
    (c.black, c.white, c.running, c.paused)
}

#[test]
fn clocks_run_between_events_and_follow_presses() {
    let mut events = clocked();
    events.push((5_000, mv(1, Color::Black, "E5")));
    events.push((
        6_000,
        Event::Clock(ClockReading {
            periods: PerColor::new(3, 3),
            ..match reading(
                Some(Color::Black),
                54_000,
                60_000,
                Some(Color::White),
                false,
            ) {
                Event::Clock(r) => r,
                _ => unreachable!(),
            }
        }),
    ));
    let v = fold(&events);
    assert_eq!(left(&v, 6_000), (54_000, 60_000, Some(Color::White), false));
    assert_eq!(
        left(&v, 16_000),
        (54_000, 50_000, Some(Color::White), false)
    );
    assert_eq!(v.awaiting_press(), None);
    let note = &v.record()[0];
    assert_eq!(note.time_left_ms, Some(55_000));
}

#[test]
fn pause_resume_and_adjust_are_told_apart() {
    let mut events = clocked();
    events.push((
        10_000,
        reading(None, 50_000, 60_000, Some(Color::Black), true),
    ));
    let v = fold(&events);
    assert_eq!(
        left(&v, 100_000),
        (50_000, 60_000, Some(Color::Black), true)
    );
    events.push((
        200_000,
        reading(None, 50_000, 60_000, Some(Color::Black), false),
    ));
    let v = fold(&events);
    assert_eq!(
        left(&v, 205_000),
        (45_000, 60_000, Some(Color::Black), false)
    );
    // An adjustment of White while Black's clock runs.
    events.push((
        206_000,
        reading(None, 44_000, 30_000, Some(Color::Black), false),
    ));
    let v = fold(&events);
    assert_eq!(
        left(&v, 207_000),
        (43_000, 30_000, Some(Color::Black), false)
    );
}

#[test]
fn a_restart_freezes_the_clocks_where_the_board_stopped() {
    let mut events = clocked();
    events.push((20_000, mv(1, Color::Black, "E5")));
    // Black's clock ran 20 s; the board goes off at 25 s (its last sign of life) and is
    // back 10 minutes later: nobody is charged for the downtime.
    events.push((
        625_000,
        Event::Status {
            state: BoardState::Restoring,
            version: "0".into(),
            off_since: Some(at(25_000)),
        },
    ));
    let v = fold(&events);
    assert_eq!(
        left(&v, 625_000),
        (35_000, 60_000, Some(Color::Black), true)
    );
    assert_eq!(
        left(&v, 900_000),
        (35_000, 60_000, Some(Color::Black), true)
    );
    // The arbiter resumes: Black's clock runs again from there.
    events.push((
        700_000,
        reading(None, 35_000, 60_000, Some(Color::Black), false),
    ));
    let v = fold(&events);
    assert_eq!(
        left(&v, 710_000),
        (25_000, 60_000, Some(Color::Black), false)
    );
    // ...and the flag falls when it should: 35 s of main time, then 3 periods of 10 s.
    let mut v = v;
    let due = v.advance(at(700_000 + 35_000 + 30_000));
    assert!(
        due.iter().any(|e| matches!(
            e,
            tengen_rules::clock::ClockEvent::Flag {
                color: Color::Black
            }
        )),
        "{due:?}"
    );
}

#[test]
fn a_paused_clock_stays_paused_across_a_restart() {
    let mut events = clocked();
    events.push((
        10_000,
        reading(None, 50_000, 60_000, Some(Color::Black), true),
    ));
    events.push((
        90_000,
        Event::Status {
            state: BoardState::Restoring,
            version: "0".into(),
            off_since: Some(at(80_000)),
        },
    ));
    let v = fold(&events);
    assert_eq!(left(&v, 95_000), (50_000, 60_000, Some(Color::Black), true));
}

#[test]
fn a_flag_before_the_restart_stays_fallen_and_a_forfeit_is_read() {
    let mut events = clocked();
    // Black's 60 s + 3 x 10 s run out at 90 s.
    events.push((100_000, mv(1, Color::Black, "E5")));
    let mut v = fold(&events);
    assert_eq!(v.clock().unwrap().flagged(), Some(Color::Black));
    v.apply(
        &Event::Status {
            state: BoardState::Restoring,
            version: "0".into(),
            off_since: None,
        },
        at(200_000),
    )
    .unwrap();
    assert_eq!(v.clock().unwrap().flagged(), Some(Color::Black));
    // Art. 22.5: the arbiter rules a forfeited turn: White's clock runs.
    v.apply(
        &Event::Clock(ClockReading {
            color: None,
            black: 10_000,
            white: 60_000,
            periods: PerColor::new(1, 3),
            running: Some(Color::White),
            paused: Some(false),
        }),
        at(210_000),
    )
    .unwrap();
    let c = v.clocks_at(at(215_000)).unwrap();
    assert_eq!(
        (c.black, c.white, c.running),
        (10_000, 55_000, Some(Color::White))
    );
}

#[test]
fn journals_without_paused_ran_on_after_a_restart() {
    // Before `paused` and `off_since` existed a restarted board kept its clock running:
    // so does the fold, and the press's reading wins.
    let mut events = clocked();
    events.push((5_000, mv(1, Color::Black, "E5")));
    events.push((
        30_000,
        Event::Status {
            state: BoardState::Restoring,
            version: "0".into(),
            off_since: None,
        },
    ));
    events.push((
        31_000,
        Event::Clock(ClockReading {
            color: Some(Color::Black),
            black: 29_000,
            white: 60_000,
            periods: PerColor::new(3, 3),
            running: Some(Color::White),
            paused: None,
        }),
    ));
    let v = fold(&events);
    assert_eq!(
        left(&v, 41_000),
        (29_000, 50_000, Some(Color::White), false)
    );
}

fn alert(id: &str, code: AlertCode, points: &[&str], expected: &[(&str, Option<Color>)]) -> Event {
    Event::Alert(Alert {
        id: id.into(),
        code,
        article: code.article().into(),
        color: Some(Color::White),
        points: points.iter().map(|q| p(q)).collect(),
        expected: Expected::new(expected.iter().map(|(q, c)| (p(q), *c)).collect()),
        message: format!("{id} happened."),
        late_ms: None,
    })
}

#[test]
fn alerts_open_hide_and_close() {
    let mut events = vec![(0, setup(9, 0, "none")), (1, mv(1, Color::Black, "E5"))];
    events.push((
        2,
        alert(
            "a1",
            AlertCode::StoneMoved,
            &["E5"],
            &[("E5", Some(Color::Black))],
        ),
    ));
    events.push((3, alert("a2", AlertCode::Ko, &["C3"], &[])));
    events.push((4, Event::cleared("a1", ClearedHow::Confirmed)));
    let v = fold(&events);
    let open: Vec<&str> = v.open_alerts().map(|a| a.id.as_str()).collect();
    assert_eq!(open, ["a2"]);
    assert_eq!(v.alerts().len(), 2, "a1 still covers E5, hidden");
    assert_eq!(v.next_alert_number(), 3);
    let active: Value = serde_json::from_str(&v.active_alerts_json()).unwrap();
    assert_eq!(active[0]["id"], "a2");
    assert_eq!(active[0]["seq"], 4, "with its envelope");
    let s = v.snapshot(at(5)).unwrap().to_value();
    assert_eq!(s["alerts"][0]["type"], "alert");
    assert!(
        s["alerts"][0].get("seq").is_none(),
        "bare events in the state"
    );
    assert!(v.sgf(true).contains("C[a1 happened.\na2 happened.]"));
    assert!(!v.sgf(false).contains("C["));
    let mut v = v;
    v.apply(&Event::cleared("a1", ClearedHow::Restored), at(6))
        .unwrap();
    assert_eq!(v.alerts().len(), 1);
    // A new game: alerts go, the numbering carries on.
    v.apply(&setup(9, 2, "none"), at(7)).unwrap();
    assert!(v.alerts().is_empty());
    assert_eq!(v.next_alert_number(), 3);
    let s = v.snapshot(at(8)).unwrap();
    assert_eq!(s.board.matches('X').count(), 2, "handicap stones");
    assert_eq!(s.to_move, Color::White);
}

#[test]
fn counting_resuming_and_the_end() {
    let mut events = clocked();
    events.push((
        1_000,
        Event::Pass {
            number: 1,
            color: Color::Black,
        },
    ));
    events.push((
        2_000,
        Event::Pass {
            number: 2,
            color: Color::White,
        },
    ));
    events.push((2_000, Event::Counting { dead: vec![] }));
    let v = fold(&events);
    assert_eq!(v.phase(), Phase::Counting);
    events.push((
        3_000,
        Event::PlayResumed {
            color: Color::Black,
        },
    ));
    let v = fold(&events);
    assert_eq!(v.phase(), Phase::Playing);
    events.push((
        4_000,
        Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation)),
    ));
    let v = fold(&events);
    assert_eq!(v.phase(), Phase::Over);
    assert_eq!(v.result(), Some("W+R"));
    let frozen = left(&v, 4_000);
    assert_eq!(left(&v, 90_000), frozen, "the clocks stop at the end");
    let sgf = tengen_rules::sgf::parse(&v.sgf(true)).unwrap();
    assert_eq!(sgf.result.as_deref(), Some("W+R"));
    assert_eq!(sgf.moves.len(), 2);
}

#[test]
fn hardware_faults_stand_until_mended_and_count_once() {
    let fault = |kind: FaultKind, points: &[&str]| Event::SensorFault {
        points: points.iter().map(|q| p(q)).collect(),
        kind,
    };
    let mut v = GameView::new();
    v.apply_envelope(&envelope(1, 0, fault(FaultKind::LinkLost, &[])))
        .unwrap();
    v.apply_envelope(&envelope(2, 0, fault(FaultKind::Noisy, &["J1"])))
        .unwrap();
    v.apply_envelope(&envelope(2, 0, fault(FaultKind::Noisy, &["J1"])))
        .unwrap();
    let kinds = |v: &GameView| -> Vec<FaultKind> { v.faults().iter().map(|f| f.kind).collect() };
    assert_eq!(kinds(&v), [FaultKind::LinkLost, FaultKind::Noisy]);
    v.apply_envelope(&envelope(3, 0, fault(FaultKind::LinkRestored, &[])))
        .unwrap();
    assert_eq!(kinds(&v), [FaultKind::Noisy]);
    for seq in 4..20 {
        v.apply_envelope(&envelope(seq, 0, fault(FaultKind::Stuck, &["A9"])))
            .unwrap();
    }
    assert_eq!(v.faults().len(), FAULTS_KEPT);
    assert_eq!(v.faults()[0].seq, 10);
    v.apply_envelope(&envelope(20, 0, setup(9, 0, "none")))
        .unwrap();
    assert_eq!(
        v.faults().len(),
        FAULTS_KEPT,
        "faults are the board's, not the game's"
    );
}

#[test]
fn the_record_says_whose_game_it_was_and_where() {
    let mut s = match setup(19, 0, "byoyomi 60m 5x30s") {
        Event::GameStarted(s) => s,
        _ => unreachable!(),
    };
    s.black = "Vannier Luc".into();
    s.white = "Gao Chuande".into();
    s.black_rank = Some("4K".into());
    s.white_rank = Some("1D".into());
    s.event = Some("Tournoi de Juvisy".into());
    s.place = Some("Juvisy".into());
    s.round = "3".into();
    let v = fold(&[(1, Event::GameStarted(s)), (2, mv(1, Color::Black, "Q16"))]);
    let text = v.sgf(false);
    for prop in [
        "PB[Vannier Luc]",
        "PW[Gao Chuande]",
        "BR[4K]",
        "WR[1D]",
        "EV[Tournoi de Juvisy]",
        "PC[Juvisy]",
        "RO[3]",
        "RU[Chinese]",
        "TM[3600]",
    ] {
        assert!(text.contains(prop), "{prop} missing from {text}");
    }
    let parsed = tengen_rules::sgf::parse(&text).unwrap();
    assert_eq!(parsed.moves.len(), 1);
    let state = v.snapshot(at(3)).unwrap().to_value();
    assert_eq!(
        (&state["event"], &state["place"]),
        (&json!("Tournoi de Juvisy"), &json!("Juvisy"))
    );
}

fn reopened(previous: &str, phase: ReopenedPhase) -> Event {
    Event::GameReopened {
        previous_result: previous.into(),
        reason: Some("the result was set by mistake".into()),
        phase,
    }
}

#[test]
fn a_reopened_game_has_no_result_until_the_next_game_over_replaces_it_everywhere() {
    let mut events = clocked();
    events.push((5_000, mv(1, Color::Black, "E5")));
    events.push((
        6_000,
        reading(
            Some(Color::Black),
            55_000,
            60_000,
            Some(Color::White),
            false,
        ),
    ));
    events.push((
        9_000,
        Event::GameOver(GameEnd::uncounted("B+R", EndReason::Resignation)),
    ));
    let v = fold(&events);
    assert_eq!(v.result(), Some("B+R"));
    assert_eq!(v.end_reason(), Some(EndReason::Resignation));
    assert!(v.sgf(true).contains("RE[B+R]"));

    events.push((60_000, reopened("B+R", ReopenedPhase::Playing)));
    let v = fold(&events);
    assert_eq!(v.phase(), Phase::Playing);
    assert_eq!((v.result(), v.end_reason()), (None, None));
    let sgf = v.sgf(true);
    assert!(!sgf.contains("RE["), "no result in the record: {sgf}");
    let s = v.snapshot(at(90_000)).unwrap().to_value();
    assert_eq!(s["phase"], "playing");
    assert_eq!(s["result"], Value::Null);
    // Stopped at the end (White had run 3 s), and still paused after the reopen.
    assert_eq!(left(&v, 90_000), (55_000, 57_000, Some(Color::White), true));
    assert_eq!(s["clocks"]["paused"], true);
    assert_eq!(v.record().len(), 1, "the record is kept");

    // The arbiter resumes, White plays on, then the new result stands everywhere.
    events.push((
        100_000,
        reading(None, 55_000, 57_000, Some(Color::White), false),
    ));
    events.push((102_000, mv(2, Color::White, "C3")));
    events.push((
        103_000,
        Event::GameOver(GameEnd::uncounted("W+R", EndReason::Resignation)),
    ));
    let v = fold(&events);
    assert_eq!(v.record().len(), 2);
    assert_eq!(v.result(), Some("W+R"));
    let sgf = v.sgf(true);
    assert!(sgf.contains("RE[W+R]") && !sgf.contains("B+R"), "{sgf}");
    let parsed = tengen_rules::sgf::parse(&sgf).unwrap();
    assert_eq!(parsed.result.as_deref(), Some("W+R"));
    assert_eq!(v.snapshot(at(104_000)).unwrap().to_value()["result"], "W+R");
}

#[test]
fn a_counted_game_reopens_into_counting_and_a_flagged_clock_stays_at_zero() {
    let mut events = clocked();
    for (n, c) in [(1, Color::Black), (2, Color::White)] {
        events.push((
            1_000 * n as u64,
            Event::Pass {
                number: n,
                color: c,
            },
        ));
    }
    events.push((2_000, Event::Counting { dead: vec![] }));
    events.push((
        3_000,
        Event::GameOver(GameEnd {
            result: "W+7.5".into(),
            reason: EndReason::Count,
            black_area: Some(0.0),
            white_area: Some(0.0),
            dame: Some(81),
            margin_stones: Some(3.75),
            margin_points: Some(7.5),
        }),
    ));
    events.push((4_000, reopened("W+7.5", ReopenedPhase::Counting)));
    let v = fold(&events);
    assert_eq!(v.phase(), Phase::Counting);
    assert_eq!(v.result(), None);

    // Black's flag fell and the game was lost on time: reopened, Black's clock reads 0.
    let mut events = clocked();
    events.push((
        61_000,
        Event::GameOver(GameEnd::uncounted("W+T", EndReason::Time)),
    ));
    events.push((70_000, reopened("W+T", ReopenedPhase::Playing)));
    let v = fold(&events);
    assert_eq!(v.phase(), Phase::Playing);
    assert_eq!(v.clock().unwrap().flagged(), Some(Color::Black));
    assert_eq!(left(&v, 80_000).0, 0);
    // The arbiter gives Black a minute: the flag is lifted, still paused until resumed.
    events.push((
        75_000,
        reading(None, 60_000, 60_000, Some(Color::Black), true),
    ));
    let v = fold(&events);
    assert_eq!(v.clock().unwrap().flagged(), None);
    assert_eq!(left(&v, 80_000), (60_000, 60_000, Some(Color::Black), true));
}

#[test]
fn a_withdrawn_warning_lowers_the_count_in_the_state_and_the_record() {
    let mut events = clocked();
    for (count, ms) in [(1, 1_000), (2, 2_000)] {
        events.push((
            ms,
            Event::Warning {
                color: Color::Black,
                article: "17.3".into(),
                count,
            },
        ));
    }
    events.push((
        2_000,
        Event::GameOver(GameEnd::uncounted("W+F", EndReason::Warnings)),
    ));
    events.push((3_000, reopened("W+F", ReopenedPhase::Playing)));
    events.push((
        4_000,
        Event::WarningWithdrawn {
            color: Color::Black,
            count: 1,
            reason: None,
        },
    ));
    let v = fold(&events);
    assert_eq!(v.warnings(), PerColor::new(1, 0));
    assert_eq!(
        v.snapshot(at(5_000)).unwrap().to_value()["warnings"],
        json!({"B": 1, "W": 0})
    );
    let sgf = v.sgf(false);
    assert!(
        sgf.contains("Black 1, White 0") && !sgf.contains("RE["),
        "{sgf}"
    );
}

#[test]
fn names_and_places_holding_sgf_brackets_and_backslashes_read_back_unchanged() {
    let mut s = match setup(9, 0, "none") {
        Event::GameStarted(s) => s,
        _ => unreachable!(),
    };
    s.black = r"Lee ]Sedol\".into();
    s.white = r"C:\go\[W]".into();
    s.place = Some(r"Salle ]B[ \ 2".into());
    s.event = Some(r"Open \]".into());
    let v = fold(&[(1, Event::GameStarted(s)), (2, mv(1, Color::Black, "E5"))]);
    let text = v.sgf(false);
    assert!(text.contains(r"PC[Salle \]B[ \\ 2]"), "{text}");
    let back = tengen_rules::sgf::parse(&text).unwrap();
    assert_eq!(back.black_name.as_deref(), Some(r"Lee ]Sedol\"));
    assert_eq!(back.white_name.as_deref(), Some(r"C:\go\[W]"));
    let root = |id: &str| {
        back.extra_root
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(root("PC"), Some(r"Salle ]B[ \ 2"));
    assert_eq!(root("EV"), Some(r"Open \]"));
    assert_eq!(back.moves.len(), 1);
}

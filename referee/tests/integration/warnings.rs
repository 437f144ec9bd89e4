//! The arbiter's record (issue 31): a violation put right before an arbiter reached the
//! table keeps its warning pending until one decides; `give_warning` for the arbiter's own
//! finding; `void_game` for a game started by mistake; a game the arbiter ends closes the
//! alerts about the board that no one needs to decide; a round's penalty mode through
//! `new_game`; refusals with a code a console can translate. Through the real pipeline on
//! virtual time, and `Referee::replay` of the events gives the same game.

use serde_json::json;
use tengen_protocol::event::{AlertCode, ClearedHow, EndReason, Penalties};
use tengen_protocol::view::Phase;
use tengen_protocol::{Event, Timestamp};
use tengen_rules::Color;

use crate::reopen::{p, Table};

/// Black A1, White A2, Black E5, then White B1 pressed with A1 still on the board:
/// `uncaptured_stones` against White (Art. 18.2, 22.6). Returns the alert's id.
fn uncaptured(t: &mut Table) -> String {
    t.play(Color::Black, "A1");
    t.play(Color::White, "A2");
    t.play(Color::Black, "E5");
    t.place(Color::White, "B1");
    t.press(Color::White);
    t.play(Color::Black, "E6");
    let alert = t
        .view()
        .open_alerts()
        .find(|a| a.code == AlertCode::UncapturedStones)
        .cloned()
        .expect("uncaptured_stones");
    assert_eq!(
        (alert.color, alert.points.clone()),
        (Some(Color::White), vec![p("A1")])
    );
    alert.id
}

fn warnings(t: &Table) -> (u32, u32) {
    let w = t.view().warnings();
    (w.black, w.white)
}

#[test]
fn a_violation_put_right_keeps_its_warning_pending_until_an_arbiter_decides() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    let id = uncaptured(&mut t);
    let mark = t.events.len();
    // White lifts the captured stone: the board is right again, within the stable time.
    t.lift("A1");
    let cleared: Vec<Event> = t
        .since(mark)
        .into_iter()
        .filter(|e| matches!(e, Event::AlertCleared { .. }))
        .collect();
    assert_eq!(
        cleared,
        [Event::AlertCleared {
            id: id.clone(),
            how: ClearedHow::Restored,
            warning_pending: true
        }]
    );
    // Still open for the arbiters, marked restored, covering nothing: play goes on.
    assert_eq!(t.view().open_alerts().count(), 1);
    assert_eq!(t.view().pending_warnings().count(), 1);
    let active: serde_json::Value = serde_json::from_str(&t.view().active_alerts_json()).unwrap();
    assert!(active[0]["restored"].is_string(), "{active}");
    t.play(Color::White, "D4");
    assert_eq!(t.moves().last().map(String::as_str), Some("W D4"));
    assert_eq!(warnings(&t), (0, 0), "no warning until an arbiter gives it");
    t.replayed();

    // Minutes later the arbiter confirms it: the warning stands (Art. 18.2).
    let out = t.done(json!({"type": "confirm", "alert": id}));
    assert_eq!(
        out,
        [
            Event::Warning {
                color: Color::White,
                article: "18.2".into(),
                count: 1
            },
            Event::cleared(id.clone(), ClearedHow::Confirmed),
        ]
    );
    assert_eq!(warnings(&t), (0, 1));
    assert_eq!(t.view().open_alerts().count(), 0);
    assert_eq!(t.view().active_alerts_json(), "[]");
    t.replayed();
    assert_eq!(
        t.command(json!({"type": "confirm", "alert": id}))
            .unwrap_err()
            .reason()
            .code,
        "no_such_alert"
    );
}

#[test]
fn a_pending_warning_dismissed_gives_none_and_automatic_penalties_leave_none_pending() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    let id = uncaptured(&mut t);
    t.lift("A1");
    t.done(json!({"type": "dismiss", "alert": id}));
    assert_eq!(warnings(&t), (0, 0));
    assert_eq!(t.view().open_alerts().count(), 0);
    t.replayed();

    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Auto);
    uncaptured(&mut t);
    assert_eq!(warnings(&t), (0, 1), "given at once");
    t.lift("A1");
    assert_eq!(t.view().open_alerts().count(), 0, "nothing left to decide");
    assert!(!t.since(0).iter().any(|e| matches!(
        e,
        Event::AlertCleared {
            warning_pending: true,
            ..
        }
    )));
}

#[test]
fn a_round_sent_with_automatic_penalties_gives_them_on_a_board_set_to_arbiter() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    let out = t.done(json!({"type": "new_game", "game": "r1-t1", "size": 9, "penalties": "auto"}));
    let Some(Event::GameStarted(setup)) = out.first() else {
        panic!("{out:?}")
    };
    assert_eq!(setup.penalties, Some(Penalties::Auto));
    t.done(json!({"type": "resume"}));
    uncaptured(&mut t);
    assert_eq!(warnings(&t), (0, 1), "the round's setting, not the board's");
    t.replayed();
    // The next game without a setting is the board's again.
    let out = t.done(json!({"type": "new_game", "game": "r2-t1"}));
    let Some(Event::GameStarted(setup)) = out.first() else {
        panic!("{out:?}")
    };
    assert_eq!(setup.penalties, None);
}

#[test]
fn the_arbiters_own_warning_counts_toward_article_24_and_can_be_withdrawn() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    t.play(Color::Black, "C3");
    let out = t.done(
        json!({"type": "give_warning", "color": "B", "article": "17.3",
        "reason": "took back a stone after letting go of it"}),
    );
    assert_eq!(
        out,
        [Event::WarningGiven {
            color: Color::Black,
            article: "17.3".into(),
            reason: Some("took back a stone after letting go of it".into()),
            count: 1
        }]
    );
    assert_eq!(warnings(&t), (1, 0));
    t.replayed();
    let out = t.done(json!({"type": "give_warning", "color": "B", "article": "17.4"}));
    assert!(matches!(
        out.last(),
        Some(Event::GameOver(end)) if end.result == "W+F" && end.reason == EndReason::Warnings
    ));
    assert_eq!(
        t.refusal(json!({"type": "give_warning", "color": "W", "article": "17.4"})),
        "the game is over: reopen it first, then give the warning"
    );
    // A mistake: reopened, one warning withdrawn, play on.
    t.done(json!({"type": "reopen", "reason": "the second warning was the wrong side"}));
    t.done(json!({"type": "withdraw_warning", "color": "B"}));
    assert_eq!(warnings(&t), (1, 0));
    assert_eq!(t.view().phase(), Phase::Playing);
    t.replayed();
}

#[test]
fn a_void_game_is_over_with_no_result_its_alerts_closed_and_the_board_free() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    uncaptured(&mut t);
    let out = t.done(json!({"type": "void_game", "reason": "wrong players at table 4"}));
    assert!(matches!(
        &out[0],
        Event::AlertCleared {
            how: ClearedHow::Dismissed,
            ..
        }
    ));
    assert_eq!(
        out.last(),
        Some(&Event::GameVoided {
            reason: Some("wrong players at table 4".into())
        })
    );
    let v = t.view();
    assert_eq!(
        (v.phase(), v.result(), v.voided()),
        (Phase::Over, None, true)
    );
    assert_eq!(v.open_alerts().count(), 0);
    let at = Timestamp::from_millis(0);
    assert!(
        v.public_snapshot(at).is_none(),
        "no public view of a void game"
    );
    assert_eq!(v.snapshot(at).map(|s| s.voided), Some(true));
    t.replayed();
    let refused = t.command(json!({"type": "void_game"})).unwrap_err();
    assert_eq!(refused.reason().code, "already_void");
    // Stones moved on a void game's board are nothing; the board takes the next game.
    t.lift("E5");
    assert_eq!(t.view().open_alerts().count(), 0);
    t.done(json!({"type": "new_game", "game": "r1-t4"}));
    assert!(!t.view().voided());
    assert_eq!(t.view().phase(), Phase::Playing);
}

#[test]
fn a_result_set_by_the_arbiter_closes_the_board_alerts_no_one_needs_to_decide() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    t.play(Color::Black, "C3");
    t.play(Color::White, "G7");
    t.done(json!({"type": "resign", "color": "B"}));
    t.lift("C3");
    // A correction: reopened (the board now differs: an alert), then the right result.
    let out = t.done(json!({"type": "reopen", "reason": "wrong result"}));
    let alert = out
        .iter()
        .find_map(|e| match e {
            Event::Alert(a) => Some(a.clone()),
            _ => None,
        })
        .expect("the board differs");
    assert_eq!(alert.code, AlertCode::Mismatch);
    let out = t.done(json!({"type": "set_result", "result": "W+3.5"}));
    assert_eq!(out[0], Event::cleared(alert.id, ClearedHow::Dismissed));
    assert!(matches!(out.last(), Some(Event::GameOver(e)) if e.result == "W+3.5"));
    assert_eq!(
        t.view().open_alerts().count(),
        0,
        "nothing rings on a finished game"
    );
    t.replayed();
}

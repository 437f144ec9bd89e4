//! Events for the unit tests: envelopes of board `b1`, game `g1`.

use tengen_protocol::event::GameSetup;
use tengen_protocol::{Envelope, Event, Timestamp};
use tengen_rules::clock::TimeControl;
use tengen_rules::{Color, Point};

/// When every test event happened: 2026-11-29T13:45:00Z.
pub(crate) const T0: Timestamp = Timestamp::from_millis(1_795_959_900_000);

/// Event `seq` of board `b1` in game `g1`, at [`T0`].
pub(crate) fn env(seq: u64, event: Event) -> Envelope {
    Envelope {
        seq,
        time: T0,
        board: "b1".into(),
        game: "g1".into(),
        by: None,
        event,
    }
}

/// A GTP point (`E5`).
pub(crate) fn gtp(text: &str) -> Point {
    tengen_protocol::gtp::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `game_started` of Shusaku (Black) and Gennan (White), round 3, table 7.
pub(crate) fn game_started(size: u8, handicap: u8, time_control: &str) -> Event {
    Event::GameStarted(GameSetup {
        size,
        handicap,
        time_control: TimeControl::parse(time_control)
            .unwrap_or_else(|e| panic!("{time_control}: {e}")),
        black: "Shusaku".into(),
        white: "Gennan".into(),
        round: "3".into(),
        table: "7".into(),
        ..GameSetup::default()
    })
}

/// Move `number` at `point`, Black on odd numbers, without captures or clock.
pub(crate) fn mv(number: u32, point: &str) -> Event {
    Event::Move {
        number,
        color: if number % 2 == 1 {
            Color::Black
        } else {
            Color::White
        },
        point: gtp(point),
        captured: vec![],
        clock: None,
    }
}

/// A board's whole `state` snapshot (game `g1`, [`game_started`] of a 19x19 game without
/// clocks, no move yet) with the fields of `patch` written over it: what a board retains on
/// `.../state`.
pub(crate) fn whole_state(patch: serde_json::Value) -> serde_json::Value {
    let mut view = tengen_protocol::GameView::new();
    if let Err(e) = view.apply_envelope(&env(1, game_started(19, 0, "none"))) {
        panic!("game_started folds: {e}");
    }
    let Some(mut state) = view.snapshot(T0).map(|s| s.to_value()) else {
        panic!("a snapshot after game_started");
    };
    if let (Some(o), serde_json::Value::Object(p)) = (state.as_object_mut(), patch) {
        o.extend(p);
    }
    state
}

/// An open `stone_moved` alert `id` of board `b1` at D4, as `alerts/active` carries it.
pub(crate) fn active_alert_json(id: &str) -> serde_json::Value {
    serde_json::json!({"seq": 5, "time": "2026-11-29T13:45:00.000Z", "board": "b1",
        "game": "g1", "type": "alert", "id": id, "code": "stone_moved", "article": "17.5",
        "color": "B", "points": ["D4"], "expected": {"D4": "B"}, "message": "a stone moved"})
}

/// [`active_alert_json`], read.
pub(crate) fn active_alert(id: &str) -> tengen_protocol::active_alerts::ActiveAlert {
    let payload = serde_json::json!([active_alert_json(id)]).to_string();
    match tengen_protocol::active_alerts::ActiveAlert::parse_all(payload.as_bytes()) {
        Ok(mut alerts) if alerts.len() == 1 => alerts.remove(0),
        other => panic!("an alert: {other:?}"),
    }
}

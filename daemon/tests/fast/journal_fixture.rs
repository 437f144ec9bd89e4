//! A journal written by commit 22e2cec (before the event model moved to tengen-protocol;
//! `tests/fixtures/journal-22e2cec/`, see its README) is read by today's code: every record
//! opens, reads back byte for byte (what MQTT republishes), parses as a typed event that
//! writes back the same bytes, and folds into the same game as that code showed: position,
//! record, warnings, result, open alerts.

use std::path::PathBuf;

use serde_json::Value;
use tengen_daemon::journal::Journal;
use tengen_protocol::{Envelope, GameView};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/journal-22e2cec")
        .join(name)
}

/// The fixture's journal, opened from a copy (opening may write).
fn journal() -> (tempfile::TempDir, Journal) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("events.journal"), dir.path().join("events.journal")).unwrap();
    let (journal, recovery) = Journal::open(dir.path(), "fx-01").unwrap();
    assert_eq!(recovery.records, 89);
    assert_eq!(recovery.truncated_at, None);
    (dir, journal)
}

#[test]
fn every_record_reads_back_byte_for_byte_and_through_the_typed_model() {
    let (_dir, journal) = journal();
    let lines: Vec<String> = std::fs::read_to_string(fixture("events.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let raw = journal.reader().read_raw_from(1).unwrap();
    assert_eq!(raw.len(), lines.len());
    for ((seq, bytes), line) in raw.iter().zip(&lines) {
        assert_eq!(String::from_utf8_lossy(bytes), *line, "seq {seq}");
        let typed: Envelope = serde_json::from_slice(bytes).unwrap();
        assert_eq!(typed.to_json(), *line, "seq {seq} written back");
    }
    // What the board published then is what it republishes now.
    let published = std::fs::read_to_string(fixture("published.jsonl")).unwrap();
    assert_eq!(published.lines().collect::<Vec<_>>(), lines);
}

/// The fold of the journal's current game up to `until` (a seq).
fn fold_until(journal: &Journal, until: u64) -> (GameView, tengen_protocol::Timestamp) {
    let mut view = GameView::new();
    let mut end = None;
    for env in journal.current_game().unwrap() {
        if env.seq > until {
            break;
        }
        view.apply_envelope(&env)
            .unwrap_or_else(|e| panic!("seq {}: {e}", env.seq));
        end = Some(env.time);
    }
    (view, end.expect("events"))
}

fn json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

#[test]
fn the_current_game_folds_into_what_that_code_showed() {
    let (_dir, journal) = journal();
    // At the end (the finished game, after the restart that followed it): the same
    // state, field for field, clocks included, and the same open alerts.
    let (view, end) = fold_until(&journal, 89);
    let mut ours = view.snapshot(end).unwrap().to_value();
    // A field added since (issue 32): why the game ended, here the count. The rest is
    // that code's, field for field.
    let added = ours.as_object_mut().and_then(|o| o.remove("end_reason"));
    assert_eq!(added, Some(Value::from("count")));
    assert_eq!(ours, json("state.json"));
    let active: Value = serde_json::from_str(&view.active_alerts_json()).unwrap();
    assert_eq!(active, json("alerts_active.json"));
    // In the middle (counting, seq 83): the same too, but for the running clock, which
    // that snapshot read a few scans after the event (the moment is not in the journal).
    let (view, end) = fold_until(&journal, 83);
    let mut ours = view.snapshot(end).unwrap().to_value();
    let mut theirs = json("state-midgame.json");
    let (a, b) = (ours["clocks"].take(), theirs["clocks"].take());
    assert_eq!(ours, theirs);
    for k in ["periods", "running", "paused", "W"] {
        assert_eq!(a[k], b[k], "clocks.{k}");
    }
    let drift = a["B"].as_i64().unwrap() - b["B"].as_i64().unwrap();
    assert!((0..=100).contains(&drift), "B {a} vs {b}");
    let active: Value = serde_json::from_str(&view.active_alerts_json()).unwrap();
    assert_eq!(active, json("alerts_active-midgame.json"));
}

#[test]
fn the_record_is_that_codes_with_the_times_the_moves_announced() {
    let (_dir, journal) = journal();
    let (view, _) = fold_until(&journal, 89);
    // The SGF that code wrote after its last restart gave each move the time left of its
    // rebuilt clock, tens of ms off what the move's own event had said (the fixture's
    // README); the fold gives each stone what its event said. Everything else is the same.
    let ours = tengen_rules::sgf::parse(&view.sgf(true)).unwrap();
    let theirs =
        tengen_rules::sgf::parse(&std::fs::read_to_string(fixture("game.sgf")).unwrap()).unwrap();
    // Since issue 13 the record also names its game (GN) and time system (TM, OT) ...
    let mut named = ours.clone();
    let added: Vec<_> = named
        .extra_root
        .iter()
        .filter(|(k, _)| ["GN", "TM", "OT"].contains(&k.as_str()))
        .cloned()
        .collect();
    assert_eq!(
        added,
        [
            ("GN".to_string(), view.game_id().to_string()),
            ("TM".to_string(), "10".to_string()),
            ("OT".to_string(), "3x10 byo-yomi".to_string()),
        ]
    );
    named
        .extra_root
        .retain(|(k, _)| !["GN", "TM", "OT"].contains(&k.as_str()));
    // ... the day it was set up (DT) and the warnings given (GC), so a result a penalty
    // moved adds up in the record.
    let started = view.started().expect("a game").to_string();
    assert_eq!(named.date.take().as_deref(), Some(&started[..10]));
    assert_eq!(
        named.game_comment.take().as_deref(),
        Some("Warnings (Art. 24, one stone deducted at the count each): Black 1, White 1")
    );
    let without_times = |r: &tengen_rules::sgf::GameRecord| {
        let mut r = r.clone();
        r.moves.iter_mut().for_each(|m| m.time_left_ms = None);
        r
    };
    assert_eq!(without_times(&named), without_times(&theirs));
    let announced: Vec<u64> = journal
        .current_game()
        .unwrap()
        .iter()
        .filter_map(|e| match &e.event {
            tengen_protocol::Event::Move {
                color,
                clock: Some(c),
                ..
            } => Some(c.get(*color)),
            _ => None,
        })
        .collect();
    let stones: Vec<u64> = ours
        .moves
        .iter()
        .filter(|m| m.mv != tengen_rules::Move::Pass)
        .filter_map(|m| m.time_left_ms)
        .collect();
    assert_eq!(stones, announced);
}

#[test]
fn the_referee_rebuilds_the_same_game_and_a_restart_after_the_end_says_only_so() {
    let (_dir, journal) = journal();
    let past: Vec<_> = journal
        .current_game()
        .unwrap()
        .into_iter()
        .map(|e| (e.time, e.event))
        .collect();
    let config =
        tengen_daemon::config::Config::load(fixture("board.toml")).expect("the fixture's config");
    let (mut referee, skipped) =
        tengen_referee::Referee::replay(config.referee_settings(), &past).unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    let (view, end) = fold_until(&journal, 89);
    // (The referee folds bare events: the envelope's seq and ids are the outputs' to add.)
    let mut rebuilt = referee.view().snapshot(end).unwrap();
    let shown = view.snapshot(end).unwrap();
    rebuilt.seq = shown.seq;
    rebuilt.board_id.clone_from(&shown.board_id);
    rebuilt.game_id.clone_from(&shown.game_id);
    assert_eq!(rebuilt, shown);
    // The same record, but for the game id, which only envelopes carry.
    assert_eq!(
        referee.view().sgf(true),
        view.sgf(true)
            .replace(&format!("\nGN[{}]", view.game_id()), "")
    );
    let later = end.plus(60_000);
    let out = referee.restart(end, later.millis(), "test");
    assert_eq!(out.len(), 1, "a finished game: only `restoring`: {out:?}");
}

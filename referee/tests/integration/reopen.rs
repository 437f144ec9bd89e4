//! Everything decisive can be undone (issues 20 and 21): a finished game is reopened into
//! the phase it ended from, with its clocks paused and no result; a warning given by
//! mistake is withdrawn; the next `game_over` replaces the result everywhere. Through the
//! real pipeline (stabiliser and referee) on virtual time, a scan every 10 ms, with the
//! arbiter's commands at exact instants; and `Referee::replay` of the events gives the same
//! game, before and after a restart.

use serde_json::{json, Value};
use tengen_hal::{Button, ButtonAction, ButtonEvent, Frame, FrameData, Millis, PointState};
use tengen_protocol::command::MAX_CLOCK_MS;
use tengen_protocol::event::{AlertCode, ClearedHow, EndReason, GameSetup, ReopenedPhase};
use tengen_protocol::view::Phase;
use tengen_protocol::{Command, CommandEnvelope, Event, GameView, Timestamp};
use tengen_referee::{CommandRefused, Penalties, Pipeline, Referee, RefereeSettings};
use tengen_rules::clock::TimeControl;
use tengen_rules::{Color, Point};

/// A 9x9 board on the real pipeline, its stones set and lifted by hand.
pub(crate) struct Table {
    settings: RefereeSettings,
    pipeline: Pipeline,
    stones: Vec<PointState>,
    now: Millis,
    pub(crate) events: Vec<(Millis, Event)>,
}

pub(crate) fn p(gtp: &str) -> Point {
    tengen_protocol::gtp::parse(gtp).unwrap()
}

impl Table {
    pub(crate) fn new(time: &str, penalties: Penalties) -> Table {
        let settings = RefereeSettings {
            game: GameSetup {
                size: 9,
                time_control: TimeControl::parse(time).unwrap(),
                black: "Shusaku".into(),
                white: "Gennan".into(),
                ..GameSetup::default()
            },
            penalties,
            ..RefereeSettings::default()
        };
        let (pipeline, first) = Pipeline::new(settings.clone(), None, 0).unwrap();
        Table {
            settings,
            pipeline,
            stones: vec![PointState::Empty; 81],
            now: 0,
            events: first.into_iter().map(|e| (0, e)).collect(),
        }
    }

    fn scan(&mut self, buttons: Vec<ButtonEvent>) {
        let frame = Frame {
            time: self.now,
            data: FrameData::Classified(self.stones.clone()),
        };
        let out = self.pipeline.step(&frame, &buttons).unwrap();
        self.events.extend(out.into_iter().map(|e| (self.now, e)));
        self.now += 10;
    }

    pub(crate) fn wait(&mut self, ms: Millis) {
        let until = self.now + ms;
        while self.now < until {
            self.scan(Vec::new());
        }
    }

    pub(crate) fn set(&mut self, point: &str, state: PointState) {
        self.stones[p(point).index(9)] = state;
        self.wait(500);
    }

    pub(crate) fn place(&mut self, color: Color, point: &str) {
        let state = match color {
            Color::Black => PointState::Black,
            Color::White => PointState::White,
        };
        self.set(point, state);
    }

    pub(crate) fn lift(&mut self, point: &str) {
        self.set(point, PointState::Empty);
    }

    pub(crate) fn press(&mut self, color: Color) {
        let button = match color {
            Color::Black => Button::Black,
            Color::White => Button::White,
        };
        self.scan(vec![ButtonEvent {
            time: self.now,
            button,
            action: ButtonAction::Press,
        }]);
        self.wait(300);
    }

    /// A stone set down and its clock pressed.
    pub(crate) fn play(&mut self, color: Color, point: &str) {
        self.place(color, point);
        self.press(color);
    }

    /// The arbiter's command now; its events are kept with the others.
    pub(crate) fn command(&mut self, command: Value) -> Result<Vec<Event>, CommandRefused> {
        let envelope = CommandEnvelope {
            id: "c".into(),
            by: Some("chief".into()),
            command: serde_json::from_value::<Command>(command).unwrap(),
        };
        let out = self.pipeline.command(&envelope, self.now)?;
        self.events
            .extend(out.iter().cloned().map(|e| (self.now, e)));
        self.wait(100);
        Ok(out)
    }

    pub(crate) fn done(&mut self, command: Value) -> Vec<Event> {
        let what = command.to_string();
        self.command(command)
            .unwrap_or_else(|e| panic!("{what} refused: {e}"))
    }

    pub(crate) fn refusal(&mut self, command: Value) -> String {
        match self.command(command) {
            Ok(out) => panic!("taken: {out:?}"),
            Err(e) => e.to_string(),
        }
    }

    pub(crate) fn view(&self) -> &GameView {
        self.pipeline.referee().view()
    }

    /// The open `time_expired` alert, if a flag fell.
    fn flag(&self) -> Option<tengen_protocol::event::Alert> {
        self.view()
            .open_alerts()
            .find(|a| a.code == AlertCode::TimeExpired)
            .cloned()
    }

    pub(crate) fn state(&self) -> Value {
        self.view()
            .snapshot(Timestamp::from_millis(self.now))
            .unwrap()
            .to_value()
    }

    pub(crate) fn moves(&self) -> Vec<String> {
        self.view()
            .record()
            .iter()
            .map(|n| format!("{} {}", n.color, n.mv.to_gtp()))
            .collect()
    }

    /// The events from index `from` on.
    pub(crate) fn since(&self, from: usize) -> Vec<Event> {
        self.events[from..].iter().map(|(_, e)| e.clone()).collect()
    }

    /// The referee rebuilt from these events (a restart) holds the same game: the same
    /// `state`, SGF and `alerts/active`.
    pub(crate) fn replayed(&self) -> Referee {
        let past: Vec<(Timestamp, Event)> = self
            .events
            .iter()
            .map(|(t, e)| (Timestamp::from_millis(*t), e.clone()))
            .collect();
        let (r, skipped) = Referee::replay(self.settings.clone(), &past).unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        let at = Timestamp::from_millis(self.now);
        let (live, again) = (self.view(), r.view());
        assert_eq!(again.snapshot(at), live.snapshot(at));
        assert_eq!(again.sgf(true), live.sgf(true));
        assert_eq!(again.active_alerts_json(), live.active_alerts_json());
        r
    }
}

fn reopened(events: &[Event]) -> (String, Option<String>, ReopenedPhase) {
    events
        .iter()
        .find_map(|e| match e {
            Event::GameReopened {
                previous_result,
                reason,
                phase,
            } => Some((previous_result.clone(), reason.clone(), *phase)),
            _ => None,
        })
        .expect("a game_reopened")
}

fn result_in_sgf(view: &GameView) -> Option<String> {
    tengen_rules::sgf::parse(&view.sgf(true)).unwrap().result
}

#[test]
fn reopened_after_a_resignation_the_board_is_read_again_and_play_goes_on() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    t.play(Color::Black, "C3");
    t.play(Color::White, "G7");
    t.done(json!({"type": "resign", "color": "B"}));
    assert_eq!(t.view().result(), Some("W+R"));
    // The players clear two stones and drop one, as after a game.
    t.lift("C3");
    t.lift("G7");
    t.place(Color::White, "E5");
    assert_eq!(t.moves(), ["B C3", "W G7"], "nothing is read after the end");

    let mark = t.events.len();
    let out = t.done(json!({"type": "reopen", "reason": "Black resigned by mistake"}));
    assert_eq!(
        reopened(&out),
        (
            "W+R".into(),
            Some("Black resigned by mistake".into()),
            ReopenedPhase::Playing
        )
    );
    let clock = out
        .iter()
        .find_map(|e| match e {
            Event::Clock(c) => Some(*c),
            _ => None,
        })
        .expect("the clocks as they stand");
    assert_eq!(clock.paused, Some(true));
    assert_eq!(clock.running, Some(Color::Black));
    // The board is read again: what differs is one alert showing what it must look like.
    let alert = out
        .iter()
        .find_map(|e| match e {
            Event::Alert(a) => Some(a.clone()),
            _ => None,
        })
        .expect("the board differs from the record");
    assert_eq!(alert.code, AlertCode::Mismatch);
    assert_eq!(alert.points, [p("C3"), p("E5"), p("G7")]);
    assert_eq!(
        serde_json::to_value(&alert.expected).unwrap(),
        json!({"C3": "B", "E5": "empty", "G7": "W"})
    );
    assert!(alert.message.contains("reopened"), "{}", alert.message);
    let state = t.state();
    assert_eq!(
        (
            &state["phase"],
            &state["result"],
            &state["clocks"]["paused"]
        ),
        (&json!("playing"), &Value::Null, &json!(true))
    );
    assert!(!t.view().sgf(true).contains("RE["));
    assert_eq!(
        t.refusal(json!({"type": "reopen"})),
        "the game is not over: only a finished game can be reopened"
    );

    // Put right, no move invented; the arbiter resumes, play goes on.
    t.place(Color::Black, "C3");
    t.place(Color::White, "G7");
    t.lift("E5");
    assert!(t.since(mark).iter().any(|e| matches!(
        e,
        Event::AlertCleared { id, how: ClearedHow::Restored, .. } if *id == alert.id
    )));
    assert_eq!(t.moves(), ["B C3", "W G7"]);
    assert!(!t
        .since(mark)
        .iter()
        .any(|e| matches!(e, Event::Move { .. } | Event::Pass { .. })));
    t.done(json!({"type": "resume"}));
    t.play(Color::Black, "E5");
    t.play(Color::White, "D6");
    assert_eq!(t.moves(), ["B C3", "W G7", "B E5", "W D6"]);
    t.replayed();

    t.done(json!({"type": "resign", "color": "W"}));
    assert_eq!(t.view().result(), Some("B+R"));
    assert_eq!(result_in_sgf(t.view()).as_deref(), Some("B+R"));
    assert_eq!(t.state()["result"], "B+R");
    assert_eq!(t.view().active_alerts_json(), "[]");
    t.replayed();
}

#[test]
fn reopened_after_a_count_the_players_lift_and_confirm_again() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    t.play(Color::Black, "C3");
    t.play(Color::White, "G7");
    t.press(Color::Black);
    t.press(Color::White);
    assert_eq!(t.view().phase(), Phase::Counting);
    t.press(Color::Black);
    t.press(Color::White);
    assert_eq!(t.view().result(), Some("W+7.5"), "both alive, komi");

    let out = t.done(json!({"type": "reopen"}));
    assert_eq!(
        reopened(&out),
        ("W+7.5".into(), None, ReopenedPhase::Counting)
    );
    assert!(
        !out.iter().any(|e| matches!(e, Event::Alert(_))),
        "counting reads no alert: {out:?}"
    );
    assert_eq!(t.view().phase(), Phase::Counting);
    assert_eq!(t.state()["phase"], "counting");
    // White's stone was dead after all: lifted, both confirm again, counted again.
    t.lift("G7");
    t.press(Color::Black);
    assert_eq!(
        t.view().phase(),
        Phase::Counting,
        "one confirmation is not both"
    );
    t.press(Color::White);
    assert_eq!(t.view().phase(), Phase::Over);
    assert_eq!(t.view().result(), Some("B+73.5"));
    assert_eq!(result_in_sgf(t.view()).as_deref(), Some("B+73.5"));
    t.replayed();

    // Reopened again, the arbiter sets the result instead; its reason must fit it.
    t.done(json!({"type": "reopen"}));
    assert_eq!(
        t.refusal(json!({"type": "set_result", "result": "B+R", "reason": "count"})),
        "reason \"count\" needs a result such as B+1.5, W+0.5 or 0 (a draw), not \"B+R\""
    );
    t.done(json!({"type": "set_result", "result": "B+71.5", "reason": "count"}));
    assert_eq!(result_in_sgf(t.view()).as_deref(), Some("B+71.5"));
    t.replayed();
}

#[test]
fn a_game_lost_on_time_is_reopened_adjusted_resumed_and_played_on_across_a_restart() {
    let mut t = Table::new("absolute 5s", Penalties::Arbiter);
    t.play(Color::Black, "C3");
    t.wait(6_000);
    let flag = t.flag().expect("White's flag");
    assert_eq!(flag.color, Some(Color::White));
    assert_eq!(
        t.refusal(json!({"type": "set_result", "result": "B+1.5", "reason": "time"})),
        "reason \"time\" needs a result such as B+T or W+T, not \"B+1.5\""
    );
    let out = t.done(json!({"type": "set_result", "result": "B+T", "reason": "time"}));
    assert!(out.iter().any(|e| matches!(
        e,
        Event::AlertCleared { id, how: ClearedHow::Confirmed, .. } if *id == flag.id
    )));
    assert!(out.iter().any(
        |e| matches!(e, Event::GameOver(end) if end.result == "B+T" && end.reason == EndReason::Time)
    ));

    t.done(json!({"type": "reopen", "reason": "White's clock was set wrong"}));
    let state = t.state();
    assert_eq!(state["clocks"]["W"], 0, "the flagged side reads 0: {state}");
    assert_eq!(state["clocks"]["paused"], true);
    assert_eq!(
        t.refusal(json!({"type": "resume"})),
        "White's clock reads 0 (the flag fell): set it with adjust_time first, then resume"
    );
    // The most a clock shows (99:59:59; `adjust_time` refuses more).
    t.done(json!({"type": "adjust_time", "color": "W", "ms": MAX_CLOCK_MS}));
    let state = t.state();
    assert_eq!(
        (&state["clocks"]["W"], &state["clocks"]["paused"]),
        (&json!(MAX_CLOCK_MS), &json!(true))
    );

    // A power cut now: the rebuilt referee holds the same game and takes it up.
    let mut again = t.replayed();
    let back = t.now + 30_000;
    let out = again.restart(Timestamp::from_millis(t.now), back, "test");
    assert!(
        !out.iter()
            .any(|e| matches!(e, Event::Alert(a) if a.code == AlertCode::TimeExpired)),
        "the adjusted clock has no flag: {out:?}"
    );
    let mut pipeline = Pipeline::from_referee(again, None);
    std::mem::swap(&mut t.pipeline, &mut pipeline);
    t.events.extend(out.into_iter().map(|e| (back, e)));
    t.now = back;
    t.wait(1_000);

    let resumed = t.now;
    t.done(json!({"type": "resume"}));
    t.wait(10_000);
    let state = t.state();
    assert_eq!(state["clocks"]["running"], "W");
    assert_eq!(
        state["clocks"]["W"],
        MAX_CLOCK_MS - (t.now - resumed),
        "{state}"
    );
    t.play(Color::White, "G7");
    t.play(Color::Black, "E5");
    assert_eq!(t.moves(), ["B C3", "W G7", "B E5"]);
    assert_eq!(t.view().phase(), Phase::Playing);
    t.replayed();
    // The record written after the largest adjustment reads back (WL[359988.x]).
    let white_left = t.view().record()[1].time_left_ms.unwrap();
    assert!(white_left > MAX_CLOCK_MS - 20_000, "{white_left}");
    let back = tengen_rules::sgf::parse(&t.view().sgf(true)).unwrap();
    assert_eq!(back.moves[1].time_left_ms, Some(white_left));
}

#[test]
fn a_second_warning_confirmed_by_mistake_is_withdrawn_after_a_reopen() {
    let mut t = Table::new("byoyomi 10m 3x30s", Penalties::Arbiter);
    t.play(Color::Black, "C3");
    // Black sets a second stone down: a double move, confirmed (the first warning).
    t.place(Color::Black, "D4");
    let first = t.view().open_alerts().next().cloned().expect("double move");
    assert_eq!(
        (first.code, first.color),
        (AlertCode::DoubleMove, Some(Color::Black))
    );
    t.done(json!({"type": "confirm", "alert": first.id}));
    t.lift("D4");
    t.play(Color::White, "G7");
    t.play(Color::Black, "E5");
    // A stone of Black's appears at F6 (in the issue, one knocked off a bowl) and the
    // arbiter confirms the card by mistake: Black's second warning ends the game.
    t.place(Color::Black, "F6");
    let second = t.view().open_alerts().next().cloned().expect("double move");
    t.done(json!({"type": "confirm", "alert": second.id}));
    assert_eq!(t.view().result(), Some("W+F"));
    assert_eq!(t.state()["warnings"], json!({"B": 2, "W": 0}));

    assert_eq!(
        t.refusal(json!({"type": "withdraw_warning", "color": "B"})),
        "the game is over: reopen it first, then withdraw the warning"
    );
    let out = t.done(json!({"type": "reopen", "reason": "the wrong card was confirmed"}));
    assert_eq!(reopened(&out).0, "W+F");
    assert_eq!(
        t.refusal(json!({"type": "withdraw_warning", "color": "W"})),
        "White has no warning to withdraw"
    );
    let out =
        t.done(json!({"type": "withdraw_warning", "color": "B", "reason": "F6 was White's doing"}));
    assert_eq!(
        out,
        [Event::WarningWithdrawn {
            color: Color::Black,
            count: 1,
            reason: Some("F6 was White's doing".into())
        }]
    );
    assert_eq!(t.state()["warnings"], json!({"B": 1, "W": 0}));
    assert!(t.view().sgf(true).contains("Black 1, White 0"));

    // F6 is taken off, the arbiter resumes, White plays on.
    t.lift("F6");
    t.done(json!({"type": "resume"}));
    t.play(Color::White, "H8");
    assert_eq!(t.moves(), ["B C3", "W G7", "B E5", "W H8"]);
    assert_eq!(t.view().phase(), Phase::Playing);
    t.replayed();
}

/// A time-out names the article that rules on it under the game's time control, and a
/// forfeited turn instead of the loss (Art. 22.5) is for byo-yomi only: under sudden death
/// (12.4), Fischer (12.4) and Canadian periods (12.5) the time-out loses.
#[test]
fn a_time_out_is_ruled_by_the_article_of_its_time_control() {
    for (tc, article, forfeitable) in [
        ("byoyomi 2s 1x1s", "22.5", true),
        ("absolute 2s", "12.4", false),
        ("fischer 2s +1s", "12.4", false),
        ("canadian 2s 5/1s", "12.5", false),
    ] {
        let mut t = Table::new(tc, Penalties::Arbiter);
        t.play(Color::Black, "C3");
        t.wait(6_000);
        let flag = t.flag().unwrap_or_else(|| panic!("{tc}: White's flag"));
        assert_eq!(flag.article, article, "{tc}");
        let forfeit = json!({"type": "resume_play", "color": "B"});
        if forfeitable {
            t.done(forfeit);
            assert_eq!(t.view().open_alerts().count(), 0, "{tc}");
            assert_eq!(t.view().phase(), Phase::Playing, "{tc}");
        } else {
            assert_eq!(
                t.refusal(forfeit),
                format!(
                    "a forfeited turn is for byo-yomi only (Art. 22.5): under this time \
                     control a time-out loses (Art. {article}); record the result"
                ),
                "{tc}"
            );
            t.done(json!({"type": "set_result", "result": "B+T", "reason": "time"}));
            assert_eq!(t.view().result(), Some("B+T"), "{tc}");
        }
    }
}

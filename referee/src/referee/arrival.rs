//! The players' arrival (Art. 22.1-22.4): check-in before play begins, lateness after, the
//! limit. The rules are the rules core's ([`tengen_rules::clock::Arrivals`]); the fold keeps
//! who is seated ([`GameView::arrivals`]); this is where the referee says it in events.
//!
//! - A game that waits for play to begin with a clock has its players check in: a player's
//!   first press (or first stone) before play begins is `checked_in`, never a clock press.
//! - After play began, a player not seated arrives by their first press or their first
//!   stone: `late_arrival` (how late, what was taken from the base time) and a `clock`
//!   event with the clocks after it. That press does nothing else (not a pass).
//! - A player still away when the lateness reaches the limit, or whose clock runs out while
//!   away: alert `absent` (both away at once: one alert, no colour, Art. 22.3). An arbiter
//!   decides: a win by default (`set_result` `W+F` / `B+F` with reason `absent`), both lose
//!   (`Void`, reason `absent`), or a dismissal.
//!
//! [`GameView::arrivals`]: tengen_protocol::GameView::arrivals

use tengen_protocol::event::{Alert, AlertCode, Expected};
use tengen_protocol::view::Phase;
use tengen_protocol::Event;
use tengen_rules::clock::{Arrival, LatePolicy, LateRule};
use tengen_rules::Color;

use super::Referee;

impl Referee {
    /// A sign of `color` at the board now (a press, a stone): their check-in before play
    /// began, their arrival after. True when it was one (a press then does nothing else).
    pub(super) fn arrive(&mut self, out: &mut Vec<Event>, color: Color) -> bool {
        let Some(arrivals) = self.view.arrivals() else {
            return false;
        };
        if self.phase() == Phase::Over {
            return false;
        }
        match arrivals.arrival(color, self.now, self.view.clock()) {
            Arrival::Present => false,
            Arrival::CheckIn => {
                self.emit(out, Event::CheckedIn { color });
                true
            }
            Arrival::Late {
                late_ms,
                deducted_ms,
            } => {
                self.emit(
                    out,
                    Event::LateArrival {
                        color,
                        late_ms,
                        deducted_ms,
                    },
                );
                // The fold took the time: the clocks as they stand now.
                if let Some(r) = self.reading_after(None, |_, _| {}) {
                    self.emit(out, Event::Clock(r));
                }
                true
            }
        }
    }

    /// The players away whose lateness reached the limit by now: `absent`, one alert for
    /// both when both are.
    pub(super) fn lateness_due(&mut self, out: &mut Vec<Event>) {
        if self.phase() == Phase::Over {
            return;
        }
        let Some(arrivals) = self.view.arrivals() else {
            return;
        };
        let due = arrivals.due(self.now);
        let policy = arrivals.policy();
        let late_ms = due
            .first()
            .and_then(|&c| arrivals.late_ms(c, self.now))
            .unwrap_or(0);
        match due.as_slice() {
            [] => {}
            [one] => self.raise_absent(out, Some(*one), late_ms, policy.article(), false),
            _ => self.raise_absent(out, None, late_ms, LatePolicy::BOTH_ARTICLE, false),
        }
    }

    /// `color`'s flag fell: true when `color` is away (play began without them) under
    /// `late_rule = "byoyomi"`, which is then their loss by absence (Art. 22.4: the
    /// byo-yomi of the absent ran out), raised once, rather than a time-out.
    pub(super) fn flag_while_away(&mut self, out: &mut Vec<Event>, color: Color) -> bool {
        let Some(arrivals) = self.view.arrivals() else {
            return false;
        };
        // Under 22.1/22.2 a flag is a time-out like any other (the clock ran while they
        // were away); only 22.4 makes the absent clock's end a loss by absence.
        if !arrivals.is_absent(color) || arrivals.policy().rule != LateRule::Byoyomi {
            return false;
        }
        if !arrivals.reported(color) {
            let late_ms = arrivals.late_ms(color, self.now).unwrap_or(0);
            let article = arrivals.policy().article();
            self.raise_absent(out, Some(color), late_ms, article, true);
        }
        true
    }

    /// Raises `absent` for `color` (or both: `None`), `late_ms` late, ruled by `article`;
    /// `clock_ran_out`: the player's clock ran out while away.
    fn raise_absent(
        &mut self,
        out: &mut Vec<Event>,
        color: Option<Color>,
        late_ms: u64,
        article: &str,
        clock_ran_out: bool,
    ) {
        let limit = self
            .view
            .arrivals()
            .map_or(0, |a| a.policy().limit_ms / 1_000);
        let limit = tengen_protocol::time::clock_text(limit * 1_000);
        let late = tengen_protocol::time::clock_text(late_ms);
        let message = match color {
            Some(c) if clock_ran_out => format!(
                "{} is not seated and their time ran out ({late} after play began; Art. {article}): {} has lost the game.",
                name(c),
                name(c)
            ),
            Some(c) => format!(
                "{} is not seated {late} after play began, the limit is {limit} (Art. {article}): {} has lost the game.",
                name(c),
                name(c)
            ),
            None => format!(
                "Neither player is seated {late} after play began, the limit is {limit} (Art. {article}): both have lost the game."
            ),
        };
        let alert = Alert {
            id: format!("a{}", self.view.next_alert_number()),
            code: AlertCode::Absent,
            article: article.to_string(),
            color,
            points: Vec::new(),
            expected: Expected::default(),
            message,
            late_ms: Some(late_ms),
        };
        self.emit(out, Event::Alert(alert));
    }
}

/// "Black" or "White".
fn name(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

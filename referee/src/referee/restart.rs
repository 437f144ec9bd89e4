//! A restart during a game (power cut, crash, update): what the board says when it comes
//! back.
//!
//! The board that was off must never charge the downtime to the player to move, nor lose a
//! flag that fell before it went down. So, decided once in the fold
//! ([`tengen_protocol::view`]): a `status` `restoring` (carrying the board's last sign of
//! life, `off_since`) stops the clocks as they stood then. The referee then says so: a
//! flag due by then is `time_expired`, `board_restarted` tells the arbiter how long the
//! board was off and what the clocks read, and a `clock` event shows them paused. The
//! arbiter resumes them (or adjusts them first) from the console.
//!
//! A game still waiting to begin (`clock_start` `arbiter` or `white`) stays waiting: its
//! clocks were stopped all along, so the board says `status` `restoring` and the paused
//! `clock`, and raises no `board_restarted` (the arbiter's `resume` begins play as before).

use tengen_hal::Millis;
use tengen_protocol::event::{AlertCode, BoardState};
use tengen_protocol::time::clock_text;
use tengen_protocol::view::Phase;
use tengen_protocol::{Event, Timestamp};
use tengen_rules::clock::Clock;
use tengen_rules::Color;

use super::{reading, Referee};

impl Referee {
    /// The board is back at `now` after being off since `off_since` (its last sign of
    /// life; at the latest the journal's last event). Returns the events that say so, the
    /// first being `status` `restoring` with `version`.
    pub fn restart(&mut self, off_since: Timestamp, now: Millis, version: &str) -> Vec<Event> {
        self.now = now;
        let mut out = Vec::new();
        let last = self.view.last_time().unwrap_or(off_since);
        let off_since = off_since.max(last).min(Timestamp::from_millis(now));
        self.emit(
            &mut out,
            Event::Status {
                state: BoardState::Restoring,
                version: version.to_string(),
                off_since: Some(off_since),
            },
        );
        if self.view.game().is_none() || self.phase() == Phase::Over {
            return out;
        }
        if let Some(flagged) = self.view.clock().and_then(Clock::flagged) {
            self.flag(&mut out, flagged);
        }
        if self.view.waiting().is_some() {
            // The game has not begun: nothing was charged, nothing to check; it still
            // waits for the arbiter (or the starting press), as the clocks say.
            if let Some(clock) = self.view.clock() {
                let r = reading(clock, None, now);
                self.emit(&mut out, Event::Clock(r));
            }
            return out;
        }
        let off_ms = now.saturating_sub(off_since.millis());
        let message = self.restart_message(off_ms);
        self.raise_with(
            &mut out,
            AlertCode::BoardRestarted,
            None,
            Vec::new(),
            Vec::new(),
            message,
        );
        if let Some(clock) = self.view.clock() {
            let r = reading(clock, None, now);
            self.emit(&mut out, Event::Clock(r));
        }
        out
    }

    /// What the arbiter reads: how long the board was off, and the clocks now.
    fn restart_message(&self, off_ms: u64) -> String {
        let off = if off_ms < 60_000 {
            format!("{:.1} s", off_ms as f64 / 1000.0)
        } else {
            clock_text(off_ms)
        };
        let Some(clock) = self.view.clock() else {
            return format!(
                "The board was off for {off} during the game (no clock runs): check the position on the board."
            );
        };
        let side = |c: Color| {
            let left = clock_text(clock.remaining(c, self.now));
            let name = if c == Color::Black { "Black" } else { "White" };
            if clock.flagged() == Some(c) {
                format!("{name} out of time")
            } else if clock.in_overtime(c) {
                format!("{name} {left} ({} left)", clock.periods_left(c))
            } else {
                format!("{name} {left}")
            }
        };
        let clocks = format!("{}, {}", side(Color::Black), side(Color::White));
        format!(
            "The board was off for {off} during the game; the clocks are paused as they stood when it went down ({clocks}): resume them from the console, or adjust them first."
        )
    }
}

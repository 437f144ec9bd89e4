//! The clocks in the fold: a `clock` event read into the rules [`Clock`].
//!
//! The rules clock runs the time between events; each `clock` event says what happened
//! (told apart by what changed) and what the clocks then read, and the reading wins:
//!
//! - `color` set: that side pressed (a clock paused by a restart in a journal written
//!   before `paused` existed is resumed first: those boards ran on);
//! - `color` null, the flagged side's opponent now running: the flag was ruled a
//!   forfeited turn (Art. 22.5); the flagged side running: its time was adjusted;
//! - `color` null and no clock started yet: the game's clock starts;
//! - `paused` true / false where the clock ran / stood: a pause / a resume (Art. 14);
//! - then every side not flagged is set to the reading's time and periods.

use tengen_rules::clock::Clock;
use tengen_rules::Color;

use crate::event::{ClockReading, PerColor};
use crate::time::Timestamp;

/// Applies a `clock` event at `at` to `clock`.
pub(super) fn apply_reading(clock: &mut Clock, r: &ClockReading, at: Timestamp) {
    let now = at.millis();
    match r.color {
        Some(c) => {
            if clock.is_paused() && r.paused != Some(true) {
                clock.resume(now);
            }
            if clock.is_paused() && clock.running() == Some(c) && r.running == Some(c.opponent()) {
                // A stone completed while the clocks wait for play to begin: the turn
                // passes to the opponent at no cost (a press would be ignored while paused).
                clock.start(c.opponent(), now);
            } else {
                clock.press(c, now);
            }
        }
        None => {
            if let Some(flagged) = clock.flagged() {
                if r.running == Some(flagged.opponent()) {
                    clock.forfeit_turn_after_flag(flagged, now);
                } else if r.running == Some(flagged) {
                    clock.adjust(flagged, r.left(flagged), Some(r.periods.get(flagged)), now);
                }
            } else if clock.running().is_none() {
                if let Some(c) = r.running {
                    clock.start(c, now);
                }
            }
            match r.paused {
                Some(true) if !clock.is_paused() => clock.pause(now),
                Some(false) if clock.is_paused() => clock.resume(now),
                _ => {}
            }
        }
    }
    let left = PerColor::new(r.black, r.white);
    correct(clock, left, Some(r.periods), at);
}

/// Sets every side that has not flagged to `left` (ms in its current phase) and, when
/// given, `periods`, where the clock reads otherwise at `at`.
pub(super) fn correct(
    clock: &mut Clock,
    left: PerColor<u64>,
    periods: Option<PerColor<u32>>,
    at: Timestamp,
) {
    let now = at.millis();
    for c in [Color::Black, Color::White] {
        if clock.flagged() == Some(c) {
            continue;
        }
        let want_periods = periods.map(|p| p.get(c));
        let differs = clock.remaining(c, now) != left.get(c)
            || want_periods.is_some_and(|p| p != clock.periods_left(c));
        if differs {
            clock.adjust(c, left.get(c), want_periods, now);
        }
    }
}

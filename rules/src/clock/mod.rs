//! The game clock as a pure state machine over injected time: every method that lets time
//! pass takes `now` (milliseconds on any monotonic scale the caller likes) and returns or
//! queues the events that fell due up to `now`. Nothing here reads a real clock, so the
//! same calls give the same events, whatever the machine and however often it ticks.
//!
//! Rules followed (docs/rules.md, Art. 12, 14, 22):
//! - byo-yomi: base time, then N periods; a move within a period costs nothing, a period
//!   used up in full is gone ("1 minute used, N left"); the count calls are in [`calls`];
//!   running out of the last period is a flag fall. The boundary belongs to the period's
//!   end: a press at exactly the millisecond the period runs out is too late (Art. 12.3:
//!   "10" said as the stone goes down means the minute is used).
//! - Canadian (Art. 12.5): after base time, `stones` moves per period; when they are
//!   played, the time left in the period is added to the next period (so it keeps
//!   carrying over while it is not used). A period that runs out with stones still to
//!   play is a flag fall. Canadian and the other systems make no count calls.
//! - absolute: a flag fall at exactly 0 ms left; Fischer: the same, plus the increment
//!   added at each press.
//! - a flag stops both clocks until the arbiter acts: [`Clock::forfeit_turn_after_flag`]
//!   (Art. 22.5) or [`Clock::adjust`] (Art. 22.8) restarts them.
//!
//! `now` should never go backwards; an earlier `now` than one already seen is treated as
//! the latest one (no time passes).

pub mod calls;
pub mod lateness;
mod time_control;

pub use calls::{Call, ClockEvent};
pub use lateness::{Arrival, Arrivals, LatePolicy, LateRule, Seat};
pub use time_control::{format_duration, parse_duration, TimeControl};

use calls::{LAST_PERIOD_CALLS, PERIOD_CALLS};
use thiserror::Error;

use crate::Color;

/// Why a time control or a duration could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClockError {
    /// The time control text is not one of the wire contract's forms.
    #[error("time control '{text}': {reason}")]
    TimeControl {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A duration is not a whole number with a unit (`250ms`, `3s`, `2m`, `1h`).
    #[error("'{0}' is not a duration (write e.g. 250ms, 30s, 10m, 1h)")]
    Duration(String),
}

/// One side's time as of the last moment it was charged.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Side {
    /// Base time left.
    main_left: u64,
    /// True once the base time is used up and periods are counting.
    overtime: bool,
    /// Time left in the current period (overtime only).
    period_left: u64,
    /// Byo-yomi: periods left (including the current one). Canadian: stones left to play
    /// in the current period (in base time: in the first period). Otherwise 0.
    periods_left: u32,
    /// All the time this side's clock has run (what it was charged, up to a flag).
    run_ms: u64,
}

impl Side {
    fn new(tc: &TimeControl) -> Side {
        let periods_left = match *tc {
            TimeControl::Byoyomi { periods, .. } => periods,
            TimeControl::Canadian { stones, .. } => stones,
            _ => 0,
        };
        Side {
            main_left: tc.main_ms(),
            overtime: false,
            period_left: 0,
            periods_left,
            run_ms: 0,
        }
    }

    /// Time left in the current phase.
    fn left(&self) -> u64 {
        if self.overtime {
            self.period_left
        } else {
            self.main_left
        }
    }

    /// Lets `dt` ms of this side's thinking time pass, pushing the calls (and the flag)
    /// that fall due, in order. Returns true when the flag fell. Splitting `dt` into any
    /// parts gives the same state and the same events: an event exactly at the end of a
    /// part is emitted with that part.
    fn advance(
        &mut self,
        tc: &TimeControl,
        color: Color,
        dt: u64,
        out: &mut Vec<ClockEvent>,
    ) -> bool {
        if matches!(tc, TimeControl::None) {
            return false;
        }
        let (flag, left) = self.run(tc, color, dt, out);
        self.run_ms = self.run_ms.saturating_add(dt - left);
        flag
    }

    /// [`Side::advance`]'s work: returns whether the flag fell, and the part of `dt` left
    /// over after it (the clock stops at the flag).
    fn run(
        &mut self,
        tc: &TimeControl,
        color: Color,
        mut dt: u64,
        out: &mut Vec<ClockEvent>,
    ) -> (bool, u64) {
        loop {
            if !self.overtime {
                if dt < self.main_left {
                    self.main_left -= dt;
                    return (false, 0);
                }
                dt -= self.main_left;
                self.main_left = 0;
                match *tc {
                    TimeControl::Byoyomi { period_ms, .. } if self.periods_left > 0 => {
                        self.overtime = true;
                        self.period_left = period_ms;
                    }
                    TimeControl::Canadian {
                        stones, period_ms, ..
                    } => {
                        self.overtime = true;
                        self.period_left = period_ms;
                        if self.periods_left == 0 {
                            self.periods_left = stones;
                        }
                    }
                    _ => {
                        out.push(ClockEvent::Flag { color });
                        return (true, dt);
                    }
                }
                continue;
            }
            let byoyomi = matches!(tc, TimeControl::Byoyomi { .. });
            let last = self.periods_left <= 1;
            let calls: &[(u64, Call)] = match (byoyomi, last) {
                (false, _) => &[],
                (true, false) => &PERIOD_CALLS,
                (true, true) => &LAST_PERIOD_CALLS,
            };
            let next = calls.iter().find(|(left, _)| *left < self.period_left);
            let target = next.map_or(0, |(left, _)| *left);
            let to_go = self.period_left - target;
            if dt < to_go {
                self.period_left -= dt;
                return (false, 0);
            }
            dt -= to_go;
            self.period_left = target;
            if let Some(&(_, call)) = next {
                out.push(ClockEvent::Call {
                    color,
                    call,
                    periods_left: self.periods_left,
                });
                continue;
            }
            // The period ran out.
            match *tc {
                TimeControl::Byoyomi { period_ms, .. } if !last => {
                    self.periods_left -= 1;
                    self.period_left = period_ms;
                    out.push(ClockEvent::Call {
                        color,
                        call: Call::MinuteUsed,
                        periods_left: self.periods_left,
                    });
                }
                TimeControl::Byoyomi { .. } => {
                    out.push(ClockEvent::Call {
                        color,
                        call: Call::Count(10),
                        periods_left: self.periods_left,
                    });
                    out.push(ClockEvent::Flag { color });
                    return (true, dt);
                }
                _ => {
                    out.push(ClockEvent::Flag { color });
                    return (true, dt);
                }
            }
        }
    }

    /// The bookkeeping of a finished turn: a byo-yomi period starts afresh, a Canadian
    /// stone is counted (and the period renewed with its time left carried over when the
    /// last stone of the period is played), a Fischer increment is added.
    fn end_turn(&mut self, tc: &TimeControl) {
        match *tc {
            TimeControl::Byoyomi { period_ms, .. } if self.overtime => {
                self.period_left = period_ms;
            }
            TimeControl::Canadian {
                stones, period_ms, ..
            } if self.overtime => {
                self.periods_left = self.periods_left.saturating_sub(1);
                if self.periods_left == 0 {
                    self.periods_left = stones;
                    self.period_left = self.period_left.saturating_add(period_ms);
                }
            }
            TimeControl::Fischer { increment_ms, .. } => {
                self.main_left = self.main_left.saturating_add(increment_ms);
            }
            _ => {}
        }
    }
}

/// Both players' clocks (Art. 12): which one runs, what is left, the byo-yomi count and
/// the flag. See the module documentation for the rules it follows.
#[derive(Debug, Clone)]
pub struct Clock {
    tc: TimeControl,
    sides: [Side; 2],
    running: Option<Color>,
    /// The moment up to which the running side's time has been charged.
    as_of: u64,
    paused: bool,
    flagged: Option<Color>,
    /// Events that fell due inside a call that returns nothing (pause, start, adjust...),
    /// handed out by the next [`Clock::tick`] or [`Clock::press`].
    pending: Vec<ClockEvent>,
}

impl Clock {
    /// Both clocks set to `tc`'s base time, stopped.
    pub fn new(tc: TimeControl) -> Clock {
        let side = Side::new(&tc);
        Clock {
            tc,
            sides: [side.clone(), side],
            running: None,
            as_of: 0,
            paused: false,
            flagged: None,
            pending: Vec::new(),
        }
    }

    /// The time control the clock was made with.
    pub fn time_control(&self) -> &TimeControl {
        &self.tc
    }

    /// Starts `color`'s clock at `now` (the game start, or a late start under Art. 22.4).
    /// A clock already running is charged up to `now` first and then stopped.
    pub fn start(&mut self, color: Color, now: u64) {
        self.catch_up(now);
        if self.flagged.is_none() {
            self.running = Some(color);
            self.as_of = now;
            self.catch_up(now);
        }
    }

    /// `color` ends its turn at `now`: its clock stops (a byo-yomi period starts afresh,
    /// a Canadian stone is counted, a Fischer increment is added) and the opponent's
    /// starts. Returns the events due up to `now`, including a flag that fell before or at
    /// `now` (then the press does not count). With no clock running yet (and no flag),
    /// the press starts the opponent's clock, as on a real clock. Ignored while paused,
    /// after a flag, or when it is not `color`'s clock that runs.
    pub fn press(&mut self, color: Color, now: u64) -> Vec<ClockEvent> {
        self.catch_up(now);
        if !self.paused && self.flagged.is_none() {
            match self.running {
                Some(c) if c == color => {
                    self.sides[color.index()].end_turn(&self.tc);
                    self.running = Some(color.opponent());
                    self.as_of = now.max(self.as_of);
                    self.catch_up(now);
                }
                None => {
                    self.running = Some(color.opponent());
                    self.as_of = now;
                    self.catch_up(now);
                }
                Some(_) => {}
            }
        }
        std::mem::take(&mut self.pending)
    }

    /// The calls and the flag that fell due up to `now` (and any queued by calls that
    /// return nothing), each exactly once, in order, however the ticks are spaced.
    pub fn tick(&mut self, now: u64) -> Vec<ClockEvent> {
        self.catch_up(now);
        std::mem::take(&mut self.pending)
    }

    /// Stops both clocks at `now` (Art. 14: a scheduled pause). Events due up to `now`
    /// are queued for the next tick.
    pub fn pause(&mut self, now: u64) {
        if !self.paused {
            self.catch_up(now);
            self.paused = true;
        }
    }

    /// Restarts the clock that was running before [`Clock::pause`], at `now`.
    pub fn resume(&mut self, now: u64) {
        if self.paused {
            self.paused = false;
            self.as_of = now.max(self.as_of);
        }
    }

    /// True between [`Clock::pause`] and [`Clock::resume`].
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// The arbiter sets `color`'s time (Art. 22.8-9): `ms_left` in the phase the player is
    /// in (base time, or the current period once in overtime) and, when given, the
    /// byo-yomi periods (Canadian: stones) left. A flag of `color` is lifted and its clock
    /// runs again from `now`. Events due up to `now` are queued for the next tick.
    pub fn adjust(&mut self, color: Color, ms_left: u64, periods_left: Option<u32>, now: u64) {
        self.catch_up(now);
        if matches!(self.tc, TimeControl::None) {
            return;
        }
        let side = &mut self.sides[color.index()];
        if side.overtime {
            side.period_left = ms_left;
        } else {
            side.main_left = ms_left;
        }
        if let Some(p) = periods_left {
            if matches!(
                self.tc,
                TimeControl::Byoyomi { .. } | TimeControl::Canadian { .. }
            ) {
                side.periods_left = p;
            }
        }
        if self.flagged == Some(color) {
            self.flagged = None;
            self.running = Some(color);
            self.as_of = now;
        }
        self.catch_up(now);
    }

    /// Milliseconds left for `color` at `now` in the current phase: base time while in
    /// it, then the current period. `u64::MAX` with [`TimeControl::None`].
    pub fn remaining(&self, color: Color, now: u64) -> u64 {
        if matches!(self.tc, TimeControl::None) {
            return u64::MAX;
        }
        self.side_at(color, now).left()
    }

    /// `color`'s side as it stands at `now` (the running side charged up to then), without
    /// changing the clock.
    fn side_at(&self, color: Color, now: u64) -> Side {
        let mut side = self.sides[color.index()].clone();
        if self.running == Some(color) && !self.paused {
            let mut ignored = Vec::new();
            side.advance(
                &self.tc,
                color,
                now.saturating_sub(self.as_of),
                &mut ignored,
            );
        }
        side
    }

    /// Byo-yomi periods left (including the current one), or Canadian stones left to play
    /// in the current period (before overtime: in the first one); 0 for other systems.
    /// As of the last call that took `now`.
    pub fn periods_left(&self, color: Color) -> u32 {
        self.sides[color.index()].periods_left
    }

    /// True once `color`'s base time is used up and periods are counting (as of the last
    /// call that took `now`).
    pub fn in_overtime(&self, color: Color) -> bool {
        self.sides[color.index()].overtime
    }

    /// All the time `color`'s clock has run by `now` (base time and periods alike; nothing
    /// after a flag, nothing while paused): what the clock charged the side, not what an
    /// arbiter set or [`Clock::deduct`] took.
    pub fn run_ms(&self, color: Color, now: u64) -> u64 {
        self.side_at(color, now).run_ms
    }

    /// `color`'s base time left at `now`: 0 once in overtime (and without a clock).
    pub fn base_left(&self, color: Color, now: u64) -> u64 {
        if matches!(self.tc, TimeControl::None) {
            return 0;
        }
        let side = self.side_at(color, now);
        if side.overtime {
            0
        } else {
            side.main_left
        }
    }

    /// Takes up to `ms` from `color`'s base time at `now` (Art. 22.1: a late player's time
    /// "within their time limit", never from byo-yomi periods or Canadian stones) and
    /// returns what was taken. A base time taken down to 0 begins the overtime at once
    /// (byo-yomi, Canadian), or is a flag fall (sudden death, Fischer: queued for the next
    /// tick, and both clocks stop as at any flag). Nothing is taken after a flag, in
    /// overtime, or without a clock.
    pub fn deduct(&mut self, color: Color, ms: u64, now: u64) -> u64 {
        self.catch_up(now);
        if matches!(self.tc, TimeControl::None) || self.flagged.is_some() {
            return 0;
        }
        let side = &mut self.sides[color.index()];
        if side.overtime {
            return 0;
        }
        let taken = ms.min(side.main_left);
        side.main_left -= taken;
        if taken > 0 && side.main_left == 0 && side.advance(&self.tc, color, 0, &mut self.pending) {
            self.flagged = Some(color);
            self.running = None;
        }
        taken
    }

    /// Whose clock runs (`None` before the start, after a flag, or never with
    /// [`TimeControl::None`] before a press). Stays set while paused.
    pub fn running(&self) -> Option<Color> {
        self.running
    }

    /// Who ran out of time, until the arbiter acts.
    pub fn flagged(&self) -> Option<Color> {
        self.flagged
    }

    /// Art. 22.5: the arbiter lets the flag count as a forfeited turn (a pass). The flagged
    /// player keeps the same byo-yomi (a fresh last period; Canadian: a fresh period;
    /// Fischer: the increment; absolute: still nothing left, so the flag falls again when
    /// that clock next runs) and the opponent's clock runs from `now`. Does nothing unless
    /// `color` is the flagged side.
    pub fn forfeit_turn_after_flag(&mut self, color: Color, now: u64) {
        if self.flagged != Some(color) {
            return;
        }
        self.flagged = None;
        let side = &mut self.sides[color.index()];
        match self.tc {
            TimeControl::Byoyomi { period_ms, .. } => {
                side.overtime = true;
                side.period_left = period_ms;
                side.periods_left = side.periods_left.max(1);
            }
            TimeControl::Canadian {
                stones, period_ms, ..
            } => {
                side.overtime = true;
                side.period_left = period_ms;
                side.periods_left = stones;
            }
            _ => side.end_turn(&self.tc),
        }
        self.running = Some(color.opponent());
        self.as_of = now.max(self.as_of);
        self.catch_up(now);
    }

    /// Charges the running side up to `now`, queueing what falls due.
    fn catch_up(&mut self, now: u64) {
        let Some(color) = self.running else { return };
        if self.paused || now < self.as_of {
            return;
        }
        let dt = now - self.as_of;
        self.as_of = now;
        if self.sides[color.index()].advance(&self.tc, color, dt, &mut self.pending) {
            self.flagged = Some(color);
            self.running = None;
        }
    }
}

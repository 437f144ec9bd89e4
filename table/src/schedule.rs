//! When to redraw a face and when to say a call: the clock at the table as a state machine
//! over injected time (like `quinn-proto`: no clock is read, no I/O is done). The board's
//! loop feeds it every event it records ([`Schedule::on_event`]) and polls it at each turn
//! with the game as the events fold it ([`Schedule::poll`]); the simulator does the same on
//! virtual time, so what a test sees is what a board does.
//!
//! - **Faces.** Each player's [`Face`] is recomputed at every poll and handed out only when
//!   it changed, and at most once per [`MIN_REDRAW_MS`] per display (ten times a second:
//!   the tenths under 10 s).
//! - **Calls.** In byo-yomi the calls are the referee's `byoyomi` events (Art. 12.3), said
//!   at the event's instant. Absolute and Fischer time, and a Canadian period, have no such
//!   events; their last minute is counted the same way, by the time left: "30" at 30 s
//!   left, "40" at 20 s, "50" at 10 s, then "1" .. "9" each second and "10" as the flag
//!   falls (the `time_expired` alert). A call is handed out when due and dropped, never
//!   played late, when the poll comes more than [`LATE_MS`] after its instant.

use tengen_protocol::event::AlertCode;
use tengen_protocol::{Event, GameView, Timestamp};
use tengen_rules::clock::{Call, Clock, TimeControl};
use tengen_rules::Color;

use crate::face::Face;
use crate::sound::Sound;

/// The shortest time between two redraws of one display, in ms.
pub const MIN_REDRAW_MS: u64 = 100;

/// How late a call may still start, in ms; a later one is dropped.
pub const LATE_MS: u64 = 30;

/// The count of a sudden-death phase's last minute, by time left in ms (descending): the
/// same words as Art. 12.3's last period.
const SUDDEN_DEATH_CALLS: [(u64, Call); 12] = tengen_rules::clock::calls::LAST_PERIOD_CALLS;

/// What one poll hands out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Due {
    /// The faces to redraw, with whose they are (at most one per colour).
    pub faces: Vec<(Color, Face)>,
    /// The call to say now (at most one: a later call cuts an earlier one anyway).
    pub sound: Option<Sound>,
}

/// The state machine: see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct Schedule {
    /// The face last handed out per colour (by `Color::index`), and when.
    shown: [Option<(Face, Timestamp)>; 2],
    /// Calls from events, not yet handed out.
    calls: Vec<Sound>,
    /// Flags that fell (`time_expired`), to be said as "10" outside byo-yomi.
    flags: Vec<(Color, Timestamp)>,
    /// The previous poll.
    last_poll: Option<Timestamp>,
    /// Calls dropped because the poll came too late.
    dropped: u64,
}

impl Schedule {
    /// Nothing shown or said yet.
    pub fn new() -> Schedule {
        Schedule::default()
    }

    /// An event as it is recorded, at its time: a `byoyomi` call becomes a sound at that
    /// instant, a fallen flag a "10" where the time control has no count of its own.
    pub fn on_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Byoyomi {
                color,
                call,
                periods_left,
            } => self.calls.push(Sound {
                at,
                color: *color,
                call: *call,
                periods_left: *periods_left,
            }),
            Event::Alert(alert) if alert.code == AlertCode::TimeExpired => {
                if let Some(color) = alert.color {
                    self.flags.push((color, at));
                }
            }
            Event::GameStarted(_) => {
                self.calls.clear();
                self.flags.clear();
            }
            _ => {}
        }
    }

    /// What is due at `now` for the game as `view` folds it (every event up to `now`
    /// applied): the faces that changed (rate-limited) and the call to say.
    pub fn poll(&mut self, view: &GameView, now: Timestamp) -> Due {
        let mut due = Due::default();
        for color in [Color::Black, Color::White] {
            let face = Face::of(view, color, now);
            let slot = &mut self.shown[color.index()];
            let redraw = match slot {
                Some((old, at)) => {
                    *old != face && now.millis() >= at.millis().saturating_add(MIN_REDRAW_MS)
                }
                None => true,
            };
            if redraw {
                *slot = Some((face.clone(), now));
                due.faces.push((color, face));
            }
        }
        let from = self.last_poll.unwrap_or(now);
        self.last_poll = Some(now);
        let mut sounds = std::mem::take(&mut self.calls);
        if let Some(clock) = view.clock() {
            if !matches!(clock.time_control(), TimeControl::Byoyomi { .. }) {
                sounds.extend(sudden_death_calls(clock, from, now));
                sounds.extend(self.flags.drain(..).map(|(color, at)| Sound {
                    at,
                    color,
                    call: Call::Count(10),
                    periods_left: 0,
                }));
            }
        }
        self.flags.clear();
        sounds.sort_by_key(|s| s.at);
        let fresh = |s: &Sound| now.millis() <= s.at.millis().saturating_add(LATE_MS);
        let late = sounds.iter().filter(|s| !fresh(s)).count() as u64;
        due.sound = sounds.into_iter().rfind(fresh);
        self.dropped += late;
        due
    }

    /// Calls dropped so far because they could not start in time.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The face last handed out for `color`, if any.
    pub fn face(&self, color: Color) -> Option<&Face> {
        self.shown[color.index()].as_ref().map(|(face, _)| face)
    }
}

/// The last-minute count crossed between `from` (exclusive) and `now` (inclusive) by the
/// running side of a clock without byo-yomi events: absolute and Fischer time always, a
/// Canadian clock only in its periods (its base time runs into a period, not a flag).
fn sudden_death_calls(clock: &Clock, from: Timestamp, now: Timestamp) -> Vec<Sound> {
    let (Some(color), false) = (clock.running(), clock.is_paused()) else {
        return Vec::new();
    };
    let canadian = matches!(clock.time_control(), TimeControl::Canadian { .. });
    if matches!(clock.time_control(), TimeControl::None) {
        return Vec::new();
    }
    let mut c = clock.clone();
    c.tick(from.millis());
    let (before, overtime_before) = (c.remaining(color, from.millis()), c.in_overtime(color));
    c.tick(now.millis());
    let (after, overtime_after) = (c.remaining(color, now.millis()), c.in_overtime(color));
    if canadian && !(overtime_before && overtime_after) {
        return Vec::new();
    }
    SUDDEN_DEATH_CALLS
        .iter()
        .filter(|(left, _)| before > *left && *left >= after)
        .map(|&(left, call)| Sound {
            // Time left falls one for one with time while the clock runs.
            at: Timestamp::from_millis(now.millis().saturating_sub(left - after)),
            color,
            call,
            periods_left: 0,
        })
        .collect()
}

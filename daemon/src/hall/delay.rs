//! The broadcast delay (`[broadcast]` of the hall config), sans-IO: which of a board's events
//! the public may see now. A plain function of the events and the time, so it is tested
//! exactly.
//!
//! The public stream is always a *prefix* of the board's event stream (in `seq` order): it
//! stops just before the first event that must still be held back, and only grows.
//!
//! - `delay_moves = N`: the last N moves (`move` and `pass` events) of the current game are
//!   held back, and so is everything after the first of them. With fewer than N moves, the
//!   game's setup (its `game_started`) is public and its moves are not. A new game's
//!   `game_started` releases the previous game entirely (as far as this rule goes).
//! - `delay_minutes = M`: an event is public M minutes after it happened. "Happened" is the
//!   event's own `time`, or the moment the hall received it if that is earlier (a board
//!   whose clock runs fast cannot hold its events back for longer than M, and history the
//!   hall receives late, after a restart, is public at once).
//! - Both given: an event is public only when both rules allow it.
//! - `release_at_end = true` (default): when a `game_over` arrives, the whole game up to and
//!   including it is public at once, whatever the rules above say.

use std::collections::VecDeque;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::event::{Envelope, Event};

/// How long the public view lags behind the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DelayPolicy {
    /// Hold back the last this many moves (0: no move delay).
    pub moves: u32,
    /// Hold back what happened in the last this many milliseconds (0: no time delay).
    pub window_ms: u64,
    /// Release the whole game when it ends.
    pub release_at_end: bool,
}

/// What the delay needs to know of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `game_started`: a new game begins.
    GameStarted,
    /// `move` or `pass`: counted by `delay_moves`.
    Move,
    /// `game_over`.
    GameOver,
    /// Anything else.
    Other,
}

impl Kind {
    /// The kind of `event`.
    pub fn of(event: &Event) -> Kind {
        match event {
            Event::GameStarted { .. } => Kind::GameStarted,
            Event::Move { .. } | Event::Pass { .. } => Kind::Move,
            Event::GameOver { .. } => Kind::GameOver,
            _ => Kind::Other,
        }
    }
}

/// One event not yet public: its kind and when it happened (ms since the Unix epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// What kind of event.
    pub kind: Kind,
    /// When it happened, ms since the epoch.
    pub at_ms: i64,
}

/// How many of `held` (the events not yet public, oldest first) are public at `now_ms`
/// under `policy`. The rules are in the module documentation.
pub fn releasable(held: &[Held], now_ms: i64, policy: &DelayPolicy) -> usize {
    let by_moves = if policy.moves == 0 {
        held.len()
    } else {
        // The current game starts at its last `game_started` still held (or before `held`).
        let start = held
            .iter()
            .rposition(|h| h.kind == Kind::GameStarted)
            .unwrap_or(0);
        let moves: Vec<usize> = (start..held.len())
            .filter(|&i| held[i].kind == Kind::Move)
            .collect();
        let n = policy.moves as usize;
        if moves.len() >= n {
            moves[moves.len() - n]
        } else {
            moves.first().copied().unwrap_or(held.len())
        }
    };
    let by_time = if policy.window_ms == 0 {
        held.len()
    } else {
        let window = i64::try_from(policy.window_ms).unwrap_or(i64::MAX);
        held.iter()
            .position(|h| h.at_ms.saturating_add(window) > now_ms)
            .unwrap_or(held.len())
    };
    let mut cut = by_moves.min(by_time);
    if policy.release_at_end {
        if let Some(end) = held.iter().rposition(|h| h.kind == Kind::GameOver) {
            cut = cut.max(end + 1);
        }
    }
    cut
}

/// When an event happened for the delay: its `time` (RFC 3339), or `received_ms` when that
/// is earlier or the time does not parse.
pub fn happened_ms(time: &str, received_ms: i64) -> i64 {
    match humantime::parse_rfc3339(time) {
        Ok(t) => epoch_ms(t).min(received_ms),
        Err(_) => received_ms,
    }
}

/// `t` as ms since the Unix epoch (negative before it).
pub fn epoch_ms(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// One board's events waiting to become public, in `seq` order.
#[derive(Debug, Default)]
pub struct DelayQueue {
    events: VecDeque<(Envelope, Held)>,
}

impl DelayQueue {
    /// An empty queue.
    pub fn new() -> DelayQueue {
        DelayQueue::default()
    }

    /// An event the hall has in order (after de-duplication), received at `received_ms`.
    pub fn push(&mut self, envelope: Envelope, received_ms: i64) {
        let held = Held {
            kind: Kind::of(&envelope.event),
            at_ms: happened_ms(&envelope.time, received_ms),
        };
        self.events.push_back((envelope, held));
    }

    /// Takes the events that are public at `now_ms`, oldest first.
    pub fn release(&mut self, now_ms: i64, policy: &DelayPolicy) -> Vec<Envelope> {
        let held: Vec<Held> = self.events.iter().map(|(_, h)| *h).collect();
        let n = releasable(&held, now_ms, policy);
        self.events.drain(..n).map(|(e, _)| e).collect()
    }

    /// How many events are held back.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// True when nothing is held back.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60_000;

    fn h(kind: Kind, at_ms: i64) -> Held {
        Held { kind, at_ms }
    }

    fn moves(n: u32) -> DelayPolicy {
        DelayPolicy {
            moves: n,
            window_ms: 0,
            release_at_end: true,
        }
    }

    fn minutes(m: u64) -> DelayPolicy {
        DelayPolicy {
            moves: 0,
            window_ms: m * 60_000,
            release_at_end: true,
        }
    }

    use Kind::{GameOver as End, GameStarted as Start, Move as Mv, Other};

    #[test]
    fn no_delay_releases_everything() {
        let held = [h(Start, 0), h(Mv, 0), h(Other, 0)];
        assert_eq!(releasable(&held, 0, &DelayPolicy::default()), 3);
        assert_eq!(releasable(&[], 0, &moves(3)), 0);
    }

    #[test]
    fn move_delay_stops_before_the_nth_last_move() {
        // start, m1, clock, m2, clock, m3, clock
        let held = [
            h(Start, 0),
            h(Mv, 0),
            h(Other, 0),
            h(Mv, 0),
            h(Other, 0),
            h(Mv, 0),
            h(Other, 0),
        ];
        assert_eq!(releasable(&held, 0, &moves(1)), 5, "m3 and after held");
        assert_eq!(releasable(&held, 0, &moves(2)), 3, "m2 and after held");
        assert_eq!(releasable(&held, 0, &moves(3)), 1, "only the setup");
        assert_eq!(
            releasable(&held, 0, &moves(4)),
            1,
            "fewer moves: still the setup"
        );
        // Once the setup is public, the rest waits for more moves.
        assert_eq!(releasable(&held[1..], 0, &moves(4)), 0);
        assert_eq!(releasable(&held[1..], 0, &moves(3)), 0);
        assert_eq!(releasable(&held[1..], 0, &moves(2)), 2);
    }

    #[test]
    fn a_new_game_releases_the_previous_one_by_moves() {
        let held = [h(Mv, 0), h(Mv, 0), h(Other, 0), h(Start, 0), h(Mv, 0)];
        assert_eq!(
            releasable(&held, 0, &moves(2)),
            4,
            "old game and the new setup"
        );
        let policy = DelayPolicy {
            release_at_end: false,
            ..moves(2)
        };
        assert_eq!(releasable(&held, 0, &policy), 4);
    }

    #[test]
    fn time_delay_releases_what_is_old_enough() {
        let held = [
            h(Start, 0),
            h(Mv, MIN),
            h(Mv, 2 * MIN),
            h(Other, 2 * MIN + 1),
        ];
        let p = minutes(5);
        assert_eq!(releasable(&held, 5 * MIN - 1, &p), 0);
        assert_eq!(releasable(&held, 5 * MIN, &p), 1);
        assert_eq!(releasable(&held, 7 * MIN, &p), 3);
        assert_eq!(releasable(&held, 7 * MIN + 1, &p), 4);
        // An event out of time order holds back what follows it: a prefix, always.
        let odd = [h(Mv, 3 * MIN), h(Mv, 0)];
        assert_eq!(releasable(&odd, 6 * MIN, &p), 0);
    }

    #[test]
    fn both_rules_must_allow() {
        let held = [h(Start, 0), h(Mv, 0), h(Mv, 0), h(Mv, 10 * MIN)];
        let p = DelayPolicy {
            moves: 1,
            window_ms: 5 * 60_000,
            release_at_end: true,
        };
        assert_eq!(releasable(&held, 5 * MIN, &p), 3, "moves rule binds");
        assert_eq!(releasable(&held, 4 * MIN, &p), 0, "time rule binds");
    }

    #[test]
    fn game_over_releases_the_whole_game_unless_told_not_to() {
        let held = [h(Mv, 0), h(Mv, 0), h(End, 0), h(Start, 0), h(Mv, 0)];
        assert_eq!(releasable(&held, 0, &moves(5)), 4, "up to the new setup");
        assert_eq!(releasable(&held, 0, &minutes(10)), 3, "up to game_over");
        let keep = DelayPolicy {
            release_at_end: false,
            ..minutes(10)
        };
        assert_eq!(releasable(&held, 0, &keep), 0);
    }

    #[test]
    fn happened_is_the_earlier_of_event_time_and_receipt() {
        let t = "2026-11-29T13:45:01.250Z";
        let at = epoch_ms(humantime::parse_rfc3339(t).unwrap());
        assert_eq!(at % 1000, 250);
        assert_eq!(happened_ms(t, at + 5_000), at, "history received late");
        assert_eq!(happened_ms(t, at - 5_000), at - 5_000, "board clock ahead");
        assert_eq!(happened_ms("yesterday", 42), 42);
    }

    #[test]
    fn the_queue_hands_out_a_growing_prefix() {
        let e = |seq: u64, event: Event| Envelope {
            seq,
            time: "2026-11-29T13:45:00.000Z".into(),
            board: "b".into(),
            game: "g".into(),
            by: None,
            event,
        };
        let pass = |n: u32| Event::Pass {
            number: n,
            color: tengen_rules::Color::Black,
        };
        let now = epoch_ms(humantime::parse_rfc3339("2026-11-29T13:45:00.000Z").unwrap());
        let mut q = DelayQueue::new();
        q.push(e(1, pass(1)), now);
        q.push(e(2, pass(2)), now);
        assert!(q.release(now, &moves(2)).is_empty());
        q.push(e(3, pass(3)), now);
        let out: Vec<u64> = q.release(now, &moves(2)).iter().map(|e| e.seq).collect();
        assert_eq!(out, vec![1]);
        assert_eq!(q.len(), 2);
        let out: Vec<u64> = q.release(now, &moves(0)).iter().map(|e| e.seq).collect();
        assert_eq!(out, vec![2, 3]);
        assert!(q.is_empty());
    }
}

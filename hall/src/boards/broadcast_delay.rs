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

use tengen_protocol::event::{Envelope, Event};
use tengen_protocol::Timestamp;

use crate::config::DelayPolicy;

/// What the delay needs to know of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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
    fn of(event: &Event) -> Kind {
        match event {
            Event::GameStarted(_) => Kind::GameStarted,
            Event::Move { .. } | Event::Pass { .. } => Kind::Move,
            Event::GameOver(_) => Kind::GameOver,
            _ => Kind::Other,
        }
    }
}

/// One event not yet public: its kind and when it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Held {
    /// What kind of event.
    kind: Kind,
    /// When it happened (see [`happened`]).
    at: Timestamp,
}

/// How many of `held` (the events not yet public, oldest first) are public at `now`
/// under `policy`. The rules are in the module documentation.
fn releasable(held: &[Held], now: Timestamp, policy: &DelayPolicy) -> usize {
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
        held.iter()
            .position(|h| h.at.plus(policy.window_ms) > now)
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

/// When an event happened for the delay: its `time`, or `received` when that is earlier
/// (a board whose clock runs fast, history received late).
fn happened(time: Timestamp, received: Timestamp) -> Timestamp {
    time.min(received)
}

/// One board's events waiting to become public, in `seq` order.
#[derive(Debug, Default)]
pub(crate) struct DelayQueue {
    events: VecDeque<(Envelope, Held)>,
}

impl DelayQueue {
    /// An event the hall has in order (after de-duplication), received at `received`.
    pub(crate) fn push(&mut self, envelope: Envelope, received: Timestamp) {
        let held = Held {
            kind: Kind::of(&envelope.event),
            at: happened(envelope.time, received),
        };
        self.events.push_back((envelope, held));
    }

    /// Takes the events that are public at `now`, oldest first.
    pub(crate) fn release(&mut self, now: Timestamp, policy: &DelayPolicy) -> Vec<Envelope> {
        let held: Vec<Held> = self.events.iter().map(|(_, h)| *h).collect();
        let n = releasable(&held, now, policy);
        self.events.drain(..n).map(|(e, _)| e).collect()
    }

    /// How many events are held back.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u64 = 60_000;

    /// An instant `ms` after an arbitrary origin (ms since the epoch: `T0 + ms`).
    fn t(ms: u64) -> Timestamp {
        Timestamp::from_millis(1_764_374_400_000 + ms)
    }

    fn h(kind: Kind, at_ms: u64) -> Held {
        Held { kind, at: t(at_ms) }
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
        assert_eq!(releasable(&held, t(0), &DelayPolicy::default()), 3);
        assert_eq!(releasable(&[], t(0), &moves(3)), 0);
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
        assert_eq!(releasable(&held, t(0), &moves(1)), 5, "m3 and after held");
        assert_eq!(releasable(&held, t(0), &moves(2)), 3, "m2 and after held");
        assert_eq!(releasable(&held, t(0), &moves(3)), 1, "only the setup");
        assert_eq!(
            releasable(&held, t(0), &moves(4)),
            1,
            "fewer moves: still the setup"
        );
        // Once the setup is public, the rest waits for more moves.
        assert_eq!(releasable(&held[1..], t(0), &moves(4)), 0);
        assert_eq!(releasable(&held[1..], t(0), &moves(3)), 0);
        assert_eq!(releasable(&held[1..], t(0), &moves(2)), 2);
    }

    #[test]
    fn a_new_game_releases_the_previous_one_by_moves() {
        let held = [h(Mv, 0), h(Mv, 0), h(Other, 0), h(Start, 0), h(Mv, 0)];
        assert_eq!(
            releasable(&held, t(0), &moves(2)),
            4,
            "old game and the new setup"
        );
        let policy = DelayPolicy {
            release_at_end: false,
            ..moves(2)
        };
        assert_eq!(releasable(&held, t(0), &policy), 4);
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
        assert_eq!(releasable(&held, t(5 * MIN - 1), &p), 0);
        assert_eq!(releasable(&held, t(5 * MIN), &p), 1);
        assert_eq!(releasable(&held, t(7 * MIN), &p), 3);
        assert_eq!(releasable(&held, t(7 * MIN + 1), &p), 4);
        // An event out of time order holds back what follows it: a prefix, always.
        let odd = [h(Mv, 3 * MIN), h(Mv, 0)];
        assert_eq!(releasable(&odd, t(6 * MIN), &p), 0);
    }

    #[test]
    fn both_rules_must_allow() {
        let held = [h(Start, 0), h(Mv, 0), h(Mv, 0), h(Mv, 10 * MIN)];
        let p = DelayPolicy {
            moves: 1,
            window_ms: 5 * 60_000,
            release_at_end: true,
        };
        assert_eq!(releasable(&held, t(5 * MIN), &p), 3, "moves rule binds");
        assert_eq!(releasable(&held, t(4 * MIN), &p), 0, "time rule binds");
    }

    #[test]
    fn game_over_releases_the_whole_game_unless_told_not_to() {
        let held = [h(Mv, 0), h(Mv, 0), h(End, 0), h(Start, 0), h(Mv, 0)];
        assert_eq!(releasable(&held, t(0), &moves(5)), 4, "up to the new setup");
        assert_eq!(releasable(&held, t(0), &minutes(10)), 3, "up to game_over");
        let keep = DelayPolicy {
            release_at_end: false,
            ..minutes(10)
        };
        assert_eq!(releasable(&held, t(0), &keep), 0);
    }

    #[test]
    fn happened_is_the_earlier_of_event_time_and_receipt() {
        let at = Timestamp::parse("2026-11-29T13:45:01.250Z").unwrap();
        assert_eq!(happened(at, at.plus(5_000)), at, "history received late");
        let early = Timestamp::from_millis(at.millis() - 5_000);
        assert_eq!(happened(at, early), early, "board clock ahead");
    }

    #[test]
    fn the_queue_hands_out_a_growing_prefix() {
        let now = Timestamp::parse("2026-11-29T13:45:00.000Z").unwrap();
        let e = |seq: u64, event: Event| Envelope {
            seq,
            time: now,
            board: "b".into(),
            game: "g".into(),
            by: None,
            event,
        };
        let pass = |n: u32| Event::Pass {
            number: n,
            color: tengen_rules::Color::Black,
        };
        let mut q = DelayQueue::default();
        q.push(e(1, pass(1)), now);
        q.push(e(2, pass(2)), now);
        assert!(q.release(now, &moves(2)).is_empty());
        q.push(e(3, pass(3)), now);
        let out: Vec<u64> = q.release(now, &moves(2)).iter().map(|e| e.seq).collect();
        assert_eq!(out, vec![1]);
        assert_eq!(q.len(), 2);
        let out: Vec<u64> = q.release(now, &moves(0)).iter().map(|e| e.seq).collect();
        assert_eq!(out, vec![2, 3]);
        assert_eq!(q.len(), 0);
    }
}

//! Sensor health: spots sensors that misbehave, from the classified readings alone, and
//! reports them as the wire contract's `sensor_fault` (`noisy`, `stuck`), kept apart from the rule
//! alerts. Reporting only: the stabiliser already keeps flickers away from the referee.
//!
//! - **noisy**: a point whose reading changed [`NOISY_CHANGES`] times within
//!   [`NOISY_WINDOW_MS`]. A stone set down or lifted changes its point once or twice, a hand
//!   passing over with a stone a few times more. A point wrong in a fraction `p` of the
//!   scans changes about `2000 p` times in that window at 100 scans/s: 2 for the usual
//!   one in a thousand, 20 for a whole board as bad as one in a hundred (not reported,
//!   it would name every point), 100 for a sensor wrong in one scan in twenty (reported).
//!   The threshold sits far out in the tail of the one-in-a-hundred board: its wrong
//!   scans in ten seconds are Poisson with mean 10, and 50 of them come about once in
//!   10^17 windows. At 50 changes (25 wrong scans, about 10^-5 a window) such a board
//!   raised three or four false faults in every 9x9 game (measured, issue 23).
//! - **stuck**: a point that has read `Unknown` (between the empty and the stone bands)
//!   without a break for [`STUCK_UNKNOWN_MS`]. A hand with a stone does not hover that long
//!   over one point; a dead sensor or a broken connection sitting between the bands does.
//!   A sensor stuck at a plausible state (empty, or a stone's colour) cannot be told from
//!   a real stone by its readings: the referee's alerts show it instead.
//!
//! Each point is reported once per episode: a noisy point again only once it has not been
//! noisy for [`REARM_MS`], a stuck one after it has read a state again. Points
//! found at the same scan are reported together, sorted. Sans-IO: time comes with every
//! frame.

use std::collections::VecDeque;

use tengen_hal::{Millis, PointState};
use tengen_protocol::event::FaultKind;
use tengen_protocol::Event;
use tengen_rules::Point;

/// Changes of one point's reading within [`NOISY_WINDOW_MS`] that make it noisy.
pub const NOISY_CHANGES: usize = 100;
/// The window over which changes are counted (ms).
pub const NOISY_WINDOW_MS: Millis = 10_000;
/// How long a point must read `Unknown` without a break to be stuck (ms).
pub const STUCK_UNKNOWN_MS: Millis = 30_000;
/// How long a noisy point must stay below the threshold before it can be reported again.
pub const REARM_MS: Millis = 60_000;

/// One point's history (read only when its reading changes or is `Unknown`).
#[derive(Debug, Clone, Default)]
struct PointHealth {
    /// The times of its latest changes (at most [`NOISY_CHANGES`]).
    changes: VecDeque<Millis>,
    /// Since when it has read `Unknown` without a break.
    unknown_since: Option<Millis>,
    /// The last time it was seen noisy, once reported.
    noisy_at: Option<Millis>,
    /// Whether its current stretch of `Unknown` has been reported.
    stuck_reported: bool,
}

impl PointHealth {
    /// True when its last [`NOISY_CHANGES`] changes all fall within [`NOISY_WINDOW_MS`].
    fn is_noisy(&self, now: Millis) -> bool {
        self.changes.len() == NOISY_CHANGES
            && self
                .changes
                .front()
                .is_some_and(|&first| now.saturating_sub(first) <= NOISY_WINDOW_MS)
    }
}

/// Watches every point's readings for noisy and stuck sensors.
#[derive(Debug, Clone)]
pub struct SensorHealth {
    size: u8,
    /// Every point's last reading (empty before the first frame).
    last: Vec<PointState>,
    /// How many of them read `Unknown` (those are looked at every scan, for `stuck`).
    unknown: usize,
    points: Vec<PointHealth>,
}

impl SensorHealth {
    /// A watcher for a `size` x `size` board.
    pub fn new(size: u8) -> SensorHealth {
        SensorHealth {
            size,
            last: Vec::new(),
            unknown: 0,
            points: vec![PointHealth::default(); size as usize * size as usize],
        }
    }

    /// One classified scan at `now` (row-major, as the stabiliser takes it); returns the
    /// `sensor_fault` events it gives rise to (none, nearly always). A frame of the wrong
    /// length is ignored (the stabiliser reports it).
    ///
    /// A point whose reading is unchanged and readable costs one comparison: that is
    /// nearly every point of nearly every scan.
    pub fn feed(&mut self, now: Millis, readings: &[PointState]) -> Vec<Event> {
        if readings.len() != self.points.len() {
            return Vec::new();
        }
        if self.last.is_empty() {
            self.last = readings.to_vec();
            self.unknown = readings
                .iter()
                .filter(|r| **r == PointState::Unknown)
                .count();
        }
        // Nothing changed and nothing reads Unknown: nothing to look at (most scans).
        if self.unknown == 0 && readings == self.last.as_slice() {
            return Vec::new();
        }
        let mut noisy = Vec::new();
        let mut stuck = Vec::new();
        for (i, (&r, last)) in readings.iter().zip(self.last.iter_mut()).enumerate() {
            let changed = r != *last;
            if !changed && r != PointState::Unknown {
                continue;
            }
            if changed {
                match (*last, r) {
                    (PointState::Unknown, _) => self.unknown -= 1,
                    (_, PointState::Unknown) => self.unknown += 1,
                    _ => {}
                }
            }
            *last = r;
            let h = &mut self.points[i];
            if changed {
                if h.changes.len() == NOISY_CHANGES {
                    h.changes.pop_front();
                }
                h.changes.push_back(now);
                if h.is_noisy(now) {
                    // A new episode: never reported, or not noisy for REARM_MS.
                    let fresh = h
                        .noisy_at
                        .is_none_or(|at| now.saturating_sub(at) >= REARM_MS);
                    h.noisy_at = Some(now);
                    if fresh {
                        noisy.push(Point::from_index(i, self.size));
                    }
                }
            }
            if r == PointState::Unknown {
                let since = *h.unknown_since.get_or_insert(now);
                if !h.stuck_reported && now.saturating_sub(since) >= STUCK_UNKNOWN_MS {
                    h.stuck_reported = true;
                    stuck.push(Point::from_index(i, self.size));
                }
            } else {
                h.unknown_since = None;
                h.stuck_reported = false;
            }
        }
        [(noisy, FaultKind::Noisy), (stuck, FaultKind::Stuck)]
            .into_iter()
            .filter(|(points, _)| !points.is_empty())
            .map(|(points, kind)| Event::SensorFault {
                points: tengen_protocol::gtp::sorted(points),
                kind,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: u8 = 9;

    fn frame(set: &[(Point, PointState)]) -> Vec<PointState> {
        let mut v = vec![PointState::Empty; SIZE as usize * SIZE as usize];
        for &(p, s) in set {
            v[p.index(SIZE)] = s;
        }
        v
    }

    /// Feeds 10 ms scans from `from` to `to` (exclusive), the state of `p` at each time
    /// given by `at`; returns the events with their times.
    fn run(
        h: &mut SensorHealth,
        p: Point,
        from: Millis,
        to: Millis,
        at: impl Fn(Millis) -> PointState,
    ) -> Vec<(Millis, Event)> {
        let mut out = Vec::new();
        for t in (from..to).step_by(10) {
            out.extend(h.feed(t, &frame(&[(p, at(t))])).into_iter().map(|e| (t, e)));
        }
        out
    }

    fn fault(points: &[&str], kind: &str) -> Event {
        Event::SensorFault {
            points: points
                .iter()
                .map(|s| tengen_protocol::gtp::parse(s).unwrap())
                .collect(),
            kind: FaultKind::parse(kind).unwrap(),
        }
    }

    #[test]
    fn a_flickering_sensor_is_noisy_once_per_episode() {
        let mut h = SensorHealth::new(SIZE);
        let p = Point::new(4, 4);
        // Wrong in one scan out of five, for 30 s: 2 changes per 50 ms.
        let flicker = |t: Millis| {
            if (t / 10) % 5 == 0 {
                PointState::Black
            } else {
                PointState::Empty
            }
        };
        let out = run(&mut h, p, 0, 30_000, flicker);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].1, fault(&["E5"], "noisy"));
        // the 100th change, at 50 wrong scans
        assert_eq!(out[0].0, 2500);
        // Quiet for less than REARM_MS, then noisy again: not reported again.
        assert!(run(&mut h, p, 30_000, 60_000, |_| PointState::Empty).is_empty());
        assert!(run(&mut h, p, 60_000, 70_000, flicker).is_empty());
        // Quiet for REARM_MS: the next episode is reported.
        assert!(run(&mut h, p, 70_000, 140_000, |_| PointState::Empty).is_empty());
        let again = run(&mut h, p, 140_000, 150_000, flicker);
        assert_eq!(again.len(), 1, "{again:?}");
    }

    #[test]
    fn stones_hands_and_background_noise_are_not_faults() {
        let mut h = SensorHealth::new(SIZE);
        let p = Point::new(2, 6);
        // A hand with a stone passing over for 300 ms, the stone set down and lifted a few
        // times over a minute (a stone moved back and forth in a game review): every 5 s.
        let out = run(&mut h, p, 0, 60_000, |t| match t % 5_000 {
            0..=99 => PointState::Unknown,
            100..=199 => PointState::White,
            200..=299 => PointState::Unknown,
            300..=2_999 => PointState::White,
            _ => PointState::Empty,
        });
        assert!(out.is_empty(), "{out:?}");
        // One wrong scan in a hundred on every point for ten minutes.
        let mut h = SensorHealth::new(SIZE);
        let n = SIZE as usize * SIZE as usize;
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
        for t in (0..600_000).step_by(10) {
            let readings: Vec<PointState> = (0..n)
                .map(|_| {
                    if rand::Rng::random_bool(&mut rng, 0.01) {
                        PointState::Black
                    } else {
                        PointState::Empty
                    }
                })
                .collect();
            assert!(h.feed(t, &readings).is_empty(), "at {t} ms");
        }
    }

    #[test]
    fn a_sensor_between_the_bands_for_30_s_is_stuck_until_it_reads_again() {
        let mut h = SensorHealth::new(SIZE);
        let a = Point::new(0, 0);
        let b = Point::new(8, 8);
        let both = |s: PointState| frame(&[(a, s), (b, s)]);
        let unknown_from = |h: &mut SensorHealth, from: Millis, to: Millis| {
            let mut out = Vec::new();
            for t in (from..to).step_by(10) {
                let events = h.feed(t, &both(PointState::Unknown));
                out.extend(events.into_iter().map(|e| (t, e)));
            }
            out
        };
        let out = unknown_from(&mut h, 0, 40_000);
        assert_eq!(out, vec![(30_000, fault(&["A1", "J9"], "stuck"))]);
        // Reading again re-arms; stuck again for 30 s is reported again.
        assert!(h.feed(40_000, &both(PointState::Empty)).is_empty());
        let out = unknown_from(&mut h, 40_010, 80_000);
        assert_eq!(out, vec![(70_010, fault(&["A1", "J9"], "stuck"))]);
    }

    #[test]
    fn a_frame_of_the_wrong_length_is_ignored() {
        let mut h = SensorHealth::new(SIZE);
        assert!(h.feed(0, &[PointState::Unknown; 3]).is_empty());
    }
}

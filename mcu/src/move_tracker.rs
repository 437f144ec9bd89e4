//! Follows a simulated game's stones from touch-down to the first scan that reads them
//! (sans-IO): the `move` lines of the live board's log, and the instants that faults
//! scheduled at a move (`move 12 unplug 2s`) happen.

use std::collections::VecDeque;

use tengen_hal::{Millis, PointState};
use tengen_rules::{Color, Point};
use tengen_sim::{Action, Simulation};

/// One move as the sensors saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveStamp {
    /// The game's move number (1-based).
    pub number: usize,
    /// Who played it.
    pub color: Color,
    /// Where.
    pub point: Point,
    /// Virtual time the stone touched down (ms).
    pub touch_at: Millis,
    /// Virtual time of the first scan at or after that which read the stone (ms).
    pub stable_at: Millis,
}

/// Follows the game's stones from touch-down to the first scan that reads them (sans-IO).
#[derive(Debug, Clone)]
pub struct MoveTracker {
    size: u8,
    /// Moves not yet read, in touch-down order: (number, colour, point, touch time).
    pending: VecDeque<(usize, Color, Point, Millis)>,
    /// Touch-down time of every move by number (for faults scheduled at a move).
    touch: Vec<Option<Millis>>,
}

impl MoveTracker {
    /// The moves of a simulated game: every stone set down as a game move (not setup
    /// stones, not injected violations, not the resignation gesture). A script has no
    /// move numbers: its `place` lines count as moves 1, 2, 3... in order.
    pub fn new(sim: &Simulation) -> MoveTracker {
        let numbered = sim.actions().iter().any(|a| a.move_number.is_some());
        let mut count = 0;
        let mut pending: Vec<(usize, Color, Point, Millis)> = sim
            .actions()
            .iter()
            .filter(|a| a.violation.is_none())
            .filter_map(|a| match (&a.action, a.move_number) {
                (Action::Place { color, point }, Some(n)) => Some((n, *color, *point, a.end)),
                (Action::Place { color, point }, None) if !numbered && a.line.is_some() => {
                    count += 1;
                    Some((count, *color, *point, a.end))
                }
                _ => None,
            })
            .collect();
        pending.sort_by_key(|m| (m.3, m.0));
        let last = pending.iter().map(|m| m.0).max().unwrap_or(0);
        let mut touch = vec![None; last + 1];
        for m in &pending {
            touch[m.0] = Some(m.3);
        }
        MoveTracker {
            size: sim.size(),
            pending: pending.into(),
            touch,
        }
    }

    /// Moves still to be read.
    pub fn remaining(&self) -> usize {
        self.pending.len()
    }

    /// When move `number`'s stone touches down, if the game has that move.
    pub fn touch_time(&self, number: usize) -> Option<Millis> {
        self.touch.get(number).copied().flatten()
    }

    /// One scan at virtual time `now` read as `states`: the moves it reads for the first
    /// time since their touch-down.
    pub fn observe(&mut self, now: Millis, states: &[PointState]) -> Vec<MoveStamp> {
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(&(number, color, point, touch)) = self.pending.get(i) {
            if touch > now {
                break;
            }
            let want = match color {
                Color::Black => PointState::Black,
                Color::White => PointState::White,
            };
            if states.get(point.index(self.size)) == Some(&want) {
                out.push(MoveStamp {
                    number,
                    color,
                    point,
                    touch_at: touch,
                    stable_at: now,
                });
                self.pending.remove(i);
            } else {
                i += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_hal::FrameData;
    use tengen_sim::SimOptions;

    #[test]
    fn each_move_is_read_at_the_first_scan_after_touch_down() {
        let script = "size 9\nplace B C3\npress B\nplace W G7\npress W\nplace B D4\n";
        let sim = Simulation::from_script(script, &SimOptions::seeded(5)).unwrap();
        let touch: Vec<Millis> = sim
            .actions()
            .iter()
            .filter(|a| matches!(a.action, Action::Place { .. }))
            .map(|a| a.end)
            .collect();
        // Scripts carry no move numbers: the places are numbered in order.
        let mut tracker = MoveTracker::new(&sim);
        assert_eq!(tracker.touch_time(2), Some(touch[1]));
        let mut sim = sim;
        let mut seen = Vec::new();
        while let Some((frame, _)) = sim.next_scan() {
            let FrameData::Classified(states) = &frame.data else {
                panic!("classified frames expected")
            };
            seen.extend(tracker.observe(frame.time, states));
        }
        assert_eq!(seen.len(), 3);
        for (m, t) in seen.iter().zip(&touch) {
            assert_eq!(m.touch_at, *t);
            assert!(m.stable_at >= *t && m.stable_at < *t + 10, "{m:?}");
            assert_eq!(m.stable_at % 10, 0);
        }
        assert_eq!(seen[1].color, Color::White);
        assert_eq!(tracker.remaining(), 0);
    }
}

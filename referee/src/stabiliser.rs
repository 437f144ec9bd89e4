//! The stabiliser: turns a stream of noisy per-point readings into stable board changes.
//!
//! A point's change is accepted only once the new reading has held for `stable_ms`
//! (docs/rules.md, "How the board reads the hands"); shorter flickers (sensor noise, a hand passing over with a stone)
//! never reach the referee. `Unknown` readings never become a stable state by themselves:
//! a point under a hand keeps its last stable state.
//!
//! Accepted changes are released in *batches*: a batch is held back while another point is
//! still on its way to a new stone reading that began within `stable_ms` of the batch's
//! changes, so stones set down or lifted together (a stone pushed along the board, two
//! stones put down at once) arrive together, ordered by the time each change began
//! (its onset). Sans-IO: time comes in with every frame.

use tengen_hal::{Millis, PointState};
use tengen_rules::{Color, Point};

/// What a stable point holds: a stone of a colour, or nothing.
pub type Stone = Option<Color>;

/// One accepted change of one point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// The point that changed.
    pub point: Point,
    /// Its stable state before.
    pub from: Stone,
    /// Its stable state now.
    pub to: Stone,
    /// When the new reading began (ms).
    pub onset: Millis,
}

/// Per-point stabiliser over whole-board frames.
#[derive(Debug, Clone)]
pub struct Stabiliser {
    size: u8,
    stable_ms: Millis,
    /// The accepted state of each point (index order of `Point::index`).
    stable: Vec<Stone>,
    /// The reading each point has held since `since`.
    candidate: Vec<PointState>,
    /// When each point's current reading began.
    since: Vec<Millis>,
    /// Accepted changes not yet released, in acceptance order.
    held: Vec<Change>,
    /// Whether any frame has been seen (the first frame seeds the candidates).
    started: bool,
    /// True when the last frame left nothing on its way: no point reading a stone state
    /// other than its stable one, no change held. A frame equal to the last one then
    /// changes nothing, and is passed over without looking at each point (most scans).
    quiet: bool,
}

fn stone_of(state: PointState) -> Option<Stone> {
    match state {
        PointState::Empty => Some(None),
        PointState::Black => Some(Some(Color::Black)),
        PointState::White => Some(Some(Color::White)),
        PointState::Unknown => None,
    }
}

impl Stabiliser {
    /// A stabiliser for a `size` x `size` board whose stable state starts as `initial`
    /// (row-major, top row first; an empty board when `None`).
    pub fn new(size: u8, stable_ms: Millis, initial: Option<&[Stone]>) -> Stabiliser {
        let n = size as usize * size as usize;
        let stable = match initial {
            Some(v) if v.len() == n => v.to_vec(),
            _ => vec![None; n],
        };
        let candidate = stable
            .iter()
            .map(|s| match s {
                None => PointState::Empty,
                Some(Color::Black) => PointState::Black,
                Some(Color::White) => PointState::White,
            })
            .collect();
        Stabiliser {
            size,
            stable_ms,
            stable,
            candidate,
            since: vec![0; n],
            held: Vec::new(),
            started: false,
            quiet: false,
        }
    }

    /// The board size.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The stable state of every point (row-major, top row first), including changes
    /// accepted but still held in an unreleased batch.
    pub fn stable(&self) -> &[Stone] {
        &self.stable
    }

    /// Feeds one classified scan taken at `now`; returns the batch of changes released by
    /// it (empty most of the time), ordered by onset. A frame of the wrong length is ignored
    /// and reported as `Err` with its length.
    pub fn feed(&mut self, now: Millis, readings: &[PointState]) -> Result<Vec<Change>, usize> {
        if readings.len() != self.stable.len() {
            return Err(readings.len());
        }
        if !self.started {
            self.started = true;
            for s in self.since.iter_mut() {
                *s = now;
            }
        }
        if self.quiet && readings == self.candidate.as_slice() {
            return Ok(Vec::new());
        }
        let mut waiting = false;
        for (i, &r) in readings.iter().enumerate() {
            if r != self.candidate[i] {
                self.candidate[i] = r;
                self.since[i] = now;
            }
            let Some(stone) = stone_of(r) else { continue };
            if stone != self.stable[i] {
                if now.saturating_sub(self.since[i]) >= self.stable_ms {
                    self.held.push(Change {
                        point: Point::from_index(i, self.size),
                        from: self.stable[i],
                        to: stone,
                        onset: self.since[i],
                    });
                    self.stable[i] = stone;
                } else {
                    waiting = true;
                }
            }
        }
        self.quiet = !waiting && self.held.is_empty();
        if self.held.is_empty() || self.in_motion() {
            return Ok(Vec::new());
        }
        self.quiet = !waiting;
        let mut batch = std::mem::take(&mut self.held);
        batch.sort_by_key(|c| (c.onset, c.point));
        Ok(batch)
    }

    /// True while some point is on its way to a new stone state that began within
    /// `stable_ms` of the latest held change: the batch waits for it.
    fn in_motion(&self) -> bool {
        let latest = self.held.iter().map(|c| c.onset).max().unwrap_or(0);
        let horizon = latest + self.stable_ms;
        self.candidate
            .iter()
            .enumerate()
            .any(|(i, &r)| match stone_of(r) {
                Some(stone) => stone != self.stable[i] && self.since[i] <= horizon,
                None => false,
            })
    }

    /// True while a change that began at or before `at` may still reach the referee as
    /// part of `color`'s move: a change accepted but held in an unreleased batch, a stone of
    /// `color` on its way onto an empty point, or a point of the opponent's on its way to
    /// empty (a capture being lifted). A clock press at `at` waits for these (see
    /// [`Pipeline`](crate::pipeline::Pipeline)): frames lost at a stone's touch-down, or a
    /// quick hand, must not turn the move into a pass.
    pub fn settling(&self, color: Color, at: Millis) -> bool {
        if !self.held.is_empty() {
            return true;
        }
        self.candidate.iter().enumerate().any(|(i, &r)| {
            if self.since[i] > at {
                return false;
            }
            match (self.stable[i], stone_of(r)) {
                (None, Some(Some(c))) => c == color,
                (Some(c), Some(None)) => c != color,
                _ => false,
            }
        })
    }

    /// Points whose reading differs from their stable state right now (a hand, noise, a
    /// change not yet accepted).
    pub fn unsettled(&self) -> usize {
        self.candidate
            .iter()
            .zip(&self.stable)
            .filter(|(r, s)| stone_of(**r) != Some(**s))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(size: u8, set: &[(Point, PointState)]) -> Vec<PointState> {
        let mut v = vec![PointState::Empty; size as usize * size as usize];
        for &(p, s) in set {
            v[p.index(size)] = s;
        }
        v
    }

    #[test]
    fn accepts_after_stable_time_only() {
        let mut st = Stabiliser::new(9, 150, None);
        let p = Point::new(2, 3);
        let on = frame(9, &[(p, PointState::Black)]);
        let mut out = Vec::new();
        for t in (0..=300).step_by(10) {
            let f = if t >= 100 { &on } else { &frame(9, &[]) };
            out.extend(st.feed(t, f).unwrap().into_iter().map(|c| (t, c)));
        }
        assert_eq!(out.len(), 1);
        let (t, c) = out[0];
        assert_eq!(t, 250);
        assert_eq!(c.onset, 100);
        assert_eq!(c.to, Some(Color::Black));
        assert_eq!(c.from, None);
    }

    #[test]
    fn flickers_and_unknown_never_become_stable() {
        let mut st = Stabiliser::new(9, 150, None);
        let p = Point::new(4, 4);
        for t in (0..2000).step_by(10) {
            let state = match (t / 10) % 10 {
                0..=5 => PointState::Unknown,
                6..=9 => PointState::White,
                _ => PointState::Empty,
            };
            assert!(st.feed(t, &frame(9, &[(p, state)])).unwrap().is_empty());
        }
        assert_eq!(st.stable()[p.index(9)], None);
    }

    #[test]
    fn changes_together_come_in_one_batch_in_onset_order() {
        let mut st = Stabiliser::new(9, 150, None);
        let (a, b) = (Point::new(0, 0), Point::new(8, 8));
        let mut batches = Vec::new();
        for t in (0..600).step_by(10) {
            let mut set = Vec::new();
            if t >= 100 {
                set.push((b, PointState::White));
            }
            if t >= 180 {
                set.push((a, PointState::White));
            }
            let out = st.feed(t, &frame(9, &set)).unwrap();
            if !out.is_empty() {
                batches.push((t, out));
            }
        }
        assert_eq!(batches.len(), 1);
        let (t, batch) = &batches[0];
        assert_eq!(*t, 330);
        assert_eq!(
            batch.iter().map(|c| c.point).collect::<Vec<_>>(),
            vec![b, a]
        );
    }

    #[test]
    fn wrong_length_frames_are_rejected() {
        let mut st = Stabiliser::new(9, 150, None);
        assert_eq!(st.feed(0, &[PointState::Empty; 3]), Err(3));
    }
}

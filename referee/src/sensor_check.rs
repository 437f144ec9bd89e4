//! The sensor check before play (docs/operating.md, "The black box", self-test): when a game is set
//! up, every sensor's readings are watched over the game's first [`CHECK_MS`] (and for as
//! long as its clocks wait for the arbiter). A sensor is found `stuck` when
//!
//! - its raw reading does not move at all: a live Hall sensor's output carries analog
//!   noise, a few counts of a 12-bit ADC from scan to scan, so [`CHECK_MS`] of one exact
//!   value (or [`EARLY_SCANS`] scans of it where the point reads other than the board
//!   expects, before the stabiliser could take it for a stone set down) is a dead sensor,
//!   an open input or a shorted one, whatever state the value reads as; or
//! - it reads between the bands (`Unknown`) for the whole of [`CHECK_MS`]: outside every
//!   band, which no stone gives and a hand does not hold that long over one point.
//!
//! A point found stuck is reported once, before any move is read from it, and from then on
//! the pipeline reads it as the board expects ([`SensorCheck::found`]): a stuck reading
//! never becomes a move. What it cannot catch: a sensor whose output still moves but no
//! longer follows the magnet (a cracked sensor reading noise around the empty level looks
//! like an empty point), and, on a board whose scanning microcontroller sends classified
//! frames, anything but a point reading `Unknown` (no raw readings to look at).
//!
//! Sans-IO: time and readings come with every scan.

use tengen_hal::{Millis, PointState};
use tengen_rules::Point;

/// How long the check watches a new game's sensors at least (ms).
pub const CHECK_MS: Millis = 2_000;

/// Scans of one exact raw reading that find a point stuck at once when it reads other than
/// the board expects (at 100 scans/s, well inside the stabiliser's 150 ms). A live sensor
/// with ±8 counts of noise repeats its reading eight times running with odds of 17^-7, about
/// one in 400 million per point.
pub const EARLY_SCANS: u32 = 8;

/// Watches the sensors of a game just set up.
#[derive(Debug, Clone)]
pub struct SensorCheck {
    size: u8,
    /// When the game was set up; `None` once the check is over.
    start: Option<Millis>,
    /// Each point's raw reading of its current run.
    raw: Vec<u16>,
    /// Since when each point has read exactly that, and in how many scans.
    run_since: Vec<Millis>,
    run_scans: Vec<u32>,
    /// The last scan with raw readings.
    last_raw: Option<Millis>,
    /// The check's first scan.
    first_scan: Option<Millis>,
    /// Since when each point has read `Unknown` without a break.
    unknown_since: Vec<Option<Millis>>,
    /// The points found stuck in this game.
    found: Vec<bool>,
    any_found: bool,
}

impl SensorCheck {
    /// A check starting at `now` for a new game on a `size` x `size` board.
    pub fn start(size: u8, now: Millis) -> SensorCheck {
        let mut check = SensorCheck::idle(size);
        check.start = Some(now);
        check
    }

    /// No check running (a game taken up after a restart), no point found.
    pub fn idle(size: u8) -> SensorCheck {
        let n = size as usize * size as usize;
        SensorCheck {
            size,
            start: None,
            raw: vec![0; n],
            run_since: vec![0; n],
            run_scans: vec![0; n],
            last_raw: None,
            first_scan: None,
            unknown_since: vec![None; n],
            found: vec![false; n],
            any_found: false,
        }
    }

    /// Marks points already found stuck (read back from the journal after a restart).
    pub fn mark_found(&mut self, points: impl IntoIterator<Item = Point>) {
        for p in points {
            if let Some(f) = self.found.get_mut(p.index(self.size)) {
                *f = true;
                self.any_found = true;
            }
        }
    }

    /// True while the check is watching.
    pub fn running(&self) -> bool {
        self.start.is_some()
    }

    /// The points found stuck in this game (index order), when any is.
    pub fn found(&self) -> Option<&[bool]> {
        self.any_found.then_some(self.found.as_slice())
    }

    /// One scan at `now`: its raw readings when it had them, its classified readings, what
    /// the board expects at each point, and whether the clocks wait for the arbiter.
    /// Returns the points found stuck by this scan (usually none).
    pub fn feed(
        &mut self,
        now: Millis,
        raw: Option<&[u16]>,
        states: &[PointState],
        expected: impl Fn(usize) -> PointState,
        waiting: bool,
    ) -> Vec<Point> {
        let Some(start) = self.start else {
            return Vec::new();
        };
        if states.len() != self.found.len() || raw.is_some_and(|r| r.len() != states.len()) {
            return Vec::new();
        }
        let first_scan = *self.first_scan.get_or_insert(now);
        let first_raw = self.last_raw.is_none();
        if let Some(raw) = raw {
            for (i, &r) in raw.iter().enumerate() {
                if first_raw || r != self.raw[i] {
                    self.raw[i] = r;
                    self.run_since[i] = now;
                    self.run_scans[i] = 1;
                } else {
                    self.run_scans[i] += 1;
                }
            }
            self.last_raw = Some(now);
        }
        let mut found = Vec::new();
        for (i, &state) in states.iter().enumerate() {
            let unknown_since = if state == PointState::Unknown {
                Some(*self.unknown_since[i].get_or_insert(now))
            } else {
                self.unknown_since[i] = None;
                None
            };
            if self.found[i] {
                continue;
            }
            let frozen = self.last_raw.is_some_and(|last| {
                self.run_scans[i] >= EARLY_SCANS
                    && (last.saturating_sub(self.run_since[i]) >= CHECK_MS
                        || (raw.is_some() && state != expected(i)))
            });
            let between = unknown_since
                .is_some_and(|since| since <= first_scan && now.saturating_sub(since) >= CHECK_MS);
            if frozen || between {
                self.found[i] = true;
                self.any_found = true;
                found.push(Point::from_index(i, self.size));
            }
        }
        // The check watches at least CHECK_MS of scans, counted from its first scan.
        if now.saturating_sub(start.max(first_scan)) >= CHECK_MS && !waiting {
            self.start = None;
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZE: u8 = 3;
    const N: usize = 9;

    /// A live sensor's reading: `level` plus noise drawn from `seed` and the scan.
    fn live(level: u16, seed: u64, scan: u64) -> u16 {
        let x = (seed ^ scan.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(6364136223846793005);
        level - 8 + ((x >> 40) % 17) as u16
    }

    /// Runs 10 ms scans from 0 to `to`, point `stuck` reading `value` exactly when given.
    fn run(
        check: &mut SensorCheck,
        to: Millis,
        stuck: Option<(usize, u16, PointState)>,
        waiting: impl Fn(Millis) -> bool,
    ) -> Vec<(Millis, Vec<Point>)> {
        let mut out = Vec::new();
        for t in (0..to).step_by(10) {
            let mut raw: Vec<u16> = (0..N).map(|i| live(2048, i as u64, t)).collect();
            let mut states = vec![PointState::Empty; N];
            if let Some((i, v, s)) = stuck {
                raw[i] = v;
                states[i] = s;
            }
            let found = check.feed(t, Some(&raw), &states, |_| PointState::Empty, waiting(t));
            if !found.is_empty() {
                out.push((t, found));
            }
        }
        out
    }

    #[test]
    fn live_sensors_are_never_found() {
        let mut check = SensorCheck::start(SIZE, 0);
        assert!(run(&mut check, 10_000, None, |_| false).is_empty());
        assert!(!check.running());
        assert!(check.found().is_none());
    }

    #[test]
    fn a_sensor_stuck_at_the_empty_level_is_found_after_the_check_time() {
        let mut check = SensorCheck::start(SIZE, 0);
        let out = run(
            &mut check,
            5_000,
            Some((4, 2048, PointState::Empty)),
            |_| false,
        );
        assert_eq!(out, vec![(CHECK_MS, vec![Point::from_index(4, SIZE)])]);
        assert_eq!(check.found().map(|f| f[4]), Some(true));
    }

    #[test]
    fn a_sensor_stuck_at_a_stone_is_found_before_the_stabiliser_could_read_it() {
        let mut check = SensorCheck::start(SIZE, 0);
        let out = run(
            &mut check,
            3_000,
            Some((0, 2662, PointState::Black)),
            |_| false,
        );
        assert_eq!(out, vec![(70, vec![Point::from_index(0, SIZE)])]);
    }

    #[test]
    fn the_check_goes_on_while_the_clocks_wait_and_ends_after() {
        let mut check = SensorCheck::start(SIZE, 0);
        assert!(run(&mut check, 5_000, None, |_| true).is_empty());
        assert!(check.running());
        let mut check = SensorCheck::start(SIZE, 0);
        // Stuck from the start, clocks waiting for 8 s: found at 2 s, the check ends at 8 s.
        let out = run(
            &mut check,
            10_000,
            Some((2, 2048, PointState::Empty)),
            |t| t < 8_000,
        );
        assert_eq!(out.len(), 1);
        assert!(!check.running());
    }

    #[test]
    fn a_point_between_the_bands_from_the_start_is_found_with_classified_frames_too() {
        let mut check = SensorCheck::start(SIZE, 0);
        let mut found = Vec::new();
        for t in (0..3_000).step_by(10) {
            let mut states = vec![PointState::Empty; N];
            states[8] = PointState::Unknown;
            found.extend(check.feed(t, None, &states, |_| PointState::Empty, false));
        }
        assert_eq!(found, vec![Point::from_index(8, SIZE)]);
    }
}

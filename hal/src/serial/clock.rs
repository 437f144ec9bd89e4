//! Mapping the microcontroller's clock onto the caller's (sans-IO).
//!
//! Scans and button edges are stamped by the microcontroller, which is exact but runs on
//! its own clock. The reader maps them onto the caller's clock with an offset: the smallest
//! delay seen (`now - mcu_time`) is the best estimate of the transmission latency, so a
//! backlog of old frames does not shift the mapping. The offset follows a faster sender
//! at once and a slower one once per window, so crystal drift cannot pile up.
//!
//! A rise of the offset is capped at [`MAX_DRIFT_PER_MILLE`] of the window: a sender's
//! clock drifts far less than that (a crystal 0.05 per mille, an RC oscillator a few per
//! mille), while a whole window of late reads (a busy reader) would otherwise jump the
//! mapped times forward all at once, and a stone whose stable time spans the jump would be
//! accepted early by that much.

use crate::traits::Millis;

/// How far the offset may rise per window, in thousandths of the window (5 per mille: 10 ms
/// per 2 s window).
pub const MAX_DRIFT_PER_MILLE: u64 = 5;

/// Maps microcontroller milliseconds to the caller's milliseconds.
#[derive(Debug, Clone)]
pub struct ClockMap {
    window_ms: u64,
    offset: Option<i64>,
    window_min: i64,
    window_end: Millis,
}

impl ClockMap {
    /// A map that re-estimates the latency every `window_ms`.
    pub fn new(window_ms: u64) -> Self {
        Self {
            window_ms: window_ms.max(1),
            offset: None,
            window_min: i64::MAX,
            window_end: 0,
        }
    }

    /// Forgets the mapping (the sender restarted, or the link was reopened).
    pub fn reset(&mut self) {
        self.offset = None;
        self.window_min = i64::MAX;
    }

    /// The caller's time of an event stamped `mcu` by the sender and received at `now`.
    /// Never later than `now`.
    pub fn map(&mut self, mcu: u64, now: Millis) -> Millis {
        let delay = now as i64 - mcu.min(i64::MAX as u64) as i64;
        let offset = match self.offset {
            None => {
                self.window_min = delay;
                self.window_end = now.saturating_add(self.window_ms);
                delay
            }
            Some(offset) => {
                self.window_min = self.window_min.min(delay);
                if now >= self.window_end {
                    let max_rise = (self.window_ms * MAX_DRIFT_PER_MILLE / 1000).max(1) as i64;
                    let next = self.window_min.min(offset.saturating_add(max_rise));
                    self.window_min = i64::MAX;
                    self.window_end = now.saturating_add(self.window_ms);
                    next
                } else {
                    offset.min(delay)
                }
            }
        };
        self.offset = Some(offset);
        let mapped = (mcu as i64).saturating_add(offset);
        mapped.clamp(0, now as i64) as Millis
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_is_kept_and_latency_taken_from_the_fastest_arrival() {
        let mut map = ClockMap::new(1000);
        // Sender at 5000, caller at 100 with 3 ms latency: offset -4897.
        assert_eq!(map.map(5000, 103), 103);
        // Received in a burst at 140: stamped times keep their 10 ms spacing.
        assert_eq!(map.map(5010, 140), 113);
        assert_eq!(map.map(5020, 140), 123);
        // A faster arrival lowers the latency estimate at once.
        assert_eq!(map.map(5030, 128), 128);
        assert_eq!(map.map(5040, 150), 138);
    }

    #[test]
    fn a_slow_sender_clock_is_followed_once_per_window() {
        let mut map = ClockMap::new(2000);
        assert_eq!(map.map(0, 0), 0);
        // The sender's clock runs 4 per mille slow (an RC oscillator): each 1000 caller-ms
        // it advances 996. Over ten minutes the lag stays within one window's drift.
        let mut last = 0;
        for i in 1..=600u64 {
            last = map.map(i * 996, i * 1000);
        }
        assert!(600_000 - last <= 8, "lag {} ms", 600_000 - last);
    }

    #[test]
    fn a_window_of_late_reads_moves_the_mapping_by_the_cap_only() {
        let mut map = ClockMap::new(2000);
        // 10 ms scans read 2 ms after they are stamped...
        for i in 0..=200u64 {
            assert_eq!(map.map(i * 10, i * 10 + 2), i * 10 + 2);
        }
        // ...then a whole window read 60 ms late (a busy reader), then on time again.
        let mut mapped = Vec::new();
        for i in 201..=600u64 {
            let late = if i <= 400 { 60 } else { 2 };
            mapped.push((i * 10, map.map(i * 10, i * 10 + late)));
        }
        // Scan times are never shifted forward by more than the cap (10 ms per window)
        // beyond the 2 ms latency, and the spacing of scans 10 ms apart never shrinks below
        // 0 or grows past 20 ms.
        for (stamped, at) in &mapped {
            assert!(*at <= stamped + 2 + 10, "{stamped} mapped to {at}");
        }
        assert!(mapped.iter().any(|(stamped, at)| *at > stamped + 2));
        for w in mapped.windows(2) {
            let gap = w[1].1 as i64 - w[0].1 as i64;
            assert!((0..=20).contains(&gap), "gap {gap} at {:?}", w[1]);
        }
    }

    #[test]
    fn never_later_than_now_and_reset_reanchors() {
        let mut map = ClockMap::new(1000);
        assert_eq!(map.map(100, 100), 100);
        map.reset();
        assert_eq!(map.map(3, 500), 500);
        assert_eq!(map.map(13, 505), 505);
    }
}

//! Mapping the microcontroller's clock onto the caller's (sans-IO).
//!
//! Scans and button edges are stamped by the microcontroller, which is exact but runs on
//! its own clock. The reader maps them onto the caller's clock with an offset: the smallest
//! delay seen (`now - mcu_time`) is the best estimate of the transmission latency, so a
//! backlog of old frames does not shift the mapping. The offset follows a faster sender
//! at once and a slower one once per window, so crystal drift cannot pile up.

use crate::traits::Millis;

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
                    let next = self.window_min;
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
        let mut map = ClockMap::new(100);
        assert_eq!(map.map(0, 0), 0);
        // The sender's clock runs 10% slow: each 10 caller-ms it advances 9.
        let mut last = 0;
        for i in 1..=100u64 {
            last = map.map(i * 9, i * 10);
        }
        assert!(
            1000 - last <= 100,
            "lag {} stays within one window",
            1000 - last
        );
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

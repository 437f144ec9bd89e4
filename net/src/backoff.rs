//! Reconnect back-off: exponential, capped, with random jitter so that 500 boards that lost
//! the broker at the same moment do not come back in lock-step.

use std::time::Duration;

use rand::Rng;

/// Back-off policy and state: the n-th consecutive failure waits a random time in
/// `[d/2, d]` where `d = min(initial * 2^n, max)` ("equal jitter").
#[derive(Debug, Clone)]
pub struct Backoff {
    initial: Duration,
    max: Duration,
    failures: u32,
}

impl Backoff {
    /// A back-off starting at `initial` and never exceeding `max`.
    pub fn new(initial: Duration, max: Duration) -> Backoff {
        Backoff {
            initial,
            max: max.max(initial),
            failures: 0,
        }
    }

    /// The upper bound of the next delay (before jitter).
    pub fn ceiling(&self) -> Duration {
        let factor = 1u32.checked_shl(self.failures.min(20)).unwrap_or(u32::MAX);
        self.initial.saturating_mul(factor).min(self.max)
    }

    /// The delay before the next attempt, drawn from `rng`; counts one more failure.
    pub fn next_delay<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Duration {
        let ceiling = self.ceiling();
        self.failures = self.failures.saturating_add(1);
        let ms = u64::try_from(ceiling.as_millis()).unwrap_or(u64::MAX);
        let half = ms / 2;
        Duration::from_millis(rng.random_range(half..=ms))
    }

    /// A connection succeeded: start again from `initial`.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

impl Default for Backoff {
    /// 500 ms doubling up to 30 s.
    fn default() -> Backoff {
        Backoff::new(Duration::from_millis(500), Duration::from_secs(30))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn grows_exponentially_up_to_the_cap() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut b = Backoff::new(Duration::from_millis(100), Duration::from_secs(2));
        let mut ceilings = Vec::new();
        for _ in 0..8 {
            let c = b.ceiling();
            let d = b.next_delay(&mut rng);
            assert!(d <= c && d >= c / 2, "{d:?} outside [{:?}, {c:?}]", c / 2);
            ceilings.push(c.as_millis());
        }
        assert_eq!(ceilings, [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
        b.reset();
        assert_eq!(b.ceiling(), Duration::from_millis(100));
    }

    #[test]
    fn jitter_spreads_many_boards() {
        // 500 boards failing at once must not all pick the same delay.
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let mut delays = std::collections::BTreeSet::new();
        for _ in 0..500 {
            let mut b = Backoff::default();
            b.next_delay(&mut rng);
            b.next_delay(&mut rng);
            delays.insert(b.next_delay(&mut rng));
        }
        assert!(delays.len() > 300, "only {} distinct delays", delays.len());
        let min = delays.iter().next().unwrap();
        let max = delays.iter().next_back().unwrap();
        assert!(*max - *min > Duration::from_millis(800));
    }
}

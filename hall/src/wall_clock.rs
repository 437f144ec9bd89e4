//! The wall clock beside the monotonic one: what is kept on disk (the console store) is in
//! ms since the epoch, what the hall compares is an [`Instant`].

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Now on the wall clock, in ms since the epoch.
pub(crate) fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The monotonic instant of wall time `at_ms`, given that `now` is `wall_now_ms`: in the
/// past when `at_ms` is (saturating at `now` for a time in the future).
pub(crate) fn instant_of(at_ms: u64, now: Instant, wall_now_ms: u64) -> Instant {
    let back = Duration::from_millis(wall_now_ms.saturating_sub(at_ms));
    now.checked_sub(back).unwrap_or(now)
}

/// The wall time (ms since the epoch) of instant `at`, given that `now` is `wall_now_ms`.
pub(crate) fn wall_of(at: Instant, now: Instant, wall_now_ms: u64) -> u64 {
    if at >= now {
        let ahead = u64::try_from(at.duration_since(now).as_millis()).unwrap_or(u64::MAX);
        wall_now_ms.saturating_add(ahead)
    } else {
        let back = u64::try_from(now.duration_since(at).as_millis()).unwrap_or(u64::MAX);
        wall_now_ms.saturating_sub(back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_and_monotonic_times_go_back_and_forth() {
        let now = Instant::now();
        let wall = 1_800_000_000_000;
        let earlier = now.checked_sub(Duration::from_secs(90)).unwrap();
        assert_eq!(wall_of(earlier, now, wall), wall - 90_000);
        assert_eq!(instant_of(wall - 90_000, now, wall), earlier);
        assert_eq!(
            wall_of(now + Duration::from_secs(5), now, wall),
            wall + 5_000
        );
        assert_eq!(
            instant_of(wall + 5_000, now, wall),
            now,
            "never in the future"
        );
    }
}

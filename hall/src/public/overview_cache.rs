//! The overview's data (`/api/boards`), shared by every viewer.
//!
//! Building it walks every board under the hall's lock, which the MQTT task needs for each
//! message. With one build per request, 40 overview pages open on a 1,000-board hall (20
//! requests a second, 0.8 MB each) kept the lock so busy that the hall fell minutes behind
//! the boards (bench/hall-scale.sh, BENCHMARKS.md "Hall scale"). So the hall builds it at
//! most once per [`REFRESH`], serialised once, and every viewer in between gets those same
//! bytes, with the copy's age in the `X-Tengen-Age-Ms` header: each board's
//! `state_age_ms` and `last_heard_ms` are as of the build, and the page adds the age so its
//! clocks stay exact. (Aging every board's fields for each request meant copying,
//! serialising and freeing the whole overview per viewer: over half of a 1,000-board hall's
//! CPU, BENCHMARKS.md "One state per board".)

use std::time::{Duration, Instant};

use axum::body::Bytes;

use crate::boards::hall_state::{lock, Shared};

/// How long one build of the overview is served before the next request rebuilds it.
pub(crate) const REFRESH: Duration = Duration::from_secs(1);

/// The header that says how old the served copy is (ms).
pub(crate) const AGE_HEADER: &str = "x-tengen-age-ms";

/// The last overview built (the JSON bytes), and when.
#[derive(Default)]
pub(crate) struct OverviewCache {
    last: tokio::sync::Mutex<Option<(Instant, Bytes)>>,
}

impl OverviewCache {
    /// The overview at `now`: the JSON built less than [`REFRESH`] ago, or a new one, with
    /// its age. Requests that arrive during a build wait for it instead of building too.
    pub(crate) async fn boards(&self, hall: &Shared, now: Instant) -> (Bytes, Duration) {
        let mut last = self.last.lock().await;
        let (built, boards) = match last.as_ref() {
            Some((at, b)) if now.saturating_duration_since(*at) < REFRESH => (*at, b.clone()),
            _ => {
                let b = Bytes::from(lock(hall).boards_json_text(now));
                *last = Some((now, b.clone()));
                (now, b)
            }
        };
        drop(last);
        (boards, now.saturating_duration_since(built))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::Value;

    use super::*;
    use crate::HallState;

    fn hall() -> Shared {
        Arc::new(Mutex::new(HallState::new("tengen", None)))
    }

    fn state(hall: &Shared, number: u64, now: Instant) {
        let payload =
            crate::test_support::whole_state(serde_json::json!({"number": number, "seq": number}));
        lock(hall).on_message("tengen/t/b1/state", payload.to_string().as_bytes(), now);
    }

    async fn served(cache: &OverviewCache, hall: &Shared, now: Instant) -> (Value, u128) {
        let (bytes, age) = cache.boards(hall, now).await;
        (
            serde_json::from_slice(&bytes).expect("JSON"),
            age.as_millis(),
        )
    }

    #[tokio::test]
    async fn one_build_is_served_until_it_is_stale_with_its_age() {
        let t = Instant::now();
        let hall = hall();
        let cache = OverviewCache::default();
        state(&hall, 1, t);
        let (first, age) = served(&cache, &hall, t).await;
        assert_eq!((&first[0]["number"], age), (&Value::from(1), 0));
        assert_eq!(first[0]["state_age_ms"], 0);

        // A newer state arrives; a viewer within REFRESH gets the same copy and its age.
        state(&hall, 2, t + Duration::from_millis(100));
        let (again, age) = served(&cache, &hall, t + Duration::from_millis(400)).await;
        assert_eq!(again, first);
        assert_eq!(age, 400);

        // Past REFRESH the next viewer gets a new build.
        let (later, age) = served(&cache, &hall, t + REFRESH).await;
        assert_eq!((&later[0]["number"], age), (&Value::from(2), 0));
        assert_eq!(
            later[0]["state_age_ms"],
            (REFRESH - Duration::from_millis(100)).as_millis() as u64
        );
    }
}

//! The overview's data (`/api/boards`), shared by every viewer.
//!
//! Building it walks every board under the hall's lock, which the MQTT task needs for each
//! message. With one build per request, 40 overview pages open on a 1,000-board hall (20
//! requests a second, 0.8 MB each) kept the lock so busy that the hall fell minutes behind
//! the boards (bench/hall-scale.sh, BENCHMARKS.md "Hall scale"). So the hall builds it at
//! most once per [`REFRESH`] and every viewer in between gets that copy, with each board's
//! `state_age_ms` grown by the copy's age so the pages' clocks stay exact.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::boards::mqtt_client::{lock, Shared};

/// How long one build of the overview is served before the next request rebuilds it.
pub(crate) const REFRESH: Duration = Duration::from_secs(1);

/// The last overview built, and when.
#[derive(Default)]
pub(crate) struct OverviewCache {
    last: tokio::sync::Mutex<Option<(Instant, Arc<Value>)>>,
}

impl OverviewCache {
    /// The overview at `now`: the copy built less than [`REFRESH`] ago (aged to `now`), or
    /// a new one. Requests that arrive during a build wait for it instead of building too.
    pub(crate) async fn boards(&self, hall: &Shared, now: Instant) -> Value {
        let mut last = self.last.lock().await;
        let (built, boards) = match last.as_ref() {
            Some((at, v)) if now.saturating_duration_since(*at) < REFRESH => (*at, v.clone()),
            _ => {
                let v = Arc::new(lock(hall).boards_json(now));
                *last = Some((now, v.clone()));
                (now, v)
            }
        };
        drop(last);
        aged(&boards, now.saturating_duration_since(built))
    }
}

/// `boards` (the `/api/boards` array) as seen `later` than it was built: every
/// `state_age_ms` grown by `later`.
fn aged(boards: &Value, later: Duration) -> Value {
    let mut v = boards.clone();
    let add = u64::try_from(later.as_millis()).unwrap_or(u64::MAX);
    if add == 0 {
        return v;
    }
    for b in v.as_array_mut().into_iter().flatten() {
        if let Some(age) = b.get_mut("state_age_ms") {
            if let Some(n) = age.as_u64() {
                *age = Value::from(n.saturating_add(add));
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::HallState;

    fn hall() -> Shared {
        Arc::new(Mutex::new(HallState::new("tengen", None, "h")))
    }

    fn state(hall: &Shared, number: u64, now: Instant) {
        let payload = format!(r#"{{"number":{number},"seq":{number}}}"#);
        lock(hall).on_message("tengen/t/b1/state", payload.as_bytes(), now);
    }

    #[tokio::test]
    async fn one_build_is_served_until_it_is_stale() {
        let t = Instant::now();
        let hall = hall();
        let cache = OverviewCache::default();
        state(&hall, 1, t);
        let first = cache.boards(&hall, t).await;
        assert_eq!(first[0]["number"], 1);
        assert_eq!(first[0]["state_age_ms"], 0);

        // A newer state arrives; a viewer within REFRESH gets the copy, aged.
        state(&hall, 2, t + Duration::from_millis(100));
        let again = cache.boards(&hall, t + Duration::from_millis(400)).await;
        assert_eq!(again[0]["number"], 1);
        assert_eq!(again[0]["state_age_ms"], 400);

        // Past REFRESH the next viewer gets a new build.
        let later = cache.boards(&hall, t + REFRESH).await;
        assert_eq!(later[0]["number"], 2);
        assert_eq!(
            later[0]["state_age_ms"],
            (REFRESH - Duration::from_millis(100)).as_millis() as u64
        );
    }

    #[test]
    fn aging_touches_only_state_ages() {
        let v = serde_json::json!([
            {"board": "b1", "state_age_ms": 5, "number": 3},
            {"board": "b2", "state_age_ms": null}
        ]);
        let a = aged(&v, Duration::from_millis(250));
        assert_eq!(a[0]["state_age_ms"], 255);
        assert_eq!(a[0]["number"], 3);
        assert_eq!(a[1]["state_age_ms"], Value::Null);
        assert_eq!(aged(&v, Duration::ZERO), v);
    }
}

//! The public round zip (`/round/{round}.zip`), built at most five times a second per
//! round (issue 34): a crowd asking for it costs a few builds a second, not one each (each
//! build deflates every record of the round). The feed is as fresh (it refreshes at most
//! every 0.2 s too), and an arbiter's confirmation drops every copy at once. The age of
//! the copy served is in `X-Tengen-Age-Ms`, as the overview's. Arbiters' zips (with the
//! black boxes) are built for each request: they are few.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::body::Bytes;

/// How long a built zip is served before it is built again.
const FRESH: Duration = Duration::from_millis(200);
/// The most rounds kept (a request for a round that does not exist is kept too, as none).
const MOST_ROUNDS: usize = 64;

/// One round's zip as built: its bytes (`None`: no game of that round), and when.
struct Built {
    at: Instant,
    zip: Option<Bytes>,
}

/// The public zips built lately, by round.
#[derive(Default)]
pub(crate) struct ZipCache {
    built: Mutex<HashMap<String, Built>>,
}

impl ZipCache {
    /// Drops every copy: what the zips hold has changed (an arbiter confirmed results).
    pub(crate) fn clear(&self) {
        self.built.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Round `round`'s public zip as of at most [`FRESH`] before `now` (`None`: no game of
    /// that round), built by `build` when there is no copy that fresh, with its age. A
    /// build that fails is not kept.
    pub(crate) fn public<E>(
        &self,
        round: &str,
        now: Instant,
        build: impl FnOnce() -> Option<Result<Vec<u8>, E>>,
    ) -> Result<(Option<Bytes>, Duration), E> {
        let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(b) = built.get(round) {
            let age = now.saturating_duration_since(b.at);
            if age < FRESH {
                return Ok((b.zip.clone(), age));
            }
        }
        let zip = build().transpose()?.map(Bytes::from);
        if built.len() >= MOST_ROUNDS && !built.contains_key(round) {
            built.retain(|_, b| now.saturating_duration_since(b.at) < FRESH);
            if built.len() >= MOST_ROUNDS {
                let oldest = built
                    .iter()
                    .min_by_key(|(_, b)| b.at)
                    .map(|(r, _)| r.clone());
                if let Some(r) = oldest {
                    built.remove(&r);
                }
            }
        }
        built.insert(
            round.to_string(),
            Built {
                at: now,
                zip: zip.clone(),
            },
        );
        Ok((zip, Duration::ZERO))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_is_built_at_most_five_times_a_second_and_the_kept_rounds_are_bounded() {
        let cache = ZipCache::default();
        let t0 = Instant::now();
        let mut builds = 0;
        let mut ask = |round: &str, at: Instant| {
            cache
                .public::<()>(round, at, || {
                    builds += 1;
                    Some(Ok(vec![builds as u8]))
                })
                .expect("built")
        };
        let (first, age) = ask("1", t0);
        assert_eq!((first.as_deref(), age), (Some(&[1u8][..]), Duration::ZERO));
        for ms in [1, 100, 199] {
            let (zip, age) = ask("1", t0 + Duration::from_millis(ms));
            assert_eq!(zip.as_deref(), Some(&[1u8][..]));
            assert_eq!(age, Duration::from_millis(ms));
        }
        let (again, _) = ask("1", t0 + Duration::from_millis(200));
        assert_eq!(again.as_deref(), Some(&[2u8][..]));
        for n in 0..200 {
            ask(&format!("r{n}"), t0 + Duration::from_millis(200));
        }
        assert!(cache.built.lock().unwrap().len() <= MOST_ROUNDS);
        cache.clear();
        let (rebuilt, _) = ask("1", t0 + Duration::from_millis(201));
        assert_eq!(rebuilt.as_deref(), Some(&[203u8][..]));
        // No game: kept as none, not built again within the second.
        let none = cache.public::<()>("x", t0, || None).expect("no zip");
        assert_eq!(none, (None, Duration::ZERO));
        let failed = cache.public("y", t0, || Some(Err("disk")));
        assert_eq!(failed, Err("disk"));
    }
}

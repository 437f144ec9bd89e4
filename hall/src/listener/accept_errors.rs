//! Failed `accept`s (out of open files, mostly) said once per episode, not ten times a
//! second: the first failure is logged, the others only counted until accepting has worked
//! for a while, and then one line says it passed. Sans-IO: time is passed in.

use std::time::{Duration, Instant};

/// How long accepting must go without a failure for an episode to be over.
const QUIET: Duration = Duration::from_secs(2);

/// The episode of failed accepts under way, if any.
#[derive(Debug, Default)]
pub(crate) struct AcceptErrors {
    episode: Option<Episode>,
}

#[derive(Debug)]
struct Episode {
    since: Instant,
    last: Instant,
    failures: u64,
}

/// An episode that is over: how many accepts failed, over how long.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Passed {
    /// Failed accepts.
    pub(crate) failures: u64,
    /// From the first failure to the last.
    pub(crate) lasted: Duration,
}

impl AcceptErrors {
    /// An accept failed; true when this begins an episode (say it).
    pub(crate) fn failed(&mut self, now: Instant) -> bool {
        match &mut self.episode {
            Some(e) => {
                e.failures += 1;
                e.last = now;
                false
            }
            None => {
                self.episode = Some(Episode {
                    since: now,
                    last: now,
                    failures: 1,
                });
                true
            }
        }
    }

    /// An accept worked; the episode that is over with it, if one is.
    pub(crate) fn accepted(&mut self, now: Instant) -> Option<Passed> {
        let e = self.episode.as_ref()?;
        if now.duration_since(e.last) < QUIET {
            return None;
        }
        let passed = Passed {
            failures: e.failures,
            lasted: e.last.duration_since(e.since),
        };
        self.episode = None;
        Some(passed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_failures_a_second_are_one_episode_said_once() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut errors = AcceptErrors::default();
        let said = (0..100).filter(|i| errors.failed(ms(i * 100))).count();
        assert_eq!(said, 1);
        // Accepts between failures do not end it; one after a quiet while does.
        assert_eq!(errors.accepted(ms(9_950)), None);
        assert_eq!(
            errors.accepted(ms(12_000)),
            Some(Passed {
                failures: 100,
                lasted: Duration::from_millis(9_900)
            })
        );
        assert_eq!(errors.accepted(ms(12_100)), None);
        assert!(errors.failed(ms(20_000)), "a new episode is said again");
    }
}

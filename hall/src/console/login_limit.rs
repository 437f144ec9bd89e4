//! How often the console's login may be tried: sans-IO, time passed in. Each client address
//! (an IPv6 client by its /64) and each arbiter name may fail [`LIMIT`] times within
//! [`WINDOW`]; the failure that reaches the limit locks that address or name for [`WINDOW`], and each lock that follows within
//! [`FORGET_AFTER`] lasts twice as long as the one before (at most [`MAX_LOCK`]). A login
//! that succeeds clears its address and its name. A locked login is answered
//! `429 Too Many Requests` with `Retry-After`, before any password is checked.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Failed attempts allowed per address and per name within [`WINDOW`].
pub(crate) const LIMIT: usize = 5;
/// The window the failures are counted in, and the first lock's length.
pub(crate) const WINDOW: Duration = Duration::from_secs(60);
/// The longest lock.
pub(crate) const MAX_LOCK: Duration = Duration::from_secs(3600);
/// An address or name with no failure for this long starts again from nothing.
pub(crate) const FORGET_AFTER: Duration = Duration::from_secs(6 * 3600);
/// Names are counted by their first this many characters (a name longer than any arbiter's
/// costs no more memory).
const NAME_CHARS: usize = 64;
/// Above this many addresses and names followed, the ones no longer locked and quiet for a
/// window are forgotten first.
const PRUNE_ABOVE: usize = 10_000;

/// Whom a login attempt is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Addr(IpAddr),
    Name(String),
}

/// What is known of one address or name.
#[derive(Debug, Default)]
struct Record {
    /// Failures within the last [`WINDOW`] (since the last lock).
    failures: VecDeque<Instant>,
    /// Locks so far (each doubles the next).
    locks: u32,
    /// Locked until then.
    locked_until: Option<Instant>,
    /// The last failure.
    last: Option<Instant>,
}

/// The login attempts of every address and name.
#[derive(Debug, Default)]
pub(crate) struct LoginLimiter {
    records: HashMap<Key, Record>,
}

fn keys(addr: IpAddr, name: &str) -> [Key; 2] {
    // One IPv6 host usually has a whole /64.
    let addr = match addr {
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        v4 => v4,
    };
    [
        Key::Addr(addr),
        Key::Name(name.chars().take(NAME_CHARS).collect()),
    ]
}

impl LoginLimiter {
    /// Whether `addr` may try to log in as `name` at `now`: `Err(wait)` while either is
    /// locked, `wait` being how long the longer lock still lasts.
    pub(crate) fn check(&self, addr: IpAddr, name: &str, now: Instant) -> Result<(), Duration> {
        let wait = keys(addr, name)
            .iter()
            .filter_map(|k| self.records.get(k)?.locked_until)
            .filter(|until| *until > now)
            .map(|until| until - now)
            .max();
        match wait {
            Some(w) => Err(w),
            None => Ok(()),
        }
    }

    /// Records a failed attempt of `addr` as `name` at `now`.
    pub(crate) fn failed(&mut self, addr: IpAddr, name: &str, now: Instant) {
        if self.records.len() > PRUNE_ABOVE {
            self.prune(now);
        }
        for key in keys(addr, name) {
            let r = self.records.entry(key).or_default();
            if r.last
                .is_some_and(|last| now.saturating_duration_since(last) >= FORGET_AFTER)
            {
                *r = Record::default();
            }
            r.last = Some(now);
            while r
                .failures
                .front()
                .is_some_and(|t| now.saturating_duration_since(*t) >= WINDOW)
            {
                r.failures.pop_front();
            }
            r.failures.push_back(now);
            if r.failures.len() >= LIMIT {
                let lock = WINDOW.saturating_mul(1u32 << r.locks.min(16)).min(MAX_LOCK);
                r.locks = r.locks.saturating_add(1);
                r.locked_until = Some(now + lock);
                r.failures.clear();
            }
        }
    }

    /// Records a login of `addr` as `name`: both start again from nothing.
    pub(crate) fn succeeded(&mut self, addr: IpAddr, name: &str) {
        for key in keys(addr, name) {
            self.records.remove(&key);
        }
    }

    /// Forgets what is neither locked nor failed within the last [`WINDOW`]; when that is
    /// not enough, what has not failed for [`FORGET_AFTER`] too (its locks forgotten).
    fn prune(&mut self, now: Instant) {
        let quiet = |r: &Record, for_: Duration| {
            r.locked_until.is_none_or(|u| u <= now)
                && r.last
                    .is_none_or(|l| now.saturating_duration_since(l) >= for_)
        };
        self.records.retain(|_, r| !quiet(r, FORGET_AFTER));
        if self.records.len() > PRUNE_ABOVE {
            self.records.retain(|_, r| !quiet(r, WINDOW));
        }
    }

    /// How many addresses and names are followed.
    #[cfg(test)]
    fn followed(&self) -> usize {
        self.records.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 1, 20));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 1, 21));

    fn s(secs: u64) -> Duration {
        Duration::from_secs(secs)
    }

    #[test]
    fn five_failures_a_minute_then_a_lock_of_a_minute() {
        let t0 = Instant::now();
        let mut l = LoginLimiter::default();
        for i in 0..4 {
            assert_eq!(l.check(A, "chief", t0 + s(i)), Ok(()));
            l.failed(A, "chief", t0 + s(i));
        }
        // The fifth attempt is still checked; its failure locks for a minute.
        assert_eq!(l.check(A, "chief", t0 + s(10)), Ok(()));
        l.failed(A, "chief", t0 + s(10));
        assert_eq!(l.check(A, "chief", t0 + s(10)), Err(s(60)));
        assert_eq!(l.check(A, "chief", t0 + s(69)), Err(s(1)));
        assert_eq!(l.check(A, "chief", t0 + s(70)), Ok(()));
        // Both the address (any name) and the name (any address) are locked.
        assert_eq!(l.check(A, "deputy", t0 + s(30)), Err(s(40)));
        assert_eq!(l.check(B, "chief", t0 + s(30)), Err(s(40)));
        assert_eq!(l.check(B, "deputy", t0 + s(30)), Ok(()));
    }

    #[test]
    fn failures_older_than_the_window_do_not_count() {
        let t0 = Instant::now();
        let mut l = LoginLimiter::default();
        // One failure every 15 s: never 5 within a minute.
        for i in 0..20 {
            let t = t0 + s(15 * i);
            assert_eq!(l.check(A, "chief", t), Ok(()), "attempt {i}");
            l.failed(A, "chief", t);
        }
        // Five within 60 s lock.
        let t1 = t0 + s(1000);
        for i in 0..5 {
            l.failed(A, "chief", t1 + s(i));
        }
        assert_eq!(l.check(A, "chief", t1 + s(5)), Err(s(59)));
    }

    #[test]
    fn each_lock_doubles_up_to_an_hour() {
        let t0 = Instant::now();
        let mut l = LoginLimiter::default();
        let mut t = t0;
        let mut locks = Vec::new();
        for _ in 0..9 {
            for _ in 0..5 {
                l.failed(B, "deputy", t);
            }
            let wait = l.check(B, "deputy", t).unwrap_err();
            locks.push(wait.as_secs());
            t += wait;
            assert_eq!(l.check(B, "deputy", t), Ok(()));
        }
        assert_eq!(locks, [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]);
        // Quiet for six hours: back to a minute.
        t += FORGET_AFTER;
        for _ in 0..5 {
            l.failed(B, "deputy", t);
        }
        assert_eq!(l.check(B, "deputy", t), Err(s(60)));
    }

    #[test]
    fn a_login_clears_its_address_and_name() {
        let t0 = Instant::now();
        let mut l = LoginLimiter::default();
        for i in 0..4 {
            l.failed(A, "chief", t0 + s(i));
        }
        l.succeeded(A, "chief");
        for i in 0..4 {
            l.failed(A, "chief", t0 + s(10 + i));
        }
        assert_eq!(l.check(A, "chief", t0 + s(20)), Ok(()));
        l.failed(A, "chief", t0 + s(20));
        assert_eq!(l.check(A, "chief", t0 + s(20)), Err(s(60)));
    }

    #[test]
    fn long_names_and_many_names_are_bounded() {
        let t0 = Instant::now();
        let mut l = LoginLimiter::default();
        let long = "x".repeat(10_000);
        for i in 0..5 {
            // Names alike in their first 64 characters count as one.
            l.failed(B, &format!("{long}{i}"), t0);
        }
        assert_eq!(l.check(A, &long, t0), Err(s(60)));
        // Names sprayed from many addresses over an hour: the quiet ones are forgotten.
        let mut l = LoginLimiter::default();
        for i in 0..30_000u32 {
            let addr = IpAddr::V4(std::net::Ipv4Addr::from(i));
            l.failed(
                addr,
                &format!("n{i}"),
                t0 + Duration::from_millis(u64::from(i) * 500),
            );
        }
        assert!(l.followed() <= PRUNE_ABOVE + 2, "{}", l.followed());
        // The addresses of one IPv6 /64 count as one.
        let mut l = LoginLimiter::default();
        for i in 0..5u16 {
            let addr = IpAddr::V6(std::net::Ipv6Addr::new(0x2001, 0xdb8, 0, 7, 0, 0, 0, i));
            l.failed(addr, &format!("n{i}"), t0);
        }
        let other = IpAddr::V6(std::net::Ipv6Addr::new(0x2001, 0xdb8, 0, 7, 1, 2, 3, 4));
        assert_eq!(l.check(other, "n9", t0), Err(s(60)));
        let next = IpAddr::V6(std::net::Ipv6Addr::new(0x2001, 0xdb8, 0, 8, 0, 0, 0, 1));
        assert_eq!(l.check(next, "n9", t0), Ok(()));
    }
}

//! One representation of time on the wire and in the fold: [`Timestamp`], milliseconds
//! since the Unix epoch, written as UTC with milliseconds (`2026-11-29T13:45:01.250Z`).
//!
//! The sans-IO cores (stabiliser, referee, clock) count in plain milliseconds on the
//! caller's clock (`tengen_hal::Millis`); on a board that clock is the wall clock in ms
//! since the epoch, so a `Timestamp` is the same number with a written form.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// An instant: milliseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Timestamp(u64);

/// A time that is not UTC in RFC 3339 form.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0:?} is not a UTC time like 2026-11-29T13:45:01.250Z")]
pub struct TimeError(String);

impl Timestamp {
    /// The instant `ms` milliseconds after the Unix epoch.
    pub const fn from_millis(ms: u64) -> Timestamp {
        Timestamp(ms)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn millis(self) -> u64 {
        self.0
    }

    /// Now, on this machine's clock (0 before 1970).
    pub fn now() -> Timestamp {
        Timestamp::from_system(SystemTime::now())
    }

    /// A system time (0 before 1970).
    pub fn from_system(t: SystemTime) -> Timestamp {
        let ms = t
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Timestamp(ms)
    }

    /// As a system time.
    pub fn to_system(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.0)
    }

    /// Parses RFC 3339 UTC (`2026-11-29T13:45:01.250Z`; any number of decimals).
    pub fn parse(text: &str) -> Result<Timestamp, TimeError> {
        humantime::parse_rfc3339(text)
            .map(Timestamp::from_system)
            .map_err(|_| TimeError(text.to_string()))
    }

    /// Milliseconds from `earlier` to `self` (0 when `earlier` is later).
    pub fn since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// `ms` milliseconds later.
    pub fn plus(self, ms: u64) -> Timestamp {
        Timestamp(self.0.saturating_add(ms))
    }
}

impl fmt::Display for Timestamp {
    /// `2026-11-29T13:45:01.250Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", humantime::format_rfc3339_millis(self.to_system()))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Timestamp, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(d)?;
        Timestamp::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// A duration as people read it on a clock or in an alert: `1:05:07`, `4:09`, `0:42`.
pub fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_milliseconds() {
        let t = Timestamp::parse("2026-11-29T13:45:01.250Z").unwrap();
        assert_eq!(t.to_string(), "2026-11-29T13:45:01.250Z");
        assert_eq!(t.millis() % 1000, 250);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, "\"2026-11-29T13:45:01.250Z\"");
        assert_eq!(serde_json::from_str::<Timestamp>(&json).unwrap(), t);
        assert_eq!(
            Timestamp::from_millis(0).to_string(),
            "1970-01-01T00:00:00.000Z"
        );
        assert!(Timestamp::parse("yesterday").is_err());
        assert!(serde_json::from_str::<Timestamp>("17").is_err());
    }

    #[test]
    fn clock_text_reads_like_a_clock() {
        assert_eq!(clock_text(42_900), "0:42");
        assert_eq!(clock_text(249_000), "4:09");
        assert_eq!(clock_text(3_907_000), "1:05:07");
    }
}

//! Each venue's link as the hub sees it, for the broadcast's director
//! (`/api/console/venues`): up, lagging by N events, or down since when; whether its hall
//! is heard (its heads); and what crossed: events live over the bridge, events the hub had
//! to ask for (what the brokers alone would have lost), asks sent.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengen_protocol::topics::BoardKey;
use tengen_protocol::Timestamp;

use crate::venues::wire::HEADS_EVERY;

/// How long a venue may be silent (no heads, no event) before its link counts as down:
/// three heads missed.
pub(crate) const SILENCE: Duration = Duration::from_secs(HEADS_EVERY.as_secs() * 3 + 1);

/// What the hub knows of one venue's link.
#[derive(Debug, Default)]
pub(crate) struct VenueLink {
    /// The bridge's own word (its notification: connected or not), and since when.
    bridge: Option<(bool, Timestamp)>,
    /// When anything last came from the venue.
    heard: Option<(Instant, Timestamp)>,
    /// When its hall's heads last came.
    heads_at: Option<(Instant, Timestamp)>,
    /// The newest `seq` its hall holds, per board (its last heads).
    pub(crate) heads: HashMap<BoardKey, u64>,
    /// Events that came over the bridge.
    pub(crate) events_live: u64,
    /// Events the hub took from its answers and did not have: what the brokers lost.
    pub(crate) events_filled: u64,
    /// Boards asked for (one ask each).
    pub(crate) asks: u64,
    /// Fill messages taken.
    pub(crate) fills: u64,
}

/// How a link stands, in a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LinkState {
    /// Nothing missing.
    Up,
    /// Heard, but the hub lacks events the venue holds.
    Lagging,
    /// The bridge is down, or nothing came for [`SILENCE`].
    Down,
    /// Never heard of.
    Unknown,
}

impl LinkState {
    fn as_str(self) -> &'static str {
        match self {
            LinkState::Up => "up",
            LinkState::Lagging => "lagging",
            LinkState::Down => "down",
            LinkState::Unknown => "unknown",
        }
    }
}

impl VenueLink {
    /// Something came from the venue.
    pub(crate) fn heard(&mut self, now: Instant, wall: Timestamp) {
        self.heard = Some((now, wall));
    }

    /// Its hall's heads came.
    pub(crate) fn heads_came(&mut self, now: Instant, wall: Timestamp) {
        self.heads_at = Some((now, wall));
    }

    /// The bridge's notification: `connected` or not.
    pub(crate) fn bridge(&mut self, connected: bool, wall: Timestamp) {
        if self.bridge.map(|(c, _)| c) != Some(connected) {
            self.bridge = Some((connected, wall));
        }
    }

    /// The link's state at `now`, with the time it went down, when it is down. `behind`:
    /// the events the hub lacks of what the venue holds; `waiting`: boards waiting for an
    /// answer.
    pub(crate) fn state(
        &self,
        now: Instant,
        behind: u64,
        waiting: usize,
    ) -> (LinkState, Option<Timestamp>) {
        let silent = |t: Option<(Instant, Timestamp)>| {
            t.is_none_or(|(at, _)| now.saturating_duration_since(at) >= SILENCE)
        };
        if let Some((false, since)) = self.bridge {
            return (LinkState::Down, Some(since));
        }
        match self.heard {
            None => (LinkState::Unknown, None),
            Some((_, since)) if silent(self.heard) => (LinkState::Down, Some(since)),
            Some(_) if behind > 0 || waiting > 0 => (LinkState::Lagging, None),
            Some(_) => (LinkState::Up, None),
        }
    }

    /// The director's view of the link (`/api/console/venues`).
    pub(crate) fn to_json(
        &self,
        id: &str,
        now: Instant,
        boards: usize,
        behind: u64,
        waiting: usize,
    ) -> Value {
        let (state, since) = self.state(now, behind, waiting);
        let age = |t: Option<(Instant, Timestamp)>| {
            t.map(|(at, _)| {
                u64::try_from(now.saturating_duration_since(at).as_millis()).unwrap_or(u64::MAX)
            })
        };
        json!({
            "id": id,
            "state": state.as_str(),
            "down_since": since,
            "bridge": self.bridge.map(|(c, _)| if c { "connected" } else { "lost" }),
            "heard_ms": age(self.heard),
            "hall_heard_ms": age(self.heads_at),
            "hall_silent": self.heads_at.is_none_or(|(at, _)| now.saturating_duration_since(at) >= SILENCE),
            "boards": boards,
            "behind": behind,
            "waiting": waiting,
            "events_live": self.events_live,
            "events_filled": self.events_filled,
            "asks": self.asks,
            "fills": self.fills,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn up_lagging_and_down_since() {
        let t0 = Instant::now();
        let w0 = Timestamp::from_millis(1_000);
        let mut l = VenueLink::default();
        assert_eq!(l.state(t0, 0, 0).0, LinkState::Unknown);
        l.heard(t0, w0);
        assert_eq!(l.state(t0, 0, 0), (LinkState::Up, None));
        assert_eq!(l.state(t0, 12, 0).0, LinkState::Lagging);
        assert_eq!(l.state(t0, 0, 1).0, LinkState::Lagging);
        assert_eq!(l.state(t0 + SILENCE, 0, 0), (LinkState::Down, Some(w0)));
        l.bridge(false, Timestamp::from_millis(2_000));
        assert_eq!(
            l.state(t0, 0, 0),
            (LinkState::Down, Some(Timestamp::from_millis(2_000)))
        );
        l.bridge(true, Timestamp::from_millis(3_000));
        assert_eq!(l.state(t0, 0, 0).0, LinkState::Up);
        let v = l.to_json("paris", t0, 8, 3, 0);
        assert_eq!(
            (&v["state"], &v["bridge"]),
            (&json!("lagging"), &json!("connected"))
        );
    }
}

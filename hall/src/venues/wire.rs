//! What crosses between a venue's hall and its hub, and where (docs/venues.md, "On the
//! wire"). The venue's broker bridges its boards' `events` and `status` out to the hub's
//! broker under `venues/{venue}/boards/`, and the venue hall's own topics `venue/heads`
//! and `venue/fill` out to `venues/{venue}/hall/`; the hub's asks come in from
//! `venues/{venue}/hub/ask` to the venue's `venue/ask`. Nothing else crosses: no command,
//! no alert list, no `state`.
//!
//! - heads (`venue/heads`, every [`HEADS_EVERY`]): `{"venue":"paris","boards":{"league":
//!   {"paris-01":57,...}}}`, the newest `seq` the venue hall holds in order, per board;
//! - an ask (`venues/{venue}/hub/ask`): `{"asks":[{"tournament":..,"board":..,"from":N}]}`,
//!   `from` 0 for the current game from its start;
//! - a fill (`venue/fill`): `{"tournament":..,"board":..,"from":F,"to":T,"events":[...]}`,
//!   every event the venue holds from `F` to `T` (any other `seq` there it never will).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tengen_protocol::Envelope;

/// The root of the venues' trees on the hub's broker.
pub(crate) const HUB_ROOT: &str = "venues";

/// The venue hall's own topics on its broker (bridged to and from the hub).
pub(crate) const VENUE_HEADS: &str = "venue/heads";
/// Where the venue hall answers the hub's asks.
pub(crate) const VENUE_FILL: &str = "venue/fill";
/// Where the hub's asks arrive at the venue.
pub(crate) const VENUE_ASK: &str = "venue/ask";

/// How often a venue's hall tells its hub what it holds.
pub(crate) const HEADS_EVERY: Duration = Duration::from_secs(2);

/// The most events in one fill message (about 80 KB of JSON).
pub(crate) const FILL_CHUNK: usize = 256;

/// The most asks one message may carry (the rest are dropped).
pub(crate) const MAX_ASKS: usize = 4096;

/// The venue hall's heads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Heads {
    /// The venue's id (`[venue] id`), checked against the tree it arrived in.
    pub(crate) venue: String,
    /// Per tournament, per board, the newest `seq` held in order.
    pub(crate) boards: BTreeMap<String, BTreeMap<String, u64>>,
}

/// The hub's asks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Asks {
    /// One per board.
    pub(crate) asks: Vec<Ask>,
}

/// One board's missing events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ask {
    /// The tournament.
    pub(crate) tournament: String,
    /// The board.
    pub(crate) board: String,
    /// The first `seq` missing; 0: the current game from its start.
    pub(crate) from: u64,
}

/// A venue's answer for one board (or one chunk of it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Fill {
    /// The tournament.
    pub(crate) tournament: String,
    /// The board.
    pub(crate) board: String,
    /// The first `seq` the answer speaks for.
    pub(crate) from: u64,
    /// The last (below `from`: the venue holds nothing there yet).
    pub(crate) to: u64,
    /// Every event the venue holds from `from` to `to`.
    pub(crate) events: Vec<Envelope>,
}

/// Where the hub asks venue `venue`.
pub(crate) fn ask_topic(venue: &str) -> String {
    format!("{HUB_ROOT}/{venue}/hub/ask")
}

/// A topic of the hub's broker, split: the venue, and the rest of the topic below its
/// tree; `None` outside `venues/`.
pub(crate) fn split_hub_topic(topic: &str) -> Option<(&str, &str)> {
    topic
        .strip_prefix(HUB_ROOT)?
        .strip_prefix('/')?
        .split_once('/')
}

/// The subscriptions of a hub: every venue's boards' events (QoS 1) and status, its hall's
/// heads and fills (QoS 1), its bridge's state.
pub(crate) fn hub_filters() -> Vec<(String, bool)> {
    [
        ("+/boards/+/+/events", true),
        ("+/boards/+/+/status", false),
        ("+/hall/heads", false),
        ("+/hall/fill", true),
        ("+/bridge", false),
    ]
    .into_iter()
    .map(|(rest, every)| (format!("{HUB_ROOT}/{rest}"), every))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hub_tree_splits_into_venue_and_rest() {
        assert_eq!(
            split_hub_topic("venues/paris/boards/league/p-01/events"),
            Some(("paris", "boards/league/p-01/events"))
        );
        assert_eq!(split_hub_topic("venues/paris"), None);
        assert_eq!(split_hub_topic("tengen/league/p-01/events"), None);
        assert_eq!(ask_topic("lyon"), "venues/lyon/hub/ask");
        assert!(hub_filters()
            .iter()
            .all(|(f, _)| f.starts_with("venues/+/")));
    }
}

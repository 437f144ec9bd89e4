//! The hub's and the venue hall's sides as the MQTT client's
//! [`Inbox`]: what they add to the plain hall's subscriptions, messages and ticks.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tengen_protocol::Timestamp;

use crate::boards::archive::{self, SharedArchive};
use crate::boards::hall_state::HallState;
use crate::boards::hall_state::{lock, Shared};
use crate::boards::mqtt_client::{HallInbox, Handled, Inbox};
use crate::venues::hub::Hub;
use crate::venues::venue_side::VenueSide;
use crate::venues::wire;

/// The hub's side, shared by the MQTT task and the director's view.
pub(crate) type SharedHub = Arc<Mutex<Hub>>;

/// Locks the hub; a holder that panicked leaves usable data.
pub(crate) fn lock_hub(hub: &SharedHub) -> MutexGuard<'_, Hub> {
    hub.lock().unwrap_or_else(|p| p.into_inner())
}

/// A hub's inbox: only the venues' trees, each message through the [`Hub`].
pub(crate) struct HubInbox {
    /// The hall (a hub's).
    pub(crate) hall: Shared,
    /// The venues and their links.
    pub(crate) hub: SharedHub,
    /// Whether the hub keeps an archive.
    pub(crate) archive: bool,
}

impl Inbox for HubInbox {
    fn filters(&self) -> Vec<(String, bool)> {
        wire::hub_filters()
    }

    fn subscriptions_lost(&mut self) {}

    fn message(&mut self, topic: &str, payload: &[u8], now: Instant) -> Handled {
        let mut h = lock(&self.hall);
        let out = lock_hub(&self.hub).on_message(&mut h, topic, payload, now, Timestamp::now());
        HallInbox::handled(&mut h, out, self.archive)
    }

    fn tick(&mut self, now: Instant) -> Handled {
        let mut h = lock(&self.hall);
        let mut out = h.tick(now);
        out.extend(lock_hub(&self.hub).tick(&mut h));
        HallInbox::handled(&mut h, out, self.archive)
    }

    fn broker_link(&mut self, up: bool, now: Instant) {
        lock(&self.hall).broker_link(up, now);
    }
}

/// A venue hall's inbox: the hall's own subscriptions and the hub's asks.
pub(crate) struct VenueInbox {
    /// The plain hall's inbox.
    pub(crate) hall: HallInbox,
    /// The venue's side.
    pub(crate) venue: VenueSide,
}

impl Inbox for VenueInbox {
    fn filters(&self) -> Vec<(String, bool)> {
        let mut f = self.hall.filters();
        f.extend(VenueSide::filters());
        f
    }

    fn subscriptions_lost(&mut self) {
        self.hall.subscriptions_lost();
    }

    fn message(&mut self, topic: &str, payload: &[u8], now: Instant) -> Handled {
        if !VenueSide::is_ask(topic) {
            return self.hall.message(topic, payload, now);
        }
        let mut h = lock(&self.hall.hall);
        let out = self.venue.on_ask(&mut h, payload, now);
        HallInbox::handled(&mut h, out, self.hall.archive)
    }

    fn tick(&mut self, now: Instant) -> Handled {
        let mut h = lock(&self.hall.hall);
        let mut out = h.tick(now);
        out.extend(self.venue.tick(&h, now));
        HallInbox::handled(&mut h, out, self.hall.archive)
    }

    fn broker_link(&mut self, up: bool, now: Instant) {
        self.hall.broker_link(up, now);
    }
}

/// A hub that starts again takes back from its archive each board's latest game, so it
/// asks its venues only for what came after. Returns how many boards it took back.
pub(crate) fn seed_from_archive(hall: &mut HallState, hub: &Hub, archive: &SharedArchive) -> usize {
    let now = Instant::now();
    let a = archive::lock(archive);
    let mut latest: std::collections::BTreeMap<_, (Option<Timestamp>, String)> =
        std::collections::BTreeMap::new();
    for g in a.games() {
        if !hub.carried(&g.key) {
            continue;
        }
        let newer = latest.get(&g.key).is_none_or(|(t, _)| g.last_time > *t);
        if newer {
            latest.insert(g.key.clone(), (g.last_time, g.game.clone()));
        }
    }
    let mut seeded = 0;
    for (key, (_, game)) in latest {
        if let Some(events) = a.events(&key, &game) {
            hall.seed(&key, events, now);
            seeded += 1;
        }
    }
    seeded
}

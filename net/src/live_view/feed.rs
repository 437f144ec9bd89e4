//! The live feed behind the web view: every event of the current game in `seq` order, the
//! latest `state` snapshot and SGF, and a broadcast for viewers that follow live. The service
//! (or the hall, one per board) feeds it; the HTTP handlers only read it.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use tengen_protocol::Envelope;

/// How many events a slow viewer may fall behind before it re-reads from the feed. The
/// channel allocates every slot up front (about 330 bytes each): with 1024 a hall of 500
/// boards held 170 MB in empty slots; 64 is about 21 kB a board, and a viewer that falls
/// further behind loses nothing (the SSE follower re-reads from the feed).
const BROADCAST_CAPACITY: usize = 64;

/// A cheaply cloneable handle on one board's live feed.
#[derive(Clone)]
pub struct LiveFeed {
    inner: Arc<Inner>,
}

struct Inner {
    data: RwLock<Data>,
    tx: broadcast::Sender<Envelope>,
}

#[derive(Default)]
struct Data {
    events: Vec<Envelope>,
    state: serde_json::Value,
    /// When `state` was set: its clocks read as of then.
    state_at: Option<Instant>,
    sgf: String,
}

impl Default for LiveFeed {
    fn default() -> Self {
        Self::new()
    }
}

impl LiveFeed {
    /// An empty feed.
    pub fn new() -> LiveFeed {
        let (tx, _) = broadcast::channel(BROADCAST_CAPACITY);
        LiveFeed {
            inner: Arc::new(Inner {
                data: RwLock::new(Data {
                    state: serde_json::Value::Null,
                    ..Data::default()
                }),
                tx,
            }),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Data> {
        self.inner
            .data
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Data> {
        self.inner
            .data
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds an event (already journaled, so it has its `seq`) and tells live viewers.
    /// An event whose `seq` is not beyond the last one is a duplicate and is dropped.
    pub fn publish(&self, envelope: Envelope) {
        {
            let mut d = self.write();
            if d.events.last().is_some_and(|last| envelope.seq <= last.seq) {
                return;
            }
            d.events.push(envelope.clone());
        }
        // No receivers is fine: nobody is watching.
        let _ = self.inner.tx.send(envelope);
    }

    /// Replaces the `state` snapshot served on `/api/state`.
    pub fn set_state(&self, state: serde_json::Value) {
        let mut d = self.write();
        d.state = state;
        d.state_at = Some(Instant::now());
    }

    /// Replaces the SGF served on `/game.sgf`.
    pub fn set_sgf(&self, sgf: String) {
        self.write().sgf = sgf;
    }

    /// The latest `state` snapshot (`null` before the first one).
    pub fn state(&self) -> serde_json::Value {
        self.read().state.clone()
    }

    /// `f` of the latest `state` snapshot, read in place (no copy of the whole snapshot).
    pub fn with_state<R>(&self, f: impl FnOnce(&serde_json::Value) -> R) -> R {
        f(&self.read().state)
    }

    /// The latest `state` snapshot with how long ago it was set (zero before the first):
    /// its running clock has run that much further since.
    pub fn state_with_age(&self) -> (serde_json::Value, Duration) {
        let d = self.read();
        let age = d.state_at.map_or(Duration::ZERO, |t| t.elapsed());
        (d.state.clone(), age)
    }

    /// The SGF of the game so far.
    pub fn sgf(&self) -> String {
        self.read().sgf.clone()
    }

    /// The `seq` of the newest event, 0 when there is none.
    pub fn last_seq(&self) -> u64 {
        self.read().events.last().map_or(0, |e| e.seq)
    }

    /// The event with `seq`, if the feed holds it.
    pub fn event_at(&self, seq: u64) -> Option<Envelope> {
        let d = self.read();
        let i = d.events.partition_point(|e| e.seq < seq);
        d.events.get(i).filter(|e| e.seq == seq).cloned()
    }

    /// Every event with `seq` greater than `after`, oldest first.
    pub fn events_after(&self, after: u64) -> Vec<Envelope> {
        let d = self.read();
        let start = d.events.partition_point(|e| e.seq <= after);
        d.events[start..].to_vec()
    }

    /// A receiver of events published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Envelope> {
        self.inner.tx.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live_view::test_envelope as env;

    /// A viewer whose SSE stream falls further behind than the broadcast holds still gets
    /// every event, in order (the stream re-reads what it missed from the feed).
    #[tokio::test]
    async fn a_viewer_far_behind_misses_nothing() {
        use http_body_util::BodyExt;
        use tower::ServiceExt;

        let f = LiveFeed::new();
        let req = axum::http::Request::get("/events")
            .body(axum::body::Body::empty())
            .unwrap();
        // The stream subscribes now, then does not read while many events arrive.
        let resp = crate::live_view::router(f.clone())
            .oneshot(req)
            .await
            .unwrap();
        let n = (BROADCAST_CAPACITY * 3) as u64;
        for s in 1..=n {
            f.publish(env(s));
        }
        let mut body = resp.into_body();
        let mut text = String::new();
        let mut ids = Vec::new();
        while ids.last() != Some(&n) {
            let frame = tokio::time::timeout(std::time::Duration::from_secs(5), body.frame())
                .await
                .expect("the stream goes on")
                .expect("a frame")
                .unwrap();
            if let Ok(data) = frame.into_data() {
                text.push_str(&String::from_utf8_lossy(&data));
            }
            while let Some(nl) = text.find('\n') {
                let line: String = text.drain(..=nl).collect();
                if let Some(id) = line.strip_prefix("id:") {
                    ids.push(id.trim().parse::<u64>().unwrap());
                }
            }
        }
        assert_eq!(ids, (1..=n).collect::<Vec<_>>());
    }

    #[test]
    fn keeps_order_and_drops_duplicates() {
        let f = LiveFeed::new();
        let mut rx = f.subscribe();
        for s in [1, 2, 2, 3, 1] {
            f.publish(env(s));
        }
        assert_eq!(f.last_seq(), 3);
        let seqs: Vec<u64> = f.events_after(1).iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![2, 3]);
        assert_eq!(rx.try_recv().map(|e| e.seq).ok(), Some(1));
        assert_eq!(rx.try_recv().map(|e| e.seq).ok(), Some(2));
        assert_eq!(rx.try_recv().map(|e| e.seq).ok(), Some(3));
        assert!(rx.try_recv().is_err());
    }
}

//! The live feed behind the web view: every event of the current game in `seq` order, the
//! latest `state` snapshot and SGF, and a broadcast for viewers that follow live. The service
//! (or the hall, one per board) feeds it; the HTTP handlers only read it.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;

use tengen_protocol::view::StateSnapshot;
use tengen_protocol::{Envelope, Event, GameView};

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
    state: Shown,
    /// When `state` was set: its clocks read as of then.
    state_at: Option<Instant>,
    sgf: Sgf,
    /// Counts the journals the feed followed: a board back with a new journal (a spare
    /// board, a re-flashed Pi) starts its `seq` again, and the viewers of the old one must
    /// start again too ([`LiveFeed::restart`]).
    journal: u64,
}

/// Where the SGF served comes from.
enum Sgf {
    /// Given as it is (the board service's recorder, a board's retained `sgf`).
    Given(String),
    /// Written from the feed's own events, from the last `game_started` on, when asked
    /// for: the record as of `seq`, once written.
    FromEvents { written: Option<(u64, String)> },
}

impl Default for Sgf {
    fn default() -> Sgf {
        Sgf::Given(String::new())
    }
}

/// The `state` snapshot served: none yet, the board service's JSON, or a typed snapshot
/// (the hall's own fold), written out only when someone asks for it.
#[derive(Default)]
enum Shown {
    #[default]
    None,
    Json(serde_json::Value),
    Typed(Box<StateSnapshot>),
}

impl Shown {
    fn to_value(&self) -> serde_json::Value {
        match self {
            Shown::None => serde_json::Value::Null,
            Shown::Json(v) => v.clone(),
            Shown::Typed(s) => s.to_value(),
        }
    }
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
                data: RwLock::new(Data::default()),
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

    /// Forgets every event, the snapshot and the SGF: the board came back with a new
    /// journal, whose `seq` starts again. The viewers following the feed are told, at its
    /// next event, to start again ([`LiveFeed::journal`]); the feed stays the same one, so
    /// that the pages already open follow the new journal.
    pub fn restart(&self) {
        let mut d = self.write();
        let journal = d.journal + 1;
        *d = Data {
            journal,
            ..Data::default()
        };
    }

    /// How many times the feed was restarted: a viewer that started under another count
    /// follows a journal the feed no longer holds.
    pub fn journal(&self) -> u64 {
        self.read().journal
    }

    /// Replaces the `state` snapshot served on `/api/state`.
    pub fn set_state(&self, state: serde_json::Value) {
        let mut d = self.write();
        d.state = match state {
            serde_json::Value::Null => Shown::None,
            v => Shown::Json(v),
        };
        d.state_at = Some(Instant::now());
    }

    /// Replaces the `state` snapshot with a typed one (`None`: no game yet), kept as it is
    /// and written out as JSON only when asked for.
    pub fn set_snapshot(&self, state: Option<StateSnapshot>) {
        let mut d = self.write();
        d.state = state.map_or(Shown::None, |s| Shown::Typed(Box::new(s)));
        d.state_at = Some(Instant::now());
    }

    /// Replaces the SGF served on `/game.sgf`.
    pub fn set_sgf(&self, sgf: String) {
        self.write().sgf = Sgf::Given(sgf);
    }

    /// From now on the SGF served is written from the feed's own events (the current
    /// game's, from its `game_started` on, with the arbiters' comments), when someone asks
    /// for it, rather than given by [`LiveFeed::set_sgf`]: a feed that holds the whole game
    /// costs nothing per event for its SGF.
    pub fn sgf_from_events(&self) {
        let mut d = self.write();
        if !matches!(d.sgf, Sgf::FromEvents { .. }) {
            d.sgf = Sgf::FromEvents { written: None };
        }
    }

    /// The latest `state` snapshot (`null` before the first one).
    pub fn state(&self) -> serde_json::Value {
        self.read().state.to_value()
    }

    /// `f` of the latest typed snapshot (set by [`LiveFeed::set_snapshot`]), read in place;
    /// `None` before one, or when the state is the board service's JSON.
    pub fn with_snapshot<R>(&self, f: impl FnOnce(Option<&StateSnapshot>) -> R) -> R {
        match &self.read().state {
            Shown::Typed(s) => f(Some(s)),
            _ => f(None),
        }
    }

    /// The latest `state` snapshot with how long ago it was set (zero before the first):
    /// its running clock has run that much further since.
    pub fn state_with_age(&self) -> (serde_json::Value, Duration) {
        let d = self.read();
        let age = d.state_at.map_or(Duration::ZERO, |t| t.elapsed());
        (d.state.to_value(), age)
    }

    /// The SGF of the game so far.
    pub fn sgf(&self) -> String {
        let last = {
            let d = self.read();
            match &d.sgf {
                Sgf::Given(text) => return text.clone(),
                Sgf::FromEvents {
                    written: Some((seq, text)),
                } if d.events.last().map_or(0, |e| e.seq) == *seq => return text.clone(),
                Sgf::FromEvents { .. } => d.events.last().map_or(0, |e| e.seq),
            }
        };
        let text = self.sgf_of_current_game();
        let mut d = self.write();
        if let Sgf::FromEvents { written } = &mut d.sgf {
            *written = Some((last, text.clone()));
        }
        text
    }

    /// The SGF of the events from the last `game_started` on (empty without one).
    fn sgf_of_current_game(&self) -> String {
        let d = self.read();
        let start = d
            .events
            .iter()
            .rposition(|e| matches!(e.event, Event::GameStarted(_)));
        let mut view = GameView::new();
        for e in start.map_or(&[][..], |i| &d.events[i..]) {
            // An event the fold refuses is left out, as the board's recorder leaves it.
            let _ = view.apply_envelope(e);
        }
        view.sgf(true)
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

    /// The `seq` of the oldest event the feed holds, 0 when there is none.
    pub fn first_seq(&self) -> u64 {
        self.read().events.first().map_or(0, |e| e.seq)
    }

    /// The `seq` of the last `game_started` the feed holds: where its current game begins.
    pub fn game_start_seq(&self) -> Option<u64> {
        self.read()
            .events
            .iter()
            .rev()
            .find(|e| matches!(e.event, Event::GameStarted(_)))
            .map(|e| e.seq)
    }

    /// Every event with `seq` from `from` to `to`, oldest first.
    pub fn events_between(&self, from: u64, to: u64) -> Vec<Envelope> {
        let d = self.read();
        let start = d.events.partition_point(|e| e.seq < from);
        let end = d.events.partition_point(|e| e.seq <= to);
        d.events
            .get(start..end)
            .map(<[Envelope]>::to_vec)
            .unwrap_or_default()
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

    /// A feed told to write its SGF from its events writes what the board's recorder
    /// writes from the same events (the protocol's fold), from the last `game_started` on,
    /// and writes it again only once a newer event came.
    #[test]
    fn the_sgf_is_written_from_the_events_of_the_current_game() {
        let started = |seq: u64, black: &str| Envelope {
            event: Event::GameStarted(tengen_protocol::event::GameSetup {
                black: black.into(),
                white: "Gennan".into(),
                ..Default::default()
            }),
            ..env(seq)
        };
        let f = LiveFeed::new();
        f.set_sgf("(;GM[1]PB[given])".into());
        assert_eq!(f.sgf(), "(;GM[1]PB[given])");
        f.sgf_from_events();
        let first = [started(1, "Dosaku"), env(2)];
        let second = [started(3, "Shusaku"), env(4), env(5)];
        for e in first.iter().chain(&second[..2]) {
            f.publish(e.clone());
        }
        let fold = |events: &[Envelope]| {
            let mut v = GameView::new();
            for e in events {
                v.apply_envelope(e).expect("folds");
            }
            v.sgf(true)
        };
        let sgf = f.sgf();
        assert!(
            sgf.contains("PB[Shusaku]") && !sgf.contains("Dosaku"),
            "{sgf}"
        );
        assert_eq!(sgf, fold(&second[..2]));
        f.publish(second[2].clone());
        assert_eq!(f.sgf(), fold(&second), "a newer event: written again");
        assert_ne!(f.sgf(), sgf);
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

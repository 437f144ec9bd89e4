//! One board as the hall sees it: the live feed its page is served from (events in `seq`
//! order, state, SGF), its online/offline status, its open alerts and its hardware trouble
//! (`sensor_fault` events), all rebuilt from what the broker delivers. Sans-IO: time comes
//! in as an argument.
//!
//! History. A hall that starts after a board has begun its game has only the retained
//! topics. With an identity to sign commands, it asks the board to `republish` from
//! `seq` 1 and holds the events back until it has the current game's `game_started` and
//! every event after it; then the feed gets them in order. Without an identity, or when the
//! board does not answer within [`HISTORY_WAIT`], the feed gets what has arrived, in
//! order, and follows live from there.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::delay::{DelayPolicy, DelayQueue};
use super::public::{is_private, PublicGame};
use crate::event::{Envelope, Event};
use crate::http::LiveFeed;

/// How long the hall holds a board's events back while waiting for the republished history.
pub const HISTORY_WAIT: Duration = Duration::from_secs(5);

/// How many `sensor_fault` reports the hall keeps per board (the newest).
pub const HARDWARE_KEPT: usize = 10;

/// What the hall knows of one board.
pub struct BoardView {
    feed: LiveFeed,
    status: Option<String>,
    state_at: Option<Instant>,
    alerts: Vec<Value>,
    alert_seen: HashMap<String, u64>,
    hardware: Hardware,
    round: String,
    game: String,
    history: History,
    public: Option<PublicSide>,
}

/// The board as the public sees it under a broadcast delay: the events not yet public, the
/// game rebuilt from those that are, and the feed the public pages are served from.
struct PublicSide {
    /// The last live `seq` taken into `queue`.
    taken: u64,
    queue: DelayQueue,
    game: PublicGame,
    feed: LiveFeed,
    state_at: Option<Instant>,
}

/// The board's hardware trouble: `sensor_fault` events still standing, oldest first. A
/// `link_restored` takes its `link_lost` away (and is not kept itself); `stuck` and `noisy`
/// reports stay (the board has no event for a sensor mended), the newest
/// [`HARDWARE_KEPT`] of them.
#[derive(Default)]
struct Hardware {
    /// The highest `seq` taken, so a republished event is not counted twice.
    seen: u64,
    standing: Vec<Envelope>,
}

impl Hardware {
    fn take(&mut self, envelope: &Envelope) {
        if envelope.seq <= self.seen {
            return;
        }
        self.seen = envelope.seq;
        let Event::SensorFault { kind, .. } = &envelope.event else {
            return;
        };
        if kind == "link_restored" {
            self.standing.retain(
                |e| !matches!(&e.event, Event::SensorFault { kind, .. } if kind == "link_lost"),
            );
            return;
        }
        self.standing.push(envelope.clone());
        if self.standing.len() > HARDWARE_KEPT {
            self.standing.remove(0);
        }
    }
}

/// The board's events before the feed follows them live.
#[derive(Default)]
struct History {
    live: bool,
    held: BTreeMap<u64, Envelope>,
    asked_at: Option<Instant>,
}

/// What the board wants the hall to do after a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Nothing.
    Nothing,
    /// Send `republish` with `from_seq` 1 (the history is missing).
    History,
}

impl Default for BoardView {
    fn default() -> Self {
        BoardView::new()
    }
}

impl BoardView {
    /// A board not heard from yet.
    pub fn new() -> BoardView {
        BoardView {
            feed: LiveFeed::new(),
            status: None,
            state_at: None,
            alerts: Vec::new(),
            alert_seen: HashMap::new(),
            hardware: Hardware::default(),
            round: String::new(),
            game: String::new(),
            history: History::default(),
            public: None,
        }
    }

    /// A board whose public pages lag behind under a broadcast delay (see
    /// [`BoardView::release`]); without one, the public pages show the live feed.
    pub fn delayed() -> BoardView {
        BoardView {
            public: Some(PublicSide {
                taken: 0,
                queue: DelayQueue::new(),
                game: PublicGame::new(),
                feed: LiveFeed::new(),
                state_at: None,
            }),
            ..BoardView::new()
        }
    }

    /// The feed the public pages are served from: the delayed one, or the live one when
    /// the hall has no broadcast delay.
    pub fn public_feed(&self) -> &LiveFeed {
        match &self.public {
            Some(p) => &p.feed,
            None => &self.feed,
        }
    }

    /// Takes the events the live feed got since the last call into the delay, and releases
    /// what `policy` lets the public see at `now_ms` (ms since the epoch; `now` is the
    /// same moment on the monotonic clock). Returns the released public events (alerts and
    /// sensor faults are never public), oldest first; empty without a broadcast delay.
    pub fn release(&mut self, policy: &DelayPolicy, now: Instant, now_ms: i64) -> Vec<Envelope> {
        let Some(p) = self.public.as_mut() else {
            return Vec::new();
        };
        for e in self.feed.events_after(p.taken) {
            p.taken = e.seq;
            p.queue.push(e, now_ms);
        }
        let released = p.queue.release(now_ms, policy);
        if released.is_empty() {
            return released;
        }
        for e in &released {
            p.game.apply(e);
        }
        let public: Vec<Envelope> = released
            .into_iter()
            .filter(|e| !is_private(&e.event))
            .collect();
        for e in &public {
            p.feed.publish(e.clone());
        }
        p.feed.set_state(p.game.state());
        p.feed.set_sgf(p.game.sgf());
        p.state_at = Some(now);
        public
    }

    /// How many events the broadcast delay holds back now (0 without one).
    pub fn held_back(&self) -> usize {
        self.public.as_ref().map_or(0, |p| p.queue.len())
    }

    /// The feed the board's pages are served from.
    pub fn feed(&self) -> &LiveFeed {
        &self.feed
    }

    /// `online`, `offline`, `restoring`, or `None` before the first `status`.
    pub fn status(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// The round of the current game (from `state` or `game_started`), maybe empty.
    pub fn round(&self) -> &str {
        &self.round
    }

    /// The current game's id, maybe empty.
    pub fn game(&self) -> &str {
        &self.game
    }

    /// True once the feed follows the board's events live.
    pub fn is_live(&self) -> bool {
        self.history.live
    }

    /// The open alerts (each an `alert` event), with the order in which the hall first saw
    /// each (larger is newer).
    pub fn alerts(&self) -> impl Iterator<Item = (&Value, u64)> {
        self.alerts.iter().map(|a| {
            let id = a.get("id").and_then(Value::as_str).unwrap_or_default();
            (a, self.alert_seen.get(id).copied().unwrap_or(0))
        })
    }

    /// The board's standing hardware trouble (`sensor_fault` events), oldest first.
    pub fn hardware(&self) -> &[Envelope] {
        &self.hardware.standing
    }

    /// A `.../state` payload. `can_ask`: the hall may send `republish`.
    pub fn on_state(&mut self, state: Value, now: Instant, can_ask: bool) -> Need {
        if let Some(r) = state.get("round").and_then(Value::as_str) {
            self.round = r.to_string();
        }
        if let Some(g) = state.get("game_id").and_then(Value::as_str) {
            self.game = g.to_string();
        }
        let seq = state.get("seq").and_then(Value::as_u64).unwrap_or(0);
        self.feed.set_state(state);
        self.state_at = Some(now);
        if seq > self.feed.last_seq() && !self.history.live {
            return self.missing(now, can_ask);
        }
        Need::Nothing
    }

    /// A `.../sgf` payload.
    pub fn on_sgf(&mut self, sgf: String) {
        self.feed.set_sgf(sgf);
    }

    /// A `.../status` payload (`{"state":"online",...}`).
    pub fn on_status(&mut self, state: &str) {
        self.status = Some(state.to_string());
    }

    /// A `.../alerts/active` payload: the alerts open now. `order` numbers the message.
    pub fn on_alerts_active(&mut self, alerts: Vec<Value>, order: u64) {
        for a in &alerts {
            if let Some(id) = a.get("id").and_then(Value::as_str) {
                self.alert_seen.entry(id.to_string()).or_insert(order);
            }
        }
        self.alert_seen.retain(|id, _| {
            alerts
                .iter()
                .any(|a| a.get("id").and_then(Value::as_str) == Some(id.as_str()))
        });
        self.alerts = alerts;
    }

    /// One event from `.../events` (live or republished, maybe a duplicate).
    pub fn on_event(&mut self, envelope: Envelope, now: Instant, can_ask: bool) -> Need {
        if let Event::GameStarted { round, .. } = &envelope.event {
            self.round = round.clone();
        }
        if !envelope.game.is_empty() {
            self.game = envelope.game.clone();
        }
        self.hardware.take(&envelope);
        if self.history.live {
            self.feed.publish(envelope);
            return Need::Nothing;
        }
        self.history.held.insert(envelope.seq, envelope);
        if self.try_complete() {
            return Need::Nothing;
        }
        self.missing(now, can_ask)
    }

    /// The board answered the hall's `republish` with an error: stop waiting.
    pub fn history_refused(&mut self) {
        self.go_live();
    }

    /// Gives up waiting for the history after [`HISTORY_WAIT`].
    pub fn tick(&mut self, now: Instant) {
        if self.history.live {
            return;
        }
        if let Some(at) = self.history.asked_at {
            if now.duration_since(at) >= HISTORY_WAIT {
                self.go_live();
            }
        }
    }

    /// Some history is missing: ask for it once, or, if the hall may not ask, show what
    /// has arrived and follow live.
    fn missing(&mut self, now: Instant, can_ask: bool) -> Need {
        if !can_ask {
            self.go_live();
            return Need::Nothing;
        }
        if self.history.asked_at.is_none() {
            self.history.asked_at = Some(now);
            return Need::History;
        }
        Need::Nothing
    }

    /// Feeds the held events if they hold the current game from its `game_started` on,
    /// without a gap; true when it did.
    fn try_complete(&mut self) -> bool {
        let held = &self.history.held;
        let Some(last) = held.keys().next_back().copied() else {
            return false;
        };
        let start = held
            .values()
            .rev()
            .find(|e| matches!(e.event, Event::GameStarted { .. }))
            .map(|e| e.seq);
        let Some(start) = start else {
            return false;
        };
        let count = held.range(start..).count() as u64;
        if count != last - start + 1 {
            return false;
        }
        let tail = self.history.held.split_off(&start);
        self.history.held = tail;
        self.go_live();
        true
    }

    fn go_live(&mut self) {
        self.history.live = true;
        for (_, e) in std::mem::take(&mut self.history.held) {
            self.feed.publish(e);
        }
    }

    /// The board for the overview (`/api/boards`): ids, status, players, position, clocks,
    /// result. Public: nothing here is for arbiters only.
    ///
    /// Under a broadcast delay, the position, clocks and result are the delayed ones and
    /// `open_alerts` is null (alerts are never public).
    pub fn summary(&self, tournament: &str, board: &str, now: Instant) -> Value {
        let s = self.public_feed().state();
        let field = |k: &str| s.get(k).cloned().unwrap_or(Value::Null);
        let state_at = match &self.public {
            Some(p) => p.state_at,
            None => self.state_at,
        };
        let age = state_at.map_or(0, |t| {
            u64::try_from(now.duration_since(t).as_millis()).unwrap_or(u64::MAX)
        });
        let open_alerts = match self.public {
            Some(_) => Value::Null,
            None => Value::from(self.alerts.len()),
        };
        let (round, game) = match self.public {
            Some(_) => (field("round"), field("game_id")),
            None => (
                Value::from(self.round.as_str()),
                Value::from(self.game.as_str()),
            ),
        };
        json!({
            "tournament": tournament,
            "board": board,
            "url": format!("/board/{tournament}/{board}/"),
            "status": self.status,
            "game": game,
            "round": round,
            "table": field("table"),
            "black": field("black"),
            "white": field("white"),
            "size": field("size"),
            "position": field("board"),
            "to_move": field("to_move"),
            "number": field("number"),
            "phase": field("phase"),
            "captured": field("captured"),
            "clocks": field("clocks"),
            "state_age_ms": age,
            "warnings": field("warnings"),
            "result": field("result"),
            "open_alerts": open_alerts,
            "seq": field("seq"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_rules::Color;

    use crate::event::test_envelope as env;

    fn started(seq: u64) -> Envelope {
        env(
            seq,
            Event::GameStarted {
                size: 19,
                komi: 7.5,
                handicap: 0,
                rules: "chinese".into(),
                superko: "situational".into(),
                time_control: "none".into(),
                black: "Honinbo Shusaku".into(),
                white: "Gennan Inseki".into(),
                round: "3".into(),
                table: "7".into(),
            },
        )
    }

    fn pass(seq: u64) -> Envelope {
        env(
            seq,
            Event::Pass {
                number: seq as u32,
                color: Color::Black,
            },
        )
    }

    fn seqs(b: &BoardView) -> Vec<u64> {
        b.feed().events_after(0).iter().map(|e| e.seq).collect()
    }

    #[test]
    fn a_board_seen_from_its_start_goes_live_at_once() {
        let t = Instant::now();
        let mut b = BoardView::new();
        assert_eq!(b.on_event(started(1), t, true), Need::Nothing);
        assert_eq!(b.on_event(pass(2), t, true), Need::Nothing);
        assert_eq!(seqs(&b), vec![1, 2]);
        assert_eq!(b.round(), "3");
    }

    #[test]
    fn late_hall_asks_once_and_fills_the_gap_in_order() {
        let t = Instant::now();
        let mut b = BoardView::new();
        let need = b.on_state(json!({"seq": 5, "round": "3", "number": 3}), t, true);
        assert_eq!(need, Need::History);
        // Live events overtake the republished ones.
        assert_eq!(b.on_event(pass(6), t, true), Need::Nothing);
        assert!(seqs(&b).is_empty(), "held back until the history is whole");
        b.on_event(pass(1), t, true);
        b.on_event(started(2), t, true);
        b.on_event(pass(3), t, true);
        b.on_event(pass(4), t, true);
        assert!(!b.is_live());
        b.on_event(pass(5), t, true);
        assert!(b.is_live());
        assert_eq!(
            seqs(&b),
            vec![2, 3, 4, 5, 6],
            "from the current game's start"
        );
        b.on_event(pass(6), t, true);
        b.on_event(pass(7), t, true);
        assert_eq!(seqs(&b), vec![2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn without_an_identity_it_shows_what_it_has() {
        let t = Instant::now();
        let mut b = BoardView::new();
        assert_eq!(b.on_state(json!({"seq": 5}), t, false), Need::Nothing);
        b.on_event(pass(6), t, false);
        assert_eq!(seqs(&b), vec![6]);
        assert_eq!(b.feed().state()["seq"], 5);
    }

    #[test]
    fn gives_up_waiting_after_a_while_or_a_refusal() {
        let t = Instant::now();
        let mut b = BoardView::new();
        assert_eq!(b.on_event(pass(8), t, true), Need::History);
        assert_eq!(b.on_event(pass(9), t, true), Need::Nothing, "asks once");
        b.tick(t + HISTORY_WAIT / 2);
        assert!(seqs(&b).is_empty());
        b.tick(t + HISTORY_WAIT);
        assert_eq!(seqs(&b), vec![8, 9]);

        let mut c = BoardView::new();
        c.on_event(pass(8), t, true);
        c.history_refused();
        assert_eq!(seqs(&c), vec![8]);
    }

    #[test]
    fn hardware_trouble_stands_until_mended_and_is_counted_once() {
        let fault = |seq: u64, kind: &str, points: &[&str]| {
            env(
                seq,
                Event::SensorFault {
                    points: points.iter().map(|p| p.to_string()).collect(),
                    kind: kind.to_string(),
                },
            )
        };
        let now = Instant::now();
        let mut b = BoardView::new();
        b.on_event(fault(1, "link_lost", &[]), now, false);
        b.on_event(fault(2, "noisy", &["J1"]), now, false);
        // republished: not counted again
        b.on_event(fault(2, "noisy", &["J1"]), now, false);
        let kinds = |b: &BoardView| -> Vec<String> {
            b.hardware()
                .iter()
                .map(|e| match &e.event {
                    Event::SensorFault { kind, points } => format!("{kind} {}", points.join(" ")),
                    _ => String::new(),
                })
                .collect()
        };
        assert_eq!(kinds(&b), ["link_lost ", "noisy J1"]);
        b.on_event(fault(3, "link_restored", &[]), now, false);
        assert_eq!(kinds(&b), ["noisy J1"]);
        for seq in 4..20 {
            b.on_event(fault(seq, "stuck", &["A9"]), now, false);
        }
        assert_eq!(b.hardware().len(), HARDWARE_KEPT);
        assert_eq!(b.hardware()[0].seq, 10);
    }

    #[test]
    fn alerts_keep_the_order_first_seen() {
        let mut b = BoardView::new();
        b.on_alerts_active(vec![json!({"id": "a1"})], 1);
        b.on_alerts_active(vec![json!({"id": "a1"}), json!({"id": "a2"})], 2);
        let seen: Vec<(String, u64)> = b
            .alerts()
            .map(|(a, n)| (a["id"].as_str().unwrap().to_string(), n))
            .collect();
        assert_eq!(seen, vec![("a1".into(), 1), ("a2".into(), 2)]);
        b.on_alerts_active(vec![], 3);
        assert_eq!(b.alerts().count(), 0);
    }
}

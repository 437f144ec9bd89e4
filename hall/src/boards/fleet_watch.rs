//! The fleet watch: the hall's own alert `board_offline`, raised when a board with a game in
//! play drops off (its last will says `offline`) or says nothing for `[hall]
//! board_silence_s` (its status heartbeat comes every 5 seconds), and cleared by the hall
//! (`how: "board_back"`) when the board is heard again. A board that dies mid-game is
//! otherwise silent: its own alerts need the board. Sans-IO: the hall's tick passes the time.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tengen_protocol::topics::BoardKey;
use tengen_protocol::Timestamp;

use crate::boards::board_view::BoardView;

/// The code of the hall's alert.
pub(crate) const BOARD_OFFLINE: &str = "board_offline";

/// One board the hall raised `board_offline` for.
#[derive(Debug, Clone)]
struct Offline {
    /// The alert's id (`h1`, `h2`, ...: never one of a board's own ids, which are numbers).
    id: String,
    /// When the board was last heard from (or, never heard, when the hall noticed).
    since: Timestamp,
    /// The hall's message count when it was raised: where it sorts among the alerts.
    order: u64,
    /// An arbiter dismissed it (the board was taken off on purpose): not shown until the
    /// board is back and drops off again.
    dismissed: bool,
}

/// The boards the hall watches for silence.
#[derive(Debug)]
pub(crate) struct FleetWatch {
    silence: Duration,
    raised: u64,
    open: BTreeMap<BoardKey, Offline>,
}

/// What one look at the fleet found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    /// The boards newly gone silent.
    pub(crate) raised: Vec<BoardKey>,
    /// The boards heard from again (or no longer in play).
    pub(crate) cleared: Vec<BoardKey>,
}

impl FleetWatch {
    /// A watch that raises after `silence` without a word.
    pub(crate) fn new(silence: Duration) -> FleetWatch {
        FleetWatch {
            silence,
            raised: 0,
            open: BTreeMap::new(),
        }
    }

    /// How long a board in play may stay silent.
    pub(crate) fn silence(&self) -> Duration {
        self.silence
    }

    /// Looks at every board at `now` (`wall` on this machine's clock); `order` is the hall's
    /// message count, for sorting. Raises `board_offline` for a board in play that is
    /// silent (unless `may_raise` is false: the hall's own link to the broker is just back,
    /// see [`crate::boards::hall_state::HallState::broker_link`]), clears it for a board
    /// heard again or no longer in play.
    pub(crate) fn check(
        &mut self,
        boards: &BTreeMap<BoardKey, BoardView>,
        now: Instant,
        wall: Timestamp,
        order: u64,
        may_raise: bool,
    ) -> Changes {
        let mut changes = Changes::default();
        for (key, board) in boards {
            let silent = board.in_play() && board.silent(now, self.silence);
            match (silent, self.open.contains_key(key)) {
                (true, false) if may_raise => {
                    self.raised += 1;
                    let quiet = board
                        .last_heard()
                        .map_or(0, |t| now.saturating_duration_since(t).as_millis());
                    let since = Timestamp::from_millis(
                        wall.millis()
                            .saturating_sub(u64::try_from(quiet).unwrap_or(u64::MAX)),
                    );
                    self.open.insert(
                        key.clone(),
                        Offline {
                            id: format!("h{}", self.raised),
                            since,
                            order,
                            dismissed: false,
                        },
                    );
                    changes.raised.push(key.clone());
                }
                (false, true) => {
                    self.open.remove(key);
                    changes.cleared.push(key.clone());
                }
                _ => {}
            }
        }
        let gone: Vec<BoardKey> = self
            .open
            .keys()
            .filter(|k| !boards.contains_key(*k))
            .cloned()
            .collect();
        for k in gone {
            self.open.remove(&k);
            changes.cleared.push(k);
        }
        changes
    }

    /// The open `board_offline` alert of board `key` that no arbiter dismissed: its id, when
    /// the board was last heard from, and its order.
    pub(crate) fn alert(&self, key: &BoardKey) -> Option<(&str, Timestamp, u64)> {
        self.open
            .get(key)
            .filter(|o| !o.dismissed)
            .map(|o| (o.id.as_str(), o.since, o.order))
    }

    /// True when board `key` has the open (not dismissed) alert `id`.
    pub(crate) fn is_open(&self, key: &BoardKey, id: &str) -> bool {
        self.alert(key).is_some_and(|(open, _, _)| open == id)
    }

    /// An arbiter dismisses the alert `id` of board `key` (the board was taken off on
    /// purpose); false when there is no such open alert.
    pub(crate) fn dismiss(&mut self, key: &BoardKey, id: &str) -> bool {
        match self.open.get_mut(key) {
            Some(o) if o.id == id && !o.dismissed => {
                o.dismissed = true;
                true
            }
            _ => false,
        }
    }

    /// The alert as `/api/console/alerts` shows it, before the board's table and players
    /// are added: the same shape as a board's `alert` event.
    pub(crate) fn alert_json(&self, key: &BoardKey, now_wall: Timestamp) -> Option<Value> {
        let (id, since, _) = self.alert(key)?;
        let quiet_s = now_wall.since(since) / 1000;
        Some(json!({
            "type": "alert",
            "code": BOARD_OFFLINE,
            "id": id,
            "since": since,
            "time": since,
            "raised_by": "hall",
            "message": format!(
                "board {} has not been heard from for {quiet_s} s: go to the table",
                key.board
            ),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{env, game_started, T0};
    use tengen_protocol::event::BoardState;
    use tengen_protocol::event::{EndReason, GameEnd};
    use tengen_protocol::Event;

    fn key(b: &str) -> BoardKey {
        BoardKey::new("open", b).expect("key")
    }

    fn playing(now: Instant) -> BoardView {
        let mut b = BoardView::new();
        b.heard(now);
        b.on_status(BoardState::Online);
        b.on_event(env(1, game_started(19, 0, "none")), now, false);
        b
    }

    #[test]
    fn a_silent_board_in_play_is_raised_once_and_cleared_when_heard() {
        let t0 = Instant::now();
        let mut boards = BTreeMap::new();
        boards.insert(key("b1"), playing(t0));
        let mut idle = BoardView::new();
        idle.heard(t0);
        boards.insert(key("idle"), idle);
        let mut w = FleetWatch::new(Duration::from_secs(15));
        let at = |s| t0 + Duration::from_secs(s);
        assert_eq!(w.check(&boards, at(14), T0, 1, true), Changes::default());
        let c = w.check(&boards, at(15), T0.plus(15_000), 2, true);
        assert_eq!(c.raised, vec![key("b1")], "only the board in play");
        let (id, since, order) = w.alert(&key("b1")).expect("open");
        assert_eq!((id, since, order), ("h1", T0, 2), "since its last word");
        assert!(
            w.check(&boards, at(20), T0, 3, true).raised.is_empty(),
            "once"
        );
        let a = w.alert_json(&key("b1"), T0.plus(20_000)).expect("json");
        assert_eq!(a["code"], "board_offline");
        assert!(a["message"].as_str().unwrap_or("").contains("20 s"));

        if let Some(b) = boards.get_mut(&key("b1")) {
            b.heard(at(21));
        }
        let c = w.check(&boards, at(21), T0, 4, true);
        assert_eq!(c.cleared, vec![key("b1")]);
        assert!(w.alert(&key("b1")).is_none());
    }

    #[test]
    fn a_last_will_raises_at_once_and_a_dismissal_hides_it_until_the_board_is_back() {
        let t0 = Instant::now();
        let mut boards = BTreeMap::new();
        boards.insert(key("b1"), playing(t0));
        let mut w = FleetWatch::new(Duration::from_secs(15));
        if let Some(b) = boards.get_mut(&key("b1")) {
            b.on_status(BoardState::Offline);
        }
        assert_eq!(w.check(&boards, t0, T0, 1, true).raised, vec![key("b1")]);
        assert!(!w.dismiss(&key("b1"), "h9"), "no such alert");
        assert!(w.dismiss(&key("b1"), "h1"));
        assert!(w.alert(&key("b1")).is_none(), "dismissed");
        assert!(
            w.check(&boards, t0, T0, 2, true).raised.is_empty(),
            "not raised again"
        );
        if let Some(b) = boards.get_mut(&key("b1")) {
            b.on_status(BoardState::Online);
            b.heard(t0);
        }
        assert_eq!(w.check(&boards, t0, T0, 3, true).cleared, vec![key("b1")]);
        if let Some(b) = boards.get_mut(&key("b1")) {
            b.on_status(BoardState::Offline);
        }
        assert_eq!(w.check(&boards, t0, T0, 4, true).raised, vec![key("b1")]);
        assert_eq!(w.alert(&key("b1")).map(|a| a.0), Some("h2"), "a new one");
    }

    #[test]
    fn a_finished_game_is_not_watched() {
        let t0 = Instant::now();
        let mut b = playing(t0);
        b.on_event(
            env(
                2,
                Event::GameOver(GameEnd::uncounted("B+R", EndReason::Resignation)),
            ),
            t0,
            false,
        );
        b.on_status(BoardState::Offline);
        let mut boards = BTreeMap::new();
        boards.insert(key("b1"), b);
        let mut w = FleetWatch::new(Duration::from_secs(15));
        assert!(w.check(&boards, t0, T0, 1, true).raised.is_empty());
    }
}

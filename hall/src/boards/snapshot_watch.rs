//! Which boards' `state` and `sgf` the hall takes from the broker, board by board.
//!
//! The hall's pages show its own fold of each board's events; a board's retained `state`
//! and `sgf` (one of each after every event) are needed only while the hall has no fold of
//! the board's game (it joined mid-game, its history not in yet, or it may not ask for
//! it), and the `state` once a minute as a check on the fold. Taking them from every board
//! all the time was half of the messages reaching a hall of 1,000 boards (BENCHMARKS.md,
//! issue 20). So the hall subscribes to them per board: `state` and `sgf` while the board
//! has no fold shown; `state` alone, until its retained copy arrives, once a minute for the
//! check. Sans-IO: it says what to subscribe and unsubscribe; the MQTT task does it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tengen_protocol::topics::{BoardKey, Leaf};

/// How often the board's own `state` is read to check the hall's fold against it.
pub(crate) const CHECK_EVERY: Duration = Duration::from_secs(60);

/// How long a check waits for the board's retained `state` (a board that has none, or a
/// broker that dropped it) before it lets go of the subscription.
const CHECK_WAIT: Duration = Duration::from_secs(10);

/// A subscription to make or to drop (QoS 0: each message is followed by a newer one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SubscriptionChange {
    /// True: subscribe; false: unsubscribe.
    pub(crate) subscribe: bool,
    /// The topic, one board's `state` or `sgf`.
    pub(crate) topic: String,
}

/// What the hall takes of one board's snapshots now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Taking {
    /// `state` and `sgf`, for as long as the board has no fold shown.
    Snapshots,
    /// `state` alone, asked at this time, until its retained copy arrives: the check.
    Check(Instant),
}

/// The per-board subscriptions to `state` and `sgf` (see the module's comment).
#[derive(Debug)]
pub(crate) struct SnapshotWatch {
    prefix: String,
    taking: HashMap<BoardKey, Taking>,
    /// When each board with a fold last had its `state` read.
    checked: HashMap<BoardKey, Instant>,
    changes: Vec<SubscriptionChange>,
}

impl SnapshotWatch {
    /// No board followed yet, under `prefix`.
    pub(crate) fn new(prefix: &str) -> SnapshotWatch {
        SnapshotWatch {
            prefix: prefix.to_string(),
            taking: HashMap::new(),
            checked: HashMap::new(),
            changes: Vec::new(),
        }
    }

    fn change(&mut self, subscribe: bool, key: &BoardKey, leaf: &str) {
        self.changes.push(SubscriptionChange {
            subscribe,
            topic: format!("{}/{}/{}/{leaf}", self.prefix, key.tournament, key.board),
        });
    }

    /// After a message (`leaf`) from board `key`: `wants` says whether the board has no
    /// fold shown (and so needs its `state` and `sgf`).
    pub(crate) fn after_message(&mut self, key: &BoardKey, leaf: Leaf, wants: bool, now: Instant) {
        match (wants, self.taking.get(key).copied()) {
            (true, Some(Taking::Snapshots)) => {}
            (true, Some(Taking::Check(_))) => {
                self.change(true, key, "sgf");
                self.taking.insert(key.clone(), Taking::Snapshots);
            }
            (true, None) => {
                self.change(true, key, "state");
                self.change(true, key, "sgf");
                self.taking.insert(key.clone(), Taking::Snapshots);
            }
            (false, Some(Taking::Snapshots)) => {
                self.change(false, key, "state");
                self.change(false, key, "sgf");
                self.taking.remove(key);
                self.checked.insert(key.clone(), now);
            }
            (false, Some(Taking::Check(_))) => {
                if leaf == Leaf::State {
                    self.change(false, key, "state");
                    self.taking.remove(key);
                    self.checked.insert(key.clone(), now);
                }
            }
            (false, None) => {
                self.checked.entry(key.clone()).or_insert(now);
            }
        }
    }

    /// Once a second, with every board and whether it wants its snapshots: subscribes
    /// those that want them and are not taken (after a reconnection), starts the checks
    /// that are due (at most a thirtieth of the boards at a time, so that a hall started
    /// before all its boards does not read them all in the same second each minute), and
    /// lets go of checks unanswered for [`CHECK_WAIT`].
    pub(crate) fn tick<'a>(
        &mut self,
        boards: impl Iterator<Item = (&'a BoardKey, bool)>,
        count: usize,
        now: Instant,
    ) {
        let mut checks = (count / 30).max(1);
        for (key, wants) in boards {
            match (wants, self.taking.get(key).copied()) {
                (true, None) | (true, Some(Taking::Check(_))) => {
                    self.after_message(key, Leaf::Status, true, now)
                }
                (false, Some(Taking::Check(asked)))
                    if now.saturating_duration_since(asked) >= CHECK_WAIT =>
                {
                    self.change(false, key, "state");
                    self.taking.remove(key);
                    self.checked.insert(key.clone(), now);
                }
                (false, None) if checks > 0 => {
                    let due = self
                        .checked
                        .get(key)
                        .is_none_or(|t| now.saturating_duration_since(*t) >= CHECK_EVERY);
                    if due {
                        checks -= 1;
                        self.change(true, key, "state");
                        self.taking.insert(key.clone(), Taking::Check(now));
                    }
                }
                _ => {}
            }
        }
    }

    /// The broker's session was lost (a new connection with a clean session, or a
    /// subscription that could not be queued): nothing per board is subscribed any more;
    /// the next [`SnapshotWatch::tick`] subscribes again what is wanted.
    pub(crate) fn lost(&mut self) {
        self.taking.clear();
        self.changes.clear();
    }

    /// The subscriptions to make and drop since the last call, in order.
    pub(crate) fn take_changes(&mut self) -> Vec<SubscriptionChange> {
        std::mem::take(&mut self.changes)
    }

    /// How many boards' snapshots are taken now (for the tests and the health figures).
    #[cfg(test)]
    fn taken(&self) -> usize {
        self.taking.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(b: &str) -> BoardKey {
        BoardKey {
            tournament: "t".into(),
            board: b.into(),
        }
    }

    fn topics(w: &mut SnapshotWatch) -> Vec<(bool, String)> {
        w.take_changes()
            .into_iter()
            .map(|c| (c.subscribe, c.topic))
            .collect()
    }

    #[test]
    fn a_board_without_a_fold_is_taken_until_it_has_one_then_checked_each_minute() {
        let t0 = Instant::now();
        let mut w = SnapshotWatch::new("tengen");
        let b1 = key("b1");
        // Heard of (its status): no fold yet, so its state and SGF.
        w.after_message(&b1, Leaf::Status, true, t0);
        assert_eq!(
            topics(&mut w),
            [
                (true, "tengen/t/b1/state".to_string()),
                (true, "tengen/t/b1/sgf".to_string())
            ]
        );
        w.after_message(&b1, Leaf::State, true, t0);
        assert!(topics(&mut w).is_empty(), "subscribed once");
        // The fold is shown: both dropped.
        w.after_message(&b1, Leaf::Events, false, t0);
        assert_eq!(
            topics(&mut w),
            [
                (false, "tengen/t/b1/state".to_string()),
                (false, "tengen/t/b1/sgf".to_string())
            ]
        );
        // Within the minute: nothing; after it, the state alone, until it comes.
        w.tick([(&b1, false)].into_iter(), 1, t0 + Duration::from_secs(59));
        assert!(topics(&mut w).is_empty());
        let t1 = t0 + CHECK_EVERY;
        w.tick([(&b1, false)].into_iter(), 1, t1);
        assert_eq!(topics(&mut w), [(true, "tengen/t/b1/state".to_string())]);
        w.after_message(&b1, Leaf::Events, false, t1);
        assert!(topics(&mut w).is_empty(), "an event does not end the check");
        w.after_message(&b1, Leaf::State, false, t1);
        assert_eq!(topics(&mut w), [(false, "tengen/t/b1/state".to_string())]);
        assert_eq!(w.taken(), 0);
    }

    #[test]
    fn checks_are_spread_unanswered_ones_let_go_and_a_reconnection_takes_again() {
        let t0 = Instant::now();
        let mut w = SnapshotWatch::new("p");
        let keys: Vec<BoardKey> = (0..90).map(|i| key(&format!("b{i}"))).collect();
        for k in &keys {
            w.after_message(k, Leaf::Events, false, t0);
        }
        assert!(
            topics(&mut w).is_empty(),
            "folds from the start: nothing taken"
        );
        let t1 = t0 + CHECK_EVERY;
        w.tick(keys.iter().map(|k| (k, false)), keys.len(), t1);
        assert_eq!(
            topics(&mut w).len(),
            3,
            "a thirtieth of the boards at a time"
        );
        // No answer within CHECK_WAIT: let go (and the next ones start).
        w.tick(keys.iter().map(|k| (k, false)), keys.len(), t1 + CHECK_WAIT);
        let next = topics(&mut w);
        assert_eq!(next.iter().filter(|(s, _)| !*s).count(), 3, "{next:?}");
        assert_eq!(next.iter().filter(|(s, _)| *s).count(), 3, "{next:?}");
        // A board loses its fold (a new journal), then the connection is lost: the tick
        // subscribes it again.
        w.after_message(&keys[89], Leaf::Events, true, t1);
        assert_eq!(topics(&mut w).len(), 2);
        w.lost();
        w.tick(
            keys.iter().map(|k| (k, k == &keys[89])),
            keys.len(),
            t1 + CHECK_WAIT,
        );
        let again = topics(&mut w);
        assert!(
            again.contains(&(true, "p/t/b89/sgf".to_string())),
            "{again:?}"
        );
    }
}

//! The broker's messages in and what to publish out: events, snapshots, statuses, alerts
//! and replies folded into each board; the broadcast delay's releases and the public tree;
//! the history asked for (`republish`), or, on a hub, of the venues; the passing time and
//! the fleet watch.

use std::time::{Duration, Instant};

use tengen_protocol::active_alerts::ActiveAlert;
use tengen_protocol::command::{Command, Reply, RepublishRefused};
use tengen_protocol::event::BoardState;
use tengen_protocol::topics::{parse_board_topic, BoardKey, Leaf, Topics};
use tengen_protocol::{BoardStatus, Envelope, Timestamp};

use super::{HallState, Outgoing, Wanted};
use crate::boards::board_view::{Answer, Need};
use crate::boards::snapshot_watch::SubscriptionChange;
use crate::config::DelayPolicy;

impl HallState {
    /// The subscriptions made on every connection, each with whether it needs every
    /// message (QoS 1) or only the newest (QoS 0). Every event, command reply and list of
    /// open alerts counts; a board's `status` (a heartbeat every 5 s, and the last will) is
    /// followed by a newer one and needs no acknowledgement back to the broker for each.
    /// Nothing else under the boards' topics (the commands the hall sends, each alert
    /// again) is taken; a board's `state` and `sgf` are taken per board
    /// ([`HallState::take_subscription_changes`]).
    pub(crate) fn filters(&self) -> Vec<(String, bool)> {
        [
            ("events", true),
            ("cmd/reply", true),
            ("alerts/active", true),
            ("status", false),
        ]
        .into_iter()
        .map(|(leaf, every)| (format!("{}/+/+/{leaf}", self.prefix), every))
        .collect()
    }

    /// The per-board subscriptions to make and drop (QoS 0), in order, since the last
    /// call: a board's `state` and `sgf` while the hall has no fold of its game, its
    /// `state` once a minute for the check (`boards/snapshot_watch.rs`).
    pub(crate) fn take_subscription_changes(&mut self) -> Vec<SubscriptionChange> {
        self.snapshots.take_changes()
    }

    /// The broker forgot the hall's subscriptions (a new clean session) or one could not
    /// be queued: the per-board ones are made again at the next tick.
    pub(crate) fn subscriptions_lost(&mut self) {
        self.snapshots.lost();
    }

    /// One message from the broker, received `now` (and now on this machine's clock, for
    /// the broadcast delay). Returns what to publish: a `republish` request, the public
    /// tree's messages. Bad payloads are logged and dropped.
    pub fn on_message(&mut self, topic: &str, payload: &[u8], now: Instant) -> Vec<Outgoing> {
        self.on_message_at(topic, payload, now, Timestamp::now())
    }

    /// [`HallState::on_message`] at `now`, which is `wall` in UTC (for the broadcast
    /// delay). Returns what to publish: a `republish` request, and the public tree's
    /// messages for the events the delay released.
    pub(crate) fn on_message_at(
        &mut self,
        topic: &str,
        payload: &[u8],
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Outgoing> {
        let Some((key, leaf)) = parse_board_topic(&self.prefix, topic) else {
            return Vec::new();
        };
        if !self.filter.check(&key, topic) {
            return Vec::new();
        }
        self.on_board_message(&key, leaf, topic, payload, now, wall)
    }

    /// One message of board `key` (its `leaf`, heard on `topic`), whichever way it came:
    /// from the hall's own broker ([`HallState::on_message_at`]) or, on a hub, from a
    /// venue that may carry the board (`hall/src/venues/`, which checked that).
    pub(crate) fn on_board_message(
        &mut self,
        key: &BoardKey,
        leaf: Leaf,
        topic: &str,
        payload: &[u8],
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Outgoing> {
        let mut out = self.handle(key, leaf, topic, payload, now, wall);
        if let Some(b) = self.boards.get(key).filter(|_| !self.is_hub()) {
            // A hub takes no board's `state` or `sgf`: only events cross from the venues.
            self.snapshots
                .after_message(key, leaf, b.wants_snapshots(), now);
        }
        out.extend(self.after_board(key, now, wall));
        out
    }

    /// After board `key` may have followed events: they go to the archive queue, and the
    /// broadcast delay releases what it may.
    fn after_board(&mut self, key: &BoardKey, now: Instant, wall: Timestamp) -> Vec<Outgoing> {
        self.collect_archived(key);
        if !self.boards.contains_key(key) {
            return Vec::new();
        }
        let out = self.release(key, now, wall);
        if self.delay.is_some() {
            self.watch_public(key);
        }
        out
    }

    fn handle(
        &mut self,
        key: &BoardKey,
        leaf: Leaf,
        topic: &str,
        payload: &[u8],
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Outgoing> {
        self.messages += 1;
        let order = self.messages;
        let can_ask = self.identity.is_some() || self.is_hub();
        // Any word of the board's own is a sign of life; its last will (`offline`, which
        // the broker sends for it) is not.
        let status = (leaf == Leaf::Status).then(|| BoardStatus::parse(payload));
        let will = matches!(&status, Some(Ok(s)) if s.state == BoardState::Offline);
        if leaf == Leaf::CmdReply {
            if !will {
                self.board(key).heard(now);
            }
            self.on_reply(key, payload, now);
            return Vec::new();
        }
        // One search of the boards for every message.
        let board = self.board(key);
        if !will {
            board.heard(now);
        }
        let need = match leaf {
            Leaf::Events => match serde_json::from_slice::<Envelope>(payload) {
                Ok(e) => board.on_event(e, now, can_ask),
                Err(e) => {
                    tracing::warn!("{topic}: not an event: {e}");
                    Need::Nothing
                }
            },
            Leaf::State => match board.on_state(payload, now, can_ask) {
                Ok(need) => need,
                Err(e) => {
                    tracing::warn!("{topic}: not a state: {e}");
                    Need::Nothing
                }
            },
            Leaf::Sgf => {
                board.on_sgf(payload, now);
                Need::Nothing
            }
            Leaf::Status => {
                match status {
                    Some(Ok(s)) => {
                        board.on_status(s.state);
                        // Whether a board is online is not news of the game: the public
                        // tree gets it at once, retained.
                        return self.public_status(key, payload).into_iter().collect();
                    }
                    Some(Err(e)) => tracing::warn!("{topic}: {e}"),
                    None => {}
                }
                Need::Nothing
            }
            Leaf::AlertsActive => {
                match ActiveAlert::parse_all(payload) {
                    Ok(a) => board.on_alerts_active(a, order),
                    Err(e) => tracing::warn!("{topic}: {e}"),
                }
                Need::Nothing
            }
            Leaf::CmdReply => Need::Nothing,
        };
        self.ask_history(key, need, now, wall)
    }

    /// A board's `cmd/reply`: the command log learns the answer; a `republish` the board
    /// refused for now (its rate limit: another consumer asked just before) is asked
    /// again once it takes one.
    fn on_reply(&mut self, key: &BoardKey, payload: &[u8], now: Instant) {
        let Ok(reply) = serde_json::from_slice::<Reply>(payload) else {
            return;
        };
        let refused_republish = self
            .commands
            .on_reply(key, &reply)
            .is_some_and(|s| matches!(s.command.command, Command::Republish { .. }) && !reply.ok);
        if let Some(waiting) = reply
            .id
            .as_ref()
            .and_then(|id| self.replies_waiting.remove(id))
        {
            // A frames reply carries its window (up to a few hundred KB): moved, not copied.
            let _ = waiting.send(reply);
            return;
        }
        if refused_republish {
            let again_in = reply
                .error
                .as_deref()
                .and_then(RepublishRefused::parse)
                .map(|r| Duration::from_millis(r.wait_ms.saturating_add(100)));
            if let Some(b) = self.boards.get_mut(key) {
                b.history_refused(again_in, now);
            }
        }
    }

    /// The `republish` request for board `key`'s history, when `need` says so and the hall
    /// has an identity to sign it with.
    fn ask_history(
        &mut self,
        key: &BoardKey,
        need: Need,
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Outgoing> {
        let from = match need {
            Need::Nothing => return Vec::new(),
            Need::History => 1,
            Need::Gap(from) => from,
        };
        if let Some(wanted) = self.wanted.as_mut() {
            wanted.push(Wanted {
                key: key.clone(),
                from: if need == Need::History { 0 } else { from },
            });
            return Vec::new();
        }
        match &self.identity {
            Some(by) => {
                let by = by.clone();
                match self.commands.republish(key, &by, from, now, wall) {
                    Ok(sent) => self.outgoing(&sent).into_iter().collect(),
                    Err(e) => {
                        tracing::error!("republish to {}/{}: {e}", key.tournament, key.board);
                        Vec::new()
                    }
                }
            }
            _ => Vec::new(),
        }
    }

    /// The public tree's copy of a board's `status` (retained), when the hall republishes.
    fn public_status(&self, key: &BoardKey, payload: &[u8]) -> Option<Outgoing> {
        let prefix = self.delay.as_ref()?.republish_to.as_ref()?;
        let topics = Topics::new(prefix, &key.tournament, &key.board).ok()?;
        Some(Outgoing {
            topic: topics.status(),
            payload: payload.to_vec(),
            retain: true,
        })
    }

    /// Time passes (`now`, and now on this machine's clock): boards stop waiting for
    /// history that does not come, and the broadcast delay releases what is old enough.
    /// Returns the public tree's messages.
    pub fn tick(&mut self, now: Instant) -> Vec<Outgoing> {
        self.tick_at(now, Timestamp::now())
    }

    /// [`HallState::tick`] at `now`, which is `wall` in UTC.
    pub(crate) fn tick_at(&mut self, now: Instant, wall: Timestamp) -> Vec<Outgoing> {
        if !self.is_hub() {
            // A hub's boards are watched in their venue (its director watches the links),
            // and it takes no board's `state`.
            self.watch_fleet(now, wall);
            self.snapshots.tick(
                self.boards.iter().map(|(k, b)| (k, b.wants_snapshots())),
                self.boards.len(),
                now,
            );
        }
        let asking: Vec<(BoardKey, Need)> = self
            .boards
            .iter_mut()
            .filter_map(|(k, b)| {
                let need = b.tick(now);
                (need != Need::Nothing).then(|| (k.clone(), need))
            })
            .collect();
        let mut out: Vec<Outgoing> = asking
            .iter()
            .flat_map(|(k, need)| self.ask_history(k, *need, now, wall))
            .collect();
        if self.archived.is_some() {
            let keys: Vec<BoardKey> = self.boards.keys().cloned().collect();
            for k in &keys {
                self.collect_archived(k);
            }
        }
        // Without a delay every event was released as it came.
        if self.delay.is_none() {
            return out;
        }
        let keys: Vec<BoardKey> = self.boards.keys().cloned().collect();
        for k in &keys {
            out.extend(self.release(k, now, wall));
            self.watch_public(k);
        }
        out
    }

    /// The hall's own link to the broker went down (`up` false) or came up at `now`. While it
    /// is down the fleet watch holds its alerts (a board is not offline because the hall
    /// hears nothing), and for `board_silence_s` after it is back it raises none (the boards
    /// are heard again as the hall subscribes; one still silent then is raised).
    pub(crate) fn broker_link(&mut self, up: bool, now: Instant) {
        self.link_down = !up;
        if up {
            self.link_back_at = Some(now);
        }
    }

    /// Raises `board_offline` for the boards in play gone silent, clears it for those
    /// heard again; logs both. Held while the hall's own broker link is down.
    fn watch_fleet(&mut self, now: Instant, wall: Timestamp) {
        if self.link_down {
            return;
        }
        let may_raise = self
            .link_back_at
            .is_none_or(|t| now.saturating_duration_since(t) >= self.fleet.silence());
        let changes = self
            .fleet
            .check(&self.boards, now, wall, self.messages, may_raise);
        for key in &changes.raised {
            let (table, black, white) = self
                .boards
                .get(key)
                .and_then(|b| {
                    b.with_live(|s| s.map(|s| (s.table.clone(), s.black.clone(), s.white.clone())))
                })
                .unwrap_or_else(|| ("?".into(), "?".into(), "?".into()));
            tracing::warn!(
                "board_offline: {}/{} (table {}, {} v {}) in play and silent for {} s or \
                 dropped off",
                key.tournament,
                key.board,
                table,
                black,
                white,
                self.fleet.silence().as_secs()
            );
        }
        for key in &changes.cleared {
            tracing::info!(
                "board_offline cleared (board_back): {}/{} is heard again or no longer in play",
                key.tournament,
                key.board
            );
        }
    }

    /// Runs board `key`'s broadcast delay (without one, releases what came at once, the
    /// arbiters' events left out); the public tree's messages for what it released (each
    /// event, then the board's public `state` and `sgf`, retained).
    fn release(&mut self, key: &BoardKey, now: Instant, wall: Timestamp) -> Vec<Outgoing> {
        let Some(board) = self.boards.get_mut(key) else {
            return Vec::new();
        };
        let Some(delay) = &self.delay else {
            board.release(&DelayPolicy::default(), now, wall);
            return Vec::new();
        };
        let released = board.release(&delay.policy, now, wall);
        let Some(prefix) = &delay.republish_to else {
            return Vec::new();
        };
        if released.is_empty() {
            return Vec::new();
        }
        let Ok(topics) = Topics::new(prefix, &key.tournament, &key.board) else {
            return Vec::new();
        };
        let mut out: Vec<Outgoing> = released
            .iter()
            .map(|e| Outgoing {
                topic: topics.events(),
                payload: e.to_json().into_bytes(),
                retain: false,
            })
            .collect();
        let feed = board.public_feed();
        out.push(Outgoing {
            topic: topics.state(),
            payload: feed.state().to_string().into_bytes(),
            retain: true,
        });
        out.push(Outgoing {
            topic: topics.sgf(),
            payload: feed.sgf().into_bytes(),
            retain: true,
        });
        out
    }

    /// A hub's answer from board `key`'s venue: `events`, and the venue's word that it
    /// holds nothing else from `from` to `to` (see [`BoardView::filled`]). Returns the
    /// public tree's messages for what the delay released.
    pub(crate) fn on_filled(
        &mut self,
        key: &BoardKey,
        span: (u64, u64),
        events: Vec<Envelope>,
        now: Instant,
        wall: Timestamp,
    ) -> Vec<Outgoing> {
        let board = self.board(key);
        for e in events {
            // What is still missing after the answer is asked for again at a tick.
            let _ = board.on_event(e, now, true);
        }
        board.filled(span.0, span.1, now);
        self.after_board(key, now, wall)
    }

    /// A hub hears from board `key`'s venue that the board is at `seq` (the venue's heads):
    /// what the hub lacks of it is asked for.
    pub(crate) fn on_head(&mut self, key: &BoardKey, seq: u64, now: Instant, wall: Timestamp) {
        let need = self.board(key).head_seen(seq, now);
        let _ = self.ask_history(key, need, now, wall);
    }

    /// Takes back what the archive holds of board `key`'s latest game (a hub that
    /// restarts asks its venues only for what came after).
    pub(crate) fn seed(&mut self, key: &BoardKey, events: Vec<Envelope>, now: Instant) {
        self.board(key).seed(events, now);
        self.collect_archived(key);
    }

    /// Every board the hall follows, with the newest `seq` its feed holds in order: what a
    /// venue tells its hub it has (its heads).
    pub(crate) fn heads(&self) -> Vec<(BoardKey, u64)> {
        self.boards
            .iter()
            .map(|(k, b)| (k.clone(), b.followed().0))
            .filter(|(_, seq)| *seq > 0)
            .collect()
    }

    /// Board `key` as the hub follows it: the `seq` its feed holds up to, how many events
    /// it holds back, and whether it waits for some (`None`: not heard of).
    pub(crate) fn following(&self, key: &BoardKey) -> Option<(u64, usize, bool)> {
        self.boards.get(key).map(|b| {
            let (seq, held) = b.followed();
            (seq, held, b.waiting())
        })
    }

    /// True when board `key` holds event `seq` (followed, or held back).
    pub(crate) fn holds(&self, key: &BoardKey, seq: u64) -> bool {
        self.boards.get(key).is_some_and(|b| b.holds(seq))
    }

    /// What a venue answers its hub's ask for board `key` from `from` (0: the current game
    /// from its start): see [`BoardView::answer`]; `None` for a board it does not follow.
    pub(crate) fn answer(&self, key: &BoardKey, from: u64) -> Option<Answer> {
        self.boards.get(key).map(|b| b.answer(from))
    }

    /// A `republish` from `from` for board `key`, in the hall's own name, when it has one
    /// (a venue fetching from its own board what its hub asks and it lacks).
    pub(crate) fn republish(&mut self, key: &BoardKey, from: u64, now: Instant) -> Vec<Outgoing> {
        if self.identity.is_none() || self.is_hub() || !self.boards.contains_key(key) {
            return Vec::new();
        }
        self.ask_history(key, Need::Gap(from.max(1)), now, Timestamp::now())
    }

    /// What the hub's boards miss since the last call, at most one entry per board, to ask
    /// of their venues. Always empty for a hall that is not a hub.
    pub(crate) fn take_wanted(&mut self) -> Vec<Wanted> {
        let mut wanted = self.wanted.as_mut().map(std::mem::take).unwrap_or_default();
        wanted.sort_by(|a, b| a.key.cmp(&b.key).then(a.from.cmp(&b.from)));
        wanted.dedup_by(|a, b| a.key == b.key);
        wanted
    }
}

//! The whole hall: every board heard of under the prefix, and the commands sent. Fed with
//! MQTT messages (topic, payload, time); answers with what to publish. Sans-IO, so the MQTT
//! task, the tests and the fuzz target drive it the same way.

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tengen_net::live_view::LiveFeed;
use tengen_protocol::command::{Command, Reply, RepublishRefused};
use tengen_protocol::topics::{parse_board_topic, BoardKey, Leaf, Topics};
use tengen_protocol::view::{Phase, StateSnapshot};
use tengen_protocol::{gtp, Envelope, GameView, Timestamp};
use tokio::sync::oneshot;

use crate::boards::board_filter::BoardFilter;
use crate::boards::board_view::{Answer, Audience, BoardView, Ending, Need};
use crate::boards::command_log::{CommandError, CommandLog, Sent};
use crate::boards::fleet_watch::FleetWatch;
use crate::boards::snapshot_watch::{SnapshotWatch, SubscriptionChange};
use crate::config::Broadcast;
use crate::config::DelayPolicy;

/// Told each board's public view (what the public has seen) after it may have changed:
/// for the engine analysis, which must never see more than the public.
pub(crate) type PublicWatch = Box<dyn FnMut(&BoardKey, &GameView) + Send>;

/// A message for the MQTT client to publish (QoS 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The topic.
    pub topic: String,
    /// The payload.
    pub payload: Vec<u8>,
    /// Retained (the public tree's `state`, `sgf` and `status`); commands are not.
    pub retain: bool,
}

/// The broadcast delay as the hall applies it.
#[derive(Debug, Clone)]
struct Delay {
    policy: DelayPolicy,
    /// The public tree's prefix, when this hall publishes it.
    republish_to: Option<String>,
}

/// Every board under the prefix, and the hall's commands: the hall without its I/O. Feed
/// it the broker's messages ([`HallState::on_message`]) and the passing time
/// The board has no such open alert (`take_alert`).
#[derive(Debug, thiserror::Error)]
#[error("no such open alert on this board")]
pub(crate) struct NoSuchAlert;

/// ([`HallState::tick`]); publish what they return.
pub struct HallState {
    prefix: String,
    identity: Option<String>,
    boards: BTreeMap<BoardKey, BoardView>,
    commands: CommandLog,
    messages: u64,
    delay: Option<Delay>,
    /// Whether commentators see the boards live (`[hall] commentary = "live"`).
    live_commentary: bool,
    /// The hall's own link to the broker is down: every board is silent to it, and the
    /// fleet watch holds its alerts (issue 34).
    link_down: bool,
    /// When the link came back: boards are not judged silent before `board_silence_s`
    /// after it (they speak again as the subscriptions are made).
    link_back_at: Option<Instant>,
    /// The events the boards followed, for the archive (`None`: the hall keeps none).
    archived: Option<Vec<(BoardKey, Envelope)>>,
    /// Which arbiter took which open alert (board, alert id), so the other consoles see
    /// someone is on the way.
    taken: BTreeMap<(BoardKey, String), String>,
    /// Told the public views (`[analysis]`).
    public_watch: Option<PublicWatch>,
    /// The boards in play that went silent (`board_offline`).
    fleet: FleetWatch,
    /// The boards the hall believes; the others are dropped before they are one.
    filter: BoardFilter,
    /// Whose `state` and `sgf` the hall takes (per board, while it has no fold, and for
    /// the check once a minute).
    snapshots: SnapshotWatch,
    /// Console requests waiting for a board's reply to their `frames` command, by id.
    frames_waiting: HashMap<String, oneshot::Sender<Reply>>,
    /// A hub's (`[hall] venues`): what its boards miss, to ask of their venues
    /// ([`HallState::take_wanted`]), rather than of the boards. `None`: not a hub.
    wanted: Option<Vec<Wanted>>,
    /// A venue's hall: its boards are followed patiently ([`BoardView::patient`]).
    patient: bool,
}

/// Events a hub's board misses, to ask of its venue (`hall/src/venues/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wanted {
    /// The board.
    pub(crate) key: BoardKey,
    /// The first `seq` missing; 0 for the current game from its start (the history).
    pub(crate) from: u64,
}

/// What *pause all* / *resume all* did ([`HallState::all_boards`]).
#[derive(Debug, Default)]
pub(crate) struct AllBoards {
    /// The commands to publish, with their board and id.
    pub(crate) sent: Vec<(BoardKey, String, Outgoing)>,
    /// The boards in play not reached, and why (`offline`, or the command's error).
    pub(crate) skipped: Vec<(BoardKey, String)>,
}

/// An alert taken by an arbiter, as the console store keeps it across a restart.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct TakenAlert {
    /// The tournament.
    pub(crate) tournament: String,
    /// The board.
    pub(crate) board: String,
    /// The alert's id.
    pub(crate) alert: String,
    /// The arbiter on the way.
    pub(crate) by: String,
}

impl HallState {
    /// An empty hall reading `{prefix}/+/+/#`. `identity`: the name the hall signs its own
    /// `republish` commands with (none: it never sends one). `_tag` is no longer used:
    /// command ids are random (issue 21), unique among halls without one.
    pub fn new(prefix: &str, identity: Option<String>, _tag: &str) -> HallState {
        HallState {
            prefix: prefix.to_string(),
            identity,
            boards: BTreeMap::new(),
            commands: CommandLog::new(),
            messages: 0,
            delay: None,
            live_commentary: false,
            link_down: false,
            link_back_at: None,
            archived: None,
            taken: BTreeMap::new(),
            public_watch: None,
            fleet: FleetWatch::new(Duration::from_secs(crate::config::BOARD_SILENCE_S)),
            filter: BoardFilter::default(),
            snapshots: SnapshotWatch::new(prefix),
            frames_waiting: HashMap::new(),
            wanted: None,
            patient: false,
        }
    }

    /// The same hall as a venue's (`[venue]`): what its hub holds is what it holds, so it
    /// asks its boards for a missing history or gap again, waiting longer each time,
    /// rather than follow on without it after [`crate::boards::board_view::HISTORY_WAIT`].
    pub(crate) fn into_venue(mut self) -> HallState {
        self.patient = true;
        self
    }

    /// The same hall as a hub (`[hall] venues`): its boards are followed strictly, and
    /// what they miss is asked of their venues ([`HallState::take_wanted`]), never of the
    /// boards; it sends no command.
    pub(crate) fn into_hub(mut self) -> HallState {
        self.wanted = Some(Vec::new());
        self
    }

    /// True for a hub ([`HallState::as_hub`]).
    pub(crate) fn is_hub(&self) -> bool {
        self.wanted.is_some()
    }

    /// What the hub's boards miss since the last call, at most one entry per board, to ask
    /// of their venues. Always empty for a hall that is not a hub.
    pub(crate) fn take_wanted(&mut self) -> Vec<Wanted> {
        let mut wanted = self.wanted.as_mut().map(std::mem::take).unwrap_or_default();
        wanted.sort_by(|a, b| a.key.cmp(&b.key).then(a.from.cmp(&b.from)));
        wanted.dedup_by(|a, b| a.key == b.key);
        wanted
    }

    /// Waits for the reply to the command `id` (a `frames` command the console sent).
    pub(crate) fn wait_reply(&mut self, id: &str) -> oneshot::Receiver<Reply> {
        let (tx, rx) = oneshot::channel();
        // Requests that gave up are forgotten here.
        self.frames_waiting.retain(|_, tx| !tx.is_closed());
        self.frames_waiting.insert(id.to_string(), tx);
        rx
    }

    /// The same hall raising `board_offline` for a board in play silent for `silence`
    /// (`[hall] board_silence_s`).
    pub(crate) fn with_board_silence(mut self, silence: Duration) -> HallState {
        self.fleet = FleetWatch::new(silence);
        self
    }

    /// The same hall believing only the boards `filter` admits (issue 21).
    pub(crate) fn with_filter(mut self, filter: BoardFilter) -> HallState {
        self.filter = filter;
        self
    }

    /// The same hall telling `watch` each board's public view whenever it may have changed
    /// (after the broadcast delay released events; the live view without a delay).
    pub(crate) fn with_public_watch(mut self, watch: Option<PublicWatch>) -> HallState {
        self.public_watch = watch;
        self
    }

    /// Tells the public watch board `key`'s public view.
    fn watch_public(&mut self, key: &BoardKey) {
        if let (Some(watch), Some(board)) = (self.public_watch.as_mut(), self.boards.get(key)) {
            watch(key, board.public_view());
        }
    }

    /// The same hall keeping, when `archive`, every event its boards follow until
    /// [`HallState::take_archived`] takes them (for `[hall] archive_dir`).
    pub(crate) fn with_archive(mut self, archive: bool) -> HallState {
        self.archived = archive.then(Vec::new);
        self
    }

    /// The events the boards' live folds took since the last call, each once and in `seq`
    /// order per board, with their board: what the I/O layer appends to the archive. Always
    /// empty for a hall without an archive.
    pub fn take_archived(&mut self) -> Vec<(BoardKey, Envelope)> {
        self.archived
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// Moves what board `key` followed into the archive queue.
    fn collect_archived(&mut self, key: &BoardKey) {
        let Some(queue) = self.archived.as_mut() else {
            return;
        };
        if let Some(b) = self.boards.get_mut(key) {
            queue.extend(b.take_followed().into_iter().map(|e| (key.clone(), e)));
        }
    }

    /// The broadcast delay's policy, under `[broadcast]`.
    pub(crate) fn delay_policy(&self) -> Option<DelayPolicy> {
        self.delay.as_ref().map(|d| d.policy)
    }

    /// The same hall signing its commands with the boards' command key
    /// (`hall.command_key_file`).
    pub(crate) fn with_command_key(mut self, key: Option<Vec<u8>>) -> HallState {
        self.commands.set_key(key);
        self
    }

    /// The same hall with a broadcast delay (`[broadcast]`): the public side of every board
    /// lags behind, and, with `republish`, the hall publishes it under `topic_prefix`.
    pub(crate) fn with_broadcast(mut self, broadcast: Option<&Broadcast>) -> HallState {
        self.delay = broadcast.map(|b| Delay {
            policy: b.policy(),
            republish_to: b.republish.then(|| b.topic_prefix.clone()),
        });
        self
    }

    /// The same hall showing commentators the boards live (`[hall] commentary = "live"`),
    /// without the arbiters' events.
    pub(crate) fn with_live_commentary(mut self, live: bool) -> HallState {
        self.live_commentary = live;
        self
    }

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
        let will = leaf == Leaf::Status && payload_says_offline(payload);
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
                let v: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
                match v.get("state").and_then(Value::as_str) {
                    Some(s) => {
                        board.on_status(s);
                        // Whether a board is online is not news of the game: the public
                        // tree gets it at once, retained.
                        return self.public_status(key, payload).into_iter().collect();
                    }
                    None => tracing::warn!("{topic}: no \"state\" in the status"),
                }
                Need::Nothing
            }
            Leaf::AlertsActive => {
                match serde_json::from_slice::<Value>(payload) {
                    Ok(Value::Array(a)) => board.on_alerts_active(a, order),
                    _ => tracing::warn!("{topic}: not a JSON array"),
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
            .and_then(|id| self.frames_waiting.remove(id))
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

    fn board(&mut self, key: &BoardKey) -> &mut BoardView {
        let delayed = self.delay.is_some();
        let archived = self.archived.is_some();
        let live_commentary = self.live_commentary;
        let strict = self.is_hub();
        let patient = self.patient;
        self.boards.entry(key.clone()).or_insert_with(|| {
            let mut b = if delayed {
                BoardView::delayed()
            } else {
                BoardView::new()
            };
            if live_commentary {
                b = b.with_live_commentary();
            }
            if archived {
                b = b.archived();
            }
            if strict {
                b = b.strict();
            } else if patient {
                b = b.patient();
            }
            b
        })
    }

    fn outgoing(&self, sent: &Sent) -> Option<Outgoing> {
        let topics = Topics::new(&self.prefix, &sent.key.tournament, &sent.key.board).ok()?;
        Some(Outgoing {
            topic: topics.cmd(),
            payload: Value::Object(sent.payload.clone()).to_string().into_bytes(),
            retain: false,
        })
    }

    /// The live feed of one board, if the hall has heard of it (for arbiters).
    pub(crate) fn feed(&self, key: &BoardKey) -> Option<LiveFeed> {
        self.boards.get(key).map(|b| b.feed().clone())
    }

    /// The feed the public pages of one board are served from: delayed under a broadcast
    /// delay, else the live one.
    pub(crate) fn public_feed(&self, key: &BoardKey) -> Option<LiveFeed> {
        self.boards.get(key).map(|b| b.public_feed().clone())
    }

    /// The feed the commentators' pages of one board are served from: live without the
    /// arbiters' events under `[hall] commentary = "live"`, else the public one.
    pub(crate) fn commentary_feed(&self, key: &BoardKey) -> Option<LiveFeed> {
        self.boards.get(key).map(|b| {
            if self.live_commentary {
                b.commentary_feed().clone()
            } else {
                b.public_feed().clone()
            }
        })
    }

    /// What the hall knows of one board, if it has heard of it.
    pub(crate) fn board_view(&self, key: &BoardKey) -> Option<&BoardView> {
        self.boards.get(key)
    }

    /// True when the public pages lag behind (a `[broadcast]` section).
    pub(crate) fn is_delayed(&self) -> bool {
        self.delay.is_some()
    }

    /// The commands sent, for the console store (see [`CommandLog::saved`]).
    pub(crate) fn commands_saved(&self, now: Instant, wall_ms: u64) -> Vec<Value> {
        self.commands.saved(now, wall_ms)
    }

    /// Takes back the commands a previous run sent (see [`CommandLog::restore`]).
    pub(crate) fn restore_commands(&mut self, saved: Vec<Value>, now: Instant, wall_ms: u64) {
        self.commands.restore(saved, now, wall_ms);
    }

    /// Every board heard of, by tournament and board id.
    pub(crate) fn board_keys(&self) -> Vec<BoardKey> {
        self.boards.keys().cloned().collect()
    }

    /// The number of boards heard of.
    pub fn board_count(&self) -> usize {
        self.boards.len()
    }

    /// `/api/boards`: every board's public summary, by tournament and board id.
    pub fn boards_json(&self, now: Instant) -> Value {
        self.summaries(now, Audience::Public, "")
    }

    /// [`HallState::boards_json`] as JSON text, each board's part serialised only when the
    /// board changed (the overview, once a second for every viewer).
    pub(crate) fn boards_json_text(&mut self, now: Instant) -> String {
        let mut out = String::with_capacity(self.boards.len() * 1024 + 2);
        out.push('[');
        for (i, (k, b)) in self.boards.iter_mut().enumerate() {
            if i > 0 {
                out.push(',');
            }
            b.write_public_summary(&mut out, &k.tournament, &k.board, now);
        }
        out.push(']');
        out
    }

    /// `/api/console/boards`: every board as the arbiters see it, live (never delayed),
    /// with its open alerts counted. For the console only.
    pub(crate) fn live_boards_json(&self, now: Instant) -> Value {
        self.summaries(now, Audience::Arbiters, "/console")
    }

    /// `/api/commentary/boards`: every board as the commentators see it, live (a closed
    /// commentary room, `[hall] commentary = "live"`) or as the public does, never with
    /// its alerts, each linking to its `/commentary/board/...` page.
    pub(crate) fn commentary_boards_json(&self, now: Instant) -> Value {
        let audience = if self.live_commentary {
            Audience::Commentators
        } else {
            Audience::Public
        };
        self.summaries(now, audience, "/commentary")
    }

    fn summaries(&self, now: Instant, audience: Audience, pages: &str) -> Value {
        Value::Array(
            self.boards
                .iter()
                .map(|(k, b)| b.summary(&k.tournament, &k.board, now, audience, pages))
                .collect(),
        )
    }

    /// The boards heard of with board id `board`, under tournament id `tournament` when one
    /// is given: each key with the board's status (`online`, `offline`, `restoring`, or
    /// `None` before its first status) and its latest `state` snapshot (live, never
    /// delayed: for the console).
    pub(crate) fn boards_named(
        &self,
        tournament: Option<&str>,
        board: &str,
    ) -> Vec<NamedBoard<'_>> {
        self.boards
            .iter()
            .filter(|(k, _)| k.board == board && tournament.is_none_or(|t| k.tournament == t))
            .map(|(k, b)| NamedBoard {
                key: k,
                status: b.status(),
                state: b.with_live(|s| s.cloned()),
                ending: b.ending().cloned(),
            })
            .collect()
    }

    /// Every board's current game that has a round, as the public sees it (delayed under
    /// `[broadcast]`), for the round zips and `/rounds`; with its public SGF when `sgf`
    /// (else the SGF is left empty).
    pub(crate) fn current_games(&self, sgf: bool) -> Vec<CurrentGame> {
        self.boards
            .iter()
            .filter(|(_, b)| !b.round().is_empty())
            .map(|(k, b)| {
                let feed = b.public_feed();
                CurrentGame {
                    key: k.clone(),
                    game: b.game().to_string(),
                    round: b.round().to_string(),
                    over: feed.with_snapshot(|s| s.is_some_and(|s| s.phase == Phase::Over)),
                    sgf: if sgf { feed.sgf() } else { String::new() },
                    voided: b.live_view().voided(),
                }
            })
            .collect()
    }

    /// `/api/console/alerts`: every open alert in the hall, newest first, with its board
    /// and a picture of what the board should look like (`expected` over the board's
    /// recorded position). For the console only.
    pub fn alerts_json(&self) -> Value {
        let mut all: Vec<(u64, i64, Value)> = Vec::new();
        let wall = Timestamp::now();
        for (k, b) in &self.boards {
            let hall_alert = self
                .fleet
                .alert(k)
                .map(|(_, _, order)| order)
                .zip(self.fleet.alert_json(k, wall));
            let hall_alert = hall_alert.as_ref().map(|(order, a)| (a, *order));
            if hall_alert.is_none() && b.alerts().next().is_none() {
                // Most boards have no open alert: no copy of their position for them.
                continue;
            }
            let (size, position, who) = b.with_live(|s| match s {
                Some(s) => (
                    s.size,
                    s.board.clone(),
                    [
                        json!(s.table),
                        json!(s.black),
                        json!(s.white),
                        json!(s.number),
                    ],
                ),
                None => (
                    19,
                    String::new(),
                    [Value::Null, Value::Null, Value::Null, Value::Null],
                ),
            });
            for (alert, seen) in b.alerts().chain(hall_alert) {
                let mut a = alert.clone();
                let seq = a.get("seq").and_then(Value::as_i64).unwrap_or(-1);
                if let Some(o) = a.as_object_mut() {
                    o.insert("tournament".into(), json!(k.tournament));
                    o.insert("board".into(), json!(k.board));
                    o.insert("size".into(), json!(size));
                    // Who plays there and how far the game is, for the alert's card.
                    for (key, v) in ["table", "black", "white", "number"].iter().zip(&who) {
                        o.insert((*key).into(), v.clone());
                    }
                    o.insert(
                        "should_look".into(),
                        json!(expected_position(&position, size, alert.get("expected"))),
                    );
                    let id = alert.get("id").and_then(Value::as_str).unwrap_or("");
                    let taken = self.taken.get(&(k.clone(), id.to_string()));
                    o.insert("taken_by".into(), json!(taken));
                }
                all.push((seen, seq, a));
            }
        }
        all.sort_by_key(|a| std::cmp::Reverse((a.0, a.1)));
        Value::Array(all.into_iter().map(|(_, _, a)| a).collect())
    }

    /// An arbiter takes an open alert (`POST /api/console/alert/take`): the consoles show
    /// who went to the board. Taking it again (the same or another arbiter) replaces the
    /// name. Errors when the board has no such open alert. Alerts closed since are
    /// forgotten here.
    pub(crate) fn take_alert(
        &mut self,
        key: &BoardKey,
        alert: &str,
        arbiter: &str,
    ) -> Result<(), NoSuchAlert> {
        let open = |b: &BoardView, id: &str| {
            b.alerts()
                .any(|(a, _)| a.get("id").and_then(Value::as_str) == Some(id))
        };
        let board = self.boards.get(key).ok_or(NoSuchAlert)?;
        if !open(board, alert) && !self.fleet.is_open(key, alert) {
            return Err(NoSuchAlert);
        }
        let (boards, fleet) = (&self.boards, &self.fleet);
        self.taken.retain(|(k, id), _| {
            boards.get(k).is_some_and(|b| open(b, id)) || fleet.is_open(k, id)
        });
        self.taken
            .insert((key.clone(), alert.to_string()), arbiter.to_string());
        Ok(())
    }

    /// An arbiter dismisses the hall's own alert `alert` (`board_offline`) on board `key`
    /// (`POST /api/console/alert/dismiss`): the board was taken off on purpose. It comes
    /// back if the board is heard again and then drops off again.
    pub(crate) fn dismiss_hall_alert(
        &mut self,
        key: &BoardKey,
        alert: &str,
    ) -> Result<(), NoSuchAlert> {
        if self.fleet.dismiss(key, alert) {
            self.taken.remove(&(key.clone(), alert.to_string()));
            Ok(())
        } else {
            Err(NoSuchAlert)
        }
    }

    /// Who took which alert, for the console store.
    pub(crate) fn taken_saved(&self) -> Vec<TakenAlert> {
        self.taken
            .iter()
            .map(|((k, alert), by)| TakenAlert {
                tournament: k.tournament.clone(),
                board: k.board.clone(),
                alert: alert.clone(),
                by: by.clone(),
            })
            .collect()
    }

    /// Takes back who took which alert before a restart (the alerts themselves come back
    /// with the boards' retained `alerts/active`).
    pub(crate) fn restore_taken(&mut self, saved: Vec<TakenAlert>) {
        for t in saved {
            if let Some(key) = BoardKey::new(&t.tournament, &t.board) {
                self.taken.insert((key, t.alert), t.by);
            }
        }
    }

    /// *Pause all* or *resume all* (`command` is `pause` or `resume`), signed `by`: the
    /// command to every board with a game in play (of `round`, when given); a board silent
    /// or offline is skipped and named, as is one the command cannot be prepared for.
    pub(crate) fn all_boards(
        &mut self,
        by: &str,
        command: &str,
        round: Option<u32>,
        now: Instant,
    ) -> AllBoards {
        let silence = self.fleet.silence();
        let round = round.map(|r| r.to_string());
        let targets: Vec<(BoardKey, bool)> = self
            .boards
            .iter()
            .filter(|(_, b)| b.in_play())
            .filter(|(_, b)| round.as_deref().is_none_or(|r| b.round() == r))
            .map(|(k, b)| (k.clone(), b.silent(now, silence)))
            .collect();
        let mut done = AllBoards::default();
        for (key, silent) in targets {
            if silent {
                done.skipped.push((key, "offline".into()));
                continue;
            }
            let mut body = Map::new();
            body.insert("type".into(), json!(command));
            match self.command(&key, by, body, now) {
                Ok((id, out)) => done.sent.push((key, id, out)),
                Err(e) => done.skipped.push((key, e.to_string())),
            }
        }
        done
    }

    /// `/api/console/hardware`: every board's standing hardware trouble (`sensor_fault`:
    /// link lost, stuck or noisy sensors; an open `storage_low` or `storage_full` alert),
    /// newest first, with its board. For the console only.
    pub(crate) fn hardware_json(&self) -> Value {
        let mut all: Vec<(Timestamp, u64, Value)> = Vec::new();
        for (k, b) in &self.boards {
            for (a, _) in b.alerts() {
                let code = a.get("code").and_then(Value::as_str).unwrap_or_default();
                if !matches!(code, "storage_low" | "storage_full") {
                    continue;
                }
                let time = a.get("time").cloned().unwrap_or(Value::Null);
                let at = time
                    .as_str()
                    .and_then(|t| Timestamp::parse(t).ok())
                    .unwrap_or(Timestamp::from_millis(0));
                let seq = a.get("seq").and_then(Value::as_u64).unwrap_or(0);
                all.push((
                    at,
                    seq,
                    json!({
                        "tournament": k.tournament,
                        "board": k.board,
                        "kind": code,
                        "points": [],
                        "time": time,
                        "seq": seq,
                    }),
                ));
            }
            for f in b.hardware() {
                let points: Vec<String> = f.points.iter().map(|p| p.to_gtp()).collect();
                all.push((
                    f.time,
                    f.seq,
                    json!({
                        "tournament": k.tournament,
                        "board": k.board,
                        "kind": f.kind,
                        "points": points,
                        "time": f.time,
                        "seq": f.seq,
                    }),
                ));
            }
        }
        all.sort_by_key(|a| std::cmp::Reverse((a.0, a.1)));
        Value::Array(all.into_iter().map(|(_, _, v)| v).collect())
    }

    /// Prepares a console command for board `key`, signed `by`; returns its id and what to
    /// publish. The command is pending until the board replies.
    pub(crate) fn command(
        &mut self,
        key: &BoardKey,
        by: &str,
        body: Map<String, Value>,
        now: Instant,
    ) -> Result<(String, Outgoing), CommandError> {
        if self.is_hub() {
            return Err(CommandError::Hub);
        }
        if !self.boards.contains_key(key) {
            return Err(CommandError::UnknownBoard(key.clone()));
        }
        let sent = self
            .commands
            .prepare(key, by, body, now, Timestamp::now())?;
        let out = self
            .outgoing(&sent)
            .ok_or_else(|| CommandError::UnknownBoard(key.clone()))?;
        Ok((sent.id, out))
    }

    /// A command in the hall's own name (`[hall] identity`), kept out of the commands' log
    /// (see [`CommandLog::prepare_unlogged`]).
    pub(crate) fn own_command(
        &mut self,
        key: &BoardKey,
        body: Map<String, Value>,
        now: Instant,
    ) -> Result<(String, Outgoing), CommandError> {
        if self.is_hub() {
            return Err(CommandError::Hub);
        }
        let by = self.identity.clone().ok_or(CommandError::NoIdentity)?;
        if !self.boards.contains_key(key) {
            return Err(CommandError::UnknownBoard(key.clone()));
        }
        let sent = self
            .commands
            .prepare_unlogged(key, &by, body, now, Timestamp::now())?;
        let out = self
            .outgoing(&sent)
            .ok_or_else(|| CommandError::UnknownBoard(key.clone()))?;
        Ok((sent.id, out))
    }

    /// The body of the console's command POST (`{"tournament":..,"board":..,"type":..,
    /// ...}`) from arbiter `by`: the board it names, the command's id and what to publish.
    /// Refused, with one line, when it names no board the hall knows or is not a command a
    /// board takes (fields checked as the board checks them).
    pub fn console_command(
        &mut self,
        by: &str,
        mut body: Map<String, Value>,
        now: Instant,
    ) -> Result<(BoardKey, String, Outgoing), CommandError> {
        let t = body.remove("tournament");
        let b = body.remove("board");
        let key = t
            .as_ref()
            .and_then(Value::as_str)
            .zip(b.as_ref().and_then(Value::as_str))
            .and_then(|(t, b)| BoardKey::new(t, b))
            .ok_or(CommandError::NoBoard)?;
        let (id, out) = self.command(&key, by, body, now)?;
        Ok((key, id, out))
    }

    /// Logs what arbiter `by` did at the hall (a result confirmed or corrected) with the
    /// commands, for the console's history ([`CommandLog::note`]).
    pub(crate) fn note(&mut self, key: Option<&BoardKey>, by: &str, what: Value, now: Instant) {
        self.commands.note(key, by, what, now);
    }

    /// The hall's notes about game `game` of board `key` (results confirmed or corrected),
    /// oldest first, with when (ms since the epoch).
    pub(crate) fn notes_for(&self, key: &BoardKey, game: &str, now: Instant) -> Vec<(Value, u64)> {
        self.commands
            .notes_for(key, game, now, crate::wall_clock::wall_ms())
    }

    /// `/api/console/commands`: the commands sent, newest first, pending, acked or refused.
    pub fn commands_json(&self, now: Instant) -> Value {
        self.commands.to_json(now)
    }
}

/// A board found by its id ([`HallState::boards_named`]).
pub(crate) struct NamedBoard<'a> {
    /// Its tournament and board ids.
    pub(crate) key: &'a BoardKey,
    /// Its status (`online`, `offline`, `restoring`, or none before the first).
    pub(crate) status: Option<&'a str>,
    /// Its latest `state` snapshot (live, never delayed).
    pub(crate) state: Option<StateSnapshot>,
    /// How its current game last ended, as followed.
    pub(crate) ending: Option<Ending>,
}

/// A board's current game as the public sees it ([`HallState::current_games`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CurrentGame {
    /// The board.
    pub(crate) key: BoardKey,
    /// The game id (maybe empty: a board known only from a `state` without one).
    pub(crate) game: String,
    /// The round.
    pub(crate) round: String,
    /// True when the public side shows the game over.
    pub(crate) over: bool,
    /// The public SGF (empty before the setup is public, or when not asked for).
    pub(crate) sgf: String,
    /// An arbiter voided it (live, whatever the delay has let out): it leaves every public
    /// view at once.
    pub(crate) voided: bool,
}

/// True when a `status` payload says `offline` (the board's last will).
fn payload_says_offline(payload: &[u8]) -> bool {
    serde_json::from_slice::<Value>(payload)
        .ok()
        .and_then(|v| {
            v.get("state")
                .and_then(Value::as_str)
                .map(|s| s == "offline")
        })
        .unwrap_or(false)
}

/// The name of a game's SGF in a round zip: `{tournament}-{board}-{game}.sgf`.
pub(crate) fn zip_name(key: &BoardKey, game: &str) -> String {
    let game = if game.is_empty() { "game" } else { game };
    format!("{}-{}-{}.sgf", key.tournament, key.board, safe(game))
}

/// The board's `state.board` string with the alert's `expected` points set (`B`, `W`,
/// `empty`): what the physical board should show. An empty string when there is no usable
/// position.
fn expected_position(position: &str, size: u8, expected: Option<&Value>) -> String {
    let n = size as usize * size as usize;
    if position.len() != n || !position.is_ascii() {
        return String::new();
    }
    let mut cells: Vec<u8> = position.bytes().collect();
    if let Some(Value::Object(map)) = expected {
        for (point, what) in map {
            let Some(p) = gtp::parse(point).ok().filter(|p| p.on_board(size)) else {
                continue;
            };
            let c = match what.as_str() {
                Some("B") => b'X',
                Some("W") => b'O',
                Some("empty") => b'.',
                _ => continue,
            };
            if let Some(cell) = cells.get_mut(p.index(size)) {
                *cell = c;
            }
        }
    }
    String::from_utf8(cells).unwrap_or_default()
}

/// `s` with every character outside `[A-Za-z0-9._-]` replaced by `_` (zip entry names).
fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::whole_state;

    #[test]
    fn expected_points_are_drawn_over_the_position() {
        let pos = ".".repeat(9 * 9);
        let exp = json!({"A9": "B", "J1": "W", "E5": "empty"});
        let out = expected_position(&pos, 9, Some(&exp));
        assert_eq!(&out[0..1], "X", "A9 is the top-left corner");
        assert_eq!(&out[80..81], "O", "J1 is the bottom-right corner");
        assert_eq!(out.matches('.').count(), 79);
        assert_eq!(expected_position("...", 9, Some(&exp)), "");
    }

    #[test]
    fn messages_build_boards_and_ignore_junk() {
        let now = Instant::now();
        let mut h = HallState::new("tengen", None, "h");
        assert_eq!(h.filters()[0], ("tengen/+/+/events".to_string(), true));
        h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, now);
        h.on_message(
            "tengen/t/b1/state",
            whole_state(json!({"number": 4, "round": "2", "seq": 9}))
                .to_string()
                .as_bytes(),
            now,
        );
        h.on_message("tengen/t/b2/state", b"not json", now);
        h.on_message("tengen/t/b2/events", b"{\"seq\":1}", now);
        h.on_message("elsewhere/t/b3/state", b"{}", now);
        let boards = h.boards_json(now);
        assert_eq!(boards[0]["board"], "b1");
        assert_eq!(boards[0]["status"], "online");
        assert_eq!(boards[0]["number"], 4);
        let current = h.current_games(true);
        assert_eq!(current.len(), 1);
        assert_eq!(
            (current[0].round.as_str(), current[0].sgf.as_str()),
            ("2", "")
        );
        h.on_message("tengen/t/b1/sgf", b"(;GM[1]SZ[9];B[ee]C[an alert])", now);
        let current = h.current_games(true);
        let sgf = tengen_rules::sgf::parse(&current[0].sgf).expect("the public SGF");
        assert_eq!((sgf.size, sgf.moves.len()), (9, 1));
        assert!(!current[0].sgf.contains("alert"), "{}", current[0].sgf);
        assert_eq!(zip_name(&current[0].key, &current[0].game), "t-b1-g1.sgf");
    }

    fn event(seq: u64, time: &str, body: Value) -> Vec<u8> {
        let mut e = json!({"seq": seq, "time": time, "board": "b1", "game": "g1"});
        if let (Some(o), Value::Object(b)) = (e.as_object_mut(), body) {
            o.extend(b);
        }
        e.to_string().into_bytes()
    }

    fn game_started() -> Value {
        json!({"type": "game_started", "size": 9, "komi": 7.5, "handicap": 0,
            "rules": "chinese", "superko": "situational", "time_control": "none",
            "black": "B", "white": "W", "round": "1", "table": "1"})
    }

    fn moved(number: u32, point: &str) -> Value {
        let color = if number % 2 == 1 { "B" } else { "W" };
        json!({"type": "move", "number": number, "color": color, "point": point,
            "captured": [], "clock": null})
    }

    fn topics(out: &[Outgoing]) -> Vec<(String, bool)> {
        out.iter().map(|o| (o.topic.clone(), o.retain)).collect()
    }

    #[test]
    fn a_delayed_hall_republishes_what_the_delay_releases() {
        let b = crate::config::HallConfig::parse(
            "[broadcast]\ndelay_moves = 1\ndelay_minutes = 1\n",
            std::path::Path::new("hall.toml"),
        )
        .unwrap()
        .broadcast;
        let mut h = HallState::new("tengen", None, "h").with_broadcast(b.as_ref());
        assert!(h.is_delayed());
        let t0 = "2026-11-29T13:00:00.000Z";
        let wall0 = Timestamp::parse(t0).unwrap();
        let now = Instant::now();
        let at = |secs: u64| wall0.plus(secs * 1000);
        let key = BoardKey::new("t", "b1").unwrap();
        let ev = "tengen/t/b1/events";

        // Whether the board is online goes to the public tree at once.
        let status = br#"{"state":"online","version":"0.1.0"}"#;
        let out = h.on_message_at("tengen/t/b1/status", status, now, at(0));
        assert_eq!(topics(&out), vec![("public/t/b1/status".to_string(), true)]);
        assert_eq!(out[0].payload, status.to_vec());

        // Nothing is a minute old yet.
        let out = h.on_message_at(ev, &event(1, t0, game_started()), now, at(0));
        assert!(out.is_empty());
        let out = h.on_message_at(ev, &event(2, t0, moved(1, "E5")), now, at(1));
        assert!(out.is_empty());
        assert_eq!(
            h.feed(&key).unwrap().last_seq(),
            2,
            "the live feed has it all"
        );
        assert_eq!(h.public_feed(&key).unwrap().last_seq(), 0);
        assert_eq!(h.boards_json(now)[0]["number"], Value::Null);

        // A minute later the setup is public; move 1 is the last move: still held.
        let out = h.tick_at(now, at(60));
        assert_eq!(
            topics(&out),
            vec![
                ("public/t/b1/events".to_string(), false),
                ("public/t/b1/state".to_string(), true),
                ("public/t/b1/sgf".to_string(), true),
            ]
        );
        let state: Value = serde_json::from_slice(&out[1].payload).unwrap();
        assert_eq!(
            (state["number"].as_u64(), state["seq"].as_u64()),
            (Some(0), Some(1))
        );

        // An alert, then move 2: move 1 may go (a minute old, no longer the last move), the
        // alert never goes out.
        let alert = json!({"type": "alert", "id": "a1", "code": "stone_moved", "article": "17.5",
            "color": "B", "points": ["E5"], "expected": {}, "message": "secret"});
        h.on_message_at(ev, &event(3, t0, alert), now, at(61));
        let out = h.on_message_at(ev, &event(4, t0, moved(2, "C3")), now, at(62));
        let sent: Vec<Value> = out
            .iter()
            .filter(|o| o.topic.ends_with("/events"))
            .map(|o| serde_json::from_slice(&o.payload).unwrap())
            .collect();
        assert_eq!(sent.len(), 1);
        assert_eq!(
            (sent[0]["type"].as_str(), sent[0]["seq"].as_u64()),
            (Some("move"), Some(2))
        );
        assert!(out
            .iter()
            .all(|o| !String::from_utf8_lossy(&o.payload).contains("secret")));
        let public = h.public_feed(&key).unwrap();
        assert_eq!(public.state()["number"], 1);
        assert_eq!(
            public.state()["seq"],
            3,
            "the alert moved the public seq on"
        );
        assert_eq!(h.boards_json(now)[0]["number"], 1);
        assert_eq!(h.boards_json(now)[0]["open_alerts"], Value::Null);
        assert!(public.sgf().contains(";B[ee]") && !public.sgf().contains(";W["));

        // The game ends: everything is public at once.
        let over = json!({"type": "game_over", "result": "W+R", "reason": "resignation",
            "black_area": null, "white_area": null, "dame": null, "margin_stones": null,
            "margin_points": null});
        let out = h.on_message_at(ev, &event(5, t0, over), now, at(63));
        assert_eq!(
            out.iter().filter(|o| o.topic.ends_with("/events")).count(),
            2
        );
        let public = h.public_feed(&key).unwrap();
        assert_eq!(public.state()["result"], "W+R");
        assert_eq!(public.last_seq(), 5);
    }

    fn delayed(text: &str) -> HallState {
        let b = crate::config::HallConfig::parse(text, std::path::Path::new("hall.toml"))
            .unwrap()
            .broadcast;
        HallState::new("tengen", None, "h").with_broadcast(b.as_ref())
    }

    /// The public watch (what the engine analysis is fed) sees the public view only: under
    /// `delay_moves = 3`, never one of the last three moves.
    #[test]
    fn the_public_watch_sees_what_the_public_has_seen_and_no_more() {
        use std::sync::{Arc, Mutex};
        let seen: Arc<Mutex<Vec<usize>>> = Arc::default();
        let log = seen.clone();
        let watch: PublicWatch = Box::new(move |key, view| {
            assert_eq!((key.tournament.as_str(), key.board.as_str()), ("t", "b1"));
            log.lock().unwrap().push(view.record().len());
        });
        let mut h = delayed("[broadcast]\ndelay_moves = 3\n").with_public_watch(Some(watch));
        let now = Instant::now();
        let t0 = "2026-11-29T13:00:00.000Z";
        h.on_message("tengen/t/b1/events", &event(1, t0, game_started()), now);
        for (n, p) in ["C3", "G7", "C7", "G3", "E5"].iter().enumerate() {
            let n = n as u32 + 1;
            let e = event(u64::from(n) + 1, t0, moved(n, p));
            h.on_message("tengen/t/b1/events", &e, now);
            h.tick(now);
        }
        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen.iter().max(),
            Some(&2),
            "5 moves, 3 held back: {seen:?}"
        );
        assert_eq!(seen.last(), Some(&2));
    }

    #[test]
    fn a_hall_that_never_saw_the_game_start_shows_no_public_position() {
        let mut h = delayed("[broadcast]\ndelay_moves = 1\n");
        let now = Instant::now();
        let t0 = "2026-11-29T13:00:00.000Z";
        let ev = "tengen/t/b1/events";
        let key = BoardKey::new("t", "b1").unwrap();
        // Started mid-game, without an identity to ask for the history.
        h.on_message("tengen/t/b1/state", br#"{"seq":9,"number":4}"#, now);
        for (seq, n, p) in [(10, 5, "E5"), (11, 6, "C3"), (12, 7, "G7")] {
            h.on_message(ev, &event(seq, t0, moved(n, p)), now);
        }
        assert_eq!(h.feed(&key).unwrap().last_seq(), 12, "live: all of it");
        let public = h.public_feed(&key).unwrap();
        assert_eq!(public.last_seq(), 11, "the released events");
        assert_eq!(
            public.state(),
            Value::Null,
            "but no position, never the live one"
        );
        assert_eq!(public.sgf(), "");
        assert_eq!(h.boards_json(now)[0]["number"], Value::Null);
        // The next game is public from its start.
        for (seq, body) in [
            (13, game_started()),
            (14, moved(1, "E5")),
            (15, moved(2, "C3")),
        ] {
            h.on_message(ev, &event(seq, t0, body), now);
        }
        let public = h.public_feed(&key).unwrap();
        assert_eq!(public.state()["number"], 1);
        assert_eq!(public.state()["seq"], 14);
        assert_eq!(h.boards_json(now)[0]["number"], 1);
    }

    #[test]
    fn the_arbiters_overview_is_live_while_the_public_one_lags() {
        let mut h = delayed("[broadcast]\ndelay_moves = 1\n");
        let now = Instant::now();
        let t0 = "2026-11-29T13:00:00.000Z";
        let ev = "tengen/t/b1/events";
        for (seq, body) in [
            (1, game_started()),
            (2, moved(1, "E5")),
            (3, moved(2, "C3")),
        ] {
            h.on_message(ev, &event(seq, t0, body), now);
        }
        // The board's own snapshot after its last event, as it publishes it.
        h.on_message("tengen/t/b1/state", br#"{"seq":3,"number":2}"#, now);
        let public = &h.boards_json(now)[0];
        let live = &h.live_boards_json(now)[0];
        assert_eq!(
            public["number"], 1,
            "the public overview is one move behind"
        );
        assert_eq!(public["open_alerts"], Value::Null, "and shows no alerts");
        assert_eq!(public["url"], "/board/t/b1/");
        assert_eq!(live["number"], 2, "the arbiters see the last move");
        assert_eq!(live["open_alerts"], 0);
        assert_eq!(live["url"], "/console/board/t/b1/");
    }

    #[test]
    fn the_public_clocks_are_what_the_last_public_event_said() {
        let mut h = delayed("[broadcast]\ndelay_moves = 1\n");
        let key = BoardKey::new("t", "b1").unwrap();
        let now = Instant::now();
        let ev = "tengen/t/b1/events";
        let clock = |color: Value, b: u64, w: u64, running: &str| {
            json!({"type": "clock", "color": color, "B": b, "W": w,
                "periods": {"B": 3, "W": 3}, "running": running, "paused": false})
        };
        let timed = |number: u32, point: &str, b: u64, w: u64| {
            let mut m = moved(number, point);
            m["clock"] = json!({"B": b, "W": w});
            m
        };
        let mut setup = game_started();
        setup["time_control"] = json!("byoyomi 10m 3x30s");
        for (seq, time, body) in [
            (1, "2026-11-29T13:00:00.000Z", setup),
            (
                2,
                "2026-11-29T13:00:00.000Z",
                clock(Value::Null, 600_000, 600_000, "B"),
            ),
            (
                3,
                "2026-11-29T13:00:10.000Z",
                timed(1, "E5", 590_000, 600_000),
            ),
            (
                4,
                "2026-11-29T13:00:10.000Z",
                clock(json!("B"), 590_000, 600_000, "W"),
            ),
            (
                5,
                "2026-11-29T13:01:10.000Z",
                timed(2, "C3", 590_000, 540_000),
            ),
            (
                6,
                "2026-11-29T13:01:10.000Z",
                clock(json!("W"), 590_000, 540_000, "B"),
            ),
        ] {
            h.on_message(ev, &event(seq, time, body), now);
        }
        let state = h.public_feed(&key).unwrap().state();
        assert_eq!(state["number"], 1);
        assert_eq!(
            state["clocks"],
            json!({"B": 590_000, "W": 600_000, "periods": {"B": 3, "W": 3},
                "running": "W", "paused": false}),
            "White's clock as it stood at the last public press, not run on to now"
        );
    }

    #[test]
    fn a_hall_that_does_not_republish_keeps_the_delay_to_itself() {
        let b = crate::config::HallConfig::parse(
            "[broadcast]\ndelay_moves = 1\nrepublish = false\n",
            std::path::Path::new("hall.toml"),
        )
        .unwrap()
        .broadcast;
        let mut h = HallState::new("tengen", None, "h").with_broadcast(b.as_ref());
        let now = Instant::now();
        let t0 = "2026-11-29T13:00:00.000Z";
        let ev = "tengen/t/b1/events";
        for (seq, body) in [
            (1, game_started()),
            (2, moved(1, "E5")),
            (3, moved(2, "C3")),
        ] {
            let out = h.on_message_at(ev, &event(seq, t0, body), now, Timestamp::now());
            assert!(out.is_empty());
        }
        let key = BoardKey::new("t", "b1").unwrap();
        assert_eq!(h.public_feed(&key).unwrap().state()["number"], 1);
        assert_eq!(h.feed(&key).unwrap().last_seq(), 3);
    }

    #[test]
    fn the_console_lists_standing_hardware_trouble_newest_first() {
        let mut h = HallState::new("tengen", None, "h");
        let now = Instant::now();
        let fault = |kind: &str, points: Value| json!({"type": "sensor_fault", "kind": kind, "points": points});
        for (board, seq, time, body) in [
            ("b1", 1, "2026-11-29T13:00:00.000Z", game_started()),
            (
                "b1",
                2,
                "2026-11-29T13:00:01.000Z",
                fault("noisy", json!(["J1"])),
            ),
            (
                "b2",
                1,
                "2026-11-29T13:00:02.000Z",
                fault("link_lost", json!([])),
            ),
            (
                "b1",
                3,
                "2026-11-29T13:00:03.000Z",
                fault("stuck", json!(["A9", "B9"])),
            ),
            (
                "b2",
                2,
                "2026-11-29T13:00:04.000Z",
                fault("link_restored", json!([])),
            ),
        ] {
            let mut e: Value = serde_json::from_slice(&event(seq, time, body)).unwrap();
            e["board"] = json!(board);
            h.on_message(
                &format!("tengen/t/{board}/events"),
                e.to_string().as_bytes(),
                now,
            );
        }
        let list = h.hardware_json();
        let rows: Vec<(String, String, Value)> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["board"].as_str().unwrap().to_string(),
                    r["kind"].as_str().unwrap().to_string(),
                    r["points"].clone(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("b1".to_string(), "stuck".to_string(), json!(["A9", "B9"])),
                ("b1".to_string(), "noisy".to_string(), json!(["J1"])),
            ]
        );
        // A board whose storage is full: standing trouble too, while its alert is open.
        let full = json!([{"seq": 40, "time": "2026-11-29T14:00:00.000Z", "board": "b2",
            "game": "g", "type": "alert", "id": "s40", "code": "storage_full", "article": "",
            "color": null, "points": [], "expected": {}, "message": "full"}]);
        h.on_message(
            "tengen/t/b2/alerts/active",
            full.to_string().as_bytes(),
            now,
        );
        let list = h.hardware_json();
        assert_eq!(list[0]["board"], "b2");
        assert_eq!(list[0]["kind"], "storage_full");
        assert_eq!(list.as_array().map(Vec::len), Some(3));
        h.on_message("tengen/t/b2/alerts/active", b"[]", now);
        assert_eq!(h.hardware_json().as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn without_a_broadcast_section_the_public_side_is_live_without_alerts() {
        let mut h = HallState::new("tengen", None, "h");
        let now = Instant::now();
        h.on_message("tengen/t/b1/alerts/active", br#"[{"id":"a1"}]"#, now);
        let out = h.on_message(
            "tengen/t/b1/events",
            &event(1, "2026-11-29T13:00:00.000Z", game_started()),
            now,
        );
        assert!(out.is_empty());
        h.on_message(
            "tengen/t/b1/events",
            &event(2, "2026-11-29T13:00:01.000Z", secret_alert()),
            now,
        );
        assert!(h.tick(now).is_empty());
        let key = BoardKey::new("t", "b1").unwrap();
        let public = h.public_feed(&key).unwrap();
        assert_eq!(public.state()["seq"], 2, "as live as the board");
        assert_eq!(public.events_after(0).len(), 1, "no alert");
        assert_eq!(h.feed(&key).unwrap().events_after(0).len(), 2);
        assert_eq!(h.boards_json(now)[0]["open_alerts"], Value::Null);
        assert_eq!(h.commentary_boards_json(now)[0]["open_alerts"], Value::Null);
        assert_eq!(h.live_boards_json(now)[0]["open_alerts"], 1);
    }

    /// An `alert` event whose message is `secret`, as JSON.
    fn secret_alert() -> Value {
        let alert = tengen_protocol::Event::Alert(tengen_protocol::event::Alert {
            id: "a1".into(),
            code: tengen_protocol::event::AlertCode::StoneMoved,
            article: "17.5".into(),
            color: None,
            points: vec![],
            expected: Default::default(),
            message: "secret".into(),
            late_ms: None,
        });
        serde_json::to_value(&alert).expect("JSON")
    }

    #[test]
    fn without_the_history_the_public_side_shows_the_boards_state_without_its_alerts() {
        let mut h = HallState::new("tengen", None, "h");
        let now = Instant::now();
        let state = whole_state(json!({"number": 3, "seq": 9, "alerts": [secret_alert()]}));
        h.on_message("tengen/t/b1/state", state.to_string().as_bytes(), now);
        h.on_message("tengen/t/b1/sgf", b"(;GM[1]SZ[19];B[dd]C[secret])", now);
        let key = BoardKey::new("t", "b1").unwrap();
        let live = h.feed(&key).unwrap();
        assert!(live.state().to_string().contains("secret"));
        let public = h.public_feed(&key).unwrap();
        assert_eq!(public.state()["number"], 3);
        assert!(!public.state().to_string().contains("secret"));
        assert!(public.sgf().contains("B[dd]") && !public.sgf().contains("secret"));
    }

    #[test]
    fn followed_events_are_queued_for_the_archive_once_each_in_order() {
        let now = Instant::now();
        let t0 = "2026-11-29T13:00:00.000Z";
        let ev = "tengen/t/b1/events";
        let mut plain = HallState::new("tengen", None, "h");
        plain.on_message(ev, &event(1, t0, game_started()), now);
        assert!(plain.take_archived().is_empty(), "no archive, no queue");

        // With an identity: held back until the history is whole, then in order.
        let mut h = HallState::new("tengen", Some("hall".into()), "h").with_archive(true);
        h.on_message(ev, &event(3, t0, moved(2, "C3")), now);
        assert!(h.take_archived().is_empty());
        h.on_message(ev, &event(1, t0, game_started()), now);
        h.on_message(ev, &event(2, t0, moved(1, "E5")), now);
        h.on_message(ev, &event(2, t0, moved(1, "E5")), now);
        h.on_message(ev, &event(4, t0, moved(3, "D4")), now);
        h.on_message(ev, &event(3, t0, moved(2, "C3")), now);
        let queued: Vec<(String, u64)> = h
            .take_archived()
            .into_iter()
            .map(|(k, e)| (k.board, e.seq))
            .collect();
        assert_eq!(queued, [1, 2, 3, 4].map(|s| ("b1".to_string(), s)).to_vec());
        assert!(h.take_archived().is_empty());
    }

    #[test]
    fn a_hall_with_an_identity_asks_for_missing_history() {
        let now = Instant::now();
        let mut h = HallState::new("tengen", Some("hall-main".into()), "h");
        let out = h.on_message("tengen/t/b1/state", br#"{"seq":9}"#, now);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].topic, "tengen/t/b1/cmd");
        let mut v: Value = serde_json::from_slice(&out[0].payload).unwrap();
        assert_eq!(v["id"].as_str().map(str::len), Some(16), "a random id: {v}");
        v["id"] = json!("random");
        assert_eq!(
            v,
            json!({"id": "random", "by": "hall-main", "type": "republish", "from_seq": 1})
        );
        assert!(h
            .on_message("tengen/t/b1/state", br#"{"seq":10}"#, now)
            .is_empty());
    }

    #[test]
    fn a_hall_asks_again_when_the_board_refuses_its_republish_for_now() {
        let now = Instant::now();
        let wall = Timestamp::parse("2026-11-29T13:45:01.250Z").unwrap();
        let mut h = HallState::new("tengen", Some("hall-main".into()), "h");
        let out = h.on_message_at("tengen/t/b1/state", br#"{"seq":9}"#, now, wall);
        assert_eq!(out.len(), 1, "asked once");
        let first: Value = serde_json::from_slice(&out[0].payload).unwrap();
        // Another hall asked just before: the board's rate limit refuses this one.
        let refusal = RepublishRefused {
            every_s: 10,
            wait_ms: 6_000,
        };
        let reply = json!({"id": first["id"], "ok": false, "error": refusal.to_string()});
        let reply = reply.to_string();
        assert!(h
            .on_message_at("tengen/t/b1/cmd/reply", reply.as_bytes(), now, wall)
            .is_empty());
        assert!(h.tick_at(now + Duration::from_secs(6), wall).is_empty());
        let out = h.tick_at(now + Duration::from_millis(6_100), wall);
        assert_eq!(out.len(), 1, "asked again once the board takes it: {out:?}");
        assert_eq!(out[0].topic, "tengen/t/b1/cmd");
        let mut v: Value = serde_json::from_slice(&out[0].payload).unwrap();
        assert_ne!(v["id"], first["id"]);
        v["id"] = json!("random");
        assert_eq!(
            v,
            json!({"id": "random", "by": "hall-main", "type": "republish", "from_seq": 1})
        );
    }

    /// A hall that has seen board `b` set up for round 1 and play one move, at `now`.
    fn in_play(h: &mut HallState, b: &str, now: Instant) {
        let topic = format!("tengen/t/{b}/events");
        let started = event(1, "2026-11-29T13:45:00Z", game_started());
        h.on_message(&topic, &started, now);
        h.on_message(
            &topic,
            &event(2, "2026-11-29T13:45:01Z", moved(1, "E5")),
            now,
        );
        h.on_message(
            &format!("tengen/t/{b}/status"),
            br#"{"state":"online"}"#,
            now,
        );
    }

    #[test]
    fn a_board_in_play_that_falls_silent_rings_in_the_console_until_it_is_back() {
        let t0 = Instant::now();
        let wall = Timestamp::parse("2026-11-29T13:45:01Z").unwrap();
        let mut h = HallState::new("tengen", None, "h").with_board_silence(Duration::from_secs(15));
        in_play(&mut h, "b1", t0);
        h.on_message("tengen/t/idle/status", br#"{"state":"online"}"#, t0);
        h.tick_at(t0 + Duration::from_secs(14), wall);
        assert_eq!(h.alerts_json(), json!([]));
        h.tick_at(t0 + Duration::from_secs(15), wall);
        let alerts = h.alerts_json();
        let a = alerts.as_array().expect("alerts");
        assert_eq!(a.len(), 1, "the silent board in play only: {alerts}");
        assert_eq!(
            (
                &a[0]["code"],
                &a[0]["board"],
                &a[0]["table"],
                &a[0]["black"]
            ),
            (
                &json!("board_offline"),
                &json!("b1"),
                &json!("1"),
                &json!("B")
            )
        );
        let key = BoardKey::new("t", "b1").unwrap();
        let id = a[0]["id"].as_str().unwrap().to_string();
        h.take_alert(&key, &id, "chief").expect("an arbiter goes");
        assert_eq!(h.alerts_json()[0]["taken_by"], "chief");
        assert_eq!(h.taken_saved().len(), 1, "kept for a restart");

        // The heartbeat again: cleared.
        h.on_message(
            "tengen/t/b1/status",
            br#"{"state":"online"}"#,
            t0 + Duration::from_secs(16),
        );
        h.tick_at(t0 + Duration::from_secs(16), wall);
        assert_eq!(h.alerts_json(), json!([]));

        // The last will: at once.
        h.on_message(
            "tengen/t/b1/status",
            br#"{"state":"offline"}"#,
            t0 + Duration::from_secs(17),
        );
        h.tick_at(t0 + Duration::from_secs(17), wall);
        let id = h.alerts_json()[0]["id"].as_str().unwrap().to_string();
        assert!(h.dismiss_hall_alert(&key, "nope").is_err());
        h.dismiss_hall_alert(&key, &id).expect("dismissed");
        assert_eq!(h.alerts_json(), json!([]));
    }

    /// Issue 34: the hall's own broker link down is not every board offline. Before, a
    /// link down for longer than `board_silence_s` raised `board_offline` for every board in
    /// play, and the reconnection cleared them all.
    #[test]
    fn the_fleet_watch_holds_its_alerts_while_the_halls_own_link_is_down() {
        let t0 = Instant::now();
        let wall = Timestamp::parse("2026-11-29T13:45:01Z").unwrap();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut h = HallState::new("tengen", None, "h").with_board_silence(Duration::from_secs(15));
        h.broker_link(true, t0);
        in_play(&mut h, "b1", t0);
        in_play(&mut h, "b2", t0);
        h.broker_link(false, at(5));
        for s in [10, 20, 40, 60] {
            h.tick_at(at(s), wall);
            assert_eq!(h.alerts_json(), json!([]), "link down, {s} s");
        }
        // Back at 61 s: b1 speaks as the hall subscribes again, b2 does not.
        h.broker_link(true, at(61));
        h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, at(61));
        h.tick_at(at(62), wall);
        assert_eq!(h.alerts_json(), json!([]), "nothing raised on the way back");
        h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, at(70));
        h.tick_at(at(76), wall);
        let boards: Vec<Value> = h
            .alerts_json()
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["board"].clone())
            .collect();
        assert_eq!(
            boards,
            [json!("b2")],
            "the one still silent, once the hall has listened"
        );
    }

    #[test]
    fn pause_all_reaches_the_boards_in_play_and_names_the_silent_ones() {
        let t0 = Instant::now();
        let mut h = HallState::new("tengen", None, "h").with_board_silence(Duration::from_secs(15));
        in_play(&mut h, "b1", t0);
        in_play(&mut h, "b2", t0);
        h.on_message("tengen/t/b2/status", br#"{"state":"offline"}"#, t0);
        h.on_message("tengen/t/idle/status", br#"{"state":"online"}"#, t0);
        let done = h.all_boards("chief", "pause", None, t0);
        let sent: Vec<&str> = done.sent.iter().map(|(k, _, _)| k.board.as_str()).collect();
        assert_eq!(sent, ["b1"]);
        let body: Value = serde_json::from_slice(&done.sent[0].2.payload).unwrap();
        assert_eq!(
            (&body["type"], &body["by"]),
            (&json!("pause"), &json!("chief"))
        );
        assert_eq!(done.sent[0].2.topic, "tengen/t/b1/cmd");
        let skipped: Vec<(&str, &str)> = done
            .skipped
            .iter()
            .map(|(k, w)| (k.board.as_str(), w.as_str()))
            .collect();
        assert_eq!(skipped, [("b2", "offline")]);
        assert!(
            h.all_boards("chief", "resume", Some(2), t0).sent.is_empty(),
            "round 2: none"
        );
        assert_eq!(h.all_boards("chief", "resume", Some(1), t0).sent.len(), 1);
    }

    #[test]
    fn a_boards_state_and_sgf_are_taken_only_until_the_hall_folds_its_game() {
        let t0 = Instant::now();
        let mut h = HallState::new("tengen", Some("hall".into()), "h");
        let changes = |h: &mut HallState| -> Vec<(bool, String)> {
            h.take_subscription_changes()
                .into_iter()
                .map(|c| (c.subscribe, c.topic))
                .collect()
        };
        // Heard of mid-game: its state and SGF, until the history is in.
        h.on_message("tengen/t/b1/status", br#"{"state":"online"}"#, t0);
        assert_eq!(
            changes(&mut h),
            [
                (true, "tengen/t/b1/state".to_string()),
                (true, "tengen/t/b1/sgf".to_string())
            ]
        );
        let t = "2026-11-29T13:00:00.000Z";
        h.on_message("tengen/t/b1/events", &event(2, t, moved(1, "E5")), t0);
        assert!(changes(&mut h).is_empty(), "still no fold");
        h.on_message("tengen/t/b1/events", &event(1, t, game_started()), t0);
        assert_eq!(
            changes(&mut h),
            [
                (false, "tengen/t/b1/state".to_string()),
                (false, "tengen/t/b1/sgf".to_string())
            ]
        );
        // A minute on, the check: the state alone, dropped once it came.
        h.tick(t0 + Duration::from_secs(61));
        assert_eq!(changes(&mut h), [(true, "tengen/t/b1/state".to_string())]);
        h.on_message(
            "tengen/t/b1/state",
            br#"{"seq":2}"#,
            t0 + Duration::from_secs(61),
        );
        assert_eq!(changes(&mut h), [(false, "tengen/t/b1/state".to_string())]);
        // A board that never started a game in the hall's sight keeps them.
        h.on_message("tengen/t/b2/status", br#"{"state":"online"}"#, t0);
        assert_eq!(changes(&mut h).len(), 2);
        h.tick(t0 + Duration::from_secs(100));
        assert!(changes(&mut h).is_empty());
    }

    #[test]
    fn a_board_back_with_a_new_journal_is_followed_on_every_page() {
        let t0 = Instant::now();
        let b = crate::config::HallConfig::parse(
            "[broadcast]\ndelay_moves = 1\n",
            std::path::Path::new("hall.toml"),
        )
        .unwrap()
        .broadcast;
        let mut h = HallState::new("tengen", None, "h").with_broadcast(b.as_ref());
        in_play(&mut h, "b1", t0);
        let key = BoardKey::new("t", "b1").unwrap();
        assert_eq!(h.feed(&key).unwrap().last_seq(), 2);
        // The spare board: a new journal, the same game set up again, a move elsewhere.
        let started = event(1, "2026-11-29T14:00:00Z", game_started());
        h.on_message("tengen/t/b1/events", &started, t0);
        h.on_message(
            "tengen/t/b1/events",
            &event(2, "2026-11-29T14:00:05Z", moved(1, "D4")),
            t0,
        );
        h.tick(t0);
        let live = h.feed(&key).unwrap().events_after(0);
        assert_eq!(live.len(), 2);
        assert_eq!(
            live[1].time,
            Timestamp::parse("2026-11-29T14:00:05Z").unwrap()
        );
        let public = h.public_feed(&key).unwrap().events_after(0);
        assert_eq!(public.len(), 1, "one move behind");
        assert_eq!(
            public[0].time,
            Timestamp::parse("2026-11-29T14:00:00Z").unwrap()
        );
        // A republished copy of the current journal's event is a duplicate, not a reset.
        h.on_message("tengen/t/b1/events", &started, t0);
        assert_eq!(h.feed(&key).unwrap().events_after(0).len(), 2);
    }

    #[test]
    fn the_overview_text_is_the_summaries_and_follows_every_change() {
        let t0 = Instant::now();
        let mut h = HallState::new("tengen", None, "h");
        in_play(&mut h, "b1", t0);
        h.on_message("tengen/t/b2/status", br#"{"state":"online"}"#, t0);
        let same = |h: &mut HallState, at: Instant| {
            let text: Value = serde_json::from_str(&h.boards_json_text(at)).expect("JSON");
            assert_eq!(text, h.boards_json(at), "the text is the summaries");
        };
        same(&mut h, t0 + Duration::from_millis(300));
        h.on_message(
            "tengen/t/b1/events",
            &event(3, "2026-11-29T13:45:02Z", moved(2, "C3")),
            t0,
        );
        h.on_message("tengen/t/b2/status", br#"{"state":"offline"}"#, t0);
        h.on_message("tengen/t/b1/alerts/active", br#"[{"id":"1"}]"#, t0);
        same(&mut h, t0 + Duration::from_millis(900));
        let v: Value = serde_json::from_str(&h.boards_json_text(t0)).unwrap();
        assert_eq!(
            (&v[0]["number"], &v[0]["open_alerts"]),
            (&json!(2), &Value::Null),
            "alerts are never public"
        );
        assert_eq!(h.live_boards_json(t0)[0]["open_alerts"], 1);
        assert_eq!(v[1]["status"], "offline");
    }
}

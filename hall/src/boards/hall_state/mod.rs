//! The whole hall: every board heard of under the prefix, and the commands sent. Fed with
//! MQTT messages (topic, payload, time); answers with what to publish. Sans-IO, so the MQTT
//! task, the tests and the fuzz target drive it the same way.
//!
//! One [`HallState`], its `impl` in rooms: `messages` (the broker's messages in, what to
//! publish out, the broadcast delay, what a hub's boards miss), `commands` (the console's,
//! the hall's own, all boards at once, the boards' replies), `alerts` (taken, dismissed,
//! the console's alert and hardware views) and `overview` (the boards' summaries, feeds and
//! current games). Here: the state itself, how it is built, and [`Shared`], the one copy
//! the MQTT task and the HTTP handlers lock.

mod alerts;
mod commands;
mod messages;
mod overview;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tengen_protocol::command::Reply;
use tengen_protocol::topics::BoardKey;
use tengen_protocol::{Envelope, GameView};
use tokio::sync::oneshot;

use crate::boards::board_filter::BoardFilter;
use crate::boards::board_view::BoardView;
use crate::boards::command_log::CommandLog;
use crate::boards::fleet_watch::FleetWatch;
use crate::boards::snapshot_watch::SnapshotWatch;
use crate::config::{Broadcast, DelayPolicy};

pub(crate) use alerts::TakenAlert;
pub(crate) use overview::zip_name;

/// The hall state shared by the MQTT task and the HTTP handlers.
pub(crate) type Shared = Arc<Mutex<HallState>>;

/// Locks the shared state; a handler that panicked while holding it leaves usable data.
pub(crate) fn lock(shared: &Shared) -> MutexGuard<'_, HallState> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

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
    /// Requests waiting for a board's reply to their command (a `frames` window, a step of a
    /// correction), by id.
    replies_waiting: HashMap<String, oneshot::Sender<Reply>>,
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

impl HallState {
    /// An empty hall reading `{prefix}/+/+/#`. `identity`: the name the hall signs its own
    /// `republish` commands with (none: it never sends one).
    pub fn new(prefix: &str, identity: Option<String>) -> HallState {
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
            replies_waiting: HashMap::new(),
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
}

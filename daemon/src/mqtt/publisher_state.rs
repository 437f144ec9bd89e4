//! The publisher's core: a sans-IO state machine, after rumqttc's own `state.rs` and
//! quinn-proto. It owns the bookkeeping of one board's MQTT client (what goes out next, in
//! which order, what the broker has acknowledged, which commands are being carried out)
//! and does no I/O: the driver ([`super::publisher`]) feeds it what happened, with the
//! time, and carries out the [`Output`]s it asks for. So every rule below is unit tested
//! without sockets.
//!
//! - **Events** go out in `seq` order, each on `events`; an `alert`, `alert_cleared` or
//!   `warning` also on `alerts` (the event is acknowledged when both are); a `status` also
//!   on the retained `status`. At most `window` publishes of events are out and not
//!   acknowledged (an alert's two copies count twice), so every acknowledgement lets the
//!   next event go at once. The payload
//!   is the [`Record`]'s JSON, byte for byte as the source holds it. Records are asked for
//!   with [`Output::ReadEvents`] and come back through [`PublisherState::events_read`].
//! - **Acknowledgements**: rumqttc reports the packet id of each publish in the order the
//!   publishes were handed to it, so the core keeps a queue of what each one carries and
//!   maps packet ids as they are reported; a PubAck then acknowledges one publish of an
//!   event, and the highest contiguous acknowledged `seq` is to be persisted
//!   ([`Output::PersistAcked`]).
//! - **Connections**: whatever the broker kept of the session, after every ConnAck the core
//!   subscribes to `cmd`, publishes `status` online, re-publishes the retained `state`,
//!   `sgf` and `alerts/active`, and sends every event not acknowledged, in order.
//! - **Commands** on `cmd`: the sender is checked first (a refused one is answered and
//!   nothing else happens); on a board with a command key, then the stamp
//!   ([`tengen_protocol::signing::Scope::check`], at the wall-clock time the driver passes
//!   in): another board's or tournament's command, a stale or future one, one issued before
//!   the start of a board that lost its ids, or an id taken within the window before (and
//!   not in the memory of answers below, e.g. before a restart) is refused. Then the id: an
//!   id taken lately is answered from memory and never carried out twice (a redelivery);
//!   a signed command's id is added to the ids taken and persisted
//!   ([`Output::PersistTaken`], before the command is carried out); `republish` is carried
//!   out here, at most once per [`REPUBLISH_EVERY`] (the rest are refused); anything else
//!   goes to the service ([`Output::Forward`]) and its answer
//!   ([`PublisherState::answer`]) is the reply. Every command taken is logged once it is
//!   carried out or refused, in one INFO line ([`super::commands::log_outcome`]).
//! - **Heartbeat**: while the scan loop turns, the driver says so every 5 s with the wall
//!   clock's time ([`PublisherState::heartbeat`]); the core publishes the retained `status`
//!   online again with that `at` (not an event: nothing is journalled), so a hall can tell
//!   a board that went silent.
//! - **Shutdown**: `offline` on `status`, then DISCONNECT once everything is acknowledged
//!   or the deadline has passed; the answer goes out once DISCONNECT is written.
//! - **The client's queue** never holds more than `queue` publishes that rumqttc has not
//!   written yet, so a `try_publish` from the driver never finds it full.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

use tengen_protocol::command::{
    decode_checked, reply_payload, Answer, Checked, CommandError, RepublishRefused,
};
use tengen_protocol::event::BoardState;
use tengen_protocol::signing::{Scope, SenderPolicy};
use tengen_protocol::{BoardStatus, Command, CommandEnvelope, Timestamp, Topics};
use thiserror::Error;

use super::commands::{self, RecentCommands, Seen, Unanswered};
use super::outbox::AckTracker;
use super::source::{Record, RecordKind, SourceError};
use super::taken_ids::TakenIds;

/// A board carries out `republish` at most once in this time; the rest are refused.
pub(crate) const REPUBLISH_EVERY: Duration = Duration::from_secs(10);
/// How long the service has to answer a command.
pub(crate) const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long after a failed read of the source it is read again.
pub(crate) const READ_RETRY: Duration = Duration::from_secs(1);
/// How long the driver waits for rumqttc to write DISCONNECT at shutdown.
pub(crate) const DISCONNECT_WAIT: Duration = Duration::from_secs(1);
/// Records asked for at once.
pub(crate) const READ_BATCH: usize = 256;
/// Retained payloads (and other non-event publishes) unacknowledged at most before the
/// retained topics wait.
const OTHERS_MAX: usize = 16;

/// The retained topics' payloads: set whenever they change, re-published on every
/// connection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retained {
    /// `.../state`: the snapshot JSON.
    pub state: Option<String>,
    /// `.../sgf`: the game record.
    pub sgf: Option<String>,
    /// `.../alerts/active`: JSON array of open alerts.
    pub alerts_active: Option<String>,
}

/// Shutdown ran out of time before the broker acknowledged everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("MQTT broker acknowledged events up to seq {acked} of {last} before the time ran out")]
pub struct Unacknowledged {
    /// Highest contiguous acknowledged `seq`.
    pub acked: u64,
    /// Highest `seq` to publish.
    pub last: u64,
}

/// What one publish carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Carries {
    /// Event `seq` on `events` or `alerts`: part of its acknowledgement.
    Event(u64),
    /// Event `seq`, a `status`, on the retained `status` (not part of its acknowledgement).
    StatusCopy(u64),
    /// `status` online, on every connection and at each heartbeat.
    Online,
    /// `status` offline, at shutdown.
    Offline,
    /// `state`, `sgf` or `alerts/active`.
    Retained,
    /// A `cmd/reply`.
    Reply,
}

/// One QoS 1 publish for the driver to hand to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Publish {
    /// The topic.
    pub(crate) topic: String,
    /// The payload.
    pub(crate) payload: Vec<u8>,
    /// The retain flag.
    pub(crate) retain: bool,
    /// What it carries.
    pub(crate) carries: Carries,
}

/// What the core asks the driver to do, in order.
#[derive(Debug, PartialEq)]
pub(crate) enum Output {
    /// Subscribe to this topic (`cmd`) at QoS 1.
    Subscribe(String),
    /// Hand this publish to the client.
    Publish(Publish),
    /// Send DISCONNECT (report it written with [`PublisherState::disconnect_written`]).
    Disconnect,
    /// Read the source's records from `from`, at most `max`, and give them to
    /// [`PublisherState::events_read`].
    ReadEvents {
        /// The first `seq` wanted.
        from: u64,
        /// How many at most.
        max: usize,
    },
    /// Hand this command to the service; its answer goes to [`PublisherState::answer`],
    /// or why there is none to [`PublisherState::unanswered`].
    Forward(Box<CommandEnvelope>),
    /// The broker has acknowledged every event up to this `seq`: persist it.
    PersistAcked(u64),
    /// The signed command ids taken within the window changed: persist them (before
    /// carrying out the outputs after this one).
    PersistTaken(TakenIds),
    /// Shutdown is over, with this outcome.
    ShutdownDone(Result<(), Unacknowledged>),
}

/// What the core is set up with.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    /// The board's topics.
    pub(crate) topics: Topics,
    /// The version `status` reports.
    pub(crate) version: String,
    /// Who may send commands.
    pub(crate) senders: SenderPolicy,
    /// How a signed command's stamp is judged (`None` on a board without a key).
    pub(crate) scope: Option<Scope>,
    /// Whether commands other than `republish` go to a service.
    pub(crate) takes_commands: bool,
    /// Publishes of events sent and not acknowledged at most.
    pub(crate) window: usize,
    /// Publishes handed to the client and not yet written at most.
    pub(crate) queue: usize,
}

/// Where the source's records stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Idle,
    /// Asked with [`Output::ReadEvents`], not answered yet.
    Asked,
    /// A read failed: read again at this time.
    RetryAt(Instant),
}

/// Where shutdown stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Running,
    /// `offline` published (once connected); waiting for every acknowledgement.
    Draining {
        deadline: Instant,
        offline_acked: bool,
    },
    /// DISCONNECT handed to the client; the outcome is known.
    Disconnecting {
        result: Result<(), Unacknowledged>,
        give_up_at: Instant,
    },
    Done,
}

/// One connection to the broker, from its ConnAck to its loss.
#[derive(Debug, Default)]
struct Link {
    /// The broker acknowledged the subscription to `cmd`.
    subscribed: bool,
    /// The retained payloads published on this connection (`state`, `sgf`,
    /// `alerts/active`).
    sent_retained: [Option<String>; 3],
    /// `offline` is to be published.
    offline_due: bool,
    /// A heartbeat's `status` online is to be published, with this `at`.
    beat_due: Option<Timestamp>,
    /// What each publish handed to the client carries, until rumqttc reports it written.
    unwritten: VecDeque<Carries>,
    /// Packet id -> what it carries, until acknowledged.
    pkids: HashMap<u16, Carries>,
    /// Publishes other than events' written and not acknowledged.
    others_in_flight: usize,
}

/// The publisher's state machine; see the module documentation.
#[derive(Debug)]
pub(crate) struct PublisherState {
    setup: Setup,
    tracker: AckTracker,
    /// The highest `seq` the source holds, as far as the core knows.
    last_seq: u64,
    /// Records read and not sent yet, by `seq`.
    ahead: BTreeMap<u64, Record>,
    reading: Reading,
    link: Option<Link>,
    /// The retained payloads as they should be (`state`, `sgf`, `alerts/active`).
    retained: [Option<String>; 3],
    recent: RecentCommands,
    /// The signed command ids taken within the window (with those of earlier runs).
    taken: TakenIds,
    /// When the last `republish` was carried out.
    last_republish: Option<Instant>,
    /// Commands with the service, by id, with the time their answer is due and the
    /// command as the log names it ([`commands::named`]).
    with_service: HashMap<String, (Instant, String)>,
    /// Replies waiting for room in the client's queue.
    replies: VecDeque<Vec<u8>>,
    stop: Stop,
    outputs: VecDeque<Output>,
    /// The latest time an input brought.
    now: Instant,
    /// Something changed since what is due was last worked out.
    dirty: bool,
}

impl PublisherState {
    /// A core for a source holding events up to `last_seq`, of which the broker
    /// acknowledged those up to `acked_through` before (persisted). More acknowledgements
    /// than events means a new source (a journal archived and started afresh): everything
    /// is sent.
    pub(crate) fn new(
        setup: Setup,
        acked_through: u64,
        last_seq: u64,
        now: Instant,
    ) -> PublisherState {
        let acked_through = if acked_through > last_seq {
            tracing::warn!(
                "MQTT acknowledgements reach seq {acked_through} but the journal ends at \
                 {last_seq}: a new journal; resending every event"
            );
            0
        } else {
            acked_through
        };
        PublisherState {
            setup: Setup {
                window: setup.window.max(1),
                queue: setup.queue.max(3),
                ..setup
            },
            tracker: AckTracker::new(acked_through),
            last_seq,
            ahead: BTreeMap::new(),
            reading: Reading::Idle,
            link: None,
            retained: Default::default(),
            recent: RecentCommands::default(),
            taken: TakenIds::default(),
            last_republish: None,
            with_service: HashMap::new(),
            replies: VecDeque::new(),
            stop: Stop::Running,
            outputs: VecDeque::new(),
            now,
            dirty: false,
        }
    }

    /// The same core knowing the signed command ids taken before (read from the ids file).
    pub(crate) fn with_taken(mut self, taken: TakenIds) -> PublisherState {
        self.taken = taken;
        self
    }

    // ---- queries ----

    /// The next thing to do, if any. What is due (publishes, reads, the steps of shutdown)
    /// is worked out here, once the outputs asked for so far are taken: a batch of inputs
    /// costs one pass.
    pub(crate) fn poll_output(&mut self) -> Option<Output> {
        if self.outputs.is_empty() && self.dirty {
            self.dirty = false;
            self.pump();
        }
        self.outputs.pop_front()
    }

    /// When [`PublisherState::handle_timeout`] is due next.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        let read = match self.reading {
            Reading::RetryAt(t) => Some(t),
            _ => None,
        };
        let stop = match self.stop {
            Stop::Draining { deadline, .. } => Some(deadline),
            Stop::Disconnecting { give_up_at, .. } => Some(give_up_at),
            _ => None,
        };
        let answers = self.with_service.values().map(|(due, _)| *due).min();
        [read, stop, answers].into_iter().flatten().min()
    }

    /// The highest contiguous acknowledged `seq`.
    pub(crate) fn acked_through(&self) -> u64 {
        self.tracker.acked_through()
    }

    /// Connected, and the broker acknowledged the subscription to `cmd`.
    pub(crate) fn subscribed(&self) -> bool {
        self.link.as_ref().is_some_and(|l| l.subscribed)
    }

    /// Shutdown is over ([`Output::ShutdownDone`] was given).
    pub(crate) fn is_done(&self) -> bool {
        self.stop == Stop::Done
    }

    // ---- inputs: the connection ----

    /// A ConnAck: a new connection is up (`session_present`: the broker kept the session;
    /// nothing here depends on it) at wall-clock time `wall` (the `status`'s `at`).
    pub(crate) fn connected(&mut self, session_present: bool, now: Instant, wall: Timestamp) {
        if self.link.is_some() {
            self.lose_link();
        }
        tracing::info!("MQTT connected to the broker (session present: {session_present})");
        if matches!(self.stop, Stop::Disconnecting { .. } | Stop::Done) {
            return;
        }
        let mut link = Link::default();
        self.outputs
            .push_back(Output::Subscribe(self.setup.topics.cmd()));
        let online = status_payload(&self.setup, BoardState::Online, Some(wall));
        link.hand(
            &mut self.outputs,
            self.setup.topics.status(),
            online,
            true,
            Carries::Online,
        );
        if let Stop::Draining { offline_acked, .. } = &mut self.stop {
            *offline_acked = false;
            link.offline_due = true;
        }
        self.link = Some(link);
        self.touch(now);
    }

    /// The connection was lost. Whatever was handed to the client for it is dropped (the
    /// driver empties rumqttc's queues); what was not acknowledged goes again on the next.
    pub(crate) fn disconnected(&mut self, now: Instant) {
        self.lose_link();
        if let Stop::Disconnecting { result, .. } = self.stop {
            self.finish(result);
        }
        self.touch(now);
    }

    /// rumqttc wrote the next publish handed to it, with packet id `pkid`.
    pub(crate) fn publish_written(&mut self, pkid: u16, now: Instant) {
        if let Some(link) = &mut self.link {
            if let Some(carries) = link.unwritten.pop_front() {
                link.pkids.insert(pkid, carries);
            }
        }
        self.touch(now);
    }

    /// The broker acknowledged the publish with packet id `pkid`.
    pub(crate) fn puback(&mut self, pkid: u16, now: Instant) {
        let Some(link) = &mut self.link else { return };
        match link.pkids.remove(&pkid) {
            Some(Carries::Event(seq)) => {
                let moved = self.tracker.acked(seq);
                if moved {
                    self.outputs
                        .push_back(Output::PersistAcked(self.tracker.acked_through()));
                }
            }
            Some(carries) => {
                link.others_in_flight = link.others_in_flight.saturating_sub(1);
                if carries == Carries::Offline {
                    if let Stop::Draining { offline_acked, .. } = &mut self.stop {
                        *offline_acked = true;
                    }
                }
            }
            None => {}
        }
        self.touch(now);
    }

    /// The broker acknowledged the subscription to `cmd`.
    pub(crate) fn suback(&mut self) {
        if let Some(link) = &mut self.link {
            link.subscribed = true;
        }
    }

    /// rumqttc wrote DISCONNECT.
    pub(crate) fn disconnect_written(&mut self) {
        if let Stop::Disconnecting { result, .. } = self.stop {
            self.finish(result);
        }
    }

    /// A message arrived on `topic` (commands on `cmd`; anything else is ignored);
    /// `wall_ms` is the wall-clock time (ms since the epoch) signed commands are judged at.
    pub(crate) fn incoming_publish(
        &mut self,
        topic: &str,
        payload: &[u8],
        now: Instant,
        wall_ms: u64,
    ) {
        if topic == self.setup.topics.cmd() {
            self.on_command(payload, now, wall_ms);
            self.touch(now);
        }
    }

    // ---- inputs: the source, the service, time ----

    /// The source holds events up to `last_seq` now.
    pub(crate) fn source_grew(&mut self, last_seq: u64, now: Instant) {
        self.last_seq = self.last_seq.max(last_seq);
        self.touch(now);
    }

    /// The answer to [`Output::ReadEvents`] from `from`.
    pub(crate) fn events_read(
        &mut self,
        from: u64,
        records: Result<Vec<Record>, SourceError>,
        now: Instant,
    ) {
        self.reading = Reading::Idle;
        match records {
            Ok(records) => {
                let end = from.saturating_add(READ_BATCH as u64);
                let mut found = false;
                for r in records {
                    self.last_seq = self.last_seq.max(r.seq);
                    if r.seq == from {
                        found = true;
                    }
                    if (from..end).contains(&r.seq) {
                        self.ahead.insert(r.seq, r);
                    }
                }
                if !found {
                    tracing::error!("event seq {from} is missing from the journal");
                    self.reading = Reading::RetryAt(now + READ_RETRY);
                }
            }
            Err(e) => {
                tracing::error!("cannot read event seq {from} from the journal: {e}");
                self.reading = Reading::RetryAt(now + READ_RETRY);
            }
        }
        self.touch(now);
    }

    /// New retained payloads (`None` leaves a topic as it was).
    pub(crate) fn set_retained(&mut self, retained: Retained, now: Instant) {
        let new = [retained.state, retained.sgf, retained.alerts_active];
        for (slot, value) in self.retained.iter_mut().zip(new) {
            if value.is_some() {
                *slot = value;
            }
        }
        self.touch(now);
    }

    /// The scan loop turned lately (the driver says so every 5 s), and the wall clock reads
    /// `at`: the retained `status` online is published again with that `at`, on a live
    /// connection and while not shutting down (a heartbeat that finds no room waits).
    pub(crate) fn heartbeat(&mut self, at: Timestamp, now: Instant) {
        if self.stop != Stop::Running {
            return;
        }
        if let Some(link) = &mut self.link {
            link.beat_due = Some(at);
        }
        self.touch(now);
    }

    /// The service's answer to the command `id` ([`Output::Forward`]).
    pub(crate) fn answer(&mut self, id: &str, result: Answer, now: Instant) {
        if let Some((_, named)) = self.with_service.remove(id) {
            commands::log_outcome(&named, &result);
            self.recent.answered(id, &result);
            self.replies.push_back(reply_payload(Some(id), &result));
        }
        self.touch(now);
    }

    /// The command `id` ([`Output::Forward`]) got no answer from the service.
    pub(crate) fn unanswered(&mut self, id: &str, why: Unanswered, now: Instant) {
        self.answer(id, Answer::refused(why), now);
    }

    /// Stop: `offline` on `status`, everything acknowledged (until `deadline`), DISCONNECT,
    /// then [`Output::ShutdownDone`].
    pub(crate) fn shutdown(&mut self, deadline: Instant, now: Instant) {
        if self.stop != Stop::Running {
            return;
        }
        self.stop = Stop::Draining {
            deadline,
            offline_acked: false,
        };
        if let Some(link) = &mut self.link {
            link.offline_due = true;
        }
        self.touch(now);
    }

    /// Time has passed: failed reads are tried again, commands the service did not answer
    /// are answered, shutdown gives up at its deadline.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        if matches!(self.reading, Reading::RetryAt(t) if t <= now) {
            self.reading = Reading::Idle;
        }
        let mut overdue: Vec<String> = self
            .with_service
            .iter()
            .filter(|(_, (due, _))| *due <= now)
            .map(|(id, _)| id.clone())
            .collect();
        overdue.sort();
        for id in overdue {
            self.unanswered(&id, Unanswered::TimedOut, now);
        }
        self.touch(now);
    }

    // ---- the machinery ----

    fn lose_link(&mut self) {
        if self.link.take().is_some() {
            tracing::warn!("MQTT connection lost");
        }
        self.tracker.disconnected();
        self.outputs.retain(|o| {
            !matches!(
                o,
                Output::Publish(_) | Output::Subscribe(_) | Output::Disconnect
            )
        });
    }

    fn finish(&mut self, result: Result<(), Unacknowledged>) {
        self.outputs.push_back(Output::ShutdownDone(result));
        self.stop = Stop::Done;
    }

    fn on_command(&mut self, payload: &[u8], now: Instant, wall_ms: u64) {
        let Checked {
            command: cmd,
            stamp,
        } = match decode_checked(payload, &self.setup.senders) {
            Ok(c) => c,
            Err(rejected) => {
                // Refused before anything else: the memory of ids is not touched.
                self.refuse(rejected.id.as_deref(), rejected.error);
                return;
            }
        };
        let stamped = match (&self.setup.scope, stamp) {
            (Some(scope), Some(stamp)) => {
                self.taken.prune(scope, wall_ms);
                // An id in the memory of answers is a redelivery, answered again below;
                // one taken before and forgotten there (a restart) is a replay.
                let known = self.recent.knows(&cmd.id);
                let taken = &self.taken;
                let seen = |id: &str| !known && taken.contains(id);
                if let Err(refusal) = scope.check(&cmd.id, &stamp, wall_ms, seen) {
                    self.refuse(Some(&cmd.id), refusal.into());
                    return;
                }
                Some(stamp)
            }
            _ => None,
        };
        match self.recent.take(&cmd.id) {
            Seen::New => {}
            Seen::Pending => return,
            Seen::Answered(answer) => {
                self.replies
                    .push_back(reply_payload(Some(&cmd.id), &answer));
                return;
            }
        }
        if let Some(stamp) = stamped {
            self.taken.insert(&cmd.id, stamp.at);
            self.outputs
                .push_back(Output::PersistTaken(self.taken.clone()));
        }
        if let Command::Republish { from_seq } = cmd.command {
            if let Some(last) = self.last_republish {
                let next = last + REPUBLISH_EVERY;
                if now < next {
                    let refusal = RepublishRefused {
                        every_s: REPUBLISH_EVERY.as_secs(),
                        wait_ms: u64::try_from((next - now).as_millis()).unwrap_or(u64::MAX),
                    };
                    self.answered(&cmd, Answer::refused(refusal));
                    return;
                }
            }
            self.last_republish = Some(now);
            self.tracker.rewind(from_seq);
            self.answered(&cmd, Answer::Done);
            return;
        }
        if !self.setup.takes_commands {
            self.answered(&cmd, Answer::refused("this board does not take commands"));
            return;
        }
        self.with_service.insert(
            cmd.id.clone(),
            (now + ANSWER_TIMEOUT, commands::named(&cmd)),
        );
        self.outputs.push_back(Output::Forward(Box::new(cmd)));
    }

    /// Refuses a command before it is taken: one log line and the reply; the memory of ids
    /// is not touched.
    fn refuse(&mut self, id: Option<&str>, error: CommandError) {
        tracing::warn!("refused a command: {error}");
        let result = Answer::refused(error);
        self.replies.push_back(reply_payload(id, &result));
    }

    /// Remembers the answer to `cmd` (carried out or refused here), logs it and replies
    /// with it.
    fn answered(&mut self, cmd: &CommandEnvelope, result: Answer) {
        commands::log_outcome(&commands::named(cmd), &result);
        self.recent.answered(&cmd.id, &result);
        self.replies
            .push_back(reply_payload(Some(&cmd.id), &result));
    }

    /// An input came at `now`: what is due is worked out at the next
    /// [`PublisherState::poll_output`].
    fn touch(&mut self, now: Instant) {
        self.now = self.now.max(now);
        self.dirty = true;
    }

    /// Publishes what is due, then moves shutdown on.
    fn pump(&mut self) {
        if matches!(self.stop, Stop::Running | Stop::Draining { .. }) {
            self.publish_due();
        }
        self.check_stop();
    }

    fn publish_due(&mut self) {
        let queue = self.setup.queue;
        let topics = &self.setup.topics;
        let Some(link) = &mut self.link else { return };
        if link.offline_due && link.free(queue) > 0 {
            link.offline_due = false;
            link.beat_due = None;
            let offline = status_payload(&self.setup, BoardState::Offline, None);
            link.hand(
                &mut self.outputs,
                topics.status(),
                offline,
                true,
                Carries::Offline,
            );
        }
        if let Some(at) = link.beat_due {
            if matches!(self.stop, Stop::Running)
                && link.others_in_flight < OTHERS_MAX
                && link.free(queue) > 0
            {
                link.beat_due = None;
                let online = status_payload(&self.setup, BoardState::Online, Some(at));
                link.hand(
                    &mut self.outputs,
                    topics.status(),
                    online,
                    true,
                    Carries::Online,
                );
            }
        }
        while link.free(queue) > 0 {
            let Some(reply) = self.replies.pop_front() else {
                break;
            };
            link.hand(
                &mut self.outputs,
                topics.cmd_reply(),
                reply,
                false,
                Carries::Reply,
            );
        }
        let retained_topics = [topics.state(), topics.sgf(), topics.alerts_active()];
        for (i, topic) in retained_topics.into_iter().enumerate() {
            if link.others_in_flight >= OTHERS_MAX || link.free(queue) == 0 {
                break;
            }
            let want = &self.retained[i];
            if want.is_some() && *want != link.sent_retained[i] {
                link.sent_retained[i] = want.clone();
                let payload = want.clone().unwrap_or_default().into_bytes();
                link.hand(&mut self.outputs, topic, payload, true, Carries::Retained);
            }
        }
        while self.tracker.in_flight() < self.setup.window {
            let Some(seq) = self.tracker.next_due(self.last_seq) else {
                break;
            };
            if self.ahead.first_key_value().is_some_and(|(s, _)| *s < seq) {
                self.ahead = self.ahead.split_off(&seq);
            }
            let Some(record) = self.ahead.get(&seq) else {
                if self.reading == Reading::Idle {
                    self.reading = Reading::Asked;
                    self.outputs.push_back(Output::ReadEvents {
                        from: seq,
                        max: READ_BATCH,
                    });
                }
                break;
            };
            // Where it goes; the status copy is not part of the event's acknowledgement.
            let mut copies = vec![(topics.events(), false, Carries::Event(seq))];
            match record.kind {
                RecordKind::Plain => {}
                RecordKind::ForArbiters => {
                    copies.push((topics.alerts(), false, Carries::Event(seq)));
                }
                RecordKind::Status => {
                    copies.push((topics.status(), true, Carries::StatusCopy(seq)))
                }
            }
            let acked_copies = copies
                .iter()
                .filter(|(_, _, c)| matches!(c, Carries::Event(_)))
                .count();
            let in_flight = self.tracker.in_flight();
            if (in_flight > 0 && in_flight + acked_copies > self.setup.window)
                || link.free(queue) < copies.len()
            {
                break;
            }
            let Some(record) = self.ahead.remove(&seq) else {
                break;
            };
            for (topic, retain, carries) in copies {
                let payload = record.json.clone();
                link.hand(&mut self.outputs, topic, payload, retain, carries);
            }
            self.tracker.sent(seq, acked_copies as u32);
        }
    }

    fn check_stop(&mut self) {
        let now = self.now;
        match self.stop {
            Stop::Draining {
                deadline,
                offline_acked,
            } => {
                let acked = self.tracker.acked_through();
                let done = self.link.is_some() && acked >= self.last_seq && offline_acked;
                if !done && now < deadline {
                    return;
                }
                let result = if done {
                    Ok(())
                } else {
                    Err(Unacknowledged {
                        acked,
                        last: self.last_seq,
                    })
                };
                if self.link.is_some() {
                    self.outputs.push_back(Output::Disconnect);
                    self.stop = Stop::Disconnecting {
                        result,
                        give_up_at: now + DISCONNECT_WAIT,
                    };
                } else {
                    self.finish(result);
                }
            }
            Stop::Disconnecting { result, give_up_at } if now >= give_up_at => {
                self.finish(result);
            }
            _ => {}
        }
    }
}

/// The `status` payload ([`BoardStatus`]): `state`, `version`, `board`, and `at` (the
/// board's UTC time with ms) when given: on `online`, at each connection and heartbeat; not
/// on the last will, which the broker sends whenever it finds the board gone.
pub(crate) fn status_payload(setup: &Setup, state: BoardState, at: Option<Timestamp>) -> Vec<u8> {
    BoardStatus {
        at,
        board: Some(setup.topics.board().to_string()),
        state,
        version: Some(setup.version.clone()),
    }
    .to_payload()
}

impl Link {
    /// Room left in the client's queue, of `queue`.
    fn free(&self, queue: usize) -> usize {
        queue.saturating_sub(self.unwritten.len())
    }

    /// Hands one publish to the client (the caller checked there is room).
    fn hand(
        &mut self,
        outputs: &mut VecDeque<Output>,
        topic: String,
        payload: Vec<u8>,
        retain: bool,
        carries: Carries,
    ) {
        self.unwritten.push_back(carries);
        if !matches!(carries, Carries::Event(_)) {
            self.others_in_flight += 1;
        }
        outputs.push_back(Output::Publish(Publish {
            topic,
            payload,
            retain,
            carries,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mqtt::source::{EventSource, MemorySource};

    fn topics() -> Topics {
        Topics::new("tengen", "t1", "b1").unwrap()
    }

    fn setup(window: usize) -> Setup {
        Setup {
            topics: topics(),
            version: "0.1.0-test".into(),
            senders: SenderPolicy::default(),
            scope: None,
            takes_commands: true,
            window,
            queue: 100,
        }
    }

    /// The wall clock at the start of a test.
    const WALL0: u64 = 1_800_000_000_000;

    /// Event `seq` as a journal would hold it: an alert every tenth event from 3, a status
    /// every tenth from 5, moves otherwise; written with odd spacing so a payload that was
    /// written again would show.
    fn json(seq: u64) -> Vec<u8> {
        let kind = match seq % 10 {
            3 => "alert",
            5 => "status",
            _ => "move",
        };
        format!(r#"{{"seq":{seq}, "board":"b1",  "type":"{kind}" ,"n":{seq}}}"#).into_bytes()
    }

    /// The core with a broker stand-in: what is handed to the client, written (with packet
    /// ids) and acknowledged, and everything else the core says.
    struct Board {
        core: PublisherState,
        source: MemorySource,
        fail_reads: bool,
        reads: usize,
        now: Instant,
        /// The wall clock, ms since the epoch.
        wall: u64,
        pkid: u16,
        handed: VecDeque<Publish>,
        unacked: BTreeMap<u16, Publish>,
        said: Vec<Output>,
    }

    impl Board {
        fn new(setup: Setup, acked: u64, events: u64) -> Board {
            let source = MemorySource::new();
            for seq in 1..=events {
                source.push_json(json(seq)).unwrap();
            }
            Board {
                core: PublisherState::new(setup, acked, events, Instant::now()),
                source,
                fail_reads: false,
                reads: 0,
                now: Instant::now(),
                wall: WALL0,
                pkid: 0,
                handed: VecDeque::new(),
                unacked: BTreeMap::new(),
                said: Vec::new(),
            }
        }

        /// Carries out what the core asks: publishes are queued for the broker, reads are
        /// answered from the source.
        fn run(&mut self) {
            while let Some(o) = self.core.poll_output() {
                match o {
                    Output::Publish(p) => self.handed.push_back(p),
                    Output::ReadEvents { from, max } => {
                        self.reads += 1;
                        let records = if self.fail_reads {
                            Err(Record::from_json(b"x".to_vec()).unwrap_err())
                        } else {
                            self.source.read_from(from, max)
                        };
                        self.core.events_read(from, records, self.now);
                    }
                    o => self.said.push(o),
                }
            }
        }

        fn said(&mut self) -> Vec<Output> {
            std::mem::take(&mut self.said)
        }

        fn connect(&mut self, session_present: bool) {
            self.core
                .connected(session_present, self.now, Timestamp::from_millis(self.wall));
            self.run();
            self.core.suback();
        }

        fn drop_connection(&mut self) {
            self.core.disconnected(self.now);
            self.handed.clear();
            self.unacked.clear();
            self.run();
        }

        /// The journal grows to `last`.
        fn grow(&mut self, last: u64) {
            for seq in self.source.last_seq() + 1..=last {
                self.source.push_json(json(seq)).unwrap();
            }
            self.core.source_grew(last, self.now);
            self.run();
        }

        /// rumqttc writes everything handed to it, in order; returns what it wrote.
        fn write(&mut self) -> Vec<Publish> {
            let mut out = Vec::new();
            while let Some(p) = self.handed.pop_front() {
                self.pkid += 1;
                self.unacked.insert(self.pkid, p.clone());
                self.core.publish_written(self.pkid, self.now);
                self.run();
                out.push(p);
            }
            out
        }

        /// The broker acknowledges the written publishes `which` picks.
        fn ack(&mut self, which: impl Fn(&Publish) -> bool) {
            let ids: Vec<u16> = self
                .unacked
                .iter()
                .filter(|(_, p)| which(p))
                .map(|(id, _)| *id)
                .collect();
            for id in ids {
                self.unacked.remove(&id);
                self.core.puback(id, self.now);
                self.run();
            }
        }

        /// Writes and acknowledges until nothing is left; returns what was written.
        fn settle(&mut self) -> Vec<Publish> {
            let mut all = Vec::new();
            loop {
                let written = self.write();
                if written.is_empty() && self.unacked.is_empty() {
                    return all;
                }
                all.extend(written);
                self.ack(|_| true);
            }
        }

        fn command(&mut self, payload: &str) {
            self.core
                .incoming_publish(&topics().cmd(), payload.as_bytes(), self.now, self.wall);
            self.run();
        }

        fn later(&mut self, by: Duration) {
            self.now += by;
            self.wall += by.as_millis() as u64;
            self.core.handle_timeout(self.now);
            self.run();
        }
    }

    /// The seqs published on `topic`.
    fn seqs_on(published: &[Publish], topic: &str) -> Vec<u64> {
        published
            .iter()
            .filter(|p| p.topic == topic)
            .map(|p| match p.carries {
                Carries::Event(seq) | Carries::StatusCopy(seq) => seq,
                other => panic!("{other:?} on {topic}"),
            })
            .collect()
    }

    fn replies(published: &[Publish]) -> Vec<serde_json::Value> {
        published
            .iter()
            .filter(|p| p.topic == topics().cmd_reply())
            .map(|p| serde_json::from_slice(&p.payload).unwrap())
            .collect()
    }

    fn is_event(p: &Publish) -> bool {
        matches!(p.carries, Carries::Event(_))
    }

    #[test]
    fn events_go_out_in_seq_order_byte_for_byte() {
        let mut b = Board::new(setup(64), 0, 12);
        b.connect(false);
        let out = b.settle();
        assert_eq!(
            seqs_on(&out, &topics().events()),
            (1..=12).collect::<Vec<_>>()
        );
        for p in out.iter().filter(|p| p.topic == topics().events()) {
            let Carries::Event(seq) = p.carries else {
                unreachable!()
            };
            assert_eq!(p.payload, json(seq), "the source's bytes, untouched");
            assert!(!p.retain);
        }
        assert_eq!(b.core.acked_through(), 12);
        assert_eq!(b.said().last(), Some(&Output::PersistAcked(12)));
        // New events go out as the source grows.
        b.grow(14);
        let out = b.settle();
        assert_eq!(seqs_on(&out, &topics().events()), [13, 14]);
        assert_eq!(
            b.said(),
            [Output::PersistAcked(13), Output::PersistAcked(14)]
        );
    }

    #[test]
    fn nothing_is_handed_to_the_client_while_disconnected() {
        let mut b = Board::new(setup(64), 0, 3);
        b.grow(5);
        b.core.set_retained(
            Retained {
                state: Some("{}".into()),
                ..Retained::default()
            },
            b.now,
        );
        b.run();
        assert!(b.handed.is_empty());
        assert_eq!(b.reads, 0, "nothing is read before it can be sent");
        assert!(!b.core.subscribed());
        b.connect(false);
        assert!(b.core.subscribed());
        assert_eq!(seqs_on(&b.settle(), &topics().events()), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn every_connection_subscribes_says_online_and_republishes_the_retained_topics() {
        let mut b = Board::new(setup(64), 0, 1);
        b.core.set_retained(
            Retained {
                state: Some(r#"{"number":1}"#.into()),
                sgf: Some("(;GM[1])".into()),
                alerts_active: Some("[]".into()),
            },
            b.now,
        );
        for session_present in [false, true, false] {
            b.connect(session_present);
            assert_eq!(b.said(), [Output::Subscribe(topics().cmd())]);
            let out = b.settle();
            let t = topics();
            let order: Vec<(&str, bool)> =
                out.iter().map(|p| (p.topic.as_str(), p.retain)).collect();
            assert_eq!(
                &order[..4],
                [
                    (t.status().as_str(), true),
                    (t.state().as_str(), true),
                    (t.sgf().as_str(), true),
                    (t.alerts_active().as_str(), true),
                ]
            );
            assert_eq!(
                serde_json::from_slice::<serde_json::Value>(&out[0].payload).unwrap(),
                serde_json::json!({"state":"online","version":"0.1.0-test","board":"b1",
                                   "at": Timestamp::from_millis(WALL0).to_string()})
            );
            assert_eq!(out[0].carries, Carries::Online);
            b.said();
            b.drop_connection();
        }
        // The first connection sent event 1 and had it acknowledged: never again.
        assert_eq!(b.core.acked_through(), 1);
    }

    #[test]
    fn a_heartbeat_says_online_again_with_its_time_until_shutdown_begins() {
        let mut b = Board::new(setup(64), 0, 2);
        let beat = |ms: u64| Timestamp::from_millis(WALL0 + ms);
        b.core.heartbeat(beat(5_000), b.now);
        b.run();
        assert!(b.handed.is_empty(), "no connection, nothing to say");
        b.connect(false);
        b.settle();
        b.said();
        b.core.heartbeat(beat(10_000), b.now);
        b.run();
        let out = b.settle();
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(
            (out[0].topic.clone(), out[0].retain, out[0].carries),
            (topics().status(), true, Carries::Online)
        );
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&out[0].payload).unwrap(),
            serde_json::json!({"state":"online","version":"0.1.0-test","board":"b1",
                               "at":"2027-01-15T08:00:10.000Z"})
        );
        assert_eq!(b.core.acked_through(), 2, "not an event: no seq");
        assert!(b.said().is_empty(), "nothing persisted");
        // Shutdown says offline; a heartbeat after that says nothing.
        b.core.shutdown(b.now + Duration::from_secs(5), b.now);
        b.run();
        b.core.heartbeat(beat(15_000), b.now);
        b.run();
        let out = b.settle();
        assert!(out.iter().all(|p| p.carries != Carries::Online), "{out:?}");
        assert!(out.iter().any(|p| p.carries == Carries::Offline));
    }

    #[test]
    fn a_retained_topic_goes_again_only_when_it_changed() {
        let mut b = Board::new(setup(64), 0, 0);
        b.connect(false);
        let state = |s: &str| Retained {
            state: Some(s.into()),
            ..Retained::default()
        };
        b.core.set_retained(state("1"), b.now);
        b.run();
        b.core.set_retained(state("1"), b.now);
        b.run();
        b.core.set_retained(
            Retained {
                sgf: Some("(;)".into()),
                ..Retained::default()
            },
            b.now,
        );
        b.run();
        let topics_written: Vec<String> = b.settle().into_iter().map(|p| p.topic).collect();
        assert_eq!(
            topics_written,
            [topics().status(), topics().state(), topics().sgf()],
            "`None` leaves a topic as it was; the same payload is not sent twice"
        );
    }

    #[test]
    fn an_alert_goes_to_events_and_alerts_and_counts_when_both_are_acknowledged() {
        let mut b = Board::new(setup(64), 2, 3);
        b.connect(false);
        let out = b.write();
        let alert: Vec<&Publish> = out.iter().filter(|p| is_event(p)).collect();
        assert_eq!(alert.len(), 2);
        assert_eq!(alert[0].topic, topics().events());
        assert_eq!(alert[1].topic, topics().alerts());
        assert!(alert.iter().all(|p| p.payload == json(3) && !p.retain));
        b.ack(|p| p.topic == topics().events());
        assert_eq!(b.core.acked_through(), 2, "the alerts copy is still out");
        b.ack(|p| p.topic == topics().alerts());
        assert_eq!(b.core.acked_through(), 3);
        assert_eq!(
            b.said(),
            [Output::Subscribe(topics().cmd()), Output::PersistAcked(3)]
        );
    }

    #[test]
    fn a_status_event_also_goes_to_the_retained_status() {
        let mut b = Board::new(setup(64), 4, 5);
        b.connect(false);
        let out = b.write();
        let copies: Vec<&Publish> = out
            .iter()
            .filter(|p| matches!(p.carries, Carries::Event(5) | Carries::StatusCopy(5)))
            .collect();
        assert_eq!(copies.len(), 2);
        assert_eq!(
            (copies[0].topic.clone(), copies[0].retain),
            (topics().events(), false)
        );
        assert_eq!(
            (copies[1].topic.clone(), copies[1].retain),
            (topics().status(), true)
        );
        assert!(copies.iter().all(|p| p.payload == json(5)));
        // The event is acknowledged by its `events` copy alone.
        b.ack(is_event);
        assert_eq!(b.core.acked_through(), 5);
    }

    #[test]
    fn after_a_disconnect_exactly_the_unacknowledged_events_go_again() {
        for session_present in [false, true] {
            let mut b = Board::new(setup(64), 0, 6);
            b.connect(false);
            let out = b.write();
            assert_eq!(seqs_on(&out, &topics().events()), [1, 2, 3, 4, 5, 6]);
            // 1, 2 and 4 are acknowledged (3's alerts copy is not), then the link drops.
            b.ack(|p| {
                matches!(p.carries, Carries::Event(1 | 2 | 4))
                    || (p.carries == Carries::Event(3) && p.topic == topics().events())
            });
            assert_eq!(b.core.acked_through(), 2);
            b.drop_connection();
            b.grow(7);
            assert!(b.handed.is_empty());
            // Whatever the broker kept of the session, the rest goes again, in order.
            b.connect(session_present);
            let out = b.settle();
            assert_eq!(seqs_on(&out, &topics().events()), [3, 5, 6, 7]);
            assert_eq!(seqs_on(&out, &topics().alerts()), [3]);
            assert_eq!(b.core.acked_through(), 7);
        }
    }

    #[test]
    fn a_restart_resends_from_the_persisted_mark() {
        let mut b = Board::new(setup(64), 20, 25);
        b.connect(false);
        assert_eq!(
            seqs_on(&b.settle(), &topics().events()),
            [21, 22, 23, 24, 25]
        );
        // More acknowledgements than events: a journal started afresh, all of it goes.
        let mut b = Board::new(setup(64), 30, 2);
        assert_eq!(b.core.acked_through(), 0);
        b.connect(false);
        assert_eq!(seqs_on(&b.settle(), &topics().events()), [1, 2]);
    }

    #[test]
    fn the_window_bounds_the_publishes_of_events_in_flight() {
        let mut b = Board::new(setup(3), 0, 10);
        b.connect(false);
        // 1 and 2 go; 3 is an alert, two publishes: one too many.
        assert_eq!(seqs_on(&b.write(), &topics().events()), [1, 2]);
        assert!(b.write().is_empty());
        // An acknowledgement out of order frees a place too.
        b.ack(|p| p.carries == Carries::Event(2));
        let out = b.write();
        assert_eq!(seqs_on(&out, &topics().events()), [3]);
        assert_eq!(seqs_on(&out, &topics().alerts()), [3]);
        assert!(b.write().is_empty(), "1 and both copies of 3 are out");
        b.ack(|p| p.carries == Carries::Event(1));
        assert_eq!(b.core.acked_through(), 2);
        assert_eq!(seqs_on(&b.write(), &topics().events()), [4]);
        // One copy of the alert acknowledged: the next event goes at once. 5 is a status:
        // its retained copy is not waited for.
        b.ack(|p| p.carries == Carries::Event(3) && p.topic == topics().alerts());
        let out = b.write();
        assert_eq!(seqs_on(&out, &topics().events()), [5]);
        assert_eq!(seqs_on(&out, &topics().status()), [5]);
        assert!(b.write().is_empty());
        assert_eq!(seqs_on(&b.settle(), &topics().events()), [6, 7, 8, 9, 10]);
        // A window of one still sends an alert.
        let mut b = Board::new(setup(1), 2, 4);
        b.connect(false);
        let out = b.write();
        assert_eq!(seqs_on(&out, &topics().alerts()), [3]);
        assert_eq!(seqs_on(&out, &topics().events()), [3]);
        assert_eq!(seqs_on(&b.settle(), &topics().events()), [4]);
    }

    #[test]
    fn the_client_queue_is_never_overfilled() {
        let mut s = setup(64);
        s.queue = 4;
        let mut b = Board::new(s, 0, 30);
        b.connect(false);
        let mut sent = Vec::new();
        loop {
            assert!(b.handed.len() <= 4, "{} handed", b.handed.len());
            let Some(p) = b.handed.pop_front() else { break };
            b.pkid += 1;
            b.core.publish_written(b.pkid, b.now);
            b.run();
            sent.push(p);
        }
        assert_eq!(
            seqs_on(&sent, &topics().events()),
            (1..=30).collect::<Vec<_>>()
        );
    }

    #[test]
    fn records_are_read_in_batches_and_a_failed_read_is_tried_again() {
        let mut b = Board::new(setup(64), 0, 600);
        b.connect(false);
        b.settle();
        assert_eq!(b.core.acked_through(), 600);
        assert!(b.reads <= 4, "{} reads for 600 events", b.reads);

        b.fail_reads = true;
        b.grow(601);
        assert!(b.handed.is_empty());
        let reads = b.reads;
        assert_eq!(b.core.poll_timeout(), Some(b.now + READ_RETRY));
        b.grow(602);
        assert_eq!(b.reads, reads, "no read before the retry time");
        b.fail_reads = false;
        b.later(READ_RETRY);
        assert_eq!(seqs_on(&b.settle(), &topics().events()), [601, 602]);
    }

    #[test]
    fn a_gap_in_the_source_is_waited_out() {
        let mut b = Board::new(setup(64), 0, 2);
        // The core hears of seq 3 before the source holds it.
        b.core.source_grew(3, b.now);
        b.connect(false);
        assert_eq!(seqs_on(&b.write(), &topics().events()), [1, 2]);
        assert_eq!(b.core.poll_timeout(), Some(b.now + READ_RETRY));
        b.source.push_json(json(3)).unwrap();
        b.later(READ_RETRY);
        assert_eq!(seqs_on(&b.settle(), &topics().events()), [3]);
    }

    #[test]
    fn republish_sends_the_stream_again_from_a_seq() {
        let mut b = Board::new(setup(64), 0, 5);
        b.connect(false);
        b.settle();
        b.command(r#"{"id":"r1","type":"republish","from_seq":3}"#);
        let out = b.settle();
        assert_eq!(replies(&out), [serde_json::json!({"id":"r1","ok":true})]);
        assert_eq!(seqs_on(&out, &topics().events()), [3, 4, 5]);
        assert_eq!(b.core.acked_through(), 5);
        assert!(
            !b.said().iter().any(|o| matches!(o, Output::Forward(_))),
            "republish is not the service's"
        );
        // From 0 means from the first event.
        b.later(REPUBLISH_EVERY);
        b.command(r#"{"id":"r2","type":"republish","from_seq":0}"#);
        assert_eq!(seqs_on(&b.settle(), &topics().events()), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn a_command_goes_to_the_service_once_and_its_answer_is_the_reply() {
        let mut b = Board::new(setup(64), 0, 0);
        b.connect(false);
        b.settle();
        b.said();
        let pause = r#"{"id":"c1","type":"pause","by":"chief"}"#;
        b.command(pause);
        let forwarded = b.said();
        let [Output::Forward(cmd)] = &forwarded[..] else {
            panic!("{forwarded:?}")
        };
        assert_eq!((cmd.id.as_str(), &cmd.command), ("c1", &Command::Pause {}));
        // Delivered again while the service is at it: nothing.
        b.command(pause);
        assert!(b.said().is_empty());
        assert!(b.settle().is_empty());
        b.core
            .answer("c1", Answer::refused("no clock is running"), b.now);
        b.run();
        let want = serde_json::json!({"id":"c1","ok":false,"error":"no clock is running"});
        assert_eq!(replies(&b.settle()), std::slice::from_ref(&want));
        // Delivered again later: the first answer again, not carried out again.
        b.command(pause);
        assert!(b.said().is_empty());
        assert_eq!(replies(&b.settle()), [want]);
    }

    #[test]
    fn a_refused_sender_is_answered_before_anything_else() {
        let mut s = setup(64);
        s.senders = SenderPolicy::new(vec!["chief".into()], None);
        let mut b = Board::new(s, 0, 0);
        b.connect(false);
        b.settle();
        b.said();
        b.command(r#"{"id":"c1","type":"pause","by":"chief"}"#);
        assert!(matches!(b.said()[..], [Output::Forward(_)]));
        b.core.answer("c1", Answer::Done, b.now);
        b.run();
        b.settle();
        // The same id from someone else: refused, the memory of c1 untouched.
        b.command(r#"{"id":"c1","type":"pause","by":"kid"}"#);
        b.command(r#"{"id":"c2","type":"republish","from_seq":1,"by":"kid"}"#);
        assert!(b.said().is_empty());
        let r = replies(&b.settle());
        assert_eq!(
            r,
            [
                serde_json::json!({"id":"c1","ok":false,"error":"refused: \"kid\" is not an arbiter of this board"}),
                serde_json::json!({"id":"c2","ok":false,"error":"refused: \"kid\" is not an arbiter of this board"}),
            ]
        );
        b.command(r#"{"id":"c1","type":"pause","by":"chief"}"#);
        assert_eq!(
            replies(&b.settle()),
            [serde_json::json!({"id":"c1","ok":true})]
        );
        assert!(b.said().is_empty());
    }

    #[test]
    fn malformed_commands_are_answered_and_go_nowhere() {
        let mut b = Board::new(setup(64), 0, 0);
        b.connect(false);
        b.settle();
        b.said();
        b.command(r#"{"id":"c1","type":"explode"}"#);
        b.command("not json");
        // Other topics are not commands.
        b.core
            .incoming_publish(&topics().events(), b"{}", b.now, b.wall);
        b.run();
        assert!(b.said().is_empty());
        let r = replies(&b.settle());
        assert_eq!(r.len(), 2);
        assert_eq!(
            (&r[0]["id"], &r[1]["id"]),
            (&serde_json::json!("c1"), &serde_json::Value::Null)
        );
        assert!(r.iter().all(|r| r["ok"] == false
            && r["error"]
                .as_str()
                .unwrap()
                .starts_with("malformed command")));
    }

    #[test]
    fn a_board_without_a_service_refuses_commands_but_republishes() {
        let mut s = setup(64);
        s.takes_commands = false;
        let mut b = Board::new(s, 0, 1);
        b.connect(false);
        b.settle();
        b.command(r#"{"id":"c1","type":"pause"}"#);
        b.command(r#"{"id":"c2","type":"republish","from_seq":1}"#);
        let out = b.settle();
        assert_eq!(
            replies(&out),
            [
                serde_json::json!({"id":"c1","ok":false,"error":"this board does not take commands"}),
                serde_json::json!({"id":"c2","ok":true}),
            ]
        );
        assert_eq!(seqs_on(&out, &topics().events()), [1]);
    }

    #[test]
    fn a_service_that_does_not_answer_in_time_is_answered_for() {
        let mut b = Board::new(setup(64), 0, 0);
        b.connect(false);
        b.settle();
        b.command(r#"{"id":"c1","type":"pause"}"#);
        assert_eq!(b.core.poll_timeout(), Some(b.now + ANSWER_TIMEOUT));
        b.later(ANSWER_TIMEOUT - Duration::from_millis(1));
        assert!(b.settle().is_empty());
        b.later(Duration::from_millis(1));
        let timed_out = serde_json::json!({"id":"c1","ok":false,"error":"the board service did not answer in time"});
        assert_eq!(replies(&b.settle()), std::slice::from_ref(&timed_out));
        assert_eq!(b.core.poll_timeout(), None);
        // A late answer changes nothing; a busy service is answered for at once.
        b.core.answer("c1", Answer::Done, b.now);
        b.run();
        assert!(b.settle().is_empty());
        b.command(r#"{"id":"c1","type":"pause"}"#);
        assert_eq!(replies(&b.settle()), [timed_out]);
        b.command(r#"{"id":"c2","type":"pause"}"#);
        b.core.unanswered("c2", Unanswered::Busy, b.now);
        b.run();
        assert_eq!(
            replies(&b.settle()),
            [
                serde_json::json!({"id":"c2","ok":false,"error":"the board is busy; send the command again"})
            ]
        );
    }

    #[test]
    fn replies_wait_for_a_connection() {
        let mut b = Board::new(setup(64), 0, 0);
        b.connect(false);
        b.settle();
        b.command(r#"{"id":"c1","type":"pause"}"#);
        b.drop_connection();
        b.core.answer("c1", Answer::Done, b.now);
        b.run();
        assert!(b.handed.is_empty());
        b.connect(false);
        assert_eq!(
            replies(&b.settle()),
            [serde_json::json!({"id":"c1","ok":true})]
        );
    }

    #[test]
    fn shutdown_says_offline_and_disconnects_once_everything_is_acknowledged() {
        let mut b = Board::new(setup(64), 0, 3);
        b.connect(false);
        b.write();
        b.said();
        let deadline = b.now + Duration::from_secs(5);
        b.core.shutdown(deadline, b.now);
        b.run();
        let out = b.write();
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].topic.clone(), out[0].retain, out[0].carries),
            (topics().status(), true, Carries::Offline)
        );
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&out[0].payload).unwrap(),
            serde_json::json!({"state":"offline","version":"0.1.0-test","board":"b1"})
        );
        // Events acknowledged, offline not yet: no DISCONNECT.
        b.ack(is_event);
        assert_eq!(b.said().last(), Some(&Output::PersistAcked(3)));
        // An event journaled during shutdown is waited for too.
        b.grow(4);
        b.ack(|p| p.carries == Carries::Offline);
        assert!(b.said().is_empty());
        b.settle();
        assert_eq!(b.said(), [Output::PersistAcked(4), Output::Disconnect]);
        assert!(
            !b.core.is_done(),
            "the answer waits for DISCONNECT to be written"
        );
        b.core.disconnect_written();
        b.run();
        assert_eq!(b.said(), [Output::ShutdownDone(Ok(()))]);
        assert!(b.core.is_done());
        // Nothing more goes out.
        b.grow(5);
        assert!(b.handed.is_empty());
    }

    #[test]
    fn shutdown_gives_up_at_its_deadline() {
        // Connected, the broker silent: DISCONNECT at the deadline, the answer once written
        // or a second later.
        let mut b = Board::new(setup(64), 0, 3);
        b.connect(false);
        b.write();
        b.said();
        let deadline = b.now + Duration::from_secs(5);
        b.core.shutdown(deadline, b.now);
        b.run();
        assert_eq!(b.core.poll_timeout(), Some(deadline));
        b.later(Duration::from_secs(5));
        assert_eq!(b.said(), [Output::Disconnect]);
        assert_eq!(b.core.poll_timeout(), Some(b.now + DISCONNECT_WAIT));
        b.later(DISCONNECT_WAIT);
        assert_eq!(
            b.said(),
            [Output::ShutdownDone(Err(Unacknowledged {
                acked: 0,
                last: 3
            }))]
        );

        // Never connected: the answer at the deadline, no DISCONNECT.
        let mut b = Board::new(setup(64), 1, 3);
        b.core.shutdown(b.now + Duration::from_secs(2), b.now);
        b.run();
        b.later(Duration::from_secs(2));
        assert_eq!(
            b.said(),
            [Output::ShutdownDone(Err(Unacknowledged {
                acked: 1,
                last: 3
            }))]
        );
    }

    #[test]
    fn shutdown_while_disconnected_says_offline_on_the_next_connection() {
        let mut b = Board::new(setup(64), 0, 2);
        b.core.shutdown(b.now + Duration::from_secs(5), b.now);
        b.run();
        b.connect(true);
        let out = b.settle();
        let carries: Vec<Carries> = out.iter().map(|p| p.carries).collect();
        assert_eq!(
            carries,
            [
                Carries::Online,
                Carries::Offline,
                Carries::Event(1),
                Carries::Event(2)
            ]
        );
        assert_eq!(
            b.said(),
            [
                Output::Subscribe(topics().cmd()),
                Output::PersistAcked(1),
                Output::PersistAcked(2),
                Output::Disconnect
            ]
        );
        // The connection drops before DISCONNECT is written: done all the same.
        b.drop_connection();
        assert_eq!(b.said(), [Output::ShutdownDone(Ok(()))]);
    }

    const KEY: &[u8] = b"the-hall-and-its-boards-0123456789";

    /// A board of tournament `t1` that takes only commands signed with [`KEY`]; it knows
    /// the ids `taken` before, and refuses commands issued before `not_before_ms`.
    fn signed_board(taken: TakenIds, not_before_ms: u64) -> Board {
        let mut s = setup(64);
        s.senders = SenderPolicy::new(Vec::new(), Some(KEY));
        s.scope = Some(Scope {
            tournament: "t1".into(),
            board: "b1".into(),
            window_ms: tengen_protocol::signing::DEFAULT_WINDOW_MS,
            not_before_ms,
        });
        let mut b = Board::new(s, 0, 0);
        b.core = PublisherState::new(b.core.setup.clone(), 0, 0, b.now).with_taken(taken);
        b.connect(false);
        b.settle();
        b.said();
        b
    }

    /// `body` stamped for `board` of `t1` at `at` and signed.
    fn signed(body: serde_json::Value, board: &str, at: u64) -> String {
        let serde_json::Value::Object(mut c) = body else {
            unreachable!("commands are objects")
        };
        let stamp = tengen_protocol::signing::Stamp::new("t1", board, at);
        tengen_protocol::signing::sign_for(KEY, &stamp, &mut c);
        serde_json::Value::Object(c).to_string()
    }

    fn error_of(reply: &serde_json::Value) -> &str {
        assert_eq!(reply["ok"], false, "{reply}");
        reply["error"].as_str().unwrap_or_default()
    }

    #[test]
    fn a_signed_board_judges_the_stamp_before_anything_is_carried_out() {
        let mut b = signed_board(TakenIds::default(), 0);
        let pause = serde_json::json!({"id":"h-1","type":"pause"});
        b.command(&signed(pause.clone(), "b2", b.wall));
        let stale = b.wall - tengen_protocol::signing::DEFAULT_WINDOW_MS - 1;
        b.command(&signed(
            serde_json::json!({"id":"h-2","type":"pause"}),
            "b1",
            stale,
        ));
        let ahead = b.wall + tengen_protocol::signing::DEFAULT_WINDOW_MS + 1;
        b.command(&signed(
            serde_json::json!({"id":"h-3","type":"pause"}),
            "b1",
            ahead,
        ));
        let r = replies(&b.settle());
        assert_eq!(r.len(), 3);
        assert_eq!(
            error_of(&r[0]),
            "refused: the command is for board \"b2\", not this one"
        );
        assert!(error_of(&r[1]).contains("issued 300001 ms ago"), "{}", r[1]);
        assert!(error_of(&r[2]).contains("300001 ms ahead"), "{}", r[2]);
        assert!(b.said().is_empty(), "nothing refused is taken or persisted");

        // The same command for this board is taken, and its id persisted before it goes to
        // the service.
        b.command(&signed(pause, "b1", b.wall));
        let said = b.said();
        let [Output::PersistTaken(ids), Output::Forward(cmd)] = &said[..] else {
            panic!("{said:?}")
        };
        assert!(ids.contains("h-1"));
        assert_eq!(cmd.id, "h-1");
        b.core.answer("h-1", Answer::Done, b.now);
        b.run();
        b.settle();
        // Delivered again (MQTT at least once): the first answer again, not carried out.
        b.command(&signed(
            serde_json::json!({"id":"h-1","type":"pause"}),
            "b1",
            b.wall,
        ));
        assert!(b.said().is_empty());
        assert_eq!(
            replies(&b.settle()),
            [serde_json::json!({"id":"h-1","ok":true})]
        );
    }

    #[test]
    fn an_id_taken_before_a_restart_is_refused_after_it() {
        let mut b = signed_board(TakenIds::default(), 0);
        let at = b.wall;
        let resign = signed(
            serde_json::json!({"id":"h-9","type":"resign","color":"B"}),
            "b1",
            at,
        );
        b.command(&resign);
        let said = b.said();
        let [Output::PersistTaken(ids), Output::Forward(_)] = &said[..] else {
            panic!("{said:?}")
        };
        // A new core (a restart) with the ids persisted: the replay is refused.
        let mut again = signed_board(ids.clone(), 0);
        again.wall = at + 60_000;
        again.command(&resign);
        assert!(again.said().is_empty());
        let r = replies(&again.settle());
        assert_eq!(
            error_of(&r[0]),
            "refused: the command id \"h-9\" was taken already (a replay)"
        );
        // A restart that lost the ids refuses what was issued before its start.
        let mut forgetful = signed_board(TakenIds::default(), at + 1);
        forgetful.wall = at + 60_000;
        forgetful.command(&resign);
        assert!(forgetful.said().is_empty());
        let r = replies(&forgetful.settle());
        assert!(
            error_of(&r[0]).contains("before the board started"),
            "{}",
            r[0]
        );
        // What is issued after its start is taken.
        forgetful.command(&signed(
            serde_json::json!({"id":"h-10","type":"pause"}),
            "b1",
            at + 59_000,
        ));
        assert!(matches!(
            forgetful.said()[..],
            [Output::PersistTaken(_), Output::Forward(_)]
        ));
    }

    #[test]
    fn republish_is_carried_out_at_most_once_in_ten_seconds() {
        let mut b = Board::new(setup(64), 0, 3);
        b.connect(false);
        b.settle();
        for i in 1..=5 {
            b.command(&format!(
                r#"{{"id":"r{i}","type":"republish","from_seq":1}}"#
            ));
        }
        let out = b.settle();
        assert_eq!(seqs_on(&out, &topics().events()), [1, 2, 3], "sent once");
        let r = replies(&out);
        assert_eq!(r[0], serde_json::json!({"id":"r1","ok":true}));
        assert_eq!(r.len(), 5);
        for refused in &r[1..] {
            assert!(
                error_of(refused).starts_with(
                    "republish refused: this board resends its stream at most once every 10 s"
                ),
                "{refused}"
            );
        }
        b.later(REPUBLISH_EVERY - Duration::from_millis(1));
        b.command(r#"{"id":"r6","type":"republish","from_seq":1}"#);
        let out = b.settle();
        assert!(seqs_on(&out, &topics().events()).is_empty());
        assert!(error_of(&replies(&out)[0]).ends_with("ask again in 1 ms"));
        b.later(Duration::from_millis(1));
        b.command(r#"{"id":"r7","type":"republish","from_seq":2}"#);
        let out = b.settle();
        assert_eq!(replies(&out), [serde_json::json!({"id":"r7","ok":true})]);
        assert_eq!(seqs_on(&out, &topics().events()), [2, 3]);
    }
}

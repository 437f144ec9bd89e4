//! The MQTT client of one board.
//!
//! Two tasks. The *poller* owns the rumqttc event loop and does nothing but poll it, forward
//! what happens and sleep the back-off between connection attempts; it never publishes, so
//! it can never block on its own request channel. The *controller* publishes: events in
//! `seq` order from the [`EventSource`] (the journal), the retained topics, command replies.
//!
//! Acknowledgements: rumqttc reports `Outgoing::Publish(pkid)` in the order publishes were
//! handed to it, so the controller keeps a queue of what each publish carries and maps packet
//! ids to `seq` as they are reported; each `PubAck` then acknowledges a `seq`
//! ([`AckTracker`]), and the highest contiguous acknowledged `seq` is persisted
//! ([`AckFile`]). When the connection drops, the poller stops and waits for the controller
//! to stop publishing before it throws away what rumqttc had queued; after the next ConnAck
//! the controller resubscribes to `cmd`, re-publishes `status`, `state`, `sgf` and
//! `alerts/active`, and resends every event not acknowledged, in order. So nothing depends on
//! the broker keeping the session, and a restarted board resends exactly what was not
//! acknowledged (consumers de-duplicate by `seq`).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use rand::SeedableRng;
use rumqttc::{
    AsyncClient, ClientError, ConnectionError, Event as MqttEvent, EventLoop, LastWill,
    MqttOptions, Outgoing, Packet, QoS, TlsConfiguration, Transport,
};
use serde_json::json;
use tengen_protocol::command::{decode_checked, reply_payload};
use tengen_protocol::{Command, Envelope, Event};
use thiserror::Error;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use tengen_net::tls::{self, TlsError};
use tengen_protocol::Topics;

use super::commands::{CommandRequest, RecentCommands, Seen};
use super::outbox::{AckFile, AckTracker};
use super::settings::MqttSettings;
use super::source::EventSource;

/// Why the publisher could not start or did not finish cleanly.
#[derive(Debug, Error)]
pub enum PublisherError {
    /// The TLS files are unusable.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// Shutdown or a wait ran out of time before the broker acknowledged everything.
    #[error("MQTT broker acknowledged events up to seq {acked} of {last} before the time ran out")]
    Unacknowledged {
        /// Highest contiguous acknowledged `seq`.
        acked: u64,
        /// Highest `seq` to publish.
        last: u64,
    },
    /// The publisher's tasks are gone.
    #[error("the MQTT publisher has stopped")]
    Stopped,
}

/// The retained topics' payloads: set whenever they change, re-published on every connection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retained {
    /// `.../state`: the snapshot JSON.
    pub state: Option<String>,
    /// `.../sgf`: the game record.
    pub sgf: Option<String>,
    /// `.../alerts/active`: JSON array of open alerts.
    pub alerts_active: Option<String>,
}

/// Where the answer to a shutdown goes.
type Answer = oneshot::Sender<Result<(), PublisherError>>;

/// What the service tells the controller.
enum Input {
    /// A new event is in the source (its copy saves a re-read).
    Event(Box<Envelope>),
    /// The source has grown; read it.
    Wake,
    /// New retained payloads.
    Retained(Retained),
    /// Publish `offline`, wait for everything to be acknowledged (until the deadline), send
    /// DISCONNECT, then answer.
    Shutdown(Instant, Answer),
    /// A reply from the service to a command (the command's id).
    Reply(String, Result<(), String>),
}

/// What the poller tells the controller.
enum Note {
    Connected {
        session_present: bool,
    },
    Event(MqttEvent),
    /// The connection dropped: stop publishing, then release the poller.
    Disconnected(String, oneshot::Sender<()>),
    ConnectFailed(String),
}

/// What one publish carries, to map its packet id when rumqttc reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tag {
    Event(u64),
    Offline,
    Other,
}

/// A cloneable handle to feed a running [`Publisher`] from other tasks.
#[derive(Debug, Clone)]
pub struct PublisherHandle {
    input: mpsc::UnboundedSender<Input>,
}

impl PublisherHandle {
    /// A new event was appended to the source; `envelope` is its copy.
    pub fn publish_event(&self, envelope: Envelope) {
        let _ = self.input.send(Input::Event(Box::new(envelope)));
    }

    /// The source has grown: read and publish what is new.
    pub fn wake(&self) {
        let _ = self.input.send(Input::Wake);
    }

    /// Sets the retained payloads (`None` leaves a topic as it was).
    pub fn set_retained(&self, retained: Retained) {
        let _ = self.input.send(Input::Retained(retained));
    }
}

/// A running publisher for one board.
pub struct Publisher {
    input: mpsc::UnboundedSender<Input>,
    acked: watch::Receiver<u64>,
    connected: watch::Receiver<bool>,
    controller: JoinHandle<()>,
    poller: JoinHandle<()>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("acked", &*self.acked.borrow())
            .field("connected", &*self.connected.borrow())
            .finish()
    }
}

/// What a publisher is built from besides its settings.
pub struct PublisherParts {
    /// The board's topics.
    pub topics: Topics,
    /// The events to publish, read again after reconnects, restarts and `republish`.
    pub source: Arc<dyn EventSource>,
    /// Where acknowledgements are persisted (`None`: only in memory).
    pub ack_file: Option<AckFile>,
    /// Where valid commands go (`None`: commands other than `republish` are refused).
    pub commands: Option<mpsc::Sender<CommandRequest>>,
    /// The version reported on `status`.
    pub version: String,
}

/// The `status` payload.
fn status_payload(board: &str, state: &str, version: &str) -> Vec<u8> {
    json!({"state": state, "version": version, "board": board})
        .to_string()
        .into_bytes()
}

fn mqtt_options(
    settings: &MqttSettings,
    topics: &Topics,
    version: &str,
) -> Result<MqttOptions, PublisherError> {
    let mut o = MqttOptions::new(
        settings.client_id.clone(),
        settings.url.host.clone(),
        settings.url.port,
    );
    o.set_keep_alive(settings.keepalive.max(Duration::from_secs(1)))
        .set_clean_session(false)
        .set_max_packet_size(settings.max_packet_size, settings.max_packet_size)
        .set_inflight(u16::try_from(settings.window * 2 + 32).unwrap_or(u16::MAX))
        .set_last_will(LastWill::new(
            topics.status(),
            status_payload(topics.board(), "offline", version),
            QoS::AtLeastOnce,
            true,
        ));
    if let Some((user, password)) = &settings.credentials {
        o.set_credentials(user.clone(), password.clone());
    }
    if settings.url.tls {
        let config = tls::client_config(&settings.tls)?;
        o.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(config)));
    }
    Ok(o)
}

impl Publisher {
    /// Starts the poller and the controller on the current tokio runtime. Connecting happens
    /// in the background (with back-off); events given before the first connection are sent
    /// once it is up.
    pub fn start(
        settings: MqttSettings,
        parts: PublisherParts,
    ) -> Result<Publisher, PublisherError> {
        let options = mqtt_options(&settings, &parts.topics, &parts.version)?;
        let capacity = settings.window * 4 + 64;
        let (client, eventloop) = AsyncClient::new(options, capacity);

        let mut acked_through = match &parts.ack_file {
            Some(f) => f.load().unwrap_or_else(|e| {
                tracing::warn!("{e}; resending every event");
                0
            }),
            None => 0,
        };
        let last = parts.source.last_seq();
        if acked_through > last {
            tracing::warn!(
                "MQTT acknowledgements reach seq {acked_through} but the journal ends at {last}: \
                 a new journal; resending every event"
            );
            acked_through = 0;
        }

        let (note_tx, note_rx) = mpsc::unbounded_channel();
        let (input_tx, input_rx) = mpsc::unbounded_channel();
        let (acked_tx, acked_rx) = watch::channel(acked_through);
        let (connected_tx, connected_rx) = watch::channel(false);

        let poller = tokio::spawn(poll_loop(eventloop, note_tx, settings.backoff.clone()));
        let controller = Controller {
            client,
            topics: parts.topics,
            source: parts.source,
            ack_file: parts.ack_file,
            commands: parts.commands,
            senders: settings.senders.clone(),
            recent: RecentCommands::default(),
            version: parts.version,
            window: settings.window.max(1),
            tracker: AckTracker::new(acked_through),
            persisted: acked_through,
            tail: BTreeMap::new(),
            fifo: VecDeque::new(),
            pkids: HashMap::new(),
            others_in_flight: 0,
            connected: false,
            desired: Retained::default(),
            published: Retained::default(),
            stopping: None,
            finishing: None,
            offline_acked: false,
            input_tx: input_tx.clone(),
            acked_tx,
            connected_tx,
        };
        let controller = tokio::spawn(controller.run(note_rx, input_rx));
        Ok(Publisher {
            input: input_tx,
            acked: acked_rx,
            connected: connected_rx,
            controller,
            poller,
        })
    }

    /// A handle for other tasks (the service's output follower).
    pub fn handle(&self) -> PublisherHandle {
        PublisherHandle {
            input: self.input.clone(),
        }
    }

    /// A new event was appended to the source; `envelope` is its copy.
    pub fn publish_event(&self, envelope: Envelope) {
        self.handle().publish_event(envelope);
    }

    /// The source has grown: read and publish what is new.
    pub fn wake(&self) {
        self.handle().wake();
    }

    /// Sets the retained payloads (`None` leaves a topic as it was).
    pub fn set_retained(&self, retained: Retained) {
        self.handle().set_retained(retained);
    }

    /// The highest contiguous `seq` the broker acknowledged, as it changes.
    pub fn acked(&self) -> watch::Receiver<u64> {
        self.acked.clone()
    }

    /// Whether a broker connection is up and subscribed to `cmd`, as it changes.
    pub fn connected(&self) -> watch::Receiver<bool> {
        self.connected.clone()
    }

    /// Waits until the broker acknowledged every event up to `seq`, at most `timeout`.
    pub async fn wait_acked(&self, seq: u64, timeout: Duration) -> Result<(), PublisherError> {
        let mut rx = self.acked.clone();
        let waited = tokio::time::timeout(timeout, rx.wait_for(|a| *a >= seq)).await;
        match waited {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(PublisherError::Stopped),
            Err(_) => Err(PublisherError::Unacknowledged {
                acked: *self.acked.borrow(),
                last: seq,
            }),
        }
    }

    /// Stops cleanly: publishes `offline` on `status`, waits until the broker acknowledged
    /// everything (at most `timeout`) and disconnects, so no last will is sent.
    pub async fn shutdown(self, timeout: Duration) -> Result<(), PublisherError> {
        let (tx, rx) = oneshot::channel();
        let deadline = Instant::now() + timeout;
        if self.input.send(Input::Shutdown(deadline, tx)).is_err() {
            self.poller.abort();
            return Err(PublisherError::Stopped);
        }
        let result = rx.await.unwrap_or(Err(PublisherError::Stopped));
        self.poller.abort();
        let _ = self.controller.await;
        result
    }

    /// Stops at once, dropping the connection without DISCONNECT (as a crash would: the
    /// broker then publishes the last will).
    pub fn abort(self) {
        self.controller.abort();
        self.poller.abort();
    }
}

/// The poller: polls, forwards, and sleeps the back-off after a failure.
async fn poll_loop(
    mut eventloop: EventLoop,
    notes: mpsc::UnboundedSender<Note>,
    mut backoff: tengen_net::backoff::Backoff,
) {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut connected = false;
    loop {
        match eventloop.poll().await {
            Ok(MqttEvent::Incoming(Packet::ConnAck(ack))) => {
                backoff.reset();
                connected = true;
                let note = Note::Connected {
                    session_present: ack.session_present,
                };
                if notes.send(note).is_err() {
                    return;
                }
            }
            Ok(ev) => {
                if notes.send(Note::Event(ev)).is_err() {
                    return;
                }
            }
            Err(e) => {
                if matches!(e, ConnectionError::RequestsDone) {
                    return;
                }
                if connected {
                    connected = false;
                    let (go_tx, go_rx) = oneshot::channel();
                    if notes
                        .send(Note::Disconnected(e.to_string(), go_tx))
                        .is_err()
                    {
                        return;
                    }
                    // The controller publishes nothing from here until the next ConnAck.
                    if go_rx.await.is_err() {
                        return;
                    }
                } else if notes.send(Note::ConnectFailed(e.to_string())).is_err() {
                    return;
                }
                // Everything queued for the dead connection is resent by the controller
                // from the journal: drop rumqttc's copies so nothing goes out twice or out
                // of order.
                eventloop.clean();
                eventloop.pending.clear();
                eventloop.state.events.clear();
                tokio::time::sleep(backoff.next_delay(&mut rng)).await;
            }
        }
    }
}

struct Controller {
    client: AsyncClient,
    topics: Topics,
    source: Arc<dyn EventSource>,
    ack_file: Option<AckFile>,
    commands: Option<mpsc::Sender<CommandRequest>>,
    /// Who may send commands.
    senders: tengen_protocol::signing::SenderPolicy,
    /// Command ids taken lately, so a repeated one is not carried out twice.
    recent: RecentCommands,
    version: String,
    window: usize,
    tracker: AckTracker,
    persisted: u64,
    /// Recent events given by the service, so they need not be re-read.
    tail: BTreeMap<u64, Envelope>,
    /// What each publish handed to rumqttc carries, until rumqttc reports its packet id.
    fifo: VecDeque<Tag>,
    /// Packet id -> what it carries, until acknowledged.
    pkids: HashMap<u16, Tag>,
    others_in_flight: usize,
    connected: bool,
    desired: Retained,
    published: Retained,
    stopping: Option<(Instant, Answer)>,
    /// Shutdown decided: the answer, sent once DISCONNECT is written.
    finishing: Option<(Instant, Result<(), PublisherError>, Answer)>,
    offline_acked: bool,
    input_tx: mpsc::UnboundedSender<Input>,
    acked_tx: watch::Sender<u64>,
    connected_tx: watch::Sender<bool>,
}

const TAIL_MAX: usize = 4096;
const OTHERS_MAX: usize = 16;
const READ_BATCH: usize = 256;

impl Controller {
    async fn run(
        mut self,
        mut notes: mpsc::UnboundedReceiver<Note>,
        mut inputs: mpsc::UnboundedReceiver<Input>,
    ) {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            self.pump();
            if self.finish_if_done(false) {
                break;
            }
            let deadline = self.stopping.as_ref().map(|(d, _)| *d);
            tokio::select! {
                note = notes.recv() => {
                    let Some(note) = note else { break };
                    self.on_note(note);
                    while let Ok(note) = notes.try_recv() {
                        self.on_note(note);
                    }
                }
                input = inputs.recv() => {
                    // The controller holds a sender itself, so this never ends.
                    if let Some(input) = input {
                        self.on_input(input);
                    }
                }
                _ = tick.tick() => {}
                _ = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.finish_if_done(true);
                    break;
                }
            }
            self.persist();
        }
        if let Some((_, result, done)) = self.finishing.take() {
            // Let rumqttc write the DISCONNECT before the poller is stopped.
            let wrote = tokio::time::timeout(Duration::from_secs(1), async {
                while let Some(note) = notes.recv().await {
                    if matches!(note, Note::Event(MqttEvent::Outgoing(Outgoing::Disconnect))) {
                        break;
                    }
                }
            });
            if self.connected {
                let _ = wrote.await;
            }
            let _ = done.send(result);
        } else if let Some((_, done)) = self.stopping.take() {
            // The poller ended: the client is gone.
            let _ = done.send(Err(PublisherError::Stopped));
        }
    }

    fn last_seq(&self) -> u64 {
        let pushed = self.tail.keys().next_back().copied().unwrap_or(0);
        self.source.last_seq().max(pushed)
    }

    fn persist(&mut self) {
        let acked = self.tracker.acked_through();
        if acked != self.persisted {
            if let Some(f) = &self.ack_file {
                if let Err(e) = f.store(acked) {
                    tracing::warn!("{e}");
                    return;
                }
            }
            self.persisted = acked;
        }
        self.acked_tx.send_replace(acked);
    }

    fn on_note(&mut self, note: Note) {
        match note {
            Note::Connected { session_present } => {
                tracing::info!("MQTT connected to the broker (session present: {session_present})");
                self.connected = true;
                self.on_connect();
            }
            Note::Disconnected(error, go) => {
                tracing::warn!("MQTT connection lost: {error}");
                self.connected = false;
                self.connected_tx.send_replace(false);
                self.fifo.clear();
                self.pkids.clear();
                self.others_in_flight = 0;
                self.tracker.disconnected();
                let _ = go.send(());
            }
            Note::ConnectFailed(error) => {
                tracing::debug!("MQTT connection attempt failed: {error}");
            }
            Note::Event(MqttEvent::Outgoing(Outgoing::Publish(pkid))) => {
                let tag = self.fifo.pop_front().unwrap_or(Tag::Other);
                self.pkids.insert(pkid, tag);
            }
            Note::Event(MqttEvent::Incoming(Packet::PubAck(ack))) => {
                match self.pkids.remove(&ack.pkid) {
                    Some(Tag::Event(seq)) => {
                        self.tracker.acked(seq);
                    }
                    Some(Tag::Offline) => {
                        self.offline_acked = true;
                        self.others_in_flight = self.others_in_flight.saturating_sub(1);
                    }
                    Some(Tag::Other) => {
                        self.others_in_flight = self.others_in_flight.saturating_sub(1);
                    }
                    None => {}
                }
            }
            Note::Event(MqttEvent::Incoming(Packet::SubAck(_))) => {
                // Connected and listening on `cmd`.
                self.connected_tx.send_replace(true);
            }
            Note::Event(MqttEvent::Incoming(Packet::Publish(p))) => {
                if p.topic == self.topics.cmd() {
                    self.on_command(&p.payload);
                }
            }
            Note::Event(_) => {}
        }
    }

    fn on_input(&mut self, input: Input) {
        match input {
            Input::Event(env) => {
                if env.seq > self.tracker.acked_through() {
                    self.tail.insert(env.seq, *env);
                    while self.tail.len() > TAIL_MAX {
                        self.tail.pop_first();
                    }
                }
            }
            Input::Wake => {}
            Input::Retained(r) => {
                if r.state.is_some() {
                    self.desired.state = r.state;
                }
                if r.sgf.is_some() {
                    self.desired.sgf = r.sgf;
                }
                if r.alerts_active.is_some() {
                    self.desired.alerts_active = r.alerts_active;
                }
            }
            Input::Shutdown(deadline, done) => {
                self.stopping = Some((deadline, done));
                if self.connected {
                    self.publish_offline();
                }
            }
            Input::Reply(id, result) => {
                self.recent.answered(&id, &result);
                if self.connected {
                    let payload = reply_payload(Some(&id), &result);
                    self.publish(self.topics.cmd_reply(), payload, false, Tag::Other);
                }
            }
        }
    }

    fn on_command(&mut self, payload: &[u8]) {
        let cmd = match decode_checked(payload, &self.senders) {
            Ok(c) => c,
            Err(rejected) => {
                tracing::warn!("refused a command: {}", rejected.error);
                self.reply(rejected.id, Err(rejected.error.to_string()));
                return;
            }
        };
        let id = cmd.id.clone();
        match self.recent.take(&cmd.id) {
            Seen::New => {}
            Seen::Pending => return,
            Seen::Answered(answer) => {
                let payload = reply_payload(Some(&id), &answer);
                self.publish(self.topics.cmd_reply(), payload, false, Tag::Other);
                return;
            }
        }
        if let Command::Republish { from_seq } = cmd.command {
            self.tracker.rewind(from_seq);
            self.reply(Some(id), Ok(()));
            return;
        }
        let Some(service) = &self.commands else {
            self.reply(Some(id), Err("this board does not take commands".to_string()));
            return;
        };
        let (tx, rx) = oneshot::channel();
        match service.try_send(CommandRequest {
            command: cmd,
            reply: tx,
        }) {
            Ok(()) => {
                let back = self.input_tx.clone();
                tokio::spawn(async move {
                    let result = match tokio::time::timeout(Duration::from_secs(30), rx).await {
                        Ok(Ok(r)) => r,
                        Ok(Err(_)) => Err("the board service dropped the command".to_string()),
                        Err(_) => Err("the board service did not answer in time".to_string()),
                    };
                    let _ = back.send(Input::Reply(id, result));
                });
            }
            Err(mpsc::error::TrySendError::Full(_)) => self.reply(
                Some(id),
                Err("the board is busy; send the command again".to_string()),
            ),
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.reply(Some(id), Err("the board service is not running".to_string()))
            }
        }
    }

    fn reply(&mut self, id: Option<String>, result: Result<(), String>) {
        if let Some(id) = &id {
            self.recent.answered(id, &result);
        }
        let payload = reply_payload(id.as_deref(), &result);
        self.publish(self.topics.cmd_reply(), payload, false, Tag::Other);
    }

    /// Hands one publish to rumqttc without waiting; false if its queue is full.
    fn publish(&mut self, topic: String, payload: Vec<u8>, retain: bool, tag: Tag) -> bool {
        match self
            .client
            .try_publish(topic, QoS::AtLeastOnce, retain, payload)
        {
            Ok(()) => {
                self.fifo.push_back(tag);
                if !matches!(tag, Tag::Event(_)) {
                    self.others_in_flight += 1;
                }
                true
            }
            Err(ClientError::TryRequest(_)) | Err(ClientError::Request(_)) => {
                tracing::warn!("MQTT client queue full; will retry");
                false
            }
        }
    }

    fn publish_offline(&mut self) {
        self.offline_acked = false;
        let payload = status_payload(self.topics.board(), "offline", &self.version);
        self.publish(self.topics.status(), payload, true, Tag::Offline);
    }

    fn on_connect(&mut self) {
        if let Err(e) = self
            .client
            .try_subscribe(self.topics.cmd(), QoS::AtLeastOnce)
        {
            tracing::warn!("MQTT subscribe to {} failed: {e}", self.topics.cmd());
        }
        let online = status_payload(self.topics.board(), "online", &self.version);
        self.publish(self.topics.status(), online, true, Tag::Other);
        self.published = Retained::default();
        if self.stopping.is_some() {
            self.publish_offline();
        }
    }

    /// Publishes what is due: changed retained topics, then events in order.
    fn pump(&mut self) {
        if !self.connected {
            return;
        }
        self.pump_retained();
        let last = self.last_seq();
        while self.tracker.in_flight() < self.window {
            let Some(seq) = self.tracker.take_next(last) else {
                break;
            };
            let Some(env) = self.event(seq) else {
                // Not readable now; try again on the next wake-up or tick.
                self.tracker.rewind(seq);
                break;
            };
            let Ok(payload) = serde_json::to_vec(&env) else {
                tracing::error!("event seq {seq} cannot be serialised; skipped");
                continue;
            };
            let to_alerts = env.event.is_for_arbiters();
            let mut count = 0;
            let mut ok = self.publish(
                self.topics.events(),
                payload.clone(),
                false,
                Tag::Event(seq),
            );
            count += u32::from(ok);
            if ok && to_alerts {
                ok = self.publish(
                    self.topics.alerts(),
                    payload.clone(),
                    false,
                    Tag::Event(seq),
                );
                count += u32::from(ok);
            }
            if ok {
                if let Event::Status { .. } = env.event {
                    self.publish(self.topics.status(), payload, true, Tag::Other);
                }
            }
            self.tracker.sent(seq, count);
            if !ok {
                self.tracker.rewind(seq);
                break;
            }
        }
    }

    fn pump_retained(&mut self) {
        let topics = [
            (self.topics.state(), 0usize),
            (self.topics.sgf(), 1),
            (self.topics.alerts_active(), 2),
        ];
        for (topic, i) in topics {
            if self.others_in_flight >= OTHERS_MAX {
                return;
            }
            let (want, have) = match i {
                0 => (&self.desired.state, &mut self.published.state),
                1 => (&self.desired.sgf, &mut self.published.sgf),
                _ => (
                    &self.desired.alerts_active,
                    &mut self.published.alerts_active,
                ),
            };
            if want.is_some() && want != have {
                let payload = want.clone().unwrap_or_default();
                *have = want.clone();
                if !self.publish(topic, payload.into_bytes(), true, Tag::Other) {
                    match i {
                        0 => self.published.state = None,
                        1 => self.published.sgf = None,
                        _ => self.published.alerts_active = None,
                    }
                    return;
                }
            }
        }
    }

    /// The event `seq`, from the tail or the source.
    fn event(&mut self, seq: u64) -> Option<Envelope> {
        if let Some(e) = self.tail.get(&seq) {
            return Some(e.clone());
        }
        match self.source.read_from(seq, READ_BATCH) {
            Ok(events) => {
                let mut found = None;
                for e in events {
                    if e.seq == seq {
                        found = Some(e.clone());
                    }
                    if self.tail.len() < TAIL_MAX || e.seq > seq {
                        self.tail.insert(e.seq, e);
                    }
                }
                while self.tail.len() > TAIL_MAX {
                    self.tail.pop_first();
                }
                if found.is_none() {
                    tracing::error!("event seq {seq} is missing from the journal");
                }
                found
            }
            Err(e) => {
                tracing::error!("cannot read event seq {seq} from the journal: {e}");
                None
            }
        }
    }

    /// During shutdown: once everything is acknowledged (or `timed_out`), send DISCONNECT
    /// and get ready to answer. Returns true when the controller is done.
    fn finish_if_done(&mut self, timed_out: bool) -> bool {
        if self.stopping.is_none() {
            return false;
        }
        let last = self.last_seq();
        let acked = self.tracker.acked_through();
        let done = self.connected && acked >= last && self.offline_acked;
        if !done && !timed_out {
            return false;
        }
        self.persist();
        if self.connected {
            let _ = self.client.try_disconnect();
        }
        let result = if done {
            Ok(())
        } else {
            Err(PublisherError::Unacknowledged { acked, last })
        };
        if let Some((deadline, tx)) = self.stopping.take() {
            self.finishing = Some((deadline, result, tx));
        }
        true
    }
}

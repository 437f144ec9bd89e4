//! The MQTT client of one board: the thin tokio driver around the sans-IO core
//! ([`super::publisher_state`]).
//!
//! Two tasks. The *poller* owns the rumqttc event loop and does nothing but poll it, forward
//! what happens and sleep the back-off between connection attempts; it never publishes, so
//! it can never block on its own request channel. The *driver* feeds the core what the
//! poller, the service and the clock say, and carries out what the core asks: `try_publish`
//! (never `publish().await`), reads of the [`EventSource`], commands handed to the service,
//! the acknowledgement mark written to the [`AckFile`].
//!
//! When the connection drops, the poller waits until the driver has told the core (which
//! then hands nothing more to the client until the next ConnAck) and only then throws away
//! what rumqttc had queued: the core resends every event not acknowledged from the source,
//! so nothing goes out twice from rumqttc's own copies or out of order.

use std::sync::Arc;
use std::time::Duration;

use rand::SeedableRng;
use rumqttc::{
    AsyncClient, ConnectionError, Event as MqttEvent, EventLoop, Incoming, LastWill, MqttOptions,
    Outgoing, QoS, TlsConfiguration, Transport,
};
use thiserror::Error;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use tengen_net::backoff::Backoff;
use tengen_net::link::{explain, LinkReport, LinkStatus, Target};
use tengen_net::tls::{self, TlsError};
use tengen_protocol::event::BoardState;
use tengen_protocol::Topics;

use super::commands::{CommandRequest, Unanswered};
use super::outbox::AckFile;
use super::publisher_state::{
    status_payload, Output, PublisherState, Retained, Setup, Unacknowledged, ANSWER_TIMEOUT,
};
use super::settings::MqttSettings;
use super::source::EventSource;
use super::taken_ids::{IdsFile, TakenIds};
use tengen_protocol::signing::Scope;
use tengen_protocol::Timestamp;

/// Why the publisher could not start or did not finish cleanly.
#[derive(Debug, Error)]
pub enum PublisherError {
    /// The TLS files are unusable.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// Shutdown or a wait ran out of time before the broker acknowledged everything.
    #[error(transparent)]
    Unacknowledged(#[from] Unacknowledged),
    /// The publisher's tasks are gone.
    #[error("the MQTT publisher has stopped")]
    Stopped,
}

/// What other tasks tell the driver.
enum Input {
    /// The source has grown.
    Wake,
    /// New retained payloads.
    Retained(Retained),
    /// Stop by this deadline, then answer.
    Shutdown(Instant, oneshot::Sender<Result<(), PublisherError>>),
    /// The service's answer to a command, or why there is none.
    Answer(String, Result<tengen_protocol::Answer, Unanswered>),
    /// The scan loop turned lately: a heartbeat.
    Heartbeat,
}

/// What the poller tells the driver.
enum Note {
    Connected {
        session_present: bool,
    },
    Event(MqttEvent),
    /// The connection dropped: the driver tells the core, then releases the poller.
    Disconnected(String, oneshot::Sender<()>),
    /// An attempt failed before the broker accepted it: why, in one line.
    ConnectFailed(String),
}

/// A cloneable handle to feed a running [`Publisher`] from other tasks.
#[derive(Debug, Clone)]
pub struct PublisherHandle {
    input: mpsc::UnboundedSender<Input>,
}

impl PublisherHandle {
    /// The source has grown: read and publish what is new.
    pub fn wake(&self) {
        let _ = self.input.send(Input::Wake);
    }

    /// Sets the retained payloads (`None` leaves a topic as it was).
    pub fn set_retained(&self, retained: Retained) {
        let _ = self.input.send(Input::Retained(retained));
    }

    /// The scan loop turned lately: `status` online is published again, with `at` the
    /// board's time as the driver takes it in (the heartbeat of `service::mqtt_status`).
    pub fn heartbeat(&self) {
        let _ = self.input.send(Input::Heartbeat);
    }
}

/// A running publisher for one board.
pub struct Publisher {
    input: mpsc::UnboundedSender<Input>,
    acked: watch::Receiver<u64>,
    connected: watch::Receiver<bool>,
    link: LinkReport,
    driver: JoinHandle<()>,
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
    /// Where the signed command ids taken are persisted (`None`: only in memory, and
    /// signed commands issued before the start are refused).
    pub ids_file: Option<IdsFile>,
    /// Where valid commands go (`None`: commands other than `republish` are refused).
    pub commands: Option<mpsc::Sender<CommandRequest>>,
    /// The version reported on `status`.
    pub version: String,
}

/// Notes from the poller taken in one go at most.
const NOTE_BATCH: usize = 256;

/// Requests beyond the core's publishes that the client's queue must hold (the
/// subscription to `cmd`, DISCONNECT).
const QUEUE_SLACK: usize = 4;

fn mqtt_options(settings: &MqttSettings, setup: &Setup) -> Result<MqttOptions, PublisherError> {
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
            setup.topics.status(),
            status_payload(setup, BoardState::Offline, None),
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
    /// Starts the poller and the driver on the current tokio runtime. Connecting happens in
    /// the background (with back-off); events in the source before the first connection
    /// are sent once it is up.
    pub fn start(
        settings: MqttSettings,
        parts: PublisherParts,
    ) -> Result<Publisher, PublisherError> {
        let taken = taken_before(&settings, parts.ids_file.as_ref());
        let scope = settings.senders.is_signed().then(|| Scope {
            tournament: parts.topics.tournament().to_string(),
            board: parts.topics.board().to_string(),
            window_ms: settings.command_window_ms,
            not_before_ms: taken.not_before_ms(),
        });
        let setup = Setup {
            topics: parts.topics,
            version: parts.version,
            senders: settings.senders.clone(),
            scope,
            takes_commands: parts.commands.is_some(),
            window: settings.window.max(1),
            queue: settings.window.max(1) * 4 + 64,
        };
        let options = mqtt_options(&settings, &setup)?;
        let (client, eventloop) = AsyncClient::new(options, setup.queue + QUEUE_SLACK);

        let acked_through = match &parts.ack_file {
            Some(f) => f.load().unwrap_or_else(|e| {
                tracing::warn!("{e}; resending every event");
                0
            }),
            None => 0,
        };
        let state = PublisherState::new(setup, acked_through, parts.source.last_seq(), now())
            .with_taken(taken);

        let (note_tx, note_rx) = mpsc::unbounded_channel();
        let (input_tx, input_rx) = mpsc::unbounded_channel();
        let (acked_tx, acked_rx) = watch::channel(state.acked_through());
        let (connected_tx, connected_rx) = watch::channel(false);

        let target = Target {
            url: settings.url.clone(),
            username: settings.credentials.as_ref().map(|(u, _)| u.clone()),
            ca_file: settings.tls.ca_file.clone(),
        };
        let link = LinkReport::new("MQTT", target.url_text());
        let poller = tokio::spawn(poll_loop(
            eventloop,
            note_tx,
            settings.backoff.clone(),
            target,
        ));
        let driver = Driver {
            state,
            client,
            source: parts.source,
            ack_file: parts.ack_file,
            ids_file: parts.ids_file,
            commands: parts.commands,
            unpersisted: None,
            input_tx: input_tx.clone(),
            acked_tx,
            connected_tx,
            link: link.clone(),
            answer: None,
            outcome: None,
        };
        let driver = tokio::spawn(driver.run(note_rx, input_rx));
        Ok(Publisher {
            input: input_tx,
            acked: acked_rx,
            connected: connected_rx,
            link,
            driver,
            poller,
        })
    }

    /// A handle for other tasks (the service's output follower).
    pub fn handle(&self) -> PublisherHandle {
        PublisherHandle {
            input: self.input.clone(),
        }
    }

    /// The highest contiguous `seq` the broker acknowledged, as it changes.
    pub fn acked(&self) -> watch::Receiver<u64> {
        self.acked.clone()
    }

    /// Whether a broker connection is up and subscribed to `cmd`, as it changes.
    pub fn connected(&self) -> watch::Receiver<bool> {
        self.connected.clone()
    }

    /// The broker link as a status page shows it: connected, or why not (one line, the
    /// same that was logged).
    pub fn link_status(&self) -> LinkStatus {
        self.link.status()
    }

    /// A handle on the link's status for a status page that outlives this borrow.
    pub fn link(&self) -> LinkReport {
        self.link.clone()
    }

    /// Waits until the broker acknowledged every event up to `seq`, at most `timeout`.
    pub async fn wait_acked(&self, seq: u64, timeout: Duration) -> Result<(), PublisherError> {
        let mut rx = self.acked.clone();
        let waited = tokio::time::timeout(timeout, rx.wait_for(|a| *a >= seq)).await;
        match waited {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(PublisherError::Stopped),
            Err(_) => Err(Unacknowledged {
                acked: *self.acked.borrow(),
                last: seq,
            }
            .into()),
        }
    }

    /// Stops cleanly: publishes `offline` on `status`, waits until the broker acknowledged
    /// every event the source holds (at most `timeout`) and disconnects, so no last will is
    /// sent.
    pub async fn shutdown(self, timeout: Duration) -> Result<(), PublisherError> {
        let (tx, rx) = oneshot::channel();
        let deadline = Instant::now() + timeout;
        if self.input.send(Input::Shutdown(deadline, tx)).is_err() {
            self.poller.abort();
            return Err(PublisherError::Stopped);
        }
        let result = rx.await.unwrap_or(Err(PublisherError::Stopped));
        self.poller.abort();
        let _ = self.driver.await;
        result
    }

    /// Stops at once, dropping the connection without DISCONNECT (as a crash would: the
    /// broker then publishes the last will).
    pub fn abort(self) {
        self.driver.abort();
        self.poller.abort();
    }
}

/// The wall clock in ms since the epoch, at which signed commands are judged.
fn wall_ms() -> u64 {
    Timestamp::now().millis()
}

/// The signed command ids taken before this start (with the earliest `at` to take: 0, or
/// the start of a run that did not know the ids before it). When the file is missing or
/// unreadable: none, and nothing issued before this start is taken, which is said in one
/// log line on a signed board and written to the file at once so a restart soon after
/// still knows.
fn taken_before(settings: &MqttSettings, file: Option<&IdsFile>) -> TakenIds {
    let start = wall_ms();
    let Some(file) = file else {
        return TakenIds::forgotten_before(start);
    };
    match file.load() {
        Ok(ids) => ids,
        Err(e) => {
            let ids = TakenIds::forgotten_before(start);
            if settings.senders.is_signed() {
                tracing::warn!(
                    "{e}; signed commands issued before this start ({}) are refused",
                    Timestamp::from_millis(start)
                );
                if let Err(e) = file.store(&ids) {
                    tracing::error!("{e}");
                }
            }
            ids
        }
    }
}

/// The poller: polls, forwards, and sleeps the back-off after a failure.
async fn poll_loop(
    mut eventloop: EventLoop,
    notes: mpsc::UnboundedSender<Note>,
    mut backoff: Backoff,
    target: Target,
) {
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut connected = false;
    loop {
        match eventloop.poll().await {
            Ok(MqttEvent::Incoming(Incoming::ConnAck(ack))) => {
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
                    // The core hands nothing more to the client until the next ConnAck.
                    if go_rx.await.is_err() {
                        return;
                    }
                } else if notes
                    .send(Note::ConnectFailed(explain(&e, &target)))
                    .is_err()
                {
                    return;
                }
                // Everything queued for the dead connection is resent from the source:
                // drop rumqttc's copies so nothing goes out twice or out of order.
                eventloop.clean();
                eventloop.pending.clear();
                eventloop.state.events.clear();
                tokio::time::sleep(backoff.next_delay(&mut rng)).await;
            }
        }
    }
}

/// The task that feeds the core and carries out its outputs.
struct Driver {
    state: PublisherState,
    client: AsyncClient,
    source: Arc<dyn EventSource>,
    ack_file: Option<AckFile>,
    ids_file: Option<IdsFile>,
    commands: Option<mpsc::Sender<CommandRequest>>,
    /// The acknowledgement mark to write at the end of this round.
    unpersisted: Option<u64>,
    input_tx: mpsc::UnboundedSender<Input>,
    acked_tx: watch::Sender<u64>,
    connected_tx: watch::Sender<bool>,
    /// The link's state and its log lines.
    link: LinkReport,
    /// Where the answer to shutdown goes.
    answer: Option<oneshot::Sender<Result<(), PublisherError>>>,
    /// How shutdown ended.
    outcome: Option<Result<(), Unacknowledged>>,
}

impl Driver {
    async fn run(
        mut self,
        mut notes: mpsc::UnboundedReceiver<Note>,
        mut inputs: mpsc::UnboundedReceiver<Input>,
    ) {
        let mut poller_gone = false;
        loop {
            self.carry_out();
            self.end_round();
            if self.state.is_done() {
                break;
            }
            let timeout = self.state.poll_timeout().map(Instant::from_std);
            tokio::select! {
                note = notes.recv() => {
                    let Some(note) = note else {
                        poller_gone = true;
                        break;
                    };
                    self.on_note(note);
                    // Take what else the poller has said: the core works out what is due
                    // once for the batch.
                    for _ in 1..NOTE_BATCH {
                        let Ok(note) = notes.try_recv() else { break };
                        self.on_note(note);
                    }
                }
                // The driver holds a sender itself, so this never ends.
                Some(input) = inputs.recv() => self.on_input(input),
                _ = tokio::time::sleep_until(timeout.unwrap_or_else(Instant::now)), if timeout.is_some() => {
                    self.state.handle_timeout(now());
                }
            }
        }
        // After DISCONNECT was written (or given up on): the answer to shutdown.
        if let Some(answer) = self.answer.take() {
            let result = match self.outcome.take() {
                Some(r) if !poller_gone => r.map_err(PublisherError::from),
                _ => Err(PublisherError::Stopped),
            };
            let _ = answer.send(result);
        }
    }

    fn on_note(&mut self, note: Note) {
        let now = now();
        match note {
            Note::Connected { session_present } => {
                self.link.connected();
                self.state
                    .connected(session_present, now, Timestamp::from_millis(wall_ms()));
            }
            Note::Disconnected(error, go) => {
                self.link.lost(&error);
                self.state.disconnected(now);
                let _ = go.send(());
            }
            Note::ConnectFailed(why) => self.link.failed(why),
            Note::Event(MqttEvent::Outgoing(Outgoing::Publish(pkid))) => {
                self.state.publish_written(pkid, now);
            }
            Note::Event(MqttEvent::Outgoing(Outgoing::Disconnect)) => {
                self.state.disconnect_written();
            }
            Note::Event(MqttEvent::Incoming(Incoming::PubAck(ack))) => {
                self.state.puback(ack.pkid, now);
            }
            Note::Event(MqttEvent::Incoming(Incoming::SubAck(_))) => self.state.suback(),
            Note::Event(MqttEvent::Incoming(Incoming::Publish(p))) => {
                self.state
                    .incoming_publish(&p.topic, &p.payload, now, wall_ms());
            }
            Note::Event(_) => {}
        }
    }

    fn on_input(&mut self, input: Input) {
        let now = now();
        match input {
            Input::Wake => self.state.source_grew(self.source.last_seq(), now),
            Input::Retained(r) => self.state.set_retained(r, now),
            Input::Shutdown(deadline, answer) => {
                self.answer = Some(answer);
                // Everything journaled so far is to be acknowledged before DISCONNECT.
                self.state.source_grew(self.source.last_seq(), now);
                self.state.shutdown(deadline.into_std(), now);
            }
            Input::Answer(id, Ok(result)) => self.state.answer(&id, result, now),
            Input::Answer(id, Err(why)) => self.state.unanswered(&id, why, now),
            Input::Heartbeat => self.state.heartbeat(Timestamp::from_millis(wall_ms()), now),
        }
    }

    /// Carries out what the core asks, until it asks nothing more.
    fn carry_out(&mut self) {
        while let Some(output) = self.state.poll_output() {
            match output {
                Output::Subscribe(topic) => {
                    if let Err(e) = self.client.try_subscribe(topic.as_str(), QoS::AtLeastOnce) {
                        tracing::error!("MQTT subscribe to {topic} not handed to the client: {e}");
                    }
                }
                Output::Publish(p) => {
                    let handed = self.client.try_publish(
                        p.topic.as_str(),
                        QoS::AtLeastOnce,
                        p.retain,
                        p.payload,
                    );
                    if let Err(e) = handed {
                        // The core never fills the queue: only a stopped client refuses.
                        tracing::error!(
                            "MQTT publish on {} not handed to the client: {e}",
                            p.topic
                        );
                    }
                }
                Output::Disconnect => {
                    if let Err(e) = self.client.try_disconnect() {
                        tracing::error!("MQTT DISCONNECT not handed to the client: {e}");
                    }
                }
                Output::ReadEvents { from, max } => {
                    let records = self.source.read_from(from, max);
                    self.state.events_read(from, records, now());
                }
                Output::Forward(command) => self.forward(*command),
                Output::PersistAcked(seq) => self.unpersisted = Some(seq),
                Output::PersistTaken(ids) => {
                    // Written before the command is carried out (the next outputs).
                    if let Some(f) = &self.ids_file {
                        if let Err(e) = f.store(&ids) {
                            tracing::error!(
                                "{e}: a replay of the commands taken lately would not be \
                                 recognised after a restart"
                            );
                        }
                    }
                }
                Output::ShutdownDone(result) => self.outcome = Some(result),
            }
        }
    }

    /// Hands a command to the service; its answer comes back as an input.
    fn forward(&mut self, command: tengen_protocol::CommandEnvelope) {
        let id = command.id.clone();
        let Some(service) = &self.commands else {
            self.state.unanswered(&id, Unanswered::NotRunning, now());
            return;
        };
        let (tx, rx) = oneshot::channel();
        match service.try_send(CommandRequest { command, reply: tx }) {
            Ok(()) => {
                let back = self.input_tx.clone();
                tokio::spawn(async move {
                    // The core answers a command the service is too slow for; this task
                    // only has to end after that.
                    let answer = match tokio::time::timeout(ANSWER_TIMEOUT, rx).await {
                        Ok(Ok(r)) => Ok(r),
                        Ok(Err(_)) => Err(Unanswered::Dropped),
                        Err(_) => Err(Unanswered::TimedOut),
                    };
                    let _ = back.send(Input::Answer(id, answer));
                });
            }
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.state.unanswered(&id, Unanswered::Busy, now());
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.state.unanswered(&id, Unanswered::NotRunning, now());
            }
        }
    }

    /// After a round of inputs: the acknowledgement mark written once, then told.
    fn end_round(&mut self) {
        if let Some(seq) = self.unpersisted.take() {
            if let Some(f) = &self.ack_file {
                if let Err(e) = f.store(seq) {
                    tracing::warn!("{e}");
                }
            }
            self.acked_tx.send_replace(seq);
        }
        let subscribed = self.state.subscribed();
        self.connected_tx.send_if_modified(|c| {
            let changed = *c != subscribed;
            *c = subscribed;
            changed
        });
    }
}

fn now() -> std::time::Instant {
    Instant::now().into_std()
}

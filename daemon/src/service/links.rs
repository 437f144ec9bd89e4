//! The service's outputs wired to the world, the one way `tengen run`, `tengen demo` and
//! the tests do it: the HTTP live view and MQTT (the embedded broker for
//! `mqtt.url = "embedded"`, or an external broker), both fed from what the recorder has
//! journaled, and the commands from `cmd` to the scan loop. The MQTT publisher reads the
//! journal itself (every event byte for byte, again after a reconnect or restart); its
//! acknowledgements persist in `{storage.dir}/mqtt-acked`.

use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use thiserror::Error;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use tengen_hal::Side;
use tengen_net::clock_view;
use tengen_net::live_view::{self, LiveFeed, ServeHandle};
use tengen_protocol::topics::TopicError;
use tengen_protocol::Answer;

use super::mqtt_status;
use super::outputs::{Outputs, Shown};
use super::scan_loop::Request;
use super::{Service, COMMAND_QUEUE};
use crate::config::{Config, MqttUrl};
use crate::journal::{JournalError, JournalReader};
use crate::mqtt::broker::{BrokerError, EmbeddedBroker};
use crate::mqtt::commands::{self, CommandRequest};
use crate::mqtt::outbox::AckFile;
use crate::mqtt::publisher_state::Retained;
use crate::mqtt::settings::SettingsError;
use crate::mqtt::taken_ids::IdsFile;
use crate::mqtt::{board_config, Publisher, PublisherError, PublisherHandle, PublisherParts};

/// Where the links listen; `None` keeps the config's address.
#[derive(Debug, Clone, Default)]
pub struct LinkOptions {
    /// The live view's address (`http.listen`).
    pub http: Option<String>,
    /// The embedded broker's address (`mqtt.listen`).
    pub mqtt_listen: Option<SocketAddr>,
}

/// What the links take from a running service: its journal, its outputs and where
/// commands go.
#[derive(Debug, Clone)]
pub struct ServiceEnds {
    /// The journal the publisher reads.
    pub journal: JournalReader,
    /// The recorded events and what is shown.
    pub outputs: Outputs,
    /// The scan loop's commands.
    pub commands: mpsc::Sender<Request>,
}

impl ServiceEnds {
    /// The ends of a running service.
    pub fn of(service: &Service) -> ServiceEnds {
        ServiceEnds {
            journal: service.journal(),
            outputs: service.outputs().clone(),
            commands: service.commands(),
        }
    }
}

/// Why the links could not start.
#[derive(Debug, Error)]
pub enum LinkError {
    /// The journal could not be read for the live view.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The live view could not listen.
    #[error("http {addr}: {source}")]
    Http {
        /// The address.
        addr: String,
        /// The error.
        source: std::io::Error,
    },
    /// `mqtt.prefix`, `board.tournament` or `board.id` cannot be a topic level.
    #[error("config: {0}")]
    Topic(#[from] TopicError),
    /// The MQTT settings are unusable.
    #[error("config: {0}")]
    Settings(#[from] SettingsError),
    /// The embedded broker did not start.
    #[error("embedded broker: {0}")]
    Broker(#[from] BrokerError),
    /// The publisher did not start (TLS files).
    #[error("mqtt: {0}")]
    Publisher(#[from] PublisherError),
}

/// The running links.
pub struct Links {
    /// The live view.
    pub http: ServeHandle,
    /// The embedded broker, when there is one (it runs until the process ends).
    pub broker: Option<EmbeddedBroker>,
    /// The URL the publisher connects to.
    pub broker_url: String,
    publisher: Publisher,
    outputs: Outputs,
    tasks: Vec<JoinHandle<()>>,
}

impl Links {
    /// The MQTT publisher (to wait for acknowledgements or connections).
    pub fn publisher(&self) -> &Publisher {
        &self.publisher
    }

    /// After the service has stopped: hands the publisher what is shown last, lets it send
    /// what is left (`offline` included: every event the journal holds acknowledged) for
    /// up to `timeout`, then closes everything.
    pub async fn shutdown(self, timeout: Duration) -> Result<(), PublisherError> {
        let last = retained(&self.outputs.subscribe_shown().borrow());
        self.publisher.handle().set_retained(last);
        let result = self.publisher.shutdown(timeout).await;
        for t in self.tasks {
            t.abort();
        }
        self.http.stop();
        result
    }
}

/// Starts the live view and MQTT for a running service ([`ServiceEnds::of`]).
pub async fn start_links(
    config: &Config,
    service: ServiceEnds,
    options: &LinkOptions,
) -> Result<Links, LinkError> {
    let ServiceEnds {
        journal,
        outputs,
        commands: to_loop,
    } = service;
    let feed = LiveFeed::new();
    for env in journal.current_game()? {
        feed.publish(env);
    }
    let http_addr = options
        .http
        .clone()
        .unwrap_or_else(|| config.http.listen.to_string());
    let link = Arc::new(OnceLock::new());
    let page = live_view::PageOptions {
        lang: config.board.lang,
        ..live_view::PageOptions::default()
    };
    // The black box's files: read by /api/frames and by the `frames` command.
    let frames_dir = config.storage.dir.join(crate::black_box::FRAMES_DIR);
    let routes = live_view::router_with(feed.clone(), page)
        .merge(clock_view::router(
            outputs.subscribe_faces(),
            // Black's face is turned away on a tablet whose near edge faces south.
            matches!(config.board.black_side, Side::North | Side::West),
            config.board.lang,
        ))
        .merge(mqtt_status::router(link.clone()))
        .merge(super::frames_route::router(frames_dir.clone()));
    let http = live_view::serve(&http_addr, routes)
        .await
        .map_err(|source| LinkError::Http {
            addr: http_addr,
            source,
        })?;

    let listen = options.mqtt_listen.unwrap_or(config.mqtt.listen);
    let settings = board_config::settings(config, listen)?;
    let topics = board_config::topics(config)?;
    let (broker, broker_url) = match &config.mqtt.url {
        MqttUrl::Embedded => {
            let broker = EmbeddedBroker::start(listen, settings.max_packet_size)?;
            let url = broker.url();
            (Some(broker), url)
        }
        external => (None, external.to_string()),
    };
    let (cmd_tx, cmd_rx) = commands::channel(COMMAND_QUEUE);
    let publisher = Publisher::start(
        settings,
        PublisherParts {
            topics,
            source: std::sync::Arc::new(journal.clone()),
            ack_file: Some(AckFile::new(config.storage.dir.join("mqtt-acked"))),
            ids_file: Some(IdsFile::new(config.storage.dir.join("command-ids"))),
            commands: Some(cmd_tx),
            version: super::VERSION.into(),
        },
    )?;
    let _ = link.set(publisher.link());
    let handle = publisher.handle();
    let tasks = vec![
        tokio::spawn(forward_events(
            outputs.clone(),
            journal,
            feed.clone(),
            handle.clone(),
        )),
        tokio::spawn(forward_shown(outputs.clone(), feed, handle.clone())),
        tokio::spawn(mqtt_status::heartbeat(outputs.clone(), handle)),
        tokio::spawn(forward_commands(cmd_rx, to_loop, frames_dir)),
    ];
    Ok(Links {
        http,
        broker,
        broker_url,
        publisher,
        outputs,
        tasks,
    })
}

/// Every recorded event to the live view, and a wake-up to the publisher (which reads the
/// journal's bytes itself); after a lag, the missed ones are read back from the journal.
async fn forward_events(
    outputs: Outputs,
    journal: JournalReader,
    feed: LiveFeed,
    publisher: PublisherHandle,
) {
    let mut rx = outputs.subscribe_events();
    // Anything journaled before this task subscribed.
    publisher.wake();
    loop {
        match rx.recv().await {
            Ok(env) => {
                feed.publish(env);
                publisher.wake();
            }
            Err(RecvError::Lagged(_)) => {
                if let Ok(missed) = journal.read_from(feed.last_seq() + 1) {
                    for env in missed {
                        feed.publish(env);
                    }
                }
                publisher.wake();
            }
            Err(RecvError::Closed) => return,
        }
    }
}

/// What is shown (state, SGF, open alerts) to the live view and the retained topics.
async fn forward_shown(outputs: Outputs, feed: LiveFeed, publisher: PublisherHandle) {
    let mut shown = outputs.subscribe_shown();
    loop {
        let now = shown.borrow_and_update().clone();
        publisher.set_retained(retained(&now));
        feed.set_state(now.state);
        feed.set_sgf(now.sgf);
        if shown.changed().await.is_err() {
            return;
        }
    }
}

/// Commands decoded by the publisher to the scan loop, answers back. A `frames` command is
/// answered here from the black box in `frames_dir`, on a blocking thread: it reads files
/// and changes nothing the scan loop owns.
async fn forward_commands(
    mut rx: mpsc::Receiver<CommandRequest>,
    to_loop: mpsc::Sender<Request>,
    frames_dir: std::path::PathBuf,
) {
    while let Some(CommandRequest { command, reply }) = rx.recv().await {
        if let tengen_protocol::Command::Frames { from, to, game } = &command.command {
            let (from, to, game, id) = (*from, *to, game.clone(), command.id.clone());
            let dir = frames_dir.clone();
            tokio::spawn(async move {
                let answer = tokio::task::spawn_blocking(move || {
                    crate::black_box::excerpt_answer(&dir, game.as_deref(), from, to, &id)
                })
                .await
                .unwrap_or_else(|e| Answer::refused(format!("reading frames: {e}")));
                let _ = reply.send(answer);
            });
            continue;
        }
        if let Err(e) = to_loop.send(Request { command, reply }).await {
            let _ =
                e.0.reply
                    .send(Answer::refused("the board is shutting down"));
        }
    }
}

/// What is shown, as the retained topics carry it (nothing on `state` and `sgf` before a
/// game).
fn retained(shown: &Shown) -> Retained {
    Retained {
        state: (!shown.state.is_null()).then(|| shown.state.to_string()),
        sgf: (!shown.sgf.is_empty()).then(|| shown.sgf.clone()),
        alerts_active: Some(shown.alerts_active.clone()),
    }
}

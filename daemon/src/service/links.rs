//! The service's outputs wired to the world: the HTTP live view and MQTT (the embedded
//! broker for `mqtt.url = "embedded"`, or an external broker), both fed from what the
//! recorder has journaled. The MQTT publisher re-reads the journal itself after a
//! reconnect or restart; its acknowledgements persist in `{storage.dir}/mqtt-acked`.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;

use tengen_net::broker::BrokerUrl;
use tengen_net::live_view::{self, LiveFeed, ServeHandle};
use tengen_protocol::Topics;

use super::outputs::Outputs;
use super::scan_loop::Request;
use super::{Service, ServiceError};
use crate::config::{Config, MqttUrl};
use crate::journal::JournalReader;
use crate::mqtt::broker::EmbeddedBroker;
use crate::mqtt::commands::{self, CommandRequest};
use crate::mqtt::outbox::AckFile;
use crate::mqtt::publisher::{PublisherHandle, PublisherParts};
use crate::mqtt::{MqttSettings, Publisher, Retained};

/// Largest MQTT packet, both ways: a long game's SGF fits.
pub const MAX_PACKET: usize = 1 << 20;

/// Where the links listen; `None` keeps the config's address.
#[derive(Debug, Clone, Default)]
pub struct LinkOptions {
    /// The live view's address (`http.listen`).
    pub http: Option<String>,
    /// The embedded broker's address (`mqtt.listen`).
    pub mqtt_listen: Option<std::net::SocketAddr>,
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
    tasks: Vec<JoinHandle<()>>,
}

impl Links {
    /// After the service has stopped: lets the publisher send what is left (`offline`
    /// included) for up to `timeout`, then closes everything.
    pub async fn shutdown(self, timeout: Duration) {
        // Let the forwarders pass on the last events first.
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Err(e) = self.publisher.shutdown(timeout).await {
            tracing::warn!("mqtt: {e}");
        }
        for t in self.tasks {
            t.abort();
        }
        self.http.stop();
    }
}

/// Starts the live view and MQTT for a running service.
pub async fn start_links(
    config: &Config,
    service: &Service,
    options: &LinkOptions,
) -> Result<Links, ServiceError> {
    let reader = service.journal();
    let feed = LiveFeed::new();
    for env in reader.current_game()? {
        feed.publish(env);
    }
    let http_addr = options
        .http
        .clone()
        .unwrap_or_else(|| config.http.listen.to_string());
    let http = live_view::serve(&http_addr, feed.clone())
        .await
        .map_err(|e| ServiceError::Backend(format!("http {http_addr}: {e}")))?;

    let (broker, url) = match &config.mqtt.url {
        MqttUrl::Embedded => {
            let listen = options.mqtt_listen.unwrap_or(config.mqtt.listen);
            let broker = EmbeddedBroker::start(listen, MAX_PACKET)
                .map_err(|e| ServiceError::Backend(format!("embedded broker: {e}")))?;
            let url = broker.url();
            (Some(broker), url)
        }
        external => (None, external.to_string()),
    };
    let settings = mqtt_settings(config, &url)?;
    let topics = Topics::new(
        &config.mqtt.prefix,
        &config.board.tournament,
        &config.board.id,
    )
    .map_err(|e| ServiceError::Config(e.to_string()))?;
    let (cmd_tx, cmd_rx) = commands::channel(super::COMMAND_QUEUE);
    let publisher = Publisher::start(
        settings,
        PublisherParts {
            topics,
            source: Arc::new(reader.clone()),
            ack_file: Some(AckFile::new(config.storage.dir.join("mqtt-acked"))),
            commands: Some(cmd_tx),
            version: env!("CARGO_PKG_VERSION").into(),
        },
    )
    .map_err(|e| ServiceError::Backend(format!("mqtt: {e}")))?;
    let handle = publisher.handle();
    let tasks = vec![
        tokio::spawn(forward_events(
            service.outputs().clone(),
            reader,
            feed.clone(),
            handle.clone(),
        )),
        tokio::spawn(forward_retained(service.outputs().clone(), feed, handle)),
        tokio::spawn(forward_commands(cmd_rx, service.commands())),
    ];
    Ok(Links {
        http,
        broker,
        broker_url: url,
        publisher,
        tasks,
    })
}

/// The publisher's settings from `[mqtt]` (as [`crate::mqtt::wiring::settings`] reads them),
/// aimed at `url`: the broker actually in use (the embedded one may listen elsewhere).
fn mqtt_settings(config: &Config, url: &str) -> Result<MqttSettings, ServiceError> {
    let mut settings =
        crate::mqtt::wiring::settings(config).map_err(|e| ServiceError::Config(e.to_string()))?;
    settings.url = BrokerUrl::parse(url).map_err(|e| ServiceError::Config(e.to_string()))?;
    settings.max_packet_size = MAX_PACKET;
    Ok(settings)
}

/// Every recorded event to the live view and the publisher; after a lag, the missed ones
/// are read back from the journal.
async fn forward_events(
    outputs: Outputs,
    reader: JournalReader,
    feed: LiveFeed,
    publisher: PublisherHandle,
) {
    let mut rx = outputs.subscribe_events();
    loop {
        match rx.recv().await {
            Ok(env) => {
                feed.publish(env.clone());
                publisher.publish_event(env);
            }
            Err(RecvError::Lagged(_)) => {
                if let Ok(missed) = reader.read_from(feed.last_seq() + 1) {
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
async fn forward_retained(outputs: Outputs, feed: LiveFeed, publisher: PublisherHandle) {
    let mut shown = outputs.subscribe_shown();
    loop {
        let now = shown.borrow_and_update().clone();
        publisher.set_retained(Retained {
            state: (!now.state.is_null()).then(|| now.state.to_string()),
            sgf: (!now.sgf.is_empty()).then(|| now.sgf.clone()),
            alerts_active: Some(now.alerts_active.clone()),
        });
        feed.set_state(now.state);
        feed.set_sgf(now.sgf);
        if shown.changed().await.is_err() {
            return;
        }
    }
}

/// Commands decoded by the publisher to the scan loop, answers back.
async fn forward_commands(
    mut rx: tokio::sync::mpsc::Receiver<CommandRequest>,
    to_loop: tokio::sync::mpsc::Sender<Request>,
) {
    while let Some(CommandRequest { command, reply }) = rx.recv().await {
        if let Err(e) = to_loop.send(Request { command, reply }).await {
            let _ = e.0.reply.send(Err("the board is shutting down".into()));
        }
    }
}

//! Wiring for the board service: the MQTT settings and topics from the config, the journal
//! as the event source, and a task that follows the service's outputs (events, and what
//! the fold of them shows: state, SGF, `alerts/active`) into the publisher.

use std::net::SocketAddr;

use tengen_net::broker::{BrokerUrl, TlsFiles};
use tengen_protocol::topics::TopicError;
use tengen_protocol::{Envelope, Topics};
use tokio::sync::broadcast::error::RecvError;

use super::publisher::{PublisherHandle, Retained};
use super::settings::{MqttSettings, SettingsError};
use super::source::EventSource;
use crate::config::{Config, MqttUrl};
use crate::journal::JournalReader;
use crate::service::outputs::{Outputs, Shown};

impl EventSource for JournalReader {
    fn read_from(&self, from: u64, max: usize) -> Result<Vec<Envelope>, String> {
        let mut events = JournalReader::read_from(self, from.max(1)).map_err(|e| e.to_string())?;
        events.truncate(max);
        Ok(events)
    }

    fn last_seq(&self) -> u64 {
        JournalReader::last_seq(self)
    }
}

/// The board's topics from `board.id`, `board.tournament` and `mqtt.prefix`.
pub fn topics(config: &Config) -> Result<Topics, TopicError> {
    Topics::new(
        &config.mqtt.prefix,
        &config.board.tournament,
        &config.board.id,
    )
}

/// The embedded broker's address when `mqtt.url = "embedded"`.
pub fn embedded_listen(config: &Config) -> Option<SocketAddr> {
    match config.mqtt.url {
        MqttUrl::Embedded => Some(config.mqtt.listen),
        MqttUrl::Broker { .. } => None,
    }
}

/// The publisher's settings from `[mqtt]`: the external broker, or the embedded one on
/// `mqtt.listen` (reached on the loopback when it listens on every address).
pub fn settings(config: &Config) -> Result<MqttSettings, SettingsError> {
    let m = &config.mqtt;
    let url = match &m.url {
        MqttUrl::Embedded => {
            let mut a = m.listen;
            if a.ip().is_unspecified() {
                a.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
            }
            BrokerUrl {
                host: a.ip().to_string(),
                port: a.port(),
                tls: false,
            }
        }
        MqttUrl::Broker { tls, host, port } => BrokerUrl {
            host: host.clone(),
            port: *port,
            tls: *tls,
        },
    };
    let mut s = MqttSettings::new(url, &config.board.id);
    s.client_id = m.client_id.clone();
    s.keepalive = std::time::Duration::from_millis(m.keepalive_ms);
    s.tls = TlsFiles {
        ca_file: m.ca_file.clone(),
        cert_file: m.cert_file.clone(),
        key_file: m.key_file.clone(),
    };
    s.senders = config.sender_policy().map_err(SettingsError::CommandKey)?;
    if let (Some(user), Some(file)) = (&m.username, &m.password_file) {
        s = s.with_password_file(user, file)?;
    } else if let Some(user) = &m.username {
        s.credentials = Some((user.clone(), String::new()));
    }
    Ok(s)
}

/// What is shown, as the retained topics carry it.
fn retained(shown: &Shown) -> Retained {
    Retained {
        state: (!shown.state.is_null()).then(|| shown.state.to_string()),
        sgf: (!shown.sgf.is_empty()).then(|| shown.sgf.clone()),
        alerts_active: Some(shown.alerts_active.clone()),
    }
}

/// Follows the service's outputs into the publisher until the event channel closes:
/// every event (a lagging follower wakes the publisher, which re-reads the journal) and
/// what is shown (state, SGF, open alerts), retained.
pub async fn follow_outputs(publisher: PublisherHandle, outputs: Outputs) {
    let mut events = outputs.subscribe_events();
    let mut shown = outputs.subscribe_shown();
    publisher.set_retained(retained(&shown.borrow_and_update()));
    publisher.wake();
    loop {
        tokio::select! {
            e = events.recv() => match e {
                Ok(envelope) => publisher.publish_event(envelope),
                Err(RecvError::Lagged(_)) => publisher.wake(),
                Err(RecvError::Closed) => return,
            },
            changed = shown.changed() => {
                if changed.is_err() { return; }
                let r = retained(&shown.borrow_and_update());
                publisher.set_retained(r);
            }
        }
    }
}

/// Why MQTT could not be started for the service.
#[derive(Debug, thiserror::Error)]
pub enum WiringError {
    /// `mqtt.prefix`, `board.tournament` or `board.id` cannot be a topic level.
    #[error("{0}")]
    Topic(#[from] TopicError),
    /// The broker settings are unusable.
    #[error("{0}")]
    Settings(#[from] SettingsError),
    /// The embedded broker did not start.
    #[error("{0}")]
    Broker(#[from] super::broker::BrokerError),
    /// The publisher did not start (TLS files).
    #[error("{0}")]
    Publisher(#[from] super::publisher::PublisherError),
}

/// MQTT as the board service runs it: the embedded broker (with `mqtt.url = "embedded"`),
/// the publisher reading the journal, and the task following the service's outputs.
pub struct MqttService {
    /// The embedded broker, when configured; it lives as long as the process.
    pub broker: Option<super::broker::EmbeddedBroker>,
    /// The publisher.
    pub publisher: super::publisher::Publisher,
    follower: tokio::task::JoinHandle<()>,
}

impl MqttService {
    /// Starts everything on the current tokio runtime. Acknowledgements are kept in
    /// `storage.dir/mqtt-acked`; valid commands go to `commands`.
    pub fn start(
        config: &Config,
        journal: JournalReader,
        outputs: Outputs,
        commands: tokio::sync::mpsc::Sender<super::commands::CommandRequest>,
        version: &str,
    ) -> Result<MqttService, WiringError> {
        let topics = topics(config)?;
        let settings = settings(config)?;
        let broker = match embedded_listen(config) {
            Some(addr) => Some(super::broker::EmbeddedBroker::start(
                addr,
                settings.max_packet_size,
            )?),
            None => None,
        };
        let publisher = super::publisher::Publisher::start(
            settings,
            super::publisher::PublisherParts {
                topics,
                source: std::sync::Arc::new(journal),
                ack_file: Some(super::outbox::AckFile::new(
                    config.storage.dir.join("mqtt-acked"),
                )),
                commands: Some(commands),
                version: version.to_string(),
            },
        )?;
        let follower = tokio::spawn(follow_outputs(publisher.handle(), outputs));
        Ok(MqttService {
            broker,
            publisher,
            follower,
        })
    }

    /// Stops cleanly: `offline` on `status`, everything acknowledged (at most `timeout`),
    /// DISCONNECT.
    pub async fn shutdown(
        self,
        timeout: std::time::Duration,
    ) -> Result<(), super::publisher::PublisherError> {
        self.follower.abort();
        self.publisher.shutdown(timeout).await
    }
}

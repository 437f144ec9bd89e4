//! Wiring for the board service: the MQTT settings and topics from the config, the journal
//! as the event source, and a task that follows the service's outputs (events, state, SGF)
//! into the publisher, keeping `alerts/active` from the alert events.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde_json::Value;
use tokio::sync::broadcast::error::RecvError;

use super::publisher::{PublisherHandle, Retained};
use super::settings::{BrokerUrl, MqttSettings, SettingsError, TlsFiles};
use super::source::EventSource;
use super::topics::{TopicError, Topics};
use crate::config::{Config, MqttUrl};
use crate::event::{Envelope, Event};
use crate::journal::JournalReader;
use crate::service::outputs::Outputs;

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
    s.senders = crate::sender::policy(m)?;
    if let (Some(user), Some(file)) = (&m.username, &m.password_file) {
        s = s.with_password_file(user, file)?;
    } else if let Some(user) = &m.username {
        s.credentials = Some((user.clone(), String::new()));
    }
    Ok(s)
}

/// The alerts open right now, kept from the event stream (SPEC.md `alerts/active`).
#[derive(Debug, Clone, Default)]
pub struct ActiveAlerts {
    open: BTreeMap<String, Value>,
}

impl ActiveAlerts {
    /// Takes one event into account; true when the set changed.
    pub fn apply(&mut self, envelope: &Envelope) -> bool {
        match &envelope.event {
            Event::Alert { id, .. } => {
                let v = serde_json::to_value(envelope).unwrap_or(Value::Null);
                self.open.insert(id.clone(), v);
                true
            }
            Event::AlertCleared { id, .. } => self.open.remove(id).is_some(),
            Event::GameStarted { .. } => {
                let changed = !self.open.is_empty();
                self.open.clear();
                changed
            }
            _ => false,
        }
    }

    /// The JSON array of the open alerts' events, oldest id first.
    pub fn to_json(&self) -> String {
        Value::Array(self.open.values().cloned().collect()).to_string()
    }
}

/// Follows the service's outputs into the publisher until the event channel closes:
/// every event (a lagging follower wakes the publisher, which re-reads the journal), the
/// state snapshot, the SGF and the open alerts. `history` are the current game's events
/// already in the journal, to rebuild the open alerts after a restart.
pub async fn follow_outputs(publisher: PublisherHandle, outputs: Outputs, history: Vec<Envelope>) {
    let mut events = outputs.subscribe_events();
    let mut state = outputs.subscribe_state();
    let mut sgf = outputs.subscribe_sgf();
    let mut alerts = ActiveAlerts::default();
    for e in &history {
        alerts.apply(e);
    }
    let snapshot = |state: &Value, sgf: &String, alerts: &ActiveAlerts| Retained {
        state: (!state.is_null()).then(|| state.to_string()),
        sgf: (!sgf.is_empty()).then(|| sgf.clone()),
        alerts_active: Some(alerts.to_json()),
    };
    publisher.set_retained(snapshot(
        &state.borrow_and_update(),
        &sgf.borrow_and_update(),
        &alerts,
    ));
    publisher.wake();
    loop {
        tokio::select! {
            e = events.recv() => match e {
                Ok(envelope) => {
                    if alerts.apply(&envelope) {
                        publisher.set_retained(Retained {
                            alerts_active: Some(alerts.to_json()),
                            ..Retained::default()
                        });
                    }
                    publisher.publish_event(envelope);
                }
                Err(RecvError::Lagged(_)) => publisher.wake(),
                Err(RecvError::Closed) => return,
            },
            changed = state.changed() => {
                if changed.is_err() { return; }
                let v = state.borrow_and_update().clone();
                if !v.is_null() {
                    publisher.set_retained(Retained { state: Some(v.to_string()), ..Retained::default() });
                }
            }
            changed = sgf.changed() => {
                if changed.is_err() { return; }
                let s = sgf.borrow_and_update().clone();
                if !s.is_empty() {
                    publisher.set_retained(Retained { sgf: Some(s), ..Retained::default() });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::AlertCode;

    use crate::event::test_envelope as env;

    fn alert(id: &str) -> Event {
        Event::Alert {
            id: id.into(),
            code: AlertCode::Ko,
            article: "18.3".into(),
            color: None,
            points: vec!["D4".into()],
            expected: BTreeMap::new(),
            message: "Ko.".into(),
        }
    }

    #[test]
    fn active_alerts_follow_the_stream() {
        let mut a = ActiveAlerts::default();
        assert_eq!(a.to_json(), "[]");
        assert!(a.apply(&env(1, alert("a1"))));
        assert!(a.apply(&env(2, alert("a2"))));
        let cleared = Event::AlertCleared {
            id: "a1".into(),
            how: "restored".into(),
        };
        assert!(a.apply(&env(3, cleared.clone())));
        assert!(!a.apply(&env(4, cleared)), "clearing twice changes nothing");
        let v: Value = serde_json::from_str(&a.to_json()).unwrap();
        let ids: Vec<&str> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["a2"]);
        assert_eq!(v[0]["seq"], 2);
        let started = crate::event::test_game_started(19);
        assert!(a.apply(&env(5, started)));
        assert_eq!(a.to_json(), "[]");
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
        let history = journal.current_game().unwrap_or_else(|e| {
            tracing::warn!("{e}; open alerts start empty");
            Vec::new()
        });
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
        let follower = tokio::spawn(follow_outputs(publisher.handle(), outputs, history));
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

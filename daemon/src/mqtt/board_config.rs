//! MQTT from the board's config: the topics, the publisher's settings, and the journal as
//! the event source (its records byte for byte). The one wiring of all this into a running
//! service is `crate::service::links`.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use tengen_net::broker::{BrokerUrl, TlsFiles};
use tengen_protocol::topics::TopicError;
use tengen_protocol::Topics;

use super::settings::{MqttSettings, SettingsError};
use super::source::{EventSource, Record, SourceError};
use crate::config::{Config, MqttUrl};
use crate::journal::JournalReader;

impl EventSource for JournalReader {
    fn read_from(&self, from: u64, max: usize) -> Result<Vec<Record>, SourceError> {
        self.read_raw(from.max(1), max)?
            .into_iter()
            .map(|(_, json)| Record::from_json(json))
            .collect()
    }

    fn last_seq(&self) -> u64 {
        JournalReader::last_seq(self)
    }
}

/// The board's topics from `board.id`, `board.tournament` and `mqtt.prefix`.
pub(crate) fn topics(config: &Config) -> Result<Topics, TopicError> {
    Topics::new(
        &config.mqtt.prefix,
        &config.board.tournament,
        &config.board.id,
    )
}

/// The publisher's settings from `[mqtt]`: the external broker of `mqtt.url`, or with
/// `mqtt.url = "embedded"` the embedded broker listening on `listen` (reached on the
/// loopback when it listens on every address).
pub(crate) fn settings(config: &Config, listen: SocketAddr) -> Result<MqttSettings, SettingsError> {
    let m = &config.mqtt;
    let url = match &m.url {
        MqttUrl::Embedded => {
            let mut a = listen;
            if a.ip().is_unspecified() {
                a.set_ip(Ipv4Addr::LOCALHOST.into());
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
    s.keepalive = Duration::from_millis(m.keepalive_ms);
    s.tls = TlsFiles {
        ca_file: m.ca_file.clone(),
        cert_file: m.cert_file.clone(),
        key_file: m.key_file.clone(),
    };
    s.senders = config.sender_policy().map_err(SettingsError::CommandKey)?;
    s.command_window_ms = m.command_window_ms;
    if let (Some(user), Some(file)) = (&m.username, &m.password_file) {
        s = s.with_password_file(user, file)?;
    } else if let Some(user) = &m.username {
        s.credentials = Some((user.clone(), String::new()));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;
    use tengen_protocol::event::BoardState;
    use tengen_protocol::{Event, Timestamp};

    #[test]
    fn the_journal_gives_its_records_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, _) = Journal::open(dir.path(), "b1").unwrap();
        let time = Timestamp::parse("2026-11-29T13:45:01.250Z").unwrap();
        for _ in 0..3 {
            journal
                .append(Event::status(BoardState::Online, "0.1.0"), time)
                .unwrap();
        }
        let reader = journal.reader();
        assert_eq!(EventSource::last_seq(&reader), 3);
        let raw = reader.read_raw_from(2).unwrap();
        let records = EventSource::read_from(&reader, 2, 1).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].seq, 2);
        assert_eq!(records[0].json, raw[0].1);
        assert_eq!(records[0].kind, crate::mqtt::source::RecordKind::Status);
        assert_eq!(EventSource::read_from(&reader, 0, 10).unwrap().len(), 3);
        assert!(EventSource::read_from(&reader, 4, 10).unwrap().is_empty());
    }

    #[test]
    fn the_embedded_broker_is_reached_on_the_loopback() {
        let config = Config::default_for("b1");
        let s = settings(&config, "0.0.0.0:1884".parse().unwrap()).unwrap();
        assert_eq!((s.url.host.as_str(), s.url.port), ("127.0.0.1", 1884));
        assert_eq!(s.client_id, "tengen-b1");
    }
}

//! How one board reaches its broker: URL, client id, credentials, TLS, timing.

use std::time::Duration;

use tengen_net::backoff::Backoff;
use tengen_net::broker::{BadUrl, BrokerUrl, TlsFiles};
use tengen_net::secrets::{read_password_file, SecretError};
use tengen_protocol::signing::SenderPolicy;
use thiserror::Error;

/// Why the MQTT settings are unusable.
#[derive(Debug, Error)]
pub enum SettingsError {
    /// The broker URL is not `mqtt://host[:port]` or `mqtts://host[:port]`.
    #[error("mqtt.url: {0}")]
    BadUrl(#[from] BadUrl),
    /// The password file could not be read.
    #[error("mqtt.password_file: {0}")]
    PasswordFile(SecretError),
    /// The command key file is unusable.
    #[error("mqtt.command_key_file: {0}")]
    CommandKey(SecretError),
}

/// Everything the publisher needs to reach a broker.
#[derive(Debug, Clone)]
pub struct MqttSettings {
    /// The broker.
    pub url: BrokerUrl,
    /// Stable per board so the broker keeps the session (`tengen-{board}` by default).
    pub client_id: String,
    /// Keep-alive interval.
    pub keepalive: Duration,
    /// User name and password, if the broker wants them.
    pub credentials: Option<(String, String)>,
    /// TLS files (used when the URL is `mqtts`).
    pub tls: TlsFiles,
    /// Largest packet accepted and sent (a whole SGF must fit): 1 MiB by default.
    pub max_packet_size: usize,
    /// Reconnect back-off.
    pub backoff: Backoff,
    /// Publishes of events in flight (sent, not acknowledged) at most; an alert's two
    /// copies count twice.
    pub window: usize,
    /// Who may send commands (`mqtt.arbiters`, `mqtt.command_key_file`); open by default.
    pub senders: SenderPolicy,
    /// How far a signed command's `at` may be from the board's clock, either way
    /// (`mqtt.command_window`): 5 minutes by default.
    pub command_window_ms: u64,
}

impl MqttSettings {
    /// Defaults for `url` and the board `board_id`: client id `tengen-{board_id}`, 30 s
    /// keep-alive, 1 MiB packets, 500 ms..30 s back-off, no credentials, no TLS files.
    pub fn new(url: BrokerUrl, board_id: &str) -> MqttSettings {
        MqttSettings {
            url,
            client_id: format!("tengen-{board_id}"),
            keepalive: Duration::from_secs(30),
            credentials: None,
            tls: TlsFiles::default(),
            max_packet_size: 1 << 20,
            backoff: Backoff::default(),
            window: 64,
            senders: SenderPolicy::default(),
            command_window_ms: tengen_protocol::signing::DEFAULT_WINDOW_MS,
        }
    }

    /// Sets the user name and reads the password from `password_file` (one line; a trailing
    /// newline is not part of it).
    pub fn with_password_file(
        mut self,
        username: &str,
        password_file: &std::path::Path,
    ) -> Result<MqttSettings, SettingsError> {
        let password = read_password_file(password_file).map_err(SettingsError::PasswordFile)?;
        self.credentials = Some((username.to_string(), password));
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_password_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pw");
        std::fs::write(&p, "s3cret\n").unwrap();
        let s = MqttSettings::new(BrokerUrl::parse("mqtt://h").unwrap(), "b1")
            .with_password_file("b1", &p)
            .unwrap();
        assert_eq!(s.credentials, Some(("b1".into(), "s3cret".into())));
        assert_eq!(s.client_id, "tengen-b1");
        let e = MqttSettings::new(BrokerUrl::parse("mqtt://h").unwrap(), "b1")
            .with_password_file("b1", &dir.path().join("missing"))
            .unwrap_err();
        assert!(e.to_string().starts_with("mqtt.password_file: "), "{e}");
    }
}

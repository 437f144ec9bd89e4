//! How one board reaches its broker: URL, client id, credentials, TLS, timing.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

use super::backoff::Backoff;

/// Why the MQTT settings are unusable.
#[derive(Debug, Error)]
pub enum SettingsError {
    /// The broker URL is not `mqtt://host[:port]` or `mqtts://host[:port]`.
    #[error("mqtt.url: {0:?} is not mqtt://host:port or mqtts://host:port")]
    BadUrl(String),
    /// The password file could not be read.
    #[error("mqtt.password_file: {path}: {source}")]
    PasswordFile {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The command key file is unusable.
    #[error("mqtt.command_key_file: {0}")]
    CommandKey(#[from] crate::sender::KeyError),
}

/// A broker address parsed from `mqtt://host:port` or `mqtts://host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerUrl {
    /// Host name or IP address (without brackets for IPv6).
    pub host: String,
    /// TCP port (1883 for `mqtt`, 8883 for `mqtts` when not given).
    pub port: u16,
    /// `mqtts`: TLS.
    pub tls: bool,
}

impl BrokerUrl {
    /// Parses `mqtt://host[:port]` or `mqtts://host[:port]` (a trailing `/` is allowed).
    pub fn parse(url: &str) -> Result<BrokerUrl, SettingsError> {
        let bad = || SettingsError::BadUrl(url.to_string());
        let (tls, rest) = if let Some(r) = url.strip_prefix("mqtts://") {
            (true, r)
        } else if let Some(r) = url.strip_prefix("mqtt://") {
            (false, r)
        } else {
            return Err(bad());
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = if let Some(r) = rest.strip_prefix('[') {
            let (h, after) = r.split_once(']').ok_or_else(bad)?;
            (h, after.strip_prefix(':'))
        } else {
            match rest.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        if host.is_empty() || host.contains(['/', '@', '?', '#', ' ']) {
            return Err(bad());
        }
        let port = match port {
            Some(p) => p.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(bad)?,
            None if tls => 8883,
            None => 1883,
        };
        Ok(BrokerUrl {
            host: host.to_string(),
            port,
            tls,
        })
    }
}

/// TLS material, as PEM files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsFiles {
    /// CA certificates to trust (the system's web roots are not used).
    pub ca_file: Option<PathBuf>,
    /// Client certificate chain, for brokers that authenticate boards by certificate.
    pub cert_file: Option<PathBuf>,
    /// The client certificate's private key.
    pub key_file: Option<PathBuf>,
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
    /// Events in flight (sent, not acknowledged) at most.
    pub window: usize,
    /// Who may send commands (`mqtt.arbiters`, `mqtt.command_key_file`); open by default.
    pub senders: crate::sender::SenderPolicy,
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
            senders: crate::sender::SenderPolicy::default(),
        }
    }

    /// Sets the user name and reads the password from `password_file` (one line; a trailing
    /// newline is not part of it).
    pub fn with_password_file(
        mut self,
        username: &str,
        password_file: &std::path::Path,
    ) -> Result<MqttSettings, SettingsError> {
        let password = read_password_file(password_file)?;
        self.credentials = Some((username.to_string(), password));
        Ok(self)
    }
}

/// The password in `path`: its first line (a trailing newline is not part of it).
pub fn read_password_file(path: &std::path::Path) -> Result<String, SettingsError> {
    let text = std::fs::read_to_string(path).map_err(|source| SettingsError::PasswordFile {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(text.trim_end_matches(['\n', '\r']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_broker_urls() {
        let u = BrokerUrl::parse("mqtt://127.0.0.1:1884").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.tls), ("127.0.0.1", 1884, false));
        let u = BrokerUrl::parse("mqtts://broker.hall.lan").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.tls),
            ("broker.hall.lan", 8883, true)
        );
        let u = BrokerUrl::parse("mqtt://hall/").unwrap();
        assert_eq!(u.port, 1883);
        let u = BrokerUrl::parse("mqtt://[::1]:1999").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 1999));
        for bad in [
            "tcp://x:1",
            "mqtt://",
            "mqtt://h:0",
            "mqtt://h:99999",
            "mqtt://h:x",
            "mqtt://u@h:1",
            "embedded",
        ] {
            let e = BrokerUrl::parse(bad).unwrap_err();
            assert!(e.to_string().starts_with("mqtt.url: "), "{e}");
        }
    }

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

//! Where a broker is: `mqtt://host[:port]` or `mqtts://host[:port]`, and the TLS files
//! for `mqtts`.

use std::path::PathBuf;

use thiserror::Error;

/// A broker URL that is not `mqtt://host[:port]` or `mqtts://host[:port]`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0:?} is not mqtt://host:port or mqtts://host:port")]
pub struct BadUrl(pub String);

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
    pub fn parse(url: &str) -> Result<BrokerUrl, BadUrl> {
        let bad = || BadUrl(url.to_string());
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
            assert!(
                e.to_string()
                    .ends_with("is not mqtt://host:port or mqtts://host:port"),
                "{e}"
            );
        }
    }
}

//! Why a broker connection fails, in words an operator can act on, said once: a refused
//! login, a TLS listener spoken to in plain MQTT (or the reverse), a broker certificate from
//! another CA or for another name, nothing listening. [`explain`] turns rumqttc's error into
//! that line; [`LinkReport`] logs it when the reason changes (not on every retry) and keeps
//! the link's state for a status page (the board's `/api/mqtt`, the hall's `/api/broker`).

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rumqttc::{ConnectReturnCode, ConnectionError, StateError, TlsError as RumqttcTls};
use rustls::CertificateError;
use serde::Serialize;

use crate::broker::BrokerUrl;

/// What a connection attempt was made with, to name it in the explanation.
#[derive(Debug, Clone)]
pub struct Target {
    /// The broker.
    pub url: BrokerUrl,
    /// The MQTT user name, if any.
    pub username: Option<String>,
    /// The CA file the broker's certificate is checked against (`mqtts`).
    pub ca_file: Option<PathBuf>,
}

impl Target {
    fn host_port(&self) -> String {
        if self.url.host.contains(':') {
            format!("[{}]:{}", self.url.host, self.url.port)
        } else {
            format!("{}:{}", self.url.host, self.url.port)
        }
    }

    /// The URL as written in a config: `mqtt://host:port` or `mqtts://host:port`.
    pub fn url_text(&self) -> String {
        let scheme = if self.url.tls { "mqtts" } else { "mqtt" };
        format!("{scheme}://{}", self.host_port())
    }
}

/// One line saying why a connection attempt to `target` failed with `e` (before the broker
/// accepted it; a connection lost later is said with rumqttc's own words).
pub fn explain(e: &ConnectionError, target: &Target) -> String {
    match e {
        ConnectionError::ConnectionRefused(code) => refused(*code, target),
        ConnectionError::NetworkTimeout => {
            format!("no answer from {} in time", target.host_port())
        }
        ConnectionError::Io(io) => io_reason(io, target),
        ConnectionError::Tls(RumqttcTls::Io(io)) => io_reason(io, target),
        ConnectionError::Tls(RumqttcTls::TLS(r)) => tls_reason(r, target),
        ConnectionError::MqttState(StateError::Io(io)) => io_reason(io, target),
        ConnectionError::MqttState(StateError::ConnectionAborted)
        | ConnectionError::MqttState(StateError::Deserialization(_))
        | ConnectionError::NotConnAck(_) => hung_up(target, &e.to_string()),
        other => format!("{}: {other}", target.host_port()),
    }
}

fn refused(code: ConnectReturnCode, target: &Target) -> String {
    match (code, &target.username) {
        (ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized, Some(u)) => {
            format!(
                "the broker refused the login of user {u:?} (CONNACK {code:?}): wrong user \
                 name or password (mqtt.username, mqtt.password_file), or a user the broker \
                 does not know"
            )
        }
        (ConnectReturnCode::BadUserNamePassword | ConnectReturnCode::NotAuthorized, None) => {
            format!(
                "the broker wants a login (CONNACK {code:?}): set mqtt.username and \
                 mqtt.password_file"
            )
        }
        (ConnectReturnCode::BadClientId, _) => {
            "the broker refused the client id (CONNACK BadClientId)".to_string()
        }
        (code, _) => format!("the broker refused the connection (CONNACK {code:?})"),
    }
}

fn io_reason(io: &io::Error, target: &Target) -> String {
    if let Some(r) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        return tls_reason(r, target);
    }
    match io.kind() {
        io::ErrorKind::ConnectionRefused => format!(
            "nothing listens on {} (connection refused): is the broker running, is the \
             port right?",
            target.host_port()
        ),
        io::ErrorKind::ConnectionReset
        | io::ErrorKind::ConnectionAborted
        | io::ErrorKind::UnexpectedEof
        | io::ErrorKind::BrokenPipe => hung_up(target, &io.to_string()),
        _ => format!("{}: {io}", target.host_port()),
    }
}

/// The broker took the TCP connection and dropped it before answering.
fn hung_up(target: &Target, detail: &str) -> String {
    if target.url.tls {
        format!(
            "{} hung up during the TLS handshake ({detail}): is it a TLS listener? A plain \
             MQTT port needs mqtt://",
            target.host_port()
        )
    } else {
        format!(
            "{} hung up on the MQTT CONNECT ({detail}): if it is a TLS listener, the url \
             must be mqtts://{} with mqtt.ca_file",
            target.host_port(),
            target.host_port()
        )
    }
}

fn tls_reason(r: &rustls::Error, target: &Target) -> String {
    let ca = target
        .ca_file
        .as_ref()
        .map_or_else(|| "mqtt.ca_file".to_string(), |p| p.display().to_string());
    match r {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer | CertificateError::BadSignature => format!(
                "the broker's certificate does not verify: it is not signed by the CA in {ca} \
                 (another CA, or the wrong ca_file)"
            ),
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!(
                    "the broker's certificate does not verify: it is not issued for {:?} \
                     (connect by a name or address in its subjectAltName)",
                    target.url.host
                )
            }
            CertificateError::Expired
            | CertificateError::ExpiredContext { .. }
            | CertificateError::NotValidYet
            | CertificateError::NotValidYetContext { .. } => format!(
                "the broker's certificate does not verify: expired or not valid yet ({c:?}; \
                 check this machine's clock)"
            ),
            other => format!("the broker's certificate does not verify: {other:?}"),
        },
        rustls::Error::AlertReceived(alert) => format!(
            "the broker refused the TLS handshake (alert {alert:?}): a client certificate \
             missing, or not signed by the CA the broker trusts?"
        ),
        rustls::Error::InvalidMessage(_) => format!(
            "{} does not speak TLS: if it is a plain MQTT listener, the url must be \
             mqtt://{}",
            target.host_port(),
            target.host_port()
        ),
        other => format!("TLS with {}: {other}", target.host_port()),
    }
}

/// The state of one broker connection, as a status page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkStatus {
    /// The broker, `mqtt://host:port` or `mqtts://host:port`.
    pub broker: String,
    /// Whether the broker accepted the connection (CONNACK) and it is up.
    pub connected: bool,
    /// Why it is not, in one line ([`explain`]); `None` while connected or before the
    /// first attempt ended.
    pub error: Option<String>,
}

/// Keeps a link's [`LinkStatus`] and logs each reason once: a failure with the same reason
/// as the previous attempt is not said again; a new reason, a connection and the next
/// failure after it are.
#[derive(Debug, Clone)]
pub struct LinkReport {
    who: &'static str,
    status: Arc<Mutex<LinkStatus>>,
}

impl LinkReport {
    /// A link to `broker` (as written in the config), not connected yet; `who` starts each
    /// log line (`MQTT`, `hall MQTT`).
    pub fn new(who: &'static str, broker: String) -> LinkReport {
        LinkReport {
            who,
            status: Arc::new(Mutex::new(LinkStatus {
                broker,
                connected: false,
                error: None,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LinkStatus> {
        self.status.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The broker accepted the connection.
    pub fn connected(&self) {
        let mut s = self.lock();
        if !s.connected {
            tracing::info!("{} {}: connected", self.who, s.broker);
        }
        s.connected = true;
        s.error = None;
    }

    /// An attempt to connect failed for `why` ([`explain`]); logged when the reason is new.
    pub fn failed(&self, why: String) {
        let mut s = self.lock();
        if s.error.as_deref() != Some(why.as_str()) {
            tracing::warn!("{} {}: {why}", self.who, s.broker);
        }
        s.connected = false;
        s.error = Some(why);
    }

    /// A connection that was up dropped (`why`: what the client said).
    pub fn lost(&self, why: &str) {
        let mut s = self.lock();
        let line = format!("connection lost: {why}");
        tracing::warn!("{} {}: {line}", self.who, s.broker);
        s.connected = false;
        s.error = Some(line);
    }

    /// The state now.
    pub fn status(&self) -> LinkStatus {
        self.lock().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str, user: Option<&str>) -> Target {
        Target {
            url: BrokerUrl::parse(url).unwrap(),
            username: user.map(str::to_string),
            ca_file: Some(PathBuf::from("/etc/tengen/hall-ca.pem")),
        }
    }

    #[test]
    fn each_failure_is_one_line_naming_what_to_fix() {
        let t = target("mqtt://10.0.0.2:1883", Some("hall1-07"));
        let e = ConnectionError::ConnectionRefused(ConnectReturnCode::NotAuthorized);
        let line = explain(&e, &t);
        assert!(
            line.starts_with("the broker refused the login of user \"hall1-07\""),
            "{line}"
        );
        let e = ConnectionError::MqttState(StateError::Io(io::Error::from(
            io::ErrorKind::ConnectionReset,
        )));
        let line = explain(&e, &t);
        assert!(line.contains("must be mqtts://10.0.0.2:1883"), "{line}");
        let e = ConnectionError::Io(io::Error::from(io::ErrorKind::ConnectionRefused));
        assert!(explain(&e, &t).starts_with("nothing listens on 10.0.0.2:1883"));
        let t = target("mqtts://broker.hall.lan", None);
        let e = ConnectionError::Tls(RumqttcTls::Io(io::Error::new(
            io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
        )));
        let line = explain(&e, &t);
        assert!(
            line.contains("not signed by the CA in /etc/tengen/hall-ca.pem"),
            "{line}"
        );
        assert!(!line.contains('\n'));
    }

    #[test]
    fn a_reason_is_said_once_until_it_changes() {
        let r = LinkReport::new("MQTT", "mqtt://h:1".into());
        r.failed("a".into());
        r.failed("a".into());
        assert_eq!(r.status().error.as_deref(), Some("a"));
        r.connected();
        assert_eq!(
            r.status(),
            LinkStatus {
                broker: "mqtt://h:1".into(),
                connected: true,
                error: None
            }
        );
    }
}

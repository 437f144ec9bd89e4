//! The embedded broker (`mqtt.url = "embedded"`): rumqttd in-process on `mqtt.listen`, so a
//! board at a club needs nothing else installed. It has no shutdown API: it lives as long as
//! the process.

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

use rumqttd::{Config, ConnectionSettings, RouterConfig, ServerSettings};
use thiserror::Error;

/// Why the embedded broker did not start.
#[derive(Debug, Error)]
pub enum BrokerError {
    /// The listen address is taken or not ours.
    #[error("mqtt.listen: cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The error.
        source: std::io::Error,
    },
    /// The broker thread could not be started or stopped early.
    #[error("embedded MQTT broker on {addr}: {message}")]
    Start {
        /// The address.
        addr: SocketAddr,
        /// What happened.
        message: String,
    },
}

/// The rumqttd configuration for one MQTT 3.1.1 listener on `listen`, accepting packets up to
/// `max_packet_size` bytes (a whole SGF).
pub fn config(listen: SocketAddr, max_packet_size: usize) -> Config {
    let connections = ConnectionSettings {
        connection_timeout_ms: 60_000,
        max_payload_size: max_packet_size,
        max_inflight_count: 100,
        auth: None,
        external_auth: None,
        dynamic_filters: true,
    };
    let server = ServerSettings {
        name: "tengen-v4".to_string(),
        listen,
        tls: None,
        next_connection_delay_ms: 1,
        connections,
    };
    Config {
        id: 0,
        router: RouterConfig {
            max_connections: 1000,
            max_outgoing_packet_count: 200,
            max_segment_size: (4 * max_packet_size).max(1 << 20),
            max_segment_count: 10,
            ..RouterConfig::default()
        },
        v4: Some(HashMap::from([("1".to_string(), server)])),
        ..Config::default()
    }
}

/// The embedded broker, started on its own thread.
#[derive(Debug)]
pub struct EmbeddedBroker {
    addr: SocketAddr,
}

impl EmbeddedBroker {
    /// Starts rumqttd on `listen` and waits (up to 5 s) until it accepts connections.
    pub fn start(
        listen: SocketAddr,
        max_packet_size: usize,
    ) -> Result<EmbeddedBroker, BrokerError> {
        // rumqttd only logs a bind failure from its server thread: check first so the
        // operator gets a clear error.
        drop(
            TcpListener::bind(listen).map_err(|source| BrokerError::Bind {
                addr: listen,
                source,
            })?,
        );
        let cfg = config(listen, max_packet_size);
        let thread = std::thread::Builder::new()
            .name("mqtt-broker".to_string())
            .spawn(move || {
                let mut broker = rumqttd::Broker::new(cfg);
                if let Err(e) = broker.start() {
                    tracing::error!("embedded MQTT broker stopped: {e}");
                }
            })
            .map_err(|e| BrokerError::Start {
                addr: listen,
                message: e.to_string(),
            })?;
        let deadline = Instant::now() + Duration::from_secs(5);
        let probe = connect_addr(listen);
        loop {
            if TcpStream::connect_timeout(&probe, Duration::from_millis(200)).is_ok() {
                return Ok(EmbeddedBroker { addr: listen });
            }
            if thread.is_finished() || Instant::now() > deadline {
                return Err(BrokerError::Start {
                    addr: listen,
                    message: "not accepting connections".to_string(),
                });
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The URL a client on this machine uses to reach it.
    pub fn url(&self) -> String {
        let a = connect_addr(self.addr);
        match a {
            SocketAddr::V4(v4) => format!("mqtt://{}:{}", v4.ip(), v4.port()),
            SocketAddr::V6(v6) => format!("mqtt://[{}]:{}", v6.ip(), v6.port()),
        }
    }
}

/// Where to connect to reach a listener on `listen` (`0.0.0.0` means this machine).
fn connect_addr(listen: SocketAddr) -> SocketAddr {
    let mut a = listen;
    if a.ip().is_unspecified() {
        a.set_ip(match a {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    a
}

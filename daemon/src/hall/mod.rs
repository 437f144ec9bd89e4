//! `tengen hall`: every board under the MQTT prefix in one place, for viewers and arbiters.
//!
//! - [`topic`]: which board and topic a message came on.
//! - [`board`]: one board rebuilt from its topics (live feed, status, alerts, history).
//! - [`state`]: the whole hall, sans-IO: messages in, commands out.
//! - [`commands`]: the commands sent and whether the board acknowledged them.
//! - [`client`]: the MQTT client (rumqttc, its own task).
//! - [`auth`]: arbiter passwords/tokens and console sessions.
//! - [`config`]: the hall's TOML file.
//! - [`overview`]: `/api/boards`, built at most once a second for every viewer.
//! - [`delay`]: the broadcast delay: which events the public may see now.
//! - [`public`]: a board as the public sees it (state and SGF rebuilt from released events).
//! - [`web`]: the HTTP routes: overview, per-board pages, round zips, the console.
//!
//! The hall keeps nothing on disk: it rebuilds everything from the broker's retained topics
//! (and, with an identity, the boards' republished events), so several can run side by
//! side and a restarted one catches up by itself.

pub mod auth;
pub mod board;
pub mod client;
pub mod commands;
pub mod config;
pub mod delay;
pub mod overview;
pub mod public;
pub mod state;
pub mod topic;
pub mod web;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::Rng;
use thiserror::Error;

use self::client::{ClientSettings, MqttLink, Shared};
use self::config::HallConfig;
use self::state::HallState;
use crate::mqtt::settings::{BrokerUrl, SettingsError};
use crate::mqtt::tls::TlsError;

/// Why the hall could not start.
#[derive(Debug, Error)]
pub enum HallError {
    /// `--broker` is not `mqtt://host:port` / `mqtts://host:port`.
    #[error("--broker: {0:?} is not mqtt://host:port or mqtts://host:port")]
    BadBroker(String),
    /// The broker password file could not be read.
    #[error("{0}")]
    Password(#[from] SettingsError),
    /// The TLS files are unusable.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// The HTTP address could not be bound.
    #[error("--http {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The error.
        source: std::io::Error,
    },
    /// The MQTT client has stopped.
    #[error("MQTT: {0}")]
    Mqtt(String),
    /// `hall.command_key_file` is unusable.
    #[error("hall.command_key_file: {0}")]
    CommandKey(#[from] crate::sender::KeyError),
}

/// A running hall: the MQTT client and the HTTP server.
pub struct RunningHall {
    /// The HTTP address actually bound (useful with port 0).
    pub addr: SocketAddr,
    /// The hall's state (for tests and tools).
    pub state: Shared,
    mqtt: Arc<MqttLink>,
    http: tokio::task::JoinHandle<()>,
}

impl RunningHall {
    /// Stops the HTTP server and the MQTT client.
    pub fn stop(self) {
        self.http.abort();
        match Arc::try_unwrap(self.mqtt) {
            Ok(link) => link.stop(),
            Err(_) => tracing::debug!("MQTT client still shared; it stops with the runtime"),
        }
    }
}

/// Starts the hall on the current tokio runtime: connects to `broker` (in the background,
/// with back-off) and serves HTTP on `http`.
pub async fn start(
    broker: &str,
    http: &str,
    config: &HallConfig,
) -> Result<RunningHall, HallError> {
    let url = BrokerUrl::parse(broker).map_err(|_| HallError::BadBroker(broker.to_string()))?;
    let tag: String = {
        let bytes: [u8; 4] = rand::rng().random();
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    };
    let client_id = config
        .mqtt
        .client_id
        .clone()
        .unwrap_or_else(|| format!("tengen-hall-{tag}"));
    let credentials = match (&config.mqtt.username, &config.mqtt.password_file) {
        (Some(user), Some(file)) => Some((
            user.clone(),
            crate::mqtt::settings::read_password_file(file)?,
        )),
        (Some(user), None) => Some((user.clone(), String::new())),
        _ => None,
    };
    let settings = ClientSettings {
        url,
        client_id: client_id.clone(),
        credentials,
        tls: config.mqtt.tls(),
    };
    let command_key = match &config.hall.command_key_file {
        Some(path) => Some(crate::sender::read_key(path)?),
        None => None,
    };
    // Command ids must not repeat across restarts (a board answers a repeated id from memory
    // instead of carrying it out), so a configured client id gets this run's tag too.
    let id_tag = match &config.mqtt.client_id {
        Some(_) => format!("{client_id}-{tag}"),
        None => client_id.clone(),
    };
    let state: Shared = Arc::new(Mutex::new(
        HallState::new(&config.mqtt.prefix, config.hall.identity.clone(), &id_tag)
            .with_broadcast(config.broadcast.as_ref())
            .with_command_key(command_key),
    ));
    let listener = tokio::net::TcpListener::bind(http)
        .await
        .map_err(|source| HallError::Bind {
            addr: http.to_string(),
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| HallError::Bind {
        addr: http.to_string(),
        source,
    })?;
    let mqtt = Arc::new(MqttLink::start(&settings, state.clone())?);
    let lifetime = Duration::from_secs(config.hall.session_hours.unwrap_or(12) * 3600);
    let app = web::App {
        hall: state.clone(),
        mqtt: mqtt.clone(),
        arbiters: Arc::new(config.arbiter.clone()),
        sessions: Arc::new(Mutex::new(auth::Sessions::new(lifetime))),
        session_lifetime: lifetime,
        overview: Arc::default(),
    };
    let router = web::router(app);
    let http_task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::error!("hall http server stopped: {e}");
        }
    });
    tracing::info!("hall serving http://{addr}/ as MQTT client {client_id}");
    Ok(RunningHall {
        addr,
        state,
        mqtt,
        http: http_task,
    })
}

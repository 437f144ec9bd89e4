//! MQTT (SPEC.md, "MQTT"): the journal as outbox, the embedded broker and the `cmd` topic.
//!
//! - [`topics`]: the topic names under `{prefix}/{tournament}/{board}`.
//! - [`settings`]: broker URL, client id, credentials, TLS and back-off for one board.
//! - [`backoff`]: exponential reconnect back-off with random jitter.
//! - [`outbox`]: which `seq` the broker has acknowledged, persisted so a restart resends
//!   exactly the rest.
//! - [`publisher`]: the client itself: a rumqttc event loop in its own task and a controller
//!   task that publishes events in `seq` order, re-publishes the retained topics on every
//!   connection and resends what the broker did not acknowledge.
//! - [`commands`]: `cmd` payloads decoded and handed to the service, replies on `cmd/reply`.
//! - [`tls`]: rustls client configuration (ring provider) from PEM files.
//! - [`broker`]: the embedded rumqttd broker for `mqtt.url = "embedded"`.

pub mod backoff;
pub mod broker;
pub mod commands;
pub mod outbox;
pub mod publisher;
pub mod settings;
pub mod source;
pub mod tls;
pub mod topics;

pub use publisher::{Publisher, PublisherError, Retained};
pub use settings::MqttSettings;
pub use source::{EventSource, MemorySource};
pub use topics::Topics;

//! MQTT (docs/mqtt-http.md, "Topics"): the journal as outbox, the embedded broker and the `cmd` topic.
//!
//! - `source`: where events are read from (the journal, or memory), as records: each
//!   event's JSON byte for byte as written, with what the publisher needs to route it.
//! - `publisher_state`: the publisher's core, a sans-IO state machine: events in `seq`
//!   order within a window, acknowledgements, resends after a reconnect, the retained
//!   topics, commands and their answers, shutdown. Unit tested without sockets.
//! - `publisher`: the thin tokio driver around it: the rumqttc poller and the task that
//!   feeds the core and carries out what it asks.
//! - [`outbox`]: which `seq` the broker has acknowledged, persisted so a restart resends
//!   exactly the rest.
//! - [`commands`]: what goes to the service for a `cmd`, and the ids taken lately.
//! - [`taken_ids`]: the signed command ids taken within the window, kept beside the
//!   journal across restarts.
//! - `settings`: broker URL, client id, credentials, TLS and back-off for one board
//!   (the topic names are `tengen_protocol::topics`; URLs, TLS and back-off are
//!   `tengen_net`'s).
//! - `board_config`: topics and settings from the config, the journal as source; the one
//!   wiring into the running service is [`crate::service::links`].
//! - [`broker`]: the embedded rumqttd broker for `mqtt.url = "embedded"`.
//! - `batch`: a finished run's events to a broker, waiting for every acknowledgement.

pub(crate) mod batch;
pub(crate) mod board_config;
pub mod broker;
pub mod commands;
pub mod outbox;
pub(crate) mod publisher;
pub(crate) mod publisher_state;
pub(crate) mod settings;
pub(crate) mod source;
pub mod taken_ids;

pub use publisher::{Publisher, PublisherError, PublisherHandle, PublisherParts};
pub use publisher_state::{Retained, Unacknowledged};
pub use settings::MqttSettings;
pub use source::{EventSource, MemorySource, Record, RecordKind, SourceError};
pub use tengen_protocol::Topics;

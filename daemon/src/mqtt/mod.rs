//! MQTT (SPEC.md, "MQTT"): the journal as outbox, the embedded broker and the `cmd` topic.
//!
//! - [`settings`]: broker URL, client id, credentials, TLS and back-off for one board
//!   (the topic names are `tengen_protocol::topics`; URLs, TLS and back-off are
//!   `tengen_net`'s).
//! - [`outbox`]: which `seq` the broker has acknowledged, persisted so a restart resends
//!   exactly the rest.
//! - [`publisher`]: the client itself: a rumqttc event loop in its own task and a controller
//!   task that publishes events in `seq` order, re-publishes the retained topics on every
//!   connection and resends what the broker did not acknowledge.
//! - [`commands`]: `cmd` payloads decoded and handed to the service, replies on `cmd/reply`.
//! - [`broker`]: the embedded rumqttd broker for `mqtt.url = "embedded"`.
//! - [`batch`]: a finished run's events to a broker, waiting for every acknowledgement.
//! - [`wiring`]: settings and topics from the config, the journal as source, and the task
//!   that follows the service's outputs into the publisher.

pub mod batch;
pub mod broker;
pub mod commands;
pub mod outbox;
pub mod publisher;
pub mod settings;
pub mod source;
pub mod wiring;

pub use publisher::{Publisher, PublisherError, PublisherHandle, PublisherParts, Retained};
pub use settings::MqttSettings;
pub use source::{EventSource, MemorySource};
pub use tengen_protocol::Topics;

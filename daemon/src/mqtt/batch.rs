//! Publishing a finished run (`tengen sim --broker URL`): every event and the retained
//! topics to a broker, returning only when the broker acknowledged every QoS 1 message.

use std::sync::Arc;
use std::time::Duration;

use tengen_net::broker::BrokerUrl;
use tengen_protocol::{Envelope, Topics};
use thiserror::Error;

use super::publisher::{Publisher, PublisherError, PublisherParts};
use super::publisher_state::Retained;
use super::settings::{MqttSettings, SettingsError};
use super::source::{EventSource, MemorySource, SourceError};

/// Why a batch could not be published.
#[derive(Debug, Error)]
pub(crate) enum BatchError {
    /// The URL is not usable.
    #[error("--broker: {0}")]
    Url(#[from] SettingsError),
    /// The events are not numbered 1, 2, 3...
    #[error("--broker: {0}")]
    Events(#[from] SourceError),
    /// The runtime could not be built.
    #[error("--broker: {0}")]
    Runtime(std::io::Error),
    /// The broker did not acknowledge everything in time.
    #[error("--broker {url}: {source}")]
    Publish {
        /// The broker.
        url: String,
        /// What happened.
        source: PublisherError,
    },
}

/// Publishes `events` (seq 1, 2, 3...) and `retained` under `topics` to the broker at `url`
/// (`mqtt://host:port`), waits until the broker acknowledged every message (at most
/// `timeout`), then disconnects cleanly. Returns the number of events acknowledged.
pub(crate) fn publish_and_wait(
    url: &str,
    topics: Topics,
    events: Vec<Envelope>,
    retained: Retained,
    timeout: Duration,
) -> Result<u64, BatchError> {
    let broker = BrokerUrl::parse(url).map_err(SettingsError::from)?;
    let source = MemorySource::new();
    for e in &events {
        source.push(e)?;
    }
    let last = source.last_seq();
    let mut settings = MqttSettings::new(broker, topics.board());
    settings.client_id = format!("tengen-sim-{}", topics.board());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(BatchError::Runtime)?;
    let fail = |source| BatchError::Publish {
        url: url.to_string(),
        source,
    };
    runtime.block_on(async {
        let publisher = Publisher::start(
            settings,
            PublisherParts {
                topics,
                source: Arc::new(source),
                ack_file: None,
                ids_file: None,
                commands: None,
                version: env!("CARGO_PKG_VERSION").to_string(),
            },
        )
        .map_err(fail)?;
        publisher.handle().set_retained(retained);
        let started = tokio::time::Instant::now();
        publisher.wait_acked(last, timeout).await.map_err(fail)?;
        let left = timeout.saturating_sub(started.elapsed());
        publisher
            .shutdown(left.max(Duration::from_secs(1)))
            .await
            .map_err(fail)?;
        Ok(last)
    })
}

//! The hall's MQTT client: one rumqttc event loop in its own task that subscribes to the
//! boards' topics ([`HallState::filters`]) on every connection, and to single boards'
//! `state` and `sgf` as the hall state asks, and hands each message to the [`HallState`];
//! commands go out through the same client. Reconnects with the boards' jittered back-off.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rumqttc::{
    AsyncClient, Event, EventLoop, MqttOptions, Packet, QoS, SubscribeFilter, TlsConfiguration,
    Transport,
};
use tokio::task::JoinHandle;

use tengen_net::backoff::Backoff;
use tengen_net::broker::{BrokerUrl, TlsFiles};
use tengen_net::link::{explain, LinkReport, LinkStatus, Target};
use tengen_net::tls;

use crate::boards::archive::{store, SharedArchive};
use crate::boards::hall_state::{HallState, Outgoing};
use crate::boards::snapshot_watch::SubscriptionChange;
use crate::HallError;

/// Largest packet accepted and sent: a whole SGF must fit.
const MAX_PACKET: usize = 4 << 20;

/// The hall state shared by the MQTT task and the HTTP handlers.
pub(crate) type Shared = Arc<Mutex<HallState>>;

/// Locks the shared state; a handler that panicked while holding it leaves usable data.
pub(crate) fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, HallState> {
    shared.lock().unwrap_or_else(|p| p.into_inner())
}

/// How the hall reaches the broker.
#[derive(Debug, Clone)]
pub(crate) struct ClientSettings {
    /// The broker.
    pub(crate) url: BrokerUrl,
    /// Unique among halls (`tengen-hall-{random}` by default).
    pub(crate) client_id: String,
    /// User name and password.
    pub(crate) credentials: Option<(String, String)>,
    /// TLS files for `mqtts://`.
    pub(crate) tls: TlsFiles,
}

/// The running client: publishes commands; stops when dropped via [`MqttLink::stop`].
pub(crate) struct MqttLink {
    client: AsyncClient,
    link: LinkReport,
    task: JoinHandle<()>,
}

impl MqttLink {
    /// Connects in the background (with back-off) and keeps `hall` up to date; what its
    /// boards follow goes to `archive`, if the hall keeps one.
    pub(crate) fn start(
        settings: &ClientSettings,
        hall: Shared,
        archive: Option<SharedArchive>,
    ) -> Result<MqttLink, HallError> {
        let mut o = MqttOptions::new(
            settings.client_id.clone(),
            settings.url.host.clone(),
            settings.url.port,
        );
        o.set_keep_alive(Duration::from_secs(15))
            .set_clean_session(true)
            .set_max_packet_size(MAX_PACKET, MAX_PACKET);
        if let Some((user, password)) = &settings.credentials {
            o.set_credentials(user.clone(), password.clone());
        }
        if settings.url.tls {
            let config = tls::client_config(&settings.tls)?;
            o.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(config)));
        }
        // A hall that publishes the public tree may release a whole game per board at once
        // (after a restart): room for that without dropping messages.
        let (filter, capacity) = {
            let h = lock(&hall);
            let filters: Vec<SubscribeFilter> = h
                .filters()
                .into_iter()
                .map(|(path, every)| {
                    let qos = if every {
                        QoS::AtLeastOnce
                    } else {
                        QoS::AtMostOnce
                    };
                    SubscribeFilter::new(path, qos)
                })
                .collect();
            (filters, if h.is_delayed() { 1 << 16 } else { 1024 })
        };
        let (client, eventloop) = AsyncClient::new(o, capacity);
        let target = Target {
            url: settings.url.clone(),
            username: settings.credentials.as_ref().map(|(u, _)| u.clone()),
            ca_file: settings.tls.ca_file.clone(),
        };
        let link = LinkReport::new("hall MQTT", target.url_text());
        let poller = Poller {
            client: client.clone(),
            filter,
            hall,
            archive,
            link: link.clone(),
            target,
        };
        let task = tokio::spawn(poll(eventloop, poller));
        Ok(MqttLink { client, link, task })
    }

    /// The broker link: connected, or why not (the line that was logged).
    pub(crate) fn status(&self) -> LinkStatus {
        self.link.status()
    }

    /// Publishes a command (QoS 1); queued while the broker is away.
    pub(crate) async fn publish(&self, out: Outgoing) -> Result<(), HallError> {
        self.client
            .publish(out.topic, QoS::AtLeastOnce, out.retain, out.payload)
            .await
            .map_err(HallError::Mqtt)
    }

    /// Stops the client.
    pub(crate) fn stop(self) {
        self.task.abort();
    }
}

/// What the polling task works with.
struct Poller {
    client: AsyncClient,
    filter: Vec<SubscribeFilter>,
    hall: Shared,
    archive: Option<SharedArchive>,
    link: LinkReport,
    target: Target,
}

async fn poll(mut eventloop: EventLoop, p: Poller) {
    let Poller {
        client,
        filter,
        hall,
        archive,
        link,
        target,
    } = p;
    let mut connected = false;
    // Hands what the boards followed to the archive, outside the hall's lock.
    let archive_from = |h: &mut HallState| match &archive {
        Some(_) => h.take_archived(),
        None => Vec::new(),
    };
    let keep = |followed: Vec<_>| {
        if let Some(a) = &archive {
            store(a, followed);
        }
    };
    let mut backoff = Backoff::default();
    let mut rng = rand::rngs::StdRng::from_rng(&mut rand::rng());
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    loop {
        let polled = tokio::select! {
            p = eventloop.poll() => p,
            _ = ticker.tick() => {
                let (out, followed, changes) = {
                    let mut h = lock(&hall);
                    let out = h.tick(Instant::now());
                    (out, archive_from(&mut h), h.take_subscription_changes())
                };
                send(&client, out);
                subscribe(&client, &hall, connected, changes);
                keep(followed);
                continue;
            }
        };
        match polled {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                backoff.reset();
                connected = true;
                link.connected();
                lock(&hall).broker_link(true, Instant::now());
                let paths: Vec<&str> = filter.iter().map(|f| f.path.as_str()).collect();
                tracing::info!("hall connected; subscribing to {}", paths.join(" "));
                if client.try_subscribe_many(filter.clone()).is_err() {
                    tracing::error!("could not queue the subscription");
                }
                // A clean session: the per-board subscriptions are gone with the last one.
                lock(&hall).subscriptions_lost();
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let (out, followed, changes) = {
                    let mut h = lock(&hall);
                    let out = h.on_message(&p.topic, &p.payload, Instant::now());
                    (out, archive_from(&mut h), h.take_subscription_changes())
                };
                send(&client, out);
                subscribe(&client, &hall, connected, changes);
                keep(followed);
            }
            Ok(_) => {}
            Err(e) => {
                // Said once per reason (LinkReport), not on every retry.
                if std::mem::take(&mut connected) {
                    lock(&hall).broker_link(false, Instant::now());
                    link.lost(&e.to_string());
                } else {
                    link.failed(explain(&e, &target));
                }
                tokio::time::sleep(backoff.next_delay(&mut rng)).await;
            }
        }
    }
}

/// Queues what the hall state asks to publish (from the polling task, so without waiting).
fn send(client: &AsyncClient, out: Vec<Outgoing>) {
    for o in out {
        let topic = o.topic.clone();
        if client
            .try_publish(o.topic, QoS::AtLeastOnce, o.retain, o.payload)
            .is_err()
        {
            tracing::warn!("MQTT queue full: a message to {topic} was dropped");
        }
    }
}

/// Makes and drops the per-board subscriptions the hall state asked for (`changes`, taken
/// under the lock that handled the message; QoS 0; see `boards/snapshot_watch.rs`). Not
/// connected, or a request that cannot be queued: the hall state forgets them all and
/// asks again at its next tick.
fn subscribe(
    client: &AsyncClient,
    hall: &Shared,
    connected: bool,
    changes: Vec<SubscriptionChange>,
) {
    if changes.is_empty() {
        return;
    }
    let (on, off): (Vec<_>, Vec<_>) = changes.into_iter().partition(|c| c.subscribe);
    let queued = connected
        && (on.is_empty()
            || client
                .try_subscribe_many(
                    on.into_iter()
                        .map(|c| SubscribeFilter::new(c.topic, QoS::AtMostOnce)),
                )
                .is_ok())
        && off
            .into_iter()
            .all(|c| client.try_unsubscribe(c.topic).is_ok());
    if !queued {
        lock(hall).subscriptions_lost();
    }
}

//! The hall's MQTT client: one rumqttc event loop in its own task that subscribes to the
//! boards' topics ([`HallState::filters`]) on every connection, and to single boards'
//! `state` and `sgf` as the hall state asks, and hands each message to an [`Inbox`]: the
//! [`HallState`] ([`HallInbox`]), or, on a hub or a venue's hall, what `hall/src/venues/`
//! puts in front of it. Commands go out through the same client. Reconnects with the
//! boards' jittered back-off.

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
use tengen_net::tls::{self, TlsError};

use tengen_protocol::topics::BoardKey;
use tengen_protocol::Envelope;

use crate::boards::archive::{store, SharedArchive};
use crate::boards::hall_state::{lock, HallState, Outgoing, Shared};
use crate::boards::snapshot_watch::SubscriptionChange;

/// Largest packet accepted and sent: a whole SGF must fit.
const MAX_PACKET: usize = 4 << 20;

/// What a message or a tick left to do, outside the hall's lock: what to publish, what
/// the boards followed (for the archive), and which subscriptions to make or drop.
#[derive(Default)]
pub(crate) struct Handled {
    /// To publish (QoS 1).
    pub(crate) out: Vec<Outgoing>,
    /// What the boards followed, for the archive.
    pub(crate) followed: Vec<(BoardKey, Envelope)>,
    /// Per-board subscriptions (QoS 0).
    pub(crate) changes: Vec<SubscriptionChange>,
}

/// Where the MQTT task hands the broker's messages and the passing seconds.
pub(crate) trait Inbox: Send + 'static {
    /// The subscriptions made on every connection: each topic filter with whether it needs
    /// every message (QoS 1) or only the newest (QoS 0).
    fn filters(&self) -> Vec<(String, bool)>;
    /// The broker forgot the subscriptions made one by one (a new clean session), or one
    /// could not be queued.
    fn subscriptions_lost(&mut self);
    /// One message, received `now`.
    fn message(&mut self, topic: &str, payload: &[u8], now: Instant) -> Handled;
    /// A second has passed.
    fn tick(&mut self, now: Instant) -> Handled;
    /// The hall's own link to the broker came up (`true`) or went down, `now`: the fleet
    /// watch holds `board_offline` while it is down ([`HallState::broker_link`]).
    fn broker_link(&mut self, up: bool, now: Instant);
}

/// The plain hall's inbox: every message to the [`HallState`].
pub(crate) struct HallInbox {
    /// The hall.
    pub(crate) hall: Shared,
    /// Whether the hall keeps an archive (what its boards followed is taken for it).
    pub(crate) archive: bool,
}

impl HallInbox {
    /// What `h` left to do after `out`: its followed events (with an archive) and its
    /// subscription changes.
    pub(crate) fn handled(h: &mut HallState, out: Vec<Outgoing>, archive: bool) -> Handled {
        Handled {
            out,
            followed: if archive {
                h.take_archived()
            } else {
                Vec::new()
            },
            changes: h.take_subscription_changes(),
        }
    }
}

impl Inbox for HallInbox {
    fn filters(&self) -> Vec<(String, bool)> {
        lock(&self.hall).filters()
    }

    fn subscriptions_lost(&mut self) {
        lock(&self.hall).subscriptions_lost();
    }

    fn message(&mut self, topic: &str, payload: &[u8], now: Instant) -> Handled {
        let mut h = lock(&self.hall);
        let out = h.on_message(topic, payload, now);
        HallInbox::handled(&mut h, out, self.archive)
    }

    fn tick(&mut self, now: Instant) -> Handled {
        let mut h = lock(&self.hall);
        let out = h.tick(now);
        HallInbox::handled(&mut h, out, self.archive)
    }

    fn broker_link(&mut self, up: bool, now: Instant) {
        lock(&self.hall).broker_link(up, now);
    }
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

/// Why a message could not be handed to the MQTT client (it has stopped).
#[derive(Debug, thiserror::Error)]
#[error("MQTT: {0}")]
pub(crate) struct PublishError(#[from] rumqttc::ClientError);

/// The running client: publishes commands; stops when dropped via [`MqttLink::stop`].
pub(crate) struct MqttLink {
    client: AsyncClient,
    link: LinkReport,
    task: JoinHandle<()>,
}

impl MqttLink {
    /// Connects in the background (with back-off) and hands every message to `inbox`;
    /// what its boards follow goes to `archive`, if the hall keeps one. `queue`: how many
    /// publishes the client may hold (a hall that publishes the public tree may release a
    /// whole game per board at once, after a restart).
    pub(crate) fn start(
        settings: &ClientSettings,
        inbox: Box<dyn Inbox>,
        archive: Option<SharedArchive>,
        queue: usize,
    ) -> Result<MqttLink, TlsError> {
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
        let filter: Vec<SubscribeFilter> = inbox
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
        let (client, eventloop) = AsyncClient::new(o, queue);
        let target = Target {
            url: settings.url.clone(),
            username: settings.credentials.as_ref().map(|(u, _)| u.clone()),
            ca_file: settings.tls.ca_file.clone(),
        };
        let link = LinkReport::new("hall MQTT", target.url_text());
        let poller = Poller {
            client: client.clone(),
            filter,
            inbox,
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
    pub(crate) async fn publish(&self, out: Outgoing) -> Result<(), PublishError> {
        self.client
            .publish(out.topic, QoS::AtLeastOnce, out.retain, out.payload)
            .await
            .map_err(PublishError)
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
    inbox: Box<dyn Inbox>,
    archive: Option<SharedArchive>,
    link: LinkReport,
    target: Target,
}

async fn poll(mut eventloop: EventLoop, p: Poller) {
    let Poller {
        client,
        filter,
        mut inbox,
        archive,
        link,
        target,
    } = p;
    let mut connected = false;
    // Publishes, subscribes and archives what a message or a tick left, outside the locks.
    let finish = |inbox: &mut Box<dyn Inbox>, handled: Handled, connected: bool| {
        send(&client, handled.out);
        subscribe(&client, inbox, connected, handled.changes);
        if let Some(a) = &archive {
            store(a, handled.followed);
        }
    };
    let mut backoff = Backoff::default();
    let mut rng = rand::rngs::StdRng::from_rng(&mut rand::rng());
    let mut ticker = tokio::time::interval(Duration::from_secs(1));
    loop {
        let polled = tokio::select! {
            p = eventloop.poll() => p,
            _ = ticker.tick() => {
                let handled = inbox.tick(Instant::now());
                finish(&mut inbox, handled, connected);
                continue;
            }
        };
        match polled {
            Ok(Event::Incoming(Packet::ConnAck(_))) => {
                backoff.reset();
                connected = true;
                link.connected();
                inbox.broker_link(true, Instant::now());
                let paths: Vec<&str> = filter.iter().map(|f| f.path.as_str()).collect();
                tracing::info!("hall connected; subscribing to {}", paths.join(" "));
                if client.try_subscribe_many(filter.clone()).is_err() {
                    tracing::error!("could not queue the subscription");
                }
                // A clean session: the per-board subscriptions are gone with the last one.
                inbox.subscriptions_lost();
            }
            Ok(Event::Incoming(Packet::Publish(p))) => {
                let handled = inbox.message(&p.topic, &p.payload, Instant::now());
                finish(&mut inbox, handled, connected);
            }
            Ok(_) => {}
            Err(e) => {
                // Said once per reason (LinkReport), not on every retry.
                if std::mem::take(&mut connected) {
                    inbox.broker_link(false, Instant::now());
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
    inbox: &mut Box<dyn Inbox>,
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
        inbox.subscriptions_lost();
    }
}

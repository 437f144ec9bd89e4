//! The board's status on MQTT and HTTP.
//!
//! - `/api/mqtt` on the board's HTTP listener: whether the board reaches its broker and,
//!   when it does not, why, in the one line it also logged (a refused login, a TLS listener
//!   spoken to in plain MQTT, a certificate that does not verify...):
//!   `{"broker":"mqtts://broker.hall.lan:8883","connected":false,"error":"..."}`.
//! - The heartbeat ([`heartbeat`]): every [`HEARTBEAT_EVERY`] while the scan loop turns,
//!   the retained `status` is published again, `{"state":"online",...,"at":"..."}` (the
//!   board's time as it publishes it), so a hall tells a board silent for 15 s. It follows
//!   the scan loop ([`super::outputs::Outputs::beat`]), not the network task: a frozen loop
//!   (a clock that no longer runs) stops it. `status` is not an event: nothing of this is
//!   journalled.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};

use tengen_net::link::{LinkReport, LinkStatus};
use tengen_protocol::Timestamp;

use super::outputs::Outputs;
use crate::mqtt::PublisherHandle;

/// How often the retained `status` is published again while the scan loop turns.
pub(crate) const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);

/// The link, set once the publisher has started (the HTTP listener starts first).
pub(crate) type SharedLink = Arc<OnceLock<LinkReport>>;

/// The route, reading `link`.
pub(crate) fn router(link: SharedLink) -> Router {
    Router::new()
        .route("/api/mqtt", get(status))
        .with_state(link)
}

async fn status(State(link): State<SharedLink>) -> Json<LinkStatus> {
    Json(match link.get() {
        Some(l) => l.status(),
        None => LinkStatus {
            broker: String::new(),
            connected: false,
            error: None,
        },
    })
}

/// Has `status` online published again every [`HEARTBEAT_EVERY`] (the first one
/// [`HEARTBEAT_EVERY`] after the start: a connection says online by itself), as long as
/// the scan loop has turned since the last one; says once in the log when it stops for a
/// silent loop, and once when it comes back.
pub(crate) async fn heartbeat(outputs: Outputs, publisher: PublisherHandle) {
    let first = tokio::time::Instant::now() + HEARTBEAT_EVERY;
    let mut every = tokio::time::interval_at(first, HEARTBEAT_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut beat = Beat::default();
    loop {
        every.tick().await;
        match beat.next(outputs.last_beat()) {
            Pulse::Send => publisher.heartbeat(),
            Pulse::Silent(since) => tracing::warn!(
                "the scan loop has not turned since {since}: the MQTT status heartbeat stops \
                 until it does (the hall will show this board as silent)"
            ),
            Pulse::Back => {
                tracing::info!("the scan loop turns again: the MQTT status heartbeat goes on");
                publisher.heartbeat();
            }
            Pulse::Nothing => {}
        }
    }
}

/// What a heartbeat tick does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pulse {
    /// Publish `status` online again.
    Send,
    /// The loop has not turned since this time: say so (once), publish nothing.
    Silent(Timestamp),
    /// The loop turns again after a silence: say so and publish.
    Back,
    /// Nothing to do (no turn yet, or silent and said already).
    Nothing,
}

/// The heartbeat's memory between ticks: the last turn seen, and whether a silence was
/// said.
#[derive(Debug, Default)]
struct Beat {
    last: Option<Timestamp>,
    silent: bool,
}

impl Beat {
    /// The tick with the loop's last turn at `turned`.
    fn next(&mut self, turned: Option<Timestamp>) -> Pulse {
        let Some(turned) = turned else {
            return Pulse::Nothing;
        };
        let moved = self.last != Some(turned);
        self.last = Some(turned);
        match (moved, self.silent) {
            (true, false) => Pulse::Send,
            (true, true) => {
                self.silent = false;
                Pulse::Back
            }
            (false, false) => {
                self.silent = true;
                Pulse::Silent(turned)
            }
            (false, true) => Pulse::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heartbeat_beats_only_while_the_loop_turns() {
        let t = Timestamp::from_millis;
        let mut beat = Beat::default();
        assert_eq!(beat.next(None), Pulse::Nothing, "no turn yet");
        assert_eq!(beat.next(Some(t(1_000))), Pulse::Send);
        assert_eq!(beat.next(Some(t(6_000))), Pulse::Send);
        assert_eq!(beat.next(Some(t(6_000))), Pulse::Silent(t(6_000)));
        assert_eq!(beat.next(Some(t(6_000))), Pulse::Nothing, "said once");
        assert_eq!(beat.next(Some(t(30_000))), Pulse::Back);
        assert_eq!(beat.next(Some(t(35_000))), Pulse::Send);
    }
}

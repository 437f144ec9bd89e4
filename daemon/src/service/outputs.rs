//! Where recorded events go: a broadcast channel of [`Envelope`]s (every event, after it is
//! in the journal) and `watch` channels of the latest state snapshot and SGF text. The
//! MQTT publisher and the HTTP view subscribe here; a slow subscriber that lags behind the
//! broadcast re-reads the journal from the `seq` it has.

use tokio::sync::{broadcast, watch};

use crate::event::Envelope;

/// Events buffered per subscriber before a slow one lags.
pub const EVENT_BUFFER: usize = 4096;

/// The senders, owned by the service.
#[derive(Debug, Clone)]
pub struct Outputs {
    events: broadcast::Sender<Envelope>,
    state: watch::Sender<serde_json::Value>,
    sgf: watch::Sender<String>,
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs::new()
    }
}

impl Outputs {
    /// New channels with a null state and an empty SGF.
    pub fn new() -> Outputs {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let (state, _) = watch::channel(serde_json::Value::Null);
        let (sgf, _) = watch::channel(String::new());
        Outputs { events, state, sgf }
    }

    /// Every event recorded from now on.
    pub fn subscribe_events(&self) -> broadcast::Receiver<Envelope> {
        self.events.subscribe()
    }

    /// The latest state snapshot (SPEC.md's `state` topic), updated after each batch.
    pub fn subscribe_state(&self) -> watch::Receiver<serde_json::Value> {
        self.state.subscribe()
    }

    /// The latest SGF text, updated when the record changes.
    pub fn subscribe_sgf(&self) -> watch::Receiver<String> {
        self.sgf.subscribe()
    }

    /// Sends one recorded event (no subscriber is not an error).
    pub fn event(&self, envelope: &Envelope) {
        let _ = self.events.send(envelope.clone());
    }

    /// Replaces the state snapshot.
    pub fn state(&self, state: serde_json::Value) {
        self.state.send_replace(state);
    }

    /// Replaces the SGF text.
    pub fn sgf(&self, sgf: String) {
        self.sgf.send_replace(sgf);
    }
}

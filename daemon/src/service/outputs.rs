//! Where recorded events go: a broadcast channel of [`Envelope`]s (every event, after it is
//! in the journal) and `watch` channels of what the fold of those events shows now: the
//! `state` snapshot, the SGF and `alerts/active`. The MQTT publisher and the HTTP view
//! subscribe here; a slow subscriber that lags behind the broadcast re-reads the journal
//! from the `seq` it has. The players' side has its own two: the faces their displays
//! show (the displays, `/clock` and the live page follow it) and the calls to say. And the
//! scan loop's last turn ([`Outputs::beat`]), which the MQTT status heartbeat follows.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::{broadcast, watch};

use tengen_protocol::{Envelope, Timestamp};
use tengen_rules::Color;
use tengen_table::{Face, Sound};

/// Events buffered per subscriber before a slow one lags.
pub const EVENT_BUFFER: usize = 4096;

/// What the outputs show besides the events: the fold of the game so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    /// The `state` snapshot (`null` before any game).
    pub state: serde_json::Value,
    /// The game record (empty before any game).
    pub sgf: String,
    /// The open alerts, as `alerts/active` carries them (a JSON array).
    pub alerts_active: String,
}

/// What the two player displays show now (`None` before the first poll): the faces of
/// `tengen_table`, shared with the hall's `/clock`.
pub use tengen_table::PlayerFaces;

/// Calls buffered for the voice before a slow one lags (a lagging voice skips calls).
const SOUND_BUFFER: usize = 16;

/// The senders, owned by the service.
#[derive(Debug, Clone)]
pub struct Outputs {
    events: broadcast::Sender<Envelope>,
    shown: watch::Sender<Shown>,
    faces: watch::Sender<PlayerFaces>,
    sounds: broadcast::Sender<Sound>,
    /// The wall-clock time (ms since the epoch) of the scan loop's last turn; 0 before it.
    beat: Arc<AtomicU64>,
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs::new()
    }
}

impl Outputs {
    /// New channels, showing nothing yet.
    pub fn new() -> Outputs {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let (shown, _) = watch::channel(Shown {
            state: serde_json::Value::Null,
            sgf: String::new(),
            alerts_active: "[]".into(),
        });
        let (faces, _) = watch::channel(PlayerFaces::default());
        let (sounds, _) = broadcast::channel(SOUND_BUFFER);
        Outputs {
            events,
            shown,
            faces,
            sounds,
            beat: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The scan loop turned now (once per turn): the board is alive. The MQTT status
    /// heartbeat follows it, so a frozen loop stops the heartbeat.
    pub fn beat(&self) {
        self.beat
            .store(Timestamp::now().millis().max(1), Ordering::Relaxed);
    }

    /// When the scan loop last turned (wall clock), `None` before its first turn.
    pub fn last_beat(&self) -> Option<Timestamp> {
        match self.beat.load(Ordering::Relaxed) {
            0 => None,
            ms => Some(Timestamp::from_millis(ms)),
        }
    }

    /// What the player displays show, updated when a face changes.
    pub fn subscribe_faces(&self) -> watch::Receiver<PlayerFaces> {
        self.faces.subscribe()
    }

    /// Every call the board says from now on, at its instant.
    pub fn subscribe_sounds(&self) -> broadcast::Receiver<Sound> {
        self.sounds.subscribe()
    }

    /// `color`'s face changed.
    pub fn face(&self, color: Color, face: Face) {
        self.faces.send_modify(|faces| match color {
            Color::Black => faces.black = Some(face),
            Color::White => faces.white = Some(face),
        });
    }

    /// A call is due now (no subscriber is not an error).
    pub fn sound(&self, sound: Sound) {
        let _ = self.sounds.send(sound);
    }

    /// Every event recorded from now on.
    pub fn subscribe_events(&self) -> broadcast::Receiver<Envelope> {
        self.events.subscribe()
    }

    /// What the outputs show, updated after each batch of events.
    pub fn subscribe_shown(&self) -> watch::Receiver<Shown> {
        self.shown.subscribe()
    }

    /// Sends one recorded event (no subscriber is not an error).
    pub fn event(&self, envelope: &Envelope) {
        let _ = self.events.send(envelope.clone());
    }

    /// Replaces what is shown; subscribers wake only when it changed.
    pub fn show(&self, shown: Shown) {
        self.shown.send_if_modified(|old| {
            if *old == shown {
                return false;
            }
            *old = shown;
            true
        });
    }
}

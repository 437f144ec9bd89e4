//! The hardware traits every backend (direct driver, serial link, simulator) implements.

use serde::{Deserialize, Serialize};

/// Milliseconds on a monotonic clock chosen by the caller (virtual time in the simulator).
pub type Millis = u64;

/// What a point holds, as classified from its sensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PointState {
    /// No stone.
    Empty,
    /// A black stone (magnet polarity one way).
    Black,
    /// A white stone (magnet polarity the other way).
    White,
    /// A reading between the bands: a hand, a stone half-placed, a fault.
    Unknown,
}

/// The payload of one scan: raw readings or already classified states, one per point,
/// row-major with row 0 at the top of the board (the order of `tengen_rules::Point::index`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameData {
    /// Raw ADC readings (10 or 12 bit, mid-supply with no magnet).
    Raw(Vec<u16>),
    /// States classified by the scanning microcontroller.
    Classified(Vec<PointState>),
}

/// One scan of the whole sensor matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// When the scan was taken (ms, the caller's clock).
    pub time: Millis,
    /// The readings.
    pub data: FrameData,
}

/// A board's sensor matrix: one call, one full scan.
pub trait SensorMatrix {
    /// The backend's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// The number of lines on the board (19 for a full board).
    fn size(&self) -> u8;
    /// Scans every point once; `now` is the time to stamp the frame with.
    fn scan(&mut self, now: Millis) -> Result<Frame, Self::Error>;
}

/// Which clock button: the one in front of the Black player or the White player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Button {
    /// The button on Black's side of the clock.
    Black,
    /// The button on White's side of the clock.
    White,
}

/// What happened to a button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ButtonAction {
    /// Pushed down (the moment that counts for the clock).
    Press,
    /// Let go.
    Release,
}

/// A debounced, timestamped clock-button event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ButtonEvent {
    /// When it happened (ms, the caller's clock).
    pub time: Millis,
    /// Which button.
    pub button: Button,
    /// Press or release.
    pub action: ButtonAction,
}

/// The two clock buttons.
pub trait ClockButtons {
    /// The backend's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Every button event since the last call, oldest first; `now` is the caller's time.
    fn poll(&mut self, now: Millis) -> Result<Vec<ButtonEvent>, Self::Error>;
}

/// An optional attention signal (LED or buzzer) to call the players and the arbiter.
pub trait Indicator {
    /// The backend's error.
    type Error: std::error::Error + Send + Sync + 'static;
    /// Turns the signal on (an alert is open) or off.
    fn set(&mut self, on: bool) -> Result<(), Self::Error>;
}

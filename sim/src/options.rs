//! How a simulation runs, whatever it plays: seed, size, noise, scan rate, the kind of
//! frames, where Black sits, and the virtual time scanned before and after the actions.

use tengen_hal::Millis;

use crate::physics::{FrameKind, RawModel};
use crate::side::Side;

/// How a simulation runs, whatever it plays.
#[derive(Debug, Clone, PartialEq)]
pub struct SimOptions {
    /// The seed for human timing and noise, unless the script has a `seed` line.
    pub seed: u64,
    /// The board size, unless the script has a `size` line (SGF games carry their own).
    pub size: u8,
    /// The sensor noise at the start, unless the script has a `noise` setup line.
    pub noise: f64,
    /// Scans per second of virtual time (`hardware.scan_hz`, default 100).
    pub scan_hz: u32,
    /// Classified frames (fast) or raw readings.
    pub frames: FrameKind,
    /// Raw readings for this much virtual time from the start, whatever `frames` says: a
    /// board's sensor check before play looks at raw readings (as a scanning
    /// microcontroller would send them while the board checks its sensors). 0: `frames`
    /// from the start.
    pub raw_lead_ms: Millis,
    /// How raw readings are made.
    pub raw: RawModel,
    /// Where Black sits (`board.black_side`): hands come from the players' sides and the
    /// resignation corner follows it.
    pub black_side: Side,
    /// Virtual time before the first action (the empty board settles).
    pub lead_in_ms: Millis,
    /// Virtual time scanned after the last action (the last change settles).
    pub tail_ms: Millis,
}

impl Default for SimOptions {
    fn default() -> SimOptions {
        SimOptions {
            seed: 1,
            size: 19,
            noise: 0.0,
            scan_hz: 100,
            frames: FrameKind::Classified,
            raw_lead_ms: 0,
            raw: RawModel::adc12(),
            black_side: Side::South,
            lead_in_ms: 500,
            tail_ms: 1000,
        }
    }
}

impl SimOptions {
    /// The defaults with this seed.
    pub fn seeded(seed: u64) -> SimOptions {
        SimOptions {
            seed,
            ..SimOptions::default()
        }
    }
}

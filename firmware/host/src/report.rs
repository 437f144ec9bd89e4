//! What an emulated run measured: the line as the Pi's decoder read it, the firmware's own
//! counters, the scan period and time in the emulator's virtual time (the RP2040's clock),
//! and each move's latency from the stone settling to the frame that reads it.

use std::time::Duration;

use serde_json::{json, Value};
use tengen_firmware::frame::Status;
use tengen_hal::serial::DecoderStats;
use tengen_hal::{Button, ButtonAction};

/// Minimum, median and maximum of some measurements.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spread {
    /// How many.
    pub count: usize,
    /// The smallest.
    pub min: f64,
    /// The median.
    pub median: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `values` (all zero when there are none).
    pub fn of(values: &[f64]) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        Spread {
            count: v.len(),
            min: v[0],
            median: v[v.len() / 2],
            max: v[v.len() - 1],
        }
    }

    fn json(&self) -> Value {
        json!({ "count": self.count, "min": self.min, "median": self.median, "max": self.max })
    }
}

/// What an emulated run did and measured.
#[derive(Debug, Clone)]
pub struct Report {
    /// Virtual time run (ms).
    pub virtual_ms: u64,
    /// Wall time it took.
    pub wall: Duration,
    /// How far the line fell behind the wall clock at worst (wall-clock pacing): the
    /// emulator more than its lead behind, or the writer held up.
    pub max_lag: Duration,
    /// Bytes put on the line.
    pub bytes: u64,
    /// Bytes nobody read (the pseudo-terminal refused them).
    pub unheard_bytes: u64,
    /// The Pi's decoder's counters on a copy of the line.
    pub decoder: DecoderStats,
    /// Scans decoded.
    pub scans: u64,
    /// Hellos decoded.
    pub hellos: u64,
    /// Hellos with the boot flag (1: the firmware never reset).
    pub boot_hellos: u64,
    /// Button messages decoded: firmware time (ms), button, action.
    pub buttons: Vec<(u64, Button, ButtonAction)>,
    /// The firmware's counters from its last hello.
    pub status: Option<Status>,
    /// Time between the starts of consecutive scans (µs, virtual).
    pub scan_period_us: Spread,
    /// Time of one scan, first conversion's start to last one's end (µs, virtual).
    pub scan_time_us: Spread,
    /// Stone settled to the last byte of the first frame that reads it (ms, virtual).
    pub latency_ms: Spread,
    /// Stone settled to the start of the first scan that reads it (ms).
    pub first_read_ms: Spread,
    /// Moves whose stone a scan read.
    pub moves_read: usize,
    /// Moves whose stone no scan read.
    pub moves_unread: usize,
    /// The longest a byte waited for the line (µs).
    pub line_backlog_us: f64,
    /// Instructions the emulated core executed.
    pub instructions: u64,
    /// The emulator's own summary.
    pub emulator: Value,
}

impl Report {
    /// Frames rejected or lost on the line (0 on a healthy run).
    pub fn frames_bad(&self) -> u64 {
        self.decoder.rejected() + self.decoder.lost
    }

    /// The report as JSON.
    pub fn to_json(&self) -> Value {
        let status = self.status.map(|s| {
            json!({
                "scans": s.scans,
                "overruns": s.overruns,
                "dropped": s.dropped,
                "scan_us": s.scan_us,
                "max_late_us": s.max_late_us,
            })
        });
        let d = &self.decoder;
        json!({
            "virtual_s": self.virtual_ms as f64 / 1000.0,
            "wall_s": self.wall.as_secs_f64(),
            "max_lag_ms": self.max_lag.as_secs_f64() * 1000.0,
            "bytes": self.bytes,
            "unheard_bytes": self.unheard_bytes,
            "decoder": {
                "messages": d.messages,
                "rejected": d.rejected(),
                "lost": d.lost,
                "restarts": d.restarts,
                "skipped_bytes": d.skipped_bytes,
                "unknown_type": d.unknown_type,
            },
            "scans": self.scans,
            "hellos": self.hellos,
            "boot_hellos": self.boot_hellos,
            "button_messages": self.buttons.len(),
            "firmware_status": status,
            "scan_period_us": self.scan_period_us.json(),
            "scan_time_us": self.scan_time_us.json(),
            "latency_ms": self.latency_ms.json(),
            "first_read_ms": self.first_read_ms.json(),
            "moves_read": self.moves_read,
            "moves_unread": self.moves_unread,
            "line_backlog_us": self.line_backlog_us,
            "instructions": self.instructions,
            "emulator": self.emulator,
        })
    }
}

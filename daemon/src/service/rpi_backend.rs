//! The sensors read directly on a Raspberry Pi as a backend of `tengen run`
//! (`hardware.backend = "rpi"`, a build with `--features rpi`): muxes and SPI ADCs, the
//! clock buttons on GPIO.

use tengen_hal::{ClockButtons, Millis, SensorMatrix};
use tengen_protocol::event::FaultKind;
use tengen_protocol::Event;

use super::backend::{Backend, Polled};

/// The sensors read directly on a Raspberry Pi (muxes + SPI ADCs, buttons on GPIO).
pub(crate) struct RpiBackend {
    /// The sensor matrix.
    pub matrix: tengen_hal::rpi::RpiMatrix,
    /// The clock buttons.
    pub buttons: tengen_hal::rpi::RpiButtons,
    /// True while scans fail.
    pub fault: bool,
}

impl Backend for RpiBackend {
    fn poll(&mut self, now: Millis) -> Polled {
        let buttons = match self.buttons.poll(now) {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!("buttons: {e}");
                Vec::new()
            }
        };
        match self.matrix.scan(now) {
            Ok(frame) => {
                let mut faults = Vec::new();
                if std::mem::take(&mut self.fault) {
                    faults.push(Event::SensorFault {
                        points: Vec::new(),
                        kind: FaultKind::LinkRestored,
                    });
                }
                Polled {
                    scans: vec![(frame, buttons)],
                    faults,
                    finished: false,
                }
            }
            Err(e) => {
                let mut faults = Vec::new();
                if !self.fault {
                    tracing::warn!("sensor scan failed: {e}");
                    self.fault = true;
                    faults.push(Event::SensorFault {
                        points: Vec::new(),
                        kind: FaultKind::LinkLost,
                    });
                }
                Polled {
                    scans: Vec::new(),
                    faults,
                    finished: false,
                }
            }
        }
    }

    fn describe(&self) -> String {
        "rpi".into()
    }
}

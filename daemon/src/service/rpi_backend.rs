//! The sensors read directly on a Raspberry Pi as a backend of `tengen run`
//! (`hardware.backend = "rpi"`, a build with `--features rpi`): muxes and SPI ADCs, the
//! clock buttons on GPIO, and with `[voice] style = "beep"` the buzzer on the indicator pin
//! (`hardware.rpi.pins.led`), which beeps the count at each turn of the loop.

use tengen_hal::driver::indicator::IndicatorError;
use tengen_hal::{ClockButtons, Indicator, Millis, SensorMatrix};
use tengen_protocol::event::FaultKind;
use tengen_protocol::Event;
use tengen_table::{BeepPlayer, Sound};

use super::backend::{Backend, Polled};

/// The sensors read directly on a Raspberry Pi (muxes + SPI ADCs, buttons on GPIO).
pub(crate) struct RpiBackend {
    /// The sensor matrix.
    pub matrix: tengen_hal::rpi::RpiMatrix,
    /// The clock buttons.
    pub buttons: tengen_hal::rpi::RpiButtons,
    /// True while scans fail.
    pub fault: bool,
    /// The buzzer on the indicator pin, when the count is beeped.
    pub buzzer: Option<Buzzer>,
}

/// A buzzer on the indicator pin and the call it is beeping.
pub(crate) struct Buzzer {
    /// The pin.
    pub pin: Box<dyn Indicator<Error = IndicatorError> + Send>,
    /// The pattern playing.
    pub player: BeepPlayer,
    /// What the pin was last set to.
    pub on: bool,
}

impl Buzzer {
    /// Sets the pin as the pattern wants it at `now`, writing only on a change.
    fn update(&mut self, now: Millis) {
        let on = self.player.on(now);
        if on != self.on {
            match self.pin.set(on) {
                Ok(()) => self.on = on,
                Err(e) => tracing::warn!("buzzer: {e}"),
            }
        }
    }
}

impl Backend for RpiBackend {
    fn sound(&mut self, sound: &Sound, now: Millis) {
        if let Some(b) = &mut self.buzzer {
            b.player.play(sound, now);
            b.update(now);
        }
    }

    fn poll(&mut self, now: Millis) -> Polled {
        if let Some(b) = &mut self.buzzer {
            b.update(now);
        }
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

//! The attention signal (an LED or a buzzer) on one GPIO output.

use embedded_hal::digital::{Error as _, OutputPin};
use thiserror::Error;

use crate::traits::Indicator;

/// The indicator's output pin failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("indicator pin: {kind}: {detail}")]
pub struct IndicatorError {
    /// The embedded-hal error kind.
    pub kind: embedded_hal::digital::ErrorKind,
    /// The driver's own description.
    pub detail: String,
}

/// An [`Indicator`] on an output pin; `active_low` for an LED wired from 3.3 V to the pin.
#[derive(Debug)]
pub struct LedIndicator<P> {
    pin: P,
    active_low: bool,
}

impl<P: OutputPin> LedIndicator<P> {
    /// Wraps the pin (it is not touched until the first [`Indicator::set`]).
    pub fn new(pin: P, active_low: bool) -> LedIndicator<P> {
        LedIndicator { pin, active_low }
    }

    /// Gives the pin back.
    pub fn into_inner(self) -> P {
        self.pin
    }
}

impl<P: OutputPin> Indicator for LedIndicator<P> {
    type Error = IndicatorError;

    fn set(&mut self, on: bool) -> Result<(), IndicatorError> {
        let high = on != self.active_low;
        let r = if high {
            self.pin.set_high()
        } else {
            self.pin.set_low()
        };
        r.map_err(|e| IndicatorError {
            kind: e.kind(),
            detail: format!("{e:?}"),
        })
    }
}

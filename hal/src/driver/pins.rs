//! Which Raspberry Pi pins the direct driver uses (BCM GPIO numbers and SPI chip selects).
//! Always compiled, so a board config can be checked on any machine; the `rpi` feature
//! opens them.
//!
//! The defaults follow `hal/README.md`: ADC 0 on SPI0 CE0 (GPIO 8), ADC 1 on SPI0 CE1
//! (GPIO 7), ADC 2 on SPI1 CE0 (GPIO 18); S0..S3 on GPIO 5, 6, 12, 13; buttons on GPIO 23
//! (Black) and 24 (White) with pull-ups; the LED on GPIO 25.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::traits::Millis;

/// One ADC's SPI device: the bus and its chip-select line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpiSelect {
    /// The SPI bus (0 = SPI0, 1 = SPI1 ...).
    pub bus: u8,
    /// The chip select on that bus (0 = CE0 ...).
    pub cs: u8,
}

/// The pins of the direct driver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PinConfig {
    /// The SPI device of each ADC, in wiring order (ADC 0 first).
    pub spi: Vec<SpiSelect>,
    /// The SPI clock (Hz). An MCP3008 at 3.3 V is specified up to 1.35 MHz.
    pub spi_clock_hz: u32,
    /// BCM numbers of the multiplexer address lines S0, S1, S2, S3.
    pub address: [u8; 4],
    /// BCM number of Black's clock button (to ground, internal pull-up).
    pub black_button: u8,
    /// BCM number of White's clock button (to ground, internal pull-up).
    pub white_button: u8,
    /// BCM number of the indicator LED or buzzer, if fitted.
    pub led: Option<u8>,
    /// True when the LED is on with the pin low (wired from 3.3 V to the pin).
    pub led_active_low: bool,
    /// The buttons' debounce window (ms).
    pub debounce_ms: Millis,
}

impl Default for PinConfig {
    fn default() -> Self {
        PinConfig {
            spi: vec![
                SpiSelect { bus: 0, cs: 0 },
                SpiSelect { bus: 0, cs: 1 },
                SpiSelect { bus: 1, cs: 0 },
            ],
            spi_clock_hz: 1_000_000,
            address: [5, 6, 12, 13],
            black_button: 23,
            white_button: 24,
            led: Some(25),
            led_active_low: false,
            debounce_ms: super::buttons::DEFAULT_DEBOUNCE_MS,
        }
    }
}

/// A pin configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PinConfigError {
    /// A GPIO number beyond the header's GPIO 0..=27.
    #[error("pins: {what} is GPIO {pin}, the header has GPIO 0..=27")]
    NoSuchPin {
        /// What the pin is for.
        what: String,
        /// The number given.
        pin: u8,
    },
    /// One GPIO used for two things.
    #[error("pins: GPIO {pin} is used for both {first} and {second}")]
    Shared {
        /// The pin.
        pin: u8,
        /// Its first use.
        first: String,
        /// Its second use.
        second: String,
    },
    /// A GPIO that an enabled SPI bus needs.
    #[error("pins: {what} is GPIO {pin}, which SPI{bus} uses")]
    SpiPin {
        /// What the pin is for.
        what: String,
        /// The pin.
        pin: u8,
        /// The bus.
        bus: u8,
    },
    /// An SPI device that does not exist, or one given twice.
    #[error("pins: SPI{bus} CE{cs} {problem}")]
    BadSpi {
        /// The bus.
        bus: u8,
        /// The chip select.
        cs: u8,
        /// What is wrong.
        problem: &'static str,
    },
    /// A zero clock.
    #[error("pins: spi_clock_hz must be above 0")]
    ZeroClock,
}

/// The GPIOs of SPI0 (MISO, MOSI, SCLK, CE0, CE1) and SPI1 (MISO, MOSI, SCLK, CE0..CE2).
fn spi_pins(bus: u8) -> &'static [u8] {
    match bus {
        0 => &[9, 10, 11, 8, 7],
        1 => &[19, 20, 21, 18, 17, 16],
        _ => &[],
    }
}

impl PinConfig {
    /// Checks the pins are distinct, on the header, and clear of the SPI buses in use.
    pub fn validate(&self) -> Result<(), PinConfigError> {
        if self.spi_clock_hz == 0 {
            return Err(PinConfigError::ZeroClock);
        }
        for (i, s) in self.spi.iter().enumerate() {
            if s.bus > 6 || s.cs > 2 {
                return Err(PinConfigError::BadSpi {
                    bus: s.bus,
                    cs: s.cs,
                    problem: "does not exist (bus 0..=6, CE 0..=2)",
                });
            }
            if self.spi[..i].contains(s) {
                return Err(PinConfigError::BadSpi {
                    bus: s.bus,
                    cs: s.cs,
                    problem: "is given for two ADCs",
                });
            }
        }
        let mut uses: Vec<(u8, String)> = Vec::new();
        for (line, &pin) in self.address.iter().enumerate() {
            uses.push((pin, format!("address line S{line}")));
        }
        uses.push((self.black_button, "the Black button".into()));
        uses.push((self.white_button, "the White button".into()));
        if let Some(led) = self.led {
            uses.push((led, "the LED".into()));
        }
        let mut buses: Vec<u8> = self.spi.iter().map(|s| s.bus).collect();
        buses.dedup();
        for (i, (pin, what)) in uses.iter().enumerate() {
            if *pin > 27 {
                return Err(PinConfigError::NoSuchPin {
                    what: what.clone(),
                    pin: *pin,
                });
            }
            if let Some((_, first)) = uses[..i].iter().find(|(p, _)| p == pin) {
                return Err(PinConfigError::Shared {
                    pin: *pin,
                    first: first.clone(),
                    second: what.clone(),
                });
            }
            if let Some(&bus) = buses.iter().find(|&&b| spi_pins(b).contains(pin)) {
                return Err(PinConfigError::SpiPin {
                    what: what.clone(),
                    pin: *pin,
                    bus,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        assert_eq!(PinConfig::default().validate(), Ok(()));
    }

    #[test]
    fn toml_keys_default_and_unknown_keys_fail() {
        let p: PinConfig = toml::from_str("led = 4\nspi = [{ bus = 0, cs = 1 }]\n").unwrap();
        assert_eq!(p.led, Some(4));
        assert_eq!(p.spi, vec![SpiSelect { bus: 0, cs: 1 }]);
        assert_eq!(p.address, PinConfig::default().address);
        let e = toml::from_str::<PinConfig>("leds = 4\n").unwrap_err();
        assert!(e.message().contains("unknown field `leds`"), "{e}");
    }

    #[test]
    fn clashes_are_named() {
        let p = PinConfig {
            white_button: 5,
            ..PinConfig::default()
        };
        assert_eq!(
            p.validate().unwrap_err().to_string(),
            "pins: GPIO 5 is used for both address line S0 and the White button"
        );
        let p = PinConfig {
            led: Some(19),
            ..PinConfig::default()
        };
        assert_eq!(
            p.validate().unwrap_err().to_string(),
            "pins: the LED is GPIO 19, which SPI1 uses"
        );
    }
}

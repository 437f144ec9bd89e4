//! The direct driver on a Raspberry Pi (feature `rpi`): rppal's SPI devices and GPIO pins
//! plugged into [`MuxAdcMatrix`], the clock buttons on rppal's interrupt callbacks feeding
//! [`InterruptButtons`] (each edge placed in time by the kernel's event timestamp), the
//! indicator on a GPIO output, and the player displays on an I2C bus ([`open_displays`]).

use rppal::gpio::{Event, Gpio, InputPin, OutputPin, Trigger};
use rppal::hal::Delay;
use rppal::i2c::I2c;
use rppal::spi::{Bus, Mode, SimpleHalSpiDevice, SlaveSelect, Spi};
use thiserror::Error;

use crate::driver::buttons::{edge_instant, EdgeQueue, InterruptButtons, RawEdge};
use crate::driver::indicator::LedIndicator;
use crate::driver::matrix::MuxAdcMatrix;
use crate::driver::pins::{PinConfig, PinConfigError, SpiSelect};
use crate::driver::ssd1306::{SharedI2c, Ssd1306Config, Ssd1306Display};
use crate::driver::wiring::{Wiring, WiringError};
use crate::traits::Button;

/// The sensor matrix on a Pi.
pub type RpiMatrix = MuxAdcMatrix<SimpleHalSpiDevice, OutputPin, Delay>;

/// A player display on a Pi (the bus shared when both displays are on it).
pub type RpiDisplay = Ssd1306Display<SharedI2c<I2c>>;

/// Why the Pi hardware could not be opened. One line each.
#[derive(Debug, Error)]
pub enum RpiError {
    /// The pin configuration is invalid.
    #[error(transparent)]
    Pins(#[from] PinConfigError),
    /// The wiring is invalid.
    #[error(transparent)]
    Wiring(#[from] WiringError),
    /// The GPIO character device could not be opened or a pin is busy.
    #[error("GPIO {what}: {source}")]
    Gpio {
        /// The pin's use.
        what: String,
        /// What rppal said.
        source: rppal::gpio::Error,
    },
    /// An SPI device could not be opened (is `dtparam=spi=on` set?).
    #[error("SPI{bus} CE{cs}: {source}")]
    Spi {
        /// The bus.
        bus: u8,
        /// The chip select.
        cs: u8,
        /// What rppal said.
        source: rppal::spi::Error,
    },
    /// An I2C bus could not be opened (is `dtparam=i2c_arm=on` set?).
    #[error("I2C bus {bus} (/dev/i2c-{bus}): {source}")]
    I2c {
        /// The bus.
        bus: u8,
        /// What rppal said.
        source: rppal::i2c::Error,
    },
}

/// The clock buttons on a Pi: the input pins stay owned here so their interrupt
/// callbacks keep running.
pub struct RpiButtons {
    /// The debounced buttons the callbacks feed; poll this.
    pub buttons: InterruptButtons,
    _pins: [InputPin; 2],
}

impl std::fmt::Debug for RpiButtons {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RpiButtons")
            .field("buttons", &self.buttons)
            .finish_non_exhaustive()
    }
}

impl crate::traits::ClockButtons for RpiButtons {
    type Error = std::convert::Infallible;

    fn poll(
        &mut self,
        now: crate::traits::Millis,
    ) -> Result<Vec<crate::traits::ButtonEvent>, Self::Error> {
        self.buttons.poll(now)
    }
}

/// `CLOCK_MONOTONIC` now: the clock the kernel stamps GPIO events with.
fn monotonic_now() -> Option<std::time::Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into the valid, exclusively borrowed `ts`.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    if r != 0 {
        return None;
    }
    let secs = u64::try_from(ts.tv_sec).ok()?;
    let nanos = u32::try_from(ts.tv_nsec).ok()?;
    Some(std::time::Duration::new(secs, nanos))
}

fn gpio_err(what: impl Into<String>) -> impl FnOnce(rppal::gpio::Error) -> RpiError {
    let what = what.into();
    move |source| RpiError::Gpio { what, source }
}

fn open_spi(s: SpiSelect, clock_hz: u32) -> Result<SimpleHalSpiDevice, RpiError> {
    let err = |source| RpiError::Spi {
        bus: s.bus,
        cs: s.cs,
        source,
    };
    let bus = match s.bus {
        0 => Bus::Spi0,
        1 => Bus::Spi1,
        2 => Bus::Spi2,
        3 => Bus::Spi3,
        4 => Bus::Spi4,
        5 => Bus::Spi5,
        _ => Bus::Spi6,
    };
    let ss = match s.cs {
        0 => SlaveSelect::Ss0,
        1 => SlaveSelect::Ss1,
        _ => SlaveSelect::Ss2,
    };
    let spi = Spi::new(bus, ss, clock_hz, Mode::Mode0).map_err(err)?;
    Ok(SimpleHalSpiDevice::new(spi))
}

/// Opens the sensor matrix: one SPI device per ADC the wiring uses, the four address lines
/// as outputs (low).
pub fn open_matrix(wiring: &Wiring, pins: &PinConfig) -> Result<RpiMatrix, RpiError> {
    pins.validate()?;
    let plan = wiring.plan()?;
    if plan.adcs > pins.spi.len() {
        return Err(WiringError::AdcCount {
            needed: plan.adcs,
            given: pins.spi.len(),
        }
        .into());
    }
    let adcs = pins.spi[..plan.adcs]
        .iter()
        .map(|&s| open_spi(s, pins.spi_clock_hz))
        .collect::<Result<Vec<_>, _>>()?;
    let gpio = Gpio::new().map_err(gpio_err("chip"))?;
    let output = |line: usize| -> Result<OutputPin, RpiError> {
        let pin = pins.address[line];
        let p = gpio
            .get(pin)
            .map_err(gpio_err(format!("{pin} (address line S{line})")))?;
        Ok(p.into_output_low())
    };
    let address = [output(0)?, output(1)?, output(2)?, output(3)?];
    Ok(MuxAdcMatrix::new(wiring, adcs, address, Delay::new())?)
}

/// Opens the clock buttons: inputs with pull-ups, an interrupt on both edges of each
/// pushing into the debouncer's queue (the debouncing is ours, not the kernel's).
pub fn open_buttons(pins: &PinConfig) -> Result<RpiButtons, RpiError> {
    pins.validate()?;
    let gpio = Gpio::new().map_err(gpio_err("chip"))?;
    let buttons = InterruptButtons::new(EdgeQueue::new(), pins.debounce_ms);
    let input = |button: Button, pin: u8| -> Result<InputPin, RpiError> {
        let what = format!("{pin} ({button:?} button)");
        let mut input = gpio
            .get(pin)
            .map_err(gpio_err(what.clone()))?
            .into_input_pullup();
        let queue = buttons.queue();
        input
            .set_async_interrupt(Trigger::Both, None, move |event: Event| {
                let now = std::time::Instant::now();
                queue.push(RawEdge {
                    button,
                    // Pull-up, switch to ground: a falling edge closes the contact.
                    pressed: event.trigger == Trigger::FallingEdge,
                    at: match monotonic_now() {
                        Some(clock) => edge_instant(now, clock, event.timestamp),
                        None => now,
                    },
                });
            })
            .map_err(gpio_err(what))?;
        Ok(input)
    };
    let pins = [
        input(Button::Black, pins.black_button)?,
        input(Button::White, pins.white_button)?,
    ];
    Ok(RpiButtons {
        buttons,
        _pins: pins,
    })
}

/// Opens the indicator, if the configuration has one (off at start).
pub fn open_indicator(pins: &PinConfig) -> Result<Option<LedIndicator<OutputPin>>, RpiError> {
    pins.validate()?;
    let Some(led) = pins.led else {
        return Ok(None);
    };
    let gpio = Gpio::new().map_err(gpio_err("chip"))?;
    let pin = gpio.get(led).map_err(gpio_err(format!("{led} (LED)")))?;
    let out = if pins.led_active_low {
        pin.into_output_high()
    } else {
        pin.into_output_low()
    };
    Ok(Some(LedIndicator::new(out, pins.led_active_low)))
}

/// Opens I2C bus `bus` (`/dev/i2c-<bus>`; bus 1 is GPIO2 = SDA, GPIO3 = SCL).
pub fn open_i2c(bus: u8) -> Result<I2c, RpiError> {
    I2c::with_bus(bus).map_err(|source| RpiError::I2c { bus, source })
}

/// Opens Black's and White's displays, both on I2C bus `bus`. Nothing is sent to them
/// yet: the first `show` initialises each (a display missing now only fails its own
/// `show`).
pub fn open_displays(
    bus: u8,
    black: Ssd1306Config,
    white: Ssd1306Config,
) -> Result<(RpiDisplay, RpiDisplay), RpiError> {
    Ok(Ssd1306Display::pair(open_i2c(bus)?, black, white))
}

/// Opens one display alone on I2C bus `bus` (for displays on two buses).
pub fn open_display(bus: u8, config: Ssd1306Config) -> Result<RpiDisplay, RpiError> {
    Ok(Ssd1306Display::new(SharedI2c::new(open_i2c(bus)?), config))
}

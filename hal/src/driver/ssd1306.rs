//! A player display: an SSD1306 128x64 OLED module on I2C, driven with the `ssd1306` crate
//! in its basic mode (the frame is already in the controller's GDDRAM layout, so it goes
//! out as it is).
//!
//! * [`Ssd1306Display::init`] runs the crate's initialisation (horizontal addressing, charge
//!   pump, 128x64 geometry, the [`Rotation`] as segment remap and COM scan direction), then
//!   turns the panel off again and sets the contrast: the panel stays dark until the first
//!   frame is in its memory, so a player never sees the power-on noise.
//! * [`PlayerDisplay::show`] writes the whole frame (column window 0..=127, page window
//!   0..=7, 1024 data bytes in writes of 16), then turns the panel on if it was off. A frame
//!   equal to the last one written costs nothing, so the caller can call at 10 Hz.
//! * Any bus error comes back as [`Ssd1306Error`] naming the address, and makes the next
//!   `show` initialise the display again before writing the whole frame: a module that
//!   lost power or was replugged comes back by itself.
//!
//! Two displays on one bus (0x3C and 0x3D): give each driver a clone of one [`SharedI2c`]
//! ([`Ssd1306Display::pair`]); any other `embedded-hal` bus sharing works too (for instance
//! `embedded_hal_bus::i2c::RefCellDevice` inside one thread).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ::ssd1306::mode::BasicMode;
use ::ssd1306::prelude::{Brightness, DisplayRotation, DisplaySize128x64, I2CInterface};
use ::ssd1306::{command::AddrMode, I2CDisplayInterface, Ssd1306};
use embedded_hal::i2c::{Error as _, ErrorKind, ErrorType, I2c, Operation, SevenBitAddress};
use thiserror::Error;

use crate::display::{DisplayFrame, PlayerDisplay, Rotation, FRAME_BYTES, HEIGHT, WIDTH};

/// Black's display's usual address (the module's address jumper in its default place).
pub const BLACK_ADDRESS: u8 = 0x3C;
/// White's display's usual address (the module's address jumper moved).
pub const WHITE_ADDRESS: u8 = 0x3D;
/// The contrast when none is given: the controller's own reset value.
pub const DEFAULT_CONTRAST: u8 = 0x7F;

/// A display's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ssd1306Config {
    /// The 7-bit I2C address (0x3C or 0x3D on these modules).
    pub address: u8,
    /// How the module is mounted.
    pub rotation: Rotation,
    /// The contrast, 0..=255 (the controller's `0x81` command).
    pub contrast: u8,
}

impl Ssd1306Config {
    /// A display at `address`, mounted as `rotation`, at [`DEFAULT_CONTRAST`].
    pub const fn new(address: u8, rotation: Rotation) -> Ssd1306Config {
        Ssd1306Config {
            address,
            rotation,
            contrast: DEFAULT_CONTRAST,
        }
    }
}

/// A display could not be written.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Ssd1306Error {
    /// The I2C bus failed (a display not answering gives `NoAcknowledge`).
    #[error("display at I2C address {address:#04x}: {kind}: {detail}")]
    Bus {
        /// The display's address.
        address: u8,
        /// The embedded-hal error kind.
        kind: ErrorKind,
        /// The bus driver's own description.
        detail: String,
    },
    /// The `ssd1306` crate refused something without a bus error.
    #[error("display at I2C address {address:#04x}: {detail}")]
    Driver {
        /// The display's address.
        address: u8,
        /// The crate's description.
        detail: String,
    },
}

impl Ssd1306Error {
    /// The address of the display that failed.
    pub fn address(&self) -> u8 {
        match self {
            Ssd1306Error::Bus { address, .. } | Ssd1306Error::Driver { address, .. } => *address,
        }
    }
}

/// What a driver has done, for logs and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DisplayStats {
    /// Initialisations attempted (each `show` after an error tries one).
    pub inits: u64,
    /// Frames written to the display.
    pub frames_written: u64,
    /// `show` calls that wrote nothing (same frame as on the display).
    pub frames_skipped: u64,
    /// Calls that failed.
    pub errors: u64,
}

/// The last bus error seen under the `ssd1306` crate, which keeps only "bus write error".
type FaultSlot = Arc<Mutex<Option<(ErrorKind, String)>>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves the bus or the slot usable.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The bus under the crate's interface: passes everything through and keeps the kind and
/// the description of an error, which the crate's `DisplayError` loses.
struct Recorder<I2C> {
    i2c: I2C,
    fault: FaultSlot,
}

impl<I2C: I2c> Recorder<I2C> {
    fn note<T>(&self, r: Result<T, I2C::Error>) -> Result<T, I2C::Error> {
        if let Err(e) = &r {
            *lock(&self.fault) = Some((e.kind(), format!("{e:?}")));
        }
        r
    }
}

impl<I2C: I2c> ErrorType for Recorder<I2C> {
    type Error = I2C::Error;
}

impl<I2C: I2c> I2c for Recorder<I2C> {
    fn read(&mut self, address: u8, read: &mut [u8]) -> Result<(), Self::Error> {
        let r = self.i2c.read(address, read);
        self.note(r)
    }

    fn write(&mut self, address: u8, write: &[u8]) -> Result<(), Self::Error> {
        let r = self.i2c.write(address, write);
        self.note(r)
    }

    fn write_read(
        &mut self,
        address: u8,
        write: &[u8],
        read: &mut [u8],
    ) -> Result<(), Self::Error> {
        let r = self.i2c.write_read(address, write, read);
        self.note(r)
    }

    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        let r = self.i2c.transaction(address, operations);
        self.note(r)
    }
}

type Oled<I2C> = Ssd1306<I2CInterface<Recorder<I2C>>, DisplaySize128x64, BasicMode>;

/// One SSD1306 128x64 display on an I2C bus; implements [`PlayerDisplay`].
pub struct Ssd1306Display<I2C> {
    oled: Oled<I2C>,
    config: Ssd1306Config,
    fault: FaultSlot,
    /// The initialisation went through since the last error.
    ready: bool,
    /// The panel is on (only after a frame was written).
    on: bool,
    /// The frame in the display's memory, when known.
    last: Option<DisplayFrame>,
    stats: DisplayStats,
}

impl<I2C> std::fmt::Debug for Ssd1306Display<I2C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ssd1306Display")
            .field("config", &self.config)
            .field("ready", &self.ready)
            .field("on", &self.on)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<I2C: I2c<SevenBitAddress>> Ssd1306Display<I2C> {
    /// A driver for the display `config` describes on `i2c`. Nothing is sent yet: the
    /// first [`init`](Self::init) or [`PlayerDisplay::show`] initialises the display, so a
    /// display missing at start-up does not stop the board.
    pub fn new(i2c: I2C, config: Ssd1306Config) -> Ssd1306Display<I2C> {
        let fault = FaultSlot::default();
        let recorder = Recorder {
            i2c,
            fault: fault.clone(),
        };
        let interface = I2CDisplayInterface::new_custom_address(recorder, config.address);
        let rotation = match config.rotation {
            Rotation::Upright => DisplayRotation::Rotate0,
            Rotation::UpsideDown => DisplayRotation::Rotate180,
        };
        Ssd1306Display {
            oled: Ssd1306::new(interface, DisplaySize128x64, rotation),
            config,
            fault,
            ready: false,
            on: false,
            last: None,
            stats: DisplayStats::default(),
        }
    }

    /// The display's settings.
    pub fn config(&self) -> Ssd1306Config {
        self.config
    }

    /// What the driver has done so far.
    pub fn stats(&self) -> DisplayStats {
        self.stats
    }

    /// Whether the panel is lit (a frame was written and nothing failed since).
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Initialises the display (see the module documentation); the panel stays off until
    /// the next [`PlayerDisplay::show`]. Call it again to recover a display by hand.
    pub fn init(&mut self) -> Result<(), Ssd1306Error> {
        self.ready = false;
        self.on = false;
        self.last = None;
        let r = self.init_sequence();
        self.finish(r)
    }

    /// Sets the contrast (sent now if the display is initialised, else at its
    /// initialisation).
    pub fn set_contrast(&mut self, contrast: u8) -> Result<(), Ssd1306Error> {
        self.config.contrast = contrast;
        if !self.ready {
            return Ok(());
        }
        let r = self.send_contrast();
        self.finish(r)
    }

    /// Turns the panel off (its memory is kept); the next [`PlayerDisplay::show`] turns it
    /// on again.
    pub fn blank(&mut self) -> Result<(), Ssd1306Error> {
        if !self.ready || !self.on {
            return Ok(());
        }
        let r = match self.oled.set_display_on(false) {
            Ok(()) => {
                self.on = false;
                Ok(())
            }
            Err(e) => Err(self.error(e)),
        };
        self.finish(r)
    }

    /// Gives the bus back.
    pub fn release(self) -> I2C {
        self.oled.release().release().i2c
    }

    fn init_sequence(&mut self) -> Result<(), Ssd1306Error> {
        self.stats.inits += 1;
        self.oled
            .init_with_addr_mode(AddrMode::Horizontal)
            .map_err(|e| self.error(e))?;
        // The crate's init ends with the panel on, showing whatever the memory holds.
        self.oled.set_display_on(false).map_err(|e| self.error(e))?;
        self.send_contrast()?;
        self.ready = true;
        Ok(())
    }

    fn send_contrast(&mut self) -> Result<(), Ssd1306Error> {
        // Pre-charge phase 2 = 2 DCLKs, as the crate's own brightness levels use.
        let brightness = Brightness::custom(2, self.config.contrast);
        self.oled
            .set_brightness(brightness)
            .map_err(|e| self.error(e))
    }

    fn write_frame(&mut self, frame: &DisplayFrame) -> Result<(), Ssd1306Error> {
        if !self.ready {
            self.init_sequence()?;
        }
        self.last = None;
        // Exactly 128x64, so the casts cannot truncate.
        let end = (WIDTH as u8, HEIGHT as u8);
        self.oled
            .set_draw_area((0, 0), end)
            .map_err(|e| self.error(e))?;
        self.oled.draw(frame).map_err(|e| self.error(e))?;
        self.last = Some(*frame);
        self.stats.frames_written += 1;
        if !self.on {
            self.oled.set_display_on(true).map_err(|e| self.error(e))?;
            self.on = true;
        }
        Ok(())
    }

    /// After a failure, nothing about the display is known any more: start over.
    fn finish(&mut self, r: Result<(), Ssd1306Error>) -> Result<(), Ssd1306Error> {
        if r.is_err() {
            self.stats.errors += 1;
            self.ready = false;
            self.on = false;
            self.last = None;
        }
        r
    }

    /// The crate's `DisplayError` (a `display-interface` type, not one of our dependencies)
    /// with the bus error behind it, if any.
    fn error(&self, e: impl std::fmt::Debug) -> Ssd1306Error {
        let address = self.config.address;
        match lock(&self.fault).take() {
            Some((kind, detail)) => Ssd1306Error::Bus {
                address,
                kind,
                detail,
            },
            None => Ssd1306Error::Driver {
                address,
                detail: format!("{e:?}"),
            },
        }
    }
}

impl<I2C: I2c<SevenBitAddress>> PlayerDisplay for Ssd1306Display<I2C> {
    type Error = Ssd1306Error;

    fn show(&mut self, frame: &[u8; FRAME_BYTES]) -> Result<(), Ssd1306Error> {
        if self.on && self.last.as_ref() == Some(frame) {
            self.stats.frames_skipped += 1;
            return Ok(());
        }
        if self.ready && !self.on && self.last.as_ref() == Some(frame) {
            // Blanked with this frame in memory: only the panel needs turning on.
            let r = match self.oled.set_display_on(true) {
                Ok(()) => {
                    self.on = true;
                    Ok(())
                }
                Err(e) => Err(self.error(e)),
            };
            return self.finish(r);
        }
        let r = self.write_frame(frame);
        self.finish(r)
    }
}

impl<I2C: I2c<SevenBitAddress>> Ssd1306Display<SharedI2c<I2C>> {
    /// Black's and White's displays on one bus (each driver gets a handle on it).
    pub fn pair(
        bus: I2C,
        black: Ssd1306Config,
        white: Ssd1306Config,
    ) -> (
        Ssd1306Display<SharedI2c<I2C>>,
        Ssd1306Display<SharedI2c<I2C>>,
    ) {
        let bus = SharedI2c::new(bus);
        (
            Ssd1306Display::new(bus.clone(), black),
            Ssd1306Display::new(bus, white),
        )
    }
}

/// One I2C bus shared by several drivers, each holding a clone: every transaction takes the
/// bus for its duration, so the drivers may live on different threads.
#[derive(Debug)]
pub struct SharedI2c<I2C> {
    bus: Arc<Mutex<I2C>>,
}

impl<I2C> Clone for SharedI2c<I2C> {
    fn clone(&self) -> Self {
        SharedI2c {
            bus: Arc::clone(&self.bus),
        }
    }
}

impl<I2C> SharedI2c<I2C> {
    /// Shares `bus`.
    pub fn new(bus: I2C) -> SharedI2c<I2C> {
        SharedI2c {
            bus: Arc::new(Mutex::new(bus)),
        }
    }

    /// The bus itself, held until the guard is dropped (to look at a simulated bus, say).
    pub fn lock(&self) -> MutexGuard<'_, I2C> {
        lock(&self.bus)
    }
}

impl<I2C: ErrorType> ErrorType for SharedI2c<I2C> {
    type Error = I2C::Error;
}

impl<I2C: I2c> I2c for SharedI2c<I2C> {
    fn read(&mut self, address: u8, read: &mut [u8]) -> Result<(), Self::Error> {
        self.lock().read(address, read)
    }

    fn write(&mut self, address: u8, write: &[u8]) -> Result<(), Self::Error> {
        self.lock().write(address, write)
    }

    fn write_read(
        &mut self,
        address: u8,
        write: &[u8],
        read: &mut [u8],
    ) -> Result<(), Self::Error> {
        self.lock().write_read(address, write, read)
    }

    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Self::Error> {
        self.lock().transaction(address, operations)
    }
}

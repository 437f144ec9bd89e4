//! An emulated I2C bus with SSD1306 128x64 OLED displays on it, so the simulated board
//! drives the real display driver (`tengen_hal::driver::Ssd1306Display`) and a test or the
//! simulator can look at what each player sees.
//!
//! [`Ssd1306Bus`] implements `embedded_hal::i2c::I2c`. A write to an address with no
//! display (or an unplugged one, [`Ssd1306Bus::set_connected`]) fails with
//! `NoAcknowledge`, as on a real bus. Each display decodes what it is sent as the
//! controller does:
//!
//! * the control byte: `Co` (bit 7) and `D/C#` (bit 6). `0x00` makes the rest of the
//!   message commands, `0x40` data; with `Co` set only the next byte is, then another
//!   control byte follows. A command's parameters may come in later messages (some drivers
//!   send every byte on its own);
//! * the addressing modes (horizontal, vertical, page), the column and page windows
//!   (`0x21`, `0x22`), the page-mode pointers (`0x00..=0x1F`, `0xB0..=0xB7`);
//! * segment remap (`0xA0`/`0xA1`: applied when data is written, as on the chip: it does not
//!   move what is already in memory), COM scan direction (`0xC0`/`0xC8`: applied when the
//!   panel is scanned), multiplex ratio, display offset, start line;
//! * display on/off, charge pump, contrast, invert, entire display on; the others
//!   (clock, pre-charge, COM pins, VCOMH, scrolling, no-op) are recorded or skipped with the
//!   right number of parameters. A command byte it does not know is skipped and counted.
//!
//! Reading a display returns its status byte (bit 6 set while the display is off).
//!
//! What a player sees ([`EmulatedSsd1306::visible`], [`Ssd1306Bus::frame`]) is in the
//! frame format of `tengen_hal::display`: upright for the player, after the controller's
//! remap and scan direction and the way the module is mounted. The module's native
//! orientation is the one the `ssd1306` crate calls `Rotate0` (segment remap on, COM scan
//! reversed): a module mounted upside down and driven with `Rotation::UpsideDown` shows
//! the player an upright frame. Scrolling is recorded but not animated; the COM pin
//! configuration is recorded, and the panel is assumed wired for the value 128x64
//! modules need (`0x12`).

use embedded_hal::i2c::{ErrorKind, ErrorType, I2c, NoAcknowledgeSource, Operation};
use tengen_hal::display::{DisplayFrame, Rotation, FRAME_BYTES, HEIGHT, WIDTH};
use thiserror::Error;

/// The emulated bus refused a transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Ssd1306BusError {
    /// Nothing answered at this address (no display there, or it is unplugged).
    #[error("no device acknowledged I2C address {address:#04x}")]
    NoAcknowledge {
        /// The address written to.
        address: u8,
    },
}

impl embedded_hal::i2c::Error for Ssd1306BusError {
    fn kind(&self) -> ErrorKind {
        match self {
            Ssd1306BusError::NoAcknowledge { .. } => {
                ErrorKind::NoAcknowledge(NoAcknowledgeSource::Address)
            }
        }
    }
}

/// The emulated bus could not be set up as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Ssd1306SetupError {
    /// Two displays at one address.
    #[error("two displays at I2C address {0:#04x}")]
    DuplicateAddress(u8),
    /// Not a 7-bit address a device may use (0x08..=0x77).
    #[error("I2C address {0:#04x} is reserved or not 7-bit")]
    InvalidAddress(u8),
}

/// The controller's addressing mode (`0x20`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressingMode {
    /// Column then page, inside the column and page windows.
    Horizontal,
    /// Page then column, inside the windows.
    Vertical,
    /// Along one page (the controller's reset mode).
    Page,
}

/// Traffic counters of one display.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DisplayTraffic {
    /// Write messages to this display (a transaction's run of writes is one message).
    pub messages: u64,
    /// Bytes written to it, control bytes included (the address byte not).
    pub bytes: u64,
    /// Control bytes among them.
    pub control_bytes: u64,
    /// Command bytes (commands and their parameters).
    pub command_bytes: u64,
    /// Data bytes (written to display memory).
    pub data_bytes: u64,
    /// Command bytes the emulator does not know (skipped).
    pub unknown_commands: u64,
    /// Reads of the status byte.
    pub status_reads: u64,
}

/// Traffic counters of the whole bus.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BusTraffic {
    /// Transactions (one `I2c::transaction`, `write`, `read` or `write_read` each).
    pub transactions: u64,
    /// Messages on the wire (a start or repeated start, the address byte, its bytes).
    pub messages: u64,
    /// Bytes after the address bytes, both directions.
    pub bytes: u64,
    /// Messages no device acknowledged.
    pub nacks: u64,
}

impl BusTraffic {
    /// Bit times on the wire: per message a start, the address byte and its acknowledge
    /// (9), 9 per byte and a stop (an upper bound: repeated starts have no stop).
    pub fn bit_times(&self) -> u64 {
        self.messages * 11 + self.bytes * 9
    }

    /// How long the bus was busy at `clock_hz` (100 kHz standard mode, 400 kHz fast mode),
    /// ignoring the master's gaps between messages.
    pub fn busy_time(&self, clock_hz: u32) -> std::time::Duration {
        let nanos = u128::from(self.bit_times()) * 1_000_000_000 / u128::from(clock_hz.max(1));
        std::time::Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
    }
}

/// A command waiting for its parameters.
#[derive(Debug, Clone, Copy)]
struct Pending {
    command: u8,
    needed: usize,
    got: usize,
    params: [u8; 6],
}

/// Where the next byte of a message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A control byte.
    Control,
    /// One command byte (`Co` set), then a control byte.
    OneCommand,
    /// One data byte (`Co` set), then a control byte.
    OneData,
    /// Commands to the end of the message.
    Commands,
    /// Data to the end of the message.
    Data,
}

/// One emulated SSD1306 128x64 controller and its panel.
#[derive(Debug, Clone)]
pub struct EmulatedSsd1306 {
    address: u8,
    mount: Rotation,
    connected: bool,
    /// Display memory by physical segment: `page * 128 + segment`.
    ram: DisplayFrame,
    mode: AddressingMode,
    col_start: u8,
    col_end: u8,
    page_start: u8,
    page_end: u8,
    col: u8,
    page: u8,
    /// Column start of page addressing mode (`0x00..=0x1F`).
    page_mode_col: u8,
    segment_remap: bool,
    com_reversed: bool,
    multiplex: u8,
    offset: u8,
    start_line: u8,
    on: bool,
    charge_pump: bool,
    contrast: u8,
    inverted: bool,
    all_on: bool,
    scrolling: bool,
    com_pins: u8,
    clock: u8,
    precharge: u8,
    vcomh: u8,
    pending: Option<Pending>,
    expect: Expect,
    stats: DisplayTraffic,
}

impl EmulatedSsd1306 {
    /// A display just powered on at `address`, mounted as `mount`: off, its memory noise.
    fn new(address: u8, mount: Rotation) -> EmulatedSsd1306 {
        let mut ram = [0u8; FRAME_BYTES];
        // Power-on memory is whatever it is: a fixed noise per address.
        let mut x = 0x9E37_79B9_u32 ^ u32::from(address);
        for b in ram.iter_mut() {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *b = x as u8;
        }
        EmulatedSsd1306 {
            address,
            mount,
            connected: true,
            ram,
            mode: AddressingMode::Page,
            col_start: 0,
            col_end: 127,
            page_start: 0,
            page_end: 7,
            col: 0,
            page: 0,
            page_mode_col: 0,
            segment_remap: false,
            com_reversed: false,
            multiplex: 64,
            offset: 0,
            start_line: 0,
            on: false,
            charge_pump: false,
            contrast: 0x7F,
            inverted: false,
            all_on: false,
            scrolling: false,
            com_pins: 0x12,
            clock: 0x80,
            precharge: 0x22,
            vcomh: 0x20,
            pending: None,
            expect: Expect::Control,
            stats: DisplayTraffic::default(),
        }
    }

    /// The display's I2C address.
    pub fn address(&self) -> u8 {
        self.address
    }

    /// How the module is mounted in the board.
    pub fn mount(&self) -> Rotation {
        self.mount
    }

    /// Whether the display is plugged in (answers on the bus).
    pub fn is_connected(&self) -> bool {
        self.connected
    }

    /// Whether the controller was told to turn the panel on (`0xAF`).
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Whether the panel actually lights: on, with the charge pump enabled (these modules
    /// have no other supply for the panel).
    pub fn is_lit(&self) -> bool {
        self.on && self.charge_pump
    }

    /// The contrast register (`0x81`).
    pub fn contrast(&self) -> u8 {
        self.contrast
    }

    /// The addressing mode.
    pub fn addressing_mode(&self) -> AddressingMode {
        self.mode
    }

    /// Segment remap (`0xA1`) and COM scan reversed (`0xC8`).
    pub fn remap(&self) -> (bool, bool) {
        (self.segment_remap, self.com_reversed)
    }

    /// The multiplex ratio (rows driven, 16..=64).
    pub fn multiplex(&self) -> u8 {
        self.multiplex
    }

    /// Whether scrolling was activated (`0x2F`; not animated).
    pub fn is_scrolling(&self) -> bool {
        self.scrolling
    }

    /// The registers with no effect on the emulated image: COM pins (`0xDA`), clock
    /// (`0xD5`), pre-charge (`0xD9`), VCOMH (`0xDB`).
    pub fn analog_settings(&self) -> [u8; 4] {
        [self.com_pins, self.clock, self.precharge, self.vcomh]
    }

    /// Traffic counters.
    pub fn stats(&self) -> DisplayTraffic {
        self.stats
    }

    /// Display memory by physical segment (`page * 128 + segment`), as the chip holds it.
    pub fn gddram(&self) -> &DisplayFrame {
        &self.ram
    }

    /// The lit pixels of the panel in the module's native orientation (ignoring how it is
    /// mounted), in frame format. All dark while the panel is not lit.
    pub fn panel(&self) -> DisplayFrame {
        let mut out = [0u8; FRAME_BYTES];
        if !self.is_lit() {
            return out;
        }
        let mux = usize::from(self.multiplex);
        for y in 0..HEIGHT {
            // Panel row y (from the top) is wired to COM pin 63 - y.
            let pin = HEIGHT - 1 - y;
            let scan = if self.com_reversed {
                match (mux - 1).checked_sub(pin) {
                    Some(k) => k,
                    None => continue,
                }
            } else {
                pin
            };
            if scan >= mux {
                continue;
            }
            let row = (scan + usize::from(self.start_line) + usize::from(self.offset)) % HEIGHT;
            for x in 0..WIDTH {
                // Panel column x is segment 127 - x.
                let seg = WIDTH - 1 - x;
                let stored = self.ram[(row / 8) * WIDTH + seg] & (1 << (row % 8)) != 0;
                let lit = self.all_on || (stored != self.inverted);
                if lit {
                    out[(y / 8) * WIDTH + x] |= 1 << (y % 8);
                }
            }
        }
        out
    }

    /// What the player sees, upright for them: the panel turned by the mounting. All dark
    /// while the panel is not lit.
    pub fn visible(&self) -> DisplayFrame {
        let panel = self.panel();
        match self.mount {
            Rotation::Upright => panel,
            Rotation::UpsideDown => tengen_hal::display::rotate_180(&panel),
        }
    }

    /// Power lost and back: every register to its reset value, memory noise, off.
    fn power_cycle(&mut self) {
        let stats = self.stats;
        let connected = self.connected;
        *self = EmulatedSsd1306::new(self.address, self.mount);
        self.stats = stats;
        self.connected = connected;
    }

    /// A new message (start or repeated start) addressed to this display.
    fn begin_message(&mut self) {
        self.expect = Expect::Control;
        self.stats.messages += 1;
    }

    fn receive(&mut self, byte: u8) {
        self.stats.bytes += 1;
        match self.expect {
            Expect::Control => {
                self.stats.control_bytes += 1;
                let data = byte & 0x40 != 0;
                self.expect = match (byte & 0x80 != 0, data) {
                    (true, false) => Expect::OneCommand,
                    (true, true) => Expect::OneData,
                    (false, false) => Expect::Commands,
                    (false, true) => Expect::Data,
                };
            }
            Expect::OneCommand => {
                self.command_byte(byte);
                self.expect = Expect::Control;
            }
            Expect::OneData => {
                self.data_byte(byte);
                self.expect = Expect::Control;
            }
            Expect::Commands => self.command_byte(byte),
            Expect::Data => self.data_byte(byte),
        }
    }

    fn data_byte(&mut self, byte: u8) {
        self.stats.data_bytes += 1;
        let seg = if self.segment_remap {
            127 - self.col
        } else {
            self.col
        };
        self.ram[usize::from(self.page) * WIDTH + usize::from(seg)] = byte;
        match self.mode {
            AddressingMode::Horizontal => {
                if self.col >= self.col_end {
                    self.col = self.col_start;
                    self.page = if self.page >= self.page_end {
                        self.page_start
                    } else {
                        self.page + 1
                    };
                } else {
                    self.col += 1;
                }
            }
            AddressingMode::Vertical => {
                if self.page >= self.page_end {
                    self.page = self.page_start;
                    self.col = if self.col >= self.col_end {
                        self.col_start
                    } else {
                        self.col + 1
                    };
                } else {
                    self.page += 1;
                }
            }
            AddressingMode::Page => {
                self.col = if self.col >= 127 {
                    self.page_mode_col
                } else {
                    self.col + 1
                };
            }
        }
    }

    /// The number of parameter bytes a command takes, `None` for a byte the emulator does
    /// not know.
    fn parameters(command: u8) -> Option<usize> {
        Some(match command {
            0x20 | 0x81 | 0x8D | 0xA8 | 0xD3 | 0xD5 | 0xD9 | 0xDA | 0xDB => 1,
            0x21 | 0x22 | 0xA3 => 2,
            0x26 | 0x27 => 6,
            0x29 | 0x2A => 5,
            0x00..=0x1F
            | 0x2E
            | 0x2F
            | 0x40..=0x7F
            | 0xA0
            | 0xA1
            | 0xA4..=0xA7
            | 0xAE
            | 0xAF
            | 0xB0..=0xB7
            | 0xC0..=0xCF
            | 0xE3 => 0,
            _ => return None,
        })
    }

    fn command_byte(&mut self, byte: u8) {
        self.stats.command_bytes += 1;
        if let Some(mut p) = self.pending.take() {
            p.params[p.got] = byte;
            p.got += 1;
            if p.got == p.needed {
                self.execute(p.command, &p.params[..p.needed]);
            } else {
                self.pending = Some(p);
            }
            return;
        }
        match Self::parameters(byte) {
            None => self.stats.unknown_commands += 1,
            Some(0) => self.execute(byte, &[]),
            Some(needed) => {
                self.pending = Some(Pending {
                    command: byte,
                    needed,
                    got: 0,
                    params: [0; 6],
                })
            }
        }
    }

    fn execute(&mut self, command: u8, p: &[u8]) {
        let arg = |i: usize| p.get(i).copied().unwrap_or(0);
        match command {
            0x00..=0x0F => {
                self.page_mode_col = (self.page_mode_col & 0xF0) | (command & 0x0F);
                self.col = self.page_mode_col & 0x7F;
            }
            0x10..=0x1F => {
                self.page_mode_col = (self.page_mode_col & 0x0F) | ((command & 0x07) << 4);
                self.col = self.page_mode_col & 0x7F;
            }
            0x20 => match arg(0) & 0x03 {
                0 => self.mode = AddressingMode::Horizontal,
                1 => self.mode = AddressingMode::Vertical,
                2 => self.mode = AddressingMode::Page,
                _ => self.stats.unknown_commands += 1,
            },
            0x21 => {
                self.col_start = arg(0) & 0x7F;
                self.col_end = arg(1) & 0x7F;
                self.col = self.col_start;
            }
            0x22 => {
                self.page_start = arg(0) & 0x07;
                self.page_end = arg(1) & 0x07;
                self.page = self.page_start;
            }
            0x26 | 0x27 | 0x29 | 0x2A | 0xA3 | 0xE3 => {}
            0x2E => self.scrolling = false,
            0x2F => self.scrolling = true,
            0x40..=0x7F => self.start_line = command & 0x3F,
            0x81 => self.contrast = arg(0),
            0x8D => self.charge_pump = arg(0) & 0x04 != 0,
            0xA0 | 0xA1 => self.segment_remap = command & 1 != 0,
            0xA4 | 0xA5 => self.all_on = command & 1 != 0,
            0xA6 | 0xA7 => self.inverted = command & 1 != 0,
            0xA8 => {
                let mux = arg(0) & 0x3F;
                if mux >= 15 {
                    self.multiplex = mux + 1;
                } else {
                    // 0..=14 are invalid on the chip: ignored.
                    self.stats.unknown_commands += 1;
                }
            }
            0xAE | 0xAF => self.on = command & 1 != 0,
            0xB0..=0xB7 => self.page = command & 0x07,
            0xC0..=0xCF => self.com_reversed = command & 0x08 != 0,
            0xD3 => self.offset = arg(0) & 0x3F,
            0xD5 => self.clock = arg(0),
            0xD9 => self.precharge = arg(0),
            0xDA => self.com_pins = arg(0),
            0xDB => self.vcomh = arg(0),
            _ => self.stats.unknown_commands += 1,
        }
    }

    fn status(&self) -> u8 {
        if self.on {
            0x00
        } else {
            0x40
        }
    }
}

/// An I2C bus with emulated SSD1306 displays on it; implements `embedded_hal::i2c::I2c`.
/// To drive two displays from two drivers, share it (for instance with
/// `tengen_hal::driver::SharedI2c`, whose `lock` then gives the bus back to look at).
#[derive(Debug, Clone, Default)]
pub struct Ssd1306Bus {
    displays: Vec<EmulatedSsd1306>,
    stats: BusTraffic,
}

impl Ssd1306Bus {
    /// A bus with a display at each `(address, mount)`, just powered on.
    pub fn new(displays: &[(u8, Rotation)]) -> Result<Ssd1306Bus, Ssd1306SetupError> {
        let mut bus = Ssd1306Bus::default();
        for &(address, mount) in displays {
            bus.add_display(address, mount)?;
        }
        Ok(bus)
    }

    /// Black's display at 0x3C and White's at 0x3D, mounted as given.
    pub fn players(black: Rotation, white: Rotation) -> Ssd1306Bus {
        Ssd1306Bus {
            displays: vec![
                EmulatedSsd1306::new(0x3C, black),
                EmulatedSsd1306::new(0x3D, white),
            ],
            stats: BusTraffic::default(),
        }
    }

    /// Puts one more display on the bus.
    pub fn add_display(&mut self, address: u8, mount: Rotation) -> Result<(), Ssd1306SetupError> {
        if !(0x08..=0x77).contains(&address) {
            return Err(Ssd1306SetupError::InvalidAddress(address));
        }
        if self.display(address).is_some() {
            return Err(Ssd1306SetupError::DuplicateAddress(address));
        }
        self.displays.push(EmulatedSsd1306::new(address, mount));
        Ok(())
    }

    /// The display at `address`, if there is one.
    pub fn display(&self, address: u8) -> Option<&EmulatedSsd1306> {
        self.displays.iter().find(|d| d.address == address)
    }

    /// What the player in front of the display at `address` sees (see
    /// [`EmulatedSsd1306::visible`]); `None` when no display is there.
    pub fn frame(&self, address: u8) -> Option<DisplayFrame> {
        self.display(address).map(EmulatedSsd1306::visible)
    }

    /// Whether the display at `address` is lit (`None` when no display is there).
    pub fn is_on(&self, address: u8) -> Option<bool> {
        self.display(address).map(EmulatedSsd1306::is_lit)
    }

    /// The whole bus's traffic.
    pub fn stats(&self) -> BusTraffic {
        self.stats
    }

    /// Sets every counter (the bus's and each display's) back to zero.
    pub fn reset_stats(&mut self) {
        self.stats = BusTraffic::default();
        for d in &mut self.displays {
            d.stats = DisplayTraffic::default();
        }
    }

    /// Unplugs (`false`) or plugs back (`true`) the display at `address`: unplugged, it does
    /// not answer; plugged back, it starts as just powered on. Returns whether a display is
    /// at that address.
    pub fn set_connected(&mut self, address: u8, connected: bool) -> bool {
        let Some(d) = self.displays.iter_mut().find(|d| d.address == address) else {
            return false;
        };
        if connected && !d.connected {
            d.connected = true;
            d.power_cycle();
        } else if !connected {
            d.connected = false;
        }
        true
    }

    /// Every display on the bus.
    pub fn displays(&self) -> &[EmulatedSsd1306] {
        &self.displays
    }
}

impl ErrorType for Ssd1306Bus {
    type Error = Ssd1306BusError;
}

impl I2c for Ssd1306Bus {
    fn transaction(
        &mut self,
        address: u8,
        operations: &mut [Operation<'_>],
    ) -> Result<(), Ssd1306BusError> {
        self.stats.transactions += 1;
        let stats = &mut self.stats;
        let Some(display) = self
            .displays
            .iter_mut()
            .find(|d| d.address == address && d.connected)
        else {
            // The first address byte is not acknowledged: the transaction stops there.
            stats.messages += 1;
            stats.nacks += 1;
            return Err(Ssd1306BusError::NoAcknowledge { address });
        };
        // Adjacent operations of one kind are one message on the wire (no repeated start).
        let mut previous_was_write = None;
        for op in operations.iter_mut() {
            match op {
                Operation::Write(bytes) => {
                    if previous_was_write != Some(true) {
                        stats.messages += 1;
                        display.begin_message();
                    }
                    previous_was_write = Some(true);
                    stats.bytes += bytes.len() as u64;
                    for &b in bytes.iter() {
                        display.receive(b);
                    }
                }
                Operation::Read(buffer) => {
                    if previous_was_write != Some(false) {
                        stats.messages += 1;
                    }
                    previous_was_write = Some(false);
                    stats.bytes += buffer.len() as u64;
                    display.stats.status_reads += buffer.len() as u64;
                    buffer.fill(display.status());
                }
            }
        }
        Ok(())
    }
}

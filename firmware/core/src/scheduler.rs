//! The firmware's main loop as one call: [`Firmware::poll`] at any time, with the board
//! (address lines, ADC, buttons, the clock) and the link (the transmit queue) given; it
//! says when it wants to be called next. Everything the firmware decides is here, so the
//! host tests run exactly what the microcontroller runs.
//!
//! Per call, in this order: the boot hello on the very first call (sequence 0); the
//! buttons sampled and debounced (a debounced edge goes out at once as a BUTTON message
//! stamped with its sample's time); a scan if its slot has come (stamped with its start,
//! the buttons sampled again between the 16 first-level addresses); a hello with the
//! status counters if a second has passed since the last.
//!
//! Scans keep a fixed grid: slot `k` is at `first + k * period`, whatever each scan took.
//! A scan that starts late keeps the grid (the next one is not pushed back); a loop late
//! by a whole period or more skips the missed slots and counts each in
//! [`Status::overruns`], rather than sending a burst of scans of the same instant.

use crate::debounce::Debouncer;
use crate::frame::{Button, FrameEncoder, Hello, Message, Status, MAX_FRAME_LEN, MAX_WIRE_LEN};
use crate::mux_scan::{MuxPlan, ScanBus};

/// The most points a scan can hold (25x25).
pub const MAX_POINTS: usize = 625;

/// How raw readings go on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanFormat {
    /// 12-bit readings, two in three bytes (564 bytes a 19x19 scan on the wire).
    Raw12,
    /// A u16 each (744 bytes a 19x19 scan).
    Raw16,
}

/// How the firmware runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Lines on the board.
    pub size: u8,
    /// Scans per second.
    pub scan_hz: u16,
    /// Bits of the ADC, announced in the hello.
    pub adc_bits: u8,
    /// The firmware's version, announced in the hello.
    pub firmware: [u8; 3],
    /// How readings are sent.
    pub format: ScanFormat,
    /// A hello every this many ms after the boot hello.
    pub hello_every_ms: u32,
    /// The buttons' debounce window (ms).
    pub debounce_ms: u32,
    /// The longest wait between two calls (µs): how often the buttons are sampled between
    /// scans.
    pub tick_us: u32,
}

impl Config {
    /// A 19x19 board at 100 scans a second, 12-bit readings, buttons sampled every ms.
    pub const fn standard() -> Config {
        Config {
            size: 19,
            scan_hz: 100,
            adc_bits: 12,
            firmware: crate::FIRMWARE_VERSION,
            format: ScanFormat::Raw12,
            hello_every_ms: 1000,
            debounce_ms: crate::debounce::DEBOUNCE_MS,
            tick_us: 1000,
        }
    }

    /// The scan period (µs).
    pub const fn period_us(&self) -> u64 {
        1_000_000
            / if self.scan_hz == 0 {
                1
            } else {
                self.scan_hz as u64
            }
    }
}

/// Why a configuration cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigError {
    /// The board size is 0 or above 25 (the protocol's largest).
    BoardSize,
    /// A scan rate of 0, or above 1000 (one scan per ms).
    ScanRate,
}

/// The board as the firmware sees it: the scan bus, the buttons and a microsecond clock.
pub trait Board: ScanBus {
    /// Microseconds since reset (a free-running hardware timer).
    fn now_us(&mut self) -> u64;
    /// The buttons' contacts, Black's then White's: true while closed.
    fn buttons(&mut self) -> [bool; 2];
}

/// Where whole frames go (the transmit queue).
pub trait Link {
    /// Queues `frame` whole and returns true, or drops it whole and returns false.
    fn send(&mut self, frame: &[u8]) -> bool;
}

/// Numbers, encodes and queues messages; counts what is dropped.
#[derive(Debug, Clone)]
struct Sender {
    encoder: FrameEncoder,
    scratch: [u8; MAX_FRAME_LEN],
    wire: [u8; MAX_WIRE_LEN],
    dropped: u32,
}

impl Sender {
    fn send<L: Link>(&mut self, link: &mut L, time_ms: u32, msg: &Message<'_>) {
        match self
            .encoder
            .encode(time_ms, msg, &mut self.scratch, &mut self.wire)
        {
            Ok(n) => {
                if !link.send(&self.wire[..n]) {
                    // The sequence number is used: the receiver sees the gap.
                    self.dropped = self.dropped.saturating_add(1);
                }
            }
            // The firmware's own messages are always valid (the configuration is
            // checked); a bug here loses the message and shows as a dropped one.
            Err(_) => {
                self.dropped = self.dropped.saturating_add(1);
            }
        }
    }
}

/// The two buttons' debouncers.
#[derive(Debug, Clone, Copy)]
struct Buttons([Debouncer; 2]);

impl Buttons {
    fn sample<B: Board, L: Link>(
        &mut self,
        board: &mut B,
        clock: &mut MsClock,
        sender: &mut Sender,
        link: &mut L,
    ) {
        let now = clock.ms(board.now_us());
        let levels = board.buttons();
        for (i, button) in [Button::Black, Button::White].into_iter().enumerate() {
            if let Some((at, action)) = self.0[i].sample(now, levels[i]) {
                sender.send(link, at, &Message::Button { button, action });
            }
        }
    }

    fn pressed(&self) -> [bool; 2] {
        [self.0[0].is_pressed(), self.0[1].is_pressed()]
    }
}

/// The scan bus during a scan, sampling the buttons between rows.
struct Scanning<'a, B, L> {
    board: &'a mut B,
    clock: &'a mut MsClock,
    buttons: &'a mut Buttons,
    sender: &'a mut Sender,
    link: &'a mut L,
}

impl<B: Board, L: Link> ScanBus for Scanning<'_, B, L> {
    fn select(&mut self, address: u8, adc_address: u8) {
        self.board.select(address, adc_address);
    }

    fn settle(&mut self) {
        self.board.settle();
    }

    fn convert(&mut self, input: u8) -> u16 {
        self.board.convert(input)
    }

    fn between_rows(&mut self) {
        self.board.between_rows();
        self.buttons
            .sample(self.board, self.clock, self.sender, self.link);
    }
}

/// Milliseconds for the wire (the low 32 bits of the µs clock divided by 1000), kept by
/// counting rather than by a 64-bit division, which a Cortex-M0+ does in software (a few
/// hundred cycles, at every button sample).
#[derive(Debug, Clone, Copy, Default)]
struct MsClock {
    /// A µs time that fell on a whole ms, and that ms.
    base_us: u64,
    base_ms: u32,
}

impl MsClock {
    /// The ms of `us`; `us` never goes back by more than what was last asked.
    fn ms(&mut self, us: u64) -> u32 {
        if us < self.base_us {
            // An earlier time than the last (a stamp taken before): count back.
            let back = self.base_us - us;
            return self.base_ms.wrapping_sub(back.div_ceil(1000) as u32);
        }
        let mut ahead = us - self.base_us;
        if ahead >= 1_000_000 {
            // A long sleep (never in the loop): one division.
            let whole = ahead / 1000;
            self.base_us += whole * 1000;
            self.base_ms = self.base_ms.wrapping_add(whole as u32);
            ahead -= whole * 1000;
        }
        let mut ahead = ahead as u32;
        while ahead >= 1000 {
            ahead -= 1000;
            self.base_us += 1000;
            self.base_ms = self.base_ms.wrapping_add(1);
        }
        self.base_ms
    }
}

/// The firmware's state.
#[derive(Debug, Clone)]
pub struct Firmware {
    config: Config,
    plan: MuxPlan,
    sender: Sender,
    buttons: Buttons,
    readings: [u16; MAX_POINTS],
    clock: MsClock,
    /// The next scan slot (µs); `None` before the first call.
    next_slot: Option<u64>,
    next_hello_us: u64,
    status: Status,
}

impl Firmware {
    /// A firmware fresh from reset.
    pub fn new(config: Config) -> Result<Firmware, ConfigError> {
        if config.size > crate::frame::MAX_BOARD_SIZE {
            return Err(ConfigError::BoardSize);
        }
        let plan = MuxPlan::standard(config.size).ok_or(ConfigError::BoardSize)?;
        if config.scan_hz == 0 || config.scan_hz > 1000 {
            return Err(ConfigError::ScanRate);
        }
        Ok(Firmware {
            config,
            plan,
            sender: Sender {
                encoder: FrameEncoder::new(),
                scratch: [0; MAX_FRAME_LEN],
                wire: [0; MAX_WIRE_LEN],
                dropped: 0,
            },
            buttons: Buttons([Debouncer::new(config.debounce_ms); 2]),
            readings: [0; MAX_POINTS],
            clock: MsClock::default(),
            next_slot: None,
            next_hello_us: 0,
            status: Status::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The wiring plan.
    pub fn plan(&self) -> &MuxPlan {
        &self.plan
    }

    /// The counters so far.
    pub fn status(&self) -> Status {
        Status {
            dropped: self.sender.dropped,
            ..self.status
        }
    }

    /// The readings of the last scan.
    pub fn readings(&self) -> &[u16] {
        &self.readings[..self.plan.points()]
    }

    /// The buttons' debounced states (Black's, White's).
    pub fn pressed(&self) -> [bool; 2] {
        self.buttons.pressed()
    }

    /// The sequence number of the next message.
    pub fn next_seq(&self) -> u16 {
        self.sender.encoder.next_seq()
    }

    fn hello<L: Link>(&mut self, link: &mut L, now_us: u64, boot: bool) {
        let hello = Hello {
            size: self.config.size,
            adc_bits: self.config.adc_bits,
            firmware: self.config.firmware,
            boot,
            scan_hz: self.config.scan_hz,
            status: Some(self.status()),
        };
        let t = self.clock.ms(now_us);
        self.sender.send(link, t, &Message::Hello(hello));
        self.next_hello_us = now_us + u64::from(self.config.hello_every_ms) * 1000;
    }

    /// One turn of the main loop. Returns when to call again (µs, the board's clock): the
    /// next scan slot or the next button sample, whichever comes first.
    pub fn poll<B: Board, L: Link>(&mut self, board: &mut B, link: &mut L) -> u64 {
        let now = board.now_us();
        let period = self.config.period_us();
        let slot = match self.next_slot {
            Some(slot) => slot,
            None => {
                self.hello(link, now, true);
                self.next_slot = Some(now);
                now
            }
        };
        self.buttons
            .sample(board, &mut self.clock, &mut self.sender, link);
        if now >= slot {
            let mut late = now - slot;
            let mut missed = 0;
            if late >= period {
                // Rare (a healthy board never gets here): the division is fine.
                missed = late / period;
                late %= period;
                self.status.overruns = self.status.overruns.saturating_add(missed as u32);
            }
            self.status.max_late_us = self
                .status
                .max_late_us
                .max(late.min(u16::MAX as u64) as u16);
            let start = board.now_us();
            let start_ms = self.clock.ms(start);
            let mut bus = Scanning {
                board: &mut *board,
                clock: &mut self.clock,
                buttons: &mut self.buttons,
                sender: &mut self.sender,
                link: &mut *link,
            };
            self.plan.scan(&mut bus, &mut self.readings);
            let took = board.now_us().saturating_sub(start);
            self.status.scan_us = took.min(u16::MAX as u64) as u16;
            self.status.scans = self.status.scans.wrapping_add(1);
            let size = self.config.size;
            let readings = &self.readings[..self.plan.points()];
            let msg = match self.config.format {
                ScanFormat::Raw12 => Message::ScanRaw12 { size, readings },
                ScanFormat::Raw16 => Message::ScanRaw16 { size, readings },
            };
            self.sender.send(link, start_ms, &msg);
            self.next_slot = Some(slot + (missed + 1) * period);
            if board.now_us() >= self.next_hello_us {
                let t = board.now_us();
                self.hello(link, t, false);
            }
        } else if now >= self.next_hello_us {
            self.hello(link, now, false);
        }
        let next_slot = self.next_slot.unwrap_or(now);
        let tick = board.now_us() + u64::from(self.config.tick_us);
        next_slot.min(tick).min(self.next_hello_us)
    }
}

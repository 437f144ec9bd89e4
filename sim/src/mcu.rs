//! A fake scanning microcontroller: takes scans and button events from any source (a
//! [`crate::Simulation`], anything implementing the hal traits, or a closure) and writes
//! them as serial-link frames (`hal/PROTOCOL.md`) to a port, at the scan rate.
//!
//! [`FakeMcu::tick`] is the sans-IO core (one scan period's bytes); [`FakeMcu::run`] paces
//! it in real time onto any `Write`; [`PtyMcu::spawn`] runs it on a fresh pseudo-terminal
//! and tells the path a [`tengen_hal::serial::SerialLink`] should open, for the tests and
//! for `tengen run` with the `serial` backend on a machine with no hardware.

use serialport::SerialPort;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tengen_hal::serial::protocol::EncodeError;
use tengen_hal::serial::{Body, Encoder, Hello, RawFormat};
use tengen_hal::{ButtonEvent, ClockButtons, Frame, FrameData, Millis, SensorMatrix};
use thiserror::Error;

/// Why the fake microcontroller stopped.
#[derive(Debug, Error)]
pub enum McuError {
    /// The source of scans failed.
    #[error("scan source failed: {0}")]
    Source(String),
    /// A scan could not be encoded (wrong point count, reading too large).
    #[error("cannot encode: {0}")]
    Encode(#[from] EncodeError),
    /// The port failed.
    #[error("serial port: {0}")]
    Io(#[from] io::Error),
    /// The pseudo-terminal could not be created.
    #[error("pseudo-terminal: {0}")]
    Pty(#[from] serialport::Error),
    /// The writer thread panicked.
    #[error("the fake microcontroller's thread panicked")]
    Panicked,
}

/// What the microcontroller scans: one frame and the button events since the last call.
pub trait ScanSource {
    /// Lines on the board.
    fn size(&self) -> u8;
    /// The scan at `now` (ms) and the button events up to then; `None` when the source is
    /// exhausted (a finished script).
    fn next_scan(&mut self, now: Millis) -> Result<Option<(Frame, Vec<ButtonEvent>)>, McuError>;
}

/// Any board implementing the hal traits (the [`crate::Simulation`], a driver) as a source.
#[derive(Debug)]
pub struct BoardSource<B>(pub B);

impl<B: SensorMatrix + ClockButtons> ScanSource for BoardSource<B> {
    fn size(&self) -> u8 {
        self.0.size()
    }

    fn next_scan(&mut self, now: Millis) -> Result<Option<(Frame, Vec<ButtonEvent>)>, McuError> {
        let frame = self
            .0
            .scan(now)
            .map_err(|e| McuError::Source(e.to_string()))?;
        let buttons = self
            .0
            .poll(now)
            .map_err(|e| McuError::Source(e.to_string()))?;
        Ok(Some((frame, buttons)))
    }
}

/// A closure as a source: called with the scan time, returns the readings and the button
/// events, or `None` to stop.
pub struct FnSource<F> {
    size: u8,
    f: F,
}

impl<F> FnSource<F>
where
    F: FnMut(Millis) -> Option<(FrameData, Vec<ButtonEvent>)>,
{
    /// A source of `size` x `size` scans produced by `f`.
    pub fn new(size: u8, f: F) -> Self {
        Self { size, f }
    }
}

impl<F> ScanSource for FnSource<F>
where
    F: FnMut(Millis) -> Option<(FrameData, Vec<ButtonEvent>)>,
{
    fn size(&self) -> u8 {
        self.size
    }

    fn next_scan(&mut self, now: Millis) -> Result<Option<(Frame, Vec<ButtonEvent>)>, McuError> {
        Ok((self.f)(now).map(|(data, buttons)| (Frame { time: now, data }, buttons)))
    }
}

/// How the fake microcontroller behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McuConfig {
    /// Scans per second.
    pub scan_hz: u16,
    /// ADC bits announced in the hello.
    pub adc_bits: u8,
    /// Firmware version announced in the hello.
    pub firmware: [u8; 3],
    /// How raw scans go on the wire.
    pub raw_format: RawFormat,
    /// A hello every this many ms (after the boot hello).
    pub hello_every_ms: u64,
    /// Added to every timestamp (wrapping in 32 bits), to exercise the receiver's handling
    /// of a microcontroller that has been up for weeks.
    pub clock_offset: u32,
}

impl Default for McuConfig {
    fn default() -> Self {
        Self {
            scan_hz: 100,
            adc_bits: 12,
            firmware: [0, 1, 0],
            raw_format: RawFormat::U16,
            hello_every_ms: 1000,
            clock_offset: 0,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct McuStats {
    /// Scan periods run.
    pub ticks: u64,
    /// Scans sent.
    pub scans: u64,
    /// Messages of every kind sent.
    pub messages: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Writes that timed out (the reader was not reading); their bytes may be partly lost.
    pub write_timeouts: u64,
    /// Writes refused because nobody had the port open (a pseudo-terminal with no slave);
    /// like a UART with nobody listening, the bytes are gone.
    pub unheard: u64,
}

/// The fake microcontroller.
#[derive(Debug)]
pub struct FakeMcu<S> {
    source: S,
    config: McuConfig,
    encoder: Encoder,
    next_hello: Option<Millis>,
    stats: McuStats,
}

impl<S: ScanSource> FakeMcu<S> {
    /// A microcontroller fresh from reset (its first message will be the boot hello).
    pub fn new(source: S, config: McuConfig) -> Self {
        Self {
            source,
            encoder: Encoder::new(config.raw_format),
            config,
            next_hello: None,
            stats: McuStats::default(),
        }
    }

    /// The source of scans (to change the simulated board while it runs).
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// A reset at `now`, as when the board is unplugged and plugged back in (USB powers
    /// the microcontroller): the next message is a boot hello with sequence 0, and the
    /// timestamps start again from 0 at `now`.
    pub fn reset(&mut self, now: Millis) {
        self.encoder = Encoder::new(self.config.raw_format);
        self.next_hello = None;
        self.config.clock_offset = 0u32.wrapping_sub(now as u32);
    }

    /// The sequence number of the next message.
    pub fn next_seq(&self) -> u16 {
        self.encoder.next_seq()
    }

    /// What it has done so far.
    pub fn stats(&self) -> McuStats {
        self.stats
    }

    /// The scan period in ms.
    pub fn period_ms(&self) -> u64 {
        1000 / u64::from(self.config.scan_hz.max(1))
    }

    fn stamp(&self, t: Millis) -> Millis {
        t.wrapping_add(u64::from(self.config.clock_offset)) & 0xFFFF_FFFF
    }

    /// One scan period at `now` (sans-IO): appends the hello if one is due, the button
    /// events, then the scan. Returns false, appending nothing, once the source is done.
    pub fn tick(&mut self, now: Millis, out: &mut Vec<u8>) -> Result<bool, McuError> {
        let Some((frame, buttons)) = self.source.next_scan(now)? else {
            return Ok(false);
        };
        self.stats.ticks += 1;
        let start = out.len();
        let boot = self.next_hello.is_none();
        if self.next_hello.is_none_or(|t| now >= t) {
            let hello = Hello {
                size: self.source.size(),
                adc_bits: self.config.adc_bits,
                firmware: self.config.firmware,
                scan_hz: self.config.scan_hz,
                boot,
            };
            self.encoder
                .encode(self.stamp(now), Body::Hello(hello), out)?;
            self.stats.messages += 1;
            self.next_hello = Some(now + self.config.hello_every_ms.max(1));
        }
        for b in buttons {
            let body = Body::Button {
                button: b.button,
                action: b.action,
            };
            self.encoder.encode(self.stamp(b.time), body, out)?;
            self.stats.messages += 1;
        }
        self.encoder
            .encode(self.stamp(frame.time), Body::Scan(frame.data), out)?;
        self.stats.messages += 1;
        self.stats.scans += 1;
        self.stats.bytes += (out.len() - start) as u64;
        Ok(true)
    }

    /// Runs in real time: one tick per scan period, scan `k` at time `k * period` ms,
    /// written to `port`, until `stop` is set, `max_ticks` have run, or the source ends.
    /// Writes that time out are counted and the run goes on (a UART does not wait for its
    /// reader either); other write errors end the run.
    pub fn run<W: Write>(
        &mut self,
        port: &mut W,
        stop: &AtomicBool,
        max_ticks: Option<u64>,
    ) -> Result<McuStats, McuError> {
        let period_ms = self.period_ms();
        let start = Instant::now();
        let mut bytes = Vec::with_capacity(2048);
        let mut k: u64 = 0;
        while !stop.load(Ordering::Relaxed) && max_ticks.is_none_or(|m| k < m) {
            let due = start + Duration::from_millis(period_ms.saturating_mul(k));
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            bytes.clear();
            if !self.tick(k * period_ms, &mut bytes)? {
                break;
            }
            match port.write_all(&bytes) {
                Ok(()) => {}
                Err(e)
                    if e.kind() == io::ErrorKind::TimedOut
                        || e.kind() == io::ErrorKind::WouldBlock =>
                {
                    self.stats.write_timeouts += 1
                }
                Err(e) if e.raw_os_error() == Some(EIO) => self.stats.unheard += 1,
                Err(e) => return Err(e.into()),
            }
            k += 1;
        }
        Ok(self.stats)
    }
}

/// `EIO`: what writing to a pseudo-terminal master gives once its slave has been closed.
const EIO: i32 = 5;

/// How long a write to the pseudo-terminal may wait for the reader to drain it.
const PTY_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// A fake microcontroller running on its own thread, writing to the master side of a
/// pseudo-terminal whose slave is at [`PtyMcu::path`].
///
/// The slave side stays open as long as this lives, so the bytes written before the
/// reader opens the device wait in the terminal's buffer (a reader that is late by more
/// than the buffer and one second loses data, as with a real UART). A reader
/// that opens it with `exclusive` set locks out other non-root openers until this is
/// dropped.
#[derive(Debug)]
pub struct PtyMcu {
    path: PathBuf,
    _slave: serialport::TTYPort,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<McuStats, McuError>>>,
}

impl PtyMcu {
    /// Creates a pseudo-terminal pair and starts `mcu` writing to it in real time.
    pub fn spawn<S>(mut mcu: FakeMcu<S>) -> Result<Self, McuError>
    where
        S: ScanSource + Send + 'static,
    {
        let (mut master, slave) = serialport::TTYPort::pair()?;
        master.set_timeout(PTY_WRITE_TIMEOUT)?;
        let path = slave
            .name()
            .map(PathBuf::from)
            .ok_or_else(|| McuError::Source("pseudo-terminal has no slave path".into()))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("fake-mcu".into())
            .spawn(move || mcu.run(&mut master, &flag, None))?;
        Ok(Self {
            path,
            _slave: slave,
            stop,
            thread: Some(thread),
        })
    }

    /// The slave device to open (e.g. `/dev/pts/7`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Stops the microcontroller and closes the master side: the device "unplugs".
    pub fn stop(mut self) -> Result<McuStats, McuError> {
        self.halt()
    }

    fn halt(&mut self) -> Result<McuStats, McuError> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take() {
            Some(t) => t.join().map_err(|_| McuError::Panicked)?,
            None => Ok(McuStats::default()),
        }
    }
}

impl Drop for PtyMcu {
    fn drop(&mut self) {
        if let Err(e) = self.halt() {
            eprintln!("fake microcontroller: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_hal::serial::Decoder;
    use tengen_hal::{Button, ButtonAction};

    #[test]
    fn first_tick_sends_boot_hello_then_buttons_then_scan() {
        let source = FnSource::new(3, |now| {
            let buttons = if now == 10 {
                vec![ButtonEvent {
                    time: 7,
                    button: Button::White,
                    action: ButtonAction::Press,
                }]
            } else {
                vec![]
            };
            (now < 30).then(|| (FrameData::Raw(vec![now as u16; 9]), buttons))
        });
        let config = McuConfig {
            hello_every_ms: 20,
            ..McuConfig::default()
        };
        let mut mcu = FakeMcu::new(source, config);
        let mut bytes = Vec::new();
        for now in [0, 10, 20, 30] {
            let more = mcu.tick(now, &mut bytes).unwrap();
            assert_eq!(more, now < 30);
        }
        let mut out = Vec::new();
        Decoder::new().feed(&bytes, &mut out);
        let kinds: Vec<String> = out
            .iter()
            .map(|r| match &r.message.body {
                Body::Hello(h) => {
                    format!("hello{}@{}", if h.boot { "!" } else { "" }, r.message.time)
                }
                Body::Button { .. } => format!("button@{}", r.message.time),
                Body::Scan(_) => format!("scan@{}", r.message.time),
            })
            .collect();
        assert_eq!(
            kinds,
            ["hello!@0", "scan@0", "button@7", "scan@10", "hello@20", "scan@20"]
        );
        let seqs: Vec<u16> = out.iter().map(|r| r.message.seq).collect();
        assert_eq!(seqs, [0, 1, 2, 3, 4, 5]);
        assert_eq!(mcu.stats().scans, 3);
        assert_eq!(mcu.stats().bytes, bytes.len() as u64);
    }

    #[test]
    fn clock_offset_wraps_in_32_bits() {
        let source = FnSource::new(1, |_| Some((FrameData::Raw(vec![0]), vec![])));
        let config = McuConfig {
            clock_offset: u32::MAX - 4,
            ..McuConfig::default()
        };
        let mut mcu = FakeMcu::new(source, config);
        let mut bytes = Vec::new();
        mcu.tick(0, &mut bytes).unwrap();
        mcu.tick(10, &mut bytes).unwrap();
        let mut out = Vec::new();
        Decoder::new().feed(&bytes, &mut out);
        let times: Vec<u64> = out.iter().map(|r| r.message.time).collect();
        // Boot hello and scan at 2^32-5, then the scan 10 ms later, past the wrap.
        assert_eq!(
            times,
            [
                u32::MAX as u64 - 4,
                u32::MAX as u64 - 4,
                u32::MAX as u64 + 6
            ]
        );
    }
}

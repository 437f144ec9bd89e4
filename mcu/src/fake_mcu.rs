//! The fake scanning microcontroller: takes scans and button events from a
//! [`ScanSource`] and writes them as serial-link frames (`hal/PROTOCOL.md`) at the scan
//! rate. [`FakeMcu::tick`] is the sans-IO core (one scan period's bytes); [`FakeMcu::run`]
//! paces it in real time onto any `Write`.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tengen_hal::serial::{Body, Encoder, Hello, RawFormat};
use tengen_hal::Millis;

use crate::error::McuError;
use crate::source::ScanSource;

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
pub(crate) const EIO: i32 = 5;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FnSource;
    use tengen_hal::serial::Decoder;
    use tengen_hal::{Button, ButtonAction, ButtonEvent, FrameData};

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

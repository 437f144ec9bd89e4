//! The thin I/O shell: a serial port (`serialport`) read with a short timeout, fed to the
//! [`Decoder`], watched by the [`LinkMonitor`] and mapped onto the caller's clock by the
//! [`ClockMap`]. It implements [`SensorMatrix`] and [`ClockButtons`], and hands out
//! [`LinkEvent`]s for the daemon's `sensor_fault` events.

use super::clock::ClockMap;
use super::decoder::{Decoder, DecoderStats, Received};
use super::link::{LinkEvent, LinkMonitor, LinkTiming};
use super::protocol::{Body, Hello};
use crate::traits::{ButtonEvent, ClockButtons, Frame, FrameData, Millis, SensorMatrix};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// Where and how to reach the microcontroller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SerialConfig {
    /// The device (e.g. `/dev/ttyACM0`, or a stable `/dev/serial/by-id/...` link).
    pub path: PathBuf,
    /// Baud rate (ignored by USB CDC devices; 1 Mbaud for raw 19x19 at 100 Hz on a UART).
    pub baud: u32,
    /// Lines on the board; scans of another size are dropped and counted.
    pub size: u8,
    /// How long one `scan` may wait for a frame (ms).
    pub read_timeout_ms: u64,
    /// Frames kept when the caller falls behind; the oldest are dropped beyond this.
    pub queue_limit: usize,
    /// How often the clock mapping re-estimates the latency (ms).
    pub clock_window_ms: u64,
    /// While open, how often to check that the device path still exists (ms).
    pub path_check_ms: u64,
    /// Open the device exclusively (no second reader; Unix only).
    pub exclusive: bool,
    /// Back-off and silence detection.
    #[serde(flatten)]
    pub timing: LinkTiming,
}

impl Default for SerialConfig {
    fn default() -> Self {
        Self {
            path: PathBuf::from("/dev/ttyACM0"),
            baud: 1_000_000,
            size: 19,
            read_timeout_ms: 20,
            queue_limit: 64,
            clock_window_ms: 2000,
            path_check_ms: 500,
            exclusive: true,
            timing: LinkTiming::default(),
        }
    }
}

/// Why a `scan` gave no frame.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SerialError {
    /// The link is down (see the `Lost` event for the reason); it is being retried.
    #[error("serial link to {path} is down")]
    LinkDown {
        /// The configured device path.
        path: String,
    },
    /// The link is up but no scan arrived within the read timeout.
    #[error("no scan from {path} within {waited_ms} ms")]
    NoFrame {
        /// The configured device path.
        path: String,
        /// How long the scan waited.
        waited_ms: u64,
    },
}

/// Counters of the link as a whole.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// The decoder's counters (bytes, rejected frames, lost messages...).
    pub decoder: DecoderStats,
    /// Successful opens of the device.
    pub opens: u64,
    /// Failed opens, read errors, ends of file and silences.
    pub failures: u64,
    /// Scans dropped because their board size was not the configured one.
    pub wrong_size: u64,
    /// Scans dropped because the caller fell more than `queue_limit` behind.
    pub queue_dropped: u64,
}

/// The serial link to a scanning microcontroller.
pub struct SerialLink {
    config: SerialConfig,
    port: Option<Box<dyn serialport::SerialPort>>,
    decoder: Decoder,
    monitor: LinkMonitor,
    clock: ClockMap,
    frames: VecDeque<Frame>,
    buttons: Vec<ButtonEvent>,
    hello: Option<Hello>,
    received: Vec<Received>,
    buf: Vec<u8>,
    next_path_check: Millis,
    stats: LinkStats,
    last_failure: Option<String>,
    /// Events of the reader itself (the monitor keeps the link's).
    events: Vec<LinkEvent>,
    /// True while the scans that arrive are of another size (one report per run).
    wrong_size_run: bool,
    /// When wrong-size scans were last logged (at most one line per
    /// [`WRONG_SIZE_LOG_MS`]).
    wrong_size_logged: Option<Millis>,
}

/// At most one log line per this many ms about scans of another board size (at 100 Hz they
/// would otherwise be 100 lines a second).
const WRONG_SIZE_LOG_MS: Millis = 60_000;

impl std::fmt::Debug for SerialLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SerialLink")
            .field("path", &self.config.path)
            .field("open", &self.port.is_some())
            .field("up", &self.monitor.is_up())
            .field("stats", &self.stats())
            .field("last_failure", &self.last_failure)
            .finish()
    }
}

impl SerialLink {
    /// A link for `config`; the device is opened on the first [`Self::pump`].
    pub fn new(config: SerialConfig) -> Self {
        Self {
            monitor: LinkMonitor::new(config.timing),
            clock: ClockMap::new(config.clock_window_ms),
            config,
            port: None,
            decoder: Decoder::new(),
            frames: VecDeque::new(),
            buttons: Vec::new(),
            hello: None,
            received: Vec::new(),
            buf: vec![0; 4096],
            next_path_check: 0,
            stats: LinkStats::default(),
            last_failure: None,
            events: Vec::new(),
            wrong_size_run: false,
            wrong_size_logged: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &SerialConfig {
        &self.config
    }

    /// True while valid messages flow.
    pub fn is_up(&self) -> bool {
        self.monitor.is_up()
    }

    /// The last hello the microcontroller sent.
    pub fn hello(&self) -> Option<&Hello> {
        self.hello.as_ref()
    }

    /// Why the link last failed (open error, read error, silence), if it ever did.
    pub fn last_failure(&self) -> Option<&str> {
        self.last_failure.as_deref()
    }

    /// The counters so far.
    pub fn stats(&self) -> LinkStats {
        LinkStats {
            decoder: *self.decoder.stats(),
            ..self.stats
        }
    }

    /// One round of I/O at the caller's time `now`: opens the device if it is closed and
    /// a retry is due, then reads what has arrived, waiting at most `wait` for the first
    /// bytes (with the device closed it sleeps `wait` instead, so a polling loop does not
    /// spin). Decoded scans, button events and link events are queued for
    /// [`Self::next_frame`], [`Self::take_buttons`] and [`Self::take_events`].
    pub fn pump(&mut self, now: Millis, wait: Duration) {
        self.pump_with_clock(wait, &mut || now);
    }

    /// [`Self::pump`] for a caller that sleeps in it: waits at most `wait` for the first
    /// bytes and reads `clock` again once they arrive, so scans are stamped with the time
    /// they came in, not the time the wait began. A scan loop that idles here wakes as soon
    /// as the microcontroller sends, instead of on its next tick.
    pub fn pump_with_clock(&mut self, wait: Duration, clock: &mut dyn FnMut() -> Millis) {
        let now = clock();
        if self.port.is_none() && self.monitor.should_open(now) {
            self.open(now);
        }
        if self.port.is_none() {
            if !wait.is_zero() {
                std::thread::sleep(wait);
            }
            return;
        }
        if now >= self.next_path_check {
            self.next_path_check = now.saturating_add(self.config.path_check_ms);
            if let Err(e) = std::fs::metadata(&self.config.path) {
                if e.kind() == io::ErrorKind::NotFound {
                    self.fail(now, format!("{} is gone", self.config.path.display()));
                    return;
                }
            }
        }
        let now = self.read_available(now, wait, clock);
        if self.port.is_some() && self.monitor.tick(now) {
            self.close();
            self.stats.failures += 1;
            self.last_failure = Some("silence".into());
        }
    }

    /// The oldest scan not yet taken.
    pub fn next_frame(&mut self) -> Option<Frame> {
        self.frames.pop_front()
    }

    /// Every button event not yet taken, oldest first.
    pub fn take_buttons(&mut self) -> Vec<ButtonEvent> {
        std::mem::take(&mut self.buttons)
    }

    /// Every link event not yet taken, oldest first.
    pub fn take_events(&mut self) -> Vec<LinkEvent> {
        let mut events = self.monitor.take_events();
        events.append(&mut self.events);
        events
    }

    fn open(&mut self, now: Millis) {
        let path = self.config.path.to_string_lossy().into_owned();
        let builder = serialport::new(path.as_str(), self.config.baud)
            .timeout(Duration::from_millis(self.config.read_timeout_ms));
        #[cfg(unix)]
        let builder = builder.exclusive(self.config.exclusive);
        let opened = builder.open();
        match opened {
            Ok(port) => {
                tracing::info!(path, "serial link opened");
                self.port = Some(port);
                self.decoder.resync();
                self.clock.reset();
                self.monitor.opened(now);
                self.stats.opens += 1;
                self.next_path_check = now.saturating_add(self.config.path_check_ms);
            }
            Err(e) => {
                let reason = format!("cannot open {path}: {e}");
                self.stats.failures += 1;
                self.last_failure = Some(reason.clone());
                self.monitor.failed(now, reason);
            }
        }
    }

    fn close(&mut self) {
        self.port = None;
        self.decoder.resync();
        self.clock.reset();
    }

    fn fail(&mut self, now: Millis, reason: String) {
        tracing::warn!(reason, "serial link failed");
        self.close();
        self.stats.failures += 1;
        self.last_failure = Some(reason.clone());
        self.monitor.failed(now, reason);
    }

    /// Reads what has arrived (waiting at most `wait` for the first bytes); returns the time
    /// of the last read, from `clock` after a wait.
    fn read_available(
        &mut self,
        mut now: Millis,
        wait: Duration,
        clock: &mut dyn FnMut() -> Millis,
    ) -> Millis {
        let mut timeout = wait;
        // Bounded so that a flood cannot keep one poll going for ever.
        for _ in 0..256 {
            let Some(port) = self.port.as_mut() else {
                return now;
            };
            if port.timeout() != timeout {
                if let Err(e) = port.set_timeout(timeout) {
                    self.fail(now, format!("cannot set timeout: {e}"));
                    return now;
                }
            }
            let read = port.read(&mut self.buf);
            if !timeout.is_zero() {
                now = clock();
            }
            match read {
                Ok(0) => {
                    self.fail(now, "end of file on the serial device".into());
                    return now;
                }
                Ok(n) => {
                    let mut received = std::mem::take(&mut self.received);
                    self.decoder.feed(&self.buf[..n], &mut received);
                    for r in received.drain(..) {
                        self.handle(now, r);
                    }
                    self.received = received;
                    timeout = Duration::ZERO;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e)
                    if e.kind() == io::ErrorKind::TimedOut
                        || e.kind() == io::ErrorKind::WouldBlock =>
                {
                    return now
                }
                Err(e) => {
                    self.fail(now, format!("read error: {e}"));
                    return now;
                }
            }
        }
        now
    }

    fn handle(&mut self, now: Millis, r: Received) {
        if r.restarted {
            self.clock.reset();
        }
        self.monitor.received(now, r.lost_before);
        let time = self.clock.map(r.message.time, now);
        match r.message.body {
            Body::Hello(hello) => {
                // A hello comes every second: said once per size announced.
                let said = self.hello.as_ref().is_some_and(|h| h.size == hello.size);
                if hello.size != self.config.size && !said {
                    tracing::warn!(
                        announced = hello.size,
                        configured = self.config.size,
                        "microcontroller announces another board size"
                    );
                }
                self.hello = Some(hello);
            }
            Body::Scan(data) => {
                let points = match &data {
                    FrameData::Raw(v) => v.len(),
                    FrameData::Classified(v) => v.len(),
                };
                let size = self.config.size as usize;
                if points != size * size {
                    self.wrong_size(now, points, size * size);
                    return;
                }
                if self.wrong_size_run {
                    self.wrong_size_run = false;
                    tracing::info!(points, "scans of the board's size again");
                }
                self.frames.push_back(Frame { time, data });
                while self.frames.len() > self.config.queue_limit.max(1) {
                    self.frames.pop_front();
                    self.stats.queue_dropped += 1;
                }
            }
            Body::Button { button, action } => self.buttons.push(ButtonEvent {
                time,
                button,
                action,
            }),
        }
    }
}

impl SerialLink {
    /// A scan of `points` points on a board of `expected`: dropped and counted, reported
    /// once per run, logged at most once per `WRONG_SIZE_LOG_MS`.
    fn wrong_size(&mut self, now: Millis, points: usize, expected: usize) {
        self.stats.wrong_size += 1;
        if !self.wrong_size_run {
            self.wrong_size_run = true;
            self.events.push(LinkEvent::WrongSize { points, expected });
        }
        let due = match self.wrong_size_logged {
            Some(at) => now >= at.saturating_add(WRONG_SIZE_LOG_MS),
            None => true,
        };
        if due {
            self.wrong_size_logged = Some(now);
            tracing::warn!(
                points,
                expected,
                dropped = self.stats.wrong_size,
                "scans of another board size dropped (is the microcontroller set up for this board?)"
            );
        }
    }
}

impl SensorMatrix for SerialLink {
    type Error = SerialError;

    fn size(&self) -> u8 {
        self.config.size
    }

    /// The oldest scan not yet taken, waiting up to the read timeout for one.
    fn scan(&mut self, now: Millis) -> Result<Frame, SerialError> {
        if let Some(frame) = self.frames.pop_front() {
            return Ok(frame);
        }
        let wait = Duration::from_millis(self.config.read_timeout_ms);
        self.pump(now, wait);
        if let Some(frame) = self.frames.pop_front() {
            return Ok(frame);
        }
        let path = self.config.path.display().to_string();
        if self.port.is_some() {
            Err(SerialError::NoFrame {
                path,
                waited_ms: self.config.read_timeout_ms,
            })
        } else {
            Err(SerialError::LinkDown { path })
        }
    }
}

impl ClockButtons for SerialLink {
    type Error = SerialError;

    /// Reads what is waiting without blocking and returns the button events so far.
    fn poll(&mut self, now: Millis) -> Result<Vec<ButtonEvent>, SerialError> {
        self.pump(now, Duration::ZERO);
        Ok(self.take_buttons())
    }
}

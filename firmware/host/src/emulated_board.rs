//! The emulated board's run loop: each millisecond of virtual time, the simulated board's
//! readings and buttons go to the emulator, the firmware runs that millisecond, and the
//! bytes it wrote to its UART go out on the line (at the baud rate) to the
//! pseudo-terminal `tengen run` reads. With [`Pace::WallClock`] virtual time keeps to the
//! wall clock, as the board service needs (it stamps what it reads with its own clock).
//!
//! A tap on the same bytes decodes them with the Pi's own decoder (`tengen_hal::serial`),
//! which counts every rejected frame and sequence gap, reads the firmware's status from its
//! hellos, and times each move from the stone settling to the last byte of the first
//! frame that reads it.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tengen_firmware::frame::{parse_status, Status, HEADER_LEN, TYPE_HELLO};
use tengen_hal::serial::{Body, Decoder, DecoderStats, Received};
use tengen_hal::{Button, ButtonAction, ClockButtons, FrameData, PointState, SensorMatrix};
use tengen_mcu::MoveTracker;
use tengen_sim::{RawModel, Simulation};

use crate::error::EmulatorError;
use crate::harness::{Harness, ScanSpan};
use crate::paths::EmulatorPaths;
use crate::report::{Report, Spread};
use crate::wire::UartLine;

/// How virtual time relates to the wall clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Virtual millisecond `k` runs no earlier than `k` ms after the start: for a board
    /// service reading the line.
    WallClock,
    /// As fast as the emulator goes (tests of the firmware alone).
    Free,
}

/// How the emulated board runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardOptions {
    /// The line's rate (the firmware's UART is set up for 1 000 000).
    pub baud: u32,
    /// Virtual time after the simulation's end (the final board, for the reader to settle).
    pub extra_ms: u32,
    /// Wall-clock pacing or none.
    pub pace: Pace,
}

impl Default for BoardOptions {
    fn default() -> BoardOptions {
        BoardOptions {
            baud: 1_000_000,
            extra_ms: 1500,
            pace: Pace::WallClock,
        }
    }
}

/// The decoder on a copy of the line.
struct Tap {
    decoder: Decoder,
    received: Vec<Received>,
    /// The bytes of the frame being received (for the hello's status, which the Pi's
    /// decoder does not keep).
    frame: Vec<u8>,
    status: Option<Status>,
    hellos: u64,
    boot_hellos: u64,
    scans: u64,
    buttons: Vec<(u64, Button, ButtonAction)>,
    tracker: MoveTracker,
    raw: RawModel,
    latencies_ms: Vec<f64>,
    stable_ms: Vec<u64>,
}

impl Tap {
    fn byte(&mut self, b: u8, end_ns: u64) {
        self.decoder.feed(&[b], &mut self.received);
        for r in self.received.drain(..) {
            match r.message.body {
                Body::Scan(data) => {
                    self.scans += 1;
                    let states: Vec<PointState> = match &data {
                        FrameData::Raw(readings) => {
                            readings.iter().map(|&v| self.raw.classify(v)).collect()
                        }
                        FrameData::Classified(states) => states.clone(),
                    };
                    for stamp in self.tracker.observe(r.message.time, &states) {
                        self.latencies_ms
                            .push(end_ns as f64 / 1e6 - stamp.touch_at as f64);
                        self.stable_ms.push(stamp.stable_at - stamp.touch_at);
                    }
                }
                Body::Hello(h) => {
                    self.hellos += 1;
                    if h.boot {
                        self.boot_hellos += 1;
                    }
                }
                Body::Button { button, action } => {
                    self.buttons.push((r.message.time, button, action));
                }
            }
        }
        if b != 0 {
            if self.frame.len() < 2048 {
                self.frame.push(b);
            }
            return;
        }
        if let Ok(frame) = cobs::decode_vec(&self.frame) {
            if frame.len() > HEADER_LEN + 4 && frame[3] == TYPE_HELLO {
                if let Some(s) = parse_status(&frame[HEADER_LEN..frame.len() - 4]) {
                    self.status = Some(s);
                }
            }
        }
        self.frame.clear();
    }
}

/// The readings of a frame of the simulation (classified frames become the levels the
/// raw model gives each state).
fn readings_of(data: FrameData, raw: &RawModel) -> Vec<u16> {
    match data {
        FrameData::Raw(r) => r,
        FrameData::Classified(states) => states
            .iter()
            .map(|s| {
                raw.exact(match s {
                    PointState::Empty => 0.0,
                    PointState::Black => 1.0,
                    PointState::White => -1.0,
                    PointState::Unknown => tengen_sim::physics::UNKNOWN_FIELD,
                })
            })
            .collect(),
    }
}

/// Plays `sim` on the emulated board, writing the line to `out`, until the simulation's
/// end plus [`BoardOptions::extra_ms`] or until `stop` is set.
pub fn run(
    mut sim: Simulation,
    paths: &EmulatorPaths,
    options: BoardOptions,
    out: &mut dyn Write,
    stop: &AtomicBool,
    work_dir: &std::path::Path,
) -> Result<Report, EmulatorError> {
    let raw = RawModel::adc12();
    let mut harness = Harness::spawn(
        &paths.node,
        &paths.harness,
        &paths.image,
        sim.size(),
        &work_dir.join("emulator.stderr"),
    )?;
    let mut tap = Tap {
        decoder: Decoder::new(),
        received: Vec::new(),
        frame: Vec::new(),
        status: None,
        hellos: 0,
        boot_hellos: 0,
        scans: 0,
        buttons: Vec::new(),
        tracker: MoveTracker::new(&sim),
        raw,
        latencies_ms: Vec::new(),
        stable_ms: Vec::new(),
    };
    let mut line = UartLine::new(options.baud);
    let mut pending: VecDeque<(u64, u8)> = VecDeque::new();
    let mut batch = Vec::with_capacity(4096);
    let mut buttons = [false; 2];
    let mut spans: Vec<ScanSpan> = Vec::new();
    let mut instructions = 0;
    let mut bytes = 0u64;
    let mut unheard = 0u64;
    let mut max_lag = Duration::ZERO;
    let end_ms = (sim.end_time() + u64::from(options.extra_ms)) as u32;
    // Set once the first millisecond has run: Node.js takes a few hundred ms to load the
    // emulator, which must not count as the board falling behind (the service would map
    // the first frames' clock with that delay in it).
    let mut started = Instant::now();
    for ms in 0..end_ms {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if ms == 1 {
            started = Instant::now() - Duration::from_millis(1);
        }
        if options.pace == Pace::WallClock && ms > 0 {
            let due = Duration::from_millis(u64::from(ms));
            let now = started.elapsed();
            if now < due {
                std::thread::sleep(due - now);
            } else {
                max_lag = max_lag.max(now - due);
            }
        }
        let Ok(frame) = sim.scan(u64::from(ms));
        let Ok(events) = sim.poll(u64::from(ms));
        for e in events {
            let i = match e.button {
                Button::Black => 0,
                Button::White => 1,
            };
            buttons[i] = e.action == ButtonAction::Press;
        }
        let readings = readings_of(frame.data, &raw);
        let chunk = harness.step(ms, buttons, &readings)?;
        instructions = chunk.instructions;
        spans.extend(chunk.scans);
        for b in chunk.uart {
            pending.push_back((line.send(b.ns), b.byte));
        }
        let now_ns = u64::from(ms + 1) * 1_000_000;
        batch.clear();
        while let Some(&(at, b)) = pending.front() {
            if at > now_ns {
                break;
            }
            pending.pop_front();
            tap.byte(b, at);
            batch.push(b);
        }
        if !batch.is_empty() {
            bytes += batch.len() as u64;
            // A reader that is not there (or not reading) loses the bytes, as on a UART.
            if out.write_all(&batch).and_then(|()| out.flush()).is_err() {
                unheard += batch.len() as u64;
            }
        }
    }
    let wall = started.elapsed();
    let emulator = harness.finish()?;
    let periods: Vec<f64> = spans
        .windows(2)
        .map(|w| (w[1].start_ns - w[0].start_ns) as f64 / 1000.0)
        .collect();
    let durations: Vec<f64> = spans
        .iter()
        .map(|s| (s.end_ns - s.start_ns) as f64 / 1000.0)
        .collect();
    let stats: DecoderStats = *tap.decoder.stats();
    Ok(Report {
        virtual_ms: u64::from(end_ms),
        wall,
        max_lag,
        bytes,
        unheard_bytes: unheard,
        decoder: stats,
        scans: tap.scans,
        hellos: tap.hellos,
        boot_hellos: tap.boot_hellos,
        buttons: tap.buttons,
        status: tap.status,
        scan_period_us: Spread::of(&periods),
        scan_time_us: Spread::of(&durations),
        latency_ms: Spread::of(&tap.latencies_ms),
        first_read_ms: Spread::of(&tap.stable_ms.iter().map(|&v| v as f64).collect::<Vec<_>>()),
        moves_read: tap.latencies_ms.len(),
        moves_unread: tap.tracker.remaining(),
        line_backlog_us: line.busiest_backlog_ns() as f64 / 1000.0,
        instructions,
        emulator,
    })
}

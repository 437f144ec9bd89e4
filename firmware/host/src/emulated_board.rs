//! The emulated board's run loop: each millisecond of virtual time, the simulated board's
//! readings and buttons go to the emulator, the firmware runs that millisecond, and the
//! bytes it wrote to its UART go out on the line (at the baud rate) to the
//! pseudo-terminal `tengen run` reads. With [`Pace::WallClock`] the line keeps to the wall
//! clock, as the board service needs (it stamps what it reads with its own clock): a
//! writer thread puts each millisecond's bytes on the pseudo-terminal when that
//! millisecond comes, and the emulator runs up to [`LEAD_MS`] ahead of it, so that a busy
//! machine stalling the emulator for less than that never shows on the line.
//!
//! A tap on the same bytes decodes them with the Pi's own decoder (`tengen_hal::serial`),
//! which counts every rejected frame and sequence gap, reads the firmware's status from its
//! hellos, and times each move from the stone settling to the last byte of the first
//! frame that reads it.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
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
    /// The board scanned empty this long after the firmware's reset, before the game's
    /// first instant: a board is switched on before play, and the service's mapping of
    /// the board's clock (`hal/PROTOCOL.md`, section 2) settles meanwhile, whatever its
    /// own start-up held it up.
    pub power_on_ms: u32,
    /// Wall-clock pacing or none.
    pub pace: Pace,
}

impl Default for BoardOptions {
    fn default() -> BoardOptions {
        BoardOptions {
            baud: 1_000_000,
            extra_ms: 1500,
            power_on_ms: 2000,
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
    /// The firmware's time of the game's instant 0 (ms).
    power_on_ms: u64,
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
                    let sim_time = r.message.time.saturating_sub(self.power_on_ms);
                    for stamp in self.tracker.observe(sim_time, &states) {
                        self.latencies_ms
                            .push(end_ns as f64 / 1e6 - (stamp.touch_at + self.power_on_ms) as f64);
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

/// How far the emulator may run ahead of the wall clock (ms of virtual time): the bytes
/// wait for their time on the line, so a stall of the emulator shorter than this (a busy
/// machine) never shows on the line.
pub const LEAD_MS: u32 = 500;

/// What the line's writer did.
#[derive(Debug, Clone, Copy, Default)]
struct Delivered {
    /// Bytes the pseudo-terminal refused.
    unheard: u64,
    /// The latest a millisecond's bytes were written after their time.
    max_lag: Duration,
}

/// Writes each millisecond's bytes to `out` when it comes (`started` + the ms), or at
/// once when unpaced. A reader that is not there (or not reading) loses the bytes, as on
/// a UART.
fn deliver(
    batches: mpsc::Receiver<(u32, Vec<u8>)>,
    out: &mut (dyn Write + Send),
    pace: Pace,
    started: Instant,
) -> Delivered {
    let mut done = Delivered::default();
    for (ms, batch) in batches {
        if pace == Pace::WallClock {
            let due = Duration::from_millis(u64::from(ms));
            let now = started.elapsed();
            if now < due {
                std::thread::sleep(due - now);
            } else {
                done.max_lag = done.max_lag.max(now - due);
            }
        }
        if out.write_all(&batch).and_then(|()| out.flush()).is_err() {
            done.unheard += batch.len() as u64;
        }
    }
    done
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

/// Starts the emulator for a board of `size` lines (loaded, the image not yet run); what
/// it says on stderr goes to `work_dir/emulator.stderr`.
pub fn start_emulator(
    paths: &EmulatorPaths,
    size: u8,
    work_dir: &std::path::Path,
) -> Result<Harness, EmulatorError> {
    Harness::spawn(
        &paths.node,
        &paths.harness,
        &paths.image,
        size,
        &work_dir.join("emulator.stderr"),
    )
}

/// Plays `sim` on the emulated board, writing the line to `out`, until the simulation's
/// end plus [`BoardOptions::extra_ms`] or until `stop` is set.
pub fn run(
    sim: Simulation,
    paths: &EmulatorPaths,
    options: BoardOptions,
    out: &mut (dyn Write + Send),
    stop: &AtomicBool,
    work_dir: &std::path::Path,
) -> Result<Report, EmulatorError> {
    let harness = start_emulator(paths, sim.size(), work_dir)?;
    run_on(sim, harness, options, out, stop)
}

/// [`run`] on an emulator already started ([`start_emulator`]).
pub fn run_on(
    mut sim: Simulation,
    mut harness: Harness,
    options: BoardOptions,
    out: &mut (dyn Write + Send),
    stop: &AtomicBool,
) -> Result<Report, EmulatorError> {
    let raw = RawModel::adc12();
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
        power_on_ms: u64::from(options.power_on_ms),
    };
    let mut line = UartLine::new(options.baud);
    let mut pending: VecDeque<(u64, u8)> = VecDeque::new();
    let mut buttons = [false; 2];
    let mut spans: Vec<ScanSpan> = Vec::new();
    let mut instructions = 0;
    let mut bytes = 0u64;
    let power_on = options.power_on_ms;
    let end_ms = power_on + (sim.end_time() + u64::from(options.extra_ms)) as u32;
    let started = Instant::now();
    let (to_line, line_out) = mpsc::sync_channel::<(u32, Vec<u8>)>(4 * LEAD_MS as usize);
    let pace = options.pace;
    let (emulated, delivered) = std::thread::scope(|scope| {
        // The line: each millisecond's bytes written when that millisecond comes on the
        // wall clock (or at once, unpaced).
        let writer = scope.spawn(move || deliver(line_out, out, pace, started));
        let emulated = (|| -> Result<(), EmulatorError> {
            for ms in 0..end_ms {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if pace == Pace::WallClock {
                    // Ahead of the line by at most LEAD_MS.
                    let due = Duration::from_millis(u64::from(ms.saturating_sub(LEAD_MS)));
                    let now = started.elapsed();
                    if now < due {
                        std::thread::sleep(due - now);
                    }
                }
                let game_ms = u64::from(ms.saturating_sub(power_on));
                let Ok(frame) = sim.scan(game_ms);
                let Ok(events) = sim.poll(game_ms);
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
                let mut batch = Vec::new();
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
                    if to_line.send((ms + 1, batch)).is_err() {
                        break;
                    }
                }
            }
            Ok(())
        })();
        drop(to_line);
        let delivered = writer.join().unwrap_or_default();
        (emulated, delivered)
    });
    emulated?;
    let Delivered { unheard, max_lag } = delivered;
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

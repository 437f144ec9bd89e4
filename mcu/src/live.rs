//! A simulated board on a live serial line: a [`Simulation`] scanned in real time by the
//! [`FakeMcu`] onto a pseudo-terminal, with faults on command ([`crate::faults`]), and a
//! log of when each move's stone touched down and when the sensors first read it.
//!
//! Time: scan `k` is taken at virtual time `k * period` and sent at wall time
//! `start + k * period` (the loop sleeps until then), so virtual time runs at the wall
//! clock's pace. The log stamps are CLOCK_REALTIME microseconds, comparable across
//! processes on one machine:
//!
//! - `touch_us`: the instant the stone touched down (`start + touch_at_ms`);
//! - `stable_us`: the instant of the first scan at or after it that reads the stone (from
//!   then on the sensor reads it steadily; the Pi's stabiliser accepts it `stable_ms` later).
//!
//! The device can be reached through a symbolic link ([`LiveOptions::link`]) that always
//! points at the current pseudo-terminal: an unplugged device removes it, a replugged one
//! (a new pseudo-terminal) puts it back, as udev does with `/dev/serial/by-id/...`.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use serialport::{SerialPort, TTYPort};
use tengen_hal::{ButtonEvent, ClockButtons, Frame, FrameData, Millis, PointState, SensorMatrix};
use tengen_sim::{Flickers, RawModel, Simulation};

use crate::error::McuError;
use crate::fake_mcu::{FakeMcu, McuConfig, McuStats, EIO};
use crate::faults::{corrupt_frame, describe, Fault, FaultCommand, When};
use crate::move_tracker::{MoveStamp, MoveTracker};
use crate::source::ScanSource;

/// CLOCK_REALTIME in microseconds since the Unix epoch.
pub fn wall_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or(0)
}

/// The simulated board as the microcontroller scans it: the simulation, flickering
/// sensors on top, and the move tracker watching what it reads.
#[derive(Debug)]
pub struct LiveSource {
    sim: Simulation,
    flickers: Flickers,
    tracker: MoveTracker,
    raw: RawModel,
    read: Vec<MoveStamp>,
}

impl LiveSource {
    /// Scans `sim` (through the hal traits, so it goes on past the game's end with the
    /// final board); `seed` draws the flickering sensors' wrong readings.
    pub fn new(sim: Simulation, raw: RawModel, seed: u64) -> LiveSource {
        let tracker = MoveTracker::new(&sim);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(3);
        LiveSource {
            flickers: Flickers::new(rng, raw),
            tracker,
            sim,
            raw,
            read: Vec::new(),
        }
    }

    /// The simulation (ground truth, stuck sensors through its world).
    pub fn sim(&mut self) -> &mut Simulation {
        &mut self.sim
    }

    /// The move tracker.
    pub fn tracker(&self) -> &MoveTracker {
        &self.tracker
    }

    /// Applies a sensor fault (stuck or flickering); other faults are the line's.
    pub fn apply(&mut self, fault: &Fault) {
        let size = self.sim.size();
        match fault {
            Fault::Stuck { point, state } => self.sim.world().set_stuck(*point, *state),
            Fault::Flicker { point, probability } => {
                self.flickers.set(point.index(size), *probability)
            }
            _ => {}
        }
    }

    /// The moves read for the first time since the last call.
    pub fn take_read(&mut self) -> Vec<MoveStamp> {
        std::mem::take(&mut self.read)
    }
}

impl ScanSource for LiveSource {
    fn size(&self) -> u8 {
        self.sim.size()
    }

    fn next_scan(&mut self, now: Millis) -> Result<Option<(Frame, Vec<ButtonEvent>)>, McuError> {
        let Ok(mut frame) = self.sim.scan(now);
        let Ok(buttons) = self.sim.poll(now);
        self.flickers.apply(&mut frame.data);
        let states: Vec<PointState> = match &frame.data {
            FrameData::Classified(s) => s.clone(),
            FrameData::Raw(r) => r.iter().map(|v| self.raw.classify(*v)).collect(),
        };
        let read = self.tracker.observe(now, &states);
        self.read.extend(read);
        Ok(Some((frame, buttons)))
    }
}

/// How the live board runs.
#[derive(Debug, Clone)]
pub struct LiveOptions {
    /// The microcontroller (scan rate, raw format, hello period).
    pub mcu: McuConfig,
    /// A symbolic link kept pointing at the current pseudo-terminal (removed while
    /// unplugged and at the end).
    pub link: Option<PathBuf>,
    /// Scans sent after the game's last action (the final board, for the reader to settle).
    pub tail_ms: Millis,
    /// How long a write may wait for the reader to drain the terminal (a reader that is
    /// not there loses the frames, as on a UART; a long wait would slow the board down).
    pub write_timeout: Duration,
    /// Seed for garbage bytes and corrupted frames.
    pub seed: u64,
    /// The reader's stable time (ms): for each move the log also says when the scan that
    /// completes it (`stable_ms` after the first scan reading the stone) was sent
    /// (`accept` lines, `sent_us`), so the reader's own delay can be told apart from this
    /// simulated microcontroller's scheduling delays.
    pub stable_ms: Millis,
}

impl Default for LiveOptions {
    fn default() -> LiveOptions {
        LiveOptions {
            mcu: McuConfig::default(),
            link: None,
            tail_ms: 2000,
            write_timeout: Duration::from_millis(1),
            seed: 1,
            stable_ms: 150,
        }
    }
}

/// What a live run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiveReport {
    /// The microcontroller's counters (summed over resets).
    pub mcu: McuStats,
    /// Moves logged with their stable instant.
    pub moves: usize,
    /// Faults applied.
    pub faults: usize,
    /// Pseudo-terminals created (1 + replugs).
    pub plugs: usize,
    /// Garbage bytes written.
    pub garbage_bytes: u64,
    /// Frames corrupted.
    pub corrupted: u64,
}

/// The master and slave of one pseudo-terminal, and the slave's path.
struct Port {
    master: TTYPort,
    _slave: TTYPort,
    path: PathBuf,
}

/// What is called with the device path each time the board is plugged in.
type PlugHook = Box<dyn FnMut(&Path) + Send>;

/// The live board: runs a simulated game in real time onto a pseudo-terminal.
pub struct LiveBoard {
    mcu: FakeMcu<LiveSource>,
    options: LiveOptions,
    schedule: Vec<FaultCommand>,
    log: Box<dyn Write + Send>,
    port: Option<Port>,
    unplugged_until: Option<Millis>,
    silent_until: Millis,
    garbage: usize,
    corrupt: u32,
    rng: ChaCha8Rng,
    report: LiveReport,
    start_us: u64,
    on_plug: Option<PlugHook>,
    accepting: VecDeque<(usize, Millis)>,
}

impl std::fmt::Debug for LiveBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveBoard")
            .field("options", &self.options)
            .field("schedule", &self.schedule)
            .field("report", &self.report)
            .finish()
    }
}

impl LiveBoard {
    /// A board that will play `sim` with these faults scheduled, logging JSON lines to
    /// `log`. A fault at a move the game does not have is an error.
    pub fn new(
        sim: Simulation,
        options: LiveOptions,
        schedule: Vec<FaultCommand>,
        log: Box<dyn Write + Send>,
    ) -> Result<LiveBoard, McuError> {
        let raw = RawModel::default();
        let source = LiveSource::new(sim, raw, options.seed);
        for c in &schedule {
            if let When::Move(n) = c.when {
                if source.tracker().touch_time(n).is_none() {
                    return Err(McuError::Source(format!(
                        "fault at move {n}: the game has no such move"
                    )));
                }
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        rng.set_stream(4);
        Ok(LiveBoard {
            mcu: FakeMcu::new(source, options.mcu),
            options,
            schedule,
            log,
            port: None,
            unplugged_until: None,
            silent_until: 0,
            garbage: 0,
            corrupt: 0,
            rng,
            report: LiveReport::default(),
            start_us: 0,
            on_plug: None,
            accepting: VecDeque::new(),
        })
    }

    /// Called with the new device path each time the board is plugged in (at the start
    /// and after each unplug).
    pub fn on_plug(&mut self, f: impl FnMut(&Path) + Send + 'static) {
        self.on_plug = Some(Box::new(f));
    }

    /// The virtual time the game is over (its last action and the tail).
    pub fn end_time(&mut self) -> Millis {
        self.mcu.source_mut().sim().end_time() + self.options.tail_ms
    }

    fn record(&mut self, value: serde_json::Value) -> Result<(), McuError> {
        writeln!(self.log, "{value}")?;
        self.log.flush()?;
        Ok(())
    }

    fn plug(&mut self, now: Millis) -> Result<(), McuError> {
        let (mut master, slave) = TTYPort::pair()?;
        master.set_timeout(self.options.write_timeout)?;
        let path = slave
            .name()
            .map(PathBuf::from)
            .ok_or_else(|| McuError::Source("pseudo-terminal has no slave path".into()))?;
        if let Some(link) = &self.options.link {
            point_link(link, &path)?;
        }
        if self.report.plugs > 0 {
            self.mcu.reset(now);
        }
        self.report.plugs += 1;
        self.record(json!({"event": "plug", "path": path.display().to_string(),
            "at_ms": now, "wall_us": wall_us()}))?;
        if let Some(f) = self.on_plug.as_mut() {
            f(&path);
        }
        self.port = Some(Port {
            master,
            _slave: slave,
            path,
        });
        Ok(())
    }

    fn unplug(&mut self) -> Result<(), McuError> {
        if let Some(link) = &self.options.link {
            match std::fs::remove_file(link) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e.into()),
            }
        }
        self.port = None;
        Ok(())
    }

    fn apply(&mut self, command: &FaultCommand, now: Millis) -> Result<(), McuError> {
        let text = describe(&command.fault);
        match &command.fault {
            Fault::Unplug { ms } => {
                self.unplug()?;
                self.unplugged_until = Some(now + ms);
            }
            Fault::Silence { ms } => self.silent_until = now + ms,
            Fault::Garbage { bytes } => self.garbage += bytes,
            Fault::Corrupt { frames } => self.corrupt += frames,
            f @ (Fault::Stuck { .. } | Fault::Flicker { .. }) => self.mcu.source_mut().apply(f),
        }
        self.report.faults += 1;
        self.record(json!({"event": "fault", "fault": text, "at_ms": now,
            "wall_us": wall_us()}))
    }

    /// The scheduled faults due at `now`, in schedule order, taken off the schedule.
    fn due(&mut self, now: Millis) -> Vec<FaultCommand> {
        let tracker = self.mcu.source_mut().tracker().clone();
        let (due, rest): (Vec<_>, Vec<_>) = self.schedule.drain(..).partition(|c| match c.when {
            When::Now => true,
            When::At(t) => t <= now,
            When::Move(n) => tracker.touch_time(n).is_some_and(|t| t <= now),
        });
        self.schedule = rest;
        due
    }

    /// Runs the game in real time until it is over (with the tail) or `stop` is set;
    /// `control` brings faults to apply at once.
    pub fn run(
        &mut self,
        control: Option<&Receiver<FaultCommand>>,
        stop: &AtomicBool,
    ) -> Result<LiveReport, McuError> {
        let period = self.mcu.period_ms().max(1);
        let end = self.end_time();
        let start = Instant::now();
        self.start_us = wall_us();
        self.record(
            json!({"event": "start", "wall_us": self.start_us, "period_ms": period,
            "end_ms": end}),
        )?;
        self.plug(0)?;
        let mut bytes = Vec::with_capacity(4096);
        let mut k: u64 = 0;
        while !stop.load(Ordering::Relaxed) {
            let now = k * period;
            if now > end {
                break;
            }
            let due = start + Duration::from_millis(now);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            let scan_us = wall_us();
            let mut commands = self.due(now);
            if let Some(rx) = control {
                commands.extend(rx.try_iter());
            }
            for c in &commands {
                self.apply(c, now)?;
            }
            if self.unplugged_until.is_some_and(|t| now >= t) {
                self.unplugged_until = None;
                self.plug(now)?;
            }
            bytes.clear();
            self.mcu.tick(now, &mut bytes)?;
            for m in self.mcu.source_mut().take_read() {
                self.report.moves += 1;
                let touch_us = self.start_us + m.touch_at * 1000;
                self.record(json!({"event": "move", "number": m.number,
                    "color": m.color.to_string(), "point": m.point.to_gtp(),
                    "touch_at_ms": m.touch_at, "stable_at_ms": m.stable_at,
                    "touch_us": touch_us, "stable_us": scan_us}))?;
                self.accepting
                    .push_back((m.number, m.stable_at + self.options.stable_ms));
            }
            if now >= self.silent_until {
                self.send(&bytes)?;
            }
            while self.accepting.front().is_some_and(|a| a.1 <= now) {
                if let Some((number, _)) = self.accepting.pop_front() {
                    self.record(json!({"event": "accept", "number": number, "at_ms": now,
                        "sent_us": wall_us()}))?;
                }
            }
            k += 1;
        }
        self.unplug()?;
        self.report.mcu = self.mcu.stats();
        let r = self.report;
        self.record(
            json!({"event": "end", "at_ms": k.saturating_sub(1) * period,
            "wall_us": wall_us(), "moves": r.moves, "faults": r.faults, "plugs": r.plugs,
            "scans": r.mcu.scans, "bytes": r.mcu.bytes, "garbage_bytes": r.garbage_bytes,
            "corrupted": r.corrupted}),
        )?;
        Ok(r)
    }

    /// Writes one tick's bytes (with pending garbage before them, and one byte flipped
    /// when frames are to be corrupted).
    fn send(&mut self, frames: &[u8]) -> Result<(), McuError> {
        let Some(port) = self.port.as_mut() else {
            return Ok(());
        };
        let mut out = Vec::with_capacity(frames.len() + self.garbage);
        if self.garbage > 0 {
            let mut junk = vec![0u8; self.garbage];
            self.rng.fill_bytes(&mut junk);
            out.extend_from_slice(&junk);
            self.report.garbage_bytes += junk.len() as u64;
            self.garbage = 0;
        }
        let at = out.len();
        out.extend_from_slice(frames);
        if self.corrupt > 0 && !frames.is_empty() {
            corrupt_frame(&mut out[at..], &mut self.rng);
            self.corrupt -= 1;
            self.report.corrupted += 1;
        }
        match port.master.write_all(&out) {
            Ok(()) => Ok(()),
            Err(e)
                if e.kind() == io::ErrorKind::TimedOut || e.kind() == io::ErrorKind::WouldBlock =>
            {
                Ok(())
            }
            // Nobody has the slave open: like a UART with nobody listening.
            Err(e) if e.raw_os_error() == Some(EIO) => Ok(()),
            Err(e) => Err(McuError::Io(io::Error::new(
                e.kind(),
                format!("writing to {}: {e}", port.path.display()),
            ))),
        }
    }
}

impl Drop for LiveBoard {
    fn drop(&mut self) {
        if let Some(link) = &self.options.link {
            let _ = std::fs::remove_file(link);
        }
    }
}

/// Points `link` at `target`, replacing what was there in one step.
fn point_link(link: &Path, target: &Path) -> io::Result<()> {
    let tmp = link.with_extension("tengen-mcu-tmp");
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    std::fs::rename(&tmp, link)
}

//! The scan loop: one thread that owns the engine, the backend and the recorder, and does
//! everything in order on each tick: commands, one poll, the engine, the journal, the
//! outputs, the watchdog. Blocking I/O (fdatasync) stays off the async runtime.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tengen_hal::Millis;
use tokio::sync::{mpsc, oneshot};

use tengen_protocol::event::BoardState;
use tengen_protocol::{Answer, Command, CommandEnvelope, Event};

use super::alive::AliveFile;
use super::backend::Backend;
use super::engine::Engine;
use super::notify::Notifier;
use super::recorder::Recorder;
use super::ServiceError;

/// An arbiter command on its way to the scan loop, with where its reply goes.
#[derive(Debug)]
pub struct Request {
    /// The decoded command.
    pub command: CommandEnvelope,
    /// [`Answer::Done`], or why it was refused (nothing changed then).
    pub reply: oneshot::Sender<Answer>,
}

/// The loop's time: what time it is and how to wait for the next tick.
pub trait Pacer: Send {
    /// Now, in ms since the Unix epoch.
    fn now(&mut self) -> Millis;
    /// Waits until the next tick is due.
    fn wait(&mut self);
    /// For a real-time pacer: how long until the next tick is due, scheduling the one
    /// after when a tick was due now. The loop then idles in the backend, which may wake
    /// it earlier (input arrived); a loop iteration before the deadline does not move it.
    /// `None` (virtual time): the loop calls [`Pacer::wait`] instead.
    fn remaining(&mut self) -> Option<Duration> {
        None
    }
}

/// The wall clock in ms since the Unix epoch (0 before 1970).
pub fn wall_ms() -> Millis {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// Real time: the wall clock, ticks `1/scan_hz` apart (a late tick is not made up twice).
#[derive(Debug)]
pub struct RealPacer {
    period: Duration,
    next: Instant,
}

impl RealPacer {
    /// Ticks at `scan_hz` per second.
    pub fn new(scan_hz: u32) -> RealPacer {
        RealPacer {
            period: Duration::from_secs(1) / scan_hz.max(1),
            next: Instant::now(),
        }
    }
}

impl Pacer for RealPacer {
    fn now(&mut self) -> Millis {
        wall_ms()
    }

    fn wait(&mut self) {
        if let Some(left) = self.remaining() {
            std::thread::sleep(left);
        }
    }

    fn remaining(&mut self) -> Option<Duration> {
        let now = Instant::now();
        if now >= self.next {
            // This iteration was a tick: the next one is a period on (a late tick is not
            // made up twice: when even that has passed, the loop goes round at once).
            self.next += self.period;
            if self.next <= now {
                self.next = now;
            }
        }
        Some(self.next.saturating_duration_since(now))
    }
}

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopEnd {
    /// Asked to stop (SIGTERM).
    Stopped,
    /// The backend finished and the loop was told to end then.
    Finished,
}

/// Everything the loop owns.
pub struct ScanLoop {
    /// The game logic.
    pub engine: Box<dyn Engine>,
    /// The scans.
    pub backend: Box<dyn Backend>,
    /// Journal, SGF, outputs.
    pub recorder: Recorder,
    /// Commands from MQTT and elsewhere.
    pub commands: mpsc::Receiver<Request>,
    /// Set to stop after the current tick.
    pub stop: Arc<AtomicBool>,
    /// The tick clock.
    pub pacer: Box<dyn Pacer>,
    /// systemd's watchdog.
    pub notifier: Notifier,
    /// End the loop once the backend is finished (and its last events are written).
    pub exit_when_finished: bool,
    /// The board's last sign of life.
    pub alive: AliveFile,
}

impl ScanLoop {
    /// Runs until stopped (or finished), then writes `status offline`.
    pub fn run(mut self) -> Result<(Recorder, LoopEnd), ServiceError> {
        let end = loop {
            let now = self.backend.clock(self.pacer.now());
            self.commands_due(now)?;
            let polled = self.backend.poll(now);
            self.record(polled.faults, now)?;
            if polled.scans.is_empty() {
                let events = self.engine.tick(now);
                self.record(events, now)?;
            }
            // Each scan's events at that scan's time, so the journal replays exactly.
            for (frame, buttons) in polled.scans {
                match self.engine.step(&frame, &buttons) {
                    Ok(events) => {
                        self.record(events, frame.time)?;
                        self.recorder
                            .black_box(frame.time, self.engine.seen(), &buttons);
                    }
                    Err(e) => tracing::warn!("scan dropped: {e}"),
                }
            }
            // Held events written when there is space again; storage alerts.
            self.recorder.keep_up(now)?;
            if let Some(sound) = self.recorder.poll_table(now) {
                self.backend.sound(&sound, now);
            }
            self.alive.beat(now);
            self.recorder.outputs().beat();
            self.notifier.alive(Instant::now());
            if self.stop.load(Ordering::SeqCst) {
                break LoopEnd::Stopped;
            }
            if polled.finished && self.exit_when_finished {
                break LoopEnd::Finished;
            }
            match self.pacer.remaining() {
                Some(left) => self.backend.idle(left),
                None => self.pacer.wait(),
            }
        };
        // Commands that arrived while stopping are answered, not lost silently.
        self.commands.close();
        while let Ok(req) = self.commands.try_recv() {
            let _ = req
                .reply
                .send(Answer::refused("the board is shutting down"));
        }
        let now = self.backend.clock(self.pacer.now());
        self.recorder
            .record(vec![super::status(BoardState::Offline)], now)?;
        self.recorder.finish(now);
        Ok((self.recorder, end))
    }

    /// Journals `events` at `at` and tells the backend what was journaled.
    fn record(&mut self, events: Vec<Event>, at: Millis) -> Result<(), ServiceError> {
        let written = self.recorder.record(events, at)?;
        if !written.is_empty() {
            self.backend.heard(&written);
        }
        Ok(())
    }

    fn commands_due(&mut self, now: Millis) -> Result<(), ServiceError> {
        while let Ok(req) = self.commands.try_recv() {
            // The board's own storage alerts are closed here: the referee does not know them.
            if let Command::Confirm { alert } | Command::Dismiss { alert } = &req.command.command {
                let confirm = matches!(req.command.command, Command::Confirm { .. });
                let by = req.command.by.clone();
                if let Some(result) = self.recorder.close_storage_alert(alert, confirm, by, now) {
                    let _ = req.reply.send(match &result {
                        Ok(()) => Answer::Done,
                        Err(e) => Answer::refused(e),
                    });
                    result?;
                    continue;
                }
            }
            match self.engine.command(&req.command, now) {
                Ok(events) => {
                    if let Command::NewGame { game, .. } = &req.command.command {
                        let id = game.clone().unwrap_or_else(|| {
                            format!("game-{}", self.recorder.journal().last_seq() + 1)
                        });
                        self.recorder.set_game(&id);
                    }
                    self.recorder.set_by(req.command.by.clone());
                    let result = self.recorder.record(events, now);
                    self.recorder.set_by(None);
                    let _ = req.reply.send(match &result {
                        Ok(_) => Answer::Done,
                        Err(e) => Answer::refused(e),
                    });
                    self.backend.heard(&result?);
                }
                Err(why) => {
                    let reason = why.reason();
                    let _ = req.reply.send(Answer::refused_because(why, reason));
                }
            }
        }
        Ok(())
    }
}

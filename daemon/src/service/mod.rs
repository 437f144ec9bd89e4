//! The board service (`tengen run`): config -> hal backend -> scan loop at
//! `hardware.scan_hz` -> pipeline -> journal -> outputs.
//!
//! - [`engine`]: the game logic behind a trait (the pipeline of stabiliser and referee).
//! - [`backend`]: where scans come from (`sim`, `serial`, `rpi`).
//! - [`recorder`]: journal first (synced), then outputs, state and the SGF file.
//! - [`outputs`]: the broadcast of recorded events and `watch`es of state and SGF that the
//!   MQTT publisher and the HTTP view subscribe to.
//! - [`scan_loop`]: the loop thread; commands come in as [`scan_loop::Request`]s.
//! - [`notify`]: systemd readiness and watchdog.
//! - [`resume`]: where a simulated game goes on after a restart.
//! - [`wiring`]: the pipeline as the engine and the `sim`/`serial`/`rpi` backends, from a
//!   config; [`launch`]: start from a config, stop on SIGTERM; [`links`]: the HTTP live
//!   view and MQTT (embedded broker or external) fed from the recorded events.
//!
//! Start-up: the journal is opened (a torn tail is cut off and reported), `status
//! restoring` is written when it holds events, the current game is rebuilt from them, then
//! `status online`. The simulator takes the journal's game up where it was, as a real board
//! keeps its stones (see [`resume`]); a game that is over stays over. Stop: the loop
//! finishes its tick, writes `status offline` and returns.

pub mod backend;
pub mod engine;
pub mod launch;
pub mod links;
pub mod notify;
pub mod outputs;
pub mod recorder;
pub mod resume;
pub mod scan_loop;
pub mod wiring;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use tengen_hal::Millis;
use thiserror::Error;
use tokio::sync::mpsc;

use crate::event::Event;
use crate::journal::{JournalError, JournalReader};
use backend::Backend;
use engine::Engine;
use notify::Notifier;
use outputs::Outputs;
use recorder::Recorder;
use scan_loop::{LoopEnd, Pacer, Request, ScanLoop};

/// Commands waiting for the scan loop before senders wait.
pub const COMMAND_QUEUE: usize = 64;

/// Why the service stopped or could not start.
#[derive(Debug, Error)]
pub enum ServiceError {
    /// The journal could not be opened or written: the service stops rather than publish
    /// an event it could lose.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The configuration cannot be used.
    #[error("config: {0}")]
    Config(String),
    /// The board's files contradict each other (a journal that lost published events):
    /// starting would number new events again, so the service refuses.
    #[error("{0}")]
    Refused(String),
    /// The hardware backend could not be set up.
    #[error("backend: {0}")]
    Backend(String),
    /// The game could not be set up or rebuilt.
    #[error("game: {0}")]
    Game(String),
    /// The loop thread panicked or could not be started.
    #[error("scan loop: {0}")]
    Thread(String),
}

/// A `status` event with this build's version.
pub fn status(state: &str) -> Event {
    Event::Status {
        state: state.into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// Builds the engine: restores it from the current game's events (each with its time, ms
/// since the epoch), or starts a new game when there are none; returns it with the events
/// it emitted (a new game's `game_started`...).
pub type EngineFactory<'a> =
    dyn FnOnce(&[(Millis, Event)], Millis) -> Result<(Box<dyn Engine>, Vec<Event>), String> + 'a;

/// Opens the board's game: `status restoring` when the journal already holds events, the
/// engine rebuilt from the current game (or a new one), then `status online`.
pub fn open_game(
    recorder: &mut Recorder,
    factory: Box<EngineFactory<'_>>,
    now: Millis,
) -> Result<Box<dyn Engine>, ServiceError> {
    let restoring = recorder.journal().last_seq() > 0;
    let mut past = Vec::new();
    if restoring {
        for env in recorder.journal().current_game()? {
            let at = recorder::parse_time(&env.time).unwrap_or(now);
            past.push((at, env.event));
        }
    }
    let (engine, events) = factory(&past, now).map_err(ServiceError::Game)?;
    let mut first = Vec::new();
    if restoring {
        first.push(status("restoring"));
    }
    first.extend(events);
    first.push(status("online"));
    recorder.record(first, now, engine.as_ref())?;
    recorder.refresh(engine.as_ref());
    Ok(engine)
}

/// What a running service needs besides its engine and recorder.
pub struct Parts {
    /// The game logic (from [`open_game`]).
    pub engine: Box<dyn Engine>,
    /// The scans.
    pub backend: Box<dyn Backend>,
    /// Journal, SGF, outputs.
    pub recorder: Recorder,
    /// The tick clock ([`scan_loop::RealPacer`] in production).
    pub pacer: Box<dyn Pacer>,
    /// systemd notifications.
    pub notifier: Notifier,
    /// Stop once the backend has finished (demo), instead of waiting for SIGTERM.
    pub exit_when_finished: bool,
}

/// A running scan loop and the handles to talk to it.
pub struct Service {
    outputs: Outputs,
    reader: JournalReader,
    commands: mpsc::Sender<Request>,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<(Recorder, LoopEnd), ServiceError>>,
}

impl Service {
    /// Starts the scan loop on its own thread.
    pub fn spawn(parts: Parts) -> Result<Service, ServiceError> {
        let outputs = parts.recorder.outputs().clone();
        let reader = parts.recorder.reader();
        let (commands, rx) = mpsc::channel(COMMAND_QUEUE);
        let stop = Arc::new(AtomicBool::new(false));
        let scan_loop = ScanLoop {
            engine: parts.engine,
            backend: parts.backend,
            recorder: parts.recorder,
            commands: rx,
            stop: Arc::clone(&stop),
            pacer: parts.pacer,
            notifier: parts.notifier,
            exit_when_finished: parts.exit_when_finished,
        };
        let thread = std::thread::Builder::new()
            .name("tengen-scan".into())
            .spawn(move || scan_loop.run())
            .map_err(|e| ServiceError::Thread(e.to_string()))?;
        Ok(Service {
            outputs,
            reader,
            commands,
            stop,
            thread,
        })
    }

    /// The outputs to subscribe to.
    pub fn outputs(&self) -> &Outputs {
        &self.outputs
    }

    /// The journal, to re-read from a seq.
    pub fn journal(&self) -> JournalReader {
        self.reader.clone()
    }

    /// Where commands go.
    pub fn commands(&self) -> mpsc::Sender<Request> {
        self.commands.clone()
    }

    /// True once the loop has ended (stopped, finished, or failed).
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Asks the loop to stop after its current tick (SIGTERM).
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Waits for the loop to end (after [`Service::request_stop`] or when finished) and
    /// returns how it ended, with the recorder.
    pub fn join(self) -> Result<(Recorder, LoopEnd), ServiceError> {
        self.thread
            .join()
            .map_err(|_| ServiceError::Thread("the scan loop panicked".into()))?
    }
}

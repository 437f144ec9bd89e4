//! The board service (`tengen run`): config -> hal backend -> scan loop at
//! `hardware.scan_hz` -> pipeline -> journal -> outputs.
//!
//! - [`engine`]: the game logic behind a trait (the pipeline of stabiliser and referee).
//! - [`backend`]: where scans come from; one module per backend: `sim_backend`,
//!   `serial_backend`, `rpi_backend`; `board_setup` builds them and the referee's
//!   settings from a config.
//! - [`recorder`]: journal first (synced), then outputs, and what the fold of the
//!   journaled events shows (state, `alerts/active`, the SGF file).
//! - [`outputs`]: the broadcast of recorded events and a `watch` of what is shown, that
//!   the MQTT publisher and the HTTP view subscribe to.
//! - [`scan_loop`]: the loop thread; commands come in as [`scan_loop::Request`]s.
//! - [`alive`]: the board's last sign of life, beside the journal.
//! - [`disk_watch`]: the free space of `storage.dir`, read on a thread of its own;
//!   `storage_alerts`: when that (and the journal holding events for lack of space)
//!   becomes `storage_low` and `storage_full`.
//! - [`notify`]: systemd readiness and watchdog.
//! - `resume`: where a simulated game goes on after a restart.
//! - `launch`: start from a config, stop on SIGTERM; [`links`]: the HTTP live view and
//!   MQTT (embedded broker or external) fed from the recorded events.
//!
//! Start-up: the journal is opened (a torn tail is cut off and reported). When it holds
//! events, the board was off: `status restoring` is written with the board's last sign of
//! life, and the current game is rebuilt by replaying its events through the referee; a
//! game in progress comes back with its clocks paused as they stood and a
//! `board_restarted` alert (see `tengen_referee`). Then `status online`. The simulator
//! takes the journal's game up where it was, as a real board keeps its stones (see
//! `resume`); a game that is over stays over. Stop: the loop finishes its tick, writes
//! `status offline` and returns.

pub mod alive;
pub mod backend;
pub(crate) mod board_setup;
pub mod disk_watch;
pub mod engine;
pub(crate) mod frames_route;
pub(crate) mod launch;
pub mod links;
pub(crate) mod mqtt_status;
pub mod notify;
pub mod outputs;
pub mod players;
pub mod recorder;
pub(crate) mod resume;
#[cfg(feature = "rpi")]
pub(crate) mod rpi_backend;
pub mod scan_loop;
pub(crate) mod serial_backend;
pub(crate) mod sim_backend;
pub(crate) mod storage_alerts;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use tengen_hal::Millis;
use tengen_protocol::event::BoardState;
use tengen_protocol::{Event, Timestamp};
use thiserror::Error;
use tokio::sync::mpsc;

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
    /// The referee could not set the game up or rebuild it.
    #[error("game: {0}")]
    Referee(#[from] tengen_referee::RefereeError),
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

/// This build's version, as `status` events carry it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A `status` event of this build.
pub fn status(state: BoardState) -> Event {
    Event::status(state, VERSION)
}

/// What the journal says when the service starts.
#[derive(Debug, Clone, Default)]
pub struct Opening {
    /// The journal's current game (from its last `game_started`), each event with its
    /// time; empty for a new journal.
    pub past: Vec<(Timestamp, Event)>,
    /// When the journal holds events (the board was off): its last sign of life, the
    /// later of the journal's last event and the `alive` file.
    pub off_since: Option<Timestamp>,
}

/// Builds the engine for `opening` at `now` and returns it with its first events: for a
/// board that was off, `status restoring` first, then the rebuilt game's restart (or a
/// new game); for a new journal, the new game's `game_started`...
pub type EngineFactory<'a> =
    dyn FnOnce(&Opening, Millis) -> Result<(Box<dyn Engine>, Vec<Event>), ServiceError> + 'a;

/// Opens the board's game: the engine rebuilt from the journal's current game (or a new
/// one), its first events, then `status online`.
pub fn open_game(
    recorder: &mut Recorder,
    opening: &Opening,
    factory: Box<EngineFactory<'_>>,
    now: Millis,
) -> Result<Box<dyn Engine>, ServiceError> {
    let (engine, mut events) = factory(opening, now)?;
    events.push(status(BoardState::Online));
    recorder.record(events, now)?;
    Ok(engine)
}

/// What the journal (and the `alive` file) say at start-up.
pub fn opening(recorder: &Recorder, alive: &alive::AliveFile) -> Result<Opening, ServiceError> {
    let journal = recorder.journal();
    if journal.last_seq() == 0 {
        return Ok(Opening::default());
    }
    let past = journal
        .current_game()?
        .into_iter()
        .map(|env| (env.time, env.event))
        .collect();
    let last = journal.reader().last_time();
    let off_since = match (last, alive.load()) {
        (Some(l), Some(a)) => Some(l.max(a)),
        (l, a) => l.or(a),
    };
    Ok(Opening { past, off_since })
}

/// The `status restoring` of a board that was off since `off_since`.
pub fn restoring(off_since: Option<Timestamp>) -> Event {
    Event::Status {
        state: BoardState::Restoring,
        version: VERSION.to_string(),
        off_since,
    }
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
    /// The board's last sign of life.
    pub alive: alive::AliveFile,
}

/// A running scan loop and the handles to talk to it.
pub struct Service {
    outputs: Outputs,
    reader: JournalReader,
    commands: mpsc::Sender<Request>,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<(Recorder, LoopEnd), ServiceError>>,
    players: Option<players::PlayerOutputs>,
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
            alive: parts.alive,
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
            players: None,
        })
    }

    /// The players' displays and voice, stopped with the service.
    pub fn with_players(mut self, players: players::PlayerOutputs) -> Service {
        self.players = Some(players);
        self
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
        let ended = self
            .thread
            .join()
            .map_err(|_| ServiceError::Thread("the scan loop panicked".into()))?;
        if let Some(players) = self.players {
            players.stop();
        }
        ended
    }
}

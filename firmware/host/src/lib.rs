//! The emulated board: tengen's RP2040 firmware image, unmodified, on the rp2040js
//! emulator (`firmware/emulator/harness.mjs`), with the board around it (stones, hands,
//! noise, the clock buttons) modelled by tengen-sim's physical model, and its UART on a
//! pseudo-terminal that `tengen run` opens with the `serial` backend, as it would open a
//! real board's.
//!
//! - [`harness`]: the emulator process and its lockstep protocol (1 ms of virtual time a
//!   step);
//! - [`emulated_board`]: the run loop (readings and buttons in, UART bytes out on a line at
//!   the baud rate, paced to the wall clock), with a tap decoding the line with the Pi's
//!   decoder;
//! - [`report`]: what a run measured (frames lost or rejected, the firmware's overrun
//!   counter, the scan period and each move's latency in virtual time);
//! - [`game`], [`service`]: the game, the board config and `tengen run` around it;
//! - [`play`]: all of it for one game, as `firmware/run-emulated` and the tests use it.

pub mod emulated_board;
pub mod error;
pub mod game;
pub mod harness;
pub mod paths;
pub mod report;
pub mod service;
pub mod wire;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

pub use emulated_board::{BoardOptions, Pace};
pub use error::EmulatorError;
pub use game::{GameSetup, GameSpec, Source};
pub use paths::EmulatorPaths;
pub use report::{Report, Spread};

/// One game on the emulated board under `tengen run`.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    /// The game.
    pub spec: GameSpec,
    /// The firmware image (`None`: the default build's).
    pub image: Option<PathBuf>,
    /// The `tengen` binary.
    pub tengen: PathBuf,
    /// The emulated board's options.
    pub board: BoardOptions,
}

/// What a game on the emulated board left.
#[derive(Debug)]
pub struct Played {
    /// The run's folder: `board.toml`, `data/` (the journal), the logs.
    pub dir: tempfile::TempDir,
    /// The board config the service ran with.
    pub config: PathBuf,
    /// The board's record (`/game.sgf`) at the end.
    pub sgf: String,
    /// The emulated board's measurements.
    pub report: Report,
    /// What the service logged (at `info`).
    pub service_log: String,
}

/// Plays one game: the emulated board on a pseudo-terminal, `tengen run` reading it, the
/// record fetched from the service once the board has played it, the service stopped.
pub fn play(options: &PlayOptions) -> Result<Played, EmulatorError> {
    let paths = EmulatorPaths::find(options.image.as_deref())?;
    if !options.tengen.is_file() {
        return Err(EmulatorError::NoService(options.tengen.clone()));
    }
    let (sim, setup) = game::simulation(&options.spec)?;
    let dir = tempfile::Builder::new()
        .prefix("tengen-emulated-")
        .tempdir()
        .map_err(EmulatorError::io("create a temporary folder"))?;
    // The emulator first (it takes a moment to load), then the service: from the moment
    // the service opens the line, the board talks.
    let harness = emulated_board::start_emulator(&paths, sim.size(), dir.path())?;
    let mut pty = service::Pty::open(&dir.path().join("tty"))?;
    let ports = service::Ports {
        mqtt: service::free_port()?,
        http: service::free_port()?,
    };
    let spec = &options.spec;
    let config = service::write_config(
        dir.path(),
        &pty.link,
        &setup,
        (spec.seed, spec.noise, spec.violations),
        ports,
    )?;
    let mut board_service =
        service::BoardService::start(&options.tengen, &config, ports.http, dir.path())?;
    board_service.wait_ready(Duration::from_secs(20))?;
    let report = emulated_board::run_on(
        sim,
        harness,
        options.board,
        &mut pty.master,
        &AtomicBool::new(false),
    )?;
    board_service.check_running()?;
    let (code, sgf) = board_service.get("/game.sgf")?;
    if code != 200 {
        return Err(EmulatorError::Service(format!("/game.sgf answered {code}")));
    }
    let service_log = board_service.stderr();
    board_service.stop()?;
    Ok(Played {
        config,
        sgf,
        report,
        service_log,
        dir,
    })
}

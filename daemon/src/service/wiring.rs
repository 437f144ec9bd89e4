//! The real pieces behind the service's traits, built from a [`Config`]: the pipeline as
//! the [`Engine`], and the `sim`, `serial` and `rpi` backends.
//!
//! Time: the service's clock is ms since the Unix epoch. The `sim` backend plays its game
//! on a timeline anchored at the service's start and running `speed` times faster than
//! the wall clock, and stamps its frames on that timeline, so clocks and event times are
//! the game's own (equal to the wall clock at `speed = 1`).

use std::time::Duration;

use tengen_hal::calibration::Calibration;
use tengen_hal::serial::{LinkEvent, SerialConfig as LinkConfig, SerialLink};
use tengen_hal::{ButtonEvent, Frame, Millis};
#[cfg(feature = "rpi")]
use tengen_hal::{ClockButtons, SensorMatrix};
use tengen_rules::sgf;
use tengen_sim::{GameOptions, Script, SimOptions, Simulation};

use super::backend::{Backend, Polled};
use super::engine::Engine;
use super::resume::resume_point;
use super::{EngineFactory, ServiceError};
use crate::cli::sim::{settings_for_record, settings_for_script, sim_side};
use crate::command::CommandEnvelope;
use crate::config::{Backend as BackendKind, Config, SimSource};
use crate::event::{Envelope, Event};
use crate::pipeline::Pipeline;
use crate::referee::{Referee, RefereeSettings};

/// The pipeline (stabiliser, referee, clock) as the service's engine.
#[derive(Debug)]
pub struct PipelineEngine(pub Pipeline);

impl Engine for PipelineEngine {
    fn step(&mut self, frame: &Frame, buttons: &[ButtonEvent]) -> Result<Vec<Event>, String> {
        self.0.step(frame, buttons).map_err(|e| e.to_string())
    }

    fn tick(&mut self, _now: Millis) -> Vec<Event> {
        // The pipeline ticks the clock on every scan; with no scan (a link down) the
        // clock's calls are made up, each once, when scans come back.
        Vec::new()
    }

    fn command(&mut self, cmd: &CommandEnvelope, now: Millis) -> Result<Vec<Event>, String> {
        self.0.command(cmd, now)
    }

    fn snapshot(&self) -> serde_json::Value {
        self.0.referee().snapshot()
    }

    fn sgf(&self) -> String {
        sgf::write(&self.0.referee().sgf_record())
    }
}

/// Builds the engine: restores the referee from the journal's current game when `restore`
/// and there is one, else starts a new game (its `game_started` is returned).
pub fn engine_factory(
    settings: RefereeSettings,
    calibration: Option<Calibration>,
    restore: bool,
) -> Box<EngineFactory<'static>> {
    Box::new(move |past: &[(Millis, Event)], now: Millis| {
        if restore
            && past
                .iter()
                .any(|(_, e)| matches!(e, Event::GameStarted { .. }))
        {
            let referee = Referee::restore(settings, past, now).map_err(|e| e.to_string())?;
            let engine: Box<dyn Engine> =
                Box::new(PipelineEngine(Pipeline::from_referee(referee, calibration)));
            Ok((engine, Vec::new()))
        } else {
            let (pipeline, events) =
                Pipeline::new(settings, calibration, now).map_err(|e| e.to_string())?;
            let engine: Box<dyn Engine> = Box::new(PipelineEngine(pipeline));
            Ok((engine, events))
        }
    })
}

/// The simulated board paced in real time at `speed`.
///
/// Its clock ([`Backend::clock`]) is game time: it starts at the wall clock of the first
/// reading, or at the journal's last event when that is later (a sped-up game runs ahead
/// of the wall clock, and a restarted one must not go back in time), and runs `speed`
/// times faster than the wall clock. Frames are stamped on it.
#[derive(Debug)]
pub struct SimBackend {
    sim: Simulation,
    speed: f64,
    /// The earliest game time to start at (the journal's last event).
    floor: Millis,
    /// (wall clock, game time) when the clock started.
    anchor: Option<(Millis, Millis)>,
    finished: bool,
}

impl SimBackend {
    /// Plays `sim`, `speed` times faster than human pace.
    pub fn new(sim: Simulation, speed: f64) -> SimBackend {
        SimBackend {
            sim,
            speed,
            floor: 0,
            anchor: None,
            finished: false,
        }
    }

    /// Starts the game clock no earlier than `time` (ms since the epoch).
    pub fn not_before(mut self, time: Millis) -> SimBackend {
        self.floor = time;
        self
    }

    fn anchor(&mut self, wall: Millis) -> (Millis, Millis) {
        let floor = self.floor;
        *self.anchor.get_or_insert((wall, wall.max(floor)))
    }
}

impl Backend for SimBackend {
    fn clock(&mut self, wall: Millis) -> Millis {
        let (wall0, base) = self.anchor(wall);
        base + (wall.saturating_sub(wall0) as f64 * self.speed) as Millis
    }

    fn poll(&mut self, now: Millis) -> Polled {
        let (_, base) = self.anchor(now);
        let due = now.saturating_sub(base);
        // Every scan of the simulator's own period up to the due time, so the stabiliser
        // sees the same scans at any speed.
        let mut scans = Vec::new();
        while !self.finished && self.sim.now() <= due {
            match self.sim.next_scan() {
                Some((mut frame, mut buttons)) => {
                    frame.time += base;
                    for b in &mut buttons {
                        b.time += base;
                    }
                    scans.push((frame, buttons));
                }
                None => self.finished = true,
            }
        }
        Polled {
            scans,
            faults: Vec::new(),
            finished: self.finished,
        }
    }

    fn describe(&self) -> String {
        format!("sim x{}", self.speed)
    }
}

/// A scanning microcontroller on a serial line (hal's reconnecting reader).
#[derive(Debug)]
pub struct SerialBackend {
    link: SerialLink,
    buttons: Vec<ButtonEvent>,
}

impl SerialBackend {
    /// The reader for `config.hardware.serial` on a board of `config.board.size`.
    pub fn new(config: &Config) -> SerialBackend {
        let link = SerialLink::new(LinkConfig {
            path: config.hardware.serial.path.clone(),
            baud: config.hardware.serial.baud,
            size: config.board.size,
            ..LinkConfig::default()
        });
        SerialBackend {
            link,
            buttons: Vec::new(),
        }
    }
}

impl Backend for SerialBackend {
    fn poll(&mut self, now: Millis) -> Polled {
        self.link.pump(now, Duration::ZERO);
        self.buttons.extend(self.link.take_buttons());
        let mut scans = Vec::new();
        while let Some(frame) = self.link.next_frame() {
            // Buttons pressed up to this scan go with it; later ones wait for the next.
            let (before, after): (Vec<_>, Vec<_>) =
                self.buttons.iter().partition(|b| b.time <= frame.time);
            self.buttons = after;
            scans.push((frame, before));
        }
        let faults = self
            .link
            .take_events()
            .into_iter()
            .filter_map(|e| match e {
                LinkEvent::Lost { reason } => {
                    tracing::warn!("serial link lost: {reason}");
                    Some("link_lost")
                }
                LinkEvent::Restored => Some("link_restored"),
                other => {
                    tracing::info!("serial link: {other:?}");
                    None
                }
            })
            .map(|kind| Event::SensorFault {
                points: Vec::new(),
                kind: kind.into(),
            })
            .collect();
        Polled {
            scans,
            faults,
            finished: false,
        }
    }

    fn idle(&mut self, budget: Duration) {
        // Wake on the first bytes from the microcontroller; they are decoded and stamped
        // with the moment they arrived, and taken by the next poll.
        self.link
            .pump_with_clock(budget, &mut super::scan_loop::wall_ms);
    }

    fn describe(&self) -> String {
        format!("serial {}", self.link.config().path.display())
    }
}

/// The sensors read directly on a Raspberry Pi (muxes + SPI ADCs, buttons on GPIO).
#[cfg(feature = "rpi")]
pub struct RpiBackend {
    matrix: tengen_hal::rpi::RpiMatrix,
    buttons: tengen_hal::rpi::RpiButtons,
    fault: bool,
}

#[cfg(feature = "rpi")]
impl Backend for RpiBackend {
    fn poll(&mut self, now: Millis) -> Polled {
        let buttons = match self.buttons.poll(now) {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!("buttons: {e}");
                Vec::new()
            }
        };
        match self.matrix.scan(now) {
            Ok(frame) => {
                let mut faults = Vec::new();
                if std::mem::take(&mut self.fault) {
                    faults.push(Event::SensorFault {
                        points: Vec::new(),
                        kind: "link_restored".into(),
                    });
                }
                Polled {
                    scans: vec![(frame, buttons)],
                    faults,
                    finished: false,
                }
            }
            Err(e) => {
                let mut faults = Vec::new();
                if !self.fault {
                    tracing::warn!("sensor scan failed: {e}");
                    self.fault = true;
                    faults.push(Event::SensorFault {
                        points: Vec::new(),
                        kind: "link_lost".into(),
                    });
                }
                Polled {
                    scans: Vec::new(),
                    faults,
                    finished: false,
                }
            }
        }
    }

    fn describe(&self) -> String {
        "rpi".into()
    }
}

/// The `[hardware.rpi]` table: `pins` (the hal's `PinConfig`) and `wiring` (the hal's
/// `Wiring`), each defaulting to the hal's standard layout (see [`crate::config::rpi`]);
/// the problems, each with its key path, on one line.
pub fn rpi_layout(
    config: &Config,
) -> Result<(tengen_hal::driver::PinConfig, tengen_hal::driver::Wiring), String> {
    crate::config::rpi::rpi_layout(&config.hardware.rpi, config.board.size).map_err(|problems| {
        problems
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// What [`build`] made from a config.
pub struct Built {
    /// The scans.
    pub backend: Box<dyn Backend>,
    /// The referee's settings (from the config; for the simulator, the game's own size,
    /// komi and handicap).
    pub settings: RefereeSettings,
    /// The calibration for raw frames (`None`: the hal's default).
    pub calibration: Option<Calibration>,
    /// Rebuild the journal's game (hardware, and the simulator when it takes the journal's
    /// game up) or start a new one (the simulator playing its game again).
    pub restore: bool,
}

/// Builds the backend and the referee settings the config asks for.
pub fn build(config: &Config) -> Result<Built, ServiceError> {
    build_with(config, &GameOptions::default())
}

/// As [`build`], with how the simulated players play an SGF game (`tengen demo` injects
/// a violation this way).
pub fn build_with(config: &Config, play: &GameOptions) -> Result<Built, ServiceError> {
    build_resumed(config, play, &Resume::default())
}

/// What the journal holds when the service starts, for the simulator to take its game up
/// where it was.
#[derive(Debug, Clone, Default)]
pub struct Resume {
    /// The journal's current game (from its last `game_started`); empty for a new journal.
    pub past: Vec<Envelope>,
    /// The time of the journal's last event (ms since the epoch; 0 when none).
    pub last_time: Millis,
}

/// As [`build_with`], for a journal that already holds a game: the simulator goes on
/// with that game from where the journal ends (see [`super::resume`]), its clock never
/// earlier than the journal's last event. When the journal's game is not the simulator's
/// (the config names another game now), the simulator plays its game again as a new one.
pub fn build_resumed(
    config: &Config,
    play: &GameOptions,
    resume: &Resume,
) -> Result<Built, ServiceError> {
    let settings = RefereeSettings::from_config(config);
    match config.hardware.backend {
        BackendKind::Sim => {
            let mut options = SimOptions::seeded(config.hardware.sim.seed);
            options.noise = config.hardware.sim.noise;
            options.scan_hz = config.hardware.scan_hz;
            options.size = config.board.size;
            options.black_side = sim_side(settings.black_side);
            let (sim, settings) = match &config.hardware.sim.source {
                SimSource::Sgf(path) => {
                    let record = read(path)
                        .and_then(|t| sgf::parse(&t).map_err(|e| e.to_string()))
                        .map_err(|e| ServiceError::Backend(format!("{}: {e}", path.display())))?;
                    let sim = Simulation::from_sgf(&record, &options, play)
                        .map_err(|e| ServiceError::Backend(format!("{}: {e}", path.display())))?;
                    (sim, settings_for_record(config, &record))
                }
                SimSource::Script(path) => {
                    let name = path.display().to_string();
                    let text =
                        read(path).map_err(|e| ServiceError::Backend(format!("{name}: {e}")))?;
                    let script = Script::parse(&text)
                        .map_err(|e| ServiceError::Backend(e.with_source(&name).to_string()))?;
                    let sim = Simulation::from_parsed(&script, &options)
                        .map_err(|e| ServiceError::Backend(e.with_source(&name).to_string()))?;
                    (sim, settings_for_script(config, &script))
                }
            };
            let (sim, restore) = if resume.past.is_empty() {
                (sim, false)
            } else {
                match resume_point(sim.actions(), &resume.past) {
                    Ok(k) => {
                        tracing::info!(
                            "sim: taking the journal's game up at action {k} of {}",
                            sim.actions().len()
                        );
                        (sim.resumed_from(k), true)
                    }
                    Err(why) => {
                        tracing::warn!(
                            "sim: the journal's game is not the simulator's ({why}); \
                             playing it again as a new game"
                        );
                        (sim, false)
                    }
                }
            };
            Ok(Built {
                backend: Box::new(
                    SimBackend::new(sim, config.hardware.sim.speed).not_before(resume.last_time),
                ),
                settings,
                calibration: None,
                restore,
            })
        }
        BackendKind::Serial => Ok(Built {
            backend: Box::new(SerialBackend::new(config)),
            settings,
            calibration: load_calibration(config)?,
            restore: true,
        }),
        BackendKind::Rpi => rpi(config, settings),
    }
}

#[cfg(feature = "rpi")]
fn rpi(config: &Config, settings: RefereeSettings) -> Result<Built, ServiceError> {
    let (pins, wiring) = rpi_layout(config).map_err(ServiceError::Config)?;
    let matrix = tengen_hal::rpi::open_matrix(&wiring, &pins)
        .map_err(|e| ServiceError::Backend(e.to_string()))?;
    let buttons =
        tengen_hal::rpi::open_buttons(&pins).map_err(|e| ServiceError::Backend(e.to_string()))?;
    Ok(Built {
        backend: Box::new(RpiBackend {
            matrix,
            buttons,
            fault: false,
        }),
        settings,
        calibration: load_calibration(config)?,
        restore: true,
    })
}

#[cfg(not(feature = "rpi"))]
fn rpi(config: &Config, _settings: RefereeSettings) -> Result<Built, ServiceError> {
    rpi_layout(config).map_err(ServiceError::Config)?;
    Err(ServiceError::Backend(
        "hardware.backend = \"rpi\" needs a build with `--features rpi`".into(),
    ))
}

/// The calibration file of `hardware.calibration`; a missing file means the hal's default
/// (with a warning: run `tengen calibrate`), a bad one is an error.
pub fn load_calibration(config: &Config) -> Result<Option<Calibration>, ServiceError> {
    let path = &config.hardware.calibration;
    if !path.exists() {
        tracing::warn!(
            "{}: no calibration yet, using the default (run `tengen calibrate`)",
            path.display()
        );
        return Ok(None);
    }
    Calibration::load_for(path, config.board.size)
        .map(Some)
        .map_err(|e| ServiceError::Config(e.to_string()))
}

fn read(path: &std::path::Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}
